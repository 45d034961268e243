"""A Passcode player, as an arena agent (AgentDuel shape, GAME = "passcode").

It asks the Secret Keeper the word's length, then whether the word starts with each of the most
common first letters in turn, and guesses only once a word of the public list every player is
shown (`round_state["candidate_words"]`, the words the secret is drawn from) fits what it was told
(else it passes: a wrong guess costs the round). Run it with, e.g.,

    uv run python -m pdbench game=passcode agent_a=arena \
        agent_a.path=examples/agents/passcode.py agent_b=passcode_halving

or watch it play, turn by turn: uv run pdbench train examples/agents/passcode.py
"""

import re

FIRST_LETTERS = "stcbpmfrdwlghaeno"


class Agent:
    GAME = "passcode"

    def on_turn(self, round_state: dict) -> dict:
        history = round_state["your_qa_history"]
        length, first = None, None
        for qa in history:
            found = re.search(r"has (\d+) letters", qa["answer"])
            if found:
                length = int(found.group(1))
            starts = re.search(r'start with "(\w)"', qa["question"])
            if starts and qa["answer"].startswith("Yes"):
                first = starts.group(1)
        # print works in training: `pdbench train` shows it under the turn
        print(f"{round_state['phase']}: length {length}, first letter {first}")
        if round_state["phase"] == "question":
            if length is None:
                return {"type": "question", "text": "How many letters does the word have?"}
            asked = len(history) - 1
            letter = FIRST_LETTERS[asked % len(FIRST_LETTERS)]
            if first is not None:
                return {"type": "question", "text": f'Does the word start with "{first}"?'}
            return {"type": "question", "text": f'Does the word start with "{letter}"?'}
        words = round_state["candidate_words"]
        fits = [w for w in words if (length is None or len(w) == length) and w[0] == (first or "")]
        if len(fits) == 1 or (fits and round_state["round_number"] == round_state["round_limit"]):
            return {"type": "guess", "word": fits[0]}
        return {"type": "pass"}
