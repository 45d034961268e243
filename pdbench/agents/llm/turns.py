"""An LLM agent's turn in a turn-based game (`pdbench.games.base.TurnGame`): the seat's prompt
rendered from its file under prompts/<game>/ and its round_state alone
(`pdbench.agents.judged_prompts`), the answer read back strictly into the platform's action, and
re-asks as for the dilemma: an answer that does not parse, or that the rules refuse
(`request.check`), is answered with the reason and the answer format, up to `max_retries` times.
Every call is stored as an attempt (prompt, raw answer, valid or why not). With no legal action
in the end the turn returns `action=None`: the engine plays the game's fallback or aborts, as the
agent's `on_invalid` says.

A turn game's prompt is one user message (no system message: the file holds the rules too), so
the cache key is the prompt, the model and the sampling settings; the game's state reaches it
only through the prompt. A turn the game marks as shared (`judged_prompts.shared_sample`: a
design made once for the whole run) is one sample per replicate, not per condition.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pdbench.agents.base import TurnDecision, TurnRequest
from pdbench.agents.judged_prompts import (
    action_from_answer,
    answer_reminder,
    check_prompt_folder,
    constrained_answers,
    game_prompts,
    persona_path,
    persona_text,
    prompt_path,
    render_prompt,
    shared_sample,
)
from pdbench.config.schema import LLMAgentSpec
from pdbench.games.base import TurnGame
from pdbench.providers.base import Completion, CompletionRequest
from pdbench.storage.schema import ProviderAttempt

TURN_FORMAT = "turn"  # the request's response format: the game's own answer format

# What a turn needs of the agent, handed in so that this module need not know the agent's class
# (which calls it): the request it sends for some messages (`LLMAgent._request`: the seed, the
# sampling settings and the provider's options in the cache key), and the call that answers it.
BuildRequest = Callable[..., CompletionRequest]
Complete = Callable[[CompletionRequest], Awaitable[Completion]]


def turn_max_tokens(spec: LLMAgentSpec, round_state: dict[str, Any]) -> int:
    """The spec's limit, else the game's for this turn (its prompt adapter's)."""
    return spec.max_tokens or game_prompts(round_state).max_tokens(round_state)


async def take_turn(
    spec: LLMAgentSpec,
    build_request: BuildRequest,
    complete: Complete,
    request: TurnRequest,
    root: Path,
) -> TurnDecision:
    """One turn of the agent `spec` describes (see the module docstring)."""
    persona = persona_text(root, request.round_state, spec.persona)
    prompt = render_prompt(root, request.round_state, persona)
    messages: list[tuple[str, str]] = [("user", prompt)]
    attempts: list[ProviderAttempt] = []
    # constrain: grammar sends the turn's legal answers as a GBNF grammar (llama.cpp's server).
    allowed = constrained_answers(request.round_state) if spec.constrain == "grammar" else None
    shared = shared_sample(request.round_state)  # e.g. a design made once for every match
    for number in range(1, spec.max_retries + 2):
        call = build_request(
            tuple(messages),
            response_format=TURN_FORMAT,
            max_tokens=turn_max_tokens(spec, request.round_state),
            constrain="grammar" if allowed else "none",
            labels=allowed,
            **({"shared_sample": shared} if shared is not None else {}),
        )
        completion = await complete(call)
        action, refused = _read(request, completion.text)
        attempts.append(_attempt(number, call, completion, refused))
        if refused is None:
            return TurnDecision(action, tuple(attempts), invalid_outputs=number - 1)
        messages.append(("assistant", completion.text))
        messages.append(
            (
                "user",
                f"That answer is not valid: {refused}. It is still your turn. "
                + answer_reminder(request.round_state),
            )
        )
    return TurnDecision(
        None,
        tuple(attempts),
        invalid_outputs=len(attempts),
        error=f"no legal action after {len(attempts)} attempts; last: {attempts[-1].error}",
    )


def _read(request: TurnRequest, answer: str) -> tuple[dict[str, Any] | None, str | None]:
    """The action an answer names and, when it is refused, why (unparseable, or the rules)."""
    try:
        action = action_from_answer(request.round_state, answer)
    except ValueError as error:
        return None, str(error)
    refused = request.check(action)
    return (action, None) if refused is None else (None, refused)


def _attempt(
    number: int, request: CompletionRequest, completion: Completion, refused: str | None
) -> ProviderAttempt:
    return ProviderAttempt(
        attempt=number,
        system=request.system,
        prompt=request.prompt,
        raw=completion.text,
        valid=refused is None,
        error=refused,
        reason=None,
        cached=completion.cached,
        input_tokens=completion.input_tokens,
        output_tokens=completion.output_tokens,
        cost_usd=completion.cost_usd,
        cached_input_tokens=completion.cached_input_tokens,
        cache_write_tokens=completion.cache_write_tokens,
        **completion.audit(),
    )


def turn_prompt_files(game: TurnGame[Any], root: Path, persona: str | None = None) -> list[str]:
    """The prompt files an LLM agent reads in `game`, each rendered once from an observation of
    a match (`_observations_to_check`; a missing file or an unknown placeholder is a
    ConfigError naming the file, before anything runs); every prompt file of the game is checked
    for conversions and format specs (`check_prompt_folder`). Every prompt file of the game's
    folder is listed, read or not in the first round (a later phase's, e.g. a punishment phase
    that opens in round 7), so the run's manifest holds each one's hash."""
    files = []
    for seen in _observations_to_check(game):
        check_prompt_folder(root, seen)
        render_prompt(root, seen, persona_text(root, seen, persona))
        files.append(prompt_path(seen))
        if persona is not None:
            files.append(persona_path(seen, persona))
        folder = Path(prompt_path(seen)).parent
        files += [f"{folder.as_posix()}/{p.name}" for p in (root / folder).glob("*.md")]
    return sorted(set(files))


CHECK_TURNS = 200  # turns walked to reach every phase of a first round (a safety bound)


def _observations_to_check(game: TurnGame[Any]) -> list[dict[str, Any]]:
    """The opening observations of a match: every seat's observation through the first round
    (every phase's prompt, played with the rules' fallbacks), so a later phase's prompt file
    fails before anything runs, not mid-match."""
    state = game.initial_state(0)
    seen = [game.observe(state, seat) for seat in game.to_move(state)]
    if not seen:
        return seen
    for _ in range(CHECK_TURNS):
        moves = {seat: game.fallback(state, seat, "timeout") for seat in game.to_move(state)}
        state = game.apply(state, moves)
        if game.match_over(state) or game.round_number(state) > 1:
            break
        seen += [game.observe(state, seat) for seat in game.to_move(state)]
    return seen
