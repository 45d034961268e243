class Agent:
    GAME = "liars-dice"

    def on_turn(self, round_state):
        print(f"my dice {round_state['your_dice']}")
        if round_state["current_bid"]:
            return {"type": "challenge", "why": round_state["no_such_key"]}
        return {"type": "bid", "quantity": 1, "face": max(round_state["your_dice"])}
