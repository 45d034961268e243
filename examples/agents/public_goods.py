"""A public goods player, as an arena agent (AgentDuel shape, GAME = "public-goods"): a
conditional cooperator, reading only its round_state (docs/public-goods.md has every key).

It opens with half its endowment, then contributes the mean of what the others in its group gave
last round (`history[-1]["contributions"]`, without its own label `you`) and prints it (its log
keeps its prints; `pdbench train` shows them), says so when the round has a talk phase, and in a
punish phase gives one point to each player who contributed less than half of what it did
itself, within `max_punish`. Run it in a group of four, e.g.,

    uv run pdbench run conf/config.yaml game=public_goods agent_a=arena \
        agent_a.path=examples/agents/public_goods.py agent_b=pgg_free_rider \
        agent_c=pgg_full_contributor agent_d=pgg_hump game.options.punish=true
"""


class Agent:
    GAME = "public-goods"

    def contribution(self, round_state: dict) -> int:
        most = int(round_state["endowment"])
        history = round_state["history"]
        if not history:
            return most // 2
        last = history[-1]
        others = [amount for label, amount in last["contributions"].items() if label != last["you"]]
        return min(most, round(sum(others) / len(others))) if others else most // 2

    def on_turn(self, round_state: dict) -> dict:
        phase = round_state["phase"]
        if phase == "talk":
            return {
                "type": "message",
                "text": f"I will contribute {self.contribution(round_state)}.",
            }
        if phase == "contribute":
            amount = self.contribution(round_state)
            print(f"round {round_state['round_number']}: I match the others' last mean, {amount}")
            return {"type": "contribute", "amount": amount}
        given = round_state["contributions"]
        mine = given[round_state["you"]]
        left = round_state["max_punish"]
        points = {}
        for label, amount in given.items():
            if label != round_state["you"] and amount * 2 < mine and left > 0:
                points[label] = 1
                left -= 1
        return {"type": "punish", "points": points}
