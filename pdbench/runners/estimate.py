"""A price before the run (issue 33): per provider and model, the expected and the maximum number
of calls and of input and output tokens, and what they cost: at the price the config gives
(`provider.usd_per_million_tokens`), else by litellm's price map.

Counted from the prompts the LLM agents will render: each planned match's rounds (a geometric
horizon's length is drawn in the plan, so it is known), each prompt rendered as the agent renders
it with a history of mutual cooperation (the words of a history line barely depend on the moves).

- expected: one call per LLM agent per round (every answer valid at once, plus negotiate turns),
  whose input is the system prompt and the round prompt and whose output is a valid answer
  (the label; the JSON object; for a reasoning answer, max_tokens). Of the input, the prefix the
  previous round's prompt of the same match had is counted as cached input when it is at least
  MIN_CACHED_PREFIX tokens long (hosted providers cache nothing shorter), priced at the map's
  cache_read_input_token_cost where it has one: a provider that caches prefixes (OpenAI,
  Anthropic with markers) bills it so.
- maximum: every retry used (each correction re-prompt sends the conversation so far again),
  every answer max_tokens long, nothing cached.

With batches (run.batch) each model's calls are priced at the batch rate too (providers/prices.py:
the map's batch prices, else half), and the run's pace is counted: the batches one after another
that the longest match needs (a round's move, each negotiate turn of a batched agent, a retry)
times `run.batch_latency_s`, an assumption the user sets; OpenAI promises each batch within 24 h.

Tokens are counted with litellm's tokenizer for the model where it has the model's own, else
with cl100k_base and the estimate says so; offline providers (the mock) are counted at four
characters a token and cost nothing, so checking a mock experiment never loads litellm. A model
the price map does not know has an unknown price, never $0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

from pdbench.agents.llm.prompts import PromptBuilder
from pdbench.config.schema import LLMAgentSpec
from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.transcript import Transcript
from pdbench.games.base import agent_game
from pdbench.runners.batch_estimate import BatchPace, pace_line
from pdbench.runners.plan import PlannedMatch
from pdbench.strategies.play import play_rounds, run_at_once

CHARS_PER_TOKEN = 4  # the rough rule for English text, for offline providers
# A correction re-prompt is about this many tokens plus the invalid answer (max_tokens at most).
CORRECTION_TOKENS = 40
# OpenAI caches a prompt's prefix from 1,024 tokens on, Anthropic from 1,024 (2,048 for Haiku):
# a shorter shared prefix is billed at the full input rate.
MIN_CACHED_PREFIX = 1024
BATCH_FIELDS = ("batch_price_usd_expected", "batch_price_usd_max", "batch_price")


@dataclass
class ModelEstimate:
    """The estimate of one provider and model; prices in USD, None when unknown."""

    provider: str
    model: str
    tokenizer: str
    calls_expected: int = 0
    calls_max: int = 0
    input_tokens_expected: int = 0
    cached_input_tokens_expected: int = 0
    input_tokens_max: int = 0
    output_tokens_expected: int = 0
    output_tokens_max: int = 0
    price_usd_expected: float | None = None
    price_usd_max: float | None = None
    # "litellm price map", "provider.usd_per_million_tokens", "free (offline)" or "unknown"
    price: str = "unknown"
    # With run.batch: the same calls at the batch rate, and where that rate comes from (or
    # "not batched: <why>"); None without run.batch.
    batch_price_usd_expected: float | None = None
    batch_price_usd_max: float | None = None
    batch_price: str | None = None
    _seen: dict[str, Any] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        del data["_seen"]
        if self.batch_price is None:  # a run without batches keeps the manifest it had
            for name in BATCH_FIELDS:
                del data[name]
        return data


def estimate_plan(
    plan: Sequence[PlannedMatch], project_root: Path, *, batch: bool = False
) -> list[ModelEstimate]:
    """The estimate of every provider and model the plan's LLM agents ask, in first-seen order;
    with `batch`, priced at the batch rate too."""
    estimates: dict[tuple[str, str], ModelEstimate] = {}
    # A condition's prompts are the same in every replicate (a history of mutual cooperation):
    # rendered once, for its longest match; a shorter match counts their first rounds.
    longest: dict[str, int] = {}
    for match in plan:
        longest[match.condition.name] = max(longest.get(match.condition.name, 0), match.n_rounds)
    per_round: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for match in plan:
        length = match.horizon_length
        if length is None:  # its rules end it: its length, so its prompts, not known before play
            _note_turn_game(match, estimates)
            continue
        # both sides' prompts are rendered with the game seat a's agent is given (a 2x2 game's
        # table): a prompt's words barely depend on the side, as on the moves (module docstring)
        table = agent_game(match.rules, "a")
        turns = length.talks_per_round  # each side speaks once per exchange
        for side, spec in (("a", match.condition.agent_a), ("b", match.condition.agent_b)):
            if not spec.uses_provider:
                continue
            agent = cast(LLMAgentSpec, spec)  # the one kind that asks a provider
            key = (agent.provider.name, agent.provider.model)
            if key not in estimates:
                estimates[key] = _new_estimate(agent)
            estimate = estimates[key]
            counts_key = (match.condition.name, side)
            if counts_key not in per_round:
                count = estimate._seen["count"]
                rounds = longest[match.condition.name]
                per_round[counts_key] = _round_tokens(
                    agent, match, table, side, project_root, count, rounds
                )
            _add_match(estimate, agent, per_round[counts_key][: match.n_rounds], turns)
    for estimate in estimates.values():
        _price(estimate)
        if batch:
            _batch_price(estimate)
        # an offline model costs nothing however many calls it answers: "free" stays true
        if estimate._seen.get("turn_game") and estimate.price != "free (offline)":
            # A turn game's length follows its rules (a Liar's Dice match may take 10 turns or
            # 60): nothing to count in advance, so no count or price is claimed, never a partial
            # one (a model asked by 2x2 conditions too is not estimated either).
            estimate.price = f"not estimated: {estimate._seen['turn_game']} is a turn-based game"
            estimate.price_usd_expected = estimate.price_usd_max = None
            estimate.batch_price_usd_expected = estimate.batch_price_usd_max = None
    return list(estimates.values())


def _note_turn_game(match: PlannedMatch, estimates: dict[tuple[str, str], ModelEstimate]) -> None:
    """Name the models a turn game's LLM seats ask, without counting: see estimate_plan."""
    for spec in (match.condition.agent_a, match.condition.agent_b):
        if spec.uses_provider:
            agent = cast(LLMAgentSpec, spec)
            key = (agent.provider.name, agent.provider.model)
            if key not in estimates:
                estimates[key] = _new_estimate(agent)
            estimates[key]._seen["turn_game"] = match.game_id


def _new_estimate(agent: LLMAgentSpec) -> ModelEstimate:
    provider = agent.provider
    if provider.kind.offline:
        estimate = ModelEstimate(
            provider=provider.name,
            model=provider.model,
            tokenizer=f"estimate ({CHARS_PER_TOKEN} characters a token)",
            price="free (offline)",
        )
        estimate._seen["count"] = lambda text: _rough_tokens(text)
        estimate._seen["min_prefix"] = 0
        estimate._seen["provider"] = provider
        return estimate
    from pdbench.providers.tokens import tokenizer_for

    tokenizer = tokenizer_for(provider.model)
    estimate = ModelEstimate(
        provider=provider.name, model=provider.model, tokenizer=tokenizer.label
    )
    estimate._seen["count"] = tokenizer.encode
    estimate._seen["min_prefix"] = MIN_CACHED_PREFIX
    estimate._seen["provider"] = provider  # priced as its first condition gives it
    return estimate


def _rough_tokens(text: str) -> list[int]:
    """Text as pseudo-tokens of four characters (only their number and prefix matter)."""
    return [hash(text[i : i + CHARS_PER_TOKEN]) for i in range(0, len(text), CHARS_PER_TOKEN)]


def _round_tokens(
    agent: LLMAgentSpec,
    match: PlannedMatch,
    table: Game,
    side: str,
    project_root: Path,
    encode: Callable[[str], Sequence[int]],
    rounds: int,
) -> list[tuple[int, int]]:
    """(input tokens, of them shared with the previous round's prompt) for every round, the
    rounds played by the one match loop as mutual cooperation (its history lines' words barely
    depend on the moves)."""
    builder = PromptBuilder(agent, game=table, horizon=match.horizon, project_root=project_root)
    counts: list[tuple[int, int]] = []
    previous: Sequence[int] = ()

    async def render(played: Transcript, index: int) -> tuple[Action, Action]:
        nonlocal previous
        obs = played.observe(
            side=side, history_window=agent.history_window, include_totals=agent.include_totals
        )
        prompt = builder.round_prompt(obs)
        text = f"{builder.system}\n\n{prompt}" if builder.system else prompt
        tokens = encode(text)
        shared = 0
        for before, now in zip(previous, tokens, strict=False):
            if before != now:
                break
            shared += 1
        counts.append((len(tokens), shared))
        previous = tokens
        return Action.C, Action.C

    run_at_once(play_rounds(table, rounds, render, Transcript()))
    return counts


def _add_match(
    estimate: ModelEstimate, agent: LLMAgentSpec, rounds: list[tuple[int, int]], turns: int
) -> None:
    count = estimate._seen["count"]
    answer = _answer_tokens(agent, count)
    max_out = agent.answer_max_tokens
    attempts = 1 + agent.max_retries
    for tokens, shared in rounds:
        # expected: one valid answer per round, and each negotiate turn about a round's prompt
        estimate.calls_expected += 1 + turns
        estimate.input_tokens_expected += tokens * (1 + turns)
        if shared >= estimate._seen["min_prefix"]:
            estimate.cached_input_tokens_expected += shared
        estimate.output_tokens_expected += answer + turns * max(max_out, answer)
        # maximum: every retry, each resending the conversation so far
        estimate.calls_max += attempts + turns
        estimate.input_tokens_max += (
            sum(tokens + k * (max_out + CORRECTION_TOKENS) for k in range(attempts))
            + tokens * turns
        )
        estimate.output_tokens_max += (attempts + turns) * max(max_out, answer)


def _answer_tokens(agent: LLMAgentSpec, count: Callable[[str], Sequence[int]]) -> int:
    if agent.response_format == "reasoning":
        return agent.answer_max_tokens
    text = '{"action": "C"}' if agent.response_format == "json" else "C"
    return min(len(count(text)), agent.answer_max_tokens)


def _price(estimate: ModelEstimate) -> None:
    from pdbench.providers.prices import rates

    found = rates(estimate._seen["provider"])
    if found is None:
        return
    per_token, estimate.price = found
    estimate.price_usd_expected, estimate.price_usd_max = _cost(estimate, per_token)


def _batch_price(estimate: ModelEstimate) -> None:
    """The same calls answered in batches: at the batch rate, or why they are not batched."""
    from pdbench.providers.openai_batches import batch_support
    from pdbench.providers.prices import batch_rates

    reason = batch_support(estimate._seen["provider"])
    if reason is not None:
        estimate.batch_price = f"not batched: {reason}"
        return
    found = batch_rates(estimate._seen["provider"])
    estimate.batch_price = "unknown"
    if found is not None:
        per_token, estimate.batch_price = found
        costs = _cost(estimate, per_token)
        estimate.batch_price_usd_expected, estimate.batch_price_usd_max = costs


def _cost(estimate: ModelEstimate, per_token: tuple[float, float, float]) -> tuple[float, float]:
    """(expected, at most) USD at (input, cached input, output) rates per token."""
    input_rate, cached_rate, output_rate = per_token
    cached = estimate.cached_input_tokens_expected
    expected = (
        (estimate.input_tokens_expected - cached) * input_rate
        + cached * cached_rate
        + estimate.output_tokens_expected * output_rate
    )
    most = estimate.input_tokens_max * input_rate + estimate.output_tokens_max * output_rate
    return expected, most


def format_estimate(estimates: Sequence[ModelEstimate], pace: BatchPace | None = None) -> list[str]:
    """The lines `validate` and `--dry-run` print; with `pace` (run.batch), the batch prices and
    the wall time."""
    if not estimates:
        return ["  price         no LLM agent: no provider calls"]
    lines = ["  estimate      per provider and model (expected / at most):"]
    for e in estimates:
        if e._seen.get("turn_game"):
            lines += [
                f"    {e.provider} {e.model}",
                f"      not estimated: {e._seen['turn_game']} is a turn-based game, whose matches "
                "last as long as its rules say; see the LLM calls line above for the most a "
                "run can make",
            ]
            continue
        lines += [
            f"    {e.provider} {e.model}",
            f"      calls          {e.calls_expected:,} / {e.calls_max:,}",
            f"      input tokens   {e.input_tokens_expected:,} "
            f"({e.cached_input_tokens_expected:,} of them cached: a long prefix the previous round had) / "
            f"{e.input_tokens_max:,}",
            f"      output tokens  {e.output_tokens_expected:,} / {e.output_tokens_max:,}",
            f"      tokens counted {e.tokenizer}",
            f"      price          {_money(e.price_usd_expected)} / {_money(e.price_usd_max)}"
            f"  ({e.price})",
        ]
        if e.batch_price is not None:
            lines.append(_batch_price_line(e))
    if pace is not None:
        lines.append(pace_line(pace))
    return lines


def _batch_price_line(e: ModelEstimate) -> str:
    if e.batch_price is not None and e.batch_price.startswith("not batched: "):
        return f"      batch price    {e.batch_price}; its calls are made one by one"
    prices = f"{_money(e.batch_price_usd_expected)} / {_money(e.batch_price_usd_max)}"
    return f"      batch price    {prices}  ({e.batch_price})"


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"
