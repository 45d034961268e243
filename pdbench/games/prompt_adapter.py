"""A game's prompt adapter and its offline mock, the shapes a game package gives the LLM agent
and the mock model (issue 43: a game's prompts live in its own package). A `TurnGameEntry`
names them lazily, `llm="module:NAME"` (a `PromptAdapter`) and `mock="module:function"` (a
`GameMock`); the LLM agent (`pdbench.agents.judged_prompts`, `agents.llm.turns`) and the mock
provider (`pdbench.providers.mock`) ask the entry instead of switching on the game's name.

Everything an adapter answers is a pure function of one seat's round_state (the game's
observation), so a prompt shows exactly what an agent file or a house player is shown.

The 2x2 games' entries name a `TablePrompts` instead (`pdbench.games.matrix.prompts:PROMPTS`):
their LLM players' templates are the agent's own files (`system_prompt`, `round_prompt`,
`negotiate_prompt`, a persona), rendered by `pdbench.agents.llm.prompts.PromptBuilder`, which
asks the entry's `TablePrompts` for everything said about the game (its labels, its payoffs,
the history, the totals, the conversation, the answer's format) and for reading the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol

from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.parse import ParsedAnswer
from pdbench.core.transcript import Observation


class MockSettings(Protocol):
    """What a game's mock reads of the mock's behaviour (`pdbench.config.provider_spec.
    MockBehaviour`, named structurally: games import only core)."""

    @property
    def strategy(self) -> str: ...
    @property
    def invalid_rate(self) -> float: ...
    @property
    def policy(self) -> str | None: ...
    @property
    def params(self) -> dict[str, Any]: ...
    @property
    def cooperate_prob(self) -> float: ...


class PromptAdapter(Protocol):
    """How an LLM player is asked for one turn of a game and how its answer is read."""

    # Whether `legal_answers` lists a turn's answers (for some turns at least), so that
    # `constrain: grammar` can be offered; False: the game's answers are free text.
    lists_answers: bool

    def prompt_file(self, round_state: dict[str, Any]) -> str:
        """The prompt template's file name under prompts/<game id>/ ("contribute.md")."""
        ...

    def fields(self, round_state: dict[str, Any]) -> dict[str, str]:
        """Every placeholder the template may use, filled from `round_state` alone."""
        ...

    def action(self, round_state: dict[str, Any], answer: str) -> dict[str, Any]:
        """The action a model's answer names; ValueError with the reason when it names none
        (the model is re-asked with the reason and `reminder`)."""
        ...

    def reminder(self, round_state: dict[str, Any]) -> str:
        """What a re-ask repeats after the refusal's reason: the answer format."""
        ...

    def legal_answers(self, round_state: dict[str, Any]) -> tuple[str, ...] | None:
        """The exact answers a grammar-constrained model may give, or None (free text, or too
        many to list)."""
        ...

    def max_tokens(self, round_state: dict[str, Any]) -> int:
        """The answer's token limit when the agent's spec sets none."""
        ...

    # Optional: `shared_sample(round_state) -> str | None`, a name under which this turn's
    # answer is one sample per replicate for every condition of the run (the cache key leaves
    # the condition out), or None for the match's own sample (`agents.judged_prompts.
    # shared_sample`; normal_form's design under `design_scope: run`).


class TableSettings(Protocol):
    """What a 2x2 game's wording reads of an LLM agent's settings (`pdbench.config.
    llm_agent_spec.LLMAgentSpec`, named structurally: games import only core)."""

    @property
    def perspective(self) -> Literal["second_person", "third_person"]: ...
    @property
    def label_style(self) -> Literal["bare", "option"]: ...
    @property
    def history_format(self) -> Literal["lines", "sentences", "table", "pairs"]: ...
    @property
    def totals_format(self) -> Literal["points", "counts_and_points"]: ...
    @property
    def include_totals(self) -> bool: ...
    @property
    def response_format(self) -> Literal["label", "json", "reasoning"]: ...


class TablePrompts(Protocol):
    """How a 2x2 game (`game`, the table as one side sees it) is put into words for an LLM
    player and how its answer is read: the placeholders' values the agent's templates may use
    (`pdbench.agents.llm.templates`: which names each template may use, checked when the config
    is read, is the agent's) and its re-ask. `order` is the order this round names the two
    options in (the agent's option order: the game's, or shuffled from its own stream)."""

    # The placeholders each method below fills: an agent's template may use these besides the
    # agent's own (`pdbench.agents.llm.templates`), and naming any other is refused, naming the
    # file, when the config is read.
    game_placeholders: frozenset[str]  # `game_fields`
    persona_placeholders: frozenset[str]  # of those, the ones a persona may use
    round_placeholders: frozenset[str]  # `round_fields`
    talk_placeholders: frozenset[str]  # `talk_fields`
    # What the agent's templates must show together (`pdbench.agents.llm.template_rules`, when
    # the config is read): one of `payoff_placeholders` in the system or the round prompt, and
    # the answer asked for, by `{answer_instruction}` or by both names of a pair of
    # `option_pairs` in the round prompt (the first pair is the one an error message suggests).
    payoff_placeholders: tuple[str, ...]
    option_pairs: tuple[tuple[str, str], ...]

    def game_fields(self, game: Game, settings: TableSettings) -> Mapping[str, str]:
        """What every template may show of the game: `cooperate_label`, `defect_label`,
        `cooperate_option`, `defect_option` (the only names a persona may use), `payoff_table`
        and `payoff_rules`."""
        ...

    def answer_instruction(
        self, game: Game, settings: TableSettings, order: tuple[Action, Action]
    ) -> str:
        """What the model is told to answer (`answer_instruction`), the options in `order`."""
        ...

    def round_fields(
        self, game: Game, settings: TableSettings, obs: Observation, order: tuple[Action, Action]
    ) -> Mapping[str, object]:
        """What a round's templates may show of `obs` besides the game: `first_option`,
        `second_option`, `history`, `totals`, `window_summary`, `conversation`."""
        ...

    def talk_fields(self, game: Game, obs: Observation) -> Mapping[str, object]:
        """What a negotiate template may show besides the round: `turn`, `max_chars`,
        `messages_each` (a game with a negotiation phase)."""
        ...

    def correction(
        self,
        game: Game,
        settings: TableSettings,
        error: str,
        round_index: int,
        order: tuple[Action, Action],
    ) -> str:
        """The re-ask after an answer `action` refused (the answer is already in the chat)."""
        ...

    def action(self, game: Game, settings: TableSettings, answer: str) -> ParsedAnswer:
        """The action a model's answer names, read strictly in the settings' response format."""
        ...

    def legal_answers(self, game: Game) -> tuple[str, str]:
        """The exact answers a constrained model may give: the cooperative and the defecting
        label."""
        ...


class MockAsk(Protocol):
    """What a game's mock may read of the request besides its prompt text (a
    `pdbench.providers.base.CompletionRequest`, named structurally): the 2x2 games' mock answers
    in the request's format, plays a policy with the request's seed and answers a constrained
    request with its labels; a turn game's mock reads its prompt alone."""

    @property
    def seed(self) -> int | None: ...  # the agent's seed for this match and seat
    @property
    def response_format(self) -> str: ...  # "label", "json", "reasoning"; "message": talk
    @property
    def labels(self) -> tuple[str, ...] | None: ...  # a constrained request's answers' labels
    @property
    def prompt(self) -> str: ...  # the last user message (a re-ask's, on a re-ask)


class MockCannotAnswer(Exception):
    """A game's mock cannot answer this prompt as its strategy says (a policy's move needs a
    history it cannot read): the provider fails the call with this message, never guesses."""


class GameMock(Protocol):
    """The offline mock as a player of one game: its answer to a prompt of that game, or None
    for a prompt that is not the game's. `key` is the request's cache key (the mock's choices
    are pure functions of it), `lean` the persona's lean the mock provider read from the prompt
    ("cooperative", "competitive" or None), `allowed` the request's constrained answers, `asked`
    the rest of the request a mock may read (`MockAsk`). The 2x2 games' mock
    (`pdbench.games.matrix.mock`) is asked after every turn game's: it reads any prompt."""

    def __call__(
        self,
        prompt: str,
        behaviour: MockSettings,
        key: str,
        *,
        lean: str | None,
        allowed: tuple[str, ...] | None,
        asked: MockAsk,
    ) -> str | None: ...
