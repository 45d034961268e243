"""What the two judged debate games share (nuclear_war, nil_recruitment): five phases, two
speakers, a judge who responds after each phase and decides after the last.

- A match plays `rounds` scenarios (default 1), each drawn from the match's seed. With
  `swap_sides` each scenario is played twice in a row, the second time with the players' sides
  (position, or university) swapped and everything else (scenario, judge, speaking order) the
  same, so a verdict that follows the player rather than the side can be counted
  (`pdbench.analysis.judging.swap`).
- In each phase both players speak in turn, the first speaker first: player a in odd scenarios,
  b in even ones (a pair of swapped rounds keeps one order). The second speaker sees the first's
  argument, as in a debate. A text over `max_chars` (500) is cut there and marked with `CUT_MARK`;
  an empty or non-text one is refused.
- After each phase the judge (seat "judge") is asked for a response `{"type": "response",
  "text": ...}`; after the last phase it is asked instead for its decision `{"type": "decision",
  "winner": <side>}`, a side from the `choices` it is shown ("for" / "against", or a university).
  The judge never sees seats "a" / "b": it sees sides, so its verdict is about the side and a
  swap can tell side from player. The winning side's player earns 100 points, the other 0.
- Fallbacks: a player's is the generic text for its side (the platform's timeout argument); the
  judge's is a neutral "please continue" response and, for the decision, the fair `priorities`
  rule of `pdbench.games.debate.judge_rules` (a condition may abort the match instead).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from pdbench.games.debate.judge_rules import decide_by_priorities

PLAYER_SEATS = ("a", "b")
JUDGE = "judge"
CUT_MARK = " [cut]"
MAX_JUDGE_CHARS = 2_000


@dataclass(frozen=True)
class Spoken:
    phase: str
    speaker: str  # "a", "b" or "judge"
    text: str
    cut: bool = False


@dataclass(frozen=True)
class Scenario:
    """One round's draw: the judge's persona, what both players are told, the sides."""

    number: int  # the scenario's index in the match (from 1)
    persona: dict[str, Any]  # the judge's whole character (players see part of it)
    context: dict[str, Any]  # the rest of the scenario (a crisis; empty for recruitment)
    sides: tuple[str, str]  # the side of player a and of player b this round
    choices: tuple[str, str]  # the sides in the judge's fixed listing order
    record: dict[str, Any]  # what `revealed` stores to say which scenario this was


@dataclass(frozen=True)
class Verdict:
    round_number: int
    winner_side: str
    winner_seat: str
    sides: tuple[str, str]
    first_speaker: str
    record: dict[str, Any]


@dataclass(frozen=True)
class DebateState:
    seed: int
    round_number: int = 1
    phase_index: int = 0
    step: int = 0  # 0: the first speaker, 1: the second, 2: the judge
    transcript: tuple[Spoken, ...] = ()
    scores: tuple[float, float] = (0.0, 0.0)
    verdicts: tuple[Verdict, ...] = ()
    over: bool = False


@dataclass(frozen=True)
class DebateGame:
    """The shared rules; a game names its phases, action type and scenario draw."""

    id: ClassVar[str]
    platform_name: ClassVar[str]
    phases: ClassVar[tuple[str, ...]]
    judge_label: ClassVar[str]  # how players' histories name the judge ("president")
    action_type: ClassVar[str]  # "argument" | "pitch"
    third_roles: ClassVar[tuple[str, ...]] = (JUDGE,)

    rounds: int = 1
    swap_sides: bool = False
    max_chars: int = 500
    scenario_file: str | None = None

    def __post_init__(self) -> None:
        for name in ("rounds", "max_chars"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")

    # -- what a game provides -------------------------------------------------------------------

    def draw(self, seed: int, number: int) -> Scenario:
        raise NotImplementedError

    def player_view(
        self, state: DebateState, seat: str, scenario: Scenario, history: list[dict[str, Any]]
    ) -> dict[str, Any]:
        raise NotImplementedError

    def generic_text(self, side: str) -> str:
        raise NotImplementedError

    # -- the round in play ------------------------------------------------------------------------

    def total_rounds(self) -> int:
        return self.rounds * (2 if self.swap_sides else 1)

    def scenario(self, state: DebateState) -> Scenario:
        round_number = min(state.round_number, self.total_rounds())
        if not self.swap_sides:
            return self.draw(state.seed, round_number)
        drawn = self.draw(state.seed, (round_number + 1) // 2)
        if round_number % 2 == 1:
            return drawn
        return replace(drawn, sides=(drawn.sides[1], drawn.sides[0]))

    def first_speaker(self, state: DebateState) -> str:
        return "a" if self.scenario(state).number % 2 == 1 else "b"

    def _speakers(self, state: DebateState) -> tuple[str, str]:
        first = self.first_speaker(state)
        return (first, "b" if first == "a" else "a")

    def to_move(self, state: DebateState) -> tuple[str, ...]:
        if state.over:
            return ()
        return (JUDGE,) if state.step == 2 else (self._speakers(state)[state.step],)

    def _deciding(self, state: DebateState) -> bool:
        return state.step == 2 and state.phase_index == len(self.phases) - 1

    # -- observations -----------------------------------------------------------------------------

    def _history(self, state: DebateState, seat: str, judge_name: str) -> list[dict[str, Any]]:
        def who(speaker: str) -> str:
            if speaker == JUDGE:
                return judge_name
            return "you" if speaker == seat else "opponent"

        return [
            {"phase": s.phase, "speaker": who(s.speaker), "text": s.text} for s in state.transcript
        ]

    def observe(self, state: DebateState, seat: str) -> dict[str, Any]:
        scenario = self.scenario(state)
        if seat != JUDGE:
            return self.player_view(
                state, seat, scenario, self._history(state, seat, self.judge_label)
            )
        side = dict(zip(PLAYER_SEATS, scenario.sides, strict=True))
        name = scenario.persona["name"]
        return {
            "game": self.platform_name,
            "role": JUDGE,
            "request": "decision" if self._deciding(state) else "response",
            "round_number": state.round_number,
            "phase": self.phases[state.phase_index],
            "persona": scenario.persona,
            "scenario": scenario.context,
            "choices": list(scenario.choices),
            "transcript": [
                {
                    "phase": s.phase,
                    "speaker": name if s.speaker == JUDGE else side[s.speaker],
                    "text": s.text,
                }
                for s in state.transcript
            ],
        }

    # -- legality, fallbacks, moves ---------------------------------------------------------------

    def problem(self, state: DebateState, seat: str, action: Mapping[str, Any]) -> str | None:
        if seat not in self.to_move(state):
            return f"{seat} does not act now"
        if seat == JUDGE and self._deciding(state):
            choices = self.scenario(state).choices
            if action.get("type") != "decision":
                return f'type must be "decision" now, got {action.get("type")!r}'
            if action.get("winner") not in choices:
                return f"winner must be one of {list(choices)}, got {action.get('winner')!r}"
            return None
        kind = "response" if seat == JUDGE else self.action_type
        if action.get("type") != kind:
            return f'type must be "{kind}" now, got {action.get("type")!r}'
        text = action.get("text")
        if not isinstance(text, str) or not text.strip():
            return f"a {kind}'s text is a non-empty text"
        if seat == JUDGE and len(text) > MAX_JUDGE_CHARS:
            return f"a response is at most {MAX_JUDGE_CHARS} characters"
        return None

    def fallback(self, state: DebateState, seat: str, reason: str) -> dict[str, Any]:
        if seat != JUDGE:
            side = self.scenario(state).sides[PLAYER_SEATS.index(seat)]
            return {"type": self.action_type, "text": self.generic_text(side)}
        scenario = self.scenario(state)
        if not self._deciding(state):
            return {"type": "response", "text": f"{scenario.persona['name']}: Please continue."}
        seen = self.observe(state, JUDGE)
        arguments = [(s["speaker"], s["text"]) for s in seen["transcript"]]
        winner = decide_by_priorities(arguments, seen["choices"], scenario.persona["priorities"])
        return {"type": "decision", "winner": winner}

    def apply(self, state: DebateState, actions: Mapping[str, Mapping[str, Any]]) -> DebateState:
        (seat, action), *others = actions.items()
        if others or (seat,) != self.to_move(state):
            raise ValueError(f"only {self.to_move(state)} acts now, got {list(actions)}")
        reason = self.problem(state, seat, action)
        if reason is not None:
            raise ValueError(f"{seat}: {reason}")
        phase = self.phases[state.phase_index]
        if seat != JUDGE:
            text = str(action["text"])
            cut = len(text) > self.max_chars
            spoken = Spoken(phase, seat, text[: self.max_chars] + CUT_MARK if cut else text, cut)
            return replace(state, step=state.step + 1, transcript=(*state.transcript, spoken))
        if not self._deciding(state):
            spoken = Spoken(phase, JUDGE, str(action["text"]))
            return replace(
                state,
                phase_index=state.phase_index + 1,
                step=0,
                transcript=(*state.transcript, spoken),
            )
        return self._decide(state, str(action["winner"]))

    def _decide(self, state: DebateState, winner: str) -> DebateState:
        scenario = self.scenario(state)
        seat = PLAYER_SEATS[scenario.sides.index(winner)]
        verdict = Verdict(
            state.round_number,
            winner,
            seat,
            scenario.sides,
            self.first_speaker(state),
            scenario.record,
        )
        scores = (state.scores[0] + 100.0 * (seat == "a"), state.scores[1] + 100.0 * (seat == "b"))
        return DebateState(
            seed=state.seed,
            round_number=state.round_number + 1,
            scores=scores,
            verdicts=(*state.verdicts, verdict),
            over=state.round_number >= self.total_rounds(),
        )

    # -- the rest of the contract -----------------------------------------------------------------

    def initial_state(self, seed: int) -> DebateState:
        return DebateState(seed)

    def round_number(self, state: DebateState) -> int:
        return state.round_number

    def phase(self, state: DebateState) -> str:
        return "over" if state.over else self.phases[state.phase_index]

    def revealed(self, before: DebateState, after: DebateState) -> dict[str, Any] | None:
        """The judge's decision with the round's scenario, sides, speaking order and the
        characters each player argued (the arguments and responses are public as they are
        spoken)."""
        if len(after.verdicts) == len(before.verdicts):
            return None
        verdict = after.verdicts[-1]
        return {
            "decision": {"winner_side": verdict.winner_side, "winner_seat": verdict.winner_seat},
            "sides": dict(zip(PLAYER_SEATS, verdict.sides, strict=True)),
            "first_speaker": verdict.first_speaker,
            "scenario": verdict.record,
            "lengths": {  # characters each player argued this round, for length-bias analysis
                seat: sum(len(s.text) for s in before.transcript if s.speaker == seat)
                for seat in PLAYER_SEATS
            },
        }

    def match_over(self, state: DebateState) -> bool:
        return state.over

    def scores(self, state: DebateState) -> dict[str, float]:
        return {"a": state.scores[0], "b": state.scores[1]}
