"""An offline model that plays a fixed strategy, for tests, demos, benchmarks and for running a
published design end to end without a key.

A turn game that says how the mock plays it (`TurnGameEntry.mock`, e.g. public goods' own
`mock` module) is asked first: the first game's mock that reads the prompt as its own answers,
with the persona's lean named below (Liar's Dice's and public goods' mocks live in their
packages). A third role is played by the mock its declaration names (`ThirdRole.mock`, in its
game's package), asked before the games.

It reads what it needs from the rendered prompt, the way a real model would
(`pdbench.providers.prompt_reading`): the two action words (from the payoff rules, else from the
answer instruction `Answer with exactly one of: <cooperate>, <defect>.`), the rules' payoffs, the
rounds shown in any history format, and the current round. It answers in the request's format:
a bare label, JSON (also when the prompt shows a `{"action"` example), or reasoning with the label
alone on the last line. Its answer then goes through the same strict parser as a real model's.
Asked for a message (a negotiate turn, response format "message"), it announces the move its
strategy makes now, "I will <label>.", and keeps its word.

Strategies: cooperate, defect, reciprocate (the opponent's last move shown), random (P(C) =
cooperate_prob, a hash of the request's cache key) and policy: it answers as a registered policy
would, replaying the rounds the prompt shows through the policy's `act` after `reset(seed)` (the
request's seed, which the LLM agent derives per match and side), one call per round, so a policy
with memory (GRIM, GRADUAL, ...) and a random one (RANDOM(p) draws once per round) play as they
would as a policy. Rounds the prompt does not show (a history window) are replayed as rounds with
nothing seen, as the model would know nothing of them either.

A constrained request (`constrain: grammar | json_schema`) is honoured the way a real server
honours it: the answer is exactly one of the request's allowed answers (a bare label, or
`{"action": "<label>"}` without a reason), so a constrained mock never answers garbage, whatever
its `invalid_rate`. Every "random" choice is a pure function of the request, so one request always
gets one answer.

The persona leans its answers (strategies reciprocate and random only; cooperate, defect and
policy are scripts and ignore it). Keyword rules read the system prompt and the round prompt,
where the persona is rendered (whole words, any case; see `LEANS`):

- competitive ("exploit...", "advantage", "above all", "competitive", "selfish", "ruthless",
  "greedy"): where the strategy would cooperate, it defects instead in 35% of such answers
  (prompts/personas/exploitative.md);
- cooperative ("cooperation", "cooperative", "trust...", "forgiv...", "altruis..."): where the
  strategy would defect, it cooperates instead in 50% of such answers
  (prompts/personas/cooperative.md, generous_tft.md);
- neither, or both at once (a persona with mixed words): no lean (tit_for_tat.md, grim_trigger.md,
  wsls.md, no persona).

Which answers flip is a pure function of the request (a hash of its cache key, which holds the
per-match seed), so a run stays deterministic, and replicates differ as the seed does. The lean's
version is part of the mock's cache key (`cache_key_options`): answers cached by a mock
without it are not replayed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pdbench.config.schema import MockBehaviour, ProviderSpec
from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.payoff import PayoffMatrix
from pdbench.core.transcript import Observation
from pdbench.games.registry import game_mocks, role_mocks
from pdbench.providers.base import Completion, CompletionRequest, ProviderError
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


@dataclass(frozen=True)
class PersonaLean:
    """How a persona's words tilt the mock's answers: `share` of the answers that would be
    `overridden` become the other action."""

    name: str
    words: re.Pattern[str]
    overridden: Action
    share: float
    reason: str  # said (reasoning and JSON formats) when the lean decides the answer


LEANS = (
    PersonaLean(
        "competitive",
        re.compile(
            r"\b(exploit\w*|advantage|above all|competitive|selfish|ruthless|greedy)\b", re.I
        ),
        overridden=Action.C,
        share=0.35,
        reason="I take the chance to score more.",
    ),
    PersonaLean(
        "cooperative",
        re.compile(r"\b(cooperation|cooperative|trust\w*|forgiv\w*|altruis\w*)\b", re.I),
        overridden=Action.D,
        share=0.5,
        reason="I forgive and cooperate.",
    ),
)


def persona_lean(prompt_text: str) -> PersonaLean | None:
    """The lean whose words the prompt holds; None when no lean's or both leans' words occur."""
    found = [lean for lean in LEANS if lean.words.search(prompt_text)]
    return found[0] if len(found) == 1 else None


def _tokens(chars: int) -> int:
    """A token count in the usual rule of thumb (4 characters a token, rounded up): a one-letter
    answer is one token, as a real model's would be, never 0."""
    return -(-chars // 4)


def _uniform(key: str, salt: str) -> float:
    """A number in [0, 1) that is a pure function of (key, salt)."""
    digest = hashlib.sha256(f"{key}\x1f{salt}".encode()).digest()
    return int.from_bytes(digest[:7], "big") / 2**56


def client_for(spec: ProviderSpec, *, project_root: Path | None = None) -> MockProvider:
    """The mock a provider spec describes (the provider kind's client entry point)."""
    return MockProvider(_behaviour(spec), model=spec.model)


def _behaviour(spec: ProviderSpec) -> MockBehaviour:
    """The mock's own options in `spec` (the mock kind registers them: `ProviderKind.options`)."""
    behaviour = spec.own_options
    if not isinstance(behaviour, MockBehaviour):
        raise TypeError(f"a {spec.name} provider is no mock: it has no mock options")
    return behaviour


def cache_key_options(spec: ProviderSpec) -> tuple[tuple[str, Any], ...]:
    """What decides the mock's answers besides the request, for the cache key: its behaviour's
    settings, and a mark that reciprocate and random lean with the persona (answers cached
    before the lean existed must not replay)."""
    behaviour = _behaviour(spec)
    items = dict(behaviour.key_items())
    if behaviour.strategy in ("reciprocate", "random"):
        items["persona_lean"] = 1
    return tuple(sorted(items.items()))


class MockProvider:
    """Deterministic answers from `MockBehaviour`: a strategy, an invalid rate and a latency."""

    def __init__(self, behaviour: MockBehaviour | None = None, *, model: str = "mock") -> None:
        self.behaviour = behaviour or MockBehaviour()
        self.model = model

    def answer(self, request: CompletionRequest) -> str:
        """The answer text for a request (pure)."""
        # The round's own prompt is the first user message; corrections follow it.
        round_prompt = next((c for r, c in request.messages if r == "user"), "")
        text = "\n".join([request.system, round_prompt])
        for play_role in role_mocks():  # a third role's prompt (`ThirdRole.mock`)
            as_third_party = play_role(text)
            if as_third_party is not None:
                return as_third_party
        as_player = self._game_answer(text, request)  # a game that plays its own mock
        if as_player is not None:
            return as_player
        try:
            seen = read_prompt(text)
        except UnreadablePrompt as error:
            if self.behaviour.strategy == "policy":  # a policy's move needs the history: loud
                raise ProviderError(f"the mock model cannot read this prompt: {error}") from None
            seen = read_labels_only(text)
        cooperate, defect = request.labels or seen.labels
        key = request.cache_key()
        constrained = request.allowed_answers()

        talking = request.response_format == "message"  # a negotiate turn: any text is valid
        if (
            not talking
            and constrained is None
            and _uniform(key, "invalid") < self.behaviour.invalid_rate
        ):
            garbage = (
                f"I think I will {cooperate}.",
                "Let me think about this step by step.",
                f"{cooperate} or {defect}? Hard to say.",
            )
            return garbage[int(_uniform(key, "garbage") * len(garbage))]

        strategy = self.behaviour.strategy
        if strategy == "cooperate":
            label = cooperate
        elif strategy == "defect":
            label = defect
        elif strategy == "reciprocate":
            opponent_defected = bool(seen.history) and seen.history[-1].opponent_action is Action.D
            label = defect if opponent_defected else cooperate
        elif strategy == "policy":
            label = cooperate if self._policy_move(seen, request.seed) is Action.C else defect
        else:
            label = cooperate if _uniform(key, "action") < self.behaviour.cooperate_prob else defect

        reason = self._reason()
        lean = persona_lean(text) if strategy in ("reciprocate", "random") else None
        if lean is not None:
            move = Action.C if label == cooperate else Action.D
            if move is lean.overridden and _uniform(key, f"lean:{lean.name}") < lean.share:
                label = defect if move is Action.C else cooperate
                reason = lean.reason

        if talking:  # the mock says what it is about to do: an honest negotiator
            return f"I will {label}."
        if constrained is not None:
            return constrained[0] if label == cooperate else constrained[1]
        if request.response_format == "json" or '{"action"' in request.prompt:
            return json.dumps({"action": label, "reason": reason})
        if request.response_format == "reasoning":
            return f"{reason} This round calls for {label}.\n{label}"
        return label

    def _game_answer(self, text: str, request: CompletionRequest) -> str | None:
        """The answer of the first registered game's mock (`TurnGameEntry.mock`) that reads
        `text` as its prompt, with the persona's lean it holds; None when none does."""
        lean = persona_lean(text)
        for play in game_mocks():
            answer = play(
                text,
                self.behaviour,
                request.cache_key(),
                lean=None if lean is None else lean.name,
                allowed=request.allowed_answers(),
            )
            if answer is not None:
                return answer
        return None

    def _reason(self) -> str:
        if self.behaviour.strategy == "policy":
            return f"I play as {str(self.behaviour.policy).upper()} would."
        return REASONS[self.behaviour.strategy]

    def _policy_move(self, seen: ReadPrompt, seed: int | None) -> Action:
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
        policy = make_policy(str(self.behaviour.policy), game, self.behaviour.params)
        policy.reset(seed)
        shown = {past.round_index: past for past in seen.history}
        move = Action.C
        for round_index in range(1, seen.round_index + 1):
            last = shown.get(round_index - 1)
            move = policy.act(Observation(round_index, (last,) if last else ()))
        return move

    def _completion(self, request: CompletionRequest) -> Completion:
        text = self.answer(request)
        prompt_chars = len(request.system) + sum(len(c) for _, c in request.messages)
        return Completion(
            text=text,
            input_tokens=_tokens(prompt_chars),
            output_tokens=_tokens(len(text)),
            cost_usd=0.0,
        )

    async def acomplete(self, request: CompletionRequest) -> Completion:
        if self.behaviour.latency_s:
            await asyncio.sleep(self.behaviour.latency_s)
        return self._completion(request)
