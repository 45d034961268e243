"""House players of the donor game. Each answers from its round_state alone
(`observation.round_state`), in the action shape of `rules`, so it sees nothing an agent could
not; `rng` is its own seeded stream.

- `donor_always_give`: gives every time (the unconditional cooperator, ALLC).
- `donor_never_give`: never gives (the defector, ALLD).
- `donor_discriminator`: gives iff its recipient's image is good (image_score 1); under norm none
  (no image shown) it judges the recipient by its last shown action instead: good when it gave,
  or when it has none yet (the discriminator of Nowak & Sigmund 1998, with the image it is
  shown).
- `donor_threshold`: gives iff at least `threshold` of its recipient's shown recent actions were
  gifts (a first-order image score counted from `recent_actions`; a recipient with none shown
  gets the benefit of the doubt).
- `donor_random`: gives with probability `p`.
- `donor_share`: gives `share` of its resources every time (continuous giving); in the binary
  game it gives when `share` is above 0.
- `donor_match_share`: gives the share of its resources its recipient gave in its latest shown
  action (`start` when none is shown: continuous giving); in the binary game it gives iff that
  action was a gift (or none is shown).

Under continuous giving (round_state `amount` "continuous") the binary players give half their
resources (`your_score`) when they would give and 0 when they would refuse (a documented
choice: a share, so it never exceeds what they hold).

With generations (issue 45, Vallinder & Hughes's cultural evolution), a house player writes its
strategy as text at a generation's start: a survivor's strategy drawn uniformly from those shown
(imitating the successful), or in generation 1 its own policy and parameters (`spec`:
"house player donor_share(share=0.5)"). In every donation after, it plays the house player its
strategy names (`carried_player`): a replacement thus carries a survivor's parameters, while its
seat keeps its agent. A strategy naming no house player (an LLM's words) leaves it as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

RoundState = dict[str, Any]


def recipient_good(round_state: RoundState) -> bool:
    """The recipient's image as shown (image_score 1), or, without one, whether its last shown
    action was a gift (good when it has none)."""
    reputation = round_state["recipient"]["reputation"]
    if reputation["image_score"] is not None:
        return bool(reputation["image_score"])
    recent = reputation["recent_actions"]
    return bool(recent[-1]["gave"]) if recent else True


def continuous(round_state: RoundState) -> bool:
    """Whether the donor gives any amount up to its resources (round_state `amount`)."""
    return round_state.get("amount") == "continuous"


def latest_share(round_state: RoundState) -> float | None:
    """The share of its resources the recipient gave in its latest shown action (0 when it
    punished; None: none shown, or it held nothing then)."""
    recent = round_state["recipient"]["reputation"]["recent_actions"]
    if recent and recent[-1].get("punished"):
        return 0.0
    return None if not recent or recent[-1].get("share") is None else float(recent[-1]["share"])


class HousePlayer:
    def act(self, round_state: RoundState, rng: np.random.Generator) -> dict[str, Any]:
        if round_state["phase"] == "strategy":
            return {"type": "strategy", "text": self.written(round_state, rng)}
        carried = carried_player(round_state.get("your_strategy", ""))
        if carried is not None and carried != self:  # the strategy it carries, copied
            return carried.act(round_state, rng)
        if continuous(round_state):
            held = float(round_state["your_score"])
            return {"type": "donate", "amount": self.amount(round_state, rng, held)}
        return {"type": "donate", "give": bool(self.gives(round_state, rng))}

    def gives(self, round_state: RoundState, rng: np.random.Generator) -> bool:
        raise NotImplementedError

    def written(self, round_state: RoundState, rng: np.random.Generator) -> str:
        """Its strategy at a generation's start: a survivor's, drawn uniformly (imitating the
        successful), or, with none to copy, its own parameters (`spec`)."""
        shown = round_state["survivors"]
        if shown:
            return str(shown[int(rng.integers(len(shown)))]["strategy"])
        return spec(self)

    def amount(self, round_state: RoundState, rng: np.random.Generator, held: float) -> float:
        """Under continuous giving: half its resources when it would give, else 0."""
        return held / 2 if self.gives(round_state, rng) else 0


def _share(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a share from 0 to 1, got {value!r}")


@dataclass(frozen=True)
class AlwaysGive(HousePlayer):
    """Gives every time."""

    def gives(self, round_state: RoundState, rng: np.random.Generator) -> bool:
        return True


@dataclass(frozen=True)
class NeverGive(HousePlayer):
    """Never gives."""

    def gives(self, round_state: RoundState, rng: np.random.Generator) -> bool:
        return False


@dataclass(frozen=True)
class Discriminator(HousePlayer):
    """Gives iff the recipient is good (`recipient_good`)."""

    def gives(self, round_state: RoundState, rng: np.random.Generator) -> bool:
        return recipient_good(round_state)


@dataclass(frozen=True)
class Threshold(HousePlayer):
    """Gives iff the share of gifts among the recipient's shown recent actions is at least
    `threshold` (every recipient with none shown)."""

    threshold: float = 0.5

    def __post_init__(self) -> None:
        if isinstance(self.threshold, bool) or not 0 <= self.threshold <= 1:
            raise ValueError(f"threshold must be a share from 0 to 1, got {self.threshold!r}")

    def gives(self, round_state: RoundState, rng: np.random.Generator) -> bool:
        recent = round_state["recipient"]["reputation"]["recent_actions"]
        if not recent:
            return True
        return sum(bool(a["gave"]) for a in recent) / len(recent) >= self.threshold


@dataclass(frozen=True)
class RandomGiver(HousePlayer):
    """Gives with probability `p` (a baseline with no strategy)."""

    p: float = 0.5

    def __post_init__(self) -> None:
        if isinstance(self.p, bool) or not 0 <= self.p <= 1:
            raise ValueError(f"p must be a probability from 0 to 1, got {self.p!r}")

    def gives(self, round_state: RoundState, rng: np.random.Generator) -> bool:
        return bool(rng.random() < self.p)


@dataclass(frozen=True)
class FixedShare(HousePlayer):
    """Gives `share` of its resources every time (binary: gives when `share` is above 0)."""

    share: float = 0.5

    def __post_init__(self) -> None:
        _share("share", self.share)

    def gives(self, round_state: RoundState, rng: np.random.Generator) -> bool:
        return self.share > 0

    def amount(self, round_state: RoundState, rng: np.random.Generator, held: float) -> float:
        return self.share * held


@dataclass(frozen=True)
class MatchShare(HousePlayer):
    """Gives the share its recipient gave in its latest shown action, `start` when none is
    shown (binary: gives iff that action was a gift, or none is shown)."""

    start: float = 0.5

    def __post_init__(self) -> None:
        _share("start", self.start)

    def gives(self, round_state: RoundState, rng: np.random.Generator) -> bool:
        recent = round_state["recipient"]["reputation"]["recent_actions"]
        return bool(recent[-1]["gave"]) if recent else True

    def amount(self, round_state: RoundState, rng: np.random.Generator, held: float) -> float:
        share = latest_share(round_state)
        return (self.start if share is None else min(share, 1.0)) * held


def spec(player: HousePlayer) -> str:
    """A house player's strategy as text: its policy and parameters, which `carried_player`
    reads back ("house player donor_share(share=0.5)")."""
    name = next(n for n, factory in DONOR_GAME_POLICIES.items() if factory is type(player))
    params = ", ".join(f"{k}={v!r}" for k, v in sorted(vars(player).items()))
    return f"house player {name}({params})"


_SPEC = re.compile(r"house player (donor_[a-z_]+)\(([^()]*)\)")


def carried_player(strategy: str) -> HousePlayer | None:
    """The house player a strategy text names (`spec`), None when it names none."""
    found = _SPEC.fullmatch(strategy.strip())
    if found is None or found[1] not in DONOR_GAME_POLICIES:
        return None
    params: dict[str, float] = {}
    for pair in filter(None, (p.strip() for p in found[2].split(","))):
        key, _, value = pair.partition("=")
        try:
            params[key.strip()] = float(value)
        except ValueError:
            return None
    try:
        return DONOR_GAME_POLICIES[found[1]](**params)
    except (TypeError, ValueError):
        return None


# policy name -> factory taking the policy's parameters (names prefixed: policy names are
# shared by every game a policy agent can name)
DONOR_GAME_POLICIES: dict[str, Callable[..., HousePlayer]] = {
    "donor_always_give": AlwaysGive,
    "donor_never_give": NeverGive,
    "donor_discriminator": Discriminator,
    "donor_threshold": Threshold,
    "donor_random": RandomGiver,
    "donor_share": FixedShare,
    "donor_match_share": MatchShare,
}
