"""What makes a condition's agent unfit for a seat of a 2x2 game (the entries' `seat_fit`,
asked by the config through `registry.seat_problem`): the agent is checked on the table the
seat is shown (`rules.MatrixGame.agent_game`: payoffs and labels from its own side, and whether
the game has a negotiation phase), as the 2x2 agents are built with it."""

from __future__ import annotations

from typing import Any


def seat_problem(agent: Any, rules: Any, seat: str) -> str | None:
    """`agent`'s (an agent spec's) `problem_in_game` on the table `rules` show `seat`: "field:
    reason" within the agent, or None."""
    table = rules.agent_game(seat)
    return agent.problem_in_game(table, negotiates=table.negotiation is not None)
