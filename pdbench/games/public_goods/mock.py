"""The offline mock as a public goods player (`pdbench.games.prompt_adapter.GameMock`): it reads
the prompt the LLM agent wrote (prompts/public_goods/*.md, its state lines written from the
phrases of `prompts`, which this module reads back, so the two cannot drift) and answers as a
house player (`policies`) would on the round_state the prompt shows.

Who it plays, by the mock's strategy and the persona's lean (the mock provider reads the lean
from the prompt's words, `pdbench.games.mock_play.LEANS`):

| strategy                 | lean        | plays                                                    |
| ------------------------ | ----------- | -------------------------------------------------------- |
| reciprocate (default)    | cooperative | a conditional cooperator (opens with 3/4 of what it may  |
|                          |             | give, then the others' last mean) who punishes the       |
|                          |             | lowest contributor below it with 3 points                |
| reciprocate, reputation  | cooperative | the same punisher, contributing everything when its new  |
| shown                    |             | group's shown mean share is at least 1/2 (or nothing of  |
|                          |             | them is shown), else nothing (`ReputationCooperator`)    |
| reciprocate              | competitive | a free rider (contributes 0, says so)                    |
| reciprocate              | none        | a conditional cooperator (opens with half), no punishing |
| cooperate / defect       | any         | a full contributor / a free rider                        |
| random                   | any         | the random house player                                  |
| policy (a pgg_* policy)  | any         | that house player with its params; another policy: as    |
|                          |             | reciprocate                                              |

In the talk phase it announces the amount it is about to contribute ("I will contribute 12.",
`talk.stated_amount`'s grammar), and keeps its word: its contribution depends on the rounds
shown alone, and the talk and contribute prompts of a round show the same ones (the random
player aside, whose talk means nothing, as the house one's). Its draws are pure functions of the
request's cache key. A share `invalid_rate` of its contribute and punish answers are garbage (so
re-asks can be tested), never a talk answer (any short text is a message) and never under a
constraint, which it honours as a server honours a grammar.

`play` returns None for a prompt that is not a public goods player's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pdbench.games.mock_play import MockPlayers, garbled, mock_rng
from pdbench.games.prompt_adapter import MockAsk, MockSettings
from pdbench.games.public_goods import prompts as phrases
from pdbench.games.public_goods import reputation_prompt
from pdbench.games.public_goods.policies import (
    PUBLIC_GOODS_POLICIES,
    ConditionalCooperator,
    FreeRider,
    FreeRiderPunisher,
    FullContributor,
    HousePlayer,
    RandomPlayer,
    RoundState,
    most,
)
from pdbench.games.public_goods.reputation import co_players_shown_share

GARBAGE = ("I think I will give a fair share.", "CONTRIBUTE some", "Let me weigh the group first.")


@dataclass(frozen=True)
class PunishingCooperator(ConditionalCooperator):
    """A conditional cooperator who punishes as the free riders' punisher does: all `points` on
    the lowest contributor of the round among those who gave less than it did."""

    opening: float = 0.75
    points: int = 3

    def punishment(self, round_state: RoundState, rng: np.random.Generator) -> dict[str, int]:
        return FreeRiderPunisher(points=self.points).punishment(round_state, rng)


@dataclass(frozen=True)
class ReputationCooperator(PunishingCooperator):
    """The cooperative persona under CoopEval's reputation: gives everything to a group whose
    co-players' shown contributions average at least `threshold` of the endowment (or when none
    of them has a round shown), nothing to one below it; punishes as `PunishingCooperator`."""

    threshold: float = 0.5

    def contribution(self, round_state: RoundState, rng: np.random.Generator) -> int:
        share = co_players_shown_share(round_state)
        return most(round_state) if share is None or share >= self.threshold else 0


def _phase(prompt: str) -> str | None:
    for phase, phrase in (
        ("talk", phrases.TALK_FORMAT),
        ("contribute", phrases.CONTRIBUTE_FORMAT),
        ("punish", phrases.PUNISH_FORMAT),
    ):
        if phrase.pattern.search(prompt):
            return phase
    return None


def read_round_state(prompt: str) -> RoundState | None:
    """What a public goods prompt shows, in round_state's shape (the keys the house players
    read); None if it is not one."""
    phase = _phase(prompt)
    you, players, most = (
        p.pattern.search(prompt) for p in (phrases.YOU, phrases.PLAYERS, phrases.AVAILABLE)
    )
    if phase is None or you is None or players is None:
        return None
    if most is None and phase != "punish":  # the punish phase asks for no contribution
        return None
    history = [
        {
            "round_number": int(past["round"]),
            "you": past["you"],
            "contributions": {
                label: int(amount)
                for label, amount in phrases.read_pairs(past["contributions"]).items()
            },
        }
        for past in phrases.PAST_ROUND.pattern.finditer(prompt)
    ]
    seen: RoundState = {
        "phase": phase,
        "you": you["you"],
        "players": players["players"].split(", "),
        "endowment": 0 if most is None else int(most["most"]),
        "history": history,
    }
    shown = reputation_prompt.read_co_players(prompt)
    if shown is not None:  # the shape of round_state's reputation, as far as players read it
        seen["reputation"] = {
            "players": [
                {"agent": agent, "history": [{"contribution": c} for c in given]}
                for agent, given in shown.items()
            ]
        }
    if phase == "punish":
        now = phrases.CONTRIBUTIONS_NOW.pattern.search(prompt)
        terms = phrases.PUNISH_TERMS.pattern.search(prompt)
        if now is None or terms is None:
            return None
        seen["contributions"] = {
            label: int(amount) for label, amount in phrases.read_pairs(now["contributions"]).items()
        }
        seen["max_punish"] = int(terms["most"])
    return seen


# The house player the mock plays as (module docstring's table).
PLAYERS = MockPlayers(
    cooperate=FullContributor,
    defect=FreeRider,
    random=RandomPlayer,
    policies=PUBLIC_GOODS_POLICIES,
    competitive=FreeRider,
    cooperative=PunishingCooperator,
    default=ConditionalCooperator,
)


def house_player(behaviour: MockSettings, lean: str | None) -> HousePlayer:
    """The house player the mock plays as (module docstring's table)."""
    player: HousePlayer = PLAYERS.choose(behaviour, lean)
    return player


def answer_text(action: dict[str, Any]) -> str:
    """An action in the adapter's answer format (what `prompts.PROMPTS.action` reads back)."""
    if action["type"] == "message":
        return str(action["text"])
    if action["type"] == "contribute":
        return f"CONTRIBUTE {action['amount']}"
    points = {label: n for label, n in action["points"].items() if n > 0}
    if not points:
        return "PUNISH NONE"
    return "PUNISH " + ", ".join(f"{label}={n}" for label, n in points.items())


def play(
    prompt: str,
    behaviour: MockSettings,
    key: str,
    *,
    lean: str | None,
    allowed: tuple[str, ...] | None,
    asked: MockAsk | None = None,  # the prompt holds all this game's mock reads
) -> str | None:
    """The mock's answer to a public goods player's prompt (module docstring), or None."""
    round_state = read_round_state(prompt)
    if round_state is None:
        return None
    moving = round_state["phase"] != "talk"
    garbage = garbled(key, behaviour, allowed, GARBAGE) if moving else None
    if garbage is not None:
        return garbage
    player = house_player(behaviour, lean)
    if type(player) is PunishingCooperator and "reputation" in round_state:
        player = ReputationCooperator()
    action = player.act(round_state, mock_rng(key, "move"))
    answer = answer_text(action)
    if allowed is not None and answer not in allowed:
        return allowed[0]  # cannot happen for a legal move; the grammar would force one anyway
    return answer
