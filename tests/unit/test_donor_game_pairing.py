"""Vallinder & Hughes's pairing (`pairing: halves`, issue 45), checked from the stored rounds
against their notebook (aronvallinder/llm-donor-game@c53df27,
Donor_Game_with_Cultural_Evolution.ipynb): the agents shuffled each generation (lines 290,
1086) and split into halves A and B; `bipartiteRoundRobin` (lines 302-319) pairs A's k-th with
B rotated by i in round i, A donating in its even rounds and B in its odd ones; `extendRounds`
(lines 330-337) appends the same rounds with every pair reversed; game 2 replays game 1 with
every pair reversed (line 679). So each player donates 6 times in a game of 12 rounds with 12
agents. The default (`everyone`) is unchanged (its golden records and the rules' tests)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from in_process import run_front_door
from public_goods_loop import play

from pdbench.agents.judged_prompts import persona_text, render_prompt
from pdbench.config.schema import MockBehaviour
from pdbench.games import check
from pdbench.games.base import recorded_options
from pdbench.games.donor_game.metrics import encounters, images_under, match_row
from pdbench.games.donor_game.mock import play as mock_play
from pdbench.games.donor_game.policies import DONOR_GAME_POLICIES
from pdbench.games.donor_game.prompts import PROMPTS
from pdbench.games.donor_game.stored import read_rounds
from pdbench.games.registry import build_turn_game
from pdbench.games.replay import replay

ROOT = Path(__file__).resolve().parents[2]
VALLINDER_HUGHES = {  # the preset's game, 2 generations
    "players": 12,
    "rounds": 12,
    "generations": 2,
    "games_per_generation": 2,
    "amount": "continuous",
    "norm": "none",
    "endowment": 10,
    "recent_actions": 1,
    "second_order": True,
    "trace_links": 3,
    "pairing": "halves",
}
KINDS = ["donor_share", "donor_never_give", "donor_match_share", "donor_always_give"]


def game(**options):
    return build_turn_game("donor_game", **{**VALLINDER_HUGHES, **options})


def house(rules):
    return {
        seat: DONOR_GAME_POLICIES[KINDS[i % len(KINDS)]]() for i, seat in enumerate(rules.seats)
    }


def finished(lines, rules):
    lines[-1]["outcome"] = {"scores": {}, "options": recorded_options(rules)}
    return lines


def test_each_player_donates_half_a_games_rounds_with_roles_as_the_notebook_has_them():
    rules = game()
    seen: list = []
    lines, _ = play(rules, house(rules), 3, seen=lambda s, seat, o: seen.append(o))
    rounds = read_rounds(lines)
    assert len(rounds) == 2 * 2 * 12
    donating = [line for line in lines if line["phase"] == "donate"]
    everyone = set(rules.seats)
    for line, played in zip(donating, rounds, strict=True):
        assert set(line["seats"]) == set(played.recipients)  # only the donors were asked
        donors, recipients = set(played.recipients), set(played.recipients.values())
        assert len(donors) == 6 and donors | recipients == everyone  # each is one of the two
    by_game: dict = {}
    for played in rounds:
        by_game.setdefault((played.generation, played.game), []).append(played.recipients)
    halves = {}
    for (generation, number), pairs in by_game.items():
        for seat in everyone:  # 6 donations a game (numAgents // 2), 6 receptions
            assert sum(seat in p for p in pairs) == 6
            assert sum(seat in p.values() for p in pairs) == 6
        # the halves: A donates in round 1 of game 1; nobody meets its own half
        first = set(by_game[(generation, 1)][0])
        halves[generation] = frozenset(first)
        for p in pairs:
            assert all((d in first) != (r in first) for d, r in p.items())
        # bipartiteRoundRobin: roles alternate over the first 6 rounds, each meeting once
        assert all(set(pairs[r + 1]) == set(pairs[r].values()) for r in range(5))
        met = {frozenset(item) for p in pairs[:6] for item in p.items()}
        assert len(met) == 36
        # extendRounds: rounds 7..12 are rounds 1..6 with every pair reversed
        for r in range(6):
            assert pairs[r + 6] == {b: a for a, b in pairs[r].items()}
        if number == 2:  # game 2: game 1's rounds with every pair reversed (line 679)
            for one, two in zip(by_game[(generation, 1)], pairs, strict=True):
                assert two == {b: a for a, b in one.items()}
    assert halves[1] != halves[2]  # reshuffled each generation (line 1086)
    # what a donor is shown: its recipient's latest donation (the trace's first link)
    for shown in seen:
        if shown["phase"] != "donate":
            continue
        for entry in shown["recipient"]["reputation"]["recent_actions"]:
            donated = rounds[entry["round_number"] - 1]
            label = shown["recipient"]["label"]
            seat = next(s for s, lab in donated.labels.items() if lab == label)
            assert seat in donated.recipients
    assert play(rules, house(rules), 3)[0] == lines  # the same seed, the same rounds


def test_only_donors_act_and_the_length_counts_a_seats_donations():
    rules = game()
    length = rules.fixed_length()
    assert (length.rounds, length.turns) == (48, 48 + 2)
    assert length.turns_per_seat == 2 * (6 + 6) + 2  # 12 donations a generation, a strategy
    paper = game(generations=10)
    assert paper.fixed_length().turns_per_seat == 10 * 12 + 10
    short = game(rounds=3, generations=1, games_per_generation=1)  # A donates in 1 and 3
    lines, _ = play(short, house(short), 0)
    asked: dict = {}
    for line in lines:
        for seat in line["seats"]:
            asked[seat] = asked.get(seat, 0) + 1
    assert max(asked.values()) == short.fixed_length().turns_per_seat == 2
    assert min(asked.values()) == 1


def test_under_a_norm_a_recipient_keeps_its_image_and_the_measures_count_its_own_rounds():
    rules = build_turn_game(
        "donor_game", players=4, rounds=4, norm="stern_judging", pairing="halves"
    )
    kinds = ["donor_discriminator", "donor_never_give", "donor_random", "donor_always_give"]
    players = {s: DONOR_GAME_POLICIES[kinds[i]]() for i, s in enumerate(rules.seats)}
    lines, final = play(rules, players, 5)
    rounds = read_rounds(finished(lines, rules))
    for played in rounds:
        for seat in set(rules.seats) - set(played.recipients):
            assert played.images[seat] == played.images_before[seat]
    assert images_under("stern_judging", rounds)[1:] == [r.images for r in rounds]
    rows = match_row(lines, recorded_options(rules))
    for seat in rules.seats:
        mine = [r for r in rounds if seat in r.recipients]
        theirs = [r.gave[r.donor_of(seat)] for r in rounds if r.donor_of(seat) is not None]
        assert rows[seat]["choices"] == len(mine) == 2 and rows[seat]["receptions"] == 2
        assert rows[seat]["giving_rate"] == sum(r.gave[seat] for r in mine) / 2
        assert rows[seat]["received_rate"] == sum(theirs) / 2
    assert rules.scores(final) == {s: sum(r.earnings[s] for r in rounds) for s in rules.seats}
    # the tournament's view: the stored actions replay to the scores, an encounter a donation
    assert rules.scores(replay(rules, 5, [line["actions"] for line in lines])) == rules.scores(
        final
    )
    found = encounters(lines, recorded_options(rules))
    assert [(e.first, e.second) for e in found] == [
        pair for r in rounds for pair in sorted(r.recipients.items())
    ]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"amount": "binary", "norm": "standing", "endowment": 0, "generations": 1},
        {"punishment": True, "generations": 1, "rounds": 4, "players": 6},
    ],
)
def test_check_games_contract_holds_under_halves(options):
    rules = game(**{"players": 6, "rounds": 4, **options})
    policies = {name: factory() for name, factory in DONOR_GAME_POLICIES.items()}
    check._matches(rules, policies, {}, 2)
    check._refusal_and_fallbacks(rules, 2)
    check._hidden(rules, policies, {}, 2)


@pytest.mark.parametrize("amount", ["binary", "continuous"])
def test_the_prompt_shows_a_halves_history_and_the_mock_answers_it(amount):
    options = {"norm": "image_scoring", "endowment": 0} if amount == "binary" else {}
    rules = game(players=4, rounds=4, generations=1, amount=amount, **options)
    players = {s: DONOR_GAME_POLICIES["donor_match_share"]() for s in rules.seats}
    seen: list = []
    play(rules, players, 2, seen=lambda state, seat, o: seen.append(o))
    pasts = [past for shown in seen for past in shown["history"]]
    assert any("gave_to" not in past for past in pasts)  # a round it only received
    assert any("received_from" not in past for past in pasts)  # a round it only gave
    for number, shown in enumerate(seen):
        text = render_prompt(ROOT, shown, persona_text(ROOT, shown, "cooperative"))
        assert "{" not in text and "None" not in text
        # the rules say how players pair, as V&H's prompt does (ipynb line 1127)
        assert "you will usually be a recipient in the next" in text
        assert "a donor once, to a recipient drawn at random" not in text
        for past in shown["history"]:
            assert f"- round {past['round_number']}: " in text
        answer = mock_play(text, MockBehaviour(), f"k{number}", lean="cooperative", allowed=None)
        action = PROMPTS.action(shown, answer)
        if amount == "binary":
            assert set(action) == {"type", "give"} and isinstance(action["give"], bool)
        else:
            assert 0 <= action["amount"] <= shown["your_score"] + 1e-5


def test_the_strategy_prompt_says_how_players_pair():
    rules = game(players=4, rounds=2)
    seen: list = []
    play(rules, house(rules), 2, seen=lambda state, seat, o: seen.append(o))
    shown = next(o for o in seen if o["phase"] == "strategy")
    assert shown["rules"]["pairing"] == "halves"
    text = render_prompt(ROOT, shown, persona_text(ROOT, shown, None))
    assert (
        "you will usually be a recipient in the next, and vice versa), and the donor gives" in text
    )


def test_the_option_is_recorded_only_when_set_and_bad_values_exit_2(tmp_path):
    assert "pairing" not in recorded_options(build_turn_game("donor_game"))
    assert recorded_options(game())["pairing"] == "halves"
    with pytest.raises(ValueError, match=r"^pairing must be one of everyone, halves"):
        game(pairing="pairs")
    with pytest.raises(ValueError, match=r"^players must be even with pairing halves"):
        game(players=5, rounds=4)
    with pytest.raises(ValueError, match=r"^rounds must be at most players \(12\)"):
        game(rounds=13)
    done = run_front_door(
        "cli",
        [
            "validate",
            "conf/config.yaml",
            "game=donor_game",
            "game.options.players=3",
            "agent_a=donor_share",
            "agent_b=donor_never_give",
            "agent_c=donor_never_give",
            "game.options.pairing=halves",
        ],
        cwd=ROOT,
        env={**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert done.code == 2
    (line,) = done.stderr.strip().splitlines()
    assert "options.players: players must be even with pairing halves" in line
    assert "Traceback" not in done.stderr


def test_the_viewer_reads_a_halves_match_each_round_its_donors_only():
    from pdbench.games.donor_game.view import _variant, gift_frame, giving_frame, norm_frame
    from pdbench.ui.game_views import MatchView, game_view

    rules = build_turn_game("donor_game", players=4, rounds=4, norm="standing", pairing="halves")
    lines, final = play(rules, house(rules), 1)
    lines[-1]["outcome"] = {"scores": rules.scores(final), "options": recorded_options(rules)}
    rounds = read_rounds(lines)
    frame = giving_frame(rounds, {})
    assert len(frame) == 4 * 2  # two donors a round
    gifts = gift_frame(rounds, {})
    # each player of a half gives once to each of the other half, never within its own
    assert sorted(gifts["met"]) == [0] * 4 + [1] * 8
    assert set(norm_frame(rounds, recorded_options(rules), {})["choices"]) == {2}
    view = game_view("donor_game")
    assert view is not None
    view.render_transcript(MatchView(lines, {}, {}, seed=1))
    assert "Half the players donate a round" in _variant(
        recorded_options(rules)
    )  # bare Streamlit: no page, no error
