class Agent:
    GAME = "split-or-steal"

    def on_turn(self, round_state):
        if round_state["phase"] == "commit" and round_state["round"] == 2:
            print("thinking about round 2")
            raise KeyError("no such key")
        if round_state["phase"] == "negotiate":
            return {"type": "message", "text": "I will split."}
        return {"type": "commit", "choice": "split"}
