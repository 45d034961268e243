"""The published donor game design as a preset: the options that come nearest to Vallinder &
Hughes 2024, where every number comes from, what was matched and what could not be
(docs/donor-game.md shows the same; tests/unit/test_donor_game_published.py keeps the experiment
file conf/experiment/donor_vallinder_hughes2024.yaml equal to it).

Sources: the authors' repository, read from its stored snapshot, and the paper's abstract (its
methods section could not be read here); docs/research-coopeval-and-donor-game.md, section 5,
cites each line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pdbench.games.donor_game.rules import DonorGame

VH_CODE = "aronvallinder/llm-donor-game@c53df2734544215823f5856ad3c248e377d56c55"
VH_PAPER = "Vallinder & Hughes 2024, arXiv 2412.10270"
NOTEBOOK = f"{VH_CODE} Donor_Game_with_Cultural_Evolution.ipynb"
RESEARCH = "docs/research-coopeval-and-donor-game.md, section 5"
VH_POPULATION = 12  # numAgents (ipynb line 1104; README :16, :76)


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str
    options: dict[str, Any]
    sources: dict[str, str]  # option -> where its value comes from
    matched: tuple[str, ...]
    not_matched: tuple[str, ...]

    def rules(self) -> DonorGame:
        return DonorGame(**self.options)


VALLINDER_HUGHES_2024 = Preset(
    name="donor_vallinder_hughes2024",
    summary="a population of LLM donors, 12 rounds, the recipient gains twice what the donor "
    "pays, endowment 10, the recipient's latest action and its recipient's before it shown",
    options={
        "players": VH_POPULATION,  # the paper's 12, bound as a population
        "rounds": 12,
        "cost": 1,
        "benefit": 2,
        "endowment": 10,
        "norm": "none",
        "recent_actions": 1,
        "second_order": True,
    },
    sources={
        "players": f"{NOTEBOOK} line 1104 (numAgents = 12); README :16, :76; {RESEARCH}",
        "rounds": f"{NOTEBOOK} line 1115 (number_of_rounds = 12)",
        "cost": f"{NOTEBOOK} lines 1101, 1126 (cooperationGain = 2: the recipient receives 2x "
        "what the donor gave up); a gift of 1 unit",
        "benefit": f"{NOTEBOOK} lines 1101, 1126: 2 x the cost (b / c = 2)",
        "endowment": f"{NOTEBOOK} line 1105; README :77 (10 units)",
        "norm": f"{NOTEBOOK}: the reputation number it computes is not shown to the donor "
        "(donorPrompt shows resources and traces only), and no norm is used",
        "recent_actions": f"{NOTEBOOK} lines 226, 248 ('You only know what A did in the single "
        "most recent round')",
        "second_order": f"{NOTEBOOK} lines 225, 1131 (the trace: what A did to B, then what B "
        "did before, a chain of at most three rounds)",
    },
    matched=(
        "the benefit-to-cost ratio 2, the endowment 10 and the 12 rounds of a game",
        "the recipient's single most recent donation shown, and the donation its recipient had "
        "made before it (the trace's first two links)",
        "no image and no norm shown to the donor (the paper computes a reputation number it "
        "does not show)",
        "LLM donors in every seat (the mock offline; any provider's model as any agent)",
    ),
    not_matched=(
        "the amount: Vallinder & Hughes's donor gives any amount up to its resources; here it "
        "gives c = 1 or nothing (binary), so a score can fall below 0",
        "the pairing: there each round pairs everyone, half donating, roles alternating (a "
        "bipartite round robin over two halves, then its role-reversed copy); here everyone "
        "donates once every round to a freshly drawn recipient (24 donations, not 12, per "
        "player in the two games)",
        "the trace's third link and the recipient's current resources, shown there, not here",
        "generations and cultural evolution: 10 generations (README; the notebook's cell sets "
        "2), the top half surviving on twice the second game's final resources, newcomers "
        "writing strategies from the survivors' advice; here one game, no strategies written",
        "the second game of a generation (the same pairs, roles reversed, resources reset)",
        "costly punishment (spend x to remove 2x), an option there, off by default",
        "the prompts' wording, the Justification/Answer format and Claude's temperature 0.8",
    ),
)

PRESETS: dict[str, Preset] = {VALLINDER_HUGHES_2024.name: VALLINDER_HUGHES_2024}
