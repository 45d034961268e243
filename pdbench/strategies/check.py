"""Is this a well-behaved policy? `check_policy`, in the spirit of Gymnasium's `check_env`.

    from pdbench.games.tables import GAMES
    from pdbench.strategies import check_policy

    every_game = GAMES.values()
    check_policy("tf2t", games=every_game)                 # a registered policy, by name
    check_policy(MyPolicy, games=every_game)               # your own class, registered or not
    check_policy("random", games=every_game, params={"cooperate_prob": 0.3})

It plays the policy against every registered policy in each of the `games` given (the caller
names them: this package imports only core, not the games' catalogue) and raises one
`PolicyConformanceError` naming the policy and what failed:

- declaration: a docstring of its own, `stochastic` declared as a bool, a parameter model derived
  from `PolicyParams` (frozen, unknown names refused) that describes each parameter and
  round-trips through a dict and JSON;
- `act` returns Actions only;
- seeded determinism: a fresh instance with the same seeds replays the same match;
- reset really forgets: the same instance, reset with the same seed, replays it too;
- a deterministic policy (`is_stochastic` False) plays the same whatever its seed;
- when the class has a batch form, it plays the same moves as the loop form, match for match and
  round for round, over mixed match lengths like a geometric horizon's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pdbench.core.errors import ConfigError, PdbenchError
from pdbench.core.game import Game
from pdbench.core.rng import make_rng
from pdbench.strategies.base import (
    POLICIES,
    Policy,
    PolicyParams,
    build_policy,
    make_policy,
    policy_class,
)
from pdbench.strategies.play import Moves, play_batch, play_loop

DEFAULT_SEEDS = (11, 12, 13)
OPPONENT_SEED = 1_000_003  # the opponents' seed while only the policy's seed varies


def _mixed_lengths() -> list[int]:
    """Match lengths like a geometric horizon's (stop probability 0.1), plus the shortest ones."""
    drawn = make_rng(2026).geometric(0.1, size=10).tolist()
    return [1, 2, *(min(int(n), 60) for n in drawn)]


MIXED_LENGTHS = _mixed_lengths()


class PolicyConformanceError(PdbenchError):
    """A policy breaks the contract that `check_policy` holds it to."""


def check_policy(
    policy: str | type[Policy],
    *,
    games: Iterable[Game],
    params: Mapping[str, Any] | None = None,
    seeds: Sequence[int] = DEFAULT_SEEDS,
    n_rounds: int = 30,
) -> None:
    """Check a policy (a registered name or a `Policy` subclass) with the given parameters in
    each of `games` (`pdbench.games.tables.GAMES.values()`: every 2x2 game).

    Returns None when every check passes; raises `PolicyConformanceError` on the first failure.
    """
    cls = policy_class(policy) if isinstance(policy, str) else policy
    checker = _Checker(cls, params)
    if len(seeds) < 2:
        raise ValueError("check_policy needs at least two seeds, to see whether the seed matters")
    checker.check_declaration()
    games = tuple(games)
    if not games:
        raise ValueError("check_policy needs at least one game to play the policy in")
    for game in games:
        checker.check_params(game)
        for opponent in sorted(POLICIES):
            checker.check_loop(game, opponent, seeds, n_rounds)
            checker.check_batch(game, opponent, seeds)


class _Checker:
    def __init__(self, cls: type[Policy], params: Mapping[str, Any] | None) -> None:
        self.cls = cls
        self.params = params
        name = getattr(cls, "policy_name", None)
        registered = name is not None and POLICIES.get(name) is cls
        self.label = (
            f'policy "{name}"'
            if registered
            else f"policy class {getattr(cls, '__qualname__', cls)}"
        )

    def fail(self, problem: str) -> PolicyConformanceError:
        return PolicyConformanceError(f"{self.label} fails check_policy: {problem}")

    def build(self, game: Game) -> Policy:
        try:
            return build_policy(self.cls, game, self.params)
        except ConfigError as error:
            raise self.fail(f"its parameters do not validate in {game.id}: {error}") from None

    # --- what the class declares -----------------------------------------------------------------

    def check_declaration(self) -> None:
        cls = self.cls
        if not (isinstance(cls, type) and issubclass(cls, Policy)):
            raise self.fail("it is not a subclass of pdbench.strategies.Policy")
        if not (vars(cls).get("__doc__") or "").strip():
            raise self.fail("it has no docstring: say what it plays, its source and other names")
        declares = [k for k in cls.__mro__ if k is not Policy and "stochastic" in vars(k)]
        if not declares or not isinstance(cls.stochastic, bool):
            raise self.fail("it does not declare `stochastic = True` or `= False` (a bool)")
        model = cls.params_model
        if not (isinstance(model, type) and issubclass(model, PolicyParams)):
            raise self.fail("its params_model is not a subclass of PolicyParams")
        config = model.model_config
        if not config.get("frozen") or config.get("extra") != "forbid":
            raise self.fail(f"{model.__name__} must stay frozen and forbid unknown parameters")
        undescribed = [name for name, field in model.model_fields.items() if not field.description]
        if undescribed:
            raise self.fail(f"{model.__name__} does not describe {', '.join(undescribed)}")

    def check_params(self, game: Game) -> None:
        policy = self.build(game)
        params = policy.params
        if not isinstance(params, self.cls.params_model):
            raise self.fail(f"its params are a {type(params).__name__}, not its params_model")
        round_trips = {
            "a dict": type(params).model_validate(params.model_dump()),
            "JSON": type(params).model_validate_json(params.model_dump_json()),
            "a config's params": self.cls.params_model.model_validate(
                params.model_dump(mode="json")
            ),
        }
        for way, back in round_trips.items():
            if back != params:
                raise self.fail(
                    f"its params do not round-trip through {way}: {params!r} -> {back!r}"
                )
        if not isinstance(policy.is_stochastic, bool):
            raise self.fail("is_stochastic is not a bool")
        if policy.is_stochastic and not self.cls.stochastic:
            raise self.fail("it declares stochastic = False but is_stochastic is True")
        if not (isinstance(policy.name, str) and policy.name):
            raise self.fail("its name is empty")

    # --- the loop form ---------------------------------------------------------------------------

    def play(self, policy: Policy, opponent: Policy, game: Game, n_rounds: int, **seeds) -> Moves:
        try:
            return play_loop(policy, opponent, game, n_rounds, **seeds)
        except Exception as error:  # the policy's own bug, reported with its context
            raise self.fail(
                f"{type(error).__name__}: {error} (against {opponent.policy_name} in {game.id})"
            ) from error

    def check_loop(
        self, game: Game, opponent_name: str, seeds: Sequence[int], n_rounds: int
    ) -> None:
        opponent = make_policy(opponent_name, game)
        policy = self.build(game)
        where = f"against {opponent_name} in {game.id}"
        first_seed = seeds[0]
        first = self.play(policy, opponent, game, n_rounds, seed_a=first_seed, seed_b=OPPONENT_SEED)

        fresh = self.play(
            self.build(game), opponent, game, n_rounds, seed_a=first_seed, seed_b=OPPONENT_SEED
        )
        if fresh != first:
            raise self.fail(
                f"a fresh instance with the same seeds played differently {where} "
                f"({_first_difference(first, fresh)}): does it use randomness not from its seed?"
            )
        again = self.play(policy, opponent, game, n_rounds, seed_a=first_seed, seed_b=OPPONENT_SEED)
        if again != first:
            raise self.fail(
                f"reset does not forget: the same instance replayed a match differently {where} "
                f"({_first_difference(first, again)})"
            )
        for seed in seeds[1:]:
            other = self.play(policy, opponent, game, n_rounds, seed_a=seed, seed_b=OPPONENT_SEED)
            if not policy.is_stochastic and other.a != first.a:
                raise self.fail(
                    f"it is deterministic but seed {seed} and seed {first_seed} played differently "
                    f"{where} ({_first_difference(first, other)})"
                )

    # --- the batch form --------------------------------------------------------------------------

    def check_batch(self, game: Game, opponent_name: str, seeds: Sequence[int]) -> None:
        opponent_class = policy_class(opponent_name)
        if not (self.cls.has_batch_form and opponent_class.has_batch_form):
            return
        seeds_a = [seeds[i % len(seeds)] * 1_000 + i for i in range(len(MIXED_LENGTHS))]
        seeds_b = [OPPONENT_SEED + i for i in range(len(MIXED_LENGTHS))]
        try:
            batch = play_batch(
                self.build(game),
                make_policy(opponent_name, game),
                game,
                MIXED_LENGTHS,
                seeds_a=seeds_a,
                seeds_b=seeds_b,
            )
        except Exception as error:
            raise self.fail(
                f"its batch form raised {type(error).__name__}: {error} "
                f"(against {opponent_name} in {game.id})"
            ) from error
        policy, opponent = self.build(game), make_policy(opponent_name, game)
        for i, (length, batched) in enumerate(zip(MIXED_LENGTHS, batch, strict=True)):
            looped = self.play(policy, opponent, game, length, seed_a=seeds_a[i], seed_b=seeds_b[i])
            if batched != looped:
                raise self.fail(
                    f"its batch form differs from its loop form against {opponent_name} in "
                    f"{game.id}, match {i + 1} of {len(MIXED_LENGTHS)} ({length} rounds, seed "
                    f"{seeds_a[i]}): {_first_difference(looped, batched, names=('loop', 'batch'))}"
                )


def _first_difference(
    expected: Moves, actual: Moves, names: tuple[str, str] = ("first", "then")
) -> str:
    for side, want, got in (
        ("its", expected.a, actual.a),
        ("the opponent's", expected.b, actual.b),
    ):
        for index, (w, g) in enumerate(zip(want, got, strict=True), start=1):
            if w is not g:
                return f"{side} move in round {index}: {names[0]} {w.value}, {names[1]} {g.value}"
    return "the same moves"
