"""Arena agents: a user's AgentDuel-style Python file, played in its own process.

validate (the file's checks, no code run), protocol (the hooks' payloads), sandbox (how the
child process is contained), bwrap (bubblewrap's command line), process (the child process), log
(its output), agent (the lifecycle over a match), child (the script that runs in the child).
"""

from pdbench.agents.arena.agent import ArenaAgent
from pdbench.agents.arena.log import AgentLog, agent_log_path
from pdbench.agents.arena.protocol import (
    infer_opponent_action,
    label_to_action,
    parse_choice,
    round_info,
    round_result,
    round_state,
)
from pdbench.agents.arena.validate import check_arena_file, files_read

__all__ = [
    "AgentLog",
    "ArenaAgent",
    "agent_log_path",
    "check_arena_file",
    "files_read",
    "infer_opponent_action",
    "label_to_action",
    "parse_choice",
    "round_info",
    "round_result",
    "round_state",
]
