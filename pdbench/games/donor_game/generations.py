"""Generations of cultural evolution (Vallinder & Hughes 2024): where a round falls in the match,
who survives a generation, and the strategy phase's answers. Pure functions of the options, the
match's seed and the state.

- A match is `generations` x `games_per_generation` games of `rounds` rounds each; every game
  starts from the endowment, with no past (no trace, no history, everyone's image good).
- With generations (above 1), each generation opens with a strategy phase: every player of
  generation 1, and each new player after, writes its strategy (`{"type": "strategy", "text":
  ...}`, at most `STRATEGY_LIMIT` characters), shown the survivors' strategies and their final
  scores (V&H: "the advice of the best-performing 50% of the previous generation, along with
  their final scores"); the text is shown to its writer in every later round of its life.
- After each generation but the last, the players are ranked on their final score of the
  generation's last game (V&H rank on twice the last game's final resources: the same order),
  ties broken by a seeded draw no agent can derive; the top `kept` survive, keeping their
  strategy, and every other seat takes a new player (a new label, no past, its strategy written
  at the next strategy phase). A seat keeps its agent: what changes is the strategy it carries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from pdbench.games.donor_game.options import Options
from pdbench.games.donor_game.pairing import stream

STRATEGY_LIMIT = 2000  # characters of a written strategy
_SELECTION = 3  # the seeded stream's purpose (pairing: labels 1, pairs 2)


def position(options: Options, round_number: int) -> tuple[int, int, int]:
    """(generation, game within it, round within the game) of a match's round, each from 1."""
    index = round_number - 1
    per_generation = options.games_per_generation * options.rounds
    return (
        index // per_generation + 1,
        index % per_generation // options.rounds + 1,
        index % options.rounds + 1,
    )


def game_start(options: Options, round_number: int) -> int:
    """The match round the game of `round_number` began with."""
    return round_number - position(options, round_number)[2] + 1


def survivors(
    options: Options, seed: int, generation: int, finals: Sequence[Fraction]
) -> tuple[int, ...]:
    """The players (population indices, best first) who survive `generation`, ranked on their
    final score `finals`, ties broken by a draw from the match's seed."""
    ties = stream(seed, _SELECTION, generation).permutation(len(finals))
    ranked = sorted(range(len(finals)), key=lambda i: (-finals[i], int(ties[i])))
    return tuple(ranked[: options.kept])


def strategy_problem(action: Mapping[str, Any]) -> str | None:
    """Why a strategy phase answer is illegal, or None."""
    if action.get("type") != "strategy":
        return f'type must be "strategy" in the strategy phase, got {action.get("type")!r}'
    text = action.get("text")
    if not isinstance(text, str):
        return f'"text" must be a string, got {text!r}'
    if len(text) > STRATEGY_LIMIT:
        return f'"text" must be at most {STRATEGY_LIMIT} characters, got {len(text)}'
    return None
