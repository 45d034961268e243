"""The arena agent kind's spec: a user's agent file in the AgentDuel shape, run in its own
sandboxed process (the file itself is checked by `pdbench.agents.arena`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from pdbench.config.agent_identity import AgentIdentity, arena_identity
from pdbench.config.agent_spec_base import AgentSpecBase, agent_kind

if TYPE_CHECKING:
    from collections.abc import Mapping


@agent_kind(
    entry_point="pdbench.agents.arena.agent:ArenaAgent",
    example="arena",
    files_entry_point="pdbench.agents.arena:files_read",
)
class ArenaAgentSpec(AgentSpecBase):
    """A user's agent file in the AgentDuel shape, run in its own sandboxed process."""

    type: Literal["arena"] = "arena"
    path: str = Field(description="Python file defining class Agent (AgentDuel shape)")
    name: str | None = Field(None, description="display name; default: the file's stem")
    timeout_s: float = Field(2.0, gt=0, description="per-turn time limit, in seconds")
    timeout_action: str | None = Field(
        None, description="label played on a timeout or error; default: the cooperative label"
    )
    sandbox: Literal["auto", "required", "off"] = Field(
        "auto",
        description="bubblewrap containment: auto (when it works here, else a warning), required "
        "(refuse to run without it), off",
    )
    memory_mb: int | None = Field(
        1024, gt=0, description="address space per agent process (RLIMIT_AS), MiB; null: no limit"
    )
    trace: bool = Field(
        False,
        description="write every turn's round_state and answer (or traceback) into the agent's "
        "log; pdbench train sets it (changes no result)",
    )
    max_processes: int | None = Field(
        64,
        gt=0,
        description="processes and threads an agent may have at once, its own included; in the "
        "sandbox only (RLIMIT_NPROC); null: no limit",
    )

    def problem_in_turn_game(self, game_id: str) -> str | None:
        return None  # the file's GAME is checked with the file (agents.arena.validate)

    @property
    def display_name(self) -> str:
        return self.name or Path(self.path).stem

    def identity(self, files: Mapping[str, str]) -> AgentIdentity:
        return arena_identity(self.path, files)
