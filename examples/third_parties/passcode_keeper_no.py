"""A Secret Keeper that answers "No." to every question, as an arena agent (GAME = "passcode").
Not a fair Keeper: it is an audit that disagrees, to try `keeper_audit` and the disagreement rate
of `pdbench analyze` (docs/judged-games.md), e.g.

    uv run python -m pdbench game=passcode agent_a=passcode_halving agent_b=passcode_lengths \
        keeper=llm +keeper_audit.type=arena +keeper_audit.path=examples/third_parties/passcode_keeper_no.py
"""


class Agent:
    GAME = "passcode"

    def on_turn(self, round_state: dict) -> dict:
        return {"type": "answer", "text": "No."}
