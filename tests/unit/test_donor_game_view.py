"""The donor game's viewer page (pdbench.games.donor_game.view): giving over the rounds, the
population's image over time, the who-gave-to-whom matrix and the norms each player's choices
agree with, each read from a stored match and checked against the stored turns directly."""

from __future__ import annotations

import numpy as np
from public_goods_loop import play

from pdbench.games.donor_game.policies import DONOR_GAME_POLICIES
from pdbench.games.donor_game.stored import read_rounds
from pdbench.games.donor_game.view import (
    MEASURES,
    gift_frame,
    giving_frame,
    match_options,
    norm_frame,
    population_frame,
)
from pdbench.games.metric_rows import game_metric_rows
from pdbench.games.registry import build_turn_game
from pdbench.ui.game_views import game_view

KINDS = ("donor_discriminator", "donor_never_give", "donor_always_give", "donor_random")


def match(norm="standing", seed=3):
    rules = build_turn_game("donor_game", players=4, rounds=8, norm=norm)
    players = {s: DONOR_GAME_POLICIES[k]() for s, k in zip(rules.seats, KINDS, strict=True)}
    lines, _ = play(rules, players, seed)
    return lines


def test_giving_and_the_image_over_the_rounds_are_the_stored_ones():
    lines = match()
    rounds = read_rounds(lines)
    frame = population_frame(rounds)
    for line, row in zip(lines, frame.itertuples(), strict=True):
        gifts = [a["give"] for a in line["actions"].values()]
        assert row.giving == sum(gifts) / 4
        assert row.image == sum(line["revealed"]["images"].values()) / 4
    names = {"a": "A · DISC"}
    choices = giving_frame(rounds, names)
    assert len(choices) == 8 * 4 and set(choices[choices["seat"] == "b"]["gave"]) == {0}
    assert choices[choices["seat"] == "a"]["player"].iloc[0] == "A · DISC"
    assert population_frame(read_rounds(match(norm="none")))["image"].isna().all()


def test_the_gift_matrix_counts_each_pairs_meetings_and_gifts_and_leaves_strangers_empty():
    lines = match()
    frame = gift_frame(read_rounds(lines), {}).set_index(["donor", "recipient"])
    for donor in "ABCD":
        for recipient in "ABCD":
            if donor == recipient:
                continue
            met = [
                line
                for line in lines
                if line["revealed"]["recipients"][donor.lower()] == recipient.lower()
            ]
            row = frame.loc[(donor, recipient)]
            assert row["met"] == len(met)
            if met:
                assert row["gifts"] == sum(line["actions"][donor.lower()]["give"] for line in met)
            else:
                assert np.isnan(row["gifts"])
    never = frame.loc["B"]  # the never-giver: 0 gifts wherever it met its recipient
    assert (never[never["met"] > 0]["gifts"] == 0).all() and (never["met"] > 0).any()


def test_the_norm_table_marks_the_most_consistent_norms_with_wilson_intervals():
    lines = match(norm="standing")
    table = norm_frame(read_rounds(lines), lines[-1]["outcome"]["options"], {})
    always = table[table["player"] == "C"].set_index("norm")
    assert (
        always.loc["image_scoring", "share"] == 1.0 and always.loc["image_scoring", "high"] == 1.0
    )
    assert always.loc["image_scoring", "most consistent"]
    never = table[table["player"] == "B"].set_index("norm")
    assert never.loc["image_scoring", "share"] == 0.0 and never.loc["image_scoring", "low"] == 0.0
    # the discriminator sees standing's images: standing judges each of its choices good
    disc = table[table["player"] == "A"].set_index("norm")
    assert disc.loc["standing", "share"] == 1.0 and disc.loc["standing", "most consistent"]
    assert (table["low"] <= table["share"]).all() and (table["share"] <= table["high"]).all()


def test_the_metrics_tab_shows_measures_the_aggregates_store_and_the_page_is_the_entrys():
    assert {m.stem for m in MEASURES} <= {row.stem for row in game_metric_rows("donor_game")}
    assert MEASURES[0].stem == "giving_rate"
    page = game_view("donor_game")
    assert page is not None and page.__name__ == "pdbench.games.donor_game.view"
    assert match_options([], {"players": 5})["players"] == 5


def evolving_match(seed=4):
    rules = build_turn_game(
        "donor_game",
        players=4,
        rounds=2,
        amount="continuous",
        norm="none",
        endowment=10,
        punishment=True,
        generations=2,
        games_per_generation=2,
    )
    kinds = ("donor_share", "donor_never_give", "donor_match_share", "donor_always_give")
    players = {s: DONOR_GAME_POLICIES[k]() for s, k in zip(rules.seats, kinds, strict=True)}
    lines, _ = play(rules, players, seed)
    return lines


def test_the_resources_the_game_boundaries_and_the_strategies_are_the_stored_ones():
    from pdbench.games.donor_game.evolution_view import (
        boundaries,
        generation_frame,
        resources_frame,
        strategies_frame,
    )
    from pdbench.games.donor_game.stored import read_strategies

    lines = evolving_match()
    rounds = read_rounds(lines)
    frame = resources_frame(rounds, 10, {"a": "A · SHARE"})
    donations = [line for line in lines if line["phase"] == "donate"]
    assert len(frame) == len(donations) * 4
    for line in donations:
        shown = frame[frame["round"] == line["round"]]
        assert dict(zip(shown["label"], shown["resources"], strict=True)) == {
            line["revealed"]["labels"][s]: r for s, r in line["revealed"]["resources"].items()
        }
    assert frame[frame["label"] == donations[0]["revealed"]["labels"]["a"]]["player"].iloc[0] == (
        "A · SHARE"
    )
    assert boundaries(rounds).to_dict("records") == [
        {"round": 3, "starts": "game"},
        {"round": 5, "starts": "generation"},
        {"round": 7, "starts": "game"},
    ]
    strategies = strategies_frame(read_strategies(lines), {})
    written = [
        (line["revealed"]["generation"], text["text"])
        for line in lines
        if line["phase"] == "strategy"
        for _, text in sorted(line["actions"].items())
    ]
    assert list(zip(strategies["generation"], strategies["strategy"], strict=True)) == written
    assert list(generation_frame(rounds, 10)["generation"]) == [1, 2]


def test_the_page_of_an_evolving_match_renders_its_resources_generations_and_strategies():
    from streamlit.testing.v1 import AppTest

    def app(turns: list[dict]) -> None:
        from pdbench.ui.game_views import MatchView, game_view

        view = game_view("donor_game")
        assert view is not None
        view.render_transcript(MatchView(turns, {"a": "A · ONE"}, {}, seed=1))

    test = AppTest.from_function(app, kwargs={"turns": evolving_match()}, default_timeout=60)
    test.run()
    assert not test.exception, [e.value for e in test.exception]
    headings = [m.value for m in test.markdown]
    for heading in ("Resources over the rounds", "Generations", "Strategies written"):
        assert f"##### {heading}" in headings
    assert any("punished, spending" in m.value or " gave " in m.value for m in test.markdown)
