"""The ladder's ratings from outcome tables written synthetically (pdbench.ladder.outcomes'
interface, as a turn-based game's reader will write them): a population with known strengths is
recovered within its intervals, a disconnected comparison graph is said, and agent identities
follow what changes an agent's play."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pdbench.config.agent_identity import AgentIdentity
from pdbench.config.schema import ArenaAgentSpec, LLMAgentSpec, PolicyAgentSpec
from pdbench.ladder.build import LadderOptions, counted, ladder_table
from pdbench.ladder.outcomes import Outcomes, outcome_table
from pdbench.ladder.output import ratings
from pdbench.ladder.ratings import ELO_MEAN, ELO_SCALE


def population(names, theta, nu, matches_per_pair, seed, game="scripted"):
    """Every pair meets `matches_per_pair` times; outcomes drawn from Bradley-Terry-Davidson."""
    rng = np.random.default_rng(seed)
    rows = {"c": [], "r": [], "a": [], "b": [], "sa": [], "sb": []}
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            weights = np.array(
                [np.exp(theta[i]), np.exp(theta[j]), nu * np.exp((theta[i] + theta[j]) / 2)]
            )
            drawn = rng.choice(3, size=matches_per_pair, p=weights / weights.sum())
            for replicate, outcome in enumerate(drawn):
                rows["c"].append(f"{names[i]}_vs_{names[j]}")
                rows["r"].append(replicate)
                rows["a"].append(names[i])
                rows["b"].append(names[j])
                rows["sa"].append({0: 1.0, 1: 0.0, 2: 0.5}[outcome])
                rows["sb"].append({0: 0.0, 1: 1.0, 2: 0.5}[outcome])
    agents = {name: AgentIdentity("policy", name, {"policy": name}) for name in names}
    # the table names agents by key: use the identities' keys
    for side in ("a", "b"):
        rows[side] = [agents[name].key for name in rows[side]]
    table = outcome_table(game, "synthetic", *rows.values())
    return Outcomes(table, {agent.key: agent for agent in agents.values()})


def test_a_scripted_population_with_known_strengths_is_recovered_within_its_intervals():
    names = ["weak", "fair", "middle", "good", "strong"]
    theta = np.array([-1.2, -0.4, 0.0, 0.5, 1.1])
    outcomes = population(names, theta, nu=0.6, matches_per_pair=120, seed=3)
    table = ladder_table(counted(outcomes), LadderOptions(rank_on="wins"))
    rows = ratings(table).set_index("agent")
    truth = ELO_MEAN + ELO_SCALE * (theta - theta.mean())
    for name, true_rating in zip(names, truth, strict=True):
        row = rows.loc[name]
        assert row.ci_low <= true_rating <= row.ci_high, (name, true_rating, row.to_dict())
    assert list(rows.sort_values("rank").index) == names[::-1]
    assert rows["draw_nu"].iloc[0] == pytest.approx(0.6, abs=0.15)
    assert (rows["matches"] == 4 * 120).all()
    assert (rows["wins"] + rows["draws"] + rows["losses"] == rows["matches"]).all()
    # OpenSkill (online, so it depends on the order of the matches) agrees on the ends
    by_openskill = list(rows.sort_values("openskill_mu", ascending=False).index)
    assert by_openskill[0] == "strong" and by_openskill[-1] == "weak"


def test_the_same_outcomes_give_the_same_table_whatever_their_order():
    outcomes = population(["x", "y", "z"], np.array([0.0, 0.5, 1.0]), 0.3, 30, seed=5)
    shuffled = Outcomes(outcomes.table.sample(frac=1, random_state=2), outcomes.agents)
    options = LadderOptions(rank_on="wins")
    first = ladder_table(counted(outcomes), options)
    again = ladder_table(counted(shuffled), options)
    assert first.equals(again)


def test_a_disconnected_comparison_graph_is_said_and_rated_within_its_groups():
    left = population(["a1", "a2"], np.array([0.0, 1.0]), 0.2, 40, seed=1)
    right = population(["b1", "b2"], np.array([0.0, 1.0]), 0.2, 40, seed=2)
    right.table["run_id"] = "other"
    table = ladder_table(counted(Outcomes.concatenate([left, right])), LadderOptions("wins"))
    rows = ratings(table)
    assert sorted(rows["component"].unique()) == [0, 1]
    assert rows.groupby("component")["rank"].apply(sorted).tolist() == [[1, 2], [1, 2]]
    (note,) = table[table["table"] == "note"]["note"]
    assert "2 groups never compared" in note and "a1, a2" in note and "b1, b2" in note


def test_a_match_given_twice_counts_once_and_is_said():
    outcomes = population(["x", "y"], np.array([0.0, 0.5]), 0.3, 10, seed=5)
    twice = counted(Outcomes.concatenate([outcomes, outcomes]))
    assert len(twice.table) == 2 * 10  # two seats a match
    assert len(twice.skipped) == 10
    assert all(
        s.reason.startswith("duplicate of synthetic, condition x_vs_y") for s in twice.skipped
    )


def llm(**changes) -> LLMAgentSpec:
    return LLMAgentSpec(persona="cooperative", **changes)


FILES = {
    "prompts/pd_system.md": "1" * 64,
    "prompts/pd_round.md": "2" * 64,
    "prompts/personas/cooperative.md": "3" * 64,
}


def test_an_llm_agent_is_what_its_cache_key_says_changes_its_answers():
    base = llm().identity(FILES)
    assert base.name.startswith("mock[cooperative]@")
    # a display name, retries and the fallback change no answer: the same agent
    assert llm(name="helper", max_retries=5, on_invalid="fallback").identity(FILES) == base
    # the model, the temperature, the persona file's content and the rendering do
    assert llm(temperature=0.7).identity(FILES).key != base.key
    assert llm(provider={"name": "mock", "model": "other"}).identity(FILES).key != base.key
    assert llm(history_window=3).identity(FILES).key != base.key
    edited = {**FILES, "prompts/personas/cooperative.md": "4" * 64}
    assert llm().identity(edited).key != base.key


def test_policies_are_their_name_and_parameters_and_arena_files_their_content_hash():
    tft = PolicyAgentSpec(policy="tft")
    assert tft.identity({}) == PolicyAgentSpec(policy="tft", name="Tit for tat").identity({})
    assert tft.identity({}).name == "tft"
    gtft = PolicyAgentSpec(policy="gtft", params={"generous_prob": 0.2}).identity({})
    assert gtft.name == "gtft(generous_prob=0.2)"
    assert gtft.key != PolicyAgentSpec(policy="gtft").identity({}).key
    arena = ArenaAgentSpec(path="agents/mine.py")
    first = arena.identity({"agents/mine.py": "ab" * 32})
    assert first.name == "mine@abababab"
    assert arena.identity({"agents/mine.py": "cd" * 32}).key != first.key


# --- what the data do not identify is flagged, never shown as knowledge (issue 42) -------------


def test_an_agent_that_won_every_match_is_flagged_and_its_interval_is_the_priors():
    outcomes = population(["x", "y", "z"], np.array([0.0, 0.3, 0.6]), 0.5, 30, seed=2)
    table = outcomes.table
    # make z win every match it played
    z = next(key for key, agent in outcomes.agents.items() if agent.name == "z")
    matches = table.groupby("match_id")["agent"].transform(lambda agents: (agents == z).any())
    table.loc[matches, "score"] = np.where(table.loc[matches, "agent"] == z, 1.0, 0.0)
    table.loc[matches, "rank"] = np.where(table.loc[matches, "agent"] == z, 1, 2)
    rows = ratings(ladder_table(counted(outcomes), LadderOptions("wins"))).set_index("agent")
    assert not rows.loc["z", "identified"]
    assert rows.loc["z", "flag"].startswith("won every match: no finite rating")
    # the others lost every match against z: their distance from it is the prior's too
    assert rows.loc["x", "flag"].startswith("lost every match against z")
    # the prior's curvature, not the data's: an interval of at least +/- 1 log strength
    assert rows.loc["z", "ci_high"] - rows.loc["z", "ci_low"] > 2 * ELO_SCALE


def test_a_draw_bounds_a_rating_both_ways():
    from pdbench.ladder.ratings import unidentified

    first, second = np.array([0, 0, 1]), np.array([1, 2, 2])
    names = ["x", "y", "z"]
    assert unidentified(first, second, np.array(["a", "a", "a"]), names)[0].startswith("won")
    # x drew with y: no group won every match against the rest
    assert unidentified(first, second, np.array(["draw", "a", "b"]), names) == [None] * 3


def test_a_handful_of_matches_gives_a_wide_flagged_interval_never_a_point():
    """After 4 matches a bootstrap interval was [1769, 1769]: now the interval is as wide as the
    4 matches leave it, and the rating says it rests on few matches."""
    outcomes = population(["p", "q"], np.array([0.0, 0.0]), 0.0, 4, seed=11)
    rows = ratings(ladder_table(counted(outcomes), LadderOptions("wins"))).set_index("agent")
    assert (rows["ci_high"] - rows["ci_low"] > 300).all()  # Elo points, not [1769, 1769]
    assert rows["flag"].str.contains("only 4 matches").all() and not rows["identified"].any()


def test_the_payoff_rating_of_a_complete_round_robin_is_each_agents_mean_payoff():
    from pdbench.ladder.payoff_ratings import payoff_model

    rng = np.random.default_rng(4)
    pairs = [(i, j) for i in range(4) for j in range(4) if i != j for _ in range(3)]
    first, second = np.array(pairs).T
    payoff_first, payoff_second = rng.normal(size=len(first)), rng.normal(size=len(first))
    fit = payoff_model(first, second, payoff_first, payoff_second, 4)
    mean = [
        np.concatenate([payoff_first[first == i], payoff_second[second == i]]).mean()
        for i in range(4)
    ]
    assert fit.rating == pytest.approx(mean, abs=1e-12)
    assert fit.estimable.all() and (fit.ci_low < fit.rating).all()


def test_a_payoff_rating_the_design_does_not_determine_is_flagged_and_not_shown():
    """A star (one hub met three agents that never met each other): what a leaf earns against
    the other leaves is not in the data."""
    hub = ["hub"] * 12
    leaves = [f"leaf{n % 3}" for n in range(12)]
    agents = {
        n: AgentIdentity("policy", n, {"policy": n}) for n in {"hub", "leaf0", "leaf1", "leaf2"}
    }
    rng = np.random.default_rng(0)
    table = outcome_table(
        "pd",
        "star",
        [f"c{n % 3}" for n in range(12)],
        list(range(12)),
        [agents[n].key for n in hub],
        [agents[n].key for n in leaves],
        rng.normal(size=12),
        rng.normal(size=12),
    )
    outcomes = Outcomes(table, {a.key: a for a in agents.values()}, ranked_on={"pd": "payoff"})
    rows = ratings(ladder_table(counted(outcomes), LadderOptions())).set_index("agent")
    assert (rows["ranked_on"] == "payoff").all()
    assert rows.loc["hub", "rating"] == rows.loc["hub", "rating"]  # estimable
    for leaf in ("leaf0", "leaf1", "leaf2"):
        assert np.isnan(rows.loc[leaf, "rating"]) and pd.isna(rows.loc[leaf, "rank"])
        assert "not determined by the design" in rows.loc[leaf, "flag"]


def test_payoffs_the_model_fits_exactly_are_flagged_not_shown_as_certain():
    outcomes = population(["x", "y"], np.array([0.0, 0.0]), 1e6, 12, seed=1)  # all draws
    rows = ratings(ladder_table(counted(outcomes), LadderOptions("payoff"))).set_index("agent")
    assert (rows["ci_high"] == rows["ci_low"]).all()
    assert rows["flag"].str.contains("zero width is no certainty").all()
