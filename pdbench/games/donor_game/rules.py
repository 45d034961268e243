"""The donor game (indirect reciprocity, issue 45) as a turn game: pure methods over an
immutable state, all chance (labels, pairs) drawn from the match's seed (`pairing`).

A population of N players (seats "a", "b", ...; each shown as a label "P1".."PN") plays
`rounds` rounds. Each round every player is a donor once, to a recipient drawn for it
(`pairing.draw_recipients`: everyone donates once and receives once); under `pairing: halves`
half the players donate, each to one of the other half (`pairing.draw_halves`, Vallinder &
Hughes's schedule), and only they act (`to_move`; a recipient is not asked, keeps its image and
pays nothing). All donors choose at once, each seeing its recipient's reputation (`observation`):
`{"type": "donate", "give": true | false}`. A donor who gives pays `cost`, its recipient gains
`benefit`; a donor who refuses pays nothing. A round's earnings of player i: benefit if its
donor gave, minus cost if it gave. Its score: `endowment` plus its earnings.

Continuous giving (`amount: continuous`, Vallinder & Hughes 2024): the answer is
`{"type": "donate", "amount": x}` with 0 <= x <= the donor's resources (its score, which starts
at `endowment`) when the round began; its recipient gains (b / c) x. An amount out of range is
illegal (the engine's re-ask and fallback path, counted), never clipped; an amount that is the
donor's resources as it is shown them (a float, or a prompt's six digits) gives all of them,
and `revealed` stores each amount given, exact. With `punishment` a donor may instead answer
`{"type": "punish", "amount": x}` (`payoffs` settles a round).

After the round the norm (`norms`) judges every donor on its action and its recipient's image
when it chose, giving the donor's image for the next round (under norm none no image is kept).

Generations (`generations`, `games_per_generation`: the module `generations` says how): a match
of several games of `rounds` rounds, each from the endowment with no past; with generations
each opens with a strategy phase (`{"type": "strategy", "text": ...}` from its new players) and
ends, but the last, with its survivors selected and every other seat given a new player.

Fallback (an agent gave no legal answer; the engine marks it): refuse (`give` false; amount 0),
the action that costs nothing; in the strategy phase, no strategy (text ""). `revealed` records
for the experimenter, each round: the labels, who donated to whom, each donor's choice is the
turn's actions, the images before and after the round (under a norm), every player's earnings
and, under continuous giving, each donor's amount and every player's resources after the round;
with several games, the round's generation and game and, at a generation's end, its survivors;
a strategy phase's writers and labels (module `stored` reads it back).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, ClassVar

from pdbench.games.base import FixedLength, player_seats
from pdbench.games.donor_game.generations import position, strategy_problem, survivors
from pdbench.games.donor_game.observation import as_number, round_state, strategy_state
from pdbench.games.donor_game.options import Options, exact
from pdbench.games.donor_game.pairing import (
    draw_halves,
    draw_labels,
    draw_recipients,
    first_half_donates,
)
from pdbench.games.donor_game.payoffs import amount_problem, settle
from pdbench.games.donor_game.state import DonorState, RoundRecord
from pdbench.games.norms import START_IMAGE, next_images


@dataclass(frozen=True)
class DonorGame(Options):
    """The donor game (rules in the module docstring, options in `options`)."""

    id: ClassVar[str] = "donor_game"
    platform_name: ClassVar[str] = "donor-game"
    third_roles: ClassVar[tuple[str, ...]] = ()

    seats: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "seats", player_seats(self.players))

    # --- the match -----------------------------------------------------------------------

    def fixed_length(self) -> FixedLength:
        """The donors of a round choose at once (one turn): every player every round, or
        under halves the half donating (a seat donates in at most the rounds of its half's
        donating turns, `_most_donations`); with generations each generation opens with a
        strategy turn (its new players write at once)."""
        strategy_turns = self.generations if self.evolves else 0
        turns = self.total_rounds + strategy_turns
        donations = self._most_donations() if self.halves else self.total_rounds
        return FixedLength(
            rounds=self.total_rounds, turns=turns, turns_per_seat=donations + strategy_turns
        )

    def _most_donations(self) -> int:
        """Under halves, the most rounds in which one seat donates in the match: a seat stays
        in its half for a generation's games (a game of fewer rounds than players may favour
        one half) and its half is redrawn each generation."""
        games = range(1, self.games_per_generation + 1)
        rounds = range(1, self.rounds + 1)
        first = sum(first_half_donates(self.players, g, r) for g in games for r in rounds)
        return self.generations * max(first, len(games) * len(rounds) - first)

    def _recipients(self, seed: int, round_number: int) -> tuple[int | None, ...]:
        """Each player's recipient in round `round_number` (None: it does not donate)."""
        if not self.halves:
            return draw_recipients(seed, round_number, self.players)
        generation, game, round_in_game = position(self, round_number)
        return draw_halves(seed, self.players, generation, game, round_in_game)

    def initial_state(self, seed: int) -> DonorState:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"a match's seed is a whole number of at least 0, got {seed!r}")
        images = None if self.judged_by is None else (START_IMAGE,) * self.players
        state = DonorState(
            seed=seed,
            round_number=1,
            phase="donate",
            labels=draw_labels(seed, self.players),
            recipients=self._recipients(seed, 1),
            images=images,
            totals=(exact(self.endowment),) * self.players,
        )
        if not self.evolves:
            return state
        everyone = tuple(range(self.players))  # generation 1: everyone writes a strategy
        return replace(
            state,
            phase="strategy",
            strategies=("",) * self.players,
            born=(1,) * self.players,
            writers=everyone,
        )

    def to_move(self, state: DonorState) -> tuple[str, ...]:
        if state.phase == "strategy":
            return tuple(self.seats[i] for i in state.writers)
        if state.phase == "over":
            return ()
        return tuple(
            seat for seat, r in zip(self.seats, state.recipients, strict=True) if r is not None
        )

    def observe(self, state: DonorState, seat: str) -> dict[str, Any]:
        if state.phase == "strategy":
            return strategy_state(self, self.platform_name, state, self.seats.index(seat))
        return round_state(self, self.platform_name, state, self.seats.index(seat))

    def redraw_hidden(self, state: DonorState, seat: str, rng: Any) -> DonorState:
        """The same state with what `seat` may not see drawn again (pdbench.games.check): the
        seed (the rounds to come), the other donors' recipients this round, every image but its
        recipient's, (continuous giving) every player's resources but its own and its
        recipient's, and (generations) every strategy but its own and, to a new player, the
        survivors'. Its observation must not change."""
        me = self.seats.index(seat)
        mine = state.recipients[me]
        recipients = tuple(
            mine if i == me else int(rng.integers(self.players)) for i in range(self.players)
        )
        images = state.images
        if images is not None:
            images = tuple(
                images[i] if i == mine else int(rng.integers(2)) for i in range(self.players)
            )
        totals = state.totals
        if self.continuous:  # resources: only its own and its recipient's are shown
            totals = tuple(
                t if i in (me, mine) else Fraction(int(rng.integers(100)))
                for i, t in enumerate(totals)
            )
        strategies = state.strategies
        if strategies:  # another's strategy is shown only as a survivor's, to a new player
            shown = {me} | ({i for i, _ in state.advice} if state.phase == "strategy" else set())
            strategies = tuple(
                text if i in shown else f"redrawn {int(rng.integers(1000))}"
                for i, text in enumerate(strategies)
            )
        return replace(
            state,
            seed=int(rng.integers(2**62)),
            recipients=recipients,
            images=images,
            totals=totals,
            strategies=strategies,
        )

    # --- answers -------------------------------------------------------------------------

    def problem(self, state: DonorState, seat: str, action: Mapping[str, Any]) -> str | None:
        if seat not in self.to_move(state):
            return f"{seat} does not act now (phase {state.phase})"
        if not isinstance(action, Mapping):
            return 'an answer is a JSON object with a "type"'
        if state.phase == "strategy":
            return strategy_problem(action)
        if self.continuous:
            return amount_problem(self, state.totals[self.seats.index(seat)], action)
        if action.get("type") != "donate":
            return f'type must be "donate" in the donate phase, got {action.get("type")!r}'
        if not isinstance(action.get("give"), bool):
            return f'"give" must be true or false, got {action.get("give")!r}'
        return None

    def fallback(self, state: DonorState, seat: str, reason: str) -> dict[str, Any]:
        if state.phase == "strategy":  # no strategy written
            return {"type": "strategy", "text": ""}
        if self.continuous:
            return {"type": "donate", "amount": 0}
        return {"type": "donate", "give": False}

    # --- applying a turn -----------------------------------------------------------------

    def apply(self, state: DonorState, actions: Mapping[str, Mapping[str, Any]]) -> DonorState:
        seats = self.to_move(state)
        if set(actions) != set(seats):
            raise ValueError(f"{len(seats)} seats act now ({state.phase}), got {sorted(actions)}")
        for seat, action in actions.items():
            reason = self.problem(state, seat, action)
            if reason is not None:
                raise ValueError(f"{seat}: {reason}")
        if state.phase == "strategy":
            return self._written(state, actions)
        settled = settle(
            self, state.totals, state.recipients, [actions.get(seat) for seat in self.seats]
        )
        gave, earnings = settled.gave, settled.earnings
        norm = self.judged_by
        after = (
            None
            if norm is None or state.images is None
            else next_images(norm, state.images, state.recipients, gave)
        )
        generation, game, _ = position(self, state.round_number)
        record = RoundRecord(
            round_number=state.round_number,
            recipients=state.recipients,
            gave=gave,
            images_before=state.images,
            images_after=after,
            earnings=tuple(earnings),
            amounts=settled.amounts,
            resources_before=None if settled.amounts is None else state.totals,
            punished=settled.punished,
            generation=generation,
            game=game,
        )
        totals = tuple(t + e for t, e in zip(state.totals, earnings, strict=True))
        number = state.round_number + 1
        over = state.round_number == self.total_rounds
        played = replace(
            state,
            round_number=number,
            phase="over" if over else "donate",
            recipients=state.recipients if over else self._recipients(state.seed, number),
            images=after,
            totals=totals,
            finished=(*state.finished, record),
        )
        if over or position(self, number)[2] != 1:
            return played
        # a game ends: the next starts from the endowment, everyone good
        played = replace(
            played,
            totals=(exact(self.endowment),) * self.players,
            images=None if after is None else (START_IMAGE,) * self.players,
        )
        if position(self, number)[0] == generation:
            return played
        return self._selected(played, generation, totals)

    def _selected(
        self, state: DonorState, generation: int, finals: tuple[Fraction, ...]
    ) -> DonorState:
        """`state` after generation `generation` ended with scores `finals`: its survivors kept,
        every other seat a new player who writes its strategy next (`generations`)."""
        kept = survivors(self, state.seed, generation, finals)
        new = tuple(i for i in range(self.players) if i not in kept)
        labels, strategies, born = list(state.labels), list(state.strategies), list(state.born)
        for k, i in enumerate(new):
            labels[i] = f"P{self.players + state.newcomers + k + 1}"
            strategies[i], born[i] = "", generation + 1
        record = replace(state.finished[-1], survived=kept)
        return replace(
            state,
            phase="strategy",
            labels=tuple(labels),
            strategies=tuple(strategies),
            born=tuple(born),
            writers=new,
            advice=tuple((i, finals[i]) for i in kept),
            newcomers=state.newcomers + len(new),
            finished=(*state.finished[:-1], record),
        )

    def _written(self, state: DonorState, actions: Mapping[str, Mapping[str, Any]]) -> DonorState:
        """The strategy phase played: each writer carries the strategy it wrote."""
        strategies = list(state.strategies)
        for i in state.writers:
            strategies[i] = str(actions[self.seats[i]]["text"])
        return replace(state, phase="donate", strategies=tuple(strategies), writers=())

    # --- what is known -------------------------------------------------------------------

    def round_number(self, state: DonorState) -> int:
        return state.round_number

    def phase(self, state: DonorState) -> str:
        return state.phase

    def revealed(self, before: DonorState, after: DonorState) -> dict[str, Any] | None:
        """For the stored record (module docstring); the choices are the turn's actions."""
        seat = self.seats
        if before.phase == "strategy":  # who wrote, as whom (the texts are the actions)
            return {
                "generation": position(self, before.round_number)[0],
                "labels": dict(zip(seat, before.labels, strict=True)),
                "writers": [seat[i] for i in before.writers],
            }
        record = after.finished[-1]
        donors = [i for i in range(self.players) if record.donated(i)]  # halves: half of them
        shown: dict[str, Any] = {
            "round_number": record.round_number,
            "labels": dict(zip(seat, before.labels, strict=True)),
            "recipients": {
                seat[d]: seat[r] for d, r in enumerate(record.recipients) if r is not None
            },
            "earnings": {seat[i]: as_number(e) for i, e in enumerate(record.earnings)},
        }
        if record.images_before is not None and record.images_after is not None:
            shown["images_before"] = dict(zip(seat, record.images_before, strict=True))
            shown["images"] = dict(zip(seat, record.images_after, strict=True))
        if record.amounts is not None:  # what each gave (exact) and its resources after
            shown["amounts"] = {seat[i]: as_number(record.amounts[i]) for i in donors}
            if record.punished is not None:
                shown["punished"] = {seat[i]: record.punished[i] for i in donors}
            held = record.resources_before or ()  # after the round (before a game's reset)
            shown["resources"] = {
                seat[i]: as_number(t + e)
                for i, (t, e) in enumerate(zip(held, record.earnings, strict=True))
            }
        if self.staged:  # where the round fell; a generation's end: who survived
            shown["generation"], shown["game"] = record.generation, record.game
        if record.survived is not None:
            shown["survivors"] = [seat[i] for i in record.survived]
        return shown

    def match_over(self, state: DonorState) -> bool:
        return state.phase == "over"

    def scores(self, state: DonorState) -> dict[str, float]:
        return {seat: float(total) for seat, total in zip(self.seats, state.totals, strict=True)}
