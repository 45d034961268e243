"""A NIL Recruitment pitcher, as an arena agent (AgentDuel shape, GAME = "nil-recruitment").

It pitches its university to the athlete each phase around one of the athlete's priorities in
turn, and answers one of the athlete's concerns. Run it with, e.g.,

    uv run python -m pdbench game=nil_recruitment agent_a=arena \
        agent_a.path=examples/agents/nil_recruitment.py agent_b=debate_fixed judge=priorities

or watch it play, turn by turn: uv run pdbench train examples/agents/nil_recruitment.py
"""


class Agent:
    GAME = "nil-recruitment"

    def on_turn(self, round_state: dict) -> dict:
        school = round_state["your_university"]
        athlete = round_state["athlete"]
        priorities = athlete["priorities"]
        concerns = athlete.get("concerns") or ["fit"]
        turn = len([c for c in round_state["conversation"] if c["speaker"] == "you"])
        priority = priorities[turn % len(priorities)]
        concern = concerns[turn % len(concerns)]
        # print works in training: `pdbench train` shows it under the turn
        print(f"pitch {turn + 1}: {priority}, answering {concern}")
        text = (
            f"{athlete['name']}, at {school} you get {priority}. "
            f"And about {concern}: we have a plan for it."
        )
        return {"type": "pitch", "text": text[:500]}
