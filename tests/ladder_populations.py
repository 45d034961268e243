"""Simulated ladders with known strengths: how often the ladder's intervals hold the truth.

    wins_coverage(WINS_REGIMES["draws, 60 a pair"], populations=500, seed=1)
    payoff_coverage(PAYOFF_REGIMES["10 a pair"], populations=500, seed=1)

Each population is a round robin of agents with known parameters, its outcomes drawn from the
ladder's own model (Bradley-Terry-Davidson for wins, the additive Gaussian model for payoff,
with the departures a regime names), fitted by the ladder's fitting functions; coverage is the
share of (population, agent) intervals that hold the agent's true rating. Vectorised draws,
one fit per population (a few milliseconds).

    uv run python tests/ladder_populations.py 2000     # the table docs/ladder.md shows
"""

from __future__ import annotations

import itertools
import sys
import time
from dataclasses import dataclass

import numpy as np

from pdbench.core.blas import one_blas_thread
from pdbench.ladder.payoff_ratings import group_payoff_model, payoff_model
from pdbench.ladder.rank_ratings import (
    GroupMatches,
    pair_reduction,
    pairs_bradley_terry,
    plackett_luce,
)
from pdbench.ladder.ratings import bradley_terry

STRENGTHS = np.array([-1.2, -0.4, 0.0, 0.5, 1.1])  # log strengths of five agents


@dataclass(frozen=True)
class WinsRegime:
    theta: np.ndarray
    nu: float  # draw propensity (0: no draws)
    per_pair: int  # matches of every pair


WINS_REGIMES = {
    "draws, 60 a pair": WinsRegime(STRENGTHS, 0.6, 60),
    "no draws, 60 a pair": WinsRegime(STRENGTHS, 0.0, 60),
    "draws, 200 a pair": WinsRegime(STRENGTHS, 0.6, 200),
    "spread +/-2, 60 a pair": WinsRegime(np.linspace(-2.0, 2.0, 5), 0.6, 60),
}
# few matches: each agent plays 4 x per_pair matches
FEW_MATCHES_REGIMES = {
    f"draws, {n} a pair ({4 * n} matches an agent)": WinsRegime(STRENGTHS, 0.6, n)
    for n in (1, 2, 3, 5)
}


def round_robin(k: int, per_pair: int) -> tuple[np.ndarray, np.ndarray]:
    pairs = np.array(list(itertools.combinations(range(k), 2)))
    return np.repeat(pairs[:, 0], per_pair), np.repeat(pairs[:, 1], per_pair)


def draw_results(regime: WinsRegime, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """One population's matches (first, second, result) drawn from Bradley-Terry-Davidson."""
    first, second = round_robin(len(regime.theta), regime.per_pair)
    a, b = regime.theta[first], regime.theta[second]
    weights = np.stack([np.exp(a), np.exp(b), regime.nu * np.exp((a + b) / 2)], axis=1)
    chance = np.cumsum(weights / weights.sum(axis=1, keepdims=True), axis=1)
    outcome = (rng.random(len(first))[:, None] > chance).sum(axis=1)
    return first, second, np.array(["a", "b", "draw"])[np.minimum(outcome, 2)]


def wins_coverage(regime: WinsRegime, populations: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    truth = regime.theta - regime.theta.mean()
    inside = 0
    with one_blas_thread():
        for _ in range(populations):
            first, second, result = draw_results(regime, rng)
            fit = bradley_terry(first, second, result, len(truth))
            inside += int(np.sum((fit.ci_low <= truth) & (truth <= fit.ci_high)))
    return inside / (populations * len(truth))


@dataclass(frozen=True)
class PayoffRegime:
    per_pair: int
    seat_correlation: float = 0.0  # the two seats' noise in a match (the model assumes none)
    missing_pairs: float = 0.0  # share of the pairs that never met (an unbalanced ladder)


EARN = np.array([-1.0, -0.5, 0.0, 0.2, 0.6, 0.7])
CONCEDE = np.array([0.3, -0.2, 0.5, -0.4, 0.1, -0.3])
PAYOFF_REGIMES = {
    "10 a pair": PayoffRegime(10),
    "2 a pair": PayoffRegime(2),
    "seats correlated +0.5": PayoffRegime(10, seat_correlation=0.5),
    "seats correlated -0.5": PayoffRegime(10, seat_correlation=-0.5),
    "30% of pairs never met": PayoffRegime(10, missing_pairs=0.3),
}


def payoff_coverage(regime: PayoffRegime, populations: int, seed: int) -> float:
    """Coverage of the estimable ratings (payoff against the others, each met equally)."""
    rng = np.random.default_rng(seed)
    k, mean = len(EARN), 2.0
    truth = np.array([mean + EARN[i] - np.delete(CONCEDE, i).mean() for i in range(k)])
    inside = counted = 0
    for _ in range(populations):
        first, second = round_robin(k, regime.per_pair)
        if regime.missing_pairs:
            met = rng.random(k * k).reshape(k, k) >= regime.missing_pairs
            keep = met[first, second]
            first, second = first[keep], second[keep]
        one = rng.normal(size=len(first))
        two = regime.seat_correlation * one + np.sqrt(1 - regime.seat_correlation**2) * rng.normal(
            size=len(first)
        )
        fit = payoff_model(
            first,
            second,
            mean + EARN[first] - CONCEDE[second] + one,
            mean + EARN[second] - CONCEDE[first] + two,
            k,
        )
        held = (fit.ci_low <= truth) & (truth <= fit.ci_high)
        inside += int(np.sum(held[fit.estimable]))
        counted += int(np.sum(fit.estimable))
    return inside / counted


@dataclass(frozen=True)
class GroupRegime:
    theta: np.ndarray
    matches: int  # matches of `seats` agents drawn at random from the population
    seats: int
    tie_share: float = 0.0  # share of matches with two places tied (their order hidden)
    tie_place: int = 0  # the better of the two tied places (0: the last two)


GROUP_REGIMES = {
    "4 players, 300 matches": GroupRegime(STRENGTHS, 300, 4),
    "4 players, 60 matches": GroupRegime(STRENGTHS, 60, 4),
    "4 players, 300 matches, 30% tie last": GroupRegime(STRENGTHS, 300, 4, tie_share=0.3),
    "4 players, 300 matches, 30% tie 2nd": GroupRegime(STRENGTHS, 300, 4, 0.3, tie_place=2),
    "3 players, spread +/-2, 200 matches": GroupRegime(np.linspace(-2.0, 2.0, 5), 200, 3),
}


def draw_orders(regime: GroupRegime, rng: np.random.Generator) -> GroupMatches:
    """One population's matches, orders drawn from Plackett-Luce (the order of theta + Gumbel
    noise is a Plackett-Luce order), two places of a share of them tied (scores equal: which of
    the two was better is hidden)."""
    k, n, seats = len(regime.theta), regime.matches, regime.seats
    players = np.argsort(rng.random((n, k)), axis=1)[:, :seats]
    utility = regime.theta[players] + rng.gumbel(size=players.shape)
    rank = np.argsort(np.argsort(-utility, axis=1), axis=1) + 1
    tied = rng.random(n) < regime.tie_share
    place = regime.tie_place or seats - 1
    rank[tied] = np.where(rank[tied] == place + 1, place, rank[tied])
    return GroupMatches.from_rows(np.repeat(np.arange(n), seats), players.ravel(), rank.ravel())


def group_coverage(regime: GroupRegime, populations: int, seed: int, model: str = "pl") -> float:
    """Coverage of the N-player ratings on wins: Plackett-Luce ("pl"), or the pair reduction
    fitted by Bradley-Terry-Davidson with intervals clustered by match ("pairs") or plain
    ("pairs, plain Wald": the pairs taken as independent). The truth is theta, also for the
    pairs (with ties, the pair reduction's target is not exactly theta)."""
    rng = np.random.default_rng(seed)
    truth = regime.theta - regime.theta.mean()
    k = len(truth)
    inside = 0
    with one_blas_thread():
        for _ in range(populations):
            matches = draw_orders(regime, rng)
            if model == "pl":
                fit = plackett_luce(matches, k)
            elif model == "pairs":
                fit = pairs_bradley_terry(matches, k)
            else:  # "pairs, plain Wald": the pairs taken as independent
                fit = bradley_terry(*pair_reduction(matches), k)
            inside += int(np.sum((fit.ci_low <= truth) & (truth <= fit.ci_high)))
    return inside / (populations * k)


@dataclass(frozen=True)
class GroupPayoffRegime:
    matches: int  # matches of `seats` of the six agents, drawn at random
    seats: int
    shared_sd: float = 0.0  # a match's noise shared by its seats (one pot), beside unit noise


GROUP_PAYOFF_REGIMES = {
    "4 players, 200 matches": GroupPayoffRegime(200, 4),
    "4 players, 200 matches, shared noise sd 1": GroupPayoffRegime(200, 4, shared_sd=1.0),
}


def group_payoff_coverage(regime: GroupPayoffRegime, populations: int, seed: int) -> float:
    """Coverage of the N-player payoff ratings (payoff = mu + earn_me - mean of the others'
    concede + noise), the noise independent or partly shared by a match's seats."""
    rng = np.random.default_rng(seed)
    k, mean, n, seats = len(EARN), 2.0, regime.matches, regime.seats
    truth = np.array([mean + EARN[i] - np.delete(CONCEDE, i).mean() for i in range(k)])
    inside = counted = 0
    for _ in range(populations):
        players = np.argsort(rng.random((n, k)), axis=1)[:, :seats]
        conceded = CONCEDE[players]
        others = (conceded.sum(axis=1, keepdims=True) - conceded) / (seats - 1)
        shared = regime.shared_sd * rng.normal(size=(n, 1))
        payoff = mean + EARN[players] - others + shared + rng.normal(size=players.shape)
        fit = group_payoff_model(np.repeat(np.arange(n), seats), players.ravel(), payoff.ravel(), k)
        held = (fit.ci_low <= truth) & (truth <= fit.ci_high)
        inside += int(np.sum(held[fit.estimable]))
        counted += int(np.sum(fit.estimable))
    return inside / counted


if __name__ == "__main__":
    populations = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print(f"| ladder | regime | coverage of 95% intervals ({populations} populations) | CPU s |")
    print("|---|---|---|---|")
    for name, regime in {**WINS_REGIMES, **FEW_MATCHES_REGIMES}.items():
        start = time.process_time()
        coverage = wins_coverage(regime, populations, seed=1)
        print(f"| wins | {name} | {coverage:.3f} | {time.process_time() - start:.1f} |")
    for name, group_regime in GROUP_REGIMES.items():
        for model in ("pl", "pairs", "pairs, plain Wald"):
            start = time.process_time()
            coverage = group_coverage(group_regime, populations, seed=1, model=model)
            print(
                f"| wins, N players ({model}) | {name} | {coverage:.3f} "
                f"| {time.process_time() - start:.1f} |"
            )
    for name, payoff_regime in PAYOFF_REGIMES.items():
        start = time.process_time()
        coverage = payoff_coverage(payoff_regime, populations, seed=1)
        print(f"| payoff | {name} | {coverage:.3f} | {time.process_time() - start:.1f} |")
    for name, group_payoff_regime in GROUP_PAYOFF_REGIMES.items():
        start = time.process_time()
        coverage = group_payoff_coverage(group_payoff_regime, populations, seed=1)
        elapsed = time.process_time() - start
        print(f"| payoff, N players | {name} | {coverage:.3f} | {elapsed:.1f} |")
