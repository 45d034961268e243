"""Play the debate games offline with the house players and each scripted judge (sides swapped),
then print the judge measurements; and check the truthful Keeper over passcode matches. The
output is the one shown in docs/judged-games.md.

    uv run python scripts/judge_measures_demo.py
"""

from __future__ import annotations

import numpy as np

from pdbench.analysis.judging.bias import length_bias, order_bias
from pdbench.analysis.judging.panel import panel_agreement
from pdbench.analysis.judging.swap import position_swap
from pdbench.games.debate.measures import verdict_table
from pdbench.games.debate.policies import FixedDebater, PrioritiesDebater, ScriptedJudge
from pdbench.games.debate.rules import JUDGE
from pdbench.games.nuclear_war.rules import NuclearWar
from pdbench.games.passcode.aggregates import passcode_metrics
from pdbench.games.passcode.measures import keeper_truthfulness
from pdbench.games.passcode.policies import HalvingQuestioner, LengthGuesser, TruthfulKeeper
from pdbench.games.passcode.rules import KEEPER_SEATS, Passcode

MATCHES, ROUNDS = 10, 4


def decisions(judge):
    game = NuclearWar(rounds=ROUNDS, swap_sides=True)
    found = []
    for seed in range(MATCHES):
        # the priority-naming player sits in seat a in even matches, in b in odd ones
        a, b = (PrioritiesDebater(named=1), FixedDebater())[:: 1 if seed % 2 == 0 else -1]
        players = {"a": a, "b": b, JUDGE: judge}
        state, rng = game.initial_state(seed), np.random.default_rng(seed)
        while not game.match_over(state):
            (seat,) = game.to_move(state)
            before = state
            state = game.apply(state, {seat: players[seat].act(game.observe(state, seat), rng)})
            if shown := game.revealed(before, state):
                found.append((seed, shown))
    return verdict_table(found)


def main() -> None:
    tables = {}
    for rule in ("priorities", "first_speaker", "first_listed", "longer"):
        table = tables[rule] = decisions(ScriptedJudge(rule))
        print(f"judge {rule!r}, nuclear_war, {len(table)} verdicts:")
        print(f"  order bias: the first speaker wins {order_bias(table)}")
        print(f"  length: {length_bias(table)}")
        print(f"  swap: {position_swap(table)}")
    rows = [
        {"item": index, "rater": rule, "verdict": verdict}
        for rule in ("priorities", "first_speaker", "longer")
        for index, verdict in enumerate(tables[rule]["winner_side"])
    ]
    print("panel of three scripted judges on the same matches:")
    print("  " + str(panel_agreement(rows)).replace("\n", "\n  "))

    game, answers, solved = Passcode(words_per_match=3), [], []
    for seed in range(5):
        players = {"a": HalvingQuestioner(), "b": LengthGuesser()}
        state, rng = game.initial_state(seed), np.random.default_rng(seed)
        while not game.match_over(state):
            actions = {}
            for seat in game.to_move(state):
                seen = game.observe(state, seat)
                if seat in KEEPER_SEATS:
                    actions[seat] = TruthfulKeeper().act(seen, rng)
                    answers.append(
                        {"word": seen["secret_word"], "question": seen["question"],
                         "answer": actions[seat]["text"]}
                    )  # fmt: skip
                else:
                    actions[seat] = players[seat].act(seen, rng)
            state = game.apply(state, actions)
        solved.append(passcode_metrics(state, "a"))
    print(f"passcode, 5 matches of 3 words: the house Keeper is {keeper_truthfulness(answers)}")
    rounds = [m.rounds_to_solve for m in solved if m.rounds_to_solve is not None]
    print(
        f"  passcode_halving solved {sum(m.solved for m in solved)} of "
        f"{sum(m.words for m in solved)} words, in {np.mean(rounds):.1f} rounds on average"
    )


if __name__ == "__main__":
    main()
