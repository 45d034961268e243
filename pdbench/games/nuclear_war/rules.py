"""Nuclear War: two advisers argue for and against a nuclear strike before a President, who
decides (AgentDuel's public "nuclear-war" page; the shared rules are in
`pdbench.games.debate.rules`).

- Phases `intro`, `debate_1`, `debate_2`, `debate_3`, `closing`; actions `{"type": "argument",
  "text": ...}`; the President's (seat "judge") `{"type": "response", "text": ...}` and, after
  the closing, `{"type": "decision", "winner": "for" | "against"}`.
- Each scenario draws from the match's seed a President and a crisis from the scenario file
  (`scenario_file`, default pdbench/games/data/nuclear_war.json) and which player is FOR.
- round_state (exactly the platform's keys, plus `game`): `round_number`, `phase`,
  `your_position` ("for" | "against"), `scenario` {country, adversary, crisis_description},
  `president` {name, background, priorities, key_question} (the President's concerns and decision
  style are the judge's alone), `debate_history` (this round's `{phase, speaker: "you" |
  "opponent" | "president", text}`), `your_score`, `opponent_score`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from pdbench.games.debate.rules import DebateGame, DebateState, Scenario
from pdbench.games.scenarios import NuclearScenarios, load_nuclear, stream

_PRESIDENT, _CRISIS, _SIDES = 2, 3, 4  # purposes of the seeded streams (scenarios.stream)
GENERIC = {
    "for": "I advise authorising the strike: it removes the threat before it can be used "
    "against us, and hesitation invites a worse attack.",
    "against": "I advise against the strike: it risks escalation beyond control and civilian "
    "deaths that cannot be undone, while other options remain.",
}


@dataclass(frozen=True)
class NuclearWar(DebateGame):
    id: ClassVar[str] = "nuclear_war"
    platform_name: ClassVar[str] = "nuclear-war"
    phases: ClassVar[tuple[str, ...]] = ("intro", "debate_1", "debate_2", "debate_3", "closing")
    judge_label: ClassVar[str] = "president"
    action_type: ClassVar[str] = "argument"

    data: NuclearScenarios = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "data", load_nuclear(self.scenario_file))

    def draw(self, seed: int, number: int) -> Scenario:
        president = int(stream(seed, _PRESIDENT, number).integers(len(self.data.presidents)))
        crisis = int(stream(seed, _CRISIS, number).integers(len(self.data.crises)))
        a_for = bool(stream(seed, _SIDES, number).integers(2) == 0)
        return Scenario(
            number=number,
            persona=dict(self.data.presidents[president]),
            context=dict(self.data.crises[crisis]),
            sides=("for", "against") if a_for else ("against", "for"),
            choices=("for", "against"),
            record={
                "number": number,
                "president": president,
                "crisis": crisis,
                "source": self.scenario_file or "pdbench/games/data/nuclear_war.json",
            },
        )

    def player_view(
        self, state: DebateState, seat: str, scenario: Scenario, history: list[dict[str, Any]]
    ) -> dict[str, Any]:
        me = 0 if seat == "a" else 1
        president = scenario.persona
        return {
            "game": self.platform_name,
            "round_number": state.round_number,
            "phase": self.phase(state),
            "your_position": scenario.sides[me],
            "scenario": {
                key: scenario.context[key] for key in ("country", "adversary", "crisis_description")
            },
            "president": {
                key: president[key] for key in ("name", "background", "priorities", "key_question")
            },
            "debate_history": history,
            "your_score": state.scores[me],
            "opponent_score": state.scores[1 - me],
        }

    def generic_text(self, side: str) -> str:
        return GENERIC[side]
