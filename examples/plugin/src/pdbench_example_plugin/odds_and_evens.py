"""Odds and evens, a game added by a plugin (issue 43): each round both players show one or two
fingers at once; an odd sum wins the round for seat a ("odd"), an even sum for seat b ("even").
The player with more rounds won wins the match. It has the whole turn-game contract
(`pdbench.games.base.TurnGame`), house players, a measure, and a registry entry
(`GAME`, declared in this package's pyproject.toml under `pdbench.games`).

round_state: `{"game": "odds-and-evens", "phase": "show", "round_number", "round_limit", "you":
"odd" | "even", "your_score", "opponent_score", "history": [{"round_number", "you", "opponent"}]}`;
an answer: `{"type": "show", "fingers": 1 | 2}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from pdbench.core.metric import Metric
from pdbench.games.entry import TurnGameEntry
from pdbench.games.metric_rows import register_game_rows

SEATS = ("a", "b")
SIDE = {"a": "odd", "b": "even"}


@dataclass(frozen=True)
class State:
    rounds: int
    shown: tuple[tuple[int, int], ...] = ()  # (a's fingers, b's fingers) per round played

    @property
    def round_number(self) -> int:
        return len(self.shown) + 1


@dataclass(frozen=True)
class OddsAndEvens:
    id: ClassVar[str] = "odds_and_evens"
    platform_name: ClassVar[str] = "odds-and-evens"
    third_roles: ClassVar[tuple[str, ...]] = ()

    rounds: int = 5

    def __post_init__(self) -> None:
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or self.rounds < 1:
            raise ValueError(f"rounds must be a whole number of at least 1, got {self.rounds!r}")

    def initial_state(self, seed: int) -> State:
        return State(rounds=self.rounds)  # no chance in the rules: the seed is not needed

    def to_move(self, state: State) -> tuple[str, ...]:
        return () if self.match_over(state) else SEATS

    def observe(self, state: State, seat: str) -> dict[str, Any]:
        me, other = (0, 1) if seat == "a" else (1, 0)
        scores = self.scores(state)
        return {
            "game": self.platform_name,
            "phase": "show",
            "round_number": state.round_number,
            "round_limit": state.rounds,
            "you": SIDE[seat],
            "your_score": scores[seat],
            "opponent_score": scores["b" if seat == "a" else "a"],
            "history": [
                {"round_number": n, "you": shown[me], "opponent": shown[other]}
                for n, shown in enumerate(state.shown, start=1)
            ],
        }

    def problem(self, state: State, seat: str, action: Mapping[str, Any]) -> str | None:
        if action.get("type") != "show" or action.get("fingers") not in (1, 2):
            return 'answer {"type": "show", "fingers": 1} or 2 fingers'
        return None

    def fallback(self, state: State, seat: str, reason: str) -> dict[str, Any]:
        return {"type": "show", "fingers": 1}

    def apply(self, state: State, actions: Mapping[str, Mapping[str, Any]]) -> State:
        shown = (int(actions["a"]["fingers"]), int(actions["b"]["fingers"]))
        return replace(state, shown=(*state.shown, shown))

    def round_number(self, state: State) -> int:
        return state.round_number

    def phase(self, state: State) -> str:
        return "show"

    def revealed(self, before: State, after: State) -> dict[str, Any] | None:
        a, b = after.shown[-1]
        return {"fingers": {"a": a, "b": b}, "round_winner": "a" if (a + b) % 2 else "b"}

    def match_over(self, state: State) -> bool:
        return len(state.shown) >= state.rounds

    def scores(self, state: State) -> dict[str, float]:
        odd = sum((a + b) % 2 for a, b in state.shown)
        return {"a": float(odd), "b": float(len(state.shown) - odd)}


@dataclass(frozen=True)
class Random:
    """Shows one or two fingers with even odds."""

    def act(self, round_state: dict[str, Any], rng: Any) -> dict[str, Any]:
        return {"type": "show", "fingers": int(rng.integers(1, 3))}


@dataclass(frozen=True)
class Copycat:
    """Shows what the other player showed last round (one finger first)."""

    def act(self, round_state: dict[str, Any], rng: Any) -> dict[str, Any]:
        history = round_state["history"]
        return {"type": "show", "fingers": history[-1]["opponent"] if history else 1}


POLICIES = {"oe_random": Random, "oe_copycat": Copycat}


def match_row(state: State) -> dict[str, dict[str, object]]:
    scores = OddsAndEvens(rounds=state.rounds).scores(state)
    rows: dict[str, dict[str, object]] = {}
    for seat, me in (("a", 0), ("b", 1)):
        other = "b" if seat == "a" else "a"
        twos = sum(shown[me] == 2 for shown in state.shown)
        rows[seat] = {
            "win_rate": float(scores[seat] > scores[other]),
            "two_fingers_share": twos / len(state.shown) if state.shown else None,
        }
    return rows


# The measures, per player seat: rows of pdbench's one metric registry, measured from the final
# state by `match_row` (registered when pdbench imports this module, the entry's `metrics`).
register_game_rows(
    ("odds_and_evens",),
    lambda match: match_row(match.state),
    (
        Metric(
            stem="win_rate",
            label="Win rate",
            short="win",
            help="share of matches the player won",
            kind="rate",
            per_agent=True,
            shown="win",
        ),
        Metric(
            stem="two_fingers_share",
            label="Two fingers",
            short="two fingers",
            help="share of rounds the player showed two fingers",
            kind="rate",
            per_agent=True,
        ),
    ),
)


GAME = TurnGameEntry(
    id="odds_and_evens",
    platform_name="odds-and-evens",
    rules="pdbench_example_plugin.odds_and_evens:OddsAndEvens",
    policies="pdbench_example_plugin.odds_and_evens:POLICIES",
    summary="show one or two fingers at once; an odd sum wins the round for a, even for b",
    metrics="pdbench_example_plugin.odds_and_evens",
    view="pdbench_example_plugin.view",
)
