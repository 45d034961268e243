"""An agent kind: an agent that alternates between two actions, starting with `first`."""

from typing import ClassVar, Literal

from pydantic import Field

from pdbench.agents.base import TableAgent
from pdbench.config.agent_spec_base import AgentSpecBase, agent_kind
from pdbench.core.actions import Action


@agent_kind(entry_point="pdbench_example_plugin.agent:AlternateAgent")
class AlternateAgentSpec(AgentSpecBase):
    """Plays `first` in odd rounds and the other action in even rounds."""

    type: Literal["alternate"] = "alternate"
    first: Literal["C", "D"] = Field("C", description="the action of the first round")
    name: str | None = Field(None, description="display name; default: ALTERNATE-<first>")
    can_fail_to_answer: ClassVar[bool] = False

    @property
    def display_name(self) -> str:
        return self.name or f"ALTERNATE-{self.first}"

    @property
    def is_deterministic(self) -> bool:
        return True


class AlternateAgent(TableAgent):
    def __init__(self, spec, *, game, horizon, context):
        self.name = spec.display_name
        self.first = Action(spec.first)
        self.other = Action.D if self.first == Action.C else Action.C

    def act(self, obs):
        return self.first if obs.round_index % 2 == 1 else self.other
