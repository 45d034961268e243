"""NIL Recruitment: two university recruiters pitch a name-image-likeness deal to a football
recruit, who commits to one school (AgentDuel's public "nil-recruitment" page; the shared
rules are in `pdbench.games.debate.rules`).

- Phases `intro`, `persuasion_1`, `persuasion_2`, `persuasion_3`, `closing`; actions
  `{"type": "pitch", "text": ...}`; the athlete's (seat "judge") `{"type": "response", "text":
  ...}` and, after the closing, `{"type": "decision", "winner": <a university>}`.
- Each scenario draws from the match's seed an athlete and two different universities from the
  scenario file (`scenario_file`, default pdbench/games/data/nil_recruitment.json): the first
  drawn is player a's (before a swap). The athlete lists the two in the order drawn.
- round_state (exactly the platform's keys, plus `game`): `round_number`, `phase`,
  `your_university`, `opponent_university`, `athlete` {name, position, priorities, concerns},
  `conversation` (this round's `{speaker: "you" | "opponent" | "athlete", text}`, with `phase`),
  `your_score`, `opponent_score`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from pdbench.games.debate.rules import DebateGame, DebateState, Scenario
from pdbench.games.scenarios import RecruitmentScenarios, load_recruitment, stream

_ATHLETE, _SCHOOLS = 5, 6  # purposes of the seeded streams (scenarios.stream)


@dataclass(frozen=True)
class NilRecruitment(DebateGame):
    id: ClassVar[str] = "nil_recruitment"
    platform_name: ClassVar[str] = "nil-recruitment"
    phases: ClassVar[tuple[str, ...]] = (
        "intro",
        "persuasion_1",
        "persuasion_2",
        "persuasion_3",
        "closing",
    )
    judge_label: ClassVar[str] = "athlete"
    action_type: ClassVar[str] = "pitch"

    data: RecruitmentScenarios = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "data", load_recruitment(self.scenario_file))

    def draw(self, seed: int, number: int) -> Scenario:
        athlete = int(stream(seed, _ATHLETE, number).integers(len(self.data.athletes)))
        picked = stream(seed, _SCHOOLS, number).choice(
            len(self.data.universities), 2, replace=False
        )
        schools = (self.data.universities[int(picked[0])], self.data.universities[int(picked[1])])
        return Scenario(
            number=number,
            persona=dict(self.data.athletes[athlete]),
            context={},
            sides=schools,
            choices=schools,
            record={
                "number": number,
                "athlete": athlete,
                "universities": [int(picked[0]), int(picked[1])],
                "source": self.scenario_file or "pdbench/games/data/nil_recruitment.json",
            },
        )

    def player_view(
        self, state: DebateState, seat: str, scenario: Scenario, history: list[dict[str, Any]]
    ) -> dict[str, Any]:
        me = 0 if seat == "a" else 1
        athlete = scenario.persona
        return {
            "game": self.platform_name,
            "round_number": state.round_number,
            "phase": self.phase(state),
            "your_university": scenario.sides[me],
            "opponent_university": scenario.sides[1 - me],
            "athlete": {
                key: athlete[key] for key in ("name", "position", "priorities", "concerns")
            },
            "conversation": history,
            "your_score": state.scores[me],
            "opponent_score": state.scores[1 - me],
        }

    def generic_text(self, side: str) -> str:
        return (
            f"Choose {side}: a strong program, a fair NIL deal, and support on and off the "
            "field for all four years."
        )
