"""The offline mock as a player of a normal-form game under a mechanism (`pdbench.games.
prompt_adapter.GameMock`): it reads the prompt the LLM agent wrote (prompts/normal_form/*.md,
its lines written from the phrases of `prompts`, read back here, so the two cannot drift) into
the round_state it shows, and answers as a house player (`policies`) would, in the adapter's
JSON (a pure action as a distribution of 100 when strategies are mixed).

| strategy              | lean        | plays                                                         |
| --------------------- | ----------- | ------------------------------------------------------------- |
| reciprocate (default) | cooperative | designs the cooperative mediator / the temptation contract,   |
|                       |             | approves the cooperative designs, signs, delegates, plays A0  |
| reciprocate           | competitive | the reverse: designs the selfish mediator / no payments,      |
|                       |             | approves the others, never signs or delegates, plays defect   |
| reciprocate           | none        | tit for tat, maximin votes, signs, does not delegate          |
| (under reputation)    | cooperative | A0 unless a co-player's newest shown round was not A0 (tft)   |
| (under image)         | cooperative | A0 with a partner shown good, defect against a bad one (tft)  |
| cooperate / defect    | any         | mech_allc / mech_alld                                         |
| random                | any         | mech_random                                                   |
| policy (a mech_*)     | any         | that house player with its params                             |

A share `invalid_rate` of its answers are garbage (re-asks are tested). Its draws are pure
functions of the request's cache key. `play` returns None for a prompt that is not this game's.
"""

from __future__ import annotations

import json
from typing import Any

from pdbench.games.mock_play import garbled, mock_rng
from pdbench.games.normal_form import prompts as p
from pdbench.games.normal_form.image_prompt import read_image
from pdbench.games.normal_form.policies import (
    NORMAL_FORM_POLICIES,
    AllC,
    AllD,
    MechanismPlayer,
    RandomPlayer,
    TitForTat,
)
from pdbench.games.normal_form.reputation_prompt import read_reputation
from pdbench.games.prompt_adapter import MockAsk, MockSettings

GARBAGE = ("I would rather think about it.", '{"A0": "most"}', "Delegate, probably.")


def _found(phrase: Any, prompt: str) -> Any:
    return phrase.pattern.search(prompt)


def _phase(prompt: str) -> tuple[str, str | None] | None:
    """(phase, mechanism when the answer format tells it), or None for another game's prompt."""
    if _found(p.SEAT, prompt) is None:
        return None
    if _found(p.MEDIATOR_FORMAT, prompt):
        return "design", "mediation"
    if _found(p.CONTRACT_FORMAT, prompt):
        return "design", "contracting"
    vote = _found(p.VOTE_FORMAT, prompt)
    if vote:
        return "vote", "mediation" if vote["what"] == "mediators" else "contracting"
    if _found(p.SIGN_FORMAT, prompt):
        return "sign", "contracting"
    if _found(p.MIXED_FORMAT, prompt) or _found(p.PURE_FORMAT, prompt):
        return "play", None
    return None


def _payoffs(prompt: str, me: int) -> tuple[int, list[str], list[dict[str, Any]]]:
    rows: list[dict[str, Any]] = []
    pairs = list(p.PAYOFF_PAIR.pattern.finditer(prompt))
    if pairs:
        for m in pairs:
            acts = [m["own"], m["other"]] if me == 0 else [m["other"], m["own"]]
            pts = [float(m["mine"]), float(m["theirs"])]
            rows.append({"actions": acts, "points": pts if me == 0 else pts[::-1]})
        players = 2
    else:
        for m in p.PAYOFF_GROUP.pattern.finditer(prompt):
            rows.append(
                {
                    "actions": m["profile"].split(", "),
                    "points": [float(x) for x in m["points"].split(", ")],
                }
            )
        players = len(rows[0]["actions"]) if rows else 0
    tokens = [m["token"] for m in p.ACTION_LINE.pattern.finditer(prompt)]
    return players, tokens, rows


def _mediator(lines: list[str]) -> dict[str, str]:
    found = [p.MEDIATOR_LINE.pattern.fullmatch(line) for line in lines]
    return {m["count"]: m["own"] for m in found if m}


def _contract(lines: list[str]) -> dict[str, int]:
    payments: dict[str, int] = {}
    for line in lines:
        for phrase, sign in ((p.CONTRACT_RECEIVE, 1), (p.CONTRACT_PAY, -1), (p.CONTRACT_ZERO, 0)):
            m = phrase.pattern.fullmatch(line)
            if m:
                payments[m["own"]] = sign * int(m.groupdict().get("mine") or 0)
    return payments


def _proposals(lines: list[str], mechanism: str) -> list[dict[str, Any]]:
    proposals: list[dict[str, Any]] = []
    header = p.MEDIATOR_BY if mechanism == "mediation" else p.CONTRACT_BY
    for i, line in enumerate(lines):
        m = header.pattern.fullmatch(line)
        if not m:
            continue
        body = []
        for after in lines[i + 1 :]:
            if not after.strip():
                break
            body.append(after)
        key = "M" if mechanism == "mediation" else "C"
        design = (
            {"mediator": _mediator(body)}
            if mechanism == "mediation"
            else {"contract": _contract(body)}
        )
        proposals.append(
            {"id": f"{key}{len(proposals) + 1}", "proposer": int(m["player"]), **design}
        )
    return proposals


def _history(lines: list[str], me: int) -> list[dict[str, Any]]:
    rounds: list[dict[str, Any]] = []
    for line in lines:
        start = p.HISTORY_ROUND.pattern.fullmatch(line)
        if start:
            rounds.append({"round_number": int(start["round"]), "actions": {}})
            continue
        own, other = p.HISTORY_SELF.pattern.fullmatch(line), p.HISTORY_OTHER.pattern.fullmatch(line)
        if rounds and own:
            rounds[-1]["actions"][f"Player {me + 1}"] = own["own"]
        elif rounds and other:
            rounds[-1]["actions"][f"Player {other['player']}"] = other["other"]
    return sorted(rounds, key=lambda r: r["round_number"])  # the prompt lists newest first


def read_round_state(prompt: str) -> dict[str, Any] | None:
    """What a normal-form prompt shows, in round_state's shape (the keys the house players
    read); None if it is not one."""
    phased = _phase(prompt)
    seat = _found(p.SEAT, prompt)
    if phased is None or seat is None:
        return None
    phase, mechanism = phased
    me = int(seat["player"]) - 1
    players, tokens, rows = _payoffs(prompt, me)
    if not rows or not tokens:
        return None
    lines = prompt.splitlines()
    seen: dict[str, Any] = {
        "phase": phase,
        "mechanism": mechanism or "none",
        "strategies": "mixed" if _found(p.MIXED_FORMAT, prompt) else "pure",
        "player": me + 1,
        "players": players,
        "actions": tokens,
        "payoffs": rows,
        "history": _history(lines, me),
    }
    reputation = read_reputation(prompt)
    if reputation is not None:
        seen["mechanism"] = "reputation"
        seen["reputation"] = reputation
    image = read_image(prompt)
    if image is not None:  # `reputation_shown: image`: the partner's image, no tree
        seen["mechanism"] = "reputation"
        seen.update(image)
    if phase == "vote":
        seen["proposals"] = _proposals(lines, str(mechanism))
    selected = _found(p.CONTRACT_SELECTED, prompt)
    delegate = _found(p.MEDIATOR_PLAY, prompt)
    if phase == "play" and delegate:
        seen["mechanism"] = "mediation"
        seen["delegate"] = delegate["own"]
        seen["mediator"] = {"plays": _mediator(lines)}
    elif phase in ("sign", "play") and selected:
        seen["mechanism"] = "contracting"
        seen["contract"] = {"proposer": int(selected["player"]), "payments": _contract(lines)}
        seen["contract_active"] = p.CONTRACT_ACTIVE_LINE in prompt
    return seen


def house_player(
    behaviour: MockSettings, lean: str | None, reputation: bool = False
) -> MechanismPlayer:
    """The house player the mock plays as (module docstring's table)."""
    if behaviour.strategy == "cooperate":
        return AllC()
    if behaviour.strategy == "defect":
        return AllD()
    if behaviour.strategy == "random":
        return RandomPlayer()
    if behaviour.strategy == "policy" and behaviour.policy in NORMAL_FORM_POLICIES:
        return NORMAL_FORM_POLICIES[behaviour.policy](**behaviour.params)
    if lean == "cooperative" and reputation:
        return TitForTat()  # reciprocates what the new partner did last in its shown rounds
    if lean == "cooperative":
        return MechanismPlayer(play="cooperate", vote="cooperative", delegate=True)
    if lean == "competitive":
        return MechanismPlayer(play="defect", design="selfish", vote="uncooperative", sign=False)
    return TitForTat()


def answer_text(round_state: dict[str, Any], action: dict[str, Any]) -> str:
    """An action in the adapter's JSON (what `prompts.read_action` reads back)."""
    kind = action["type"]
    if kind == "design":
        value = action.get("mediator", action.get("contract"))
    elif kind == "vote":
        value = action["approve"]
    elif kind == "sign":
        value = {"sign": action["sign"]}
    elif round_state["strategies"] == "mixed":
        value = {t: 100 if t == action["action"] else 0 for t in p.play_tokens(round_state)}
    else:
        value = {"action": action["action"]}
    return json.dumps(value)


def play(
    prompt: str,
    behaviour: MockSettings,
    key: str,
    *,
    lean: str | None,
    allowed: tuple[str, ...] | None,
    asked: MockAsk | None = None,  # the prompt holds all this game's mock reads
) -> str | None:
    """The mock's answer to a normal-form player's prompt (module docstring), or None."""
    round_state = read_round_state(prompt)
    if round_state is None:
        return None
    garbage = garbled(key, behaviour, allowed, GARBAGE)
    if garbage is not None:
        return garbage
    player = house_player(behaviour, lean, round_state["mechanism"] == "reputation")
    action = player.act(round_state, mock_rng(key, "move"))
    return answer_text(round_state, action)
