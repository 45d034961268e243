"""An offline model that plays a fixed strategy, for tests, demos, benchmarks and for running a
published design end to end without a key.

A turn game that says how the mock plays it (`TurnGameEntry.mock`, e.g. public goods' own
`mock` module) is asked first: the first game's mock that reads the prompt as its own answers,
with the persona's lean named below (Liar's Dice's and public goods' mocks live in their
packages). A third role is played by the mock its declaration names (`ThirdRole.mock`, in its
game's package), asked before the games.

The 2x2 games' mock (`pdbench.games.matrix.mock`, their entries' `mock`) is asked last: it reads
any prompt no other game's mock reads as a 2x2 prompt, the way a real model would, and answers in
the request's format; a prompt it cannot read when its move needs the history (strategy policy)
is a ProviderError.

A constrained request (`constrain: grammar | json_schema`) is honoured the way a real server
honours it: the answer is exactly one of the request's allowed answers (a bare label, or
`{"action": "<label>"}` without a reason), so a constrained mock never answers garbage, whatever
its `invalid_rate`. Every "random" choice is a pure function of the request, so one request always
gets one answer.

The persona leans its answers (strategies reciprocate and random only; cooperate, defect and
policy are scripts and ignore it). Keyword rules read the system prompt and the round prompt,
where the persona is rendered (whole words, any case; `pdbench.games.mock_play.LEANS`):

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
from pathlib import Path
from typing import Any

from pdbench.config.schema import MockBehaviour, ProviderSpec
from pdbench.games.mock_play import persona_lean
from pdbench.games.prompt_adapter import MockCannotAnswer
from pdbench.games.registry import game_mocks, role_mocks
from pdbench.providers.base import Completion, CompletionRequest, ProviderError


def _tokens(chars: int) -> int:
    """A token count in the usual rule of thumb (4 characters a token, rounded up): a one-letter
    answer is one token, as a real model's would be, never 0."""
    return -(-chars // 4)


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
        answer = self._game_answer(text, request)  # the games' mocks, the 2x2 games' last
        if answer is None:
            raise ProviderError("no game's mock reads this prompt")
        return answer

    def _game_answer(self, text: str, request: CompletionRequest) -> str | None:
        """The answer of the first registered game's mock (`TurnGameEntry.mock`) that reads
        `text` as its prompt, with the persona's lean it holds; None when none does."""
        lean = persona_lean(text)
        key, allowed = request.cache_key(), request.allowed_answers()
        for play in game_mocks():
            try:
                answer = play(
                    text,
                    self.behaviour,
                    key,
                    lean=None if lean is None else lean.name,
                    allowed=allowed,
                    asked=request,
                )
            except MockCannotAnswer as error:
                raise ProviderError(str(error)) from None
            if answer is not None:
                return answer
        return None

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
