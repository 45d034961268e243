"""Passcode: two players find a secret word by asking a Secret Keeper questions
(AgentDuel's public "passcode" page).

Rules as the platform's page gives them, and pdbench's choices where it is silent:

- A match plays `words_per_match` secret words (default 1; the page's header also says "best of
  5", so it is an option), drawn without repeats from the word list (`scenario_file`, default the
  repository's pdbench/games/data/passcode_words.json) by the match's seed.
- Each round of a word has three steps: `question`: both players at once ask one question of at
  most `max_question_chars` (200) characters (a longer one is refused and re-asked); `answer`: the
  Keeper answers each question privately, as two requests at once (seats "keeper:a" and
  "keeper:b", each shown the secret word and that one player's question); `guess`: both players
  at once guess a word or pass, hidden until both are in.
- A guess is right when it equals the word, case and surrounding spaces ignored. The first round
  with a right guess ends the word: one right 100 points to it, both right 50 each; nobody right
  after `round_limit` (10) rounds: 0 each. A wrong guess costs nothing but the round.
- Actions: players `{"type": "question", "text": ...}`, `{"type": "guess", "word": ...}`,
  `{"type": "pass"}`; the Keeper `{"type": "answer", "text": ...}` (at most 500 characters).
- Fallbacks (no legal action from an agent): a question "How many letters does the word have?",
  a pass, and for the Keeper its fixed "I can only answer ..." reply (never a made-up fact).

What a player sees (`observe`) is the platform's round_state: `round_number`, `phase`,
`your_qa_history` (its own questions and the Keeper's answers for this word, never the
opponent's), `opponent_guessed` (whether the opponent guessed a word rather than passed in an
earlier guess phase of this word: this round's guesses are hidden until both are in), and
`round_limit`; pdbench adds `game`, `round` (the interface page's spelling), `word_number`,
`words_per_match`, `your_score`, `opponent_score` and `candidate_words` (the word list the secret
word is drawn from, sorted: public game information, the same for every player, so the house
players have no list the others lack). The secret word reaches a player only in the
round's record after the word is over (`revealed`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from pdbench.games.passcode.keeper_answers import UNANSWERABLE
from pdbench.games.scenarios import Words, load_words, stream

PLAYER_SEATS = ("a", "b")
KEEPER_SEATS = ("keeper:a", "keeper:b")
MAX_ANSWER_CHARS = 500
MAX_GUESS_CHARS = 50
FALLBACK_QUESTION = "How many letters does the word have?"
_WORD_DRAW = 1  # the purpose of the word order's stream (scenarios.stream)


@dataclass(frozen=True)
class WordResult:
    """A finished word: what was asked and guessed, who found it."""

    word_number: int
    word: str
    rounds: int
    questions: tuple[int, int]  # questions asked, per player
    wrong_guesses: tuple[int, int]
    solved: tuple[bool, bool]  # right in the last round, per player
    points: tuple[float, float]


@dataclass(frozen=True)
class PasscodeState:
    seed: int
    word_number: int
    word: str
    round_number: int
    phase: str  # "question" | "answer" | "guess" | "over"
    qa: tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] = ((), ())
    pending: tuple[str, str] = ("", "")  # this round's questions, awaiting the Keeper
    guessed: tuple[bool, bool] = (False, False)  # guessed (not passed) earlier in this word
    wrong: tuple[int, int] = (0, 0)  # wrong guesses in this word
    scores: tuple[float, float] = (0.0, 0.0)
    finished: tuple[WordResult, ...] = ()
    last_guesses: tuple[str | None, str | None] = (None, None)  # the last guess phase's


def _index(seat: str) -> int:
    return 0 if seat.endswith("a") else 1


def _same(guess: str, word: str) -> bool:
    return guess.strip().casefold() == word


@dataclass(frozen=True)
class Passcode:
    """Passcode as a `pdbench.games.base.TurnGame` (rules in the module docstring)."""

    id: ClassVar[str] = "passcode"
    platform_name: ClassVar[str] = "passcode"
    third_roles: ClassVar[tuple[str, ...]] = ("keeper",)

    round_limit: int = 10
    words_per_match: int = 1
    max_question_chars: int = 200
    scenario_file: str | None = None
    words: Words = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("round_limit", "words_per_match", "max_question_chars"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        words = load_words(self.scenario_file)
        if self.words_per_match > len(words.words):
            raise ValueError(
                f"words_per_match {self.words_per_match} is more than the "
                f"{len(words.words)} words of the list"
            )
        object.__setattr__(self, "words", words)

    def secret_word(self, seed: int, word_number: int) -> str:
        """The match's `word_number`-th word: a seeded permutation of the list, so no repeats."""
        order = stream(seed, _WORD_DRAW, 0).permutation(len(self.words.words))
        return self.words.words[int(order[word_number - 1])]

    def initial_state(self, seed: int) -> PasscodeState:
        return PasscodeState(seed, 1, self.secret_word(seed, 1), 1, "question")

    def to_move(self, state: PasscodeState) -> tuple[str, ...]:
        if state.phase == "over":
            return ()
        return KEEPER_SEATS if state.phase == "answer" else PLAYER_SEATS

    def observe(self, state: PasscodeState, seat: str) -> dict[str, Any]:
        me = _index(seat)
        if seat in KEEPER_SEATS:
            return {
                "game": self.platform_name,
                "role": "keeper",
                "phase": "answer",
                "round_number": state.round_number,
                "word_number": state.word_number,
                "player": PLAYER_SEATS[me],
                "secret_word": state.word,
                "question": state.pending[me],
                "qa_history": [{"question": q, "answer": a} for q, a in state.qa[me]],
            }
        return {
            "game": self.platform_name,
            "round_number": state.round_number,
            "round": state.round_number,
            "phase": state.phase,
            "your_qa_history": [{"question": q, "answer": a} for q, a in state.qa[me]],
            "opponent_guessed": state.guessed[1 - me],
            "round_limit": self.round_limit,
            # public: the list the word is drawn from, the same for every player (a house
            # player halves it, so an arena agent and a model are shown it too)
            "candidate_words": sorted(self.words.words),
            "word_number": state.word_number,
            "words_per_match": self.words_per_match,
            "your_score": state.scores[me],
            "opponent_score": state.scores[1 - me],
        }

    def problem(self, state: PasscodeState, seat: str, action: Mapping[str, Any]) -> str | None:
        if seat not in self.to_move(state):
            return f"{seat} does not act now (phase {state.phase})"
        kind = action.get("type")
        if state.phase == "answer":
            return _text_problem(action, "answer", "text", MAX_ANSWER_CHARS)
        if state.phase == "question":
            return _text_problem(action, "question", "text", self.max_question_chars)
        if kind == "pass":
            return None
        if kind != "guess":
            return f'type must be "guess" or "pass" in the guess phase, got {kind!r}'
        return _text_problem(action, "guess", "word", MAX_GUESS_CHARS)

    def fallback(self, state: PasscodeState, seat: str, reason: str) -> dict[str, Any]:
        if state.phase == "answer":
            return {"type": "answer", "text": UNANSWERABLE}
        if state.phase == "question":
            return {"type": "question", "text": FALLBACK_QUESTION}
        return {"type": "pass"}

    def apply(
        self, state: PasscodeState, actions: Mapping[str, Mapping[str, Any]]
    ) -> PasscodeState:
        seats = self.to_move(state)
        if set(actions) != set(seats):
            raise ValueError(f"{list(seats)} act now, got {list(actions)}")
        for seat, action in actions.items():
            reason = self.problem(state, seat, action)
            if reason is not None:
                raise ValueError(f"{seat}: {reason}")
        if state.phase == "question":
            pending = (str(actions["a"]["text"]).strip(), str(actions["b"]["text"]).strip())
            return replace(state, phase="answer", pending=pending)
        if state.phase == "answer":
            qa = tuple(
                (*state.qa[i], (state.pending[i], str(actions[KEEPER_SEATS[i]]["text"])))
                for i in (0, 1)
            )
            return replace(state, phase="guess", qa=(qa[0], qa[1]), pending=("", ""))
        return self._after_guesses(state, actions)

    def _after_guesses(
        self, state: PasscodeState, actions: Mapping[str, Mapping[str, Any]]
    ) -> PasscodeState:
        guesses = tuple(
            str(actions[s]["word"]) if actions[s].get("type") == "guess" else None
            for s in PLAYER_SEATS
        )
        right = tuple(g is not None and _same(g, state.word) for g in guesses)
        wrong = tuple(state.wrong[i] + (guesses[i] is not None and not right[i]) for i in (0, 1))
        guessed = tuple(state.guessed[i] or guesses[i] is not None for i in (0, 1))
        state = replace(
            state,
            last_guesses=(guesses[0], guesses[1]),
            wrong=(wrong[0], wrong[1]),
            guessed=(guessed[0], guessed[1]),
        )
        if not any(right) and state.round_number < self.round_limit:
            return replace(state, round_number=state.round_number + 1, phase="question")
        points = (50.0, 50.0) if all(right) else (100.0 * right[0], 100.0 * right[1])
        result = WordResult(
            word_number=state.word_number,
            word=state.word,
            rounds=state.round_number,
            questions=(len(state.qa[0]), len(state.qa[1])),
            wrong_guesses=state.wrong,
            solved=(right[0], right[1]),
            points=points,
        )
        scores = (state.scores[0] + points[0], state.scores[1] + points[1])
        if state.word_number == self.words_per_match:
            return replace(state, phase="over", scores=scores, finished=(*state.finished, result))
        number = state.word_number + 1
        return PasscodeState(
            seed=state.seed,
            word_number=number,
            word=self.secret_word(state.seed, number),
            round_number=1,
            phase="question",
            scores=scores,
            finished=(*state.finished, result),
            last_guesses=state.last_guesses,
        )

    def round_number(self, state: PasscodeState) -> int:
        return state.round_number

    def phase(self, state: PasscodeState) -> str:
        return state.phase

    def revealed(self, before: PasscodeState, after: PasscodeState) -> dict[str, Any] | None:
        """After a guess phase: both guesses and whether each was right; when that ended a word,
        the word (its number and where it came from) and the points. Questions and answers are
        private and are not revealed."""
        if before.phase != "guess":
            return None
        guesses = after.last_guesses
        shown: dict[str, Any] = {
            "guesses": {"a": guesses[0], "b": guesses[1]},
            "right": {
                seat: guesses[i] is not None and _same(guesses[i] or "", before.word)
                for i, seat in enumerate(PLAYER_SEATS)
            },
        }
        if len(after.finished) > len(before.finished):
            result = after.finished[-1]
            shown["word"] = {
                "number": result.word_number,
                "secret_word": result.word,
                "source": self.scenario_file or "pdbench/games/data/passcode_words.json",
                "rounds": result.rounds,
                "points": {"a": result.points[0], "b": result.points[1]},
            }
        return shown

    def match_over(self, state: PasscodeState) -> bool:
        return state.phase == "over"

    def scores(self, state: PasscodeState) -> dict[str, float]:
        return {"a": state.scores[0], "b": state.scores[1]}

    def redraw_hidden(self, state: PasscodeState, seat: str, rng: Any) -> PasscodeState:
        """The same state with what `seat` may not see drawn again (pdbench.games.check): the
        other player's questions, answers and pending question, and the match's seed (the words
        to come); for a player also the secret word (another of the candidates). A Keeper's seat
        sees the word and its own player's questions only. An observation must not change."""
        me = _index(seat)

        def text() -> str:
            return f"redrawn {int(rng.integers(10**9))}"

        qa = [state.qa[0], state.qa[1]]
        qa[1 - me] = tuple((text(), text()) for _ in qa[1 - me])
        pending = [state.pending[0], state.pending[1]]
        pending[1 - me] = text() if pending[1 - me] else ""
        changed = replace(
            state,
            seed=int(rng.integers(2**62)),
            qa=(qa[0], qa[1]),
            pending=(pending[0], pending[1]),
        )
        if seat in KEEPER_SEATS:
            return changed
        words = sorted(self.words.words)
        return replace(changed, word=words[int(rng.integers(len(words)))])


def _text_problem(action: Mapping[str, Any], kind: str, key: str, limit: int) -> str | None:
    if action.get("type") != kind:
        return f'type must be "{kind}" now, got {action.get("type")!r}'
    text = action.get(key)
    if not isinstance(text, str) or not text.strip():
        return f"a {kind}'s {key} is a non-empty text"
    if len(text.strip()) > limit:
        return f"a {kind} is at most {limit} characters, this one has {len(text.strip())}"
    return None
