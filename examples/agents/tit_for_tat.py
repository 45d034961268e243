"""Tit For Tat, as an arena agent (AgentDuel shape).

Tit For Tat (Rapoport; winner of Axelrod's 1980 tournaments): play the cooperative action in the
first round ("split" in split-or-steal, "C" in the prisoner's dilemma), then copy whatever the
opponent played in the previous round.

It reads the game's two labels from `round_state["actions"]` (cooperative first), so it plays
every game; that is why it sets no `GAME` attribute. It needs no memory of its own: the whole
history comes with every turn. Run it with, e.g.,

    agent_a: {type: arena, path: examples/agents/tit_for_tat.py}
"""


class Agent:
    def on_turn(self, round_state: dict) -> dict:
        cooperate, _defect = round_state["actions"]
        history = round_state["history"]
        if not history:
            return {"type": "commit", "choice": cooperate}
        return {"type": "commit", "choice": history[-1]["opponent_choice"]}
