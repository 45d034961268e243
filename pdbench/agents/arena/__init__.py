"""Arena agents: a user's AgentDuel-style Python file, played in its own process."""

from pdbench.agents.arena.agent import (
    AgentLog,
    ArenaAgent,
    agent_log_path,
    check_arena_file,
    files_read,
    infer_opponent_action,
    label_to_action,
    parse_choice,
    round_info,
    round_result,
    round_state,
)

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
