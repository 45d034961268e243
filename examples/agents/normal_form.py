"""A player of a 2x2 game under a mechanism, as an arena agent (GAME = "normal-form"), reading
only its round_state (docs/mechanisms.md has every key): it proposes the contract that makes
each action cost what it gains over cooperating while the other cooperates (PD: T - R), or the
mediator that plays A0 for everyone, approves the designs under which cooperating pays it at
least as much as anything else when the others cooperate, signs, delegates, and then plays A0
while the other player did last round. Run it against the house designer, e.g.,

    uv run pdbench run conf/config.yaml game=pd mechanism=contracting mechanism.rounds=5 \
        agent_a=arena agent_a.path=examples/agents/normal_form.py agent_b=mech_designer
"""


class Agent:
    GAME = "normal-form"

    def payoff(self, round_state: dict, mine: str, other: str) -> float:
        me = round_state["player"] - 1
        for row in round_state["payoffs"]:
            if row["actions"][me] == mine and all(
                a == other for i, a in enumerate(row["actions"]) if i != me
            ):
                return row["points"][me]
        raise ValueError(f"no profile with {mine} against {other}")

    def contract(self, round_state: dict) -> dict:
        cooperate = self.payoff(round_state, "A0", "A0")
        return {
            action: -max(0, round(self.payoff(round_state, action, "A0") - cooperate + 0.49))
            for action in round_state["actions"]
        }

    def approves(self, round_state: dict, proposal: dict) -> bool:
        if "mediator" in proposal:  # the mediator plays A0 when everyone delegates
            return proposal["mediator"][str(round_state["players"])] == "A0"
        pay = proposal["contract"]
        cooperate = self.payoff(round_state, "A0", "A0") + pay["A0"]
        return all(self.payoff(round_state, a, "A0") + pay[a] <= cooperate for a in pay)

    def on_turn(self, round_state: dict) -> dict:
        phase = round_state["phase"]
        if phase == "design" and round_state["mechanism"] == "mediation":
            every = range(1, round_state["players"] + 1)
            return {"type": "design", "mediator": {str(k): "A0" for k in every}}
        if phase == "design":
            return {"type": "design", "contract": self.contract(round_state)}
        if phase == "vote":
            ballot = {p["id"]: self.approves(round_state, p) for p in round_state["proposals"]}
            print(f"round {round_state['round_number']}: I approve {ballot}")
            return {"type": "vote", "approve": ballot}
        if phase == "sign":
            return {"type": "sign", "sign": True}
        if "delegate" in round_state:
            return {"type": "play", "action": round_state["delegate"]}
        history = round_state["history"]
        mine = f"Player {round_state['player']}"
        others_cooperated = all(
            action == "A0"
            for player, action in (history[-1]["actions"].items() if history else ())
            if player != mine
        )
        return {"type": "play", "action": "A0" if others_cooperated else round_state["actions"][-1]}
