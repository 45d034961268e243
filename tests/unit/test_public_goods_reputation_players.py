"""Players under CoopEval's reputation (issue 45): the prompt's reputation block is rendered from
the observation (CoopEval's tree, newest first, nested to the order) and the mock reads back
exactly the co-players' shown contributions; the mock's cooperative persona gives everything to a
group whose shown mean share is at least half and nothing below it, the exploitative one free
rides; the house reciprocator gives in proportion to that share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from pdbench.agents.judged_prompts import persona_text, render_prompt
from pdbench.config.schema import MockBehaviour
from pdbench.games.public_goods import mock
from pdbench.games.public_goods import reputation_prompt as block
from pdbench.games.public_goods.policies import PUBLIC_GOODS_POLICIES, RandomPlayer
from pdbench.games.public_goods.reputation import co_players_shown_share
from pdbench.games.public_goods.rules import PublicGoods

ROOT = Path(__file__).resolve().parents[2]


def observations(game: PublicGoods, seed: int) -> list[dict[str, Any]]:
    """Every seat's round_state, every phase, in a seeded match of random players."""
    rng = np.random.default_rng(seed)
    player = RandomPlayer()
    state, found = game.initial_state(seed), []
    while not game.match_over(state):
        seen = {seat: game.observe(state, seat) for seat in game.to_move(state)}
        found += seen.values()
        state = game.apply(state, {s: player.act(o, rng) for s, o in seen.items()})
    return found


GAME = PublicGoods(
    players=3,
    groups=3,
    rounds=6,
    endowment=1,
    multiplier=1.5,
    talk=True,
    punish=True,
    matching="strangers",
    reputation_depth=3,
    reputation_order=3,
)


def test_the_block_in_the_prompt_is_the_observations_and_the_mock_reads_it_back():
    persona = persona_text(ROOT, {"game": "public-goods"}, "cooperative")
    nested = 0
    for seen in observations(GAME, seed=1):
        prompt = render_prompt(ROOT, seen, persona)
        lines = block.render(seen["reputation"])
        assert "\n".join(lines) in prompt
        nested += sum("before this match:" in line for line in lines)
        read = mock.read_round_state(prompt)
        assert read is not None
        others = [p for p in seen["reputation"]["players"] if p["agent"] != "You"]
        assert block.read_co_players(prompt) == {
            p["agent"]: [e["contribution"] for e in p["history"]] for p in others
        }
        if seen["phase"] != "punish":  # the punish prompt asks for no contribution
            assert co_players_shown_share(read) == co_players_shown_share(seen)
    assert nested > 0


def test_the_block_is_coopevals_tree():
    reputation = {
        "rounds": [2, 3],
        "players": [
            {"label": "P2", "agent": "You", "history": []},
            {
                "label": "P1",
                "agent": "Agent #4",
                "history": [
                    {
                        "round_number": 2,
                        "contribution": 1,
                        "earnings": 1.5,
                        "co_players": [
                            {"agent": "Agent #2", "contribution": 0, "earnings": 2, "history": []},
                        ],
                    },
                    {
                        "round_number": 3,
                        "contribution": 0,
                        "earnings": 2,
                        "co_players": [
                            {
                                "agent": "You",
                                "contribution": 1,
                                "earnings": 1,
                                "history": [
                                    {
                                        "round_number": 2,
                                        "contribution": 1,
                                        "earnings": 1.5,
                                        "co_players": [
                                            {
                                                "agent": "Agent #4",
                                                "contribution": 1,
                                                "earnings": 1.5,
                                            }
                                        ],
                                    }
                                ],
                            },
                            {"agent": "Agent #7", "contribution": 0, "earnings": 2, "history": []},
                        ],
                    },
                ],
            },
            {"label": "P3", "agent": "Agent #9", "history": []},
        ],
    }
    assert block.render(reputation) == [
        "Reputation: the rounds 2 to 3 of you and of the players in your group this round "
        "(the last 2), newest first.",
        "You are playing with 2 other agent(s): Agent #4 (P1), Agent #9 (P3).",
        "You have no prior history of playing this game.",
        "History of play of Agent #4 (P1):",
        "├─ [Round 3] Agent #4 (contributed 0, received 2pts) vs You (contributed 1, received "
        "1pts) vs Agent #7 (contributed 0, received 2pts)",
        "│  └─ History of You before this match:",
        "│  │  └─ [Round 2] You (contributed 1, received 1.5pts) vs Agent #4 (contributed 1, "
        "received 1.5pts)",
        "└─ [Round 2] Agent #4 (contributed 1, received 1.5pts) vs Agent #2 (contributed 0, "
        "received 2pts)",
        "Agent #9 (P3) has no prior history of playing this game.",
    ]


def _with_shares(shares: list[list[int]], endowment: int = 20) -> dict[str, Any]:
    """A contribute round_state whose co-players were shown these contributions."""
    return {
        "phase": "contribute",
        "you": "P1",
        "players": ["P1", "P2", "P3"],
        "endowment": endowment,
        "history": [],
        "reputation": {
            "players": [{"agent": "You", "history": [{"contribution": 0}]}]
            + [
                {"agent": f"Agent #{k}", "history": [{"contribution": c} for c in given]}
                for k, given in enumerate(shares, 2)
            ]
        },
    }


def test_the_reciprocator_gives_in_proportion_to_the_shown_share_everything_when_none():
    player = PUBLIC_GOODS_POLICIES["pgg_reputation_reciprocator"]()
    rng = np.random.default_rng(0)
    act = lambda s: player.act(s, rng)["amount"]  # noqa: E731
    assert act(_with_shares([[20, 10], [0]])) == 10  # (20 + 10 + 0) / 3 of 20
    assert act(_with_shares([[5], [6]])) == 6  # 5.5 rounds half up
    assert act(_with_shares([[], []])) == 20  # nothing shown: everything
    assert act({**_with_shares([]), "reputation": None}) == 20


def _mock_answer(round_state: dict[str, Any], persona: str) -> str | None:
    prompt = render_prompt(
        ROOT,
        {**round_state_full(round_state)},
        persona_text(ROOT, {"game": "public-goods"}, persona),
    )
    lean = {"cooperative": "cooperative", "exploitative": "competitive"}[persona]
    return mock.play(prompt, MockBehaviour(), "key", lean=lean, allowed=None)


def round_state_full(partial: dict[str, Any]) -> dict[str, Any]:
    """A complete round_state around the co-players' shown rounds."""
    players = []
    for listed in partial["reputation"]["players"]:
        history = [
            {"round_number": 3, "contribution": e["contribution"], "earnings": 1, "co_players": []}
            for e in listed["history"]
        ]
        label = "P1" if listed["agent"] == "You" else f"P{len(players) + 1}"
        players.append({"label": label, "agent": listed["agent"], "history": history})
    return {
        "game": "public-goods",
        "phase": "contribute",
        "round_number": 4,
        "round_limit": None,
        "you": "P1",
        "players": ["P1", "P2", "P3"],
        "endowment": 1,
        "multiplier": 1.5,
        "your_score": 3,
        "scores": {"P1": 3},
        "messages": [],
        "history": [],
        "reputation": {"rounds": [1, 3], "players": players},
    }


def test_the_mocks_personas_answer_the_groups_reputation():
    generous = _with_shares([[1, 1], [0, 1]], endowment=1)  # 3/4
    even = _with_shares([[1], [0]], endowment=1)  # 1/2
    mean = _with_shares([[0, 0], [1]], endowment=1)  # 1/3
    unknown = _with_shares([[], []], endowment=1)
    for shown, cooperative in ((generous, 1), (even, 1), (mean, 0), (unknown, 1)):
        assert _mock_answer(shown, "cooperative") == f"CONTRIBUTE {cooperative}"
        assert _mock_answer(shown, "exploitative") == "CONTRIBUTE 0"
