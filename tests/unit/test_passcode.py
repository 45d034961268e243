"""Passcode: scoring per the reference, private questions and answers, the word kept from the
players until the word is over, and the house players against the truthful Keeper."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from pdbench.games.passcode.keeper_answers import keeper_answer
from pdbench.games.passcode.policies import HalvingQuestioner, LengthGuesser, TruthfulKeeper
from pdbench.games.passcode.rules import FALLBACK_QUESTION, KEEPER_SEATS, Passcode


def play(game, players, seed, keeper=None):
    """Play a match; returns (every observation per seat with its action, final state)."""
    keeper = keeper or TruthfulKeeper()
    state, seen, rng = game.initial_state(seed), [], np.random.default_rng(seed)
    while not game.match_over(state):
        actions = {}
        for seat in game.to_move(state):
            observation = game.observe(state, seat)
            policy = keeper if seat in KEEPER_SEATS else players[seat]
            actions[seat] = policy.act(observation, rng)
            assert game.problem(state, seat, actions[seat]) is None
            seen.append((seat, observation, actions[seat]))
        state = game.apply(state, actions)
    return seen, state


class Scripted:
    """Asks the length; guesses the listed words in order (None: pass)."""

    def __init__(self, guesses):
        self.guesses = list(guesses)

    def act(self, round_state, rng):
        if round_state["phase"] == "question":
            return {"type": "question", "text": FALLBACK_QUESTION}
        guess = self.guesses.pop(0) if self.guesses else None
        return {"type": "pass"} if guess is None else {"type": "guess", "word": guess}


def test_halving_players_find_the_word_within_log2_of_the_list_and_share_the_points():
    game = Passcode()
    limit = math.ceil(math.log2(len(game.words.words))) + 1
    for seed in range(5):
        _, state = play(game, {"a": HalvingQuestioner(), "b": HalvingQuestioner()}, seed)
        (result,) = state.finished
        assert result.solved == (True, True) and result.rounds <= limit
        assert game.scores(state) == {"a": 50.0, "b": 50.0}


def test_the_first_right_guess_takes_100_and_nobody_right_scores_0():
    game = Passcode(round_limit=3)
    word = game.secret_word(7, 1)
    _, state = play(game, {"a": Scripted([None, word]), "b": Scripted(["zzz", None, word])}, 7)
    assert game.scores(state) == {"a": 100.0, "b": 0.0}
    assert state.finished[0].wrong_guesses == (0, 1) and state.finished[0].rounds == 2
    _, state = play(game, {"a": Scripted([]), "b": Scripted(["zzz"] * 3)}, 7)
    assert game.scores(state) == {"a": 0.0, "b": 0.0} and state.finished[0].rounds == 3


def test_words_per_match_plays_distinct_words_and_adds_the_points():
    game = Passcode(words_per_match=3)
    words = [game.secret_word(11, n) for n in (1, 2, 3)]
    assert len(set(words)) == 3
    _, state = play(game, {"a": Scripted(words), "b": Scripted([])}, 11)
    assert [r.word for r in state.finished] == words
    assert game.scores(state) == {"a": 300.0, "b": 0.0}


def test_a_player_sees_only_its_own_questions_and_answers_and_never_the_word():
    game = Passcode(words_per_match=2)
    for seed in range(8):
        seen, _ = play(game, {"a": HalvingQuestioner(), "b": LengthGuesser()}, seed)
        asked = {"a": [], "b": []}
        for seat, observation, action in seen:
            if seat in KEEPER_SEATS:
                player = seat.split(":")[1]
                # the Keeper is shown the word and that one player's latest question only
                assert observation["question"] == asked[player][-1]
                assert observation["secret_word"] == game.secret_word(
                    seed, observation["word_number"]
                )
                continue
            assert "secret_word" not in observation and "question" not in observation
            mine = [qa["question"] for qa in observation["your_qa_history"]]
            assert mine == asked[seat][-len(mine) :] if mine else True
            other = "b" if seat == "a" else "a"
            text = json.dumps(observation)
            assert not any(q in text for q in asked[other] if q not in asked[seat])
            word = game.secret_word(seed, observation["word_number"])
            # the word list is public (test below); nothing else names the word
            rest = {
                k: v
                for k, v in observation.items()
                if k not in ("your_qa_history", "candidate_words")
            }
            assert word not in json.dumps(rest)
            assert all(word not in qa["answer"] for qa in observation["your_qa_history"])
            if action["type"] == "question":
                asked[seat].append(action["text"])


def test_opponent_guessed_tells_a_guess_from_a_pass_only_after_the_guess_phase():
    game = Passcode()
    state = game.initial_state(1)
    ask = {"type": "question", "text": FALLBACK_QUESTION}
    state = game.apply(state, {"a": ask, "b": ask})
    answer = {"type": "answer", "text": "The word has 5 letters."}
    state = game.apply(state, {"keeper:a": answer, "keeper:b": answer})
    assert game.observe(state, "b")["opponent_guessed"] is False
    before = state
    state = game.apply(state, {"a": {"type": "guess", "word": "qqq"}, "b": {"type": "pass"}})
    assert game.observe(state, "b")["opponent_guessed"] is True
    assert game.observe(state, "a")["opponent_guessed"] is False
    shown = game.revealed(before, state)
    assert shown == {"guesses": {"a": "qqq", "b": None}, "right": {"a": False, "b": False}}


def test_the_word_is_revealed_with_its_source_when_the_word_is_over():
    game = Passcode()
    word = game.secret_word(2, 1)
    seen, _ = play(game, {"a": Scripted([word]), "b": Scripted([])}, 2)
    again = game.initial_state(2)
    for actions in _turns(seen):
        before, again = again, game.apply(again, actions)
    shown = game.revealed(before, again)
    assert shown["word"]["secret_word"] == word and shown["word"]["points"] == {
        "a": 100.0,
        "b": 0.0,
    }
    assert shown["word"]["source"].endswith("passcode_words.json")


def _turns(seen):
    turns, current = [], {}
    for seat, _, action in seen:
        if seat in current:
            turns.append(current)
            current = {}
        current[seat] = action
        if set(current) in ({"a", "b"}, set(KEEPER_SEATS)):
            turns.append(current)
            current = {}
    return turns


def test_a_question_over_the_limit_or_out_of_phase_is_refused_and_fallbacks_are_legal():
    game = Passcode()
    state = game.initial_state(0)
    assert "at most 200" in game.problem(state, "a", {"type": "question", "text": "x" * 201})
    assert game.problem(state, "a", {"type": "pass"}) is not None
    assert game.problem(state, "keeper:a", {"type": "answer", "text": "Yes."}) is not None
    ask = game.fallback(state, "a", "timeout")
    state = game.apply(state, {"a": ask, "b": ask})
    for seat in KEEPER_SEATS:
        assert game.problem(state, seat, game.fallback(state, seat, "invalid")) is None
    with pytest.raises(ValueError):
        game.apply(state, {"keeper:a": {"type": "answer", "text": "Yes."}})


def test_every_player_is_shown_the_same_public_word_list():
    """Issue 41: the house player halved a word list that an arena agent (sandboxed, without
    pdbench's data) and a model could not see. The list the word is drawn from is public: every
    player's round_state holds it, the same in every match and seat, whatever the word."""
    game = Passcode(words_per_match=2)
    public = sorted(game.words.words)
    for seed in range(4):
        seen, _ = play(game, {"a": HalvingQuestioner(), "b": LengthGuesser()}, seed)
        for seat, observation, _ in seen:
            if seat in KEEPER_SEATS:
                assert "candidate_words" not in observation  # the Keeper knows the word
            else:
                assert observation["candidate_words"] == public


LENGTH = "How many letters does the word have?"


def test_the_house_players_play_from_the_round_state_alone():
    """A list the players are shown, of words not in the game's own file: the house players use
    it (they read nothing else)."""
    state = {
        "game": "passcode",
        "phase": "guess",
        "your_qa_history": [{"question": LENGTH, "answer": keeper_answer("gnu", LENGTH)}],
        "candidate_words": ["gnu", "ibex", "okapi"],
    }
    rng = np.random.default_rng(0)
    assert HalvingQuestioner().act(state, rng) == {"type": "guess", "word": "gnu"}
    assert LengthGuesser().act(state, rng) == {"type": "guess", "word": "gnu"}
    asking = {**state, "phase": "question", "your_qa_history": []}
    question = HalvingQuestioner().act(asking, rng)["text"]
    assert question == 'Does the word come before "ibex" alphabetically?'
