"""The offline mock as a player of the 2x2 games (the 2x2 entries' `mock`, a
`pdbench.games.prompt_adapter.GameMock`), asked after every other game's mock: it reads any
prompt no other game's mock reads as a 2x2 prompt.

It reads what it needs from the rendered prompt, the way a real model would
(`pdbench.providers.prompt_reading`): the two action words (from the payoff rules, else from the
answer instruction `Answer with exactly one of: <cooperate>, <defect>.`), the rules' payoffs, the
rounds shown in any history format, and the current round. It answers in the request's format
(`asked.response_format`): a bare label, JSON (also when the prompt shows a `{"action"`
example), or reasoning with the label alone on the last line. Asked for a message (a negotiate
turn, response format "message"), it announces the move its strategy makes now, "I will
<label>.", and keeps its word.

Strategies: cooperate, defect, reciprocate (the opponent's last move shown), random (P(C) =
cooperate_prob, a hash of the request's cache key) and policy: it answers as a registered policy
would, replaying the rounds the prompt shows through the policy's `act` after `reset(seed)` (the
request's seed, which the LLM agent derives per match and side), one call per round, so a policy
with memory (GRIM, GRADUAL, ...) and a random one (RANDOM(p) draws once per round) play as they
would as a policy. Rounds the prompt does not show (a history window) are replayed as rounds with
nothing seen, as the model would know nothing of them either. A policy's move needs the history,
so a prompt it cannot read is `MockCannotAnswer` (the provider's error), never a guess.

A constrained request is answered with exactly one of its allowed answers. The persona leans the
answers of reciprocate and random (`pdbench.games.mock_play.LEANS`; cooperate, defect and policy
are scripts and ignore it). Every "random" choice is a pure function of the request's cache key.
"""

from __future__ import annotations

import json

from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.payoff import PayoffMatrix
from pdbench.core.transcript import Observation
from pdbench.games.mock_play import LEANS, uniform
from pdbench.games.prompt_adapter import MockAsk, MockCannotAnswer, MockSettings
from pdbench.providers.prompt_reading import (
    ReadPrompt,
    UnreadablePrompt,
    read_labels_only,
    read_prompt,
)

REASONS = {
    "cooperate": "I always cooperate.",
    "defect": "I always defect.",
    "reciprocate": "I do what my opponent did last.",
    "random": "I chose at random.",
}
# The strategies a persona leans (the others are scripts).
LEANING = ("reciprocate", "random")


def play(
    prompt: str,
    behaviour: MockSettings,
    key: str,
    *,
    lean: str | None,
    allowed: tuple[str, ...] | None,
    asked: MockAsk,
) -> str:
    """The mock's answer to a 2x2 prompt (module docstring); any prompt is read as one."""
    try:
        seen = read_prompt(prompt)
    except UnreadablePrompt as error:
        if behaviour.strategy == "policy":  # a policy's move needs the history: loud
            raise MockCannotAnswer(f"the mock model cannot read this prompt: {error}") from None
        seen = read_labels_only(prompt)
    cooperate, defect = asked.labels or seen.labels

    talking = asked.response_format == "message"  # a negotiate turn: any text is valid
    if not talking and allowed is None and uniform(key, "invalid") < behaviour.invalid_rate:
        garbage = (
            f"I think I will {cooperate}.",
            "Let me think about this step by step.",
            f"{cooperate} or {defect}? Hard to say.",
        )
        return garbage[int(uniform(key, "garbage") * len(garbage))]

    strategy = behaviour.strategy
    if strategy == "cooperate":
        label = cooperate
    elif strategy == "defect":
        label = defect
    elif strategy == "reciprocate":
        opponent_defected = bool(seen.history) and seen.history[-1].opponent_action is Action.D
        label = defect if opponent_defected else cooperate
    elif strategy == "policy":
        label = cooperate if _policy_move(behaviour, seen, asked.seed) is Action.C else defect
    else:
        label = cooperate if uniform(key, "action") < behaviour.cooperate_prob else defect

    reason = _reason(behaviour)
    leaning = next((x for x in LEANS if x.name == lean), None) if strategy in LEANING else None
    if leaning is not None:
        move = Action.C if label == cooperate else Action.D
        if move is leaning.overridden and uniform(key, f"lean:{leaning.name}") < leaning.share:
            label = defect if move is Action.C else cooperate
            reason = leaning.reason

    if talking:  # the mock says what it is about to do: an honest negotiator
        return f"I will {label}."
    if allowed is not None:
        return allowed[0] if label == cooperate else allowed[1]
    if asked.response_format == "json" or '{"action"' in asked.prompt:
        return json.dumps({"action": label, "reason": reason})
    if asked.response_format == "reasoning":
        return f"{reason} This round calls for {label}.\n{label}"
    return label


def _reason(behaviour: MockSettings) -> str:
    if behaviour.strategy == "policy":
        return f"I play as {str(behaviour.policy).upper()} would."
    return REASONS[behaviour.strategy]


def _policy_move(behaviour: MockSettings, seen: ReadPrompt, seed: int | None) -> Action:
    """The move the configured policy makes after the rounds the prompt shows."""
    from pdbench.strategies import make_policy  # the registry, loaded when first needed

    game = Game(
        id="read_from_the_prompt",
        arena_id="",
        description="the game as the prompt states it",
        payoffs=seen.payoffs or PayoffMatrix(),
        cooperate_label=seen.labels[0],
        defect_label=seen.labels[1],
        is_prisoners_dilemma=False,
    )
    policy = make_policy(str(behaviour.policy), game, behaviour.params)
    policy.reset(seed)
    shown = {past.round_index: past for past in seen.history}
    move = Action.C
    for round_index in range(1, seen.round_index + 1):
        last = shown.get(round_index - 1)
        move = policy.act(Observation(round_index, (last,) if last else ()))
    return move
