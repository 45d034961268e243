"""Grudger, as an arena agent (AgentDuel shape).

Grudger ("Grim Trigger", Friedman 1971; "Grudger" in the Axelrod library): play the cooperative
action until the opponent plays the defecting one once, then defect for the rest of the match.

The grudge is kept on `self` and also re-derived from the history every turn, so the agent stays
correct even if its process is restarted after a timeout. It reads the labels from
`round_state["actions"]` (cooperative first) and sets no `GAME`, so it plays every game.
"""


class Agent:
    def __init__(self) -> None:
        self.grudge = False

    def on_turn(self, round_state: dict) -> dict:
        cooperate, defect = round_state["actions"]
        if not self.grudge and any(
            past["opponent_choice"] == defect for past in round_state["history"]
        ):
            self.grudge = True
            print(f"grudge from round {len(round_state['history']) + 1} on")
        return {"type": "commit", "choice": defect if self.grudge else cooperate}
