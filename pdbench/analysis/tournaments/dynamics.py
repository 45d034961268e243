"""Population dynamics on a measured payoff matrix: replicator, Moran, and Payne's generations.

`payoffs[i, j]` is the mean payoff per round of strategy i against strategy j (the tournament's
payoff matrix). Nothing here plays a match: the dynamics run offline on that matrix, seeded and
vectorised with numpy.

- Discrete replicator dynamics (Taylor and Jonker 1978; Nowak 2006, ch. 4):
  x_i(t+1) = x_i(t) (A x(t))_i / (x(t)' A x(t)), which keeps x on the simplex. It needs positive
  payoffs: when the smallest entry is <= 0 the matrix is shifted by 1 - min(A) (so its smallest
  entry becomes 1) unless a shift is given. A shift leaves the rest points where they are but changes
  the speed of the discrete dynamics.
- Moran process, birth-death (Moran 1958; Nowak 2006, ch. 6; Axelrod's MoranProcess, mode "bd"):
  N individuals; an individual of type i earns the mean of payoffs[i, j] over the N - 1 others
  (no self-interaction) and has fitness 1 - w + w * payoff (selection intensity w in [0, 1]; w = 0
  is neutral drift). Each step one individual is chosen to reproduce with probability proportional
  to fitness; with probability `mutation_rate` the offspring is a uniformly chosen *other* type
  (Axelrod's "transition" mutation); the offspring replaces an individual chosen uniformly among
  all N (possibly its parent). If every individual has fitness 0 the parent is chosen uniformly.
  Without mutation a run ends when one type is fixed; fixation probabilities come with Wilson
  intervals over the runs. `moran_fixation_probability` gives the exact two-type value
  (Nowak 2006, eq. 6.13 with frequency-dependent fitness, Taylor et al. 2004), and
  `selection_against_neutral` says from it whether selection favours the mutant (exact above 1/N),
  opposes it (below) or is neutral: where the exact value exists, it decides, not the simulation's
  interval (which excludes 1/N by chance in about 5 % of neutral pairs).
- Payne and Alloui-Cros' generations (arXiv 2507.02618, their code evolutionary_PD_expanded.py,
  `evolve_population`): every generation the whole population plays a round robin (each individual
  against every other one) and each type's fitness is its average score per move, here the mean of
  payoffs[i, j] over the other N - 1 individuals. The next counts are n_i * (f_i / mean f)^exponent
  (mean over the types present), rounded, then brought back to N by taking one individual at a time
  from the least fit type still present, or giving one to the fittest. The paper says
  "in proportion to average score per move" (exponent 1, the default); their code squares the
  relative fitness (exponent 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdbench.analysis.stats.intervals import wilson_interval


def _square(payoffs: np.ndarray) -> np.ndarray:
    matrix = np.asarray(payoffs, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or not np.isfinite(matrix).all():
        raise ValueError(f"payoffs must be a finite square matrix, got shape {matrix.shape}")
    return matrix


def _counts(start_counts: np.ndarray, k: int) -> np.ndarray:
    counts = np.asarray(start_counts)
    if counts.shape != (k,) or (counts < 0).any() or not np.array_equal(counts, np.round(counts)):
        raise ValueError(f"counts must be {k} non-negative whole numbers, got {start_counts}")
    if counts.sum() < 2:
        raise ValueError("a population needs at least 2 individuals")
    return counts.astype(np.int64)


@dataclass(frozen=True)
class ReplicatorTrajectory:
    shares: np.ndarray  # (generations + 1, k), row 0 is the start
    shift: float  # added to every payoff before iterating


def replicator_trajectory(
    payoffs: np.ndarray, start: np.ndarray, generations: int, *, shift: float | None = None
) -> ReplicatorTrajectory:
    """Discrete replicator dynamics from `start` (shares, or counts: normalised to sum 1)."""
    matrix = _square(payoffs)
    x = np.asarray(start, dtype=float)
    if x.shape != (len(matrix),) or (x < 0).any() or x.sum() <= 0:
        raise ValueError(f"start must be {len(matrix)} non-negative numbers, not all zero")
    if shift is None:
        shift = 0.0 if matrix.min() > 0 else 1.0 - float(matrix.min())
    shifted = matrix + shift
    if shifted.min() <= 0:
        raise ValueError(f"payoffs + shift must be positive; the smallest is {shifted.min()}")
    shares = np.empty((generations + 1, len(matrix)))
    shares[0] = x / x.sum()
    for t in range(generations):
        x = shares[t]
        fitness = shifted @ x
        x = x * fitness / (x @ fitness)
        shares[t + 1] = x / x.sum()  # guards the simplex against rounding drift
    return ReplicatorTrajectory(shares, float(shift))


def _moran_step(
    counts: np.ndarray,
    payoffs: np.ndarray,
    selection_intensity: float,
    mutation_rate: float,
    rng: np.random.Generator,
) -> None:
    """One birth-death step of every run (rows of `counts`), in place."""
    runs, k = counts.shape
    size = int(counts[0].sum())
    # Mean payoff of an individual of each type against the other size - 1 individuals.
    payoff = (counts @ payoffs.T - np.diag(payoffs)) / (size - 1)
    weight = counts * (1 - selection_intensity + selection_intensity * payoff)
    weight = np.where(weight.sum(axis=1, keepdims=True) > 0, weight, counts)
    draws = rng.random((runs, 4))
    cumulative = np.cumsum(weight, axis=1)
    parent = (cumulative <= (draws[:, 0] * cumulative[:, -1])[:, None]).sum(axis=1)
    child = np.minimum(parent, k - 1)
    if mutation_rate > 0:
        other = (child + 1 + (draws[:, 2] * (k - 1)).astype(np.int64)) % k
        child = np.where(draws[:, 1] < mutation_rate, other, child)
    dead = (np.cumsum(counts, axis=1) <= (draws[:, 3] * size)[:, None]).sum(axis=1)
    rows = np.arange(runs)
    counts[rows, child] += 1
    counts[rows, np.minimum(dead, k - 1)] -= 1


def _check_moran(payoffs: np.ndarray, selection_intensity: float, mutation_rate: float) -> None:
    if not 0 <= selection_intensity <= 1:
        raise ValueError(f"selection intensity must be in [0, 1], got {selection_intensity}")
    if not 0 <= mutation_rate <= 1:
        raise ValueError(f"mutation rate must be in [0, 1], got {mutation_rate}")
    lowest = 1 - selection_intensity + selection_intensity * payoffs.min()
    if lowest < 0:
        # 1 - w + w m >= 0 for the lowest payoff m < 0 when w <= 1 / (1 - m)
        most = 1 / (1 - float(payoffs.min()))
        raise ValueError(
            f"fitness 1 - w + w * payoff goes negative ({lowest:g}; the lowest payoff is "
            f"{float(payoffs.min()):g}): lower w to at most {most:.4g} (--selection) or shift "
            "the payoffs"
        )


@dataclass(frozen=True)
class MoranFixation:
    """Fixation over `n_runs` seeded runs of a Moran process without mutation."""

    fixed_type: np.ndarray  # (n_runs,) the type that took over, -1 if none within max_steps
    steps: np.ndarray  # (n_runs,) steps until fixation, -1 if none
    fixation_counts: np.ndarray  # (k,)
    fixation_probability: np.ndarray  # (k,) fixation_counts / n_runs
    ci_low: np.ndarray  # Wilson interval over the n_runs runs
    ci_high: np.ndarray
    unfinished: int  # runs still mixed after max_steps (counted in no type's fixation)
    n_runs: int
    population_size: int
    seed: int


def moran_fixation(
    payoffs: np.ndarray,
    start_counts: np.ndarray,
    *,
    selection_intensity: float = 1.0,
    n_runs: int = 1000,
    seed: int = 0,
    max_steps: int | None = None,
    confidence: float = 0.95,
) -> MoranFixation:
    """Run `n_runs` Moran processes from `start_counts` until one type is fixed (module doc).

    Runs are vectorised; those that fixed drop out of the step loop. `max_steps` defaults to
    50 N^2 + 1000, far beyond the expected fixation time (of order N^2 steps at most)."""
    matrix = _square(payoffs)
    counts0 = _counts(start_counts, len(matrix))
    _check_moran(matrix, selection_intensity, 0.0)
    size = int(counts0.sum())
    limit = 50 * size * size + 1000 if max_steps is None else max_steps
    rng = np.random.Generator(np.random.PCG64(seed))
    counts = np.tile(counts0, (n_runs, 1))
    fixed_type = np.where((counts == size).any(axis=1), counts.argmax(axis=1), -1)
    steps = np.where(fixed_type >= 0, 0, -1)
    active = np.flatnonzero(fixed_type < 0)
    step = 0
    while active.size and step < limit:
        step += 1
        running = counts[active]
        _moran_step(running, matrix, selection_intensity, 0.0, rng)
        counts[active] = running
        done = (running == size).any(axis=1)
        fixed_type[active[done]] = running[done].argmax(axis=1)
        steps[active[done]] = step
        active = active[~done]
    fixation_counts = np.bincount(fixed_type[fixed_type >= 0], minlength=len(matrix))
    low, high = wilson_interval(fixation_counts, n_runs, confidence)
    return MoranFixation(
        fixed_type=fixed_type,
        steps=steps,
        fixation_counts=fixation_counts,
        fixation_probability=fixation_counts / n_runs,
        ci_low=low,
        ci_high=high,
        unfinished=int(active.size),
        n_runs=n_runs,
        population_size=size,
        seed=seed,
    )


def moran_shares(
    payoffs: np.ndarray,
    start_counts: np.ndarray,
    *,
    generations: int,
    selection_intensity: float = 1.0,
    mutation_rate: float = 0.0,
    n_runs: int = 100,
    seed: int = 0,
) -> np.ndarray:
    """Mean share of each type over `n_runs` runs after every generation (N steps) of a Moran
    process with mutation; (generations + 1, k), row 0 the start."""
    matrix = _square(payoffs)
    counts0 = _counts(start_counts, len(matrix))
    _check_moran(matrix, selection_intensity, mutation_rate)
    size = int(counts0.sum())
    rng = np.random.Generator(np.random.PCG64(seed))
    counts = np.tile(counts0, (n_runs, 1))
    shares = np.empty((generations + 1, len(matrix)))
    shares[0] = counts0 / size
    for generation in range(1, generations + 1):
        for _ in range(size):
            _moran_step(counts, matrix, selection_intensity, mutation_rate, rng)
        shares[generation] = counts.mean(axis=0) / size
    return shares


def moran_fixation_probability(
    payoffs: np.ndarray,
    population_size: int,
    *,
    mutants: int = 1,
    selection_intensity: float = 1.0,
) -> float:
    """Exact probability that type 0, starting with `mutants` individuals among
    `population_size`, takes over from type 1 (2 x 2 payoffs, no mutation):
    (1 + sum_{j<m} prod_{i<=j} g_i/f_i) / (1 + sum_{j<N} prod_{i<=j} g_i/f_i), with f_i and g_i the
    fitnesses of type 0 and type 1 when i individuals are of type 0."""
    (a, b), (c, d) = _square(payoffs)
    size, w = population_size, selection_intensity
    i = np.arange(1, size)
    f = 1 - w + w * ((i - 1) * a + (size - i) * b) / (size - 1)
    g = 1 - w + w * (i * c + (size - i - 1) * d) / (size - 1)
    with np.errstate(
        divide="ignore", invalid="ignore"
    ):  # a negative fitness: refused by the caller
        products = np.exp(np.cumsum(np.log(g) - np.log(f)))  # prod_{i<=j} g_i / f_i, j = 1..N-1
    return float((1 + products[: mutants - 1].sum()) / (1 + products.sum()))


def selection_against_neutral(exact: float, population_size: int, rtol: float = 1e-9) -> str:
    """ "favoured", "disfavoured" or "neutral": the exact fixation probability of one mutant
    against neutral drift's 1/N, equal within `rtol` (relative; rounding of equal fitnesses)."""
    neutral = 1.0 / population_size
    if abs(exact - neutral) <= rtol * neutral:
        return "neutral"
    return "favoured" if exact > neutral else "disfavoured"


@dataclass(frozen=True)
class Generations:
    counts: np.ndarray  # (generations + 1, k) individuals of each type, row 0 the start
    fitness: np.ndarray  # (generations, k) average score per move; NaN for absent types

    @property
    def shares(self) -> np.ndarray:
        return self.counts / self.counts[0].sum()


def payne_generations(
    payoffs: np.ndarray, initial_counts: np.ndarray, generations: int, *, exponent: float = 1.0
) -> Generations:
    """Payne and Alloui-Cros' reproduction, deterministic on the payoff matrix (module doc)."""
    matrix = _square(payoffs)
    if matrix.min() < 0:
        raise ValueError("Payne's reproduction needs non-negative payoffs; shift them first")
    counts = _counts(initial_counts, len(matrix))
    size = int(counts.sum())
    history = np.empty((generations + 1, len(matrix)), dtype=np.int64)
    fitness_history = np.full((generations, len(matrix)), np.nan)
    history[0] = counts
    for generation in range(generations):
        present = counts > 0
        fitness = (matrix @ counts - np.diag(matrix)) / (size - 1)
        mean_fitness = fitness[present].mean()
        if mean_fitness <= 0:
            raise ValueError(f"generation {generation + 1}: every present type scored 0")
        fitness_history[generation, present] = fitness[present]
        raw = np.where(present, counts * (fitness / mean_fitness) ** exponent, 0.0)
        new = np.round(raw).astype(np.int64)
        order = np.argsort(fitness, kind="stable")  # least fit first; ties in type order
        while new.sum() > size:
            least_fit = next(i for i in order if new[i] > 0)
            new[least_fit] -= 1
        fittest = next(i for i in np.argsort(-fitness, kind="stable") if present[i])
        new[fittest] += size - new.sum()
        counts = new
        history[generation + 1] = counts
    return Generations(history, fitness_history)
