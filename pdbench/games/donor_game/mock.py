"""The offline mock as a donor game player (`pdbench.games.prompt_adapter.GameMock`): it reads
the prompt the LLM agent wrote (prompts/donor_game/donate.md, its state lines written from the
phrases of `prompts`, which this module reads back, so the two cannot drift) and answers as a
house player (`policies`) would on the round_state the prompt shows.

| strategy                 | lean        | plays                                              |
| ------------------------ | ----------- | -------------------------------------------------- |
| reciprocate (default)    | cooperative | the discriminator: gives iff the recipient is good |
| reciprocate              | competitive | never gives                                        |
| reciprocate              | none        | the threshold player (half its recent actions)     |
| cooperate / defect       | any         | always gives / never gives                         |
| random                   | any         | the random house player                            |
| policy (a donor_* policy)| any         | that house player with its params; another policy: |
|                          |             | as reciprocate                                     |

Under continuous giving (the prompt asks for `GIVE x`) reciprocate plays `donor_match_share`
(cooperative: the share its recipient gave last), `donor_never_give` (competitive) or
`donor_share` (no lean: half its resources); the others as above (policies.py says what a
binary house player gives then).

With generations it writes, at a generation's start, a survivor's strategy drawn uniformly
from those its prompt shows, or (generation 1) the house player it plays as, written as
`policies.spec`; a donation prompt showing such a strategy makes it play that house player (as
the house players do).

Its draws are pure functions of the request's cache key. A share `invalid_rate` of its answers
are garbage (so re-asks can be tested), never under a constraint, which it honours as a server
honours a grammar. `play` returns None for a prompt that is not a donor's.
"""

from __future__ import annotations

from dataclasses import replace

from pdbench.core.phrases import written_number
from pdbench.games.donor_game import amount_prompts, strategy_prompts
from pdbench.games.donor_game import prompts as phrases
from pdbench.games.donor_game.policies import (
    DONOR_GAME_POLICIES,
    AlwaysGive,
    Discriminator,
    FixedShare,
    HousePlayer,
    MatchShare,
    NeverGive,
    RandomGiver,
    RoundState,
    Threshold,
    continuous,
    spec,
)
from pdbench.games.mock_play import MockPlayers, garbled, mock_rng
from pdbench.games.prompt_adapter import MockAsk, MockSettings

GARBAGE = ("I would rather think about it.", "GIVE maybe", "Perhaps I refuse.")


def _read_amount_state(prompt: str) -> RoundState | None:
    found = [
        p.pattern.search(prompt)
        for p in (
            amount_prompts.GIVE_AMOUNT_FORMAT,
            phrases.RECIPIENT,
            amount_prompts.YOUR_RESOURCES,
        )
    ]
    answer, recipient, resources = found
    if answer is None or recipient is None or resources is None:
        return None
    recent = []
    for gift in amount_prompts.GIFT.pattern.finditer(prompt):
        share = gift["share"]
        recent.append(
            {
                "round_number": int(gift["round"]),
                "recipient": gift["target"],
                "gave": gift["verb"] == "gave" and float(gift["amount"]) > 0,
                "punished": gift["verb"] == "spent",
                "share": float(share.split("%")[0]) / 100 if "%" in share else None,
            }
        )
    return {
        "phase": "donate",
        "amount": "continuous",
        "your_score": float(resources["resources"]),
        "recipient": {
            "label": recipient["recipient"],
            "reputation": {"image_score": None, "recent_actions": recent},
        },
    }


def read_round_state(prompt: str) -> RoundState | None:
    """What a donor's prompt shows, in round_state's shape (the keys the house players read);
    None if it is not one."""
    if amount_prompts.GIVE_AMOUNT_FORMAT.pattern.search(prompt) is not None:
        return _read_amount_state(prompt)
    answer, recipient = (
        p.pattern.search(prompt) for p in (phrases.DONATE_FORMAT, phrases.RECIPIENT)
    )
    if answer is None or recipient is None:
        return None
    image = phrases.IMAGE.pattern.search(prompt)
    recent = [
        {
            "round_number": int(found["round"]),
            "recipient": found["target"],
            "gave": found["verb"] == "gave to",
        }
        for found in phrases.ACTION.pattern.finditer(prompt)
    ]
    return {
        "phase": "donate",
        "recipient": {
            "label": recipient["recipient"],
            "reputation": {
                "image_score": None if image is None else int(image["image"] == "good"),
                "recent_actions": recent,
            },
        },
    }


# The house player the mock plays as (module docstring's table).
PLAYERS = MockPlayers(
    cooperate=AlwaysGive,
    defect=NeverGive,
    random=RandomGiver,
    policies=DONOR_GAME_POLICIES,
    competitive=NeverGive,
    cooperative=Discriminator,
    default=Threshold,
)


# ... under continuous giving
AMOUNT_PLAYERS = replace(PLAYERS, cooperative=MatchShare, default=FixedShare)


def house_player(
    behaviour: MockSettings, lean: str | None, *, amounts: bool = False
) -> HousePlayer:
    """The house player the mock plays as (module docstring's table)."""
    player: HousePlayer = (AMOUNT_PLAYERS if amounts else PLAYERS).choose(behaviour, lean)
    return player


def _carried(prompt: str) -> dict[str, str]:
    """The strategy a donation prompt says its donor wrote (generations), as round_state's."""
    found = strategy_prompts.YOUR_STRATEGY.pattern.search(prompt)
    return {} if found is None else {"your_strategy": found["strategy"]}


def _strategy(prompt: str, behaviour: MockSettings, key: str, lean: str | None) -> str:
    """The mock's strategy at a generation's start: a survivor's, drawn uniformly, or (none
    shown) the house player it plays as, written as `policies.spec`."""
    shown = [s["strategy"] for s in strategy_prompts.SURVIVOR.pattern.finditer(prompt)]
    if shown:
        return shown[int(mock_rng(key, "copy").integers(len(shown)))]
    amounts = strategy_prompts.CONTINUOUS_RULE in prompt
    return spec(house_player(behaviour, lean, amounts=amounts))


def play(
    prompt: str,
    behaviour: MockSettings,
    key: str,
    *,
    lean: str | None,
    allowed: tuple[str, ...] | None,
    asked: MockAsk | None = None,  # the prompt holds all this game's mock reads
) -> str | None:
    """The mock's answer to a donor's prompt (module docstring), or None."""
    if strategy_prompts.STRATEGY_FORMAT.pattern.search(prompt) is not None:
        return _strategy(prompt, behaviour, key, lean)
    round_state = read_round_state(prompt)
    if round_state is None:
        return None
    round_state |= _carried(prompt)
    garbage = garbled(key, behaviour, allowed, GARBAGE)
    if garbage is not None:
        return garbage
    amounts = continuous(round_state)
    action = house_player(behaviour, lean, amounts=amounts).act(round_state, mock_rng(key, "move"))
    if amounts:
        return f"{phrases.GIVE} {written_number(round(action['amount'], 6))}"
    answer = phrases.GIVE if action["give"] else phrases.REFUSE
    if allowed is not None and answer not in allowed:
        return allowed[0]
    return answer
