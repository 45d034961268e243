"""Issue 45's mediation and contracting on the 2x2 games, through the Hydra door in this process:
`game=pd mechanism=...` runs as the turn game normal_form, and every payoff is recomputed from
the stored rounds.jsonl alone with the rules written out here (not pdbench's code): the winning
design from the stored ballots (its tie among the most approved), a mediator's mapped actions,
a contract's transfers when every player signed, and the final scores."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import orjson
import pytest

from pdbench.games.tables import GAMES
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
PRIMARY = ROOT / "conf" / "config.yaml"


def run(tmp_path: Path, *overrides: str) -> Path:
    pinned = [f"run.output_dir={tmp_path / 'runs'}", "run.replicates=6", "run.seed=3"]
    outcome = run_experiment(load(PRIMARY, [*pinned, *overrides], project_root=ROOT))
    assert outcome.status == "complete", outcome.error
    return outcome.run_dir


def matches(run_dir: Path) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = {}
    for line in (run_dir / "rounds.jsonl").read_bytes().splitlines():
        record = orjson.loads(line)
        found.setdefault(record["replicate"], []).append(record)
    return found


# CoopEval's trust game (trust_game.yaml@8559e85:1-7), (P1, P2): A0 Give, A1 Keep
TRUST_GAME = {"CC": (10, 10), "CD": (0, 20), "DC": (6, 2), "DD": (4, 4)}


def table(game_id: str) -> dict[tuple[str, str], tuple[Fraction, Fraction]]:
    """The base game's payoffs by tokens, read from the core table (A0 is C, A1 is D), or for
    the trust game from CoopEval's numbers."""
    words = {"A0": "C", "A1": "D"}
    outcomes = TRUST_GAME if game_id == "trust_game" else GAMES[game_id].payoffs.as_outcomes()
    return {
        (a, b): tuple(Fraction(x) for x in outcomes[words[a] + words[b]])  # type: ignore[misc]
        for a in words
        for b in words
    }


def winner(vote: dict) -> str:
    """The winning proposer's seat, checked against the stored ballots: most approvals."""
    seats = sorted(vote["actions"])
    counts = {
        seat: sum(
            ballot["approve"].get(f"M{i + 1}", ballot["approve"].get(f"C{i + 1}", False))
            for ballot in vote["actions"].values()
        )
        for i, seat in enumerate(seats)
    }
    most = max(counts.values())
    chosen = vote["revealed"]["winner"]
    assert counts[chosen] == most and sorted(vote["revealed"]["tied"]) == sorted(
        s for s, c in counts.items() if c == most
    )
    return chosen


@pytest.mark.parametrize(
    ("game", "players"),
    [
        ("pd", ("mech_random", "mech_random")),
        ("pd", ("mech_allc", "mech_designer")),
        ("trust_game", ("mech_random", "mech_random")),  # asymmetric: each seat its own points
    ],
)
def test_a_contracts_transfers_are_recomputed_from_the_stored_rounds(tmp_path, game, players):
    run_dir = run(
        tmp_path,
        f"game={game}",
        "mechanism=contracting",
        "mechanism.rounds=4",
        "mechanism.decide=every_round",
        f"agent_a={players[0]}",
        f"agent_b={players[1]}",
        # a player that signs and defects, so that a binding contract moves points
        *(["+agent_a.params.play=defect"] if players[0] == "mech_allc" else []),
    )
    payoffs = table(game)
    moved = 0
    for turns in matches(run_dir).values():
        totals = {"a": Fraction(0), "b": Fraction(0)}
        contract: dict[str, int] = {}
        active = False
        designs: dict[str, dict[str, int]] = {}
        for turn in turns:
            if turn["phase"] == "design":
                designs = {s: a["contract"] for s, a in turn["actions"].items()}
            elif turn["phase"] == "vote":
                contract = designs[winner(turn)]
            elif turn["phase"] == "sign":
                active = all(a["sign"] for a in turn["actions"].values())
                assert turn["revealed"]["active"] is active
            elif turn["phase"] == "play":
                acts = {s: a["action"] for s, a in turn["actions"].items()}
                base = dict(zip("ab", payoffs[(acts["a"], acts["b"])], strict=True))
                # each player receives its action's payment, the other pays it (N - 1 = 1)
                paid = {s: Fraction(contract[acts[s]]) if active else Fraction(0) for s in "ab"}
                transfer = {"a": paid["a"] - paid["b"], "b": paid["b"] - paid["a"]}
                moved += any(transfer.values())
                shown = turn["revealed"]
                for s in "ab":
                    assert shown["actions"][s] == acts[s]
                    assert Fraction(shown["transfers"][s]) == transfer[s]
                    assert Fraction(shown["payoffs"][s]) == base[s] + transfer[s]
                    totals[s] += base[s] + transfer[s]
        scores = turns[-1]["outcome"]["scores"]
        assert {s: Fraction(v) for s, v in scores.items()} == totals
    assert moved  # some binding contract moved points


def test_a_mediators_mapped_actions_are_recomputed_from_the_stored_rounds(tmp_path):
    run_dir = run(
        tmp_path,
        "game=stag_hunt",
        "mechanism=mediation",
        "mechanism.rounds=4",
        "mechanism.decide=every_round",
        "agent_a=mech_random",
        "agent_b=mech_random",
    )
    payoffs = table("stag_hunt")
    delegations = 0
    for turns in matches(run_dir).values():
        for turn in turns:
            if turn["phase"] == "design":
                designs = {s: a["mediator"] for s, a in turn["actions"].items()}
            elif turn["phase"] == "vote":
                mediator = designs[winner(turn)]
            elif turn["phase"] == "play":
                drawn = {s: a["action"] for s, a in turn["actions"].items()}
                k = sum(a == "A2" for a in drawn.values())  # A2 delegates in a 2-action game
                delegations += k
                played = {s: mediator[str(k)] if a == "A2" else a for s, a in drawn.items()}
                shown = turn["revealed"]
                assert shown["actions"] == played
                assert shown["delegated"] == {s: a == "A2" for s, a in drawn.items()}
                base = dict(zip("ab", payoffs[(played["a"], played["b"])], strict=True))
                assert {s: Fraction(v) for s, v in shown["payoffs"].items()} == base
    assert delegations


def test_three_players_share_a_contracts_payments_as_recomputed_from_the_stored_rounds(tmp_path):
    """CoopEval's binary public goods game (N = 3, m = 1.5, endowment 1) under contracting: a
    player's payment is shared by the other two, c[a] / (N - 1) each."""
    run_dir = run(
        tmp_path,
        "game=public_goods",
        "game.options.players=3",
        "game.options.multiplier=1.5",
        "mechanism=contracting",
        "mechanism.rounds=3",
        "mechanism.decide=every_round",
        "agent_a=mech_random",
        "agent_b=mech_random",
        "agent_c=mech_allc",
        "+agent_c.params.play=defect",  # signs, approves everything, rides free
    )
    moved = 0
    for turns in matches(run_dir).values():
        for turn in turns:
            if turn["phase"] == "design":
                designs = {s: a["contract"] for s, a in turn["actions"].items()}
            elif turn["phase"] == "vote":
                contract = designs[winner(turn)]
            elif turn["phase"] == "sign":
                active = all(a["sign"] for a in turn["actions"].values())
            elif turn["phase"] == "play":
                acts = {s: a["action"] for s, a in turn["actions"].items()}
                pot = Fraction(3, 2) * sum(a == "A0" for a in acts.values()) / 3
                for seat, action in acts.items():
                    base = pot + (1 if action == "A1" else 0)
                    mine = Fraction(contract[action]) if active else Fraction(0)
                    others = sum(
                        Fraction(contract[a]) for s, a in acts.items() if s != seat and active
                    )
                    transfer = mine - others / 2
                    moved += transfer != 0
                    assert Fraction(turn["revealed"]["payoffs"][seat]).limit_denominator() == (
                        base + transfer
                    ), (turn["revealed"], contract, active)
    assert moved


COOPEVAL_GAMES = ("pd", "stag_hunt", "public_goods", "travellers_dilemma", "trust_game")
COOPEVAL_MECHANISMS = ("repetition", "reputation", "mediation", "contracting")
# CoopEval's game parameters (research doc 2), as each preset's options must hold them
COOPEVAL_OPTIONS: dict[str, dict[str, object]] = {
    "pd": {"payoffs": {"CC": [2, 2], "CD": [0, 3], "DC": [3, 0], "DD": [1, 1]}},
    "stag_hunt": {"payoffs": {"CC": [5, 5], "CD": [0, 3], "DC": [3, 0], "DD": [3, 3]}},
    "public_goods": {"players": 3, "multiplier": 1.5},
    "travellers_dilemma": {"min_claim": 2, "num_actions": 4, "claim_spacing": 1, "bonus": 2},
    "trust_game": {},
}
# CoopEval's mechanism parameters (research doc 1, 3)
COOPEVAL_MECHANISM_OPTIONS: dict[str, dict[str, object]] = {
    "repetition": {"rounds": 15, "lookup_depth": 3, "discount": 0.8},
    "reputation": {"rounds": 15, "lookup_depth": 3, "reputation_order": 3, "discount": 0.8},
    "mediation": {"rounds": 1, "decide": "once", "design_scope": "run"},
    "contracting": {"rounds": 1, "decide": "once", "design_scope": "run"},
}
# run, not only loaded (each in a fraction of a second): pd's, and one per other game
RUN_PRESETS = (
    "coopeval_pd_contracting",
    "coopeval_pd_mediation",
    "coopeval_pd_repetition",
    "coopeval_pd_reputation",
    "coopeval_travellers_dilemma_contracting",
    "coopeval_trust_game_mediation",
    "coopeval_stag_hunt_repetition",
    "coopeval_travellers_dilemma_reputation",
)


@pytest.mark.parametrize("game", COOPEVAL_GAMES)
@pytest.mark.parametrize("mechanism", COOPEVAL_MECHANISMS)
def test_every_coopeval_preset_holds_coopevals_parameters(tmp_path, game, mechanism):
    """coopeval_<game>_<mechanism>.yaml for every game and mechanism pdbench has (public goods
    under reputation plays its own game: coopeval_public_goods_reputation.yaml, its own test)."""
    loaded = load(
        ROOT / "conf" / "experiment" / f"coopeval_{game}_{mechanism}.yaml",
        [f"run.output_dir={tmp_path / 'runs'}"],
        replicates=1,
        project_root=ROOT,
    )
    for condition in loaded.spec.conditions:
        assert condition.game.id in ("normal_form", "public_goods")
        options = condition.game.options
        if condition.game.id == "public_goods":  # its own reputation (compose.py)
            assert (game, options["players"], options["multiplier"]) == ("public_goods", 3, 1.5)
            assert options["endowment"] == 1 and options["reputation_depth"] == 3
            continue
        assert options["base"] == game and options["mechanism"] == mechanism
        assert options["strategies"] == "mixed"
        for name, value in COOPEVAL_OPTIONS[game].items():
            assert options[name] == value, (name, options)
        for name, value in COOPEVAL_MECHANISM_OPTIONS[mechanism].items():
            if name == "reputation_order" and condition.name == "reputation_minus":
                value = 1
            assert options[name] == value, (name, options)


@pytest.mark.parametrize("preset", RUN_PRESETS)
def test_the_coopeval_presets_run_offline(tmp_path, preset):
    loaded = load(
        ROOT / "conf" / "experiment" / f"{preset}.yaml",
        [f"run.output_dir={tmp_path / 'runs'}"],
        replicates=1,
        project_root=ROOT,
    )
    assert loaded.spec.conditions[0].game.options["strategies"] == "mixed"
    outcome = run_experiment(loaded)
    assert outcome.status == "complete", outcome.error


def test_an_experiment_file_names_a_mechanism_for_every_condition_or_one(tmp_path):
    from pdbench.core.errors import ConfigError

    path = tmp_path / "mechanisms.yaml"
    path.write_text(
        "game: {id: stag_hunt}\nmechanism: contracting\nconditions:\n"
        "  - {name: contracting, agent_a: tft, agent_b: mech_designer}\n"
        "  - {name: mediation, mechanism: mediation, agent_a: tft, agent_b: mech_designer}\n"
        "  - {name: none, mechanism: none, agent_a: tft, agent_b: alld}\n"
    )
    spec = load(path, [], project_root=ROOT).spec
    games = {c.name: c.game for c in spec.conditions}
    assert {g.id for g in games.values()} == {"normal_form"}  # none too: one family a run
    assert {n: g.options["mechanism"] for n, g in games.items()} == {
        "contracting": "contracting",
        "mediation": "mediation",
        "none": "none",
    }
    assert games["none"].options["rounds"] == 20  # the fixed horizon's (conf/mechanism/none)
    assert spec.conditions[0].agent_a.policy == "mech_tft"  # tft's counterpart
    path.write_text(
        "conditions:\n  - {name: x, mechanism: {type: mediation, rounds: 0}, "
        "agent_a: tft, agent_b: tft}\n"
    )
    with pytest.raises(ConfigError) as refused:
        load(path, [], project_root=ROOT)
    assert refused.value.field == "conditions[0](x).mechanism.rounds"
