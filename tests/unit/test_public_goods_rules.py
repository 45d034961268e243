"""The public goods game's rules: payoffs worked by hand (with punishment, the no-negative rule,
pgg_bench's balance accounting and caps, its own worked example), the phases and the rotating
talk order, the answers refused and the fallbacks."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pdbench.games.base import TurnGame
from pdbench.games.public_goods.payoff import PunishRules, fund, resolve_punishment
from pdbench.games.public_goods.rules import PublicGoods


def labels_of(game, state):
    """seat -> its label this round (what its own observation says)."""
    return {seat: game.observe(state, seat)["you"] for seat in game.seats}


def play_rounds(game, script, seed=3):
    """Play the game with scripted answers: `script(round, phase, state, labels)` gives
    {seat: action} for the seats to move. Returns the final state and every revealed record."""
    state, revealed = game.initial_state(seed), []
    while not game.match_over(state):
        labels = labels_of(game, state)
        actions = script(state.round_number, state.phase, state, labels)
        before = state
        state = game.apply(state, actions)
        revealed.append(game.revealed(before, state))
    return state, revealed


def contributions(amounts):
    return {seat: {"type": "contribute", "amount": c} for seat, c in amounts.items()}


def punishments(given, labels, seats):
    """given: seat -> {target seat: points}, written with the round's labels."""
    return {
        seat: {"type": "punish", "points": {labels[t]: n for t, n in given.get(seat, {}).items()}}
        for seat in seats
    }


def test_the_rules_are_a_turn_game_with_one_letter_seat_per_player():
    game = PublicGoods(players=3, groups=2)
    assert isinstance(game, TurnGame)
    assert game.seats == ("a", "b", "c", "d", "e", "f")
    assert (game.id, game.platform_name, game.third_roles) == ("public_goods", "public-goods", ())
    assert PublicGoods(players=10, groups=3).seats[25:28] == ("z", "za", "zb")


def test_one_round_pays_e_minus_c_plus_m_times_the_sum_over_n():
    game = PublicGoods(players=4, rounds=1)
    amounts = {"a": 20, "b": 10, "c": 0, "d": 5}  # sum 35, each share 1.6 * 35 / 4 = 14
    state, revealed = play_rounds(game, lambda *_: contributions(amounts))
    assert game.scores(state) == {"a": 14.0, "b": 24.0, "c": 34.0, "d": 29.0}
    assert revealed[-1]["earnings"] == {"a": 14.0, "b": 24.0, "c": 34.0, "d": 29.0}
    assert revealed[-1]["contributions"] == amounts


def test_the_share_is_exact_and_scores_add_up_over_rounds():
    game = PublicGoods(players=4, rounds=3)  # share 0.4 * 7 = 2.8 a round, summed exactly
    state, _ = play_rounds(game, lambda *_: contributions({"a": 7, "b": 0, "c": 0, "d": 0}))
    assert game.scores(state) == {"a": 47.4, "b": 68.4, "c": 68.4, "d": 68.4}
    assert 3 * (20 - 7 + 1.6 * 7 / 4) != 47.4  # what float arithmetic would have stored


def punishing_script(amounts, given):
    def script(number, phase, state, labels):
        if phase == "contribute":
            return contributions(amounts)
        return punishments(given, labels, amounts)

    return script


def test_punishment_costs_the_giver_and_fines_the_target_by_hand():
    game = PublicGoods(players=4, rounds=1, punish=True, negative_earnings=True)
    amounts = {"a": 20, "b": 10, "c": 0, "d": 5}  # first stage 14, 24, 34, 29
    given = {"a": {"c": 2}, "b": {"c": 1, "d": 1}, "c": {"a": 3}}
    state, revealed = play_rounds(game, punishing_script(amounts, given))
    # a: 14 - 2 - 9, b: 24 - 2, c: 34 - 3 - 9, d: 29 - 3
    assert game.scores(state) == {"a": 3.0, "b": 22.0, "c": 22.0, "d": 26.0}
    assert revealed[-1]["punished"] == given
    assert "requested" not in revealed[-1]


def test_negative_earnings_are_the_formula_when_allowed_and_cut_at_zero_by_default():
    amounts = {"a": 20, "b": 0, "c": 0, "d": 0}  # first stage: a 8, the others 28
    given = {"b": {"a": 3}, "c": {"a": 3}, "d": {"a": 3}}  # 27 in fines for a
    allowed = PublicGoods(players=4, rounds=1, punish=True, negative_earnings=True)
    state, _ = play_rounds(allowed, punishing_script(amounts, given))
    assert allowed.scores(state) == {"a": -19.0, "b": 25.0, "c": 25.0, "d": 25.0}
    default = PublicGoods(players=4, rounds=1, punish=True)
    state, revealed = play_rounds(default, punishing_script(amounts, given))
    assert default.scores(state) == {"a": 0.0, "b": 25.0, "c": 25.0, "d": 25.0}
    assert revealed[-1]["punished"] == given  # the points stand; the fine is cut at a's 8


def test_by_default_nobody_spends_more_on_punishing_than_its_first_stage_earnings():
    game = PublicGoods(players=4, rounds=1, punish=True)
    state = game.apply(game.initial_state(1), contributions({"a": 20, "b": 0, "c": 0, "d": 0}))
    seen = game.observe(state, "a")
    assert seen["max_punish"] == 8  # a earned 8 in the contribution stage, a point costs 1
    other = next(label for label in seen["players"] if label != seen["you"])
    reason = game.problem(state, "a", {"type": "punish", "points": {other: 9}})
    assert reason is not None and "at most 8 points" in reason
    assert game.problem(state, "a", {"type": "punish", "points": {other: 8}}) is None
    assert game.observe(state, "b")["max_punish"] == 10
    loose = PublicGoods(players=4, rounds=1, punish=True, negative_earnings=True)
    state = loose.apply(loose.initial_state(1), contributions({"a": 20, "b": 0, "c": 0, "d": 0}))
    assert loose.observe(state, "a")["max_punish"] == 10


def test_pgg_banks_worked_example_of_its_prompt_gives_its_numbers():
    """lechmazur/pgg_bench prompts/prompt_choose_with_msgs.txt: P1=15, P2=15, P3=20 contribute
    5, 3, 5: sum 13, x1.6 = 20, share 6, leftover 2; balances 16, 18, 21. P1 spends 4 on P3:
    raw damage 12 > half of 21, cut to 3 points (damage 9, refund 1): P1 13, P3 12; then P2
    spends 2 on P3: 6 <= half of 12: P2 16, P3 6."""
    paid = fund([5, 3, 5], Fraction(8, 5), Fraction(0), whole=True)
    assert (paid.pot, paid.share, paid.leftover) == (20, 6, 2)
    purses = {0: 15 - 5 + paid.share, 1: 15 - 3 + paid.share, 2: 20 - 5 + paid.share}
    assert purses == {0: 16, 1: 18, 2: 21}
    rules = PunishRules(Fraction(1), Fraction(3), True, Fraction(1, 2), Fraction(100))
    result = resolve_punishment(purses, {0: {2: 4}, 1: {2: 2}, 2: {}}, rules, order=(0, 1, 2))
    assert result.applied == {0: {2: 3}, 1: {2: 2}}
    assert result.purses == {0: 13, 1: 16, 2: 6}


def test_balance_accounting_shares_whole_units_and_carries_the_remainder():
    game = PublicGoods(players=5, rounds=2, accounting="balance")
    rounds = {1: {"a": 10, "b": 10, "c": 10, "d": 10, "e": 9}, 2: dict.fromkeys("abcde", 0)}
    state, revealed = play_rounds(game, lambda number, *_: contributions(rounds[number]))
    # round 1: 49 x 1.6 = 78.4 -> 78, share 15, 3 left; round 2: 3 x 1.6 = 4.8 -> 4, share 0
    assert revealed[0]["funds"] == [{"carry_in": 0, "pot": 78, "share": 15, "leftover": 3}]
    assert revealed[1]["funds"] == [{"carry_in": 3, "pot": 4, "share": 0, "leftover": 4}]
    assert game.scores(state) == {"a": 25.0, "b": 25.0, "c": 25.0, "d": 25.0, "e": 26.0}
    assert revealed[1]["earnings"] == dict.fromkeys("abcde", 0.0)


def test_under_balance_accounting_a_player_contributes_from_its_balance():
    game = PublicGoods(players=2, rounds=2, accounting="balance", multiplier=1.5)
    state = game.apply(game.initial_state(0), contributions({"a": 20, "b": 0}))  # a 15, b 35
    assert game.observe(state, "b")["endowment"] == 35
    assert game.problem(state, "b", {"type": "contribute", "amount": 35}) is None
    assert "from 0 to 15" in game.problem(state, "a", {"type": "contribute", "amount": 16})


def test_one_target_and_the_caps_are_pgg_banks_rules():
    game = PublicGoods(
        players=3,
        rounds=1,
        punish=True,
        punish_one_target=True,
        punish_cap_fraction=0.5,
        punish_cap_absolute=100,
    )
    state = game.apply(game.initial_state(2), contributions({"a": 0, "b": 20, "c": 20}))
    seen = game.observe(state, "b")
    others = [label for label in seen["players"] if label != seen["you"]]
    both = {"type": "punish", "points": {others[0]: 1, others[1]: 1}}
    assert game.problem(state, "b", both) == "you may punish at most one player a round"
    labels = labels_of(game, state)
    # a earned 20 + 1.6 * 40 / 3 = 41.33: b's 10 points (30) are cut at half of it to 6 (18)
    state = game.apply(state, punishments({"b": {"a": 10}}, labels, "abc"))
    record = state.finished[-1]
    assert record.applied[1] == {0: 6} and record.requested[1] == {0: 10}
    a_first = Fraction(20) + Fraction(8, 5) * 40 / 3
    assert record.earnings[0] == a_first - 18 and record.earnings[1] == a_first - 20 - 6


def test_each_round_has_talk_in_turn_then_contributions_then_punishment():
    game = PublicGoods(players=3, rounds=3, talk=True, punish=True)
    state, order = game.initial_state(5), []
    while not game.match_over(state):
        seats = game.to_move(state)
        phase = state.phase
        if phase == "talk":
            assert len(seats) == 1
            order.append((state.round_number, game.observe(state, seats[0])["you"]))
        order.append((state.round_number, phase)) if phase != "talk" else None
        state = game.apply(state, {seat: game.fallback(state, seat, "timeout") for seat in seats})
    talk = [(number, label) for number, label in order if label.startswith("P")]
    assert talk == [
        (1, "P1"), (1, "P2"), (1, "P3"), (2, "P2"), (2, "P3"), (2, "P1"),
        (3, "P3"), (3, "P1"), (3, "P2"),
    ]  # fmt: skip
    phases = [item for item in order if not item[1].startswith("P")]
    assert phases == [(n, p) for n in (1, 2, 3) for p in ("contribute", "punish")]
    assert game.round_number(state) == 4


def test_messages_are_shown_in_the_order_said_with_their_authors():
    game = PublicGoods(players=3, rounds=1, talk=True)
    state = game.initial_state(0)
    said = []
    for turn in range(3):
        (seat,) = game.to_move(state)
        label = game.observe(state, seat)["you"]
        assert game.observe(state, seat)["messages"] == said
        said.append({"author": label, "text": f"turn {turn}"})
        state = game.apply(state, {seat: {"type": "message", "text": f"turn {turn}"}})
    assert state.phase == "contribute"
    assert all(game.observe(state, seat)["messages"] == said for seat in game.seats)


def test_punish_rounds_limit_the_punish_phase_to_a_span_of_rounds():
    game = PublicGoods(players=2, rounds=4, punish=True, punish_rounds=[3, 4])
    assert game.punish_rounds == (3, 4)
    state, phases = game.initial_state(0), []
    while not game.match_over(state):
        phases.append((state.round_number, state.phase))
        seats = game.to_move(state)
        state = game.apply(state, {seat: game.fallback(state, seat, "invalid") for seat in seats})
    assert [n for n, phase in phases if phase == "punish"] == [3, 4]


@pytest.mark.parametrize(
    ("phase_action", "expected"),
    [
        ({"type": "punish", "points": {}}, 'type must be "contribute" in the contribute phase'),
        ({"type": "contribute", "amount": 21}, '"amount" must be a whole number from 0 to 20'),
        ({"type": "contribute", "amount": -1}, "from 0 to 20, got -1"),
        ({"type": "contribute", "amount": 2.5}, "got 2.5"),
        ({"type": "contribute", "amount": True}, "got True"),
        ({"type": "contribute"}, "got None"),
        ("contribute 5", 'a JSON object with a "type"'),
    ],
)
def test_a_contribution_the_rules_refuse_says_why(phase_action, expected):
    game = PublicGoods()
    reason = game.problem(game.initial_state(0), "a", phase_action)
    assert reason is not None and expected in reason


def test_a_punishment_the_rules_refuse_says_why():
    game = PublicGoods(players=3, groups=2, rounds=1, punish=True)
    state = game.apply(game.initial_state(0), contributions(dict.fromkeys(game.seats, 10)))
    seen = game.observe(state, "a")
    other = next(label for label in seen["players"] if label != seen["you"])
    for points, expected in [
        ({seen["you"]: 1}, "is not another player of your group"),
        ({"P9": 1}, "is not another player of your group"),
        ({other: -1}, "a whole number of at least 0"),
        ({other: 11}, "at most 10 points a round in all"),
        ([other], '"points" is an object'),
    ]:
        reason = game.problem(state, "a", {"type": "punish", "points": points})
        assert reason is not None and expected in reason, (points, reason)
    assert game.problem(state, "a", {"type": "punish", "points": {other: 0}}) is None
    assert game.problem(game.initial_state(0), "zz", {"type": "contribute", "amount": 1})


def test_long_messages_are_refused_by_characters_and_by_words():
    game = PublicGoods(talk=True, talk_max_words=3)
    state = game.initial_state(0)
    (seat,) = game.to_move(state)
    assert "at most 3 words" in game.problem(state, seat, {"type": "message", "text": "a b c d"})
    long = {"type": "message", "text": "x" * 281}
    assert "at most 280 characters, this one has 281" in game.problem(state, seat, long)
    assert game.problem(state, seat, {"type": "message", "text": ""}) is None
    assert "is a string" in game.problem(state, seat, {"type": "message", "text": 5})


def test_the_fallbacks_say_nothing_contribute_nothing_and_punish_nobody():
    game = PublicGoods(players=2, rounds=1, talk=True, punish=True)
    state = game.initial_state(0)
    answers = []
    while not game.match_over(state):
        seats = game.to_move(state)
        actions = {seat: game.fallback(state, seat, "timeout") for seat in seats}
        assert all(game.problem(state, seat, a) is None for seat, a in actions.items())
        answers.extend(actions.values())
        state = game.apply(state, actions)
    assert {"type": "message", "text": ""} in answers
    assert {"type": "contribute", "amount": 0} in answers
    assert {"type": "punish", "points": {}} in answers
    assert game.scores(state) == {"a": 20.0, "b": 20.0}


def test_the_round_limit_is_shown_only_when_disclosed():
    assert (
        PublicGoods(rounds=7).observe(PublicGoods(rounds=7).initial_state(0), "a")["round_limit"]
        == 7
    )
    hidden = PublicGoods(rounds=7, round_limit_disclosed=False)
    assert hidden.observe(hidden.initial_state(0), "a")["round_limit"] is None


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"players": 1}, "players must be from 2 to 10, got 1"),
        ({"players": 11}, "players must be from 2 to 10"),
        ({"endowment": True}, "endowment must be a whole number"),
        ({"multiplier": 0}, "multiplier must be above 0"),
        ({"matching": "random"}, "matching must be one of partners, strangers"),
        ({"accounting": "balance", "matching": "strangers"}, "needs matching partners"),
        (
            {"punish": True, "punish_rounds": [3, 2]},
            "punish_rounds' last round must be from 3 to 10",
        ),
        ({"punish": True, "punish_rounds": [0, 2]}, "punish_rounds' first round must be from 1"),
        ({"punish": True, "punish_rounds": 6}, r"punish_rounds must be \[first, last\], got 6"),
        ({"punish_rounds": [1, 6]}, "punish_rounds needs punish true"),
        ({"matching": "perfect_strangers", "groups": 6, "rounds": 6}, "the fewest that works is 7"),
        ({"stranger_block": 3}, "stranger_block is for matching perfect_strangers only"),
        ({"talk": "yes"}, "talk must be true or false"),
    ],
)
def test_a_bad_option_is_refused_naming_it(options, named):
    with pytest.raises(ValueError, match=named):
        PublicGoods(**options)


def test_a_seed_is_a_whole_number():
    with pytest.raises(ValueError, match="seed"):
        PublicGoods().initial_state(-1)


def test_under_balance_accounting_nobody_spends_more_on_punishing_than_its_balance():
    game = PublicGoods(players=2, rounds=1, punish=True, accounting="balance", multiplier=1.5)
    state = game.apply(game.initial_state(0), contributions({"a": 20, "b": 0}))  # a 15, b 35
    assert game.observe(state, "a")["max_punish"] == 10
    poor = PublicGoods(
        players=2, rounds=1, punish=True, accounting="balance", multiplier=1.5, max_punish=40
    )
    state = poor.apply(poor.initial_state(0), contributions({"a": 20, "b": 0}))
    seen = poor.observe(state, "a")
    other = next(label for label in seen["players"] if label != seen["you"])
    assert seen["max_punish"] == 15
    reason = poor.problem(state, "a", {"type": "punish", "points": {other: 16}})
    assert "you may not spend more than your balance" in reason
