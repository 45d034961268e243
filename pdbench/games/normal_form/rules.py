"""A normal-form game (`base_games`) played for `rounds` rounds under a mechanism (CoopEval's,
research doc sections 1.1-1.5), as a turn game: pure methods over an immutable state, all chance
(tie-breaks, mixed strategies' draws) from the match's seed.

Phases, all players at once in each (nobody sees another's answer of the phase before all are
in; `observation` says what each phase shows):
- `design` (mediation, contracting; before round 1, or every round with decide=every_round):
  `{"type": "design", "mediator": {"1": "A0", ..., "N": "A1"}}` or `{"type": "design",
  "contract": {"A0": 0, "A1": -3}}` (`designs`).
- `vote`: every player sees every design (labelled M1..MN / C1..CN by its proposer, Player 1..N)
  and approves any of them: `{"type": "vote", "approve": {"M1": true, "M2": false}}`, every key
  required. The design with the most approvals wins; a tie is broken by a draw from the match's
  seed (CoopEval: `random.choice`, `mediation.py@8559e85:165-196`), which no player can predict.
- `sign` (contracting): `{"type": "sign", "sign": true | false}`; the contract binds only if all
  sign, and the play phase names who refused.
- `play`: `{"type": "play", "action": "A1"}`, or with strategies=mixed also `{"type": "play",
  "distribution": {"A0": 70, "A1": 30}}` (whole percentages summing to 100, every action a key),
  the action drawn from the match's seed. Under mediation the extra action A{n} delegates: the k
  delegators all play mediator[k]. Payoffs are the base game's for the realised profile, plus a
  binding contract's transfers.
Under `none`, `repetition` and `reputation` a round is the play phase alone; under `reputation`
the seats are a population of `players` x `groups`, re-drawn into groups every round (module
`reputation`), each group playing the base game; with `reputation_shown: image` every player's
image is judged by a norm after each round (`images`). A player's score is the sum of its
payoffs over the rounds, or with `discount` d < 1 (repetition, reputation) CoopEval's discounted
average of them (`scoring`: CoopEval tells a d x 100% chance of another round, always plays
`rounds`, and ranks on that average); the stored rounds keep each round's own payoffs. With
`continuation` p a match stops at random instead, after a seeded length capped by `rounds`.

Fallbacks (an agent gave no legal answer; the engine marks them): the design that changes
nothing (a contract of zeros; a mediator playing A0), approving nothing, not signing, and the
last base action (the defecting one) without delegating.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from pdbench.games.base import player_seats
from pdbench.games.normal_form import designs as d
from pdbench.games.normal_form import scoring
from pdbench.games.normal_form.base_games import number, token
from pdbench.games.normal_form.images import after_round, start_images
from pdbench.games.normal_form.matching import groups_of
from pdbench.games.normal_form.observation import proposal_key, round_state
from pdbench.games.normal_form.options import Options
from pdbench.games.normal_form.state import Decision, FinishedRound, NormalFormState
from pdbench.games.reputation_tree import pseudonyms

_TIE, _DRAW = 1, 2  # purposes of the seeded streams


def stream(seed: int, purpose: int, number_: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64([seed, purpose, number_]))


@dataclass(frozen=True)
class NormalForm(Options):
    """The rules (module docstring); the options are `options.Options`."""

    id: ClassVar[str] = "normal_form"
    platform_name: ClassVar[str] = "normal-form"
    third_roles: ClassVar[tuple[str, ...]] = ()

    seats: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "seats", player_seats(self.population))

    @property
    def seat_positions(self) -> int:
        """Under reputation the positions a population's seats keep as it is re-matched (seat
        p plays position p mod `players`, `matching.groups_of`), so that a population's
        entries are checked to cover each equally (`config.population.check_population`);
        1 otherwise (one match of `players` seats)."""
        return self.game.players if self.mechanism == "reputation" else 1

    @property
    def shares_answers(self) -> bool:
        """Whether an LLM's design is one answer shared by every match of a replicate
        (`design_scope: run`, shared through the replay cache: a run with it off is refused)."""
        return self.design_scope == "run"

    # --- the match -----------------------------------------------------------------------

    def initial_state(self, seed: int) -> NormalFormState:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"a match's seed is a whole number of at least 0, got {seed!r}")
        zero = (Fraction(0),) * self.population
        state = NormalFormState(seed=seed, round_number=1, phase=self._opening(1), totals=zero)
        if self.mechanism != "reputation":
            return state
        names = pseudonyms(seed, self.population)
        images = start_images(self)  # (): no image kept (`reputation_shown` history)
        return replace(state, groups=self._groups(seed, 1), names=names, images=images)

    def _groups(self, seed: int, number_: int) -> tuple[tuple[int, ...], ...]:
        return groups_of(self.matching, seed, number_, self.game.players, self.groups)

    def _opening(self, number_: int) -> str:
        decide = self.designs and (number_ == 1 or self.decide == "every_round")
        return "design" if decide else "play"

    def to_move(self, state: NormalFormState) -> tuple[str, ...]:
        return () if state.phase == "over" else self.seats

    def observe(self, state: NormalFormState, seat: str) -> dict[str, Any]:
        return round_state(self, self.platform_name, state, self.seats.index(seat))

    # --- answers -------------------------------------------------------------------------

    def problem(self, state: NormalFormState, seat: str, action: Mapping[str, Any]) -> str | None:
        if seat not in self.to_move(state):
            return f"{seat} does not act now (phase {state.phase})"
        if not isinstance(action, Mapping):
            return 'an answer is a JSON object with a "type"'
        if action.get("type") != state.phase:  # each phase's answer is typed by its name
            return (
                f'type must be "{state.phase}" in the {state.phase} phase, '
                f"got {action.get('type')!r}"
            )
        if state.phase == "design":
            if self.mechanism == "mediation":
                return d.mediator_problem(self.game, action.get("mediator"))
            return d.contract_problem(self.game, action.get("contract"))
        if state.phase == "vote":
            keys = [proposal_key(self.mechanism, i) for i in range(self.game.players)]
            approve = action.get("approve")
            if not isinstance(approve, Mapping) or sorted(approve) != sorted(keys):
                return f'"approve" gives true or false for every proposal: {", ".join(keys)}'
            if not all(isinstance(v, bool) for v in approve.values()):
                return "every approval is true or false"
            return None
        if state.phase == "sign":
            return None if isinstance(action.get("sign"), bool) else '"sign" is true or false'
        return self._play_problem(action)

    def play_tokens(self) -> tuple[str, ...]:
        """The tokens a play answer may name (A{n}, delegating, under mediation)."""
        extra = (token(self.game.actions),) if self.mechanism == "mediation" else ()
        return (*self.game.tokens, *extra)

    def _play_problem(self, action: Mapping[str, Any]) -> str | None:
        tokens = self.play_tokens()
        if "distribution" in action and self.strategies == "mixed":
            shares = action["distribution"]
            if not isinstance(shares, Mapping) or sorted(shares) != sorted(tokens):
                return f'"distribution" gives a percentage for every action: {", ".join(tokens)}'
            for key, value in shares.items():
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
                    return f"the percentage of {key} must be a whole number from 0 to 100"
            total = sum(shares.values())
            return None if total == 100 else f"the percentages must sum to 100, not {total}"
        if action.get("action") not in tokens:
            return f'"action" must be one of {", ".join(tokens)}, got {action.get("action")!r}'
        return None

    def fallback(self, state: NormalFormState, seat: str, reason: str) -> dict[str, Any]:
        if state.phase == "design":
            if self.mechanism == "mediation":
                return {
                    "type": "design",
                    "mediator": d.mediator_json(d.cooperative_mediator(self.game)),
                }
            return {"type": "design", "contract": d.contract_json(d.null_contract(self.game))}
        if state.phase == "vote":
            keys = [proposal_key(self.mechanism, i) for i in range(self.game.players)]
            return {"type": "vote", "approve": dict.fromkeys(keys, False)}
        if state.phase == "sign":
            return {"type": "sign", "sign": False}
        return {"type": "play", "action": token(self.game.actions - 1)}

    # --- applying a turn -----------------------------------------------------------------

    def apply(
        self, state: NormalFormState, actions: Mapping[str, Mapping[str, Any]]
    ) -> NormalFormState:
        if set(actions) != set(self.to_move(state)):
            raise ValueError(f"every player acts now ({state.phase}), got {sorted(actions)}")
        for seat, action in actions.items():
            reason = self.problem(state, seat, action)
            if reason is not None:
                raise ValueError(f"{seat}: {reason}")
        answers = [actions[seat] for seat in self.seats]
        if state.phase == "design":
            return replace(state, phase="vote", decision=Decision(designs=self._designs(answers)))
        if state.phase == "vote":
            return self._after_vote(state, answers)
        if state.phase == "sign":
            assert state.decision is not None
            signed = tuple(bool(a["sign"]) for a in answers)
            return replace(state, phase="play", decision=replace(state.decision, signed=signed))
        return self._after_play(state, answers)

    def _designs(self, answers: list[Mapping[str, Any]]) -> tuple[tuple[int, ...], ...]:
        if self.mechanism == "mediation":
            return tuple(d.mediator_of(self.game, a["mediator"]) for a in answers)
        return tuple(d.contract_of(self.game, a["contract"]) for a in answers)

    def _after_vote(
        self, state: NormalFormState, answers: list[Mapping[str, Any]]
    ) -> NormalFormState:
        assert state.decision is not None
        n = self.game.players
        keys = [proposal_key(self.mechanism, i) for i in range(n)]
        approvals = tuple(tuple(bool(a["approve"][k]) for k in keys) for a in answers)
        counts = [sum(ballot[i] for ballot in approvals) for i in range(n)]
        tied = tuple(i for i in range(n) if counts[i] == max(counts))
        pick = int(stream(state.seed, _TIE, state.round_number).integers(len(tied)))
        decision = replace(state.decision, approvals=approvals, winner=tied[pick], tied=tied)
        phase = "sign" if self.mechanism == "contracting" else "play"
        return replace(state, phase=phase, decision=decision)

    def _after_play(
        self, state: NormalFormState, answers: list[Mapping[str, Any]]
    ) -> NormalFormState:
        tokens = self.play_tokens()
        rng = stream(state.seed, _DRAW, state.round_number)
        distributions: list[tuple[int, ...] | None] = []
        drawn: list[int] = []
        for answer in answers:  # one draw per player, in seat order, mixed answers only
            if "distribution" in answer and self.strategies == "mixed":
                shares = tuple(int(answer["distribution"][t]) for t in tokens)
                distributions.append(shares)
                drawn.append(int(np.searchsorted(np.cumsum(shares), rng.integers(100), "right")))
            else:
                distributions.append(None)
                drawn.append(tokens.index(answer["action"]))
        if state.groups is not None:  # reputation: each group plays the base game
            return self._finish(state, self._grouped(state, distributions, tuple(drawn)))
        decision = state.decision
        profile = tuple(drawn)
        delegated = (False,) * len(profile)
        if self.mechanism == "mediation" and decision is not None and decision.winner is not None:
            profile, delegated = d.mediated(self.game, profile, decision.designs[decision.winner])
        moved = (Fraction(0),) * len(profile)
        if decision is not None and decision.active and decision.winner is not None:
            moved = d.transfers(decision.designs[decision.winner], profile)
        played = FinishedRound(
            round_number=state.round_number,
            distributions=tuple(distributions),
            drawn=tuple(drawn),
            realised=profile,
            delegated=delegated,
            base_payoffs=self.game.payoffs(profile),
            transfers=moved,
            decision=decision,
        )
        return self._finish(state, played)

    def _grouped(
        self,
        state: NormalFormState,
        distributions: list[tuple[int, ...] | None],
        drawn: tuple[int, ...],
    ) -> FinishedRound:
        """A reputation round: every group's base game payoffs, by population index."""
        assert state.groups is not None
        base = [Fraction(0)] * self.population
        for members in state.groups:
            for player, points in zip(
                members, self.game.payoffs(tuple(drawn[i] for i in members)), strict=True
            ):
                base[player] = points
        return FinishedRound(
            round_number=state.round_number,
            distributions=tuple(distributions),
            drawn=drawn,
            realised=drawn,
            delegated=(False,) * self.population,
            base_payoffs=tuple(base),
            transfers=(Fraction(0),) * self.population,
            decision=None,
            groups=state.groups,
        )

    def _finish(self, state: NormalFormState, played: FinishedRound) -> NormalFormState:
        """`state` after the round `played`: the next round opened, or the match over."""
        totals = tuple(t + p for t, p in zip(state.totals, played.payoffs, strict=True))
        images = after_round(self, state.images, played)  # `images`
        number_ = state.round_number + 1
        done = replace(state, totals=totals, finished=(*state.finished, played), images=images)
        if state.round_number >= self.match_length(state.seed):  # `continuation`
            return replace(done, round_number=number_, phase="over")
        phase = self._opening(number_)
        return replace(
            done,
            round_number=number_,
            phase=phase,
            decision=None if phase == "design" else state.decision,
            groups=None if state.groups is None else self._groups(state.seed, number_),
        )

    # --- what is known -------------------------------------------------------------------

    def round_number(self, state: NormalFormState) -> int:
        return state.round_number

    def phase(self, state: NormalFormState) -> str:
        return state.phase

    def revealed(self, before: NormalFormState, after: NormalFormState) -> dict[str, Any] | None:
        """For the stored record: after a design phase with `design_scope` run each seat's
        design id (`designs.design_id`); after a vote the approvals each design got and the winner
        (players are shown the winner and its proposer); after signing who signed; after play
        the drawn and realised actions, who delegated, the base payoffs, transfers and payoffs."""
        seat = self.seats
        if before.phase == "design":
            if self.design_scope != "run":
                return None
            decision = after.decision
            assert decision is not None
            return {  # each seat's design by its id: the same in every match that reuses it
                "round_number": before.round_number,
                "design_scope": "run",
                "design_ids": {
                    s: d.design_id(self.mechanism, design)
                    for s, design in zip(seat, decision.designs, strict=True)
                },
            }
        if before.phase == "vote":
            decision = after.decision
            assert decision is not None and decision.approvals is not None
            counts = [sum(b[i] for b in decision.approvals) for i in range(len(seat))]
            assert decision.winner is not None
            return {
                "round_number": before.round_number,
                "approvals": dict(zip(seat, counts, strict=True)),
                "tied": [seat[i] for i in decision.tied],
                "winner": seat[decision.winner],
            }
        if before.phase == "sign":
            decision = after.decision
            assert decision is not None and decision.signed is not None
            return {
                "round_number": before.round_number,
                "signed": dict(zip(seat, decision.signed, strict=True)),
                "active": decision.active,
            }
        played = after.finished[-1]
        return {
            "round_number": played.round_number,
            "drawn": {s: self.play_tokens()[a] for s, a in zip(seat, played.drawn, strict=True)},
            "actions": {s: token(a) for s, a in zip(seat, played.realised, strict=True)},
            "delegated": dict(zip(seat, played.delegated, strict=True)),
            "base_payoffs": {s: number(p) for s, p in zip(seat, played.base_payoffs, strict=True)},
            "transfers": {s: number(t) for s, t in zip(seat, played.transfers, strict=True)},
            "payoffs": {s: number(p) for s, p in zip(seat, played.payoffs, strict=True)},
            **(
                {"groups": [[seat[i] for i in members] for members in played.groups]}
                if played.groups is not None
                else {}
            ),
        }

    def match_over(self, state: NormalFormState) -> bool:
        return state.phase == "over"

    def scores(self, state: NormalFormState) -> dict[str, float]:
        """The ranked totals: each seat's payoffs summed, or under `discount` < 1 CoopEval's
        discounted average of them (`scoring`); `state.totals` keeps the running sums."""
        if self.discount == 1:
            return {s: float(t) for s, t in zip(self.seats, state.totals, strict=True)}
        return {
            seat: float(scoring.score([r.payoffs[i] for r in state.finished], self.discount))
            for i, seat in enumerate(self.seats)
        }

    def redraw_hidden(self, state: NormalFormState, seat: str, rng: Any) -> NormalFormState:
        """The same state with what `seat` may not see drawn again (`pdbench check-game`): the
        match's seed (tie-breaks, draws, a `continuation`'s length) and the other players'
        ballots (a player is shown the winning design, never who approved what)."""
        me = self.seats.index(seat)
        state = replace(state, seed=int(rng.integers(2**31)))
        decision = state.decision
        if decision is not None and decision.approvals is not None:
            ballots = tuple(
                ballot if i == me else tuple(bool(x) for x in rng.integers(2, size=len(ballot)))
                for i, ballot in enumerate(decision.approvals)
            )
            state = replace(state, decision=replace(decision, approvals=ballots))
        return state


def rules_of(options: Mapping[str, Any]) -> NormalForm:
    """The rules of a variant as a config or a stored run holds its options (YAML and JSON
    have lists where the rules take tuples: `labels`)."""
    given: dict[str, Any] = dict(options)
    if isinstance(given.get("labels"), list):
        given["labels"] = tuple(given["labels"])
    return NormalForm(**given)
