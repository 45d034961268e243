"""What an LLM agent's templates must say, together (issue 20): a round prompt that is not empty,
the payoffs shown somewhere, and a way to know what to answer. Without them the model plays a
game it was never told, and the run records its guesses as if they were choices.

Checked on the template texts, across the system prompt and the round prompt (with system_prompt
null the round prompt is the only message):

- the payoffs: one of the placeholders the game's prompt adapter says show them
  (`TablePrompts.payoff_placeholders`; the 2x2 family's `{payoff_table}` or `{payoff_rules}`) in
  either;
- the answer: `{answer_instruction}` in either (it states the labels and the format), or the round
  prompt's question naming both options (a pair of `TablePrompts.option_pairs`: the family's
  `{first_option}` and `{second_option}`, or the cooperative and the defecting label or option),
  as Akata et al. and Fontana et al. ask.
"""

from __future__ import annotations

import string

from pdbench.core.errors import ConfigError
from pdbench.games.prompt_adapter import TablePrompts


def _placeholders(text: str | None) -> set[str]:
    if text is None:
        return set()
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def check_required_placeholders(
    system: str | None,
    round_: str,
    words: TablePrompts,
    *,
    system_file: str | None,
    round_file: str,
) -> None:
    """Raise ConfigError (naming the template file and field) when the templates leave out
    something the model must be told of the game `words` puts into words. The texts were
    parsed before (valid templates)."""
    if not round_.strip():
        raise ConfigError(
            "is empty: the round prompt is what the model is asked each round",
            file=round_file,
            field="round_prompt",
        )
    in_system, in_round = _placeholders(system), _placeholders(round_)
    if not (in_system | in_round) & set(words.payoff_placeholders):
        shown, field = (
            (system_file, "system_prompt") if system_file else (round_file, "round_prompt")
        )
        raise ConfigError(
            "neither system_prompt nor round_prompt shows the payoffs: put "
            + " or ".join(f"{{{name}}}" for name in words.payoff_placeholders)
            + " in one of them",
            file=shown,
            field=field,
        )
    told = "answer_instruction" in in_system | in_round or any(
        first in in_round and second in in_round for first, second in words.option_pairs
    )
    if not told:
        first, second = words.option_pairs[0]
        raise ConfigError(
            "the model is never told what to answer: put {answer_instruction} in system_prompt "
            f"or round_prompt, or name both options in the round prompt ({{{first}}} and "
            f"{{{second}}})",
            file=round_file,
            field="round_prompt",
        )
