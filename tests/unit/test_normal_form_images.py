"""Image scores under a named norm for a 2x2 game's reputation (issue 45, docs/mechanisms.md):
with `reputation_shown: image` a player is shown its partner's image, good or bad, as the norm
set it from the stored rounds, and nothing of the partner's history. The images are recomputed
here from the revealed records alone with this file's own table of the four norms (not the
package's `assess`); the house players, the mock, the measures and the viewer read them as
documented; bad options are refused naming the field."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from reputation_records import IMAGE_NORMS, expected_images

from pdbench.games.base import recorded_options
from pdbench.games.check import play
from pdbench.games.normal_form.images import image_rows
from pdbench.games.normal_form.metrics import state_row
from pdbench.games.normal_form.policies import NORMAL_FORM_POLICIES
from pdbench.games.normal_form.rules import NormalForm, rules_of

ROOT = Path(__file__).resolve().parents[2]
SEATS = ("mech_random", "mech_tft", "mech_reputation", "mech_alld", "mech_allc", "mech_random")


def image_rules(norm: str, rounds: int = 8, **more: Any) -> NormalForm:
    return rules_of(
        {
            "base": "pd",
            "mechanism": "reputation",
            "rounds": rounds,
            "groups": 3,
            "reputation_shown": "image",
            "norm": norm,
            **more,
        }
    )


def played_match(rules: NormalForm, seed: int) -> tuple[dict[int, dict[str, Any]], list[Any]]:
    """(revealed records by round, (state, seat, round_state) for every seat every round)."""
    seated = {s: NORMAL_FORM_POLICIES[p]() for s, p in zip(rules.seats, SEATS, strict=True)}
    rngs = {s: np.random.default_rng([seed, i]) for i, s in enumerate(rules.seats)}
    revealed: dict[int, dict[str, Any]] = {}
    seen = []
    state = rules.initial_state(seed)
    while not rules.match_over(state):
        shown = {s: rules.observe(state, s) for s in rules.seats}
        seen += [(state, s, shown[s]) for s in rules.seats]
        after = rules.apply(state, {s: seated[s].act(shown[s], rngs[s]) for s in rules.seats})
        revealed[state.round_number] = rules.revealed(state, after)
        state = after
    return revealed, seen


@pytest.mark.parametrize("norm", list(IMAGE_NORMS))
def test_each_seat_is_shown_its_partners_image_the_stored_rounds_give(norm):
    rules = image_rules(norm)
    shown_images = set()
    for seed in (3, 11):
        revealed, seen = played_match(rules, seed)
        images = expected_images(norm, rules.seats, revealed, "A0")
        for state, seat, round_state in seen:
            (group,) = [g for g in revealed[state.round_number]["groups"] if seat in g]
            (partner,) = [s for s in group if s != seat]
            want = "good" if images[state.round_number][partner] else "bad"
            assert round_state["partner_image"] == want
            assert round_state["norm"] == norm and round_state["reputation_shown"] == "image"
            assert "reputation" not in round_state  # nothing of the partner's history
            assert round_state["history"] == []
            shown_images.add(want)
    assert shown_images == {"good", "bad"}


def test_the_images_are_hidden_from_nothing_and_a_redrawn_seed_changes_no_observation():
    rules = image_rules("stern_judging", rounds=5)
    seated = {s: NORMAL_FORM_POLICIES[p]() for s, p in zip(rules.seats, SEATS, strict=True)}

    def look(state: Any, seat: str, seen: dict[str, Any], where: str) -> None:
        other = rules.redraw_hidden(state, seat, np.random.default_rng(state.round_number))
        assert rules.observe(other, seat) == seen, where

    play(rules, seated, 5, look=look)


def test_the_discriminator_cooperates_with_a_good_partner_only_and_the_gap_measures_it():
    rules = image_rules("stern_judging", rounds=12)  # images differ from the last action
    rng = np.random.default_rng(0)
    for image, move in (("good", "A0"), ("bad", "A1")):
        state = rules.initial_state(1)
        seen = {**rules.observe(state, "a"), "partner_image": image}
        for name in ("mech_reputation", "mech_tft"):
            assert NORMAL_FORM_POLICIES[name]().act(seen, rng)["action"] == move
    seated = {s: NORMAL_FORM_POLICIES[p]() for s, p in zip(rules.seats, SEATS, strict=True)}
    rows = state_row(rules, play(rules, seated, 9).final)
    assert rows["c"]["reputation_gap"] == 1.0  # mech_reputation
    assert rows["e"]["reputation_gap"] in (0.0, None)  # mech_allc ignores images
    assert rows["d"]["reputation_gap"] in (0.0, None)  # mech_alld too


def test_the_cooperative_mock_reads_the_norm_and_the_partners_image_from_its_prompt():
    from pdbench.agents.judged_prompts import render_prompt
    from pdbench.games.normal_form import mock
    from pdbench.games.normal_form.prompts import PROMPTS

    behaviour = SimpleNamespace(strategy="reciprocate", invalid_rate=0.0, policy=None, params={})
    rules = image_rules("standing", rounds=3)
    state = rules.initial_state(6)
    defectors = {"a", "d", "e"}
    state = rules.apply(
        state,
        {s: {"type": "play", "action": "A1" if s in defectors else "A0"} for s in rules.seats},
    )
    moves = []
    for seat in rules.seats:
        shown = rules.observe(state, seat)
        prompt = render_prompt(ROOT, shown, "You believe in cooperation.")
        assert "standing" in prompt.lower() or "refuses" in prompt or "bad partner" in prompt
        assert f"has a {shown['partner_image']} image" in prompt
        assert "History of play" not in prompt and "Agent #" not in prompt
        answer = mock.play(prompt, behaviour, seat, lean="cooperative", allowed=None)
        moves.append(PROMPTS.action(shown, answer)["action"])
        assert moves[-1] == ("A0" if shown["partner_image"] == "good" else "A1")
    assert set(moves) == {"A0", "A1"}  # it met partners of both images


def test_the_viewer_lists_the_image_each_seat_had_each_round():
    rules = image_rules("shunning", rounds=6)
    revealed, _ = played_match(rules, 4)
    turns = [
        {"round": n, "phase": "play", "actions": {}, "revealed": revealed[n]} for n in revealed
    ]
    images = expected_images("shunning", rules.seats, revealed, "A0")
    stored = rules_of(recorded_options(rules))  # the rules as a stored run's options give them
    rows = image_rows(turns, stored, {s: s.upper() for s in rules.seats})
    assert [row["round"] for row in rows] == sorted(revealed)
    for row in rows:
        for seat in rules.seats:
            assert row[seat.upper()] == ("good" if images[row["round"]][seat] else "bad")
        good = sum(images[row["round"]].values())
        assert row["share good"] == pytest.approx(good / len(rules.seats))


def test_the_default_shows_the_history_tree_and_records_no_new_option():
    history = rules_of({"base": "pd", "mechanism": "reputation", "rounds": 2, "groups": 2})
    assert "reputation" in history.observe(history.initial_state(1), "a")
    assert "partner_image" not in history.observe(history.initial_state(1), "a")
    recorded = recorded_options(history)
    assert "reputation_shown" not in recorded and "norm" not in recorded
    assert recorded_options(image_rules("standing"))["norm"] == "standing"


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"mechanism": "reputation", "groups": 2, "reputation_shown": "image"}, "norm: "),
        ({"mechanism": "reputation", "groups": 2, "norm": "standing"}, "norm is for"),
        (
            {"mechanism": "reputation", "groups": 2, "reputation_shown": "image", "norm": "x"},
            "norm must be",
        ),
        ({"mechanism": "reputation", "groups": 2, "reputation_shown": "tree"}, "reputation_shown"),
        ({"mechanism": "repetition", "reputation_shown": "image"}, "reputation_shown is for"),
        (
            {
                "base": "public_goods",
                "players": 3,
                "mechanism": "reputation",
                "groups": 2,
                "reputation_shown": "image",
                "norm": "standing",
            },
            "reputation_shown: ",
        ),
    ],
)
def test_bad_image_options_are_refused_by_their_name(options, reason):
    with pytest.raises(ValueError, match=rf"^{reason}"):
        rules_of({"base": "pd", **options})


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        (["mechanism.reputation_shown=image"], "mechanism.norm"),
        (["mechanism.norm=standing"], "mechanism.norm"),
        (
            [
                "game=public_goods",
                "mechanism.reputation_shown=image",
                "mechanism.norm=standing",
                "population={mech_tft:4,mech_alld:4}",
            ],
            "mechanism.reputation_shown",
        ),
    ],
)
def test_a_bad_image_option_on_the_command_line_exits_2_in_one_line(tmp_path, overrides, field):
    from tests.in_process import run_front_door

    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    population = any(o.startswith("population") for o in overrides)
    seats = [] if population else [f"agent_{s}=tft" for s in "abcd"]
    args = ["validate", str(ROOT / "conf" / "config.yaml"), "mechanism=reputation"]
    args += [*seats, *overrides]
    ran = run_front_door("cli", args, cwd=tmp_path, env=env)
    assert ran.code == 2, ran.stderr
    assert field in ran.stderr and "Traceback" not in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1


def test_the_match_page_shows_the_image_table_after_the_phases():
    from streamlit.testing.v1 import AppTest

    rules = image_rules("standing", rounds=3)
    revealed, _ = played_match(rules, 2)
    turns = [
        {
            "round": n,
            "phase": "play",
            "actions": {s: {"type": "play", "action": a} for s, a in r["actions"].items()},
            "revealed": r,
        }
        for n, r in revealed.items()
    ]
    options = recorded_options(rules)

    def app(turns: list[dict], options: dict) -> None:
        from pdbench.ui.game_views import MatchView, game_view

        view = game_view("normal_form")
        assert view is not None
        view.render_transcript(MatchView(turns, {}, options, seed=2))

    test = AppTest.from_function(app, kwargs={"turns": turns, "options": options})
    test.default_timeout = 60
    test.run()
    assert not test.exception, [e.value for e in test.exception]
    phases, images = (df.value for df in test.dataframe)
    assert len(phases) == 3 * 6
    assert images.to_dict("records") == image_rows(turns, rules, {})
