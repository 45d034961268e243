"""Coverage of the intervals pdbench reports, by simulation: the numbers docs/metrics.md quotes.

    uv run python benchmarks/interval_coverage.py            # ~5 min on one core
    uv run python benchmarks/interval_coverage.py --quick    # fewer trials, ~1 min

Each case draws samples with a known truth (seeded), computes the interval pdbench reports and,
beside it, the one it replaced, and prints the share of samples whose interval holds the truth,
with its binomial standard error. The unit tests (tests/unit/test_interval_coverage.py) check a
few of these cases cheaply; this sweeps more regimes, with more trials, including those where an
interval does not reach its nominal rate.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import zlib
from collections.abc import Callable

import numpy as np
from scipy.special import expit, logit

from pdbench.analysis.judging.kappa import (
    chance_corrected,
    cohen_rows,
    fleiss_rows,
    kappa_with_interval,
)
from pdbench.analysis.stats.bounded import (
    paired_rate_difference_interval,
    rate_mean_interval,
    unpaired_rate_difference_interval,
)
from pdbench.analysis.stats.intervals import paired_t_interval, t_quantile, welch_interval
from pdbench.analysis.stats.lengths import geometric_length_interval

Interval = tuple[np.ndarray, np.ndarray]


def covered(interval: Interval, truth: float) -> str:
    low, high = interval
    share = float(np.mean((low <= truth) & (truth <= high)))
    return f"{share:.3f}"


def t_interval(values: np.ndarray) -> Interval:
    n = values.shape[-1]
    half = t_quantile(0.95, n - 1) * values.std(axis=-1, ddof=1) / math.sqrt(n)
    return values.mean(axis=-1) - half, values.mean(axis=-1) + half


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    print(f"\n### {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    sys.stdout.flush()


# --- match lengths under a geometric horizon -----------------------------------------------------


def lengths(trials: int) -> None:
    rows = []
    for stop, cap in ((0.5, None), (0.3, None), (0.1, None), (0.05, None), (0.02, None),
                      (0.1, 20), (0.1, 10), (0.05, 10)):  # fmt: skip
        truth = 1 / stop if cap is None else (1 - (1 - stop) ** cap) / stop
        for n in (3, 5, 10, 30):
            rng = np.random.default_rng(int(1000 * stop) + n + (cap or 0))
            drawn = rng.geometric(stop, (trials, n))
            drawn = drawn if cap is None else np.minimum(drawn, cap)
            t_low, t_high = t_interval(drawn.astype(float))
            clipped = (np.maximum(t_low, 1), np.minimum(t_high, drawn.max(axis=1)))
            rows.append([
                f"{stop}" + (f", cap {cap}" if cap else ""), f"{truth:.2f}", str(n),
                covered(geometric_length_interval(drawn, cap), truth),
                covered((t_low, t_high), truth), covered(clipped, truth),
            ])  # fmt: skip
    table(
        f"n_rounds under a geometric horizon ({trials:,} samples per row)",
        ["stop prob", "mean", "n", "pdbench (mid-p)", "Student t", "t clipped at longest (old)"],
        rows,
    )


# --- rates ---------------------------------------------------------------------------------------


def match_rates(rng, mean: float, latent: np.ndarray, rounds: int) -> np.ndarray:
    """Rates of matches of `rounds` Bernoulli rounds whose propensity varies on the logit scale
    (a replicate effect `latent`, shared with a paired condition, plus the match's own)."""
    own = rng.normal(0, 0.3, latent.shape)
    return rng.binomial(rounds, expit(logit(mean) + 0.8 * latent + own)) / rounds


def true_mean(mean: float) -> float:
    rng = np.random.default_rng(99)
    draws = 2_000_000
    return float(
        expit(logit(mean) + 0.8 * rng.normal(size=draws) + rng.normal(0, 0.3, draws)).mean()
    )


def rate_means(trials: int) -> None:
    regimes: list[tuple[str, Callable, float]] = []
    for mean in (0.5, 0.7, 0.85, 0.95, 0.99):
        for rounds in (10, 30):
            regimes.append((
                f"{rounds}-round matches, mean {mean}",
                lambda rng, n, m=mean, r=rounds: match_rates(rng, m, rng.normal(size=(trials, n)), r),
                true_mean(mean),
            ))  # fmt: skip
    for mean in (0.5, 0.9):
        regimes.append((
            f"0/1 per match, mean {mean}",
            lambda rng, n, m=mean: (rng.random((trials, n)) < m).astype(float), mean,
        ))  # fmt: skip
    regimes.append(
        ("Beta(3.6, 0.4) (skewed), mean 0.9", lambda rng, n: rng.beta(3.6, 0.4, (trials, n)), 0.9)
    )
    rows = []
    for name, draw, truth in regimes:
        for n in (3, 5, 10, 30):
            values = draw(np.random.default_rng(zlib.crc32(f"{name} {n}".encode())), n)
            low, high = t_interval(values)
            rows.append([
                name, str(n), covered(rate_mean_interval(values), truth),
                covered((np.clip(low, 0, 1), np.clip(high, 0, 1)), truth),
            ])  # fmt: skip
    table(
        f"a condition's rate (mean of per-match rates; {trials:,} samples per row)",
        ["per-match rates", "n", "pdbench (Wilson, effective n)", "t clipped to [0, 1] (old)"],
        rows,
    )


def rate_differences(trials: int) -> None:
    rows = []
    for mean_a, mean_b, rounds in ((0.5, 0.6, 10), (0.9, 0.3, 10), (0.95, 0.05, 10),
                                   (0.98, 0.9, 30), (0.7, 0.7, 20), (0.99, 0.97, 10)):  # fmt: skip
        truth = true_mean(mean_b) - true_mean(mean_a)
        for n in (3, 5, 10, 30):
            rng = np.random.default_rng(n + int(1000 * mean_a) + int(100 * mean_b))
            latent = rng.normal(size=(trials, n))
            a = match_rates(rng, mean_a, latent, rounds)
            b = match_rates(rng, mean_b, latent, rounds)
            b_alone = match_rates(rng, mean_b, rng.normal(size=(trials, n)), rounds)
            welch = welch_interval(a, b_alone)
            paired_t = paired_t_interval(b - a)
            rows.append([
                f"{mean_a} vs {mean_b}, {rounds} rounds", str(n),
                covered(paired_rate_difference_interval(a, b), truth), covered(paired_t, truth),
                f"{float(np.mean(paired_t[0] < -1) + np.mean(paired_t[1] > 1)):.3f}",
                covered(unpaired_rate_difference_interval(a, b_alone, welch.df), truth),
                covered((welch.low, welch.high), truth),
            ])  # fmt: skip
    table(
        f"a difference of two conditions' rates ({trials:,} samples per row)",
        ["rates (A vs B)", "n", "paired: pdbench", "paired: t (old)", "t outside [-1, 1]",
         "unpaired: pdbench (MOVER)", "unpaired: Welch t (old)"],
        rows,
    )  # fmt: skip


# --- kappas --------------------------------------------------------------------------------------


def panels(rng, trials: int, items: int, judges: int, prevalence: float, accuracy: float):
    truth = rng.random((trials, items)) < prevalence
    right = rng.random((trials, items, judges)) < accuracy
    return np.where(right, truth[..., None], ~truth[..., None]).astype(int)


def kappas(trials: int, resamples: int) -> None:
    rows = []
    for judges in (2, 3, 5):
        for prevalence, accuracy in ((0.5, 0.85), (0.3, 0.9), (0.5, 0.7), (0.2, 0.95)):
            big = panels(np.random.default_rng(0), 1, 400_000, judges, prevalence, accuracy)[0]
            counts_big = np.stack([(big == c).sum(axis=1) for c in (0, 1)], axis=1)
            truth = float(
                chance_corrected(*cohen_rows(big[:, 0], big[:, 1]))
                if judges == 2
                else chance_corrected(*fleiss_rows(counts_big))
            )
            for items in (16, 40, 80):
                rng = np.random.default_rng(items + judges + int(100 * accuracy))
                jack = percentile = defined = 0
                for panel in panels(rng, trials, items, judges, prevalence, accuracy):
                    if judges == 2:
                        agreement = lambda rows, p=panel: cohen_rows(p[rows, 0], p[rows, 1])  # noqa: E731
                    else:
                        counts = np.stack([(panel == c).sum(axis=1) for c in (0, 1)], axis=1)
                        agreement = lambda rows, c=counts: fleiss_rows(c[rows])  # noqa: E731
                    kappa = kappa_with_interval(agreement, items)
                    if math.isnan(kappa.low):
                        continue
                    defined += 1
                    jack += kappa.low <= truth <= kappa.high
                    if kappa.value == 1.0:  # every item agreed on: the bootstrap says [1, 1]
                        percentile += truth == 1.0
                        continue
                    boot = chance_corrected(*agreement(rng.integers(0, items, (resamples, items))))
                    low, high = np.nanpercentile(boot, [2.5, 97.5])
                    percentile += low <= truth <= high
                rows.append([
                    "Cohen" if judges == 2 else f"Fleiss, {judges} judges",
                    f"{prevalence:.0%} / {accuracy:.0%}", f"{truth:.2f}", str(items),
                    f"{jack / defined:.3f}", f"{percentile / defined:.3f}",
                ])  # fmt: skip
    table(
        f"kappas ({trials:,} panels per row; percentile bootstrap with {resamples:,} resamples)",
        ["kappa", "class share / judge accuracy", "kappa", "items", "pdbench (jackknife t)",
         "percentile bootstrap (old)"],
        rows,
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer trials (about a minute)")
    parser.add_argument("--only", default="lengths,rates,differences,kappas")
    args = parser.parse_args()
    trials, panels_per_row = (4_000, 300) if args.quick else (20_000, 2_000)
    started = time.process_time()
    print(f"standard error of a 0.95 coverage: {math.sqrt(0.95 * 0.05 / trials):.4f} "
          f"({trials:,} samples), {math.sqrt(0.95 * 0.05 / panels_per_row):.4f} "
          f"({panels_per_row:,} panels)")  # fmt: skip
    chosen = args.only.split(",")
    if "lengths" in chosen:
        lengths(trials)
    if "rates" in chosen:
        rate_means(trials)
    if "differences" in chosen:
        rate_differences(trials)
    if "kappas" in chosen:
        kappas(panels_per_row, resamples=1_000)
    print(f"\nCPU: {time.process_time() - started:.0f} s")


if __name__ == "__main__":
    main()
