"""The judged games' transcripts (analysis.per_run.passcode_transcript, debate_transcript) and
their viewer pages (ui.game_views), from the turn lines a run stores: every question with the
Keeper's private answer to it, the word only once the rules reveal it; every phase's speeches and
the judge's responses, the scenario and persona, the decision, a panel's verdicts, swap pairs."""

from __future__ import annotations

import asyncio
import json

import pytest
from streamlit.testing.v1 import AppTest

from pdbench.agents.policy import TurnPolicyAgent
from pdbench.games.debate.transcript import debate_transcript
from pdbench.games.metric_rows import game_metric_rows
from pdbench.games.passcode.transcript import passcode_transcript
from pdbench.games.registry import TURN_GAMES, build_turn_game, house_factories
from pdbench.runners.turn_records import turn_line
from pdbench.runners.turns import SeatRule, play_turn_match
from pdbench.ui.game_views import game_view


def stored_turns(game_id: str, players: tuple[str, str], third: dict[str, str], **options):
    """A whole match's rounds.jsonl lines (house players and third parties), as read back."""
    game = build_turn_game(game_id, **options)
    factories = house_factories(game_id)
    agents = {
        seat: TurnPolicyAgent(factories[name](), name.upper())
        for seat, name in zip("ab", players, strict=True)
    }
    agents |= {
        role: TurnPolicyAgent(factories[name](), name.upper()) for role, name in third.items()
    }
    seats = {*agents, *(f"{role}:{s}" for role in third for s in "ab")}
    result = asyncio.run(
        play_turn_match(
            game, agents, seed=11, agent_seeds=dict.fromkeys(agents, 1),
            rules={seat: SeatRule() for seat in seats}, max_turns=2000,
        )
    )  # fmt: skip
    assert result.completed
    lines = [turn_line({"condition": "c"}, t, marked={}, store_prompts=True) for t in result.turns]
    return json.loads(json.dumps(lines))


@pytest.fixture(scope="module")
def passcode_turns():
    return stored_turns(
        "passcode", ("passcode_halving", "passcode_lengths"), {"keeper": "truthful"},
        words_per_match=2, round_limit=10,
    )  # fmt: skip


@pytest.fixture(scope="module")
def debate_turns():
    return stored_turns(
        "nuclear_war", ("debate_fixed", "debate_priorities"), {"judge": "scripted_judge"},
        rounds=2, swap_sides=True,
    )  # fmt: skip


def test_every_turn_game_has_a_page_whose_measures_the_aggregates_store():
    assert all(entry.view for entry in TURN_GAMES.values())  # the registry names each page
    for game_id in TURN_GAMES:
        view = game_view(game_id)
        assert view is not None and callable(view.render_transcript)
        stored = {row.stem for row in game_metric_rows(game_id)}
        if TURN_GAMES[game_id].ranked_on == "wins":  # a contest shows its win rate first
            assert view.MEASURES[0].stem == "win_rate"
        assert view.MEASURES and {m.stem for m in view.MEASURES} <= stored, game_id


def test_passcode_keeps_each_players_questions_and_answers_and_the_word_until_revealed(
    passcode_turns,
):
    transcript = passcode_transcript(passcode_turns)
    rows = transcript.exchanges
    questions = [t for t in passcode_turns if t["phase"] == "question"]
    answers = [t for t in passcode_turns if t["phase"] == "answer"]
    assert len(rows) == 2 * len(questions)
    for seat in "ab":
        mine = rows[rows["player"] == seat]
        assert list(mine["question"]) == [t["actions"][seat]["text"] for t in questions]
        assert list(mine["answer"]) == [t["actions"][f"keeper:{seat}"]["text"] for t in answers]
    ended = [t["revealed"]["word"] for t in passcode_turns if (t["revealed"] or {}).get("word")]
    words = transcript.words
    assert list(words["secret_word"]) == [w["secret_word"] for w in ended]
    assert list(words["rounds"]) == [w["rounds"] for w in ended]
    assert list(words["word"]) == [1, 2] and sorted(set(rows["word"])) == [1, 2]

    # a match cut in the middle of its second word: its word is never shown
    second = next(i for i, t in enumerate(passcode_turns) if (t["revealed"] or {}).get("word"))
    cut = passcode_transcript(passcode_turns[: second + 3])
    assert list(cut.words["secret_word"]) == [ended[0]["secret_word"], None]
    in_play = cut.exchanges[cut.exchanges["word"] == 2]
    assert in_play["guess"].isna().all() and in_play["answer"].notna().all()


def test_the_passcode_page_shows_the_word_in_the_round_that_revealed_it(passcode_turns):
    shown = _page("passcode", passcode_turns[:-1])  # the last guesses not stored yet
    word = passcode_transcript(passcode_turns).words
    first, second = word["secret_word"]
    assert any(first in m for m in shown.headers if "revealed the word" in m)
    # the second word's last guess turn is missing: every round of it says the word is hidden
    assert not any(second in m for m in shown.headers)
    assert "Keeper, to A only" in shown.text and "Question:" in shown.text


def test_a_debate_is_told_phase_by_phase_with_its_scenario_and_swap_pairs(debate_turns):
    seed = 11
    transcript = debate_transcript(
        debate_turns, "nuclear_war", {"rounds": 2, "swap_sides": True}, seed
    )
    assert transcript.problem is None and len(transcript.rounds) == 4
    first = transcript.rounds[0]
    assert list(dict.fromkeys(first.speeches["phase"])) == list(
        build_turn_game("nuclear_war").phases
    )
    # each phase: both players in speaking order, then the judge
    intro = first.speeches[first.speeches["phase"] == "intro"]
    assert list(intro["speaker"]) == [
        first.first_speaker,
        "b" if first.first_speaker == "a" else "a",
        "judge",
    ]
    assert first.persona["name"] and "decision_style" not in first.persona_seen
    assert {"name", "priorities"} <= first.persona_seen and first.context["country"]
    decisions = [
        t["revealed"]["decision"] for t in debate_turns if (t["revealed"] or {}).get("decision")
    ]
    assert [r.decision.winner_side for r in transcript.rounds] == [
        d["winner_side"] for d in decisions
    ]
    pairs = transcript.pairs
    assert list(pairs["first_round"]) == [1, 3] and list(pairs["second_round"]) == [2, 4]
    for pair in pairs.itertuples():
        a, b = transcript.rounds[pair.first_round - 1], transcript.rounds[pair.second_round - 1]
        assert a.sides == {"a": b.sides["b"], "b": b.sides["a"]}  # swapped
        same_seat = a.decision.winner_seat == b.decision.winner_seat
        assert pair.follows == ("player" if same_seat else "side")

    # a scenario that is not the one the decision stored is said, never shown wrong
    tampered = json.loads(json.dumps(debate_turns))
    for line in tampered:
        if (line["revealed"] or {}).get("decision"):
            line["revealed"]["scenario"]["president"] += 1
            break
    wrong = debate_transcript(tampered, "nuclear_war", {"rounds": 2, "swap_sides": True}, seed)
    assert wrong.rounds[0].problem and not wrong.rounds[0].persona
    # without the seed: the debate and the stored sides, no scenario
    unknown = debate_transcript(
        debate_turns, "nuclear_war", {"rounds": 2, "swap_sides": True}, None
    )
    assert (
        unknown.problem and unknown.rounds[0].sides == first.sides and not unknown.rounds[0].persona
    )


def test_the_debate_page_shows_phases_the_judge_and_the_decision(debate_turns):
    shown = _page("nuclear_war", debate_turns, options={"rounds": 2, "swap_sides": True})
    assert "scenario 1, positions swapped" in " ".join(shown.headers)
    assert "The verdict followed the" in shown.text
    assert "**intro**" in shown.text and "**closing**" in shown.text
    assert "(president, the judge)" in shown.text and "the judge's alone" in shown.text
    assert sum("Decision:" in s for s in shown.success) == 4


class Shown:
    def __init__(self, test: AppTest) -> None:
        values = [m.value for m in test.markdown] + [c.value for c in test.caption]
        self.headers = [m.value for m in test.markdown if m.value.startswith("#")]
        self.success = [s.value for s in test.success]
        self.text = "\n".join(values)


def _page(game_id: str, turns: list[dict], options: dict | None = None) -> Shown:
    def app(game_id: str, turns: list[dict], options: dict) -> None:
        from pdbench.ui.game_views import MatchView, game_view

        view = game_view(game_id)
        assert view is not None
        view.render_transcript(MatchView(turns, {"a": "A · ONE", "b": "B · TWO"}, options, seed=11))

    test = AppTest.from_function(
        app,
        kwargs={"game_id": game_id, "turns": turns, "options": options or {}},
        default_timeout=60,
    )
    test.run()
    assert not test.exception, [e.value for e in test.exception]
    return Shown(test)
