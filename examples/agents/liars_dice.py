"""A Liar's Dice player, as an arena agent (AgentDuel shape, GAME = "liars-dice").

It counts what it can see: its own dice match a face for sure, and each of the opponent's hidden
dice matches with probability 1/faces (2/faces for a face other than 1 when 1s are wild). It
challenges a bid that needs more than it expects to be on the table plus a small margin, and
otherwise bids its most common face at the next legal quantity. Run it with, e.g.,

    uv run python -m pdbench game=liars_dice agent_a=arena \
        agent_a.path=examples/agents/liars_dice.py agent_b=liars_probability

or watch it play, turn by turn: uv run pdbench train examples/agents/liars_dice.py
"""


class Agent:
    GAME = "liars-dice"

    def on_turn(self, round_state: dict) -> dict:
        faces = round_state["faces"]
        wild = round_state["wild_ones"]
        mine = round_state["your_dice"]
        hidden = round_state["opponent_dice_count"]
        total = len(mine) + hidden

        def expected(face: int) -> float:
            own = sum(1 for die in mine if die == face or (wild and die == 1 and face != 1))
            share = (2 if wild and face != 1 else 1) / faces
            return own + hidden * share

        bid = round_state["current_bid"]
        # print works in training: `pdbench train` shows it under the turn
        if bid is None:
            print(f"my dice {mine}: I open")
        else:
            print(
                f"my dice {mine}: bid {bid['quantity']}x{bid['face']}, I expect "
                f"{expected(bid['face']):.1f}"
            )
        if bid is not None and bid["quantity"] > expected(bid["face"]) + 1:
            return {"type": "challenge"}
        face = max(range(1, faces + 1), key=lambda f: (expected(f), f))
        if bid is None:
            return {"type": "bid", "quantity": 1, "face": face}
        quantity = bid["quantity"] + (0 if face > bid["face"] else 1)
        if wild and (face == 1) != (bid["face"] == 1):  # switching to or from 1s: Perudo's rule
            quantity = -(-bid["quantity"] // 2) if face == 1 else 2 * bid["quantity"] + 1
        if quantity > total:
            return {"type": "challenge"}
        return {"type": "bid", "quantity": quantity, "face": face}
