"""House players of the public goods game. Each answers from its round_state alone
(`observation.round_state`), in the action shapes of `rules`, so it can see nothing an agent could not;
`rng` is its own seeded stream.

Each one says, in the talk phase, the contribution it is about to make ("I will contribute 12.",
in the grammar of `talk.stated_amount`), so talk-to-contribution consistency is measurable; only
the free rider's `claim` and the random player say something else. Its contribution depends on
the history alone (never on this round's messages), so what it says is what it does. Amounts
are rounded half up. "The others' last mean" is the mean contribution of the other members of
its group in its last round (under strangers, that round's group).

A punisher gives all its points to one player, so it stays legal under pgg_bench's one-target
rule, which round_state does not show; it gives `points`, or fewer when `max_punish` (the most
it may give now) is lower.

FGF 2001 is Fischbacher, Gaechter & Fehr, "Are people conditionally cooperative? Evidence from a
public goods experiment", Economics Letters 71 (2001): the contribution schedules (own
contribution against the others' average) of conditional cooperators, free riders and
hump-shaped ("triangle") contributors.

Each house player also acts for many groups at once (`act_batch`: one seat of many matches, its
observations as arrays, `Seen`), for the vectorised path (`vectorised`); it answers exactly as
`act` does for each of them, drawing from each match's own stream in the same order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdbench.games.public_goods.reputation import co_players_shown_share

RoundState = dict[str, Any]


def round_half_up(value: float) -> int:
    return math.floor(value + 0.5)


@dataclass(frozen=True)
class Seen:
    """One seat's round_state in many matches at once (arrays over the matches, row m the
    match m), holding what the house players read; labels are positions 0..N-1 ("P1".."PN").

    `others_last_mean` is None in round 1 (no history); `contributions` (this round's, its
    group's, by label position), `max_punish` and `position` (its own label) are for the punish
    phase; `rngs` are the seat's streams, one a match."""

    endowment: int
    others_last_mean: np.ndarray | None
    rngs: list[np.random.Generator]
    position: np.ndarray | None = None
    contributions: np.ndarray | None = None
    max_punish: np.ndarray | None = None

    @property
    def count(self) -> int:
        return len(self.rngs)


def label_rank(size: int) -> np.ndarray:
    """Each label position's place when the labels sort as strings ("P10" before "P2"), as
    `min` over (amount, label) pairs breaks ties."""
    labels = [f"P{k}" for k in range(1, size + 1)]
    return np.array([sorted(labels).index(label) for label in labels])


def _pick(seen: Seen, wanted: np.ndarray, key: np.ndarray, points: int) -> np.ndarray:
    """Points per match and label position: `points` (at most max_punish) to the member of
    smallest `key` among the `wanted` ones (ties: the first label as strings sort), else 0."""
    assert seen.contributions is not None and seen.max_punish is not None
    size = seen.contributions.shape[1]
    ordered = key * size + label_rank(size)  # key first, then the label's string order
    ordered = np.where(wanted, ordered, np.iinfo(np.int64).max)
    target = np.argmin(ordered, axis=1)
    given = np.minimum(points, seen.max_punish)
    given = np.where(wanted.any(axis=1) & (given > 0), given, 0)
    out = np.zeros_like(seen.contributions)
    out[np.arange(seen.count), target] = given
    return out


def most(round_state: RoundState) -> int:
    """The most the player may contribute this round."""
    return math.floor(round_state["endowment"])


def others_last_mean(round_state: RoundState) -> float | None:
    """The mean contribution of the other members of the player's group in its last round."""
    if not round_state["history"]:
        return None
    last = round_state["history"][-1]
    others = [c for label, c in last["contributions"].items() if label != last["you"]]
    return sum(others) / len(others)


class HousePlayer:
    """Says its contribution, contributes, punishes (by default nobody)."""

    def act(self, round_state: RoundState, rng: np.random.Generator) -> dict[str, Any]:
        phase = round_state["phase"]
        if phase == "talk":
            return {"type": "message", "text": self.say(round_state, rng)}
        if phase == "contribute":
            amount = min(most(round_state), max(0, self.contribution(round_state, rng)))
            return {"type": "contribute", "amount": amount}
        return {"type": "punish", "points": self.punishment(round_state, rng)}

    def contribution(self, round_state: RoundState, rng: np.random.Generator) -> int:
        raise NotImplementedError

    def say(self, round_state: RoundState, rng: np.random.Generator) -> str:
        amount = min(most(round_state), max(0, self.contribution(round_state, rng)))
        return f"I will contribute {amount}."

    def punishment(self, round_state: RoundState, rng: np.random.Generator) -> dict[str, int]:
        return {}

    # --- the same for many matches at once (module docstring) ----------------------------

    def act_batch(self, phase: str, seen: Seen) -> list[str] | np.ndarray:
        """The answers of `phase` in every match: the messages' texts (talk), the amounts
        (contribute), or the points per label position (punish, shape matches x N)."""
        if phase == "talk":
            return self.say_batch(seen)
        if phase == "contribute":
            return np.minimum(seen.endowment, np.maximum(0, self.contribution_batch(seen)))
        return self.punishment_batch(seen)

    def contribution_batch(self, seen: Seen) -> np.ndarray:
        raise NotImplementedError

    def say_batch(self, seen: Seen) -> list[str]:
        amounts = np.minimum(seen.endowment, np.maximum(0, self.contribution_batch(seen)))
        return _texts("I will contribute {}.", amounts)

    def punishment_batch(self, seen: Seen) -> np.ndarray:
        assert seen.contributions is not None
        return np.zeros_like(seen.contributions)


def _texts(template: str, amounts: np.ndarray) -> list[str]:
    said = {int(a): template.format(int(a)) for a in np.unique(amounts)}
    return [said[a] for a in amounts.tolist()]


def _matching_mean(seen: Seen, opening: float) -> np.ndarray:
    """The others' last mean rounded half up, `opening` x E in round 1 (as floats, like `act`)."""
    if seen.others_last_mean is None:
        return np.full(seen.count, round_half_up(opening * seen.endowment))
    return np.floor(seen.others_last_mean + 0.5).astype(np.int64)


@dataclass(frozen=True)
class FullContributor(HousePlayer):
    """Contributes everything it may, every round (the unconditional cooperator, "altruist")."""

    def contribution(self, round_state: RoundState, rng: np.random.Generator) -> int:
        return most(round_state)

    def contribution_batch(self, seen: Seen) -> np.ndarray:
        return np.full(seen.count, seen.endowment)


@dataclass(frozen=True)
class FreeRider(HousePlayer):
    """Contributes nothing, whatever the others do (FGF 2001's free rider). Says it contributes
    `claim` (default: the truth, 0), so a lying free rider is one parameter away."""

    claim: int | None = None

    def contribution(self, round_state: RoundState, rng: np.random.Generator) -> int:
        return 0

    def say(self, round_state: RoundState, rng: np.random.Generator) -> str:
        return f"I will contribute {0 if self.claim is None else self.claim}."

    def contribution_batch(self, seen: Seen) -> np.ndarray:
        return np.zeros(seen.count, dtype=np.int64)

    def say_batch(self, seen: Seen) -> list[str]:
        return [f"I will contribute {0 if self.claim is None else self.claim}."] * seen.count


@dataclass(frozen=True)
class ConditionalCooperator(HousePlayer):
    """Contributes the others' last mean; `opening` (a share of what it may contribute) in its
    first round (FGF 2001's conditional cooperator, the schedule on the diagonal)."""

    opening: float = 0.5

    def contribution(self, round_state: RoundState, rng: np.random.Generator) -> int:
        mean = others_last_mean(round_state)
        if mean is None:
            return round_half_up(self.opening * most(round_state))
        return round_half_up(mean)

    def contribution_batch(self, seen: Seen) -> np.ndarray:
        return _matching_mean(seen, self.opening)


@dataclass(frozen=True)
class HumpContributor(HousePlayer):
    """Matches the others' last mean x up to `peak` x E, then gives less the more they gave:
    max(0, 2 peak E - x) above it (FGF 2001's hump-shaped, "triangle", contributor, whose
    schedule rises to about half the endowment and falls back). `opening` in its first round."""

    opening: float = 0.5
    peak: float = 0.5

    def contribution(self, round_state: RoundState, rng: np.random.Generator) -> int:
        mean = others_last_mean(round_state)
        if mean is None:
            return round_half_up(self.opening * most(round_state))
        top = self.peak * round_state["endowment"]
        return round_half_up(mean if mean <= top else max(0.0, 2 * top - mean))

    def contribution_batch(self, seen: Seen) -> np.ndarray:
        if seen.others_last_mean is None:
            return _matching_mean(seen, self.opening)
        mean = seen.others_last_mean
        top = self.peak * seen.endowment
        shaped = np.where(mean <= top, mean, np.maximum(0.0, 2 * top - mean))
        return np.floor(shaped + 0.5).astype(np.int64)


@dataclass(frozen=True)
class FreeRiderPunisher(HousePlayer):
    """Contributes `share` of what it may and punishes the lowest contributor of the round among
    those who gave less than it did (ties: the first label), with `points` (the altruistic
    punisher of Fehr & Gaechter 2000, 2002, who punished low contributors)."""

    share: float = 1.0
    points: int = 3

    def contribution(self, round_state: RoundState, rng: np.random.Generator) -> int:
        return round_half_up(self.share * most(round_state))

    def say(self, round_state: RoundState, rng: np.random.Generator) -> str:
        amount = min(most(round_state), self.contribution(round_state, rng))
        return f"I will contribute {amount}, and I will punish whoever gives less."

    def punishment(self, round_state: RoundState, rng: np.random.Generator) -> dict[str, int]:
        mine = round_state["contributions"][round_state["you"]]
        lower = [
            (given, label)
            for label, given in round_state["contributions"].items()
            if label != round_state["you"] and given < mine
        ]
        points = min(self.points, round_state["max_punish"])
        return {min(lower)[1]: points} if lower and points > 0 else {}

    def contribution_batch(self, seen: Seen) -> np.ndarray:
        return np.full(seen.count, round_half_up(self.share * seen.endowment))

    def say_batch(self, seen: Seen) -> list[str]:
        amounts = np.minimum(seen.endowment, self.contribution_batch(seen))
        return _texts("I will contribute {}, and I will punish whoever gives less.", amounts)

    def punishment_batch(self, seen: Seen) -> np.ndarray:
        assert seen.contributions is not None and seen.position is not None
        given = seen.contributions
        mine = given[np.arange(seen.count), seen.position][:, None]
        others = np.arange(given.shape[1])[None, :] != seen.position[:, None]
        return _pick(seen, others & (given < mine), given, self.points)


@dataclass(frozen=True)
class AntisocialPunisher(HousePlayer):
    """Contributes `share` of what it may and punishes the highest contributor of the round among
    those who gave at least as much as it did (ties: the first label), with `points`: the
    antisocial punishment of Herrmann, Thoeni & Gaechter, "Antisocial punishment across
    societies", Science 319 (2008), punishment aimed at those who contributed at least as much
    as the punisher."""

    share: float = 0.25
    points: int = 3

    def contribution(self, round_state: RoundState, rng: np.random.Generator) -> int:
        return round_half_up(self.share * most(round_state))

    def punishment(self, round_state: RoundState, rng: np.random.Generator) -> dict[str, int]:
        mine = round_state["contributions"][round_state["you"]]
        higher = [
            (-given, label)
            for label, given in round_state["contributions"].items()
            if label != round_state["you"] and given >= mine
        ]
        points = min(self.points, round_state["max_punish"])
        return {min(higher)[1]: points} if higher and points > 0 else {}

    def contribution_batch(self, seen: Seen) -> np.ndarray:
        return np.full(seen.count, round_half_up(self.share * seen.endowment))

    def punishment_batch(self, seen: Seen) -> np.ndarray:
        assert seen.contributions is not None and seen.position is not None
        given = seen.contributions
        mine = given[np.arange(seen.count), seen.position][:, None]
        others = np.arange(given.shape[1])[None, :] != seen.position[:, None]
        return _pick(seen, others & (given >= mine), -given, self.points)


@dataclass(frozen=True)
class RandomPlayer(HousePlayer):
    """Contributes a uniform whole amount it may; says another, drawn independently; with
    probability `punish_probability` gives a uniform 1..max_punish points to one other player
    drawn at random (a baseline with no strategy, talk that means nothing)."""

    punish_probability: float = 0.3

    def contribution(self, round_state: RoundState, rng: np.random.Generator) -> int:
        return int(rng.integers(most(round_state) + 1))

    def say(self, round_state: RoundState, rng: np.random.Generator) -> str:
        return f"I will contribute {int(rng.integers(most(round_state) + 1))}."

    def punishment(self, round_state: RoundState, rng: np.random.Generator) -> dict[str, int]:
        others = [label for label in round_state["players"] if label != round_state["you"]]
        top = round_state["max_punish"]
        if top < 1 or rng.random() >= self.punish_probability:
            return {}
        return {others[int(rng.integers(len(others)))]: int(rng.integers(1, top + 1))}

    # Each match's own stream, drawn in the order `act` draws: a loop over the matches.

    def contribution_batch(self, seen: Seen) -> np.ndarray:
        return np.array([int(rng.integers(seen.endowment + 1)) for rng in seen.rngs])

    def say_batch(self, seen: Seen) -> list[str]:
        return [f"I will contribute {int(rng.integers(seen.endowment + 1))}." for rng in seen.rngs]

    def punishment_batch(self, seen: Seen) -> np.ndarray:
        assert seen.contributions is not None and seen.position is not None
        assert seen.max_punish is not None
        out = np.zeros_like(seen.contributions)
        size = out.shape[1]
        for m, (rng, you, top) in enumerate(
            zip(seen.rngs, seen.position.tolist(), seen.max_punish.tolist(), strict=True)
        ):
            if top < 1 or rng.random() >= self.punish_probability:
                continue
            others = [k for k in range(size) if k != you]
            target = others[int(rng.integers(len(others)))]  # drawn first, as in `punishment`
            out[m, target] = int(rng.integers(1, top + 1))
        return out


@dataclass(frozen=True)
class ReputationReciprocator(HousePlayer):
    """Contributes in proportion to its new group's reputation: the co-players' mean shown
    contribution share (`reputation.co_players_shown_share`) of what it may give, everything
    when nothing of them is shown (round 1, or no reputation); reciprocity on reputation, which
    CoopEval's Reputation mechanism is about. The vectorised path plays no reputation
    (`vectorised.problem`), so there it is shown nothing and gives everything."""

    def contribution(self, round_state: RoundState, rng: np.random.Generator) -> int:
        share = co_players_shown_share(round_state)
        return most(round_state) if share is None else round_half_up(share * most(round_state))

    def contribution_batch(self, seen: Seen) -> np.ndarray:
        return np.full(seen.count, seen.endowment)


# policy name -> factory taking the policy's parameters (names prefixed: policy names are
# shared by every game a policy agent can name)
PUBLIC_GOODS_POLICIES: dict[str, Callable[..., HousePlayer]] = {
    "pgg_full_contributor": FullContributor,
    "pgg_free_rider": FreeRider,
    "pgg_conditional_cooperator": ConditionalCooperator,
    "pgg_hump": HumpContributor,
    "pgg_punisher": FreeRiderPunisher,
    "pgg_antisocial_punisher": AntisocialPunisher,
    "pgg_random": RandomPlayer,
    "pgg_reputation_reciprocator": ReputationReciprocator,
}
