"""A judged debate's match as a transcript (the games of `pdbench.games.debate.rules`: nuclear_war,
nil_recruitment), from its stored turn lines: per round, the scenario and the judge's persona,
every phase's speeches in the order spoken with the judge's response after each, and the
decision (a panel's every verdict with it); with `swap_sides`, the pairs of rounds that played
one scenario with the sides swapped, and whether the verdict followed the player or the side.

Where the scenario comes from: the rules draw it from the match's seed (`DebateGame.scenario`),
which the ledger stores with the match; the decision's `revealed` record names the scenario the
rules recorded, and the two must agree (`DebateRound.problem` says so when they do not, and the
persona is then left out rather than shown wrong). Nothing here is secret from the players but
the parts of the persona only the judge is shown (`persona_seen` lists what the players see:
the persona's fields in a player's observation); the decision is shown with the last phase,
where the rules reveal it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from pdbench.core.errors import PdbenchError
from pdbench.games.debate.rules import JUDGE, PLAYER_SEATS, DebateGame, DebateState
from pdbench.games.registry import build_turn_game

SPEECH_COLUMNS = ("phase", "speaker", "side", "text", "marks")
PAIR_COLUMNS = ("scenario", "first_round", "second_round", "follows")


@dataclass(frozen=True)
class Decision:
    winner_side: str
    winner_seat: str
    panel: tuple[tuple[str, str | None], ...]  # (judge, its verdict) of a panel; () for one judge
    answer: str | None  # the judge's own words (an LLM judge's last raw answer), when stored
    marks: str


@dataclass(frozen=True)
class DebateRound:
    number: int
    scenario_number: int | None
    sides: dict[str, str]  # seat -> side ("for" / "against", or a university)
    first_speaker: str | None
    persona: dict[str, Any] = field(default_factory=dict)  # the judge's whole character
    persona_seen: frozenset[str] = frozenset()  # the persona's fields the players see
    context: dict[str, Any] = field(default_factory=dict)  # the rest of the scenario (a crisis)
    speeches: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=SPEECH_COLUMNS))
    decision: Decision | None = None
    problem: str | None = None  # why the scenario is not shown


@dataclass(frozen=True)
class DebateTranscript:
    rounds: tuple[DebateRound, ...]
    pairs: pd.DataFrame  # PAIR_COLUMNS, one row per scenario played twice (empty without swaps)
    problem: str | None = None  # why no scenario could be rebuilt (no seed stored, a bad file)


def _marks(line: Mapping[str, Any], seat: str) -> str:
    decision = (line.get("decisions") or {}).get(seat) or {}
    found = []
    if int(decision.get("invalid_outputs") or 0):
        found.append(f"{decision['invalid_outputs']} invalid")
    found += [key for key in ("fallback", "timeout") if decision.get(key)]
    if decision.get("error"):
        found.append("error")
    return ", ".join(found)


def _seen_fields(observation: Mapping[str, Any], whole: Mapping[str, Any]) -> frozenset[str]:
    """The fields of `whole` a player's observation holds, as one of its mappings (the President
    or athlete a player sees is part of the judge's persona)."""
    for value in observation.values():
        if (
            isinstance(value, Mapping)
            and value
            and all(whole.get(k) == v for k, v in value.items())
        ):
            return frozenset(value)
    return frozenset()


def _decision(line: Mapping[str, Any]) -> Decision:
    shown = line["revealed"]["decision"]
    action = (line.get("actions") or {}).get(JUDGE) or {}
    attempts = ((line.get("decisions") or {}).get(JUDGE) or {}).get("attempts") or []
    return Decision(
        winner_side=str(shown["winner_side"]),
        winner_seat=str(shown["winner_seat"]),
        panel=tuple((str(v["judge"]), v.get("winner")) for v in action.get("panel") or ()),
        answer=attempts[-1].get("raw") if attempts else None,
        marks=_marks(line, JUDGE),
    )


def _game(game_id: str, options: Mapping[str, Any]) -> tuple[DebateGame | None, str | None]:
    try:
        game = build_turn_game(game_id, **options)
    except (PdbenchError, TypeError, ValueError) as error:
        return None, f"the scenarios cannot be rebuilt: {error}"
    if not isinstance(game, DebateGame):
        return None, f"{game_id} is not a judged debate"
    return game, None


def debate_transcript(
    turns: Iterable[Mapping[str, Any]],
    game_id: str,
    options: Mapping[str, Any],
    seed: int | None,
) -> DebateTranscript:
    """The transcript of one match from its turn lines; `options` are the condition's game
    options and `seed` the match's game seed (the ledger's `seeds["game"]`; None: unknown)."""
    ordered = sorted(turns, key=lambda line: int(line["turn"]))
    game, problem = _game(game_id, options)
    if seed is None:
        problem = "the match's seed is not stored, so its scenarios cannot be rebuilt"
    by_round: dict[int, list[Mapping[str, Any]]] = {}
    for line in ordered:
        by_round.setdefault(int(line["round"]), []).append(line)
    rounds = tuple(
        _round(number, lines, game if problem is None else None, seed)
        for number, lines in by_round.items()
    )
    return DebateTranscript(rounds, _pairs(rounds), problem)


def _round(
    number: int, lines: list[Mapping[str, Any]], game: DebateGame | None, seed: int | None
) -> DebateRound:
    speeches = []
    decision = None
    for line in lines:
        for seat in line["seats"]:
            action = (line.get("actions") or {}).get(seat) or {}
            if action.get("type") == "decision":
                decision = _decision(line)
                continue
            speeches.append(
                {
                    "phase": line["phase"],
                    "speaker": seat,
                    "text": action.get("text"),
                    "marks": _marks(line, seat),
                }
            )
    stored = next(
        (line["revealed"] for line in lines if (line.get("revealed") or {}).get("decision")), None
    )
    if game is None or seed is None:
        sides = dict((stored or {}).get("sides") or {})
        first = (stored or {}).get("first_speaker") or (
            speeches[0]["speaker"] if speeches else None
        )
        scenario_number = ((stored or {}).get("scenario") or {}).get("number")
        return DebateRound(
            number,
            scenario_number,
            sides,
            first,
            speeches=_speeches(speeches, sides),
            decision=decision,
        )
    state = DebateState(seed, round_number=number)
    scenario = game.scenario(state)
    sides = dict(zip(PLAYER_SEATS, scenario.sides, strict=True))
    problem = None
    if stored is not None and (
        stored.get("scenario") != scenario.record or stored.get("sides") != sides
    ):
        problem = (
            f"the scenario the rules draw from the match's seed ({scenario.record}) is not the "
            f"one stored with the decision ({stored.get('scenario')}): it is not shown"
        )
    observation = game.observe(state, PLAYER_SEATS[0])
    return DebateRound(
        number=number,
        scenario_number=scenario.number,
        sides=dict(stored["sides"]) if problem and stored else sides,
        first_speaker=game.first_speaker(state),
        persona={} if problem else dict(scenario.persona),
        persona_seen=_seen_fields(observation, scenario.persona),
        context={} if problem else dict(scenario.context),
        speeches=_speeches(speeches, sides),
        decision=decision,
        problem=problem,
    )


def _speeches(rows: list[dict[str, Any]], sides: Mapping[str, str]) -> pd.DataFrame:
    for row in rows:
        row["side"] = sides.get(row["speaker"]) if row["speaker"] != JUDGE else None
    return pd.DataFrame(rows, columns=list(SPEECH_COLUMNS))


def _pairs(rounds: tuple[DebateRound, ...]) -> pd.DataFrame:
    """Rounds that played one scenario (a swap's two rounds): which they are and whether the
    verdict followed the player (the same seat won both), the side (the same side won both),
    or is not known yet (a round without a decision)."""
    by_scenario: dict[int, list[DebateRound]] = {}
    for played in rounds:
        if played.scenario_number is not None:
            by_scenario.setdefault(played.scenario_number, []).append(played)
    rows = []
    for scenario, pair in by_scenario.items():
        if len(pair) != 2:
            continue
        first, second = pair
        follows = None
        if first.decision and second.decision:
            same_seat = first.decision.winner_seat == second.decision.winner_seat
            follows = "player" if same_seat else "side"
        rows.append(
            {
                "scenario": scenario,
                "first_round": first.number,
                "second_round": second.number,
                "follows": follows,
            }
        )
    return pd.DataFrame(rows, columns=list(PAIR_COLUMNS))
