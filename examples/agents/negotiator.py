"""A negotiating Split or Steal agent, written as AgentDuel's docs show: one `on_turn` that
switches on the phase.

negotiate: it proposes to split, and says so again while the opponent has kept its word; once the
opponent stole after promising to split, it says it will steal. commit: it splits unless it was
betrayed (Grim Trigger with words). It reads the round state in either spelling the platform uses
("history" or "rounds_history"; messages with "sender" or "author"). Run it with

    uv run python -m pdbench game=agentduel_split_or_steal agent_a=llm_default \\
        agent_b=arena agent_b.path=examples/agents/negotiator.py
"""


class Agent:
    GAME = "split-or-steal"

    def __init__(self):
        self.betrayed = False

    def on_turn(self, round_state: dict) -> dict:
        history = round_state.get("history") or round_state.get("rounds_history") or []
        if any(past["opponent_choice"] == "steal" for past in history):
            self.betrayed = True
        if round_state["phase"] == "negotiate":
            return {"type": "message", "text": self._say(round_state)}
        # print() works: `pdbench train` shows it live, a run keeps it in the agent's log
        print(f"round {round_state['round']}: betrayed={self.betrayed}")
        return {"type": "commit", "choice": "steal" if self.betrayed else "split"}

    def _say(self, round_state: dict) -> str:
        if self.betrayed:
            return "You stole from me before. I will steal from now on."
        heard = [
            message["text"]
            for message in round_state["messages"]
            if (message.get("sender") or message.get("author")) == "opponent"
        ]
        if heard and "steal" in heard[-1].lower():
            return "Stealing leaves us both with nothing if I steal too. Let's both split."
        if round_state.get("turn", round_state.get("turn_number", 1)) <= 2:
            return "I will split. If you split too, we both take 50 every round."
        return "Agreed: I split. Keep your word and I keep mine."
