"""Prompts for LLM agents: the system, round and negotiate messages, filled from the game, the
horizon and the observation.

The template files and the placeholders each may use are `pdbench.agents.llm.templates`; every
template is rendered once with sample values when the config is checked (`check_prompt_files`),
so a bad conversion or format spec fails then, not in the middle of a run. Rendering is a pure
function of (templates, spec, game, horizon, observation, option order), so a prompt never changes
between runs and the replay cache keeps answering it.

What the placeholders say of the game (labels, payoff rules, history, totals, counts, the
conversation, the answer instruction) and how an answer is read are the game's: its entry's
prompt adapter (`TurnGameEntry.llm`, a `pdbench.games.prompt_adapter.TablePrompts`; the 2x2
family's is `pdbench.games.matrix.prompts`), found through `registry.table_prompts`. This module
keeps what is the agent's: its templates, its persona, the horizon it discloses, the layout.
"""

from __future__ import annotations

import re
from pathlib import Path

from pdbench.agents.llm.template_rules import check_required_placeholders
from pdbench.agents.llm.templates import (
    PERSONA_DIR,
    PromptTemplates,
    Vocabulary,
    placeholders_in,
    read_template,
    render,
    resolve_path,
)
from pdbench.agents.llm.turns import turn_prompt_files
from pdbench.config.schema import LLMAgentSpec
from pdbench.core.actions import Action
from pdbench.core.errors import ConfigError
from pdbench.core.game import Game
from pdbench.core.horizon import FixedHorizon, GeometricHorizon
from pdbench.core.parse import ParsedAnswer
from pdbench.core.phrases import written_number
from pdbench.core.transcript import Observation, PastRound
from pdbench.games.prompt_adapter import TablePrompts
from pdbench.games.registry import table_prompts
from pdbench.games.tables import DEFAULT_GAME

GAME_ORDER = (Action.C, Action.D)


def check_prompt_files(
    spec: LLMAgentSpec,
    project_root: Path,
    horizon: FixedHorizon | GeometricHorizon | None = None,
    game: Game | None = None,
) -> None:
    """Raise `ConfigError` for a missing or broken prompt or persona file, or for a horizon
    disclosure the templates cannot make. Every template is rendered once: the system prompt
    and persona as the agent renders them, the round prompt for a first round and for a later
    one with history and totals."""
    if horizon is None:  # no horizon given: one the spec's disclosure can describe
        horizon = (
            GeometricHorizon(0.1) if spec.disclose_horizon == "stop_prob" else FixedHorizon(10)
        )
    builder = PromptBuilder(
        spec, game=game or DEFAULT_GAME, horizon=horizon, project_root=project_root
    )
    first = Observation(round_index=1, history=(), own_total=0.0, opponent_total=0.0)
    later = Observation(
        round_index=3,
        history=tuple(
            PastRound(index, own, other, *builder.game.payoffs.payoffs(own, other))
            for index, (own, other) in enumerate(((Action.C, Action.D), (Action.D, Action.C)), 1)
        ),
        own_total=5.0,
        opponent_total=5.0,
        own_cooperations=1,
        opponent_cooperations=1,
    )
    for obs in (first, later):
        builder.round_prompt(obs, (Action.D, Action.C))
        if builder.negotiate_template is not None:
            builder.negotiate_prompt(obs)
    check_required_placeholders(
        builder.templates.system,
        builder.templates.round,
        builder.words,
        system_file=spec.system_prompt,
        round_file=spec.round_prompt,
    )


def files_read(
    spec: LLMAgentSpec, game: Game, horizon: FixedHorizon | GeometricHorizon, project_root: Path
) -> list[str]:
    """The agent kind's file check (see `pdbench.agents.kinds`): the templates it renders (in a
    turn game, its prompt files under prompts/<game>/)."""
    if not isinstance(game, Game):
        return turn_prompt_files(game, project_root, spec.persona)
    check_prompt_files(spec, project_root, horizon, game)
    paths = [] if spec.system_prompt is None else [spec.system_prompt]
    paths.append(spec.round_prompt)
    if game.negotiation is not None:  # read only when the agent talks
        paths.append(spec.negotiate_prompt)
    if spec.persona:
        paths.append(str(PERSONA_DIR / f"{spec.persona}.md"))
    return paths


# --- the horizon -------------------------------------------------------------------------------


def disclosed(disclose: str, horizon: FixedHorizon | GeometricHorizon) -> str:
    """What is told about the horizon: "rounds", "stop_prob" or "none" ("auto" resolved)."""
    if disclose == "auto":
        return "rounds" if isinstance(horizon, FixedHorizon) else "stop_prob"
    if disclose == "rounds" and not isinstance(horizon, FixedHorizon):
        raise ConfigError(
            'cannot disclose "rounds" for a geometric horizon: its length is not fixed '
            "(use stop_prob, auto or none)",
            field="disclose_horizon",
        )
    if disclose == "stop_prob" and not isinstance(horizon, GeometricHorizon):
        raise ConfigError(
            'cannot disclose "stop_prob" for a fixed horizon (use rounds, auto or none)',
            field="disclose_horizon",
        )
    return disclose


def horizon_text(disclose: str, horizon: FixedHorizon | GeometricHorizon) -> str:
    kind = disclosed(disclose, horizon)
    if kind == "rounds" and isinstance(horizon, FixedHorizon):
        return f"The game lasts exactly {horizon.rounds} rounds."
    if kind == "stop_prob" and isinstance(horizon, GeometricHorizon):
        return (
            f"After every round, the game ends with probability "
            f"{written_number(horizon.stop_prob)}. "
            "There is no fixed number of rounds: you never know in advance which round is the last."
        )
    return ""


def tidy(text: str) -> str:
    """Drop trailing spaces and the blank lines left by empty sections."""
    text = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return re.sub(r"\n{3,}", "\n\n", text)


# --- the builder -------------------------------------------------------------------------------


class PromptBuilder:
    """Renders one LLM agent's system prompt (once) and its round and correction prompts."""

    def __init__(
        self,
        spec: LLMAgentSpec,
        *,
        game: Game,
        horizon: FixedHorizon | GeometricHorizon,
        project_root: Path,
    ) -> None:
        self.spec = spec
        self.game = game
        # what the prompts say of the game, and how an answer is read: the game's
        self.words: TablePrompts = table_prompts(game.id)
        self.placeholders = Vocabulary.of(self.words)
        self.templates = templates = PromptTemplates.load(spec, project_root, self.placeholders)
        kind = disclosed(spec.disclose_horizon, horizon)
        rounds = horizon.rounds if kind == "rounds" and isinstance(horizon, FixedHorizon) else None
        self.of_rounds = f" of {rounds}" if rounds is not None else ""
        self._check_rounds_placeholder(rounds)
        # the game's words (a persona may use its labels and options only: checked when read)
        words = self.words.game_fields(game, spec)
        persona = ""
        if templates.persona is not None:
            persona = tidy(
                render(templates.persona, words, file=templates.persona_file or "", field="persona")
            )
        self.instruction = self._instruction(GAME_ORDER)
        self._shared: dict[str, object] = {
            **words,
            "horizon": horizon_text(spec.disclose_horizon, horizon),
            "rounds": "" if rounds is None else rounds,
            "persona": persona,
            "answer_instruction": self.instruction,
        }
        self.negotiate_template = self._load_negotiate_template(project_root)
        self.system = ""  # no system message unless the spec has a system prompt
        if templates.system is not None:
            self.system = tidy(
                render(
                    templates.system,
                    self._shared,
                    file=spec.system_prompt or "",
                    field="system_prompt",
                )
            )

    def _load_negotiate_template(self, project_root: Path) -> str | None:
        """The negotiate prompt, in a game with a negotiation phase (None otherwise). The round
        prompt must then show the conversation: a commit that cannot see what was said would
        make the talk meaningless without a word of warning."""
        if self.game.negotiation is None:
            return None
        if "conversation" not in placeholders_in(self.templates.round):
            raise ConfigError(
                "does not show {conversation}, but this game has a negotiation phase: add "
                "{conversation} where the round's messages belong",
                file=self.spec.round_prompt,
                field="round_prompt",
            )
        return read_template(
            resolve_path(self.spec.negotiate_prompt, project_root),
            self.placeholders.negotiate,
            file=self.spec.negotiate_prompt,
            field="negotiate_prompt",
        )

    def _check_rounds_placeholder(self, rounds: int | None) -> None:
        for template, file, field in (
            (self.templates.system, self.spec.system_prompt, "system_prompt"),
            (self.templates.round, self.spec.round_prompt, "round_prompt"),
        ):
            if rounds is None and template is not None and "rounds" in placeholders_in(template):
                raise ConfigError(
                    "uses {rounds}, but the number of rounds is not disclosed (a geometric "
                    "horizon, or disclose_horizon none): use {horizon} instead",
                    file=file,
                    field=field,
                )

    def _instruction(self, order: tuple[Action, Action]) -> str:
        return self.words.answer_instruction(self.game, self.spec, order)

    def round_prompt(self, obs: Observation, order: tuple[Action, Action] = GAME_ORDER) -> str:
        """The round's prompt, the two options named in `order` (the game's by default)."""
        values = self._round_values(obs, order)
        return tidy(
            render(self.templates.round, values, file=self.spec.round_prompt, field="round_prompt")
        )

    def negotiate_prompt(self, obs: Observation) -> str:
        """The prompt asking for the agent's next message (`obs.messages`: what was said so far
        this round)."""
        if self.negotiate_template is None or self.game.negotiation is None:
            raise ValueError("this game has no negotiation phase")
        values = {
            **self._round_values(obs, GAME_ORDER),
            **self.words.talk_fields(self.game, obs),
        }
        return tidy(
            render(
                self.negotiate_template,
                values,
                file=self.spec.negotiate_prompt,
                field="negotiate_prompt",
            )
        )

    def _round_values(self, obs: Observation, order: tuple[Action, Action]) -> dict[str, object]:
        return {
            **self._shared,
            "answer_instruction": self._instruction(order),
            "round_index": obs.round_index,
            "of_rounds": self.of_rounds,
            "rounds_played": obs.rounds_played,
            **self.words.round_fields(self.game, self.spec, obs, order),
        }

    def correction(
        self, error: str, round_index: int, order: tuple[Action, Action] = GAME_ORDER
    ) -> str:
        """The re-prompt after an invalid answer (the answer itself is already in the chat)."""
        return self.words.correction(self.game, self.spec, error, round_index, order)

    def read_answer(self, answer: str) -> ParsedAnswer:
        """The action `answer` names, read strictly in the spec's response format."""
        return self.words.action(self.game, self.spec, answer)

    def legal_answers(self) -> tuple[str, str]:
        """The answers a constrained model may give (the game's two labels)."""
        return self.words.legal_answers(self.game)
