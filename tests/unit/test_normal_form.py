"""The normal-form game under a mechanism (issue 45), in this process: the seeded tie-break, what
each phase hides, the designs house players compute from the payoffs, the prompt adapter's strict
JSON, and the offline mock's personas playing every phase from the prompts alone."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from pdbench.agents.judged_prompts import render_prompt
from pdbench.games.normal_form import designs as d
from pdbench.games.normal_form import mock
from pdbench.games.normal_form.prompts import PROMPTS
from pdbench.games.normal_form.rules import NormalForm
from pdbench.games.tables import GAMES

ROOT = Path(__file__).resolve().parents[2]
EVERYONE = {"type": "vote", "approve": {"M1": True, "M2": True}}
COOPERATIVE = {"type": "design", "mediator": {"1": "A0", "2": "A0"}}
SELFISH = {"type": "design", "mediator": {"1": "A1", "2": "A1"}}


def tied_winner(seed: int) -> int | None:
    rules = NormalForm()
    state = rules.apply(rules.initial_state(seed), {"a": COOPERATIVE, "b": SELFISH})
    return rules.apply(state, {"a": EVERYONE, "b": EVERYONE}).decision.winner


def test_a_tie_is_broken_from_the_matchs_seed_the_same_every_time():
    winners = [tied_winner(seed) for seed in range(24)]
    assert winners == [tied_winner(seed) for seed in range(24)]  # deterministic
    assert set(winners) == {0, 1}  # either design can win a tie
    # nothing a player is shown tells the winner before the vote: the same observations
    rules = NormalForm()
    states = [rules.apply(rules.initial_state(s), {"a": COOPERATIVE, "b": SELFISH}) for s in (0, 1)]
    assert rules.observe(states[0], "a") == rules.observe(states[1], "a")


def test_the_most_approved_design_wins_whatever_the_seed():
    rules = NormalForm()
    only_b = {"type": "vote", "approve": {"M1": False, "M2": True}}
    for seed in range(8):
        state = rules.apply(rules.initial_state(seed), {"a": COOPERATIVE, "b": SELFISH})
        assert rules.apply(state, {"a": only_b, "b": EVERYONE}).decision.winner == 1


def test_each_phase_shows_no_answer_of_another_player_before_the_rules_reveal_it():
    rules = NormalForm(mechanism="contracting")
    state = rules.initial_state(5)
    assert "proposals" not in rules.observe(state, "a")  # designs are made blind
    state = rules.apply(
        state,
        {
            "a": {"type": "design", "contract": {"A0": 0, "A1": -2}},
            "b": {"type": "design", "contract": {"A0": 0, "A1": 0}},
        },
    )
    shown = rules.observe(state, "b")  # the vote shows every design, by proposer
    assert [p["contract"] for p in shown["proposals"]] == [{"A0": 0, "A1": -2}, {"A0": 0, "A1": 0}]
    ballots = {"type": "vote", "approve": {"C1": True, "C2": False}}
    state = rules.apply(
        state, {"a": ballots, "b": {**ballots, "approve": {"C1": False, "C2": True}}}
    )
    signing = rules.observe(state, "a")  # the winner and its proposer, never a ballot
    assert "C1" not in str(signing) and "approve" not in str(signing)
    assert signing["contract"]["proposer"] in (1, 2) and "refused_by" not in signing
    state = rules.apply(
        state, {"a": {"type": "sign", "sign": True}, "b": {"type": "sign", "sign": False}}
    )
    playing = rules.observe(state, "a")  # who refused is told once all have answered
    assert playing["contract_active"] is False and playing["refused_by"] == ["Player 2"]
    prompt = render_prompt(ROOT, playing, "")
    assert "Player(s) who rejected it: 2" in prompt and "approv" not in prompt.split("twist")[0]


def test_the_house_designs_follow_from_the_payoffs():
    pd = NormalForm(base="pd").game
    t, r = GAMES["pd"].payoffs.T, GAMES["pd"].payoffs.R
    assert d.temptation_contract(pd) == (0, -(t - r))  # defection costs its temptation
    assert d.contract_is_equilibrium(pd, d.temptation_contract(pd))
    assert not d.contract_is_equilibrium(pd, d.null_contract(pd))
    # the cooperative mediator invites a lone deviation; the punishing one deters it
    assert not d.mediator_is_equilibrium(pd, d.cooperative_mediator(pd))
    assert d.punishing_mediator(pd) == (1, 0) and d.mediator_is_equilibrium(pd, (1, 0))
    # CoopEval's PD (2, 0, 3, 1): T - R = 1; the equilibrium payoff is mutual defection's
    coopeval = NormalForm(payoffs={"CC": [2, 2], "CD": [0, 3], "DC": [3, 0], "DD": [1, 1]}).game
    assert d.temptation_contract(coopeval) == (0, -1)
    assert coopeval.equilibrium_payoff() == 1
    groups = NormalForm(base="public_goods", players=3, multiplier=1.5).game
    assert groups.payoffs((0, 0, 1)) == (1, 1, 2)  # 1.5 * 2 / 3 each, plus 1 kept
    assert d.temptation_contract(groups) == (0, -1)  # free riding gains 1 - 1.5/3 = 0.5


def test_a_binding_contract_moves_its_payments_among_three_players():
    rules = NormalForm(base="public_goods", players=3, mechanism="contracting")
    assert d.transfers((0, -2), (1, 0, 0)) == (-2, 1, 1)  # the free rider pays, shared
    assert sum(d.transfers((3, -2), (1, 0, 1))) == 0
    assert rules.seats == ("a", "b", "c")


@pytest.mark.parametrize(
    "answer, reason",
    [
        ('{"A0": 60, "A1": 30}', "sum to 100"),
        ('{"A0": 100}', "Expected keys"),
        ('{"A0": 100, "A1": 0, "A2": false}', "Expected keys"),
        ('{"A0": 50.5, "A1": 49.5}', "integer"),
        ("I cooperate", "JSON object"),
    ],
)
def test_a_mixed_answer_is_read_as_strictly_as_coopeval_reads_it(answer, reason):
    rules = NormalForm(mechanism="none", strategies="mixed")
    shown = rules.observe(rules.initial_state(0), "a")
    with pytest.raises(ValueError, match=reason):
        PROMPTS.action(shown, answer)
    read = PROMPTS.action(shown, 'Thinking... final: {"A0": 70, "A1": 30}')
    assert read == {"type": "play", "distribution": {"A0": 70, "A1": 30}}


def test_a_mixed_answer_is_drawn_from_the_seed_and_stored_with_its_draw():
    rules = NormalForm(mechanism="none", strategies="mixed", rounds=40)
    state = rules.initial_state(11)
    half = {"type": "play", "distribution": {"A0": 50, "A1": 50}}
    while not rules.match_over(state):
        state = rules.apply(state, {"a": half, "b": {"type": "play", "action": "A0"}})
    drawn = [r.drawn[0] for r in state.finished]
    assert set(drawn) == {0, 1} and all(r.distributions[0] == (50, 50) for r in state.finished)
    again = rules.initial_state(11)
    while not rules.match_over(again):
        again = rules.apply(again, {"a": half, "b": {"type": "play", "action": "A0"}})
    assert [r.drawn[0] for r in again.finished] == drawn


def play_with_mock(rules: NormalForm, lean: str | None) -> NormalForm:
    persona = {"cooperative": "You believe in cooperation.", "competitive": "Above all.", None: ""}
    behaviour = SimpleNamespace(strategy="reciprocate", invalid_rate=0.0, policy=None, params={})
    state = rules.initial_state(2)
    while not rules.match_over(state):
        actions = {}
        for seat in rules.to_move(state):
            shown = rules.observe(state, seat)
            prompt = render_prompt(ROOT, shown, persona[lean])
            answer = mock.play(
                prompt,
                behaviour,
                f"{seat}{state.round_number}{state.phase}",
                lean=lean,
                allowed=None,
            )
            action = PROMPTS.action(shown, answer)
            assert rules.problem(state, seat, action) is None, (answer, prompt)
            actions[seat] = action
        state = rules.apply(state, actions)
    return state


@pytest.mark.parametrize("strategies", ["pure", "mixed"])
def test_the_mocks_personas_play_every_phase_from_the_prompts(strategies):
    mediation = NormalForm(mechanism="mediation", strategies=strategies, rounds=2)
    kind = play_with_mock(mediation, "cooperative").finished[-1]
    assert kind.delegated == (True, True) and kind.realised == (0, 0)
    assert kind.decision.designs[0] == d.cooperative_mediator(mediation.game)
    selfish = play_with_mock(mediation, "competitive").finished[-1]
    assert selfish.delegated == (False, False) and selfish.realised == (1, 1)
    contracting = NormalForm(mechanism="contracting", strategies=strategies, rounds=2)
    signed = play_with_mock(contracting, "cooperative").finished[-1].decision
    assert signed.active and signed.designs[signed.winner] == d.temptation_contract(
        contracting.game
    )
    assert not play_with_mock(contracting, "competitive").finished[-1].decision.active
    groups = NormalForm(base="public_goods", players=3, mechanism="contracting")
    assert play_with_mock(groups, None).finished  # three players, the group payoff lines


def golden_lines(condition: str) -> list[dict]:
    path = ROOT / "tests" / "golden" / "every_game" / "mechanisms.rounds.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [line for line in lines if line["condition"] == condition and line["replicate"] == 0]


def test_the_page_lists_every_phase_as_stored_and_renders():
    from streamlit.testing.v1 import AppTest

    from pdbench.games.normal_form.view import phase_rows

    turns = golden_lines("mediation")
    rows = phase_rows(turns, {"a": "A · MOCK", "b": "B · DESIGNER"})
    assert [r["phase"] for r in rows[:6]] == ["design"] * 2 + ["vote"] * 2 + ["play"] * 2
    play = next(t for t in turns if t["phase"] == "play")
    delegator = next(s for s, d in play["revealed"]["delegated"].items() if d)
    row = next(
        r for r in rows if r["phase"] == "play" and r["player"].startswith(delegator.upper())
    )
    assert f"played {play['revealed']['actions'][delegator]} (delegated)" in row["outcome"]

    def app(turns: list[dict]) -> None:
        from pdbench.ui.game_views import MatchView, game_view

        view = game_view("normal_form")
        assert view is not None
        view.render_transcript(MatchView(turns, {"a": "A · ONE", "b": "B · TWO"}, {}, seed=1))

    test = AppTest.from_function(app, kwargs={"turns": turns}, default_timeout=60)
    test.run()
    assert not test.exception, [e.value for e in test.exception]
    assert len(test.dataframe) == 1


def test_the_measures_count_what_each_player_did():
    from pdbench.games.normal_form.metrics import state_row

    rules = NormalForm(mechanism="contracting", rounds=2)  # pdbench's PD: R 3, P 1
    state = rules.initial_state(0)
    steps = [
        {
            "a": {"type": "design", "contract": {"A0": 0, "A1": -2}},  # T - R: an equilibrium
            "b": {"type": "design", "contract": {"A0": 0, "A1": 0}},  # no payments: none
        },
        {
            "a": {"type": "vote", "approve": {"C1": True, "C2": False}},
            "b": {"type": "vote", "approve": {"C1": True, "C2": True}},
        },
        {"a": {"type": "sign", "sign": True}, "b": {"type": "sign", "sign": True}},
        {"a": {"type": "play", "action": "A0"}, "b": {"type": "play", "action": "A0"}},
        {"a": {"type": "play", "action": "A0"}, "b": {"type": "play", "action": "A1"}},
    ]
    for actions in steps:
        state = rules.apply(state, actions)
    rows = state_row(rules, state)
    a, b = rows["a"], rows["b"]
    assert (a["approval_rate"], b["approval_rate"]) == (0.5, 1.0)
    assert (a["signing_rate"], a["contract_active_rate"]) == (1.0, 1.0)
    assert (a["design_equilibrium"], b["design_equilibrium"]) == (1.0, 0.0)
    assert a["winner_equilibrium"] == b["winner_equilibrium"] == 1.0  # C1 had 2 approvals
    assert (a["cooperation_rate"], b["cooperation_rate"]) == (1.0, 0.5)
    # round 2: S + 2 and T - 2 under the contract; welfare per player and round minus P = 1
    assert (a["score"], b["score"]) == (3 + 0 + 2, 3 + 5 - 2)
    assert a["welfare_gain"] == b["welfare_gain"] == (3 + 3 + 2 + 3) / 4 - 1
    assert a["delegation_rate"] is None  # no mediator in this match
