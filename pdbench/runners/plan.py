"""The plan: every (condition, replicate) match with its seeds and length, fixed before play.

Seeds come from the run's deal, `deal.derive(run seed, replicate, stream)` (keyed by the run's
secret deal key: pdbench.core.rng; common random numbers: the same in every condition), and a
geometric horizon's length is drawn here from the match's own horizon stream, so the plan of one
condition does not depend on any other condition or on the order of execution.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pdbench.config.schema import ConditionSpec, ExperimentSpec
from pdbench.core import rng
from pdbench.core.horizon import FixedHorizon, GeometricHorizon
from pdbench.games.base import FixedLength, draws_from_game_seed, fixed_length
from pdbench.games.registry import game_entry
from pdbench.storage.manifest import Sampling


@dataclass(frozen=True)
class PlannedMatch:
    condition: ConditionSpec
    replicate: int  # from 0
    n_rounds: int
    horizon_seed: int
    seed_a: int
    seed_b: int
    # The rules the match is played with (`games.base.TurnGame`): a turn game's variant, whose
    # matches end by the rules (or at game.max_turns: the horizon does not apply); a 2x2 game's
    # `games.matrix.rules.MatrixGame` with the condition's table, this match's length (a
    # geometric horizon's drawn one) and its noise. Matches of the same length share one.
    rules: Any
    horizon: FixedHorizon | GeometricHorizon
    # The run's deal, for the streams derived while the match is played (an LLM agent's option
    # order and mock draws, a third party's seed): keyed like the seeds above.
    deal: rng.Deal
    # The trembling hand: the probability each intended action is flipped, and each side's seed
    # for its flips (derived like every stream, so the same in every condition).
    noise: float = 0.0
    noise_seed_a: int = 0
    noise_seed_b: int = 0
    # The seed of the match's chance (a turn game's dice), for replays.
    game_seed: int = 0

    @property
    def game_id(self) -> str:
        return self.condition.game.id

    @property
    def noise_seeds(self) -> tuple[int, int]:
        return (self.noise_seed_a, self.noise_seed_b)

    @property
    def key(self) -> tuple[str, int]:
        return (self.condition.name, self.replicate)

    @property
    def seeds(self) -> dict[str, int]:
        seeds = {"horizon": self.horizon_seed, "agent_a": self.seed_a, "agent_b": self.seed_b}
        if draws_from_game_seed(self.rules):  # its chance (dice, a secret word), for replays
            seeds["game"] = self.game_seed
        return seeds

    @property
    def horizon_length(self) -> FixedLength | None:
        """The length the condition's horizon set for this match (a geometric one drawn in the
        plan), known before play: its rules' fixed length; None when the game's rules end its
        matches (`TurnGameEntry.horizon_sets_length` False: the horizon does not apply)."""
        if not game_entry(self.game_id).horizon_sets_length:
            return None
        return fixed_length(self.rules)

    @property
    def turn_cap(self) -> int | None:
        """game.max_turns, the most turns the match may take before it is stopped as aborted;
        None when its horizon sets its length (its rules end it then: the cap is unused)."""
        if self.horizon_length is not None:
            return None
        return self.condition.game.max_turns

    @property
    def most_turns(self) -> int:
        """The most turns the match can take: the length its rules fix, at most the turn cap
        (game.max_turns), which is also the bound of rules that fix none."""
        horizon = self.horizon_length
        if horizon is not None:
            return horizon.turns
        length, cap = fixed_length(self.rules), self.condition.game.max_turns
        return cap if length is None else min(length.turns, cap)

    @property
    def max_llm_calls(self) -> int:
        """Upper bound on provider calls: every LLM agent, every turn it can be asked (every
        retry of a decision, one call per talk turn), at most the turn cap."""
        match_turns = self.most_turns  # rules that fix the length bound it closer
        length = fixed_length(self.rules)
        seat_turns = match_turns if length is None else min(length.turns_per_seat, match_turns)
        talks = 0 if length is None else length.talks_per_round
        # a seat's rounds: one decision (every retry) and its talk turns (a call each)
        seat_rounds = -(-seat_turns // (1 + talks))
        players = self.condition.players
        return sum(
            seat_rounds * agent.provider_calls_per_round(talks)
            if field in players
            else match_turns * agent.provider_calls_per_round(0)  # a third party: any turn
            for field, agent in self.condition.agents.items()
        )


def _length(horizon: FixedHorizon | GeometricHorizon, horizon_seed: int) -> int:
    if isinstance(horizon, FixedHorizon):  # no draw, so no generator to build
        return horizon.rounds
    return horizon.sample_length(rng.make_rng(horizon_seed))


def plan_matches(spec: ExperimentSpec, deal: rng.Deal) -> list[PlannedMatch]:
    """Every match of `spec`, dealt with `deal` (the run's key: pdbench.runners.deal)."""
    seed = spec.run.seed
    # Every stream depends on (key, run seed, replicate, stream) only, so replicate r has the
    # same seeds in every condition: derived once per replicate, not once per match.
    streams = (
        rng.HORIZON,
        rng.agent_stream("a"),
        rng.agent_stream("b"),
        rng.side_stream(rng.NOISE, "a"),
        rng.side_stream(rng.NOISE, "b"),
        rng.GAME,
    )
    seeds = [
        [deal.derive(seed, replicate, stream) for stream in streams]
        for replicate in range(spec.run.replicates)
    ]
    plan = []
    for condition in spec.conditions:
        horizon = condition.horizon.build()
        # a game whose rules end a match (a die count, a verdict) is capped by game.max_turns;
        # otherwise each match's length is the horizon's draw
        rules_end_matches = not condition.game.horizon_sets_length
        rules_of = condition.game.rules_builder(rounds_shown=horizon.type == "fixed")
        rules_by_length: dict[int, Any] = {}  # one rules object per length the matches draw
        for replicate, (horizon_seed, seed_a, seed_b, noise_a, noise_b, game_seed) in enumerate(
            seeds
        ):
            n_rounds = (
                condition.game.max_turns if rules_end_matches else _length(horizon, horizon_seed)
            )
            rules = rules_by_length.get(n_rounds)
            if rules is None:
                rules = rules_by_length[n_rounds] = rules_of(n_rounds)
            plan.append(
                PlannedMatch(
                    condition=condition,
                    replicate=replicate,
                    n_rounds=n_rounds,
                    horizon_seed=horizon_seed,
                    seed_a=seed_a,
                    seed_b=seed_b,
                    rules=rules,
                    horizon=horizon,
                    deal=deal,
                    noise=condition.game.noise,
                    noise_seed_a=noise_a,
                    noise_seed_b=noise_b,
                    game_seed=game_seed,
                )
            )
    return plan


def replicate_sampling(condition: ConditionSpec, replicates: int) -> Sampling:
    """Whether a condition's replicates are independent draws or one deterministic match played
    again: the latter when its only randomness would be a model's answers at temperature 0 from
    a real provider (the same prompt gets the same answer, and the cache replays it), its
    policies are deterministic and its horizon fixed. Such replicates are worth one sample."""
    agents = tuple(condition.agents.values())  # a turn game's third parties included
    deterministic = (
        any(a.uses_provider for a in agents)
        and all(a.is_deterministic for a in agents)
        and condition.horizon.type == "fixed"
    )
    if deterministic:
        return Sampling(replicates="deterministic_replay", effective_n=1)
    return Sampling(replicates="independent", effective_n=replicates)
