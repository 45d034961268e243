"""Continuous giving in the donor game (issue 45, Vallinder & Hughes 2024): a donor gives any
amount from 0 to its resources, its recipient gains (b / c) times it, resources carry over; an
amount out of range is refused (never clipped) and the fallback gives 0; the donor is shown the
recipient's resources and its trace with amounts and shares (the third link with trace_links 3);
the house players, the LLM prompt and the mock give amounts; a binary match is unchanged."""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from in_process import run_front_door
from public_goods_loop import play

from pdbench.agents.judged_prompts import persona_text, render_prompt
from pdbench.config.schema import MockBehaviour
from pdbench.games import check
from pdbench.games.base import recorded_options
from pdbench.games.donor_game.metrics import encounters
from pdbench.games.donor_game.mock import play as mock_play
from pdbench.games.donor_game.mock import read_round_state
from pdbench.games.donor_game.policies import DONOR_GAME_POLICIES
from pdbench.games.donor_game.prompts import PROMPTS
from pdbench.games.donor_game.stored import read_rounds
from pdbench.games.registry import build_turn_game

ROOT = Path(__file__).resolve().parents[2]
VH = {"amount": "continuous", "norm": "none", "endowment": 10, "recent_actions": 1}


def game(**options):
    return build_turn_game("donor_game", **{"players": 4, "rounds": 3, **VH, **options})


def gifts(rules, amounts):
    return {
        seat: {"type": "donate", "amount": x} for seat, x in zip(rules.seats, amounts, strict=True)
    }


def test_a_donor_gives_any_amount_of_its_resources_and_its_recipient_gains_b_over_c_times_it():
    rules = game(cost=1, benefit=3)  # b / c = 3
    state = rules.initial_state(5)
    after = rules.apply(state, gifts(rules, [0, 2.5, 10, 0.1]))
    given = [Fraction(0), Fraction(5, 2), Fraction(10), Fraction(1, 10)]
    expected = [-g for g in given]
    for donor, recipient in enumerate(state.recipients):
        expected[recipient] += 3 * given[donor]
    assert list(after.totals) == [10 + e for e in expected]  # exact, carried to the next round
    assert after.finished[-1].gave == (False, True, True, True)  # a gift is an amount above 0
    shown = rules.revealed(state, after)
    assert shown["amounts"] == dict(zip(rules.seats, [0, 2.5, 10, 0.1], strict=True))
    assert shown["resources"] == {
        s: float(t) for s, t in zip(rules.seats, after.totals, strict=True)
    }
    # the next round gives from the new resources: all of them is legal, a unit more is not
    rich = rules.seats[int(np.argmax(after.totals))]
    most = float(max(after.totals))
    assert rules.problem(after, rich, {"type": "donate", "amount": most}) is None
    assert "from 0 to your resources" in rules.problem(
        after, rich, {"type": "donate", "amount": most + 1}
    )


def test_an_amount_out_of_range_is_refused_with_its_reason_and_the_fallback_gives_nothing():
    rules = game()
    state = rules.initial_state(0)
    for bad, reason in [
        (-1, "from 0 to your resources 10"),
        (10.5, "from 0 to your resources 10"),
        ("5", '"amount" must be a number'),
        (True, '"amount" must be a number'),
        (float("nan"), '"amount" must be a number'),
        (None, '"amount" must be a number'),
    ]:
        assert reason in rules.problem(state, "a", {"type": "donate", "amount": bad})
    assert '"amount"' in rules.problem(state, "a", {"type": "donate", "give": True})
    assert rules.fallback(state, "a", "invalid") == {"type": "donate", "amount": 0}


def test_resources_shown_rounded_are_given_whole_and_the_record_keeps_the_exact_amount():
    rules = game(players=2, rounds=3, cost=3, benefit=4)  # b / c = 4/3: thirds appear
    state = rules.initial_state(1)
    state = rules.apply(state, gifts(rules, [2, 0]))  # b: 10 + 8/3 = 38/3, a prompt's 12.6667
    held = state.totals[1]
    assert held == Fraction(38, 3)
    seen = rules.observe(state, "b")
    assert seen["your_score"] == float(held)
    for shown_as in (float(held), 12.6667):  # the float, and a prompt's six digits
        assert rules.problem(state, "b", {"type": "donate", "amount": shown_as}) is None
    assert rules.problem(state, "b", {"type": "donate", "amount": 12.667}) is not None
    after = rules.apply(state, gifts(rules, [0, 12.6667]))
    assert after.finished[-1].amounts[1] == held  # all of it, exactly, and recorded so
    assert rules.revealed(state, after)["amounts"]["b"] == float(held)


def test_options_continuous_giving_needs_norm_none_and_an_endowment_and_exits_2(tmp_path):
    with pytest.raises(ValueError, match=r"^norm must be none with amount continuous"):
        game(norm="standing")
    with pytest.raises(ValueError, match=r"^endowment must be above 0 with amount continuous"):
        game(endowment=0)
    with pytest.raises(ValueError, match=r"^amount must be one of binary, continuous"):
        game(amount="some")
    with pytest.raises(ValueError, match=r"^trace_links needs second_order"):
        game(trace_links=3)
    done = run_front_door(
        "cli",
        [
            "validate",
            "conf/config.yaml",
            "game=donor_game",
            "game.options.players=2",
            "agent_a=donor_share",
            "agent_b=donor_never_give",
            "game.options.amount=continuous",
        ],
        cwd=ROOT,
        env={**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert done.code == 2
    (line,) = done.stderr.strip().splitlines()
    assert "options.norm: norm must be none with amount continuous" in line
    assert "Traceback" not in done.stderr


def test_a_binary_match_records_no_new_option_and_a_continuous_one_records_them():
    assert "amount" not in recorded_options(build_turn_game("donor_game"))
    assert "trace_links" not in recorded_options(build_turn_game("donor_game"))
    stored = recorded_options(game(second_order=True, trace_links=3))
    assert stored["amount"] == "continuous" and stored["trace_links"] == 3


def test_the_donor_sees_the_recipients_resources_and_its_three_link_trace_with_shares():
    rules = game(players=5, rounds=4, second_order=True, trace_links=3)
    players = {
        s: DONOR_GAME_POLICIES["donor_share"](share=0.25 * i) for i, s in enumerate(rules.seats)
    }
    seen: list = []
    play(rules, players, 3, seen=lambda state, seat, o: seen.append((state, seat, o)))
    for state, seat, shown in seen:
        me = rules.seats.index(seat)
        them = state.recipients[me]
        assert shown["recipient"]["resources"] == float(state.totals[them])
        assert shown["your_score"] == float(state.totals[me])
        assert shown["benefit_factor"] == 2 and shown["endowment"] == 10
        chain, who, number = (
            shown["recipient"]["reputation"]["recent_actions"],
            them,
            shown["round_number"],
        )
        for _ in range(3):  # A's latest gift, then its recipient's before it, then that one's
            done = [r for r in state.finished if r.round_number < number]
            if not done:
                assert chain == []
                break
            (entry,) = chain
            last = done[-1]
            assert entry["round_number"] == last.round_number
            assert entry["amount"] == float(last.amounts[who])
            held = last.resources_before[who]
            assert entry["share"] == (float(last.amounts[who] / held) if held else None)
            who, number = last.recipients[who], last.round_number
            assert entry["recipient"] == state.labels[who]
            chain = entry.get("recipient_recent_actions", [])
        else:
            assert chain == []  # no fourth link
    assert any(len(s["recipient"]["reputation"]["recent_actions"]) for *_, s in seen)


def test_the_house_players_give_shares_and_never_more_than_they_hold():
    rules = game(players=7, rounds=5, recent_actions=2)  # one of each house player
    players = {
        s: DONOR_GAME_POLICIES[name]()
        for s, name in zip(rules.seats, sorted(DONOR_GAME_POLICIES), strict=True)
    }
    lines, final = play(rules, players, 2)  # every answer is checked legal by the loop
    rounds = read_rounds(lines)
    seat = dict(zip(sorted(DONOR_GAME_POLICIES), rules.seats, strict=True))
    first = rounds[0]
    assert first.amounts[seat["donor_share"]] == 5  # half of 10
    assert first.amounts[seat["donor_match_share"]] == 5  # nothing shown: its start, a half
    assert first.amounts[seat["donor_never_give"]] == 0
    held_before = [dict.fromkeys(rules.seats, 10.0)] + [r.resources for r in rounds]
    matcher = seat["donor_match_share"]
    for number in range(1, len(rounds)):  # it gives the share its recipient gave last round
        recipient = rounds[number].recipients[matcher]
        last = rounds[number - 1]
        share = last.amounts[recipient] / held_before[number - 1][recipient]
        expected = share * held_before[number][matcher]
        assert rounds[number].amounts[matcher] == pytest.approx(expected)
    # payoffs of the encounters are the amounts: -x to the donor, (b / c) x to the recipient
    found = encounters(lines, recorded_options(rules))
    assert len(found) == 7 * 5
    for meeting in found:
        played = rounds[found.index(meeting) // 7]
        assert meeting.payoff_first == -played.amounts[meeting.first]
        assert meeting.payoff_second == pytest.approx(2 * played.amounts[meeting.first])
    assert all(t >= 0 for t in final.totals)


def rules_problem(shown, action):
    """The amount's check as the rules make it, from what the donor was shown."""
    held = shown["your_score"]
    return (
        None if 0 <= action["amount"] <= held or f"{action['amount']:g}" == f"{held:g}" else "out"
    )


def test_the_llm_prompt_shows_the_state_the_mock_reads_it_back_and_the_answer_is_an_amount():
    rules = game(players=5, rounds=4, second_order=True, trace_links=3)
    players = {s: DONOR_GAME_POLICIES["donor_match_share"]() for s in rules.seats}
    seen: list = []
    play(rules, players, 7, seen=lambda state, seat, o: seen.append(o))
    for number, shown in enumerate(seen):
        text = render_prompt(ROOT, shown, persona_text(ROOT, shown, "cooperative"))
        assert "GIVE x" in text and "REFUSE" not in text and "{" not in text
        read = read_round_state(text)
        assert read is not None and read["amount"] == "continuous"
        assert read["your_score"] == pytest.approx(shown["your_score"], rel=1e-5)
        assert [
            (e["round_number"], e["recipient"])
            for e in read["recipient"]["reputation"]["recent_actions"]
        ] == [
            (e["round_number"], e["recipient"])
            for e in shown["recipient"]["reputation"]["recent_actions"]
        ]
        answer = mock_play(text, MockBehaviour(), f"k{number}", lean="cooperative", allowed=None)
        action = PROMPTS.action(shown, answer)
        assert rules_problem(shown, action) is None
        assert (
            set(action) == {"type", "amount"}
            and 0 <= action["amount"] <= shown["your_score"] + 1e-5
        )
    state = seen[0]
    assert PROMPTS.action(state, " GIVE 2.5\n") == {"type": "donate", "amount": 2.5}
    assert PROMPTS.action(state, "GIVE 3") == {"type": "donate", "amount": 3}
    for bad in ("GIVE", "REFUSE", "give 2", "GIVE -", "GIVE 2 units"):
        with pytest.raises(ValueError, match="answer GIVE x"):
            PROMPTS.action(state, bad)
    assert PROMPTS.legal_answers(state) is None


def punishing(**options):
    return game(punishment=True, **options)


def test_a_punisher_pays_x_and_its_recipient_loses_the_factor_times_x_never_below_0():
    rules = punishing(players=3, punishment_factor=3, cost=1, benefit=2)
    state = rules.initial_state(4)
    a, b, c = rules.seats
    actions = {
        a: {"type": "punish", "amount": 4},
        b: {"type": "donate", "amount": 1},
        c: {"type": "punish", "amount": 0.5},
    }
    after = rules.apply(state, actions)
    expected = {s: Fraction(10) for s in rules.seats}
    for donor, recipient in enumerate(state.recipients):
        x = Fraction(str(actions[rules.seats[donor]]["amount"]))
        expected[rules.seats[donor]] -= x
        if actions[rules.seats[donor]]["type"] == "punish":
            expected[rules.seats[recipient]] -= 3 * x
        else:
            expected[rules.seats[recipient]] += 2 * x
    floored = {s: max(v, Fraction(0)) for s, v in expected.items()}
    assert dict(zip(rules.seats, after.totals, strict=True)) == floored
    assert min(expected.values()) < 0  # a floor was hit: 12 taken from whoever a punished
    shown = rules.revealed(state, after)
    assert shown["punished"] == {a: True, b: False, c: True}
    rounds = read_rounds([{"round": 1, "phase": "donate", "actions": actions, "revealed": shown}])
    assert rounds[0].gave == {a: False, b: True, c: False}  # a punishment is no gift
    assert rounds[0].punished == {a: True, b: False, c: True}
    # the next donor of a sees it punished, with the factor in its round_state
    seen = [rules.observe(after, s) for s in rules.seats]
    entry = next(
        o["recipient"]["reputation"]["recent_actions"][-1]
        for o in seen
        if o["recipient"]["label"] == after.labels[0]
    )
    assert entry["punished"] is True and entry["amount"] == 4 and entry["gave"] is False
    assert all(o["punishment_factor"] == 3 for o in seen)


def test_punishment_needs_continuous_giving_and_is_refused_without_it():
    with pytest.raises(ValueError, match=r"^punishment needs amount continuous"):
        build_turn_game("donor_game", punishment=True)
    with pytest.raises(ValueError, match=r"^punishment_factor must be above 0"):
        punishing(punishment_factor=0)
    rules = game()
    reason = rules.problem(rules.initial_state(0), "a", {"type": "punish", "amount": 1})
    assert reason == "type must be \"donate\" in the donate phase, got 'punish'"
    assert "PUNISH" not in PROMPTS.fields(rules.observe(rules.initial_state(0), "a"))["state"]
    with pytest.raises(ValueError, match="answer GIVE x, x the number"):
        PROMPTS.action(rules.observe(rules.initial_state(0), "a"), "PUNISH 2")
    stored = recorded_options(punishing())
    assert stored["punishment"] is True and "punishment_factor" not in stored  # the default
    meetings = encounters(
        [
            {
                "round": 1,
                "phase": "donate",
                "actions": {"a": {"type": "punish", "amount": 1}},
                "revealed": {
                    "labels": {"a": "P1", "b": "P2"},
                    "recipients": {"a": "b"},
                    "earnings": {"a": -1, "b": -2},
                    "amounts": {"a": 1},
                    "punished": {"a": True},
                },
            }
        ],
        stored | {"cost": 1, "benefit": 2},
    )
    assert [(m.payoff_first, m.payoff_second) for m in meetings] == [(-1, -2)]


def test_the_prompt_offers_punishment_and_shows_a_punishment_and_the_mock_reads_it():
    rules = punishing(players=3, rounds=2)
    state = rules.initial_state(2)
    state = rules.apply(state, {s: {"type": "punish", "amount": 1} for s in rules.seats})
    shown = rules.observe(state, "a")
    text = render_prompt(ROOT, shown, persona_text(ROOT, shown, "cooperative"))
    assert "PUNISH x" in text and "loses 2 times x units" in text
    assert "spent 1 units (10% of its resources) punishing" in text
    assert "spent 1 units punishing you" in text
    read = read_round_state(text)
    assert read is not None and read["recipient"]["reputation"]["recent_actions"][-1]["punished"]
    assert PROMPTS.action(shown, "PUNISH 1.5") == {"type": "punish", "amount": 1.5}
    # the cooperative mock matches the share its recipient gave: a punisher gets nothing
    answer = mock_play(text, MockBehaviour(), "k", lean="cooperative", allowed=None)
    assert answer == "GIVE 0"


@pytest.mark.parametrize("options", [{}, {"punishment": True, "second_order": True}])
def test_check_games_contract_holds_for_continuous_giving_and_punishment(options):
    """check-game plays the default variant; its checks run here on these (house players'
    whole legal matches, the same again from the seed, the resume, the hidden information)."""
    rules = game(players=5, rounds=4, **options)
    policies = {name: factory() for name, factory in DONOR_GAME_POLICIES.items()}
    check._matches(rules, policies, {}, 3)
    check._refusal_and_fallbacks(rules, 3)
    check._hidden(rules, policies, {}, 3)


def test_an_amount_beyond_the_resources_goes_the_engines_way_reasked_counted_and_marked():
    """Through the turn engine: an LLM-like agent answering more than it holds is re-asked,
    each refusal counted, and the marked fallback (a gift of 0) played, never a clipped gift."""
    import asyncio

    from pdbench.agents.base import AgentBase, TurnDecision, TurnRequest
    from pdbench.agents.policy import TurnPolicyAgent
    from pdbench.runners.turns import SeatRule, play_turn_match

    class Greedy(AgentBase):
        name = "greedy"

        def __init__(self) -> None:
            self.asked = 0

        async def take_turn(self, request: TurnRequest) -> TurnDecision:
            self.asked += 1
            held = request.round_state["your_score"]
            return TurnDecision(action={"type": "donate", "amount": held + 1})

    rules = game(players=2, rounds=2)
    greedy = Greedy()
    other = TurnPolicyAgent(DONOR_GAME_POLICIES["donor_share"](), "share")
    result = asyncio.run(
        play_turn_match(
            rules,
            {"a": greedy, "b": other},
            seed=1,
            agent_seeds={"a": 1, "b": 2},
            rules={"a": SeatRule("fallback", 1), "b": SeatRule()},
            max_turns=10,
        )
    )
    for turn in result.turns:
        seat = turn.seats["a"]
        assert (seat.asked, seat.invalid_outputs, seat.fallback) == (2, 2, True)
        assert "from 0 to your resources" in seat.refused
        assert seat.action == {"type": "donate", "amount": 0}
        assert turn.revealed["amounts"]["a"] == 0
    assert greedy.asked == 4 and result.error is None


def test_the_share_given_is_each_gift_over_the_resources_held_when_it_was_chosen():
    from pdbench.games.donor_game.metrics import match_row

    rules = game(players=3, rounds=3, punishment=True)
    state = rules.initial_state(6)
    answers = [
        [("donate", 5), ("donate", 0), ("punish", 1)],
        [("donate", 2), ("donate", 1), ("donate", 0)],
        [("punish", 0.5), ("donate", 0.25), ("donate", 1)],
    ]
    lines, held, shares = [], [Fraction(10)] * 3, {s: [] for s in rules.seats}
    for number, row in enumerate(answers, start=1):
        actions = {
            s: {"type": kind, "amount": x} for s, (kind, x) in zip(rules.seats, row, strict=True)
        }
        for i, (kind, x) in enumerate(row):
            shares[rules.seats[i]].append(0 if kind == "punish" else Fraction(str(x)) / held[i])
        after = rules.apply(state, actions)
        lines.append(
            {
                "round": number,
                "phase": "donate",
                "actions": actions,
                "revealed": rules.revealed(state, after),
            }
        )
        state, held = after, list(after.totals)
    lines[-1]["outcome"] = {"scores": rules.scores(state), "options": recorded_options(rules)}
    rows = match_row(lines, {**recorded_options(rules), "norm": "none", "endowment": 10})
    for seat, mine in shares.items():
        assert rows[seat]["share_given"] == pytest.approx(float(sum(mine) / 3))
    binary = build_turn_game("donor_game", players=2, rounds=1)
    one = binary.apply(
        binary.initial_state(0), {s: {"type": "donate", "give": True} for s in binary.seats}
    )
    line = {
        "round": 1,
        "phase": "donate",
        "actions": {s: {"type": "donate", "give": True} for s in binary.seats},
        "revealed": binary.revealed(binary.initial_state(0), one),
        "outcome": {"scores": {}, "options": recorded_options(binary)},
    }
    assert match_row([line], recorded_options(binary))["a"]["share_given"] is None
