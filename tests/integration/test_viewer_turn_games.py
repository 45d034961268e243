"""A run of every turn game opens on its transcript, its measures and its facts (issue 41), driven
headless by streamlit.testing on the session's shared runs (tests/viewer_runs.py): Liar's Dice with
an aborted match, Passcode with an audited LLM Keeper, Nuclear War with an LLM judge and swapped
sides, NIL Recruitment with a panel of judges, public goods with two groups re-drawn every round.
The browser test checks the same pages' layout."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import orjson
import pandas as pd
import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest
from streamlit_scan import components_scanned_once  # noqa: F401 (a fixture)
from viewer_runs import GAME_KINDS, shared_viewer_runs

from pdbench.ui.display import literal
from pdbench.ui.game_views import game_view
from pdbench.ui.loaders import RUN_DIR_ENV

APP = Path(__file__).resolve().parents[2] / "pdbench" / "ui" / "app.py"
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("components_scanned_once")]
PLACEHOLDERS = ("No transcript view", "No page is registered", "No measures are registered")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    return shared_viewer_runs(tmp_path_factory)


def lines(run_dir: Path) -> list[dict]:
    return [orjson.loads(line) for line in (run_dir / "rounds.jsonl").read_bytes().splitlines()]


def shown_text(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for e in (*at.info, *at.warning, *at.success)]
    return "\n".join(str(p) for p in parts)


def opened(kind: str, runs: dict[str, Path], monkeypatch) -> AppTest:
    monkeypatch.setenv(RUN_DIR_ENV, str(runs[kind]))
    at = AppTest.from_file(str(APP), default_timeout=90).run()
    assert not at.exception, (kind, [e.value for e in at.exception])
    assert [t.label for t in at.tabs] == ["Transcript", "Metrics", "Run facts"]
    text = shown_text(at)
    assert not any(p in text for p in PLACEHOLDERS), text[:2000]
    return at


@pytest.mark.parametrize("kind", GAME_KINDS)
def test_each_game_shows_its_measures_with_intervals_and_its_own_facts(kind, runs, monkeypatch):
    at = opened(kind, runs, monkeypatch)
    # the game's first measure (a contest's win rate), one card per player seat
    first = game_view(kind).MEASURES[0].label
    seats = [key for key in lines(runs[kind])[0] if re.fullmatch(r"agent_[a-z]", key)]
    cards = [(m.label, m.proto.delta_description) for m in at.metric]
    found = [description for label, description in cards if label == first]
    assert len(found) == len(seats) and all(d.startswith(("95% CI ", "no CI")) for d in found)
    assert any(d.startswith("95% CI ") for d in found)  # 2 or 3 matches: an interval
    # every condition's row (a pair's seats side by side; a group's a row per player)
    conditions = len(at.selectbox(key="condition").options)
    measures = next(df.value for df in at.dataframe if "matches" in df.value.columns)
    if len(seats) == 2:
        assert "A 95% CI" in measures.columns and len(measures) == conditions
    else:
        assert list(measures["player"]) == [s[-1].upper() for s in seats] * conditions
    # Run facts: turns played, not the 2000-turn safety cap; no collapse settings
    seeds = next(df.value for df in at.dataframe if "seed of" in df.value.columns)
    assert "2000" not in " ".join(seeds["played"]) and "turns" in " ".join(seeds["played"])
    assert set(seeds["seed of"]) == {"agent A", "agent B", "game"}
    text = shown_text(at)
    assert "collapse k / threshold" not in text
    command = next(c.value for c in at.code)
    assert command.startswith(("python -m pdbench game=", "pdbench run ")), command


def test_liars_dice_shows_every_round_and_its_aborted_match(runs, monkeypatch):
    at = opened("liars_dice", runs, monkeypatch)
    rounds = [m.value for m in at.markdown if m.value.startswith("##### Round")]
    showdowns = [m.value for m in at.markdown if m.value.startswith("Showdown")]
    # 2 dice each: a finished match ends after 2 to 3 showdowns, each closing a round
    assert rounds[0] == "##### Round 1" and 2 <= len(showdowns) == len(rounds) <= 3
    assert all("lost a die" in s for s in showdowns)
    first = at.dataframe[0].value
    assert list(first.columns) == ["turn", "player", "move", "P(bid)"]
    assert first["player"].iloc[0].startswith("A · ")
    condition = at.selectbox(key="condition").value
    box = at.selectbox(key=f"replicate::{condition}")
    aborted = [r for r in box.options if "aborted" in r]
    assert len(aborted) == 1, box.options
    box.set_value(int(aborted[0].split(" · ")[0])).run()
    assert not at.exception
    assert "In play: the dice are hidden" in shown_text(at) or "Showdown:" in shown_text(at)


def test_passcode_shows_questions_the_keepers_private_answers_and_the_audit(runs, monkeypatch):
    at = opened("passcode", runs, monkeypatch)
    text = shown_text(at)
    match = [t for t in lines(runs["passcode"]) if t["replicate"] == 0]
    first_question = next(t for t in match if t["phase"] == "question")["actions"]["a"]["text"]
    assert first_question.split('"')[0] in text
    assert "Keeper, to A only" in text and "Keeper, to B only" in text and "Audit:" in text
    words = [
        t["revealed"]["word"]["secret_word"] for t in match if (t["revealed"] or {}).get("word")
    ]
    assert len(words) == 2
    headers = [m.value for m in at.markdown if m.value.startswith("##### Round")]
    revealing = [h for h in headers if "revealed the word" in h]
    assert len(revealing) == 2 and all(w in h for w, h in zip(words, revealing, strict=True))
    assert sum("hidden from both players" in h for h in headers) == len(headers) - 2


def test_nuclear_war_shows_phases_the_presidents_persona_and_the_swapped_pairs(runs, monkeypatch):
    at = opened("nuclear_war", runs, monkeypatch)
    text = shown_text(at)
    for phase in ("intro", "debate_1", "debate_2", "debate_3", "closing"):
        assert f"**{literal(phase)}**" in text
    assert "positions swapped" in text and "The verdict followed the" in text
    assert "(president, the judge)" in text and "the judge's alone" in text
    assert sum(s.value.startswith("Decision:") for s in at.success) == 2


def test_nil_recruitment_shows_every_verdict_of_the_panel(runs, monkeypatch):
    at = opened("nil_recruitment", runs, monkeypatch)
    text = shown_text(at)
    assert "Every verdict of the panel" in text and "universities swapped" in text
    panel = next(
        t for t in lines(runs["nil_recruitment"]) if t["actions"].get("judge", {}).get("panel")
    )
    for vote in panel["actions"]["judge"]["panel"]:
        assert f"{literal(vote['judge'])}: {literal(vote['winner'])}" in text


def chart_data(at: AppTest, mark: str) -> pd.DataFrame:
    """The data of the one chart whose (first layer's) mark is `mark`, as the page sent it."""
    found = []
    for element in at.get("vega_lite_chart"):
        spec = orjson.loads(element.proto.spec)
        marks = [spec.get("mark")] + [layer.get("mark") for layer in spec.get("layer", [])]
        if any((m or {}).get("type") == mark for m in marks):
            found.append(element)
    assert len(found) == 1, mark
    return pa.ipc.open_stream(found[0].proto.datasets[0].data.data).read_pandas()


def test_public_goods_shows_contributions_the_punishment_matrix_and_talk(runs, monkeypatch):
    at = opened("public_goods", runs, monkeypatch)
    match = [t for t in lines(runs["public_goods"]) if t["replicate"] == 0]
    names = {seat: f"{seat.upper()} · {match[0][f'agent_{seat}']}" for seat in "abcdef"}
    contributed = chart_data(at, "line")  # one line per seat, every round
    contribute = [t for t in match if t["phase"] == "contribute"]
    assert len(contributed) == 6 * len(contribute) == 6 * 4
    for turn in contribute:
        shown = contributed[contributed["round"] == turn["round"]].set_index("seat")
        assert shown["contribution"].to_dict() == turn["revealed"]["contributions"]
    # the matrix: the points that took effect, summed from the stored rounds, per pair
    stored = Counter()
    for turn in match:
        for punisher, given in ((turn["revealed"] or {}).get("punished") or {}).items():
            stored.update({(names[punisher], names[t]): n for t, n in given.items()})
    matrix = chart_data(at, "rect")
    assert len(matrix) == 6 * 5 and sum(stored.values()) > 0
    cells = {(r.punisher, r.target): r.points for r in matrix.itertuples()}
    assert {pair: n for pair, n in cells.items() if n == n and n} == dict(
        stored
    )  # n == n: a number
    # talk beside its round: a stored message, said by the seat that said it, as it was labelled
    talk = next(t for t in match if t["phase"] == "talk" and t["actions"][t["seats"][0]]["text"])
    seat = talk["seats"][0]
    label = next(t for t in contribute if t["round"] == talk["round"])["revealed"]["labels"][seat]
    said = f"**{literal(f'{names[seat]} ({label})')}**: {literal(talk['actions'][seat]['text'])}"
    assert said in shown_text(at)
    # choosing a round shows that round's matrix and talk only
    next(box for box in at.selectbox if box.label == "Round").set_value(talk["round"]).run()
    assert not at.exception
    rounds = [m.value for m in at.markdown if m.value.startswith("##### Round")]
    assert rounds == [f"##### Round {talk['round']}"] and said in shown_text(at)
    # ... and the reputation the chosen player (the first seat) was shown before it, as its
    # prompt wrote it: the co-players' own rounds of the window, from the stored records
    (block,) = [c.value for c in at.code if c.value.startswith("Reputation:")]
    assert f"##### The reputation shown before round {talk['round']}" in shown_text(at)
    group = next(g for g in contribute[talk["round"] - 1]["revealed"]["groups"] if "a" in g)
    for turn in contribute[max(0, talk["round"] - 3) : talk["round"] - 1]:
        given = turn["revealed"]["contributions"]["a"]
        assert f"[Round {turn['round']}] You (contributed {given}," in block
    assert block.count("History of play of Agent #") + block.count("has no prior history") == (
        len(group) - 1
    )


def test_the_donor_game_shows_giving_and_image_over_time_who_gave_to_whom_and_the_norms(
    runs, monkeypatch
):
    at = opened("donor_game", runs, monkeypatch)
    match = [t for t in lines(runs["donor_game"]) if t["replicate"] == 0]
    over_time = chart_data(at, "line").pivot(index="round", columns="measure", values="value")
    for turn in match:
        gave = [a["give"] for a in turn["actions"].values()]
        assert over_time.loc[turn["round"], "giving"] == sum(gave) / len(gave)
        images = turn["revealed"]["images"].values()
        assert over_time.loc[turn["round"], "image"] == sum(images) / len(images)
    # the who-gave-to-whom matrix (the chart with a text layer) and the per-round choices
    charts = [orjson.loads(e.proto.spec) for e in at.get("vega_lite_chart")]
    layers = [[layer["mark"]["type"] for layer in spec.get("layer", [])] for spec in charts]
    assert layers.count(["rect", "text"]) == 1
    assert sum(spec.get("mark", {}).get("type") == "rect" for spec in charts) == 1
    norms = next(df.value for df in at.dataframe if "best" in df.value.columns)
    assert len(norms) == 5 * 4 and (norms["best"] == "yes").any()
    rounds = [m.value for m in at.markdown if m.value.startswith("##### Round")]
    assert rounds == [f"##### Round {n}" for n in range(1, 5)]
