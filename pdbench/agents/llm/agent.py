"""An agent that asks a language model for each move: prompt -> gateway (cache, provider) ->
strict parse -> re-prompt on an invalid answer -> abort or a recorded fallback.

The agent keeps no memory between rounds: each round's conversation is the system prompt (if it
has one) and one round prompt (plus corrections), built only from the agent's observation. With
`option_order: shuffled` the two options are named in an order drawn from the agent's own seeded
stream, one draw per round, and the order shown is recorded with the round.

In a game with a negotiation phase the agent also writes messages (`negotiate`): one call per turn
with the negotiate prompt, whose answer is the message; its round prompt then shows the
conversation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pdbench.agents.base import Decision, TableAgent, TurnDecision, TurnRequest, Utterance
from pdbench.agents.llm import turns
from pdbench.agents.llm.prompts import PromptBuilder, check_prompt_files
from pdbench.agents.llm.templates import available_personas
from pdbench.config.schema import LLMAgentSpec
from pdbench.core.actions import Action
from pdbench.core.errors import MatchAborted
from pdbench.core.game import Game
from pdbench.core.horizon import FixedHorizon, GeometricHorizon
from pdbench.core.parse import ParsedAnswer
from pdbench.core.rng import MOCK_PROVIDER, OPTION_ORDER, make_rng, side_stream
from pdbench.core.transcript import Observation
from pdbench.games.base import TurnGame
from pdbench.providers.base import Completion, CompletionRequest
from pdbench.providers.kinds import key_options
from pdbench.storage.schema import ProviderAttempt

if TYPE_CHECKING:
    from pdbench.agents.base import AgentContext

__all__ = ["LLMAgent", "available_personas", "check_prompt_files"]

# A negotiate turn's request: its response format (the mock answers it with a sentence) and the
# tokens a 280-character message needs, with room to spare (more when the spec allows more).
MESSAGE_FORMAT = "message"
MESSAGE_MAX_TOKENS = 160


class LLMAgent(TableAgent):
    """A model behind a provider: a 2x2 game's `TableAgent` through `async decide(obs)` (`act` is
    not available) and `negotiate`, a turn game's through `take_turn`."""

    waits = True

    def __init__(
        self,
        spec: LLMAgentSpec,
        *,
        game: Game | TurnGame[Any],
        horizon: FixedHorizon | GeometricHorizon,
        context: AgentContext,
    ) -> None:
        self.spec = spec
        self.game = game
        self.context = context
        self.name = spec.display_name
        self.history_window = spec.history_window
        self.include_totals = spec.include_totals
        # A turn game (pdbench.games.base) renders its prompts per turn from prompts/<game>/;
        # the 2x2 templates are built for a 2x2 game only.
        self.prompts = (
            PromptBuilder(spec, game=game, horizon=horizon, project_root=context.project_root)
            if isinstance(game, Game)
            else None
        )
        self.seed = self._request_seed()
        # The mock's behaviour decides its answers as a model's weights would: part of the key.
        self._provider_options: tuple[tuple[str, object], ...] = key_options(spec.provider)
        self._order_seed = context.deal.derive(
            context.run_seed, context.replicate, side_stream(OPTION_ORDER, context.side)
        )
        self._order_rng = make_rng(self._order_seed)
        self._order_draws: list[float] = []
        if context.gateway is not None:
            self.gateway = context.gateway
            self._owns_gateway = False
        else:  # a stand-alone agent (a script, a notebook): live calls, no cache
            from pdbench.providers.gateway import ProviderGateway

            self.gateway = ProviderGateway(
                max_concurrency=1,
                cache_dir=None,
                cache_mode="off",
                project_root=context.project_root,
            )
            self._owns_gateway = True

    def _request_seed(self) -> int | None:
        """The seed sent with each request: the spec's; without one, for a provider seeded per
        match (the mock), a seed derived for this match and side, so random mock strategies
        differ between replicates."""
        if self.spec.seed is not None or not self.spec.provider.kind.seeded_per_match:
            return self.spec.seed
        ctx = self.context
        return ctx.deal.derive(ctx.run_seed, ctx.replicate, side_stream(MOCK_PROVIDER, ctx.side))

    def reset(self, seed: int | None = None) -> None:
        """Every round is built from the observation alone; only the option order's stream
        starts again."""
        self._order_rng = make_rng(self._order_seed)
        self._order_draws = []

    def _option_order(self, round_index: int) -> tuple[Action, Action] | None:
        """This round's order of the two options: round n uses the stream's n-th draw (below
        one half: the game's order); None when the order is fixed."""
        if self.spec.option_order == "fixed":
            return None
        while len(self._order_draws) < round_index:
            self._order_draws.append(float(self._order_rng.random()))
        shuffled = self._order_draws[round_index - 1] >= 0.5
        return (Action.D, Action.C) if shuffled else (Action.C, Action.D)

    def act(self, obs: Observation) -> Action:
        raise TypeError(
            f"{self.name} is an LLM agent: call `await agent.decide(obs)` (the match runner does)"
        )

    async def take_turn(self, request: TurnRequest) -> TurnDecision:
        """One turn of a turn-based game (`pdbench.agents.llm.turns`)."""

        async def complete(call: CompletionRequest) -> Completion:
            return await self.gateway.complete(self.spec.provider, call)

        return await turns.take_turn(
            self.spec, self._request, complete, request, self.context.project_root
        )

    async def decide(self, obs: Observation) -> Decision:
        spec = self.spec
        assert self.prompts is not None and isinstance(self.game, Game), "a 2x2 round"
        order = self._option_order(obs.round_index)
        shown = order or (Action.C, Action.D)
        messages: list[tuple[str, str]] = [("user", self.prompts.round_prompt(obs, shown))]
        attempts: list[ProviderAttempt] = []
        for number in range(1, spec.max_retries + 2):
            request = self._request(
                tuple(messages),
                response_format=spec.response_format,
                max_tokens=spec.answer_max_tokens,
                constrain=spec.constrain,
            )
            # A transport failure (TransportFailure) is not caught here: it is not the model's
            # answer, so the match stays unfinished and is played again later.
            completion = await self.gateway.complete(spec.provider, request)
            parsed = self.prompts.read_answer(completion.text)
            attempts.append(_attempt(number, request, completion, parsed))
            if parsed.valid:
                assert parsed.action is not None
                return Decision(
                    action=parsed.action,
                    attempts=tuple(attempts),
                    invalid_outputs=number - 1,
                    option_order=_order_text(order),
                )
            messages.append(("assistant", completion.text))
            correction = self.prompts.correction(parsed.error or "", obs.round_index, shown)
            messages.append(("user", correction))

        last = attempts[-1]
        message = (
            f"round {obs.round_index}: no valid action after {len(attempts)} attempts; "
            f"last answer {_shorten(last.raw)!r} ({last.error})"
        )
        if spec.on_invalid == "abort":
            raise self._aborted(message, attempts)
        return Decision(
            action=Action(spec.fallback_action),
            attempts=tuple(attempts),
            invalid_outputs=len(attempts),
            fallback=True,
            error=f"{message}; played the fallback {spec.fallback_action}",
            option_order=_order_text(order),
        )

    async def negotiate(self, obs: Observation) -> Utterance:
        """One message: the negotiate prompt (rules, history, the conversation so far) and the
        model's answer as it wrote it (the runner cuts it to the limit). Any text is a message,
        so there is nothing to re-prompt; cached like every answer (the conversation is part of
        the prompt, so of the key)."""
        spec = self.spec
        assert self.prompts is not None, "a negotiation needs a 2x2 game"
        request = self._request(
            (("user", self.prompts.negotiate_prompt(obs)),),
            response_format=MESSAGE_FORMAT,
            max_tokens=max(spec.max_tokens or 0, MESSAGE_MAX_TOKENS),
            constrain="none",
        )
        completion = await self.gateway.complete(spec.provider, request)
        text = completion.text.strip()
        return Utterance(text=text, attempts=(_attempt(1, request, completion),))

    def _request(
        self,
        messages: tuple[tuple[str, str], ...],
        *,
        response_format: str,
        max_tokens: int,
        constrain: Literal["none", "grammar", "json_schema"],
        labels: tuple[str, ...] | None = None,
        shared_sample: str | None = None,
    ) -> CompletionRequest:
        """The request for `messages`; its sample is the match's ("<condition>#<replicate>"),
        or with `shared_sample` one every condition of the replicate shares ("design#0")."""
        spec = self.spec
        sample = shared_sample or self.context.condition
        return CompletionRequest(
            provider=spec.provider.name,
            model=spec.provider.model,
            api_base=spec.provider.api_base,
            system=self.prompts.system if self.prompts is not None else "",
            messages=messages,
            temperature=spec.temperature,
            max_tokens=max_tokens,
            seed=self.seed,
            response_format=response_format,
            sample=f"{sample}#{self.context.replicate}",
            namespace=self.context.cache_namespace,
            provider_options=self._provider_options,
            constrain=constrain,
            labels=labels if labels is not None else self._labels(constrain),
        )

    def _labels(self, constrain: str) -> tuple[str, str] | None:
        """A constrained 2x2 request's answers (its game's legal answers); a turn game's
        request names its own."""
        return (
            self.prompts.legal_answers()
            if constrain != "none" and self.prompts is not None
            else None
        )

    def _aborted(self, message: str, attempts: list[ProviderAttempt]) -> MatchAborted:
        # The attempts travel with the error: the record survives the abort.
        return MatchAborted(f"{self.name}: {message}", attempts=tuple(attempts))

    def close(self) -> None:
        if self._owns_gateway:
            self.gateway.close()


def _order_text(order: tuple[Action, Action] | None) -> str | None:
    """ "CD" or "DC" as recorded on the round; None for a fixed order (then nothing is written)."""
    return None if order is None else "".join(action.value for action in order)


def _shorten(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _attempt(
    number: int,
    request: CompletionRequest,
    completion: Completion,
    parsed: ParsedAnswer | None = None,
) -> ProviderAttempt:
    """One call as it is stored: what was sent, what came back and, for an action, how it parsed
    (a negotiate message is any text, so it has no parse and is always valid). The audit fields
    are what the server said about its answer (reported model, response id, fingerprint,
    separate reasoning); a reasoning-format answer's own reasoning when the server sent none."""
    audit = completion.audit()
    if parsed is not None and parsed.reasoning and "reasoning" not in audit:
        audit["reasoning"] = parsed.reasoning
    return ProviderAttempt(
        attempt=number,
        system=request.system,
        prompt=request.prompt,
        raw=completion.text,
        valid=parsed.valid if parsed is not None else True,
        error=parsed.error if parsed is not None else None,
        reason=parsed.reason if parsed is not None else None,
        cached=completion.cached,
        input_tokens=completion.input_tokens,
        output_tokens=completion.output_tokens,
        cost_usd=completion.cost_usd,
        cached_input_tokens=completion.cached_input_tokens,
        cache_write_tokens=completion.cache_write_tokens,
        **audit,
    )
