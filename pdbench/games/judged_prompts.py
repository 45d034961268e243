"""The judged games' prompt adapter (`pdbench.games.prompt_adapter.PromptAdapter`, named by the
registry entries of passcode, nuclear_war and nil_recruitment): every seat's prompt file, its
placeholders from the seat's round_state alone, and the action read from a model's answer, for
the players, the Keeper and the judge.

| game            | seat                | file                                 |
| --------------- | ------------------- | ------------------------------------ |
| passcode        | a / b, question     | prompts/passcode/question.md         |
| passcode        | a / b, guess        | prompts/passcode/guess.md            |
| passcode        | keeper:a / keeper:b | prompts/passcode/keeper.md           |
| the debates     | a / b               | prompts/<game>/player.md             |
| the debates     | judge, response     | prompts/<game>/judge_response.md     |
| the debates     | judge, decision     | prompts/<game>/judge_decision.md     |

The offline mock reads the Keeper's and the judge's prompts back (`ThirdRole.mock`: `pdbench.games.passcode.keeper_mock`, `pdbench.games.debate.judge_mock`),
so the lines it reads ("The secret word is: ", "Question: ", "Your name: ", "Your priorities: ",
"Choices: ", transcript lines "- [phase] speaker: text") must stay in these files. Answers are
free text (no legal answers for a grammar); a decision must name exactly one of the choices.
"""

from __future__ import annotations

import re
from typing import Any

# A question, argument, answer or verdict is a paragraph.
ANSWER_MAX_TOKENS = 300


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def _qa_lines(history: list[dict[str, str]]) -> str:
    lines = [f"- Q: {_one_line(qa['question'])} A: {_one_line(qa['answer'])}" for qa in history]
    return "\n".join(lines) or "(none yet)"


def _said_lines(entries: list[dict[str, Any]]) -> str:
    lines = [f"- [{e['phase']}] {e['speaker']}: {_one_line(e['text'])}" for e in entries]
    return "\n".join(lines) or "(nothing yet)"


def _fields_of(values: dict[str, Any], keys: tuple[str, ...]) -> str:
    def shown(value: Any) -> str:
        return "; ".join(map(str, value)) if isinstance(value, list) else _one_line(value)

    return "\n".join(
        f"{key.replace('_', ' ')}: {shown(values[key])}" for key in keys if key in values
    )


class JudgedPrompts:
    """How a seat of a judged game is asked and how its answer is read (module docstring)."""

    lists_answers = False  # questions, answers, speeches and verdicts are free text

    def prompt_file(self, round_state: dict[str, Any]) -> str:
        role = round_state.get("role")
        if role == "keeper":
            return "keeper.md"
        if role == "judge":
            return f"judge_{round_state['request']}.md"
        if round_state["game"] == "passcode":
            return f"{round_state['phase']}.md"
        return "player.md"

    def fields(self, round_state: dict[str, Any]) -> dict[str, str]:
        """Every placeholder the seat's prompt file may use, from the observation."""
        fields: dict[str, str] = {
            key: str(round_state[key])
            for key in ("round_number", "phase", "round_limit", "your_score", "opponent_score")
            if key in round_state
        }
        if "your_qa_history" in round_state or "qa_history" in round_state:
            fields["qa_history"] = _qa_lines(
                round_state.get("your_qa_history", round_state.get("qa_history", []))
            )
            fields["opponent_guessed"] = "yes" if round_state.get("opponent_guessed") else "no"
            words = round_state.get("candidate_words") or []
            fields["candidate_count"] = str(len(words))
            fields["candidate_words"] = ", ".join(words)
        if round_state.get("role") == "keeper":
            fields["secret_word"] = round_state["secret_word"]
            fields["question"] = _one_line(round_state["question"])
        if round_state.get("role") == "judge":
            persona = round_state["persona"]
            fields["name"] = persona["name"]
            fields["persona"] = _fields_of(
                persona, ("background", "position", "concerns", "key_question", "decision_style")
            )
            fields["priorities"] = "; ".join(persona["priorities"])
            fields["scenario"] = _fields_of(
                round_state["scenario"], ("country", "adversary", "crisis_description")
            )
            fields["choices"] = ", ".join(f'"{choice}"' for choice in round_state["choices"])
            fields["transcript"] = _said_lines(round_state["transcript"])
        persona = round_state.get("president") or round_state.get("athlete")
        if persona is not None and round_state.get("role") is None:
            fields["side"] = str(round_state.get("your_position") or round_state["your_university"])
            fields["opponent_side"] = str(round_state.get("opponent_university", ""))
            fields["persona_name"] = persona["name"]
            fields["persona"] = _fields_of(
                persona,
                ("name", "background", "position", "priorities", "concerns", "key_question"),
            )
            fields["scenario"] = _fields_of(
                round_state.get("scenario", {}), ("country", "adversary", "crisis_description")
            )
            fields["history"] = _said_lines(
                round_state.get("debate_history") or round_state.get("conversation") or []
            )
        return fields

    def action(self, round_state: dict[str, Any], answer: str) -> dict[str, Any]:
        """The seat's action from a model's answer. A decision must name exactly one of the
        choices (ValueError otherwise: the model is re-asked, as an invalid answer is)."""
        text = answer.strip()
        role = round_state.get("role")
        if role == "keeper":
            return {"type": "answer", "text": text}
        if role == "judge" and round_state["request"] == "response":
            return {"type": "response", "text": text}
        if role == "judge":
            said = text.casefold()
            named = [
                c
                for c in round_state["choices"]
                if re.search(rf"\b{re.escape(c.casefold())}\b", said)
            ]
            if len(named) != 1:
                raise ValueError(f"answer with exactly one of {round_state['choices']}")
            return {"type": "decision", "winner": named[0]}
        if round_state["game"] != "passcode":
            kind = "argument" if "your_position" in round_state else "pitch"
            return {"type": kind, "text": text}
        if round_state["phase"] == "question":
            return {"type": "question", "text": text}
        word = text.split()[0].strip(".,!\"'") if text.split() else ""
        return (
            {"type": "pass"} if word.casefold() in ("", "pass") else {"type": "guess", "word": word}
        )

    def reminder(self, round_state: dict[str, Any]) -> str:
        return "Answer as the prompt above asks."

    def legal_answers(self, round_state: dict[str, Any]) -> tuple[str, ...] | None:
        return None  # free text

    def max_tokens(self, round_state: dict[str, Any]) -> int:
        return ANSWER_MAX_TOKENS


PROMPTS = JudgedPrompts()
