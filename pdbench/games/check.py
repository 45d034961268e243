"""The contract checks of a turn-based game, run on any registered game (`pdbench check-game ID`;
the 2x2 games too, on the turn contract of `pdbench.games.matrix`),
in the spirit of Gymnasium's `check_env`: what pdbench's runner, resume and arena rely on.

Each check plays the game's own house players (and its default house third parties) from seeds:
- the registry row and the rules class agree (id, platform spelling, third roles);
- a match ends within the turn cap, every action the house players give is legal, and the final
  scores name every player seat;
- the same seed and players give the same match, move for move (determinism);
- the stored actions alone, applied from `initial_state(seed)`, rebuild the final state (resume);
- every observation is JSON (what an arena agent receives) and names the game as the platform
  spells it;
- an action the rules do not know is refused with a reason an LLM can be shown, and the fallback
  played for an invalid answer or a timeout is legal;
- observations hide what the rules hide, for a game that says what that is: its optional
  `redraw_hidden(state, seat, rng)` returns the same state with everything `seat` may not see
  drawn again (the opponent's dice, the secret word, the other player's questions, the seed of
  what is dealt later); at every turn of the house matches, each seat to move must be shown the
  same observation of both, and some redraw must change the state (a redraw that changes nothing
  checks nothing).

Not checked here, and said in the report: hidden information for a game without `redraw_hidden`
(the debates: their players see the whole debate so far), and the golden playthrough
(tests/golden/every_game/, in the repository's suite).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdbench.games.base import TurnGame, TurnPolicy, role_of
from pdbench.games.registry import (
    build_turn_game,
    game_entry,
    house_third_parties,
    seats_played,
    third_roles,
    turn_policies,
)

TURN_CAP = 5_000  # turns a house match may take before the check calls it endless
HIDDEN_CHECK = "observations do not change when what the seat may not see is drawn again"
GOLDEN = "a golden playthrough: tests/golden/every_game/ in pdbench's suite"


@dataclass(frozen=True)
class CheckResult:
    name: str
    problem: str | None  # None: the check passed


@dataclass(frozen=True)
class Played:
    turns: list[dict[str, dict[str, Any]]]
    final: Any


class ContractBroken(AssertionError):
    """What a check found: a sentence naming the seed, the turn and the seat where it can."""


def check_game(game_id: str, seeds: int = 6) -> list[CheckResult]:
    """Every check on `game_id` (an unknown id raises ConfigError), over `seeds` seeded matches."""
    game = build_turn_game(game_id)
    policies = {name: factory() for name, factory in turn_policies(game_id).items()}
    third = {
        role: next(iter(factories.values()))()
        for role, factories in house_third_parties(game_id).items()
    }
    return check_rules(
        game,
        policies,
        third,
        seats=seats_played(game_id, game),
        seeds=seeds,
        registry_row=lambda: _registry_row(game_id, game),
    )


def check_rules(
    game: TurnGame[Any],
    policies: dict[str, TurnPolicy],
    third: dict[str, TurnPolicy],
    *,
    seats: tuple[str, ...],
    seeds: int = 6,
    registry_row: Callable[[], None] | None = None,
) -> list[CheckResult]:
    """Every check on the rules `game` played by the house `policies` (and `third` parties,
    by role) in its player `seats`; `registry_row` checks the game's registry row, if any."""
    checks: list[tuple[str, Callable[[], None]]] = [
        (
            "house players play whole legal matches, the same again from the same seed, "
            "and the stored actions rebuild the final state",
            lambda: _matches(game, policies, third, seeds, seats),
        ),
        (
            "an unknown action is refused with a reason; the fallbacks are legal",
            lambda: _refusal_and_fallbacks(game, seeds),
        ),
    ]
    if registry_row is not None:
        checks.insert(0, ("the registry row agrees with the rules class", registry_row))
    if callable(getattr(game, "redraw_hidden", None)):
        checks.append((HIDDEN_CHECK, lambda: _hidden(game, policies, third, seeds, seats)))
    results = []
    for name, check in checks:
        try:
            check()
        except ContractBroken as broken:
            results.append(CheckResult(name, str(broken)))
        else:
            results.append(CheckResult(name, None))
    return results


def not_checked(game_id: str) -> list[str]:
    """What check_game leaves to others for this game, in words."""
    left = [GOLDEN]
    if not callable(getattr(build_turn_game(game_id), "redraw_hidden", None)):
        left.insert(0, "hidden information (the game declares no redraw_hidden)")
    return left


def _registry_row(game_id: str, game: TurnGame[Any]) -> None:
    entry = game_entry(game_id)
    if not isinstance(game, TurnGame):
        raise ContractBroken(f"{entry.rules} does not implement pdbench.games.base.TurnGame")
    if (game.id, game.platform_name) != (entry.id, entry.platform_name):
        raise ContractBroken(
            f"the rules say id {game.id!r}, platform name {game.platform_name!r}; the registry "
            f"{entry.id!r}, {entry.platform_name!r}"
        )
    if tuple(game.third_roles) != third_roles(game_id):
        raise ContractBroken(
            f"third roles {list(game.third_roles)} in the rules, {list(third_roles(game_id))} "
            "played in the registry's entry (`TurnGameEntry.third_roles`)"
        )


def _matches(
    game: TurnGame[Any],
    policies: dict[str, TurnPolicy],
    third: dict[str, TurnPolicy],
    seeds: int,
    seats: tuple[str, ...] | None = None,
) -> None:
    if not policies:
        raise ContractBroken("the game has no house player")
    seats = seats_played(game.id, game) if seats is None else seats  # the registry's, by default
    for seed in range(seeds):
        seated = _seating(policies, seats, seed) | third
        first = play(game, seated, seed)
        if play(game, seated, seed).turns != first.turns:
            raise ContractBroken(f"seed {seed}: the same seed and players gave another match")
        state = game.initial_state(seed)
        for actions in first.turns:
            state = game.apply(state, actions)
        if state != first.final:
            raise ContractBroken(
                f"seed {seed}: the stored actions applied from initial_state({seed}) do not "
                "rebuild the final state (a resume would not play the same match)"
            )
        scores = game.scores(first.final)
        if set(scores) != set(seats):
            raise ContractBroken(
                f"seed {seed}: final scores for {sorted(scores)}, not for every player seat"
            )


def _seating(policies: dict[str, TurnPolicy], seats: tuple[str, ...], seed: int) -> dict[str, Any]:
    """The house players in the game's seats (a, b, c, ...) for the match of `seed`: pairs (and
    groups) vary over the seeds."""
    names = sorted(policies)
    seated = {"a": policies[names[seed % len(names)]], "b": policies[names[-1 - seed % 2]]}
    for i, seat in enumerate(seats[2:], start=2):
        seated[seat] = policies[names[(seed + i) % len(names)]]
    return seated


def _hidden(
    game: TurnGame[Any],
    policies: dict[str, TurnPolicy],
    third: dict[str, TurnPolicy],
    seeds: int,
    seats: tuple[str, ...] | None = None,
) -> None:
    redraw = game.redraw_hidden  # type: ignore[attr-defined]  # optional: see the docstring
    seats = seats_played(game.id, game) if seats is None else seats  # the registry's, by default
    changed = 0
    for seed in range(seeds):
        rng = np.random.default_rng([seed, 7])

        def look(state: Any, seat: str, seen: dict[str, Any], where: str, rng: Any = rng) -> None:
            nonlocal changed
            for _ in range(2):
                other = redraw(state, seat, rng)
                changed += other != state
                if game.observe(other, seat) != seen:
                    raise ContractBroken(
                        f"{where}: the observation changes with what the seat may not see"
                    )

        play(game, _seating(policies, seats, seed) | third, seed, look=look)
    if not changed:
        raise ContractBroken("redraw_hidden never changed a state: it checks nothing")


def play(
    game: TurnGame[Any],
    seated: Mapping[str, TurnPolicy],
    seed: int,
    look: Callable[[Any, str, dict[str, Any], str], None] | None = None,
) -> Played:
    """A match of the seated house policies (by role: "a", "b", "keeper", ...), every action and
    observation checked on the way; `look(state, seat, observation, where)` is called for each
    seat to move before it acts."""
    rngs: dict[str, np.random.Generator] = {}
    state = game.initial_state(seed)
    turns: list[dict[str, dict[str, Any]]] = []
    for turn in range(TURN_CAP):
        if game.match_over(state):
            return Played(turns, state)
        seats = game.to_move(state)
        if not seats:
            raise ContractBroken(f"seed {seed}, turn {turn + 1}: no seat to move, match not over")
        actions = {}
        for seat in seats:
            seen = game.observe(state, seat)
            where = f"seed {seed}, turn {turn + 1}, seat {seat}"
            try:
                json.dumps(seen)
            except (TypeError, ValueError) as error:
                raise ContractBroken(f"{where}: the observation is not JSON ({error})") from None
            if seen.get("game") != game.platform_name:
                raise ContractBroken(
                    f"{where}: the observation's game is {seen.get('game')!r}, not "
                    f"{game.platform_name!r}"
                )
            if look is not None:
                look(state, seat, seen, where)
            rng = rngs.setdefault(seat, np.random.default_rng([seed, len(rngs)]))
            action = seated[role_of(seat)].act(seen, rng)
            refused = game.problem(state, seat, action)
            if refused is not None:
                raise ContractBroken(f"{where}: the house player's {action} is refused: {refused}")
            actions[seat] = action
        turns.append(actions)
        state = game.apply(state, actions)
    raise ContractBroken(f"seed {seed}: no end after {TURN_CAP} turns")


def _refusal_and_fallbacks(game: TurnGame[Any], seeds: int) -> None:
    for seed in range(seeds):
        state = game.initial_state(seed)
        seat = game.to_move(state)[0]
        reason = game.problem(state, seat, {"type": "no such action"})
        if not (isinstance(reason, str) and reason.strip()):
            raise ContractBroken(f"seed {seed}, seat {seat}: an unknown action is not refused")
        for why in ("invalid", "timeout"):
            fallback = game.fallback(state, seat, why)
            refused = game.problem(state, seat, fallback)
            if refused is not None:
                raise ContractBroken(
                    f"seed {seed}, seat {seat}: the {why} fallback {fallback} is refused: {refused}"
                )
