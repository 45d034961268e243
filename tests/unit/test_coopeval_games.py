"""CoopEval's traveller's dilemma and trust game as base games of the normal-form game (issue 45):
their payoffs recomputed here from CoopEval's cited numbers for every profile, their cooperative
actions, the house players and the offline mock playing both under every mechanism, and bad
options refused with exit 2 naming the field."""

from __future__ import annotations

import itertools
import os
from fractions import Fraction
from pathlib import Path

import pytest

from pdbench.games.normal_form import designs as d
from pdbench.games.normal_form.policies import NORMAL_FORM_POLICIES, game_of
from pdbench.games.normal_form.rules import NormalForm
from pdbench.runners.prepare import load
from tests.in_process import run_front_door
from tests.unit.test_normal_form import play_with_mock

ROOT = Path(__file__).resolve().parents[2]
MECHANISMS = ("none", "repetition", "mediation", "contracting")


def travellers_payoffs(claims: list[int], bonus: int) -> dict[tuple[int, int], tuple[int, int]]:
    """travellers_dilemma.py@8559e85:154-167: equal claims X both get X; unequal, the lower
    claimant gets the lower claim + bonus, the higher the lower claim - bonus."""
    table = {}
    for a, b in itertools.product(range(len(claims)), repeat=2):
        x, y = claims[a], claims[b]
        if x == y:
            table[(a, b)] = (x, y)
        elif x < y:
            table[(a, b)] = (x + bonus, x - bonus)
        else:
            table[(a, b)] = (y - bonus, y + bonus)
    return table


def test_the_travellers_dilemma_pays_coopevals_claims_for_every_profile():
    game = NormalForm(base="travellers_dilemma", mechanism="none").game
    # configs/games/travellers_dilemma.yaml:1-6: min_claim 2, num_actions 4, spacing 1, bonus 2
    expected = travellers_payoffs([2, 3, 4, 5], 2)
    assert len(game.profiles()) == 16
    for profile in game.profiles():
        assert game.payoffs(profile) == tuple(Fraction(x) for x in expected[profile]), profile
    assert (game.cooperative, game.defecting) == (3, 0)  # the highest claim; the lowest
    assert game.pure_equilibria() == ((0, 0),)
    other = NormalForm(
        base="travellers_dilemma", min_claim=10, num_actions=3, claim_spacing=5, bonus=1.5
    ).game
    wanted = travellers_payoffs([10, 15, 20], 0)  # the bonus added below, as a fraction
    for (a, b), (x, y) in wanted.items():
        shift = Fraction(3, 2) * ((a < b) - (a > b))
        assert other.payoffs((a, b)) == (x + shift, y - shift)


def test_the_trust_game_pays_each_seat_its_own_coopeval_points():
    game = NormalForm(base="trust_game", mechanism="none").game
    # trust_game.yaml:1-7 (P1, P2), A0 Give, A1 Keep
    expected = {"GG": (10, 10), "GK": (0, 20), "KG": (6, 2), "KK": (4, 4)}
    for profile in game.profiles():
        outcome = "".join("GK"[a] for a in profile)
        assert game.payoffs(profile) == tuple(Fraction(x) for x in expected[outcome])
    assert game.names == ("Give", "Keep") and game.cooperative == 0 and game.defecting == 1
    assert game.pure_equilibria() == ((1, 1),)  # Keep dominates for Player 2: KK (4, 4)
    # each seat's prompt lists its own points first: Player 2 keeping against a giver gets 20
    rules = NormalForm(base="trust_game", mechanism="none")
    shown = rules.observe(rules.initial_state(0), "b")
    assert game_of(shown).payoffs((0, 1)) == (0, 20)


def test_every_other_base_keeps_a0_its_cooperative_action():
    for base in ("pd", "stag_hunt", "chicken", "split_or_steal", "battle_of_the_sexes"):
        game = NormalForm(base=base).game
        assert (game.cooperative, game.defecting) == (0, 1), base
    goods = NormalForm(base="public_goods", players=3).game
    assert (goods.cooperative, goods.defecting) == (0, 1)


@pytest.mark.parametrize("base", ["travellers_dilemma", "trust_game"])
def test_the_house_designs_aim_at_the_declared_cooperative_action(base):
    game = NormalForm(base=base).game
    assert d.cooperative_mediator(game) == (game.cooperative,) * 2
    assert d.mediator_is_equilibrium(game, d.punishing_mediator(game))
    assert d.contract_is_equilibrium(game, d.temptation_contract(game))
    assert d.selfish_mediator(game) == (game.defecting,) * 2


@pytest.mark.parametrize("base", ["travellers_dilemma", "trust_game"])
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_the_cooperative_mock_plays_the_cooperative_action(base, mechanism):
    rules = NormalForm(base=base, mechanism=mechanism, rounds=2)
    last = play_with_mock(rules, "cooperative").finished[-1]
    assert last.realised == (rules.game.cooperative,) * 2
    selfish = play_with_mock(rules, "competitive").finished[-1]
    assert selfish.realised == (rules.game.defecting,) * 2


@pytest.mark.parametrize("base", ["travellers_dilemma", "trust_game"])
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_house_players_play_both_games_under_every_mechanism(base, mechanism):
    rules = NormalForm(base=base, mechanism=mechanism, rounds=3)
    players = {"a": NORMAL_FORM_POLICIES["mech_allc"](), "b": NORMAL_FORM_POLICIES["mech_tft"]()}
    state = rules.initial_state(4)
    while not rules.match_over(state):
        actions = {}
        for seat in rules.to_move(state):
            action = players[seat].act(rules.observe(state, seat), None)
            assert rules.problem(state, seat, action) is None
            actions[seat] = action
        state = rules.apply(state, actions)
    assert state.finished[-1].realised == (rules.game.cooperative,) * 2


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ("game.options.num_actions=1", "game.options.num_actions"),
        ("game.options.claim_spacing=0", "game.options.claim_spacing"),
        ("game.options.bonus=-1", "game.options.bonus"),
        ("+game.options.multiplier=2", "game.options.multiplier"),
    ],
)
def test_a_bad_travellers_dilemma_option_exits_2_naming_it(tmp_path, override, field):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    args = ["validate", str(ROOT / "conf" / "config.yaml"), "game=travellers_dilemma", override]
    ran = run_front_door("cli", args, cwd=tmp_path, env=env)
    assert ran.code == 2, ran.stderr
    assert field in ran.stderr and "Traceback" not in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("game", ["travellers_dilemma", "trust_game"])
def test_either_game_validates_under_every_mechanism(tmp_path, game):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    for mechanism in (*MECHANISMS, "reputation"):
        seats = ["population={mech_tft:2,mech_alld:2}"] if mechanism == "reputation" else []
        args = ["validate", str(ROOT / "conf" / "config.yaml"), f"game={game}"]
        ran = run_front_door(
            "cli", [*args, f"mechanism={mechanism}", *seats], cwd=tmp_path, env=env
        )
        assert ran.code == 0, (mechanism, ran.stderr)


def test_a_best_reply_tied_with_cooperating_cooperates_in_the_travellers_dilemma():
    """Under the temptation contract claiming 4 (A2) against 5 pays 6 - 1, as much as claiming
    5: the tie goes to the cooperative action, not to the lowest index (claim 3, A1, also ties)."""
    game = NormalForm(base="travellers_dilemma").game
    contract = d.temptation_contract(game)
    assert contract == (0, 0, -1, 0)
    assert d.best_reply_to_cooperation(game, 0, contract) == game.cooperative
    assert d.best_reply_to_cooperation(game, 0, None) == 2  # without it: undercut by one


@pytest.mark.parametrize("mechanism", ["", "mechanism: contracting\n"])
def test_an_experiment_file_names_either_game_with_or_without_a_mechanism(tmp_path, mechanism):
    config = tmp_path / "experiment.yaml"
    config.write_text(
        "run: {seed: 1, replicates: 1}\n"
        "game: {id: travellers_dilemma, options: {num_actions: 5}}\n"
        f"{mechanism}"
        "conditions:\n  - {name: c, agent_a: tft, agent_b: mech_designer}\n"
    )
    loaded = load(config, [], project_root=ROOT)
    game = loaded.spec.conditions[0].game
    assert game.id == "normal_form" and game.options["num_actions"] == 5
    assert game.options["mechanism"] == (mechanism.split(": ")[1].strip() if mechanism else "none")
    assert loaded.spec.conditions[0].agent_a.policy == "mech_tft"  # the 2x2 tft's counterpart


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"min_claim": float("nan")}, "min_claim"),
        ({"min_claim": "2"}, "min_claim"),
        ({"num_actions": 11}, "num_actions"),
        ({"bonus": float("inf")}, "bonus"),
        ({"payoffs": {"CC": [1, 1], "CD": [0, 2], "DC": [2, 0], "DD": [1, 1]}}, "payoffs"),
    ],
)
def test_the_rules_refuse_a_bad_claim_option_by_its_name(options, named):
    with pytest.raises(ValueError, match=f"^{named}"):
        NormalForm(base="travellers_dilemma", **options)
    with pytest.raises(ValueError, match=r"^bonus: only a travellers_dilemma base"):
        NormalForm(base="trust_game", bonus=3)
