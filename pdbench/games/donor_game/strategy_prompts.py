"""The donor game's prompts for generations (Vallinder & Hughes 2024's cultural evolution), the
part of `prompts` it dispatches to: the strategy phase's prompt (prompts/donor_game/
strategy.md: the rules, the selection, the survivors' strategies with their final scores, best
first) and its answer read back; and the lines a donation prompt adds in a match of several
games (where the round falls, and the strategy its donor wrote).

Answer to the strategy phase: the strategy, free text of at most `STRATEGY_LIMIT` characters
(a longer one is refused with the reason and the model re-asked; never cut).
"""

from __future__ import annotations

from typing import Any

from pdbench.core.phrases import Phrase, written_number
from pdbench.games.donor_game.generations import STRATEGY_LIMIT
from pdbench.games.donor_game.phrases import LABEL, NUMBER, pairing_rule

STAGE = Phrase(
    "Generation {generation} of {generations}, game {game} of {games}, round {round} of "
    "{rounds} of this game.",
    slots={k: r"\d+" for k in ("generation", "generations", "game", "games", "round", "rounds")},
)
YOUR_STRATEGY = Phrase(
    "Your strategy (you wrote it when you joined): {strategy}", slots={"strategy": r".*"}
)
SURVIVOR = Phrase(
    "- {label} (final score {score}): {strategy}",
    slots={"label": LABEL, "score": NUMBER, "strategy": r".*"},
)
STRATEGY_FORMAT = Phrase(
    "Answer with your strategy only, in at most {limit} characters.", slots={"limit": r"\d+"}
)
NO_SURVIVORS = "This is the first generation: there is no earlier advice."
CONTINUOUS_RULE = "gives up any number of units from 0 to all it has"


def one_line(text: str) -> str:
    """A written strategy on one line (its white space runs as single spaces)."""
    return " ".join(text.split())


def stage_lines(round_state: dict[str, Any]) -> list[str]:
    """What a donation prompt adds in a match of several games ([] otherwise)."""
    lines = []
    if "stage" in round_state:
        s = round_state["stage"]
        lines.append(
            STAGE.render(
                generation=s["generation"],
                generations=s["generations"],
                game=s["game"],
                games=s["games_per_generation"],
                round=s["round"],
                rounds=s["rounds"],
            )
        )
    if round_state.get("your_strategy"):
        lines.append(YOUR_STRATEGY.render(strategy=one_line(round_state["your_strategy"])))
    return lines


def _game_rules(rules: dict[str, Any]) -> str:
    # "and gives": the donor (everyone), "and the donor gives": one of a pair (halves)
    donor = "the donor " if rules.get("pairing") == "halves" else ""
    if rules["amount"] == "continuous":
        text = (
            f"every player starts each game with {written_number(rules['endowment'])} units; "
            f"{pairing_rule(rules)}, and {donor}{CONTINUOUS_RULE}; its recipient receives "
            f"{written_number(rules['benefit_factor'])} times what it gave up."
        )
        if "punishment_factor" in rules:
            text += (
                " Instead of giving, a donor may punish: it spends x units and its recipient "
                f"loses {written_number(rules['punishment_factor'])} times x."
            )
        return text
    return (
        f"every player starts each game with a score of {written_number(rules['endowment'])}; "
        f"{pairing_rule(rules)}, and {donor}gives (paying {written_number(rules['cost'])}, "
        "the recipient gaining "
        f"{written_number(rules['benefit'])}) or refuses."
    )


def strategy_fields(round_state: dict[str, Any]) -> dict[str, str]:
    s, rules = round_state["stage"], round_state["rules"]
    survivors = round_state["survivors"]
    advice = (
        "Here is the advice of the best-performing players of the previous generation, along "
        "with their final scores, best first:\n"
        + "\n".join(
            SURVIVOR.render(
                label=shown["label"],
                score=written_number(shown["score"]),
                strategy=one_line(shown["strategy"]) or "(it wrote none)",
            )
            for shown in survivors
        )
        if survivors
        else NO_SURVIVORS
    )
    return {
        "generation": str(s["generation"]),
        "generations": str(s["generations"]),
        "games": str(s["games_per_generation"]),
        "rounds": str(s["rounds"]),
        "players": str(round_state["players"]),
        "kept": str(round_state["kept"]),
        "you": round_state["you"],
        "game_rules": _game_rules(rules),
        "advice": advice,
        "answer_format": strategy_format(round_state),
    }


def strategy_format(round_state: dict[str, Any]) -> str:
    return STRATEGY_FORMAT.render(limit=round_state.get("strategy_limit", STRATEGY_LIMIT))


def strategy_action(text: str) -> dict[str, Any]:
    """The strategy an answer writes; ValueError with the reason when it is too long."""
    written = text.strip()
    if len(written) > STRATEGY_LIMIT:
        raise ValueError(
            f"write your strategy in at most {STRATEGY_LIMIT} characters, not {len(written)}"
        )
    return {"type": "strategy", "text": written}
