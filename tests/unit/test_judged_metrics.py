"""The judged games' metrics per player, on matches whose outcome is known."""

from __future__ import annotations

import numpy as np

from pdbench.games.debate.aggregates import debate_metrics
from pdbench.games.debate.policies import FixedDebater, PrioritiesDebater, ScriptedJudge
from pdbench.games.debate.rules import JUDGE
from pdbench.games.nuclear_war.rules import NuclearWar
from pdbench.games.passcode.aggregates import passcode_metrics
from pdbench.games.passcode.policies import HalvingQuestioner, TruthfulKeeper
from pdbench.games.passcode.rules import KEEPER_SEATS, Passcode


class Guesser:
    """Asks the length; guesses `wrong` wrong words, then the right one."""

    def __init__(self, game, seed, wrong):
        self.game, self.seed, self.wrong = game, seed, wrong

    def act(self, seen, rng):
        if seen["phase"] == "question":
            return {"type": "question", "text": "How many letters does the word have?"}
        if seen["round_number"] <= self.wrong:
            return {"type": "guess", "word": "zzz"}
        return {"type": "guess", "word": self.game.secret_word(self.seed, seen["word_number"])}


def play(game, players, seed):
    state, rng = game.initial_state(seed), np.random.default_rng(seed)
    while not game.match_over(state):
        actions = {}
        for seat in game.to_move(state):
            policy = players["keeper" if seat in KEEPER_SEATS else seat]
            actions[seat] = policy.act(game.observe(state, seat), rng)
        state = game.apply(state, actions)
    return state


def test_passcode_metrics_count_solves_rounds_questions_and_wrong_guesses():
    game = Passcode(words_per_match=2)
    players = {"a": Guesser(game, 4, wrong=2), "b": HalvingQuestioner(), "keeper": TruthfulKeeper()}
    state = play(game, players, 4)
    a = passcode_metrics(state, "a")
    assert (a.words, a.solved, a.rounds_to_solve, a.wrong_guesses) == (2, 2, 3.0, 4)
    assert a.questions == 6 and a.questions_per_solve == 3.0 and a.solved_rate == 1.0
    b = passcode_metrics(state, "b")
    assert b.wrong_guesses == 0 and b.solved_rate is not None


def test_debate_metrics_split_wins_by_side_and_by_speaking_first():
    game = NuclearWar(rounds=3, swap_sides=True)
    players = {"a": FixedDebater(), "b": PrioritiesDebater(), JUDGE: ScriptedJudge()}
    rng, state = np.random.default_rng(0), game.initial_state(0)
    while not game.match_over(state):
        (seat,) = game.to_move(state)
        state = game.apply(state, {seat: players[seat].act(game.observe(state, seat), rng)})
    b = debate_metrics(state, "b")
    assert (b.rounds, b.won, b.win_rate) == (6, 6, 1.0)
    assert b.per_side == {"for": (3, 3), "against": (3, 3)}
    a = debate_metrics(state, "a")
    assert a.won == 0 and a.first + b.first == 6 and a.won_first == 0 and b.won_first == b.first
