"""The prompt adapter of a normal-form game under a mechanism (`pdbench.games.prompt_adapter.
PromptAdapter`): CoopEval's prompt texts (Xiao215/CoopEval@8559e85, research doc section 4),
filled from one player's round_state alone, and its JSON answer read back strictly.

Files (prompts/normal_form/): `design.md`, `vote.md`, `sign.md`, `play.md`, each the base game's
setup (`game_rules`: CoopEval's GridGame prompt, `games/base.py:326-341`, actions as tokens and
the payoff description), the seat line (`base.py:148-153`), the persona, the phase's twist
(`mechanisms/prompts.py:6-124`), the history of play when the match has more than one round
(CoopEval's repetition lines, `prompts.py:128-142`: with `discount` < 1 or a `continuation`
its twist and the continuation chance, as CoopEval tells it; else the number of rounds, since no
chance is told) and the answer format. The offline mock (`mock`) reads the same phrases back.

Answers end in one JSON object (the last one in the reply is read, as CoopEval's
`extract_json_object_from_end`); anything else is refused with the reason and re-asked:
- play, strategies=mixed: `{"A0": <INT>, "A1": <INT>, ...}`, exactly the keys (with A{n} under
  mediation), whole numbers 0..100 summing to 100 (`base.py:203-241`); strategies=pure:
  `{"action": "A1"}`;
- design: `{"1": "A0", ..., "N": "A1"}` (mediator) or `{"A0": <INT>, ...}` (contract);
- vote: `{"M1": true, "M2": false}` / `{"C1": ..., ...}`, every key, booleans;
- sign: `{"sign": true | false}`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pdbench.core.phrases import Phrase, written_number
from pdbench.games.normal_form import reputation_prompt
from pdbench.games.normal_form.observation import told_chance
from pdbench.games.normal_form.scoring import chance_in_percent
from pdbench.games.normal_form.texts import (
    CONTRACT_OUTPUT,
    DESIGN_CONTRACT,
    DESIGN_MEDIATOR,
    MEDIATOR_OUTPUT,
    MIXED,
    PLAY_CONTRACTED,
    PLAY_MEDIATED,
    PLAY_REJECTED,
    PURE,
    SETUP,
    SIGN_CONTRACT,
    SIGN_OUTPUT,
    VOTE_CONTRACT,
    VOTE_MEDIATOR,
    VOTE_OUTPUT,
)

_NUM = r"-?\d+(?:\.\d+)?"
_TOKEN = r"A\d+"

ACTION_LINE = Phrase("- {token}", slots={"token": _TOKEN})
PAYOFF_PAIR = Phrase(
    "- If you choose {own} and the other player chooses {other}: you get {mine} points, the "
    "other player gets {theirs} points.",
    slots={"own": _TOKEN, "other": _TOKEN, "mine": _NUM, "theirs": _NUM},
)
PAYOFF_GROUP = Phrase(
    "- If the players choose {profile} (Player 1 first): they get {points} points.",
    slots={"profile": r"A\d+(?:, A\d+)*", "points": rf"{_NUM}(?:, {_NUM})*"},
)
SEAT = Phrase(
    "In case player identification becomes relevant, you are playing in the position of "
    "Player {player} in this game.",
    slots={"player": r"\d+"},
)
ROUNDS_PLAYED = Phrase(
    "You are playing this game repeatedly with the same player(s), {limit} rounds in all. "
    "You have already played this game for {played} round(s) in the past.",
    slots={"limit": r"\d+"},
)
# with `discount` < 1, CoopEval's twist instead (repetition.py@8559e85:52-65, prompts.py:128-136:
# the chance int(discount * 100), never the number of rounds)
REPEATED = Phrase(
    "You are playing this game *repeatedly* with the same player(s). The action {which} will be "
    "visible to those player(s) in future rounds and may influence their decisions.",
    slots={"which": r".+?"},
)
SAMPLED, PLAYED = "sampled from your action probability distribution", "you play"  # mixed, pure
CONTINUATION = Phrase(
    "After each round, there is a {chance}% chance probability that an additional round will "
    "take place. You have already played this game for {played} round(s) in the past.",
    anchor="anywhere",
    slots={"chance": r"\d+(?:\.\d+)?"},
)
NO_HISTORY = "You haven't played any rounds with the other player(s) yet."
HISTORY_ROUND = Phrase("[Round {round}]")
HISTORY_SELF = Phrase("    You: {own}", slots={"own": _TOKEN})
HISTORY_OTHER = Phrase("    Player {player}: {other}", slots={"player": r"\d+", "other": _TOKEN})
MEDIATOR_BY = Phrase("Mediator proposed by Player {player}:", slots={"player": r"\d+"})
MEDIATOR_LINE = Phrase(
    "    • If {count} player(s) delegate to the mediator, it will play action {own}.",
    slots={"own": _TOKEN},
)
CONTRACT_BY = Phrase("Contract proposed by Player {player}:", slots={"player": r"\d+"})
CONTRACT_RECEIVE = Phrase(
    "- If a player chooses {own}, they receive an additional payment of {mine} point(s), drawn "
    "equally from the other players.",
    slots={"own": _TOKEN, "mine": r"\d+"},
)
CONTRACT_PAY = Phrase(
    "- If a player chooses {own}, they pay an additional payment of {mine} point(s), "
    "distributed equally among the other players.",
    slots={"own": _TOKEN, "mine": r"\d+"},
)
CONTRACT_ZERO = Phrase(
    "- If a player chooses {own}, there is no additional payments in either direction.",
    slots={"own": _TOKEN},
)
CONTRACT_SELECTED = Phrase(
    "Here is the contract that was selected via approval voting (proposed by Player {player}):",
    anchor="anywhere",
    slots={"player": r"\d+"},
)
MEDIATOR_PLAY = Phrase(
    'Consider {own} as an additional action "Delegate to Mediator". Your final mixed strategy '
    "should include probability for all actions A0, A1, ..., {last}.",
    slots={"own": _TOKEN, "last": _TOKEN},
)
MEDIATOR_PROPOSER = Phrase(
    "The available mediator was proposed by Player {player} and selected via approval voting "
    "among the players. Here is what the mediator would do for the players that delegate to it:",
    slots={"player": r"\d+"},
)
CONTRACT_ACTIVE_LINE = (
    "On top of the original game rules, there is a payment contract in place because every "
    "player signed it in beforehand."
)
REJECTED_BY = Phrase("Player(s) who rejected it: {names}", slots={"names": r".+"})
MIXED_FORMAT = Phrase("- Values must be percentage points given in integers.")
PURE_FORMAT = Phrase("- Choose exactly one of the actions: {tokens}.", slots={"tokens": r".+"})
MEDIATOR_FORMAT = Phrase(
    "- Keys: the number of players delegating (from 1 to {count}).", slots={"count": r"\d+"}
)
CONTRACT_FORMAT = Phrase("- Values: integers representing the extra payoff for that action.")
VOTE_FORMAT = Phrase("- Ensure all {what} have an entry", slots={"what": r"mediators|contracts"})
SIGN_FORMAT = Phrase('- Format: {{"sign": <BOOL>}} where <BOOL> is true or false.')

_JSON = json.JSONDecoder()


def _rules(rs: dict[str, Any]) -> str:
    n, me = rs["players"], rs["player"] - 1
    mixed = rs["strategies"] == "mixed"
    lines = []
    for row in rs["payoffs"]:
        acts, points = row["actions"], row["points"]
        if n == 2:
            other = 1 - me
            lines.append(
                PAYOFF_PAIR.render(
                    own=acts[me],
                    other=acts[other],
                    mine=written_number(points[me]),
                    theirs=written_number(points[other]),
                )
            )
        else:
            lines.append(
                PAYOFF_GROUP.render(
                    profile=", ".join(acts), points=", ".join(written_number(p) for p in points)
                )
            )
    return SETUP.format(
        others="another player" if n == 2 else f"{n - 1} other players",
        actions="\n".join(ACTION_LINE.render(token=t) for t in rs["actions"]),
        choice="a probability for each action" if mixed else "one action",
        resolution="the final action will be drawn from the probability distributions."
        if mixed
        else "the chosen actions are played.",
        payoffs="\n".join(lines),
    )


def mediator_lines(plays: dict[str, str]) -> str:
    return "\n".join(MEDIATOR_LINE.render(count=k, own=a) for k, a in plays.items())


def contract_lines(payments: dict[str, int]) -> str:
    lines = []
    for action, value in payments.items():
        if value > 0:
            lines.append(CONTRACT_RECEIVE.render(own=action, mine=value))
        elif value < 0:
            lines.append(CONTRACT_PAY.render(own=action, mine=-value))
        else:
            lines.append(CONTRACT_ZERO.render(own=action))
    return "\n".join(lines)


def _twist(rs: dict[str, Any]) -> str:
    phase, mechanism = rs["phase"], rs["mechanism"]
    if phase == "design":
        return DESIGN_MEDIATOR if mechanism == "mediation" else DESIGN_CONTRACT
    if phase == "vote":
        blocks = []
        for p in rs["proposals"]:
            if "mediator" in p:
                blocks += [
                    MEDIATOR_BY.render(player=p["proposer"]),
                    mediator_lines(p["mediator"]),
                    "",
                ]
            else:
                blocks += [
                    CONTRACT_BY.render(player=p["proposer"]),
                    contract_lines(p["contract"]),
                    "",
                ]
        template = VOTE_MEDIATOR if mechanism == "mediation" else VOTE_CONTRACT
        return template.format(designs="\n".join(blocks).rstrip())
    if phase == "sign":
        contract = rs["contract"]
        return SIGN_CONTRACT.format(
            selected=CONTRACT_SELECTED.render(player=contract["proposer"]),
            contract=contract_lines(contract["payments"]),
        )
    if "mediator" in rs:
        return PLAY_MEDIATED.format(
            proposer=MEDIATOR_PROPOSER.render(player=rs["mediator"]["proposer"]),
            mediator=mediator_lines(rs["mediator"]["plays"]),
            delegate=MEDIATOR_PLAY.render(own=rs["delegate"], last=rs["delegate"]),
        )
    if "contract" in rs:
        contract = rs["contract"]
        selected = CONTRACT_SELECTED.render(player=contract["proposer"])
        if rs["contract_active"]:
            return PLAY_CONTRACTED.format(
                active=CONTRACT_ACTIVE_LINE,
                selected=selected,
                contract=contract_lines(contract["payments"]),
            )
        names = ", ".join(str(name).removeprefix("Player ") for name in rs["refused_by"])
        return PLAY_REJECTED.format(
            selected=selected,
            contract=contract_lines(contract["payments"]),
            rejected=REJECTED_BY.render(names=names),
        )
    return ""


def _history(rs: dict[str, Any]) -> str:
    if rs["mechanism"] == "reputation":  # the tree or an image replaces the partners' rounds
        return "\n".join(reputation_prompt.render(rs))
    if rs["round_limit"] == 1:
        return ""
    played = rs["round_number"] - 1
    if (told := told_chance(rs)) is not None:  # CoopEval's chance, never the rounds (null)
        which = SAMPLED if rs["strategies"] == "mixed" else PLAYED
        chance = written_number(chance_in_percent(told))
        lines = [
            REPEATED.render(which=which),
            CONTINUATION.render(chance=chance, played=played),
            "",
        ]
    else:
        lines = [ROUNDS_PLAYED.render(limit=rs["round_limit"], played=played), ""]
    if not rs["history"]:
        lines.append(NO_HISTORY)
    mine = f"Player {rs['player']}"
    for past in reversed(rs["history"]):  # newest first, as CoopEval lists them
        lines.append(HISTORY_ROUND.render(round=past["round_number"]))
        for name, action in past["actions"].items():
            if name == mine:
                lines.append(HISTORY_SELF.render(own=action))
            else:
                lines.append(
                    HISTORY_OTHER.render(player=name.removeprefix("Player "), other=action)
                )
    return "\n".join(lines)


def play_tokens(rs: dict[str, Any]) -> list[str]:
    return [*rs["actions"], *([rs["delegate"]] if "delegate" in rs else [])]


def _answer_format(rs: dict[str, Any]) -> str:
    phase = rs["phase"]
    if phase == "design" and rs["mechanism"] == "mediation":
        return MEDIATOR_OUTPUT.format(
            count=rs["players"], keys=MEDIATOR_FORMAT.render(count=rs["players"])
        )
    if phase == "design":
        return CONTRACT_OUTPUT.format(values=CONTRACT_FORMAT.render())
    if phase == "vote":
        mediation = rs["mechanism"] == "mediation"
        return VOTE_OUTPUT.format(
            key="M" if mediation else "C",
            what_singular="mediator" if mediation else "contract",
            ensure=VOTE_FORMAT.render(what="mediators" if mediation else "contracts"),
        )
    if phase == "sign":
        return SIGN_OUTPUT.format(format=SIGN_FORMAT.render())
    if rs["strategies"] == "mixed":
        return MIXED.format(values=MIXED_FORMAT.render())
    return PURE.format(choose=PURE_FORMAT.render(tokens=", ".join(play_tokens(rs))))


def last_json_object(answer: str) -> dict[str, Any]:
    """The last JSON object of `answer` (ValueError when it ends in none)."""
    text = answer.rstrip()
    if text.endswith("```"):
        text = text[:-3].rstrip()
    start = text.rfind("{")
    while start != -1:
        try:
            value, end = _JSON.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.rfind("{", 0, start)
            continue
        if isinstance(value, dict) and not text[end:].strip():
            return value
        start = text.rfind("{", 0, start)
    raise ValueError("the answer must end with one JSON object")


def _keys(found: dict[str, Any], expected: list[str]) -> None:
    if sorted(found) != sorted(expected):
        raise ValueError(f"Expected keys {sorted(expected)}, got {sorted(found)}")


def read_action(rs: dict[str, Any], answer: str) -> dict[str, Any]:
    """The action an answer names (module docstring), strictly."""
    found = last_json_object(answer)
    phase = rs["phase"]
    if phase == "design" and rs["mechanism"] == "mediation":
        _keys(found, [str(k) for k in range(1, rs["players"] + 1)])
        return {"type": "design", "mediator": found}
    if phase == "design":
        _keys(found, list(rs["actions"]))
        for key, value in found.items():
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"Value for {key} must be an integer, got {value!r}")
        return {"type": "design", "contract": found}
    if phase == "vote":
        _keys(found, [p["id"] for p in rs["proposals"]])
        for key, value in found.items():
            if not isinstance(value, bool):
                raise ValueError(f"Value for {key} must be true or false, got {value!r}")
        return {"type": "vote", "approve": found}
    if phase == "sign":
        _keys(found, ["sign"])
        if not isinstance(found["sign"], bool):
            raise ValueError(f"'sign' value must be a boolean, got {found['sign']!r}")
        return {"type": "sign", "sign": found["sign"]}
    if rs["strategies"] == "pure":
        _keys(found, ["action"])
        return {"type": "play", "action": found["action"]}
    _keys(found, play_tokens(rs))
    for key, value in found.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
            raise ValueError(f"Value for {key} must be an integer from 0 to 100, got {value!r}")
    if sum(found.values()) != 100:
        raise ValueError(f"Values must sum to 100, got {sum(found.values())}")
    return {"type": "play", "distribution": found}


@dataclass(frozen=True)
class NormalFormPrompts:
    """The adapter (module docstring)."""

    lists_answers = False  # JSON objects, too many to list
    design_tokens: int = 120
    move_tokens: int = 60

    def prompt_file(self, round_state: dict[str, Any]) -> str:
        return f"{round_state['phase']}.md"

    def fields(self, round_state: dict[str, Any]) -> dict[str, str]:
        return {
            "game_rules": _rules(round_state),
            "seat": SEAT.render(player=round_state["player"]),
            "twist": _twist(round_state),
            "history": _history(round_state),
            "answer_format": _answer_format(round_state),
        }

    def action(self, round_state: dict[str, Any], answer: str) -> dict[str, Any]:
        return read_action(round_state, answer)

    def reminder(self, round_state: dict[str, Any]) -> str:
        return _answer_format(round_state)

    def legal_answers(self, round_state: dict[str, Any]) -> tuple[str, ...] | None:
        return None

    def max_tokens(self, round_state: dict[str, Any]) -> int:
        return self.design_tokens if round_state["phase"] == "design" else self.move_tokens

    def shared_sample(self, round_state: dict[str, Any]) -> str | None:
        """`design_scope` run: the design is one sample per replicate for every match (the same
        agent and seat designs once, paid once); None: the match's own sample."""
        if round_state["phase"] == "design" and round_state.get("design_scope") == "run":
            return "design"
        return None


PROMPTS = NormalFormPrompts()
