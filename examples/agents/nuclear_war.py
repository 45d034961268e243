"""A Nuclear War debater, as an arena agent (AgentDuel shape, GAME = "nuclear-war").

It argues its assigned position each phase around one of the President's published priorities in
turn, and answers the President's last question when there is one. Run it with, e.g.,

    uv run python -m pdbench game=nuclear_war agent_a=arena \
        agent_a.path=examples/agents/nuclear_war.py agent_b=debate_priorities judge=priorities

or watch it play, turn by turn: uv run pdbench train examples/agents/nuclear_war.py
"""


class Agent:
    GAME = "nuclear-war"

    def on_turn(self, round_state: dict) -> dict:
        position = round_state["your_position"]
        president = round_state["president"]
        priorities = president["priorities"]
        phases = ["intro", "debate_1", "debate_2", "debate_3", "closing"]
        priority = priorities[phases.index(round_state["phase"]) % len(priorities)]
        stance = "a strike" if position == "for" else "restraint"
        # print works in training: `pdbench train` shows it under the turn
        print(f"{round_state['phase']}: {stance}, on {priority}")
        text = (
            f"{president['name']}, {stance} best serves {priority}. "
            f"On your question, {president['key_question']}: {stance} is the answer."
        )
        return {"type": "argument", "text": text[:500]}
