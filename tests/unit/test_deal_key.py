"""Issue 40: every random stream a match uses is keyed by the run's secret deal key.

The run seed and the replicate are public and pdbench's code is open, so a stream that is a
function of them alone can be computed by an agent (the red team's Liar's Dice file knew the
opponent's dice at every showdown). Here: the same run seed under two keys gives other dice,
words, scenarios, horizon lengths, policy draws, noise, option orders and mock draws; the same key
gives the same ones, in every condition alike (common random numbers).
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import pytest
from helpers import TEST_DEAL

from pdbench.agents.base import AgentContext
from pdbench.agents.kinds import make_agent
from pdbench.config.schema import SEAT_FIELDS, ExperimentSpec, LLMAgentSpec
from pdbench.core.horizon import FixedHorizon
from pdbench.core.rng import UNKEYED, DealKey, derive_seed
from pdbench.games.donor_game.pairing import draw_recipients
from pdbench.games.registry import TURN_GAMES
from pdbench.games.tables import GAMES
from pdbench.runners.batch import play_batch
from pdbench.runners.plan import PlannedMatch, plan_matches
from pdbench.runners.turn_run import third_party_seed

ROOT = Path(__file__).resolve().parents[2]
OTHER_DEAL = DealKey(bytes(range(1, 33)))
SEED = 42  # public, as in the examples
REPLICATES = 6


def spec(*conditions: dict) -> ExperimentSpec:
    return ExperimentSpec.model_validate(
        {"run": {"seed": SEED, "replicates": REPLICATES}, "conditions": list(conditions)}
    )


NOISY_GEOMETRIC = {
    "name": "gtft_vs_random",
    "game": {"id": "pd", "noise": 0.1},
    "horizon": {"type": "geometric", "stop_prob": 0.2},
    "agent_a": {"type": "policy", "policy": "gtft"},
    "agent_b": {"type": "policy", "policy": "random"},
}


HOUSE = {
    "liars_dice": "liars_probability",
    "passcode": "passcode_halving",
    "nuclear_war": "debate_fixed",
    "nil_recruitment": "debate_fixed",
    "public_goods": "pgg_random",
    "donor_game": "donor_random",
    "normal_form": "mech_random",
}


def turn_condition(game_id: str) -> dict:
    house = {"type": "policy", "policy": HOUSE[game_id]}
    seats = SEAT_FIELDS[: TURN_GAMES[game_id].seats.default]  # every seat the game plays
    return {"name": game_id, "game": {"id": game_id}, **dict.fromkeys(seats, house)}


def streams(match: PlannedMatch) -> tuple[int, ...]:
    return (
        match.horizon_seed,
        match.seed_a,
        match.seed_b,
        match.noise_seed_a,
        match.noise_seed_b,
        match.game_seed,
    )


def test_the_keyed_derivation_is_hmac_sha256_and_stable_across_versions():
    # Computed once and written down: if this changes, every keyed run's deal changes with it.
    assert TEST_DEAL.derive(0, 0, "horizon") == 5013240528468137996
    assert TEST_DEAL.derive(42, 3, "game") == 7521087073337395206
    # HMAC-SHA256 of "<run seed>\x1f<replicate>\x1f<stream>", its first 8 bytes, 63 bits
    digest = hmac.new(bytes(range(32)), b"42\x1f3\x1fgame", hashlib.sha256).digest()
    assert TEST_DEAL.derive(42, 3, "game") == int.from_bytes(digest[:8], "big") >> 1
    assert TEST_DEAL.fingerprint == hashlib.sha256(bytes(range(32))).hexdigest()[:16]


def test_a_key_is_32_bytes_and_is_never_shown():
    key = DealKey.new()
    assert key.secret.hex() not in repr(key) and key.fingerprint in repr(key)
    assert key != DealKey.new() and key == DealKey(key.secret)
    with pytest.raises(ValueError, match="32 bytes"):
        DealKey(bytes(31))


def test_the_keyed_seeds_are_not_the_public_ones():
    for stream in ("horizon", "agent_a", "agent_b", "noise_a", "game", "option_order_a"):
        public = derive_seed(SEED, 0, stream)
        assert UNKEYED.derive(SEED, 0, stream) == public  # older runs resume as they began
        assert TEST_DEAL.derive(SEED, 0, stream) != public
        assert OTHER_DEAL.derive(SEED, 0, stream) != TEST_DEAL.derive(SEED, 0, stream)


def test_every_stream_of_a_plan_depends_on_the_key_and_only_on_the_replicate():
    turns = spec(turn_condition("liars_dice"), turn_condition("passcode"))
    first, again, other = (plan_matches(turns, d) for d in (TEST_DEAL, TEST_DEAL, OTHER_DEAL))
    assert [streams(m) for m in first] == [streams(m) for m in again]
    for mine, theirs in zip(first, other, strict=True):
        assert all(a != b for a, b in zip(streams(mine), streams(theirs), strict=True))
    # common random numbers: replicate r is dealt alike in every condition (and in another run
    # of the same seed and key, whatever it plays)
    by_condition = {
        name: [streams(m) for m in first if m.condition.name == name]
        for name in ("liars_dice", "passcode")
    }
    matrix = [streams(m) for m in plan_matches(spec(NOISY_GEOMETRIC), TEST_DEAL)]
    assert by_condition["liars_dice"] == by_condition["passcode"] == matrix


def test_a_geometric_horizons_length_and_the_policies_draws_depend_on_the_key():
    """The lengths (knowing the last round is hidden information), GTFT's forgiveness and
    RANDOM's moves, and the noise's flips."""

    def played(deal) -> list[tuple[int, str, str]]:
        plan = plan_matches(spec(NOISY_GEOMETRIC), deal)
        return [
            (len(arrays.coop_a), arrays.coop_a.tobytes().hex(), arrays.coop_b.tobytes().hex())
            for arrays in play_batch(plan)
        ]

    mine, theirs = played(TEST_DEAL), played(OTHER_DEAL)
    assert mine == played(TEST_DEAL)
    assert [length for length, *_ in mine] != [length for length, *_ in theirs]
    assert [moves for _, *moves in mine] != [moves for _, *moves in theirs]


# What each turn game's rules deal from the match's seed: what a player must not know.
DEALT = {
    "liars_dice": lambda game, seed: [game.initial_state(seed).dice],
    "passcode": lambda game, seed: [game.secret_word(seed, n) for n in (1, 2, 3)],
    "nuclear_war": lambda game, seed: [game.draw(seed, n).record for n in (1, 2, 3)],
    "nil_recruitment": lambda game, seed: [game.draw(seed, n).record for n in (1, 2, 3)],
    # the anonymous labels each seat is shown (and, under strangers, the groups)
    "public_goods": lambda game, seed: [
        game.observe(game.initial_state(seed), seat)["you"] for seat in game.seats
    ],
    # the labels and every round's pairs (who donates to whom)
    "donor_game": lambda game, seed: [
        game.initial_state(seed).labels,
        *(draw_recipients(seed, n, game.players) for n in (1, 2, 3)),
    ],
    # which of two equally approved designs wins (the tie-break no player can predict)
    "normal_form": lambda game, seed: [tied_winner(game, seed)],
}


def tied_winner(game, seed: int) -> int | None:
    state = game.initial_state(seed)
    state = game.apply(state, {s: game.fallback(state, s, "invalid") for s in game.seats})
    ballot = {"type": "vote", "approve": {"M1": True, "M2": True}}
    return game.apply(state, dict.fromkeys(game.seats, ballot)).decision.winner


def test_every_turn_game_says_what_it_deals():
    assert set(DEALT) == set(TURN_GAMES), "add the new game's dealt secrets to DEALT"


@pytest.mark.parametrize("game_id", sorted(DEALT))
def test_what_a_turn_game_deals_depends_on_the_key(game_id):
    """The dice, the secret words, the scenarios and the judges' personas of every replicate;
    and the seeds of its third parties (a Keeper's, a judge's own draws)."""

    def dealt(deal) -> tuple[list, list]:
        plan = plan_matches(spec(turn_condition(game_id)), deal)
        secrets = [DEALT[game_id](m.rules, m.game_seed) for m in plan]
        thirds = [third_party_seed(m, role) for m in plan for role in m.rules.third_roles]
        return secrets, thirds

    mine, theirs = dealt(TEST_DEAL), dealt(OTHER_DEAL)
    assert mine == dealt(TEST_DEAL)
    assert mine[0] != theirs[0]
    assert all(a != b for a, b in zip(mine[1], theirs[1], strict=True))


def test_an_llm_agents_option_order_and_mock_draws_depend_on_the_key():
    def llm(deal) -> tuple[int | None, int]:
        context = AgentContext(
            run_seed=SEED, condition="c", replicate=1, side="a", project_root=ROOT, deal=deal
        )
        agent = make_agent(
            LLMAgentSpec(provider={"name": "mock", "model": "mock"}, option_order="shuffled"),
            game=GAMES["pd"],
            horizon=FixedHorizon(3),
            context=context,
        )
        try:
            return agent.seed, agent._order_seed
        finally:
            agent.close()

    mine, theirs = llm(TEST_DEAL), llm(OTHER_DEAL)
    assert mine == llm(TEST_DEAL)
    assert mine[0] != theirs[0] and mine[1] != theirs[1]
