"""The n-player public goods game (issue 44) as a turn game: pure methods over an immutable state,
all chance (groups, labels, talk and punishment order) drawn from the match's seed.

Each round, in every group of N players:
1. `talk` (when on): each member says one public message to its group, one after another in the
   round's speaking order (`matching.talk_order`): N turns, one speaker per group each turn.
   `{"type": "message", "text": ...}`; "" is a legal message (saying nothing).
2. `contribute`: all players at once, `{"type": "contribute", "amount": c}` with c a whole
   number from 0 to `endowment` (balance accounting: the player's balance). Nobody sees another's
   amount before all are in.
3. `punish` (when on this round): all players at once, `{"type": "punish", "points": {label:
   n}}` (`{}`: nobody), points to other members of its group, at most `max_punish` in all.
Earnings of player i (per-round accounting): E - c_i + m * sum(c) / N - punish_cost * points
given - punish_fine * points received; the caps and the no-negative rule are in `payoff`.

Fallbacks (an agent gave no legal answer; the engine marks them): message "", contribution 0,
no punishment. `observe` is `observation.round_state`; `revealed` records for the experimenter what
each phase made known (module `stored` reads it back): after `contribute` the groups, labels and
contributions (and the public accounts under balance accounting), after `punish` the points that
took effect, and when a round closes every player's earnings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, ClassVar

from pdbench.games.base import FixedLength, player_seats
from pdbench.games.public_goods.matching import draw_round, punish_order, talk_order
from pdbench.games.public_goods.observation import as_number, available, round_state
from pdbench.games.public_goods.options import Options
from pdbench.games.public_goods.payoff import PunishRules, exact, fund, resolve_punishment, shown
from pdbench.games.public_goods.state import PublicGoodsState, RoundRecord

ACTION_OF_PHASE = {"talk": "message", "contribute": "contribute", "punish": "punish"}


@dataclass(frozen=True)
class PublicGoods(Options):
    """The public goods game (rules in the module docstring, options in `options`)."""

    id: ClassVar[str] = "public_goods"
    platform_name: ClassVar[str] = "public-goods"
    third_roles: ClassVar[tuple[str, ...]] = ()

    # the player seats, "a", "b", ... (players x groups of them), in population order
    seats: tuple[str, ...] = field(init=False, repr=False, compare=False)
    punish_rules: PunishRules = field(init=False, repr=False, compare=False)
    rate: Fraction = field(init=False, repr=False, compare=False)  # the multiplier, exact

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "seats", player_seats(self.population))
        caps = (self.punish_cap_fraction, self.punish_cap_absolute)
        rules = PunishRules(
            cost=exact(self.punish_cost),
            fine=exact(self.punish_fine),
            no_negative=not self.negative_earnings,
            cap_fraction=None if caps[0] is None else exact(caps[0]),
            cap_absolute=None if caps[1] is None else exact(caps[1]),
        )
        object.__setattr__(self, "punish_rules", rules)
        object.__setattr__(self, "rate", exact(self.multiplier))

    # --- the match -----------------------------------------------------------------------

    def fixed_length(self) -> FixedLength:
        """`rounds` rounds; each a talk turn per speaker of a group (the groups speak at once),
        one contribution turn and, in a punishment round, one punishment turn."""
        punish_rounds = sum(self.punish_in(number) for number in range(1, self.rounds + 1))
        talk = self.players if self.talk else 0
        return FixedLength(
            rounds=self.rounds,
            turns=self.rounds * (talk + 1) + punish_rounds,
            turns_per_seat=self.rounds * (int(self.talk) + 1) + punish_rounds,
        )

    def initial_state(self, seed: int) -> PublicGoodsState:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"a match's seed is a whole number of at least 0, got {seed!r}")
        start = Fraction(self.endowment if self.accounting == "balance" else 0)
        zero = (Fraction(0),) * self.groups
        return self._round(seed, 1, (start,) * self.population, zero, ())

    def _round(
        self,
        seed: int,
        number: int,
        totals: tuple[Fraction, ...],
        carry: tuple[Fraction, ...],
        finished: tuple[RoundRecord, ...],
    ) -> PublicGoodsState:
        if self.matching == "partners" and finished:  # drawn once: the same every round
            draw = finished[-1].draw
        else:
            draw = draw_round(seed, number, self.players, self.groups, self.matching, self.block)
        return PublicGoodsState(
            seed=seed,
            round_number=number,
            phase="talk" if self.talk else "contribute",
            draw=draw,
            speaking=talk_order(seed, number, draw, self.talk_order) if self.talk else (),
            turn_in_talk=0,
            messages=((),) * self.groups,
            totals=totals,
            carry=carry,
            finished=finished,
        )

    def to_move(self, state: PublicGoodsState) -> tuple[str, ...]:
        if state.phase == "over":
            return ()
        if state.phase == "talk":
            return tuple(self.seats[order[state.turn_in_talk]] for order in state.speaking)
        return self.seats

    def observe(self, state: PublicGoodsState, seat: str) -> dict[str, Any]:
        player = self.seats.index(seat)
        return round_state(self, self.platform_name, state, player, self.max_points(state, player))

    def max_points(self, state: PublicGoodsState, player: int) -> int:
        """The most punishment points `player` may give now: `max_punish`, or fewer when its
        contribution-stage earnings limit its spending."""
        if state.purses is None:
            return self.max_punish
        limit = self.punish_rules.spending_limit(state.purses[player])
        if limit is None or self.punish_rules.cost == 0:
            return self.max_punish
        return min(self.max_punish, math.floor(limit / self.punish_rules.cost))

    # --- answers -------------------------------------------------------------------------

    def problem(self, state: PublicGoodsState, seat: str, action: Mapping[str, Any]) -> str | None:
        if seat not in self.to_move(state):
            return f"{seat} does not act now (phase {state.phase})"
        if not isinstance(action, Mapping):
            return 'an answer is a JSON object with a "type"'
        expected = ACTION_OF_PHASE[state.phase]
        if action.get("type") != expected:
            return (
                f'type must be "{expected}" in the {state.phase} phase, got {action.get("type")!r}'
            )
        player = self.seats.index(seat)
        if state.phase == "talk":
            return self._message_problem(action.get("text"))
        if state.phase == "contribute":
            return self._amount_problem(state, player, action.get("amount"))
        return self._points_problem(state, player, action.get("points"))

    def _message_problem(self, text: object) -> str | None:
        if not isinstance(text, str):
            return 'a message\'s "text" is a string ("" to say nothing)'
        if self.talk_max_chars is not None and len(text) > self.talk_max_chars:
            return (
                f"a message is at most {self.talk_max_chars} characters, this one has {len(text)}"
            )
        words = len(text.split())
        if self.talk_max_words is not None and words > self.talk_max_words:
            return f"a message is at most {self.talk_max_words} words, this one has {words}"
        return None

    def _amount_problem(self, state: PublicGoodsState, player: int, amount: object) -> str | None:
        most = math.floor(available(self, state, player))
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= most:
            return f'"amount" must be a whole number from 0 to {most}, got {amount!r}'
        return None

    def _points_problem(self, state: PublicGoodsState, player: int, points: object) -> str | None:
        draw = state.draw
        others = [draw.labels[i] for i in draw.groups[draw.group_of(player)] if i != player]
        if not isinstance(points, Mapping):
            return '"points" is an object {label: points} ({} to punish nobody)'
        for target, given in points.items():
            if target not in others:
                return f"{target!r} is not another player of your group: choose among {', '.join(others)}"
            if isinstance(given, bool) or not isinstance(given, int) or given < 0:
                return f"points for {target} must be a whole number of at least 0, got {given!r}"
        total = sum(points.values())
        if self.punish_one_target and sum(1 for n in points.values() if n > 0) > 1:
            return "you may punish at most one player a round"
        most = self.max_points(state, player)
        if total > most:
            if most < self.max_punish:
                held = (
                    "your balance"
                    if self.accounting == "balance"
                    else "what you earned in the contribution stage"
                )
                return (
                    f"you may give at most {most} points now (each costs {self.punish_cost} and "
                    f"you may not spend more than {held}), not {total}"
                )
            return f"you may give at most {self.max_punish} points a round in all, not {total}"
        return None

    def fallback(self, state: PublicGoodsState, seat: str, reason: str) -> dict[str, Any]:
        if state.phase == "talk":
            return {"type": "message", "text": ""}
        if state.phase == "contribute":
            return {"type": "contribute", "amount": 0}
        return {"type": "punish", "points": {}}

    # --- applying a turn -----------------------------------------------------------------

    def apply(
        self, state: PublicGoodsState, actions: Mapping[str, Mapping[str, Any]]
    ) -> PublicGoodsState:
        seats = self.to_move(state)
        if set(actions) != set(seats):
            raise ValueError(f"{len(seats)} seats act now ({state.phase}), got {sorted(actions)}")
        for seat, action in actions.items():
            reason = self.problem(state, seat, action)
            if reason is not None:
                raise ValueError(f"{seat}: {reason}")
        if state.phase == "talk":
            return self._after_talk(state, actions)
        if state.phase == "contribute":
            return self._after_contributions(state, actions)
        return self._after_punishment(state, actions)

    def _after_talk(
        self, state: PublicGoodsState, actions: Mapping[str, Mapping[str, Any]]
    ) -> PublicGoodsState:
        speakers = [order[state.turn_in_talk] for order in state.speaking]
        messages = tuple(
            (*said, (speaker, str(actions[self.seats[speaker]]["text"])))
            for said, speaker in zip(state.messages, speakers, strict=True)
        )
        turn = state.turn_in_talk + 1
        phase = "contribute" if turn == self.players else "talk"
        return replace(state, messages=messages, turn_in_talk=turn, phase=phase)

    def _after_contributions(
        self, state: PublicGoodsState, actions: Mapping[str, Mapping[str, Any]]
    ) -> PublicGoodsState:
        amounts = tuple(int(actions[seat]["amount"]) for seat in self.seats)
        whole = self.accounting == "balance"
        funds = tuple(
            fund([amounts[i] for i in members], self.rate, state.carry[g], whole)
            for g, members in enumerate(state.draw.groups)
        )
        purses = [Fraction(0)] * self.population
        for g, members in enumerate(state.draw.groups):
            for i in members:
                purses[i] = available(self, state, i) - amounts[i] + funds[g].share
        paid = replace(state, contributions=amounts, funds=funds, purses=tuple(purses))
        if self.punish_in(state.round_number):
            return replace(paid, phase="punish")
        nobody: tuple[dict[int, int], ...] = ({},) * self.population
        return self._close(paid, nobody, nobody, tuple(purses), None)

    def _after_punishment(
        self, state: PublicGoodsState, actions: Mapping[str, Mapping[str, Any]]
    ) -> PublicGoodsState:
        assert state.purses is not None
        draw = state.draw
        requested: list[dict[int, int]] = [{} for _ in self.seats]
        for members in draw.groups:
            by_label = {draw.labels[i]: i for i in members}
            for i in members:
                given = actions[self.seats[i]]["points"]
                requested[i] = {by_label[t]: int(n) for t, n in given.items() if n > 0}
        sequential = self.punish_rules.sequential  # only caps make the order matter
        order = punish_order(state.seed, state.round_number, draw) if sequential else draw.groups
        applied: list[dict[int, int]] = [{} for _ in self.seats]
        after = list(state.purses)
        for g, members in enumerate(draw.groups):
            result = resolve_punishment(
                {i: state.purses[i] for i in members},
                {i: requested[i] for i in members},
                self.punish_rules,
                order[g],
            )
            for i in members:
                applied[i] = result.applied.get(i, {})
                after[i] = result.purses[i]
        shown_order = order if sequential else None
        return self._close(state, tuple(requested), tuple(applied), tuple(after), shown_order)

    def _close(
        self,
        state: PublicGoodsState,
        requested: tuple[dict[int, int], ...],
        applied: tuple[dict[int, int], ...],
        after: tuple[Fraction, ...],
        order: tuple[tuple[int, ...], ...] | None,
    ) -> PublicGoodsState:
        """The round's record, then the next round (or the end)."""
        assert state.contributions is not None and state.funds is not None
        balance = self.accounting == "balance"
        before = state.totals
        earnings = tuple(a - b for a, b in zip(after, before, strict=True)) if balance else after
        totals = after if balance else tuple(t + e for t, e in zip(before, earnings, strict=True))
        record = RoundRecord(
            round_number=state.round_number,
            draw=state.draw,
            messages=state.messages,
            available=tuple(available(self, state, i) for i in range(self.population)),
            contributions=state.contributions,
            funds=state.funds,
            requested=requested,
            applied=applied,
            earnings=earnings,
            shown_earnings=tuple(shown(e) for e in earnings),
            punish_order=order,
        )
        finished = (*state.finished, record)
        carry = tuple(f.leftover for f in state.funds)
        if state.round_number == self.rounds:
            return replace(
                state,
                round_number=state.round_number + 1,
                phase="over",
                totals=totals,
                carry=carry,
                contributions=None,
                funds=None,
                purses=None,
                finished=finished,
            )
        return self._round(state.seed, state.round_number + 1, totals, carry, finished)

    # --- what is known -------------------------------------------------------------------

    def round_number(self, state: PublicGoodsState) -> int:
        return state.round_number

    def phase(self, state: PublicGoodsState) -> str:
        return state.phase

    def revealed(self, before: PublicGoodsState, after: PublicGoodsState) -> dict[str, Any] | None:
        """For the stored record (module docstring). Talk reveals nothing beyond the messages,
        which are the turn's actions."""
        if before.phase == "talk":
            return None
        closed = after.finished[-1] if len(after.finished) > len(before.finished) else None
        seat = self.seats
        shown_: dict[str, Any] = {"round_number": before.round_number}
        if before.phase == "contribute":
            source: RoundRecord | PublicGoodsState = closed if closed is not None else after
            contributions, funds = source.contributions, source.funds
            draw = before.draw
            shown_["groups"] = [[seat[i] for i in members] for members in draw.groups]
            shown_["labels"] = {seat[i]: draw.labels[i] for i in range(self.population)}
            shown_["contributions"] = {seat[i]: c for i, c in enumerate(contributions or ())}
            if self.accounting == "balance" and funds is not None:
                shown_["funds"] = [
                    {
                        key: as_number(getattr(f, key))
                        for key in ("carry_in", "pot", "share", "leftover")
                    }
                    for f in funds
                ]
        if closed is not None:
            if before.phase == "punish":
                shown_["punished"] = _by_seat(seat, closed.applied)
                if closed.requested != closed.applied:
                    shown_["requested"] = _by_seat(seat, closed.requested)
                if closed.punish_order is not None:
                    shown_["punish_order"] = [[seat[i] for i in g] for g in closed.punish_order]
            shown_["earnings"] = dict(zip(seat, closed.shown_earnings, strict=True))
        return shown_

    def match_over(self, state: PublicGoodsState) -> bool:
        return state.phase == "over"

    def scores(self, state: PublicGoodsState) -> dict[str, float]:
        return {seat: shown(total) for seat, total in zip(self.seats, state.totals, strict=True)}


def _by_seat(
    seat: tuple[str, ...], points: tuple[dict[int, int], ...]
) -> dict[str, dict[str, int]]:
    return {
        seat[i]: {seat[t]: n for t, n in given.items()} for i, given in enumerate(points) if given
    }
