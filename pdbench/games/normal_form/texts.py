"""CoopEval's prompt texts (Xiao215/CoopEval@8559e85), as `prompts` fills them: the base game's
setup (`src/coopeval/games/base.py:326-341`, with the players counted and the choice worded for
pure or mixed strategies), the mechanisms' twists (`src/coopeval/mechanisms/prompts.py:6-124`,
word for word but for the placeholders' names) and the answer formats (`base.py:113-124`;
`prompts.py:19-25, 36-43, 52-55, 86-92`). The lines the offline mock reads back are the phrases of
`prompts`, rendered into the `{...}` slots here.
"""

SETUP = (
    "Setup:\nYou are playing a decision-making game with {others}.\n"
    "Your objective is to maximize your total points received in the game described in length "
    "below.\n\nActions available to each player:\n{actions}\n\nBasic game rules:\n"
    "1. You and the other player(s) each choose {choice}, simultaneously.\n"
    "2. After all decisions are locked in, {resolution}\n"
    "3. All players receive the points specified in the payoff description below.\n\n"
    "Payoff description:\n{payoffs}"
)

DESIGN_MEDIATOR = """Here is the twist:
There will be a mediator for this game, and your task now is to design and propose one.

- A mediator is an entity that plays actions on behalf of delegating players.
- Each player may choose to delegate their move to the mediator or act independently.
- The mediator observes the number of players delegating to the mediator and then plays the same action for all delegating players.

The other player(s) will also design and propose a mediator. Only one will be present in the game though. Which one will be decided in a separate step later via an approval voting process by you and the other player(s). The winning mediator will be selected uniform at random from those with the maximum number of approvals."""
DESIGN_CONTRACT = """Here is the twist:
There will be the option for a payment contract in this game, and your task now is to design and propose one.

- A contract is an additional payoff agreement on top of the original game payoffs. It specifies a number for each action that a player can play, indicating one of three cases:
    * Positive number (+): the player receives an additional payment of X points in total, drawn equally from the other player(s).
    * Negative number (-): the player pays an additional payment of X points in total, distributed equally among the other player(s).
    * Zero (0): no additional payments in either direction.
- Each player may choose to accept the contract as a whole or not.
- The contract becomes active only if all players accept.

The other player(s) will also design and propose a contract. Only one will be present in the game though. Which one will be decided in a separate step later via an approval voting process by you and the other player(s). The winning contract will be selected uniform at random from those with the maximum number of approvals."""
VOTE_MEDIATOR = """Here is the twist:
On top of the original game rules, you will have the option to delegate your move to a mediator.
If you choose to delegate, the mediator will play an action for you based on how many players have delegated to it.
You can also choose to act independently.

But first, you and the other player have to decide via an approval voting process which mediator will be present in the game. Your task now is to review each mediator and decide which ones you approve of. The winning mediator will be selected uniform at random from those with the maximum number of approvals.

Here are the mediator designs that have been proposed:
{designs}"""
VOTE_CONTRACT = """Here is the twist:
On top of the original game rules, a payment contract can be put in place if the players agree to it via an approval voting process. A contract specifies a payment value for each action that a player can play.

Your task now is to review each proposed contract and decide which ones you approve of. The winning contract will be selected uniform at random from those with the maximum number of approvals.

Here are the contract designs that have been proposed:
{designs}"""
SIGN_CONTRACT = """Here is the twist:
On top of the original game rules, you have the option to sign a payment contract. A contract specifies a payment value for each action that a player can play. {selected}
{contract}

At this stage, you are asked to decide whether to sign the contract. The contract becomes active only if all players sign it."""
PLAY_MEDIATED = """Here is the twist:
On top of the original game rules, you have the option to delegate your move to a mediator.
If you choose to delegate, the mediator will play an action for you based on how many players have delegated to it.
You can also choose to act independently.

{proposer}
{mediator}

{delegate}"""
PLAY_CONTRACTED = """Here is the twist:
{active} {selected}
{contract}

Since this contract directly affects your final payoff, consider the contract when making your strategy decisions!"""
PLAY_REJECTED = """Here is the twist:
On top of the original game rules, a payment contract was proposed to the players. It is NOT active though because some players rejected it. {selected}
{contract}

{rejected}

You will now play the original game without any contract modifications."""
MIXED = """Instruction:
- Choose a probability distribution over the provided actions each round.
- Output must contain a valid JSON object at the end.
- Keys must be the action names exactly as given.
{values}
- The values must sum to exactly 100.

Format requirement:
Return exactly one JSON object, for example:
{{"A0": <INT>, "A1": <INT>, ...}}"""
PURE = """Instruction:
{choose}
- Output must contain a valid JSON object at the end.

Format requirement:
Return exactly one JSON object, for example:
{{"action": "A0"}}"""
MEDIATOR_OUTPUT = """Output Format:
Return a valid JSON object in a single line:
{{"1": <Action>, ..., "{count}": <Action>}} where <Action> is a string like "A0", "A1" ...

{keys}
- Values: the action the mediator will play on behalf of delegating players (e.g., "A0" or "A1" etc.)."""
CONTRACT_OUTPUT = """Output Format:
Return a valid JSON object in a single line:
{{"A0": <INT>, "A1": <INT>, ...}}

- Keys: all available game actions.
{values}"""
VOTE_OUTPUT = """Output Format:
Return a valid JSON object with your approvals:
{{"{key}1": <true/false>, "{key}2": <true/false>, ...}}

- Keys: {what_singular} identifiers (e.g., "{key}1", "{key}2", ...)
- Values: `true` if you approve, `false` if you don't
{ensure}"""
SIGN_OUTPUT = """Output Requirement:
- Respond with a valid JSON object.
{format}"""
