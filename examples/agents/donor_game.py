"""A donor game player, as an arena agent (GAME = "donor-game"): a discriminator that reads
only its round_state (docs/donor-game.md has every key).

Each round it is shown its recipient: `round_state["recipient"]["reputation"]` holds the
recipient's `image_score` (1 good, 0 bad, null when the game keeps no image) and its
`recent_actions` as a donor, oldest first. It gives to a good recipient; with no image it gives
when at least half the recipient's shown actions were gifts (and to a recipient with none yet).
It prints its reason (its log keeps its prints; `pdbench train` shows them). Under continuous
giving (`round_state["amount"] == "continuous"`) it gives half its resources (`your_score`)
when it would give, else 0; with generations it answers the strategy phase (`phase ==
"strategy"`) with its rule in words. Run it in a population of six, e.g.,

    uv run pdbench run conf/config.yaml game=donor_game game.options.players=6 agent_a=arena \
        agent_a.path=examples/agents/donor_game.py agent_b=donor_never_give \
        agent_c=donor_always_give agent_d=donor_discriminator agent_e=donor_threshold \
        agent_f=donor_random
"""

STRATEGY = (
    "I give to a recipient whose image is good or, with no image, who gave at least half the "
    "times I am shown; half my resources when any amount may be given."
)


class Agent:
    GAME = "donor-game"

    def on_turn(self, round_state: dict) -> dict:
        if round_state["phase"] == "strategy":  # a generation's start: write my rule
            return {"type": "strategy", "text": STRATEGY}
        recipient = round_state["recipient"]
        reputation = recipient["reputation"]
        if reputation["image_score"] is not None:
            give = reputation["image_score"] == 1
            why = "its image is " + ("good" if give else "bad")
        else:
            recent = reputation["recent_actions"]
            gifts = sum(1 for action in recent if action["gave"])
            give = not recent or 2 * gifts >= len(recent)
            why = f"it gave {gifts} of its last {len(recent)} times"
        verb = "give to" if give else "refuse"
        print(f"round {round_state['round_number']}: I {verb} {recipient['label']}: {why}")
        if round_state.get("amount") == "continuous":
            return {"type": "donate", "amount": round_state["your_score"] / 2 if give else 0}
        return {"type": "donate", "give": give}
