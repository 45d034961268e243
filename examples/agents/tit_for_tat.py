"""Tit For Tat, as an arena agent (AgentDuel shape).

Tit For Tat (Rapoport; winner of Axelrod's 1980 tournaments): play the cooperative action in the
first round ("split" in split-or-steal, "C" in the prisoner's dilemma), then copy whatever the
opponent played in the previous round.

It plays the games of two simultaneous actions, the ones in `PLAYS`: it reads the game's two
labels from `round_state["actions"]` (cooperative first), so it sets no `GAME` attribute and one
file serves them all. In split-or-steal's talk phase it says what it will do. The turn games
(liars-dice, passcode, nuclear-war, nil-recruitment) have no two actions to copy: it refuses
them with a clear error instead of answering nonsense. It needs no memory of its own: the whole
history comes with every turn. Run it with, e.g.,

    agent_a: {type: arena, path: examples/agents/tit_for_tat.py}
    uv run pdbench train examples/agents/tit_for_tat.py --game stag-hunt
"""

# The games it plays (tests/integration/test_train_command.py trains it in each).
PLAYS = ("prisoners-dilemma", "split-or-steal", "stag-hunt", "chicken", "battle-of-the-sexes")


class Agent:
    def on_turn(self, round_state: dict) -> dict:
        if "actions" not in round_state:
            raise ValueError(
                f"tit_for_tat.py plays {', '.join(PLAYS)}; not {round_state.get('game')!r}"
            )
        cooperate, _defect = round_state["actions"]
        history = round_state["history"]
        choice = history[-1]["opponent_choice"] if history else cooperate
        if round_state.get("phase") == "negotiate":
            return {"type": "message", "text": f"I will play {choice}."}
        return {"type": "commit", "choice": choice}
