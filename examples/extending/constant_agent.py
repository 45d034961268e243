"""An agent kind: an agent that plays one action every round (docs/extending.md)."""

from typing import ClassVar, Literal

from pydantic import Field

from pdbench.agents.base import TableAgent
from pdbench.config.agent_spec_base import AgentSpecBase, agent_kind
from pdbench.core.actions import Action


@agent_kind(entry_point="constant_agent:ConstantAgent")
class ConstantAgentSpec(AgentSpecBase):
    """Plays `action` every round."""

    type: Literal["constant"] = "constant"
    action: Literal["C", "D"] = Field(description="the action it plays every round")
    name: str | None = Field(None, description="display name; default: ALWAYS-<action>")
    can_fail_to_answer: ClassVar[bool] = False  # nothing to parse, nothing to time out

    @property
    def display_name(self) -> str:
        return self.name or f"ALWAYS-{self.action}"

    @property
    def is_deterministic(self) -> bool:
        return True


class ConstantAgent(TableAgent):
    def __init__(self, spec, *, game, horizon, context):
        self.name = spec.display_name
        self.action = Action(spec.action)

    def act(self, obs):
        return self.action
