"""The Liar's Dice viewer tab and its frame builder (analysis.per_run.liars_dice_transcript) from stored
turn lines: rounds in order with each bid's probability given its bidder's dice, the showdowns;
and a round still in play shows no dice, nor a probability that would tell them."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from pdbench.agents.policy import TurnPolicyAgent
from pdbench.games.liars_dice.odds import bid_probability
from pdbench.games.liars_dice.policies import Bluffer, ProbabilityLiar
from pdbench.games.liars_dice.rules import Bid, LiarsDiceRules
from pdbench.games.liars_dice.transcript import transcript_frames
from pdbench.games.registry import build_turn_game
from pdbench.runners.turn_records import turn_line
from pdbench.runners.turns import SeatRule, play_turn_match

OPTIONS = {"dice_per_player": 3, "faces": 6, "wild_ones": True}


def stored_turns(seed: int = 4) -> list[dict]:
    """A whole match's rounds.jsonl lines, as the run writes them."""
    game = build_turn_game("liars_dice", **OPTIONS)
    result = asyncio.run(
        play_turn_match(
            game,
            {"a": TurnPolicyAgent(Bluffer(1), "B"), "b": TurnPolicyAgent(ProbabilityLiar(), "P")},
            seed=seed,
            agent_seeds={"a": 1, "b": 2},
            rules={"a": SeatRule(), "b": SeatRule()},
            max_turns=500,
        )
    )
    assert result.completed
    lines = [turn_line({"condition": "c"}, t, marked={}, store_prompts=True) for t in result.turns]
    return json.loads(json.dumps(lines))  # as read back from the file


def test_every_move_in_order_with_its_bidders_probability_and_every_showdown():
    turns = stored_turns()
    moves, showdowns = transcript_frames(turns, faces=6, wild_ones=True)
    assert list(moves["turn"]) == sorted(t["turn"] for t in turns)
    revealed = [t["revealed"]["showdown"] for t in turns if t["revealed"]]
    assert list(showdowns["round"]) == [s["round"] for s in revealed]
    assert len(moves[moves["move"] == "challenge"]) == len(revealed)
    rules = LiarsDiceRules(faces=6, wild_ones=True)
    for line, (_, row) in zip(turns, moves.iterrows(), strict=True):
        (seat,) = line["seats"]
        action = line["actions"][seat]
        if action["type"] == "challenge":
            assert row["move"] == "challenge" and pd.isna(row["probability"])
            continue
        showdown = next(s for s in revealed if s["round"] == line["round"])
        own, other = showdown["dice"][seat], showdown["dice"]["b" if seat == "a" else "a"]
        expected = bid_probability(rules, Bid(action["quantity"], action["face"]), tuple(own),
                                   len(other))  # fmt: skip
        assert row["move"] == f"bid {action['quantity']} x {action['face']}"
        assert row["probability"] == pytest.approx(expected)
    last = showdowns.iloc[-1]
    assert last["loser"] in ("a", "b") and last["met"] == (last["matching"] >= int(last["bid"][0]))


def _cut_in_play(turns: list[dict]) -> tuple[list[dict], int]:
    """The lines up to a bid of a round whose showdown comes later (a turn in progress)."""
    for index, line in enumerate(turns):
        if line["actions"][line["seats"][0]]["type"] == "bid" and line["round"] > 1:
            return turns[: index + 1], line["round"]
    raise AssertionError("no bid after round 1")


def test_a_round_in_play_shows_no_dice_and_no_probability():
    full = stored_turns()
    cut, in_play = _cut_in_play(full)
    moves, showdowns = transcript_frames(cut, faces=6, wild_ones=True)
    assert in_play not in set(showdowns["round"])
    assert moves[moves["round"] == in_play]["probability"].isna().all()
    # the same lines with different dice revealed later give the same frames up to that turn
    assert (moves["round"] < in_play).sum() > 0


def _render(turns: list[dict]) -> AppTest:
    def app(turns: list[dict]) -> None:
        from pdbench.games.liars_dice import view as liars_dice

        liars_dice.render(
            turns,
            {"a": "A · BLUFFER", "b": "B · PROBABILITY"},
            {"faces": 6, "wild_ones": True},
        )

    test = AppTest.from_function(app, kwargs={"turns": turns}, default_timeout=60)
    test.run()
    assert not test.exception, [e.value for e in test.exception]
    return test


def _shown_text(test: AppTest) -> str:
    parts = [m.value for m in test.markdown] + [c.value for c in test.caption]
    parts += [df.value.to_csv() for df in test.dataframe]
    return "\n".join(parts)


def test_the_tab_reads_as_a_transcript():
    turns = stored_turns()
    test = _render(turns)
    rounds = {t["round"] for t in turns}
    headers = [m.value for m in test.markdown if m.value.startswith("##### Round")]
    assert headers == [f"##### Round {n}" for n in sorted(rounds)]
    assert len(test.dataframe) == len(rounds)
    first = next(t["revealed"]["showdown"] for t in turns if t["revealed"])
    text = _shown_text(test)
    dice_a = " ".join(map(str, first["dice"]["a"]))
    assert f"A · BLUFFER had {dice_a}" in text and "lost a die" in text
    table = test.dataframe[0].value
    assert list(table.columns) == ["turn", "player", "move", "P(bid)"]
    assert table["P(bid)"].iloc[0] != ""


def test_the_tab_never_shows_dice_of_a_round_in_play():
    full = stored_turns()
    cut, in_play = _cut_in_play(full)
    test = _render(cut)
    text = _shown_text(test)
    assert "In play: the dice are hidden" in text
    hidden = next(t["revealed"]["showdown"] for t in full if t["revealed"] and
                  t["revealed"]["showdown"]["round"] == in_play)  # fmt: skip
    showdowns = [m.value for m in test.markdown if m.value.startswith("Showdown")]
    assert len(showdowns) == in_play - 1
    for hand in hidden["dice"].values():
        assert f"had {' '.join(map(str, hand))}" not in "\n".join(showdowns[in_play - 1 :])
    last = test.dataframe[-1].value
    assert (last["P(bid)"] == "").all()
    # nothing of the hidden round's revealed record is in the lines the tab was given
    assert all(not t["revealed"] or t["revealed"]["showdown"]["round"] < in_play for t in cut)
    np.testing.assert_equal(len(test.dataframe), in_play)
