"""The contract of a turn-based game: a rules object with pure methods over an immutable state.

Every game is a `TurnGame`, in the shape OpenSpiel and TextArena use (the 2x2 matrix games
through `pdbench.games.matrix`, their rounds stored in their own record shape), and the engine
(`pdbench.runners`) plays any of them with one loop:

    state = game.initial_state(seed)
    while not game.match_over(state):
        seats = game.to_move(state)                      # who acts now: one seat, or several at once
        seen = {seat: game.observe(state, seat) for seat in seats}   # all taken before anyone acts
        actions = {seat: <the agent bound to role_of(seat) answers seen[seat]> for seat in seats}
        #   an action the rules refuse (`problem` is not None) is re-asked as an LLM's invalid
        #   answer is; what finally happens (`fallback`, or the match aborts) is recorded
        state = game.apply(state, actions)
    game.scores(state)

Seats and roles. A seat is who answers one request: "a" and "b" are the two players; a game with a
third party names it as a role ("keeper", "judge") and may ask it several things at once by
qualifying the seat after a colon ("keeper:a" answers player a's question, "keeper:b" player b's).
The part before the colon is the role a condition binds to an agent (`agent_a`, `agent_b`,
`keeper=...`, `judge=...`); `role_of` splits it. Third roles are listed in `third_roles`.

Purity and seeds. Every method is a pure function of its arguments. Chance (dice, the secret word,
the scenario of a debate) is drawn from the match's seed carried in the state, as a pure function
of (seed, round), so a match replays move for move and resumes from its stored turns: replaying
the stored actions through `apply` from `initial_state(seed)` gives the same states.

Observations. `observe(state, seat)` is the only way anything about the state reaches an agent:
exactly the platform's round_state for that game (both of its documented spellings where the
platform has two), and never what that seat may not see yet (the opponent's dice, the other
player's questions and answers, the secret word for a player). Prompts, logs and the viewer's
view of a turn in progress are built from it.

Actions are JSON objects in the platform's shapes (`{"type": "bid", "quantity": 3, "face": 5}`,
`{"type": "question", "text": ...}`); a third role's actions are the game's own (documented in its
module). `problem` says why an action is not legal now (None: it is), in a sentence an LLM can be
shown when it is re-asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol, TypeVar, runtime_checkable

from pdbench.core.seats import MAX_SEATS, SEAT_LETTERS, SEAT_PATTERN, player_seats

__all__ = ["MAX_SEATS", "SEAT_LETTERS", "SEAT_PATTERN", "player_seats"]

Seat = str  # "a", "b", or "<third role>" / "<third role>:<qualifier>"
PLAYER_SEATS: tuple[Seat, Seat] = ("a", "b")
# A game's player seats are named in order by `pdbench.core.seats` ("a" .. "z", "za", ...); a
# two-player game's are PLAYER_SEATS. A condition binds seat x to its `agent_x`: a to j one by
# one (SEAT_LETTERS), any number at once by a `population`.
FallbackReason = Literal["invalid", "timeout"]

State = TypeVar("State")


def role_of(seat: Seat) -> str:
    """The role a seat belongs to: "keeper:a" -> "keeper", "a" -> "a"."""
    return seat.partition(":")[0]


def other_player(seat: Seat) -> Seat:
    """The opponent of player seat "a" or "b"."""
    if seat not in PLAYER_SEATS:
        raise ValueError(f"{seat!r} is not a player seat")
    return "b" if seat == "a" else "a"


@runtime_checkable
class TurnGame(Protocol[State]):
    """A turn-based game's rules for one variant (its options are fields of the implementing
    class, fixed when it is built from the condition's config)."""

    # The game's id in pdbench (configs, file names: "liars_dice") and its name on AgentDuel, the
    # spelling agent files write in `GAME` and round_state carries in "game" ("liars-dice").
    id: ClassVar[str]
    platform_name: ClassVar[str]
    # Roles besides the two players that a condition must bind to an agent (e.g. ("keeper",)).
    third_roles: ClassVar[tuple[str, ...]]
    # Optional, read with getattr (default True): `stores_observations = False` says a seat's
    # observation is a function of the earlier stored lines (perfect information: the 2x2
    # games), so a turn's line holds no observation digest (`runners.turn_records`);
    # `draws_from_game_seed = False` says the match's chance is not drawn from its game seed
    # (`draws_from_game_seed` below), so its record keeps none.
    # Optional methods, read by the functions below: `fixed_length()`, `agent_game(seat)`,
    # `setting_warnings(agent, seat)`.

    def initial_state(self, seed: int) -> State:
        """The state before the first turn; all of the match's chance follows from `seed`."""
        ...

    def to_move(self, state: State) -> tuple[Seat, ...]:
        """The seats that act now: one, or several acting at once (none see the others' actions
        of this turn). Empty only when the match is over."""
        ...

    def observe(self, state: State, seat: Seat) -> dict[str, Any]:
        """What `seat` is shown now: the platform's round_state (a third role's request for
        third-party seats). Never anything the seat may not see yet."""
        ...

    def problem(self, state: State, seat: Seat, action: Mapping[str, Any]) -> str | None:
        """Why `action` is not legal for `seat` now (None: it is)."""
        ...

    def fallback(self, state: State, seat: Seat, reason: FallbackReason) -> dict[str, Any]:
        """The action played for `seat` when its agent gave no legal one (`reason`): the game's
        documented default (e.g. AgentDuel's generic argument on a timeout). The engine records
        that it was a fallback; a condition may choose to abort the match instead."""
        ...

    def apply(self, state: State, actions: Mapping[Seat, Mapping[str, Any]]) -> State:
        """The state after the seats of `to_move(state)` played `actions` (each legal)."""
        ...

    def round_number(self, state: State) -> int:
        """The round in play (from 1; after the match ends, the last round played + 1)."""
        ...

    def phase(self, state: State) -> str:
        """The phase in play, in the platform's spelling ("bid", "question", "debate_1")."""
        ...

    def revealed(self, before: State, after: State) -> dict[str, Any] | None:
        """What the last `apply` made public to both players, for the turn's stored record (a
        showdown's dice, the Keeper's verdict on guesses, a judge's decision); None: nothing."""
        ...

    def match_over(self, state: State) -> bool: ...

    def scores(self, state: State) -> dict[Seat, float]:
        """Points per player seat ("a", "b") so far; final once `match_over`."""
        ...


@dataclass(frozen=True)
class FixedLength:
    """How long a match lasts when the game's rules fix it (a number of rounds, each a set number
    of turns): `validate` says it, and the plan bounds the provider calls by the turns a seat
    takes instead of by `game.max_turns`. A game whose length depends on play (Liar's Dice ends
    when a player runs out of dice) declares none."""

    rounds: int
    turns: int  # the turns of the whole match (a simultaneous turn counts once)
    turns_per_seat: int  # the most turns in which one player seat is asked to act
    # the rules may stop a match sooner (a random stop): rounds and turns are then its cap
    stops_early: bool = False
    # Of a seat's turns each round, those in which it only talks (a 2x2 negotiation's
    # exchanges): each asked once, never re-asked, so the plan bounds a seat's provider calls
    # by its rounds' decisions (every retry) plus these.
    talks_per_round: int = 0


def fixed_length(rules: object) -> FixedLength | None:
    """The length a game's rules fix (their optional `fixed_length()`), or None."""
    declared = getattr(rules, "fixed_length", None)
    return declared() if callable(declared) else None


def draws_from_game_seed(rules: object) -> bool:
    """Whether a match's chance (dice, a secret word, a debate's scenario) is drawn from its game
    seed, which its record then keeps for replays: the rules' optional `draws_from_game_seed`
    (default True). A 2x2 game's only chance, the trembling hand, is drawn from the noise seeds
    the plan deals each side (`MatrixGame.dealt`), recorded as such."""
    return bool(getattr(rules, "draws_from_game_seed", True))


def setting_warnings(rules: object, agent: Any, seat: str) -> list[Any]:
    """The legal settings of `seat`'s agent that probably do not mean what they say in this game
    (`strategies.base.PolicyWarning`s: GTFT's default generosity in the stag hunt, read
    from the payoffs): the rules' optional `setting_warnings(agent, seat)`; none for rules
    without it."""
    declared = getattr(rules, "setting_warnings", None)
    return list(declared(agent, seat)) if callable(declared) else []


def agent_game(rules: object, seat: str) -> Any:
    """What the agent of `seat` is built with (`agents.kinds.make_agent`'s `game`): the rules'
    optional `agent_game(seat)` (a 2x2 game's: its table seen from that seat), else the rules."""
    declared = getattr(rules, "agent_game", None)
    return declared(seat) if callable(declared) else rules


@runtime_checkable
class TurnPolicy(Protocol):
    """A house player of a turn-based game: it answers from the round_state alone (what an arena
    agent is given), in the platform's action shape, so it can see nothing an agent could not.
    `rng` is the player's own seeded stream for the match."""

    def act(self, round_state: dict[str, Any], rng: Any) -> dict[str, Any]: ...


# Dataclass field metadata of a rules option: {RECORDED_ONLY_WHEN_SET: True} keeps the option out
# of a match's stored options while it holds its default, so an option added after records
# existed leaves the record of every match that does not use it byte for byte as it was (a
# reader takes the default when the key is absent).
RECORDED_ONLY_WHEN_SET = "recorded_only_when_set"


def recorded_options(rules: Any) -> dict[str, Any]:
    """The options a turn game's rules (a dataclass instance) are built from, as a match's record
    stores them: every init field, but a RECORDED_ONLY_WHEN_SET one only when not its default."""
    import dataclasses

    found = {}
    for f in dataclasses.fields(rules):
        if not f.init:
            continue
        value = getattr(rules, f.name)
        if f.metadata.get(RECORDED_ONLY_WHEN_SET) and value == f.default:
            continue
        found[f.name] = value
    return found
