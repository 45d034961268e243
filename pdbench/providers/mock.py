"""An offline model that plays a fixed strategy, for tests, demos and benchmarks of the pipeline.

It reads what it needs from the rendered prompt, the way a real model would:

- the labels, from the answer instruction `Answer with exactly one of: <cooperate>, <defect>.`
  (cooperative label first; without it the mock answers C or D);
- the opponent's last move, from the last history line `Round 3: you played C, opponent played D;`;
- whether to answer JSON, from the request's response format or a `{"action"` example in the prompt.

Both formats are written by `pdbench.agents.llm.prompts`; a test there checks that they still match.
Every "random" choice is a hash of the request's cache key, so one request always gets one answer.

A constrained request (`constrain: grammar | json_schema`) is honoured the way a real server
honours it: the answer is exactly one of the request's allowed answers (a bare label, or
`{"action": "<label>"}` without a reason), so a constrained mock never answers garbage, whatever
its `invalid_rate`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re

from pdbench.config.schema import MockBehaviour
from pdbench.providers.base import Completion, CompletionRequest

LABELS_RE = re.compile(r"Answer with exactly one of: (.+?), (.+?)\.(?=\s|$)")
LAST_MOVE_RE = re.compile(r"^Round \d+: you played (.+?), opponent played (.+?);", re.MULTILINE)

REASONS = {
    "cooperate": "I always cooperate.",
    "defect": "I always defect.",
    "reciprocate": "I do what my opponent did last.",
    "random": "I chose at random.",
}


def _uniform(key: str, salt: str) -> float:
    """A number in [0, 1) that is a pure function of (key, salt)."""
    digest = hashlib.sha256(f"{key}\x1f{salt}".encode()).digest()
    return int.from_bytes(digest[:7], "big") / 2**56


class MockProvider:
    """Deterministic answers from `MockBehaviour`: a strategy, an invalid rate and a latency."""

    def __init__(self, behaviour: MockBehaviour | None = None, *, model: str = "mock") -> None:
        self.behaviour = behaviour or MockBehaviour()
        self.model = model

    def answer(self, request: CompletionRequest) -> str:
        """The answer text for a request (pure)."""
        text = "\n".join([request.system, *(content for _, content in request.messages)])
        labels = LABELS_RE.findall(text)
        cooperate, defect = request.labels or (labels[-1] if labels else ("C", "D"))
        key = request.cache_key()
        constrained = request.allowed_answers()

        if constrained is None and _uniform(key, "invalid") < self.behaviour.invalid_rate:
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
            moves = LAST_MOVE_RE.findall(text)
            opponent_defected = bool(moves) and moves[-1][1].casefold() == defect.casefold()
            label = defect if opponent_defected else cooperate
        else:
            label = cooperate if _uniform(key, "action") < self.behaviour.cooperate_prob else defect

        if constrained is not None:
            return constrained[0] if label == cooperate else constrained[1]
        if request.response_format == "json" or '{"action"' in request.prompt:
            return json.dumps({"action": label, "reason": REASONS[strategy]})
        return label

    def _completion(self, request: CompletionRequest) -> Completion:
        text = self.answer(request)
        prompt_chars = len(request.system) + sum(len(c) for _, c in request.messages)
        return Completion(
            text=text, input_tokens=prompt_chars // 4, output_tokens=len(text) // 4, cost_usd=0.0
        )

    async def acomplete(self, request: CompletionRequest) -> Completion:
        if self.behaviour.latency_s:
            await asyncio.sleep(self.behaviour.latency_s)
        return self._completion(request)
