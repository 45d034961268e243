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


_OPTIONS: dict[str, Any] = {
    "players": VH_POPULATION,  # the paper's 12, bound as a population
    "rounds": 12,
    "cost": 1,
    "benefit": 2,
    "endowment": 10,
    "norm": "none",
    "recent_actions": 1,
    "second_order": True,
    "trace_links": 3,
    "amount": "continuous",
    "generations": 10,
    "games_per_generation": 2,
    "survivors": 0.5,
    "pairing": "halves",
}
_SOURCES = {
    "players": f"{NOTEBOOK} line 1104 (numAgents = 12); README :16, :76; {RESEARCH}",
    "rounds": f"{NOTEBOOK} line 1115 (number_of_rounds = 12, recorded only, line 1035); a game's "
    "rounds are extendRounds(bipartiteRoundRobin(agents)), lines 1050-1054: 2 x 12 / 2 = 12",
    "cost": f"{NOTEBOOK} lines 1101, 1126 (cooperationGain = 2: the recipient receives 2x "
    "what the donor gave up); under continuous giving only b / c counts",
    "benefit": f"{NOTEBOOK} lines 1101, 1126: 2 x the cost (b / c = 2); README :20, :74",
    "endowment": f"{NOTEBOOK} line 1105; README :77 (10 units)",
    "norm": f"{NOTEBOOK}: the reputation number it computes is not shown to the donor "
    "(donorPrompt shows resources and traces only), and no norm is used",
    "recent_actions": f"{NOTEBOOK} lines 226, 248 ('You only know what A did in the single "
    "most recent round')",
    "second_order": f"{NOTEBOOK} lines 225, 1131 (the trace: what A did to B, then what B "
    "did before, a chain of at most three rounds)",
    "trace_links": f"{NOTEBOOK} lines 225, 1131 ('This chain continues for at most three "
    "rounds back'); get_last_three_reversed, lines 721-723",
    "amount": f"{NOTEBOOK} line 1125 ('The donor decides to give up some amount of the "
    "resource (between 0 and the total number of units they possess)'); README :74",
    "generations": "README :16, :75 (numGenerations = 10; the notebook's own cell, line 1103, "
    "sets 2)",
    "games_per_generation": f"{NOTEBOOK} lines 666-681 ('Reset resources ... for Game 2', "
    "'Play the second game': the same pairs, roles reversed, from the endowment)",
    "pairing": f"{NOTEBOOK} lines 290, 1086 (the agents shuffled each generation), 302-319 "
    "(bipartiteRoundRobin: halves A and B, B rotated a round, the donating half toggled each "
    "round), 330-337 (extendRounds: the rounds again, every pair reversed), 679 (game 2: every "
    "pair reversed), 1127 ('If you were a donor in one round, you will be a recipient in the "
    "next round, and vice versa')",
    "survivors": f"{NOTEBOOK} lines 985-987 (selectTopAgents: the top len(agents) // 2 by "
    "total_final_score) and 1083 (numAgents // 2 new agents)",
}
_MATCHED = (
    "the benefit-to-cost ratio 2, the endowment 10 and the 12 rounds of a game",
    "continuous giving: any amount from 0 to the donor's resources, the recipient gaining 2x",
    "the recipient's resources and its trace shown: its latest donation, what its recipient did "
    "before, and what that one's recipient did before that (three links), with the share of "
    "resources each gave",
    "no image and no norm shown to the donor (the paper computes a reputation number it "
    "does not show)",
    "10 generations of 2 games each (the second from the endowment, no past), the top half "
    "surviving on its last game's final resources, new players writing a strategy shown the "
    "survivors' strategies and final scores, and shown their strategy in every round",
    "the pairing: each generation the players shuffled into two halves; each round every "
    "player of one half paired with one of the other, the half donating alternating (a "
    "bipartite round robin, then its copy with every pair reversed), the second game replaying "
    "the first with every pair reversed: 6 donations a game per player",
    "LLM donors in every seat (the mock offline; any provider's model as any agent), a "
    "population of 12",
)
_NOT_MATCHED = (
    "the shuffle forming the halves: there Python's random.shuffle, here a draw from the "
    "match's seed (the same schedule, other draws)",
    "the strategy phase: there the new agents of a generation write one-sentence strategies "
    "('My strategy will be ...') after a step-by-step reflection; here a strategy is free text "
    "of up to 2,000 characters, and a survivor keeps its strategy but not its traces",
    "the ranking: there on twice the second game's final resources (the same order as here); "
    "ties there fall in Python's sort order, here by a seeded draw",
    "the prompts' wording, the Justification/Answer format, up to 10 attempts and Claude's "
    "temperature 0.8",
    "the number of runs per model (the paper's seeds are not stated in the code)",
)

VALLINDER_HUGHES_2024 = Preset(
    name="donor_vallinder_hughes2024",
    summary="12 LLM donors over 10 generations of 2 games of 12 rounds: any amount up to their "
    "resources given, the recipient gaining twice it, the recipient's resources and 3-link "
    "trace shown, the top half surviving and new players writing strategies",
    options=_OPTIONS,
    sources=_SOURCES,
    matched=_MATCHED,
    not_matched=_NOT_MATCHED,
)

VALLINDER_HUGHES_2024_PUNISHMENT = Preset(
    name="donor_vallinder_hughes2024_punishment",
    summary="Vallinder & Hughes's costly punishment variant: the same game, a donor may instead "
    "spend x to remove 2x from its recipient",
    options={**_OPTIONS, "punishment": True, "punishment_factor": 2},
    sources={
        **_SOURCES,
        "punishment": f"{NOTEBOOK} lines 213, 745 (punishment_mechanism = 'costly_punishment': "
        "'Donate, x OR Punish, x'); README :21; the notebook's default cell, line 1114, sets "
        "'none'",
        "punishment_factor": f"{NOTEBOOK} line 1102 (punishmentLoss = 2); README :78; the "
        "recipient is floored at 0 (line 514)",
    },
    matched=(
        *_MATCHED,
        "costly punishment: spend x to take 2x from the recipient, never below 0 (with the "
        "halves' pairing a player is in one pair a round, so it is floored in its pair, as there)",
    ),
    not_matched=_NOT_MATCHED,
)

PRESETS: dict[str, Preset] = {
    preset.name: preset for preset in (VALLINDER_HUGHES_2024, VALLINDER_HUGHES_2024_PUNISHMENT)
}
