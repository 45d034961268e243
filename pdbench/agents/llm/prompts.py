"""Prompt rendering for LLM agents: plain `str.format` templates filled from the game and the
observation.

Templates live in files (`LLMAgentSpec.system_prompt`, `.round_prompt`, `prompts/personas/*.md`)
and may use only the placeholders listed below; anything else is a `ConfigError` naming the file.
Rendering is a pure function of (templates, spec, game, horizon, observation), so a prompt never
changes between runs and the replay cache keeps answering it.

Two lines are also read back by the mock provider (`pdbench.providers.mock`): the answer
instruction `Answer with exactly one of: <cooperate>, <defect>.` and the history lines
`Round 3: you played C, opponent played D; ...`. Keep them in that shape.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from pathlib import Path

from pdbench.config.schema import LLMAgentSpec
from pdbench.core.actions import Action
from pdbench.core.errors import ConfigError, did_you_mean, unknown_choice
from pdbench.core.game import Game
from pdbench.core.horizon import FixedHorizon, GeometricHorizon
from pdbench.core.transcript import Observation

PERSONA_DIR = Path("prompts/personas")

SYSTEM_PLACEHOLDERS = frozenset(
    {"cooperate_label", "defect_label", "payoff_table", "horizon", "persona", "answer_instruction"}
)
ROUND_PLACEHOLDERS = frozenset(
    {
        "round_index",
        "of_rounds",
        "history",
        "totals",
        "answer_instruction",
        "cooperate_label",
        "defect_label",
    }
)
PERSONA_PLACEHOLDERS = frozenset({"cooperate_label", "defect_label"})


# --- files -------------------------------------------------------------------------------------


def available_personas(project_root: Path) -> list[str]:
    """Names of the persona files in `prompts/personas/`, without `.md`, sorted."""
    folder = project_root / PERSONA_DIR
    return sorted(path.stem for path in folder.glob("*.md")) if folder.is_dir() else []


def _resolve(path: str, project_root: Path) -> Path:
    candidate = Path(path)
    return candidate if candidate.is_absolute() else project_root / candidate


def _read_template(path: Path, allowed: frozenset[str], *, file: str, field: str) -> str:
    if not path.is_file():
        raise ConfigError(f"prompt file not found ({path})", file=file, field=field)
    text = path.read_text(encoding="utf-8")
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError as error:
        raise ConfigError(
            f"not a valid template ({error}); write {{{{ and }}}} for literal braces",
            file=file,
            field=field,
        ) from None
    unknown = sorted(names - allowed)
    if unknown:
        name = unknown[0]
        raise ConfigError(
            f"unknown placeholder {{{name}}}{did_you_mean(name, allowed)}; available: "
            + ", ".join(f"{{{option}}}" for option in sorted(allowed)),
            file=file,
            field=field,
        )
    return text


@dataclass(frozen=True, slots=True)
class PromptTemplates:
    """The raw template texts of one LLM agent, checked."""

    system: str
    round: str
    persona: str | None

    @classmethod
    def load(cls, spec: LLMAgentSpec, project_root: Path) -> PromptTemplates:
        system = _read_template(
            _resolve(spec.system_prompt, project_root),
            SYSTEM_PLACEHOLDERS,
            file=spec.system_prompt,
            field="system_prompt",
        )
        round_ = _read_template(
            _resolve(spec.round_prompt, project_root),
            ROUND_PLACEHOLDERS,
            file=spec.round_prompt,
            field="round_prompt",
        )
        persona = None
        if spec.persona is not None:
            file = str(PERSONA_DIR / f"{spec.persona}.md")
            path = project_root / file
            if not path.is_file():
                raise ConfigError(
                    unknown_choice("persona", spec.persona, available_personas(project_root)),
                    file=file,
                    field="persona",
                )
            persona = _read_template(path, PERSONA_PLACEHOLDERS, file=file, field="persona")
        return cls(system=system, round=round_, persona=persona)


def check_prompt_files(
    spec: LLMAgentSpec,
    project_root: Path,
    horizon: FixedHorizon | GeometricHorizon | None = None,
) -> None:
    """Raise `ConfigError` for a missing or broken prompt or persona file (and, given the
    horizon, for a horizon disclosure it cannot make)."""
    PromptTemplates.load(spec, project_root)
    if horizon is not None:
        horizon_text(spec.disclose_horizon, horizon)


def files_read(
    spec: LLMAgentSpec, game: Game, horizon: FixedHorizon | GeometricHorizon, project_root: Path
) -> list[str]:
    """The agent kind's file check (see `pdbench.agents.kinds`): the templates it renders."""
    check_prompt_files(spec, project_root, horizon)
    paths = [spec.system_prompt, spec.round_prompt]
    if spec.persona:
        paths.append(str(PERSONA_DIR / f"{spec.persona}.md"))
    return paths


# --- pieces --------------------------------------------------------------------------------------


def number(value: float) -> str:
    """3.0 -> "3", 2.5 -> "2.5": payoffs as people write them."""
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.6g}"


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
            f"After every round, the game ends with probability {number(horizon.stop_prob)}. "
            "There is no fixed number of rounds: you never know in advance which round is the last."
        )
    return ""


def payoff_table(game: Game) -> str:
    lines = []
    for own in (Action.C, Action.D):
        for other in (Action.C, Action.D):
            mine, theirs = game.payoffs.payoffs(own, other)
            lines.append(
                f'- you choose "{game.label(own)}", the other player chooses '
                f'"{game.label(other)}": you score {number(mine)}, '
                f"the other player scores {number(theirs)}"
            )
    return "\n".join(lines)


def answer_instruction(game: Game, response_format: str) -> str:
    choice = f"Answer with exactly one of: {game.cooperate_label}, {game.defect_label}."
    if response_format == "json":
        return (
            f'{choice} Reply with only a JSON object and nothing else: {{"action": "<your action>"}}'
            ', optionally with a short "reason" string: '
            '{"action": "<your action>", "reason": "<one sentence>"}'
        )
    return f"{choice} Reply with only your action, nothing else."


def history_text(obs: Observation, game: Game) -> str:
    if not obs.history:
        if obs.round_index == 1:
            return "This is the first round: nothing has happened yet."
        return "You are not shown what happened in earlier rounds."
    if obs.history[0].round_index == 1:
        header = "What happened so far:"
    else:
        header = f"The last {len(obs.history)} rounds (earlier rounds are not shown):"
    lines = [
        f"Round {past.round_index}: you played {game.label(past.own_action)}, "
        f"opponent played {game.label(past.opponent_action)}; "
        f"you scored {number(past.own_payoff)}, opponent scored {number(past.opponent_payoff)}."
        for past in obs.history
    ]
    return "\n".join([header, *lines])


def totals_text(obs: Observation) -> str:
    if obs.own_total is None or obs.opponent_total is None:
        return ""
    return (
        f"Total so far: you {number(obs.own_total)} points, "
        f"opponent {number(obs.opponent_total)} points."
    )


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
        self.templates = PromptTemplates.load(spec, project_root)
        labels = {"cooperate_label": game.cooperate_label, "defect_label": game.defect_label}
        self.instruction = answer_instruction(game, spec.response_format)
        kind = disclosed(spec.disclose_horizon, horizon)
        self.of_rounds = (
            f" of {horizon.rounds}"
            if kind == "rounds" and isinstance(horizon, FixedHorizon)
            else ""
        )
        persona = tidy(self.templates.persona.format(**labels)) if self.templates.persona else ""
        self.system = tidy(
            self.templates.system.format(
                **labels,
                payoff_table=payoff_table(game),
                horizon=horizon_text(spec.disclose_horizon, horizon),
                persona=persona,
                answer_instruction=self.instruction,
            )
        )
        self._labels = labels

    def round_prompt(self, obs: Observation) -> str:
        return tidy(
            self.templates.round.format(
                **self._labels,
                round_index=obs.round_index,
                of_rounds=self.of_rounds,
                history=history_text(obs, self.game),
                totals=totals_text(obs) if self.spec.include_totals else "",
                answer_instruction=self.instruction,
            )
        )

    def correction(self, error: str, round_index: int) -> str:
        """The re-prompt after an invalid answer (the answer itself is already in the chat)."""
        return f"That answer is not valid: {error}. This is still round {round_index}. " + (
            self.instruction
        )
