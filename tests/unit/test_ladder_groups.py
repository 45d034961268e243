"""Ratings of matches of N players from their ranks (pdbench.ladder.rank_ratings): Plackett-Luce
maximum likelihood, the Bradley-Terry reduction to pairs, OpenSkill with N teams of one; and the
ladder choosing them for outcome tables with more than two rows a match."""

from __future__ import annotations

import numpy as np
import pytest

from pdbench.ladder.rank_ratings import (
    GroupMatches,
    openskill_ranks,
    pair_reduction,
    plackett_luce,
)
from pdbench.ladder.ratings import bradley_terry


def simulated_orders(theta: np.ndarray, n_matches: int, seats: int, rng: np.random.Generator):
    """Matches of `seats` agents drawn at random, their orders drawn from Plackett-Luce (Gumbel
    trick: sorting theta + Gumbel noise gives a Plackett-Luce order); ranks 1..seats."""
    k = len(theta)
    players = np.argsort(rng.random((n_matches, k)), axis=1)[:, :seats]
    utility = theta[players] + rng.gumbel(size=players.shape)
    ranks = np.argsort(np.argsort(-utility, axis=1), axis=1) + 1
    return GroupMatches.from_rows(
        np.repeat(np.arange(n_matches), seats), players.ravel(), ranks.ravel()
    )


def test_plackett_luce_on_two_player_matches_is_bradley_terry():
    rng = np.random.default_rng(4)
    theta = np.array([-0.8, 0.0, 0.3, 0.9])
    matches = simulated_orders(theta, 400, 2, rng)
    fit = plackett_luce(matches, len(theta))
    first, second, result = pair_reduction(matches)
    bt = bradley_terry(first, second, result, len(theta))
    assert not (result == "draw").any()
    np.testing.assert_allclose(fit.theta, bt.theta, atol=1e-4)
    np.testing.assert_allclose(fit.se, bt.se, rtol=1e-3)


def test_plackett_luce_recovers_known_strengths_from_four_player_orders():
    rng = np.random.default_rng(5)
    theta = np.array([-1.2, -0.4, 0.0, 0.5, 1.1, 0.2])
    fit = plackett_luce(simulated_orders(theta, 600, 4, rng), len(theta))
    truth = theta - theta.mean()
    assert np.all((fit.ci_low <= truth) & (truth <= fit.ci_high)), (fit.theta, truth)
    assert np.argsort(fit.theta).tolist() == np.argsort(truth).tolist()


def test_the_gradient_and_hessian_are_exact():
    from pdbench.ladder.rank_ratings import _hessian, _negative_log_posterior

    rng = np.random.default_rng(6)
    matches = simulated_orders(np.zeros(5), 30, 3, rng)
    # ties above the last place (Efron's terms): the first match's two first seats, the second's
    matches.rank[matches.match == 0] = [1, 1, 3]
    matches.rank[matches.match == 1] = [2, 1, 1]
    matches = GroupMatches.from_rows(matches.match, matches.agent, matches.rank)
    theta = rng.normal(size=5)
    value, grad = _negative_log_posterior(theta, matches, 5)
    step = 1e-6
    numeric = [
        (_negative_log_posterior(theta + step * e, matches, 5)[0] - value) / step for e in np.eye(5)
    ]
    np.testing.assert_allclose(grad, numeric, atol=1e-4)
    hessian = _hessian(theta, matches, 5)
    numeric_h = np.array(
        [
            (_negative_log_posterior(theta + step * e, matches, 5)[1] - grad) / step
            for e in np.eye(5)
        ]
    )
    np.testing.assert_allclose(hessian, numeric_h, atol=1e-4)


def test_a_tie_is_shared_by_breslows_rule_and_two_equal_agents_always_tying_rate_equal():
    # a and b tie first every time, c last: a and b equal, both above c
    match = np.repeat(np.arange(20), 3)
    agent = np.tile([0, 1, 2], 20)
    rank = np.tile([1, 1, 3], 20)
    matches = GroupMatches.from_rows(match, agent, rank)
    fit = plackett_luce(matches, 3)
    assert fit.theta[0] == pytest.approx(fit.theta[1], abs=1e-8)
    assert fit.theta[0] > fit.theta[2]
    *_, result = pair_reduction(matches)
    assert result.tolist().count("draw") == 20  # a-b of every match


def test_the_pair_reduction_gives_every_pair_of_a_match_once():
    matches = GroupMatches.from_rows(
        np.array([0, 0, 0, 0]), np.array([3, 1, 0, 2]), np.array([2, 1, 4, 2])
    )
    first, second, result = pair_reduction(matches)
    got = {(int(a), int(b), str(r)) for a, b, r in zip(first, second, result, strict=True)}
    # agent 1 first, 3 and 2 tied second, 0 last
    assert got == {
        (3, 1, "b"), (3, 0, "a"), (3, 2, "draw"), (1, 0, "a"), (1, 2, "a"), (0, 2, "b"),
    }  # fmt: skip


def test_openskill_takes_the_ranks_of_n_teams_of_one():
    matches = GroupMatches.from_rows(
        np.repeat(np.arange(30), 3), np.tile([0, 1, 2], 30), np.tile([1, 2, 3], 30)
    )
    mu, sigma, ordinal = openskill_ranks(matches, 3)
    assert mu[0] > mu[1] > mu[2]
    assert np.all(sigma < 25 / 3)
    np.testing.assert_allclose(ordinal, mu - 3 * sigma)


# --- the ladder on outcome tables of N players --------------------------------------------------


def group_outcomes(theta, n_matches, seats, seed, game="groups"):
    """An outcome table of `seats`-player matches (one row per seat), orders from Plackett-Luce,
    a seat's score its place counted from the bottom and its payoff the score plus noise."""
    import pandas as pd

    from pdbench.config.agent_identity import AgentIdentity
    from pdbench.ladder.outcomes import OUTCOME_COLUMNS, Outcomes

    rng = np.random.default_rng(seed)
    names = [f"agent{i}" for i in range(len(theta))]
    agents = {n: AgentIdentity("policy", n, {"policy": n}) for n in names}
    matches = simulated_orders(np.asarray(theta), n_matches, seats, rng)
    score = (seats - matches.rank).astype(float)
    table = pd.DataFrame(
        {
            "game": game,
            "run_id": "synthetic",
            "condition": "groups",
            "replicate": matches.match,
            "match_id": [f"m{m:05d}" for m in matches.match],
            "seat": np.tile(list("abcdefghij"[:seats]), n_matches),
            "agent": [agents[names[a]].key for a in matches.agent],
            "score": score,
            "payoff": score + rng.normal(size=len(score)),
            "rank": matches.rank,
        },
        columns=OUTCOME_COLUMNS,
    )
    return Outcomes(table, {a.key: a for a in agents.values()}, ranked_on={game: "wins"})


THETA = np.array([-1.0, -0.3, 0.0, 0.4, 0.9])


def test_the_ladder_rates_four_player_matches_with_plackett_luce_and_says_so():
    from pdbench.ladder.build import LadderOptions, counted, ladder_table
    from pdbench.ladder.output import ratings
    from pdbench.ladder.ratings import ELO_MEAN, ELO_SCALE

    outcomes = group_outcomes(THETA, 500, 4, seed=8)
    rows = ratings(ladder_table(counted(outcomes), LadderOptions())).set_index("agent")
    assert rows["interval"].str.startswith("Plackett-Luce").all()
    truth = ELO_MEAN + ELO_SCALE * (THETA - THETA.mean())
    for n, true_rating in enumerate(truth):
        row = rows.loc[f"agent{n}"]
        assert row.ci_low <= true_rating <= row.ci_high, (n, row.to_dict())
    assert list(rows.sort_values("rank").index) == [f"agent{n}" for n in range(5)][::-1]
    # W/D/L per pair: each match gives a seat 3 pairwise results; matches are matches
    assert (rows["wins"] + rows["draws"] + rows["losses"] == 3 * rows["matches"]).all()
    assert rows["matches"].sum() == 4 * 500
    assert rows["openskill_mu"].idxmax() == "agent4"


def test_the_pair_reduction_is_an_option_with_intervals_clustered_by_match():
    from pdbench.ladder.build import LadderOptions, counted, ladder_table
    from pdbench.ladder.output import ratings

    outcomes = group_outcomes(THETA, 300, 4, seed=9)
    pl = ratings(ladder_table(counted(outcomes), LadderOptions())).set_index("agent")
    pairs = ratings(ladder_table(counted(outcomes), LadderOptions(n_player="pairs")))
    pairs = pairs.set_index("agent")
    assert pairs["interval"].str.contains("pairs of each match").all()
    assert pairs["interval"].str.contains("clustered by match").all()
    assert list(pairs.sort_values("rank").index) == list(pl.sort_values("rank").index)
    # Plackett-Luce's pairwise marginals are Bradley-Terry's: the two estimate one theta, and the
    # pairs' intervals, clustered, are no narrower than the ranks' (the same data, less of it)
    np.testing.assert_allclose(pairs["theta"], pl.loc[pairs.index, "theta"], atol=0.15)
    pl_width = (pl["ci_high"] - pl["ci_low"]).loc[pairs.index]
    assert ((pairs["ci_high"] - pairs["ci_low"]) >= 0.95 * pl_width).all()


def test_payoff_ratings_of_n_player_matches_use_the_mean_of_the_others():
    from pdbench.ladder.build import LadderOptions, counted, ladder_table
    from pdbench.ladder.output import ratings

    outcomes = group_outcomes(THETA, 400, 4, seed=10)
    rows = ratings(ladder_table(counted(outcomes), LadderOptions("payoff"))).set_index("agent")
    assert rows["interval"].str.contains("the mean of the others").all()
    # every agent met every other often: the rating is close to its mean payoff
    np.testing.assert_allclose(rows["rating"], rows["mean_payoff"], atol=0.15)
    assert (rows["ci_low"] <= rows["rating"]).all() and rows["identified"].all()


def test_an_agent_that_won_every_n_player_match_is_flagged_and_groups_that_never_met_are_said():
    from pdbench.ladder.build import LadderOptions, counted, ladder_table
    from pdbench.ladder.output import ratings

    outcomes = group_outcomes(THETA, 200, 3, seed=11)
    table = outcomes.table
    top = next(key for key, agent in outcomes.agents.items() if agent.name == "agent0")
    played = table.groupby("match_id")["agent"].transform(lambda a: (a == top).any())
    # agent0 first wherever it played; the others keep their order below it
    table.loc[played, "rank"] = np.where(
        table.loc[played, "agent"] == top, 1, table.loc[played, "rank"] + 1
    )
    rows = ratings(ladder_table(counted(outcomes), LadderOptions())).set_index("agent")
    assert rows.loc["agent0", "flag"].startswith("won every match")
    assert not rows.loc["agent0", "identified"]
    # two populations that never met: two groups, each rated alone
    import pandas as pd

    from pdbench.ladder.outcomes import Outcomes

    left = group_outcomes(THETA[:3], 60, 3, seed=12)
    right = group_outcomes(THETA[:3], 60, 3, seed=13)
    right.table["agent"] = right.table["agent"] + "-other"
    right.table["match_id"] = right.table["match_id"] + "-other"
    right.agents = {
        key + "-other": type(agent)("policy", agent.name + "'", {"p": agent.name + "'"})
        for key, agent in right.agents.items()
    }
    both = Outcomes(
        pd.concat([left.table, right.table], ignore_index=True),
        {**left.agents, **right.agents},
        ranked_on={"groups": "wins"},
    )
    table = ladder_table(counted(both), LadderOptions())
    assert ratings(table)["component"].nunique() == 2
    assert table[table["table"] == "note"]["note"].str.contains("2 groups never compared").all()


def test_the_printed_table_names_the_n_player_model_and_what_w_d_l_count():
    from rich.console import Console

    from pdbench.cli.ladder import game_table
    from pdbench.ladder.build import LadderOptions, counted, ladder_table
    from pdbench.ladder.output import ratings

    outcomes = group_outcomes(THETA, 100, 4, seed=14)
    for n_player, title in (("pl", "Plackett-Luce ratings"), ("pairs", "each match's pairs")):
        rows = ratings(ladder_table(counted(outcomes), LadderOptions(n_player=n_player)))
        console = Console(width=400, record=True)
        console.print(game_table("groups", rows, "score"))
        text = " ".join(console.export_text().split())  # the caption wraps
        assert title in text and "opponents outranked, tied, outranked by" in text, text


# --- the turn reader takes the seats a stored record holds ---------------------------------------


def test_stored_scores_of_n_seats_are_checked_seat_by_seat_against_the_replay():
    from pdbench.ladder.replay_reader import checked_scores

    replayed = {"a": 31.0, "b": 12.0, "c": 31.0, "d": 8.0}
    assert checked_scores(dict(replayed), replayed) == (replayed, None)
    _, problem = checked_scores({**replayed, "c": 30.0}, replayed)
    assert problem == (
        "its stored scores (a 31.0, b 12.0, c 30.0, d 8.0) differ from the replay's "
        "(a 31.0, b 12.0, c 31.0, d 8.0)"
    )
    # two seats: the message the reader always gave
    assert checked_scores({"a": 1.0, "b": 2.0}, {"a": 1.0, "b": 3.0})[1] == (
        "its stored scores (a 1.0, b 2.0) differ from the replay's (a 1.0, b 3.0)"
    )


def test_a_match_of_four_seats_gives_four_outcome_rows_ranked_by_score():
    from pdbench.ladder.outcomes import Condition, OutcomeRows

    condition = Condition(
        "pgg", "public_goods", {}, "ka", "kb", "settings", agents={s: f"k{s}" for s in "abcd"}
    )
    rows = OutcomeRows()
    scores = {"a": 31.0, "b": 12.0, "c": 31.0, "d": 8.0}
    rows.add_seats("pgg", 0, condition, scores, scores, "m1")
    table = rows.table("run1")
    assert table["seat"].tolist() == ["a", "b", "c", "d"]
    assert table["agent"].tolist() == ["ka", "kb", "kc", "kd"]
    assert table["rank"].tolist() == [1, 3, 1, 4]
    assert (table["match_id"] == "m1").all() and (table["run_id"] == "run1").all()


def test_the_group_payoff_model_on_two_seats_is_the_pairs_payoff_model():
    from pdbench.ladder.payoff_ratings import group_payoff_model, payoff_model

    rng = np.random.default_rng(15)
    first = rng.integers(0, 4, 200)
    second = (first + rng.integers(1, 4, 200)) % 4
    pay_first, pay_second = rng.normal(size=200), rng.normal(size=200)
    pairs = payoff_model(first, second, pay_first, pay_second, 4)
    match = np.repeat(np.arange(200), 2)
    groups = group_payoff_model(
        match,
        np.stack([first, second], axis=1).ravel(),
        np.stack([pay_first, pay_second], axis=1).ravel(),
        4,
    )
    np.testing.assert_allclose(groups.rating, pairs.rating, atol=1e-10)
    np.testing.assert_allclose(groups.se, pairs.se, atol=1e-10)


def test_reading_a_match_of_more_than_two_seats_as_a_pair_is_refused():
    """What reads pairs (train's result, the two-player ladder) never drops seats c, d, ...
    silently: an N-seat outcome table is refused in one sentence saying what to use."""
    from pdbench.ladder.outcomes import pair_matches

    outcomes = group_outcomes(THETA, n_matches=3, seats=4, seed=0)
    with pytest.raises(ValueError, match="4 seats"):
        pair_matches(outcomes.table)
    pairs = group_outcomes(THETA, n_matches=3, seats=2, seed=0)
    assert len(pair_matches(pairs.table).agent_a) == 3
