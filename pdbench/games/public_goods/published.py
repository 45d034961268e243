"""Published public goods designs as presets: the options that reproduce each design, where every
number comes from, what was matched and what could not be (docs/public-goods.md shows the same
tables; a test keeps them equal).

Sources are cited by paper and page, or by repository, path and commit. pgg_bench's and
CoopEval's were read from their repositories' stored snapshots; Fehr & Gaechter (2002) only
through its first page and the project's facts file (shared/references/groups-and-mechanisms.md):
the paper's figure of mean contributions per period could not be read here, so no reference
curve is given rather than one made up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pdbench.games.public_goods.rules import PublicGoods

PGG_BENCH = "lechmazur/pgg_bench@4be972bf10262dd26465d03d27ae40bc424d8638"
COOPEVAL = "Xiao215/CoopEval@8559e858b5cc33e0a29ac592c0b21eab007feb57"
FG2002 = "Fehr & Gaechter 2002, Nature 415, 137-140"
FACTS = "shared/references/groups-and-mechanisms.md"
# A course presentation of the paper (240 subjects, ten sessions of 24, six groups of four, two
# 6-period treatments): the session size is read there, not in the paper's methods text.
FG2002_SESSIONS = "https://www.scribd.com/presentation/296629015/Altruistic-Punishment-in-Humans"


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str
    options: dict[str, Any]  # the options every variant shares
    variants: dict[str, dict[str, Any]]  # variant -> the options it adds
    sources: dict[str, str]  # option -> where its value comes from
    matched: tuple[str, ...]
    not_matched: tuple[str, ...]
    reference: dict[str, Any] = field(default_factory=dict)  # published numbers, when read

    def rules(self, variant: str) -> PublicGoods:
        if variant not in self.variants:
            raise ValueError(
                f"{self.name} has the variants {', '.join(self.variants)}, not {variant!r}"
            )
        return PublicGoods(**self.options, **self.variants[variant])


FEHR_GAECHTER_2002 = Preset(
    name="pgg_fehr_gaechter2002",
    summary="groups of 4, 20 MU, MPCR 0.4, perfect strangers, 6 periods with and 6 without "
    "punishment (1 : 3), in both orders",
    options={
        "players": 4,
        "endowment": 20,
        "multiplier": 1.6,
        "rounds": 12,
        "punish": True,
        "punish_cost": 1,
        "punish_fine": 3,
        "matching": "perfect_strangers",
        "groups": 7,
        "stranger_block": 6,
    },
    variants={
        "punishment_first": {"punish_rounds": (1, 6)},
        "punishment_second": {"punish_rounds": (7, 12)},
    },
    sources={
        "players": f"{FG2002}, p. 137 (0.4 x 80 = 32: four members of 20 MU); {FACTS}",
        "endowment": f'{FG2002}, p. 137 ("their 20 MUs")',
        "multiplier": f"{FG2002}, p. 137 (each MU invested yields 0.4 MU to every member: "
        '"0.4 x 80 = 32 MUs"); MPCR 0.4 x 4 members',
        "rounds": f"{FACTS}: 6 periods with and 6 without punishment",
        "punish": f"{FACTS}: in both orders",
        "punish_cost": f"{FACTS}: a point costs the punisher 1 MU",
        "punish_fine": f"{FACTS}: and the punished 3 MU",
        "matching": f"{FACTS}: perfect strangers (never the same group twice)",
        "groups": "pdbench: the fewest groups of 4 whose grid design keeps everyone apart for "
        "6 rounds (7; the sessions had 24 subjects, 6 groups: not a valid grid; "
        f"{FG2002_SESSIONS})",
        "stranger_block": "pdbench: perfect strangers within each 6-period part",
    },
    matched=(
        "group size 4, endowment 20, MPCR 0.4 (m = 1.6), punishment 1 : 3",
        "6 rounds without and 6 with a punish phase, in both orders (two variants)",
        "perfect strangers: nobody meets anyone twice within a 6-round part",
        "anonymous players, contributions hidden until all are in, then shown by group",
    ),
    not_matched=(
        "the reference curve: the paper's figure (mean contribution per period) could not be "
        "read here, so none is given",
        "the session size: 28 players (7 groups) instead of 24 (6 groups), which no grid "
        "design keeps apart for 6 rounds (and a search found no other schedule here)",
        "perfect strangers across the two parts: 12 rounds x 3 others exceed the 27 others, so "
        "pairs meet again in the second part (how the sessions drew it could not be read)",
        "the most points a player may give (max_punish) and whether a round's earnings could go "
        "negative: not readable here; pdbench's defaults (10 points in all; no negative "
        "earnings) are used",
        "the instructions' wording, the human subjects and the monetary stakes of the laboratory",
        "the subjects: conf/experiment/pgg_fehr_gaechter2002.yaml is played by house players "
        "in Fischbacher, Gaechter & Fehr (2001)'s type shares, none of whom punishes",
        "whether the second part was announced in advance (here the round_state shows the "
        "punish phase only when it comes)",
    ),
)

PGG_BENCH_PRESET = Preset(
    name="pgg_bench",
    summary="5 LLM players, 20 tokens, x1.6, 10 rounds, public messages, hidden contributions, "
    "punishment of one player, up to 10 spent at 1 : 3 with caps, balances carried over",
    options={
        "players": 5,
        "endowment": 20,
        "multiplier": 1.6,
        "rounds": 10,
        "talk": True,
        "talk_max_chars": None,
        "talk_max_words": 50,
        "talk_order": "shuffle",
        "punish": True,
        "max_punish": 10,
        "punish_cost": 1,
        "punish_fine": 3,
        "punish_one_target": True,
        "punish_cap_fraction": 0.5,
        "punish_cap_absolute": 100,
        "accounting": "balance",
        "matching": "partners",
    },
    variants={"default": {}},
    sources={
        "players": f"{PGG_BENCH} logs/*.jsonl settings.num_players; README.md",
        "endowment": f"{PGG_BENCH} settings.starting_amount",
        "multiplier": f"{PGG_BENCH} settings.multiplier",
        "rounds": f"{PGG_BENCH} settings.total_rounds",
        "talk": f"{PGG_BENCH} settings.enable_public_messages",
        "talk_max_chars": f"{PGG_BENCH} prompts/prompt_public_message.txt sets no character limit",
        "talk_max_words": f'{PGG_BENCH} prompts/prompt_public_message.txt ("up to 50 words")',
        "talk_order": f"{PGG_BENCH} logs: the speaking order changes from round to round "
        "(74 of 7,350 rounds in label order, about the 61 of a uniform shuffle)",
        "punish": f"{PGG_BENCH} settings.enable_punishments",
        "max_punish": f"{PGG_BENCH} settings.punish_max_spend",
        "punish_cost": f"{PGG_BENCH} prompts: spending $X costs the punisher $X",
        "punish_fine": f"{PGG_BENCH} settings.punish_ratio",
        "punish_one_target": f'{PGG_BENCH} prompts: "punish exactly one other player or no one"',
        "punish_cap_fraction": f"{PGG_BENCH} settings.punish_max_fraction",
        "punish_cap_absolute": f"{PGG_BENCH} settings.punish_max_absolute",
        "accounting": f"{PGG_BENCH} prompts/prompt_choose_with_msgs.txt: contribute from the "
        "current balance, whole numbers, the remainder stays in the fund",
        "matching": f"{PGG_BENCH} logs: one game, five fixed players P1..P5",
    },
    matched=(
        "every setting of the 735 stored logs (all identical): 5 players, 20, x1.6, 10 rounds, "
        "messages on, punishment on at 1 : 3, at most 10 spent, caps 0.5 and 100",
        "the money: the pot rounded down, shared in whole units, the remainder carried (all "
        "7,350 fund records of the logs agree with this rule); the score is the final balance",
        "the caps applied one punishment after another on the running balances (none of the "
        "11,171 punishment records of the logs takes more than half of its target's balance "
        "before it; all 6,590 successive pairs start from the balances the first left), a "
        "capped punishment cut to floor(cap / 3) "
        "points and the rest refunded (the prompt's worked example, a test here)",
        "messages in turn, each seeing the earlier ones of the round; contributions hidden "
        "until all are in; punishers named afterwards (settings.anonymous_punishments false)",
    ),
    not_matched=(
        "the prompts' wording and the goal they state (rank highest in wealth): the LLM "
        "prompt adapter's job",
        "messages of the last 5 rounds in every prompt: round_state carries this round's only",
        "the order punishments are applied in: pgg_bench's code is not published and its logs "
        "show no fixed order; here a seeded shuffle each round",
        "a punisher whose balance fell below its spend before its turn: not in the logs; here "
        "it pays at most what it still holds",
        "the multi-pass TrueSkill ranking: the ladder's job",
    ),
)

COOPEVAL_PRESET = Preset(
    name="coopeval_public_goods",
    summary="CoopEval's public goods game: 3 players, x1.5, contribute the whole endowment (1) "
    "or nothing, one shot",
    options={
        "players": 3,
        "endowment": 1,
        "multiplier": 1.5,
        "rounds": 1,
    },
    variants={"default": {}},
    sources={
        "players": f"{COOPEVAL} configs/games/public_goods.yaml (num_players: 3)",
        "endowment": f"{COOPEVAL} src/coopeval/games/public_goods.py (endowment normalised to "
        "1; actions C, contribute it, and F, keep it)",
        "multiplier": f"{COOPEVAL} configs/games/public_goods.yaml (multiplier: 1.5)",
        "rounds": f"{COOPEVAL} configs/mechanisms/no_mechanism.yaml: one play without a mechanism",
    },
    matched=(
        "the payoffs: C earns m k / N, F earns 1 + m k / N with k contributors "
        "(public_goods.py get_actions_payoff)",
        "the action space: a contribution of 0 or 1 is F or C",
    ),
    not_matched=(
        "the player count the issue names: 4 players and configs/games/pg_4player.yaml; the "
        "stored repository has no pg_4player.yaml at any commit and public_goods.yaml says 3",
        "CoopEval's players choose a probability for each action and the action is drawn; "
        "here a player answers an amount",
        "CoopEval's mechanisms (repetition, reputation, mediation, contracting) and its "
        "population dynamics",
    ),
)

COOPEVAL_REPUTATION_PRESET = Preset(
    name="coopeval_public_goods_reputation",
    summary="CoopEval's public goods game under its reputation mechanism: 3 players, x1.5, "
    "contribute 1 or nothing, 15 rounds, everyone re-matched each round and shown its new "
    "group's last 3 rounds (Reputation+: 3 levels; Reputation-: 1)",
    options={
        "players": 3,
        "endowment": 1,
        "multiplier": 1.5,
        "rounds": 15,
        "round_limit_disclosed": False,
        "matching": "seat_groups",
        "groups": 3,
        "reputation_depth": 3,
    },
    variants={"reputation_plus": {"reputation_order": 3}, "reputation_minus": {}},
    sources={
        "players": f"{COOPEVAL} configs/games/public_goods.yaml (num_players: 3)",
        "endowment": f"{COOPEVAL} src/coopeval/games/public_goods.py (endowment normalised to 1)",
        "multiplier": f"{COOPEVAL} configs/games/public_goods.yaml (multiplier: 1.5)",
        "rounds": f"{COOPEVAL} configs/mechanisms/reputation.yaml (num_rounds: 15; no random "
        "stop: mechanisms/reputation.py breaks after num_rounds)",
        "round_limit_disclosed": f"{COOPEVAL} mechanisms/prompts.py REPUTATION_MECHANISM_PROMPT: "
        "players are told an 80% chance of another round, never the 15",
        "matching": f"{COOPEVAL} utils/match_scheduler_reputation.py:20-56: every round each "
        "seat's agents shuffled, group i the i-th of each (one player per position)",
        "groups": "pdbench: 9 players (CoopEval's population is 6 models x 3 seats = 18, more "
        "than a condition binds)",
        "reputation_depth": f"{COOPEVAL} configs/mechanisms/reputation.yaml (lookup_depth: 3)",
    },
    matched=(
        "the game: 3 players, endowment 1 contributed whole or not at all, x1.5 shared by 3",
        "15 rounds, re-matched at random each round with one player of each position (seat) in "
        "every group, as CoopEval's RandomMatcher",
        "what a player sees before each round: itself and its co-players, by a name fixed all "
        "match, their rounds among the last 3 with every side's contribution and points, "
        "nested 3 levels (Reputation+, max_recursion_depth 3) or 1 (Reputation-), earlier "
        "encounters only (mechanisms/reputation.py)",
    ),
    not_matched=(
        "the population: 9 players instead of 18, bound seat by seat (CoopEval's each model "
        "holds all 3 seats; here the house types do not each hold every position)",
        "CoopEval's players choose a probability for each action and the action is drawn; "
        "here a player answers an amount (0 or 1)",
        "the 80% continuation: CoopEval tells players an 80% chance of another round and "
        "weights round t's points (1 - 0.8) 0.8^(t-1), round 15's 0.8^14 (the tail; "
        "ranking_evaluations/payoffs_base.py); here players are "
        "told nothing of the length and the score is the plain sum",
        "the prompt's wording beyond the reputation block (the twist's preamble is not shown)",
    ),
)

PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        FEHR_GAECHTER_2002,
        PGG_BENCH_PRESET,
        COOPEVAL_PRESET,
        COOPEVAL_REPUTATION_PRESET,
    )
}
