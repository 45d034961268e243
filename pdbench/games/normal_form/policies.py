"""House players of a normal-form game under a mechanism. Each answers from its round_state
alone (`observation`), in the action shapes of `rules`, computing what it needs from the payoffs
the round_state lists; `rng` is its own seeded stream (only the random player draws).

"A0" below stands for the game's cooperative action and "the defecting action" for its
defecting one, both read from the shown payoffs (`BaseGame.cooperative`, `.defecting`): A0 and
the last action in every base game but the traveller's dilemma (the highest claim, the lowest).

A house player is five choices (its parameters):
- `play`: "cooperate" (A0), "defect" (the defecting action), "tft" (A0 first, then A0 only if
  every other player played A0 in the last round shown; under reputation, A0 unless a new
  co-player's newest shown round was not A0), "reputation" (the discriminator: A0 only if every
  co-player's newest shown round was A0, so not against one with nothing shown; without
  reputation it plays as tft), both A0 exactly when the partner is good where its image is
  shown instead (`reputation_shown: image`: everyone starts good), "best_reply" (its best
  action when all the others cooperate, under a binding contract's payments; ties to A0),
  "random";
- `design`: "cooperative" (the mediator playing A0 for every number of delegators; the contract
  making each other action cost its temptation, PD: T - R, `designs.temptation_contract`),
  "punishing" (the mediator cooperating when all delegate and deterring a lone deviator
  otherwise; the same contract), "selfish" (the mediator playing the defecting action; the
  contract of zeros), "random";
- `vote`: "maximin" (approves the proposals whose worst case for it, `designs.*_security`, is the
  highest), "all", "own" (its own design alone), "cooperative" (the designs that play A0 when all
  delegate, the contracts under which mutual cooperation is an equilibrium), "uncooperative"
  (the others), "random";
- `sign`: whether it signs a contract; `delegate`: whether it delegates to a mediator (it then
  answers the delegate action instead of `play`'s).

| name | play | design | vote | sign | delegate |
|---|---|---|---|---|---|
| mech_allc | cooperate | cooperative | all | yes | no |
| mech_alld | defect | selfish | own | no | no |
| mech_tft | tft | cooperative | maximin | yes | no |
| mech_designer | best_reply | cooperative | maximin | yes | yes |
| mech_refuser | best_reply | selfish | maximin | no | no |
| mech_random | random | random | random | random | random |
| mech_reputation | reputation | cooperative | maximin | yes | no |
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from pdbench.games.normal_form import designs as d
from pdbench.games.normal_form.base_games import BaseGame, exact, token
from pdbench.games.normal_form.reputation import partners_last_actions

RoundState = dict[str, Any]
PLAYS = ("cooperate", "defect", "tft", "reputation", "best_reply", "random")
DESIGNS = ("cooperative", "punishing", "selfish", "random")
VOTES = ("maximin", "all", "own", "cooperative", "uncooperative", "random")


def game_of(round_state: RoundState) -> BaseGame:
    """The base game as the round_state lists it (`observation`)."""
    tokens = round_state["actions"]
    table = {
        tuple(tokens.index(a) for a in row["actions"]): tuple(exact(x) for x in row["points"])
        for row in round_state["payoffs"]
    }
    return BaseGame("shown", int(round_state["players"]), tuple(tokens), table)


def _contract(round_state: RoundState, game: BaseGame) -> d.Contract | None:
    shown = round_state.get("contract")
    if shown is None or not round_state.get("contract_active", False):
        return None
    return d.contract_of(game, shown["payments"])


def _cooperative(game: BaseGame, proposal: dict[str, Any]) -> bool:
    if "mediator" in proposal:
        return d.mediator_of(game, proposal["mediator"])[-1] == game.cooperative
    return d.contract_is_equilibrium(game, d.contract_of(game, proposal["contract"]))


@dataclass(frozen=True)
class MechanismPlayer:
    play: str = "cooperate"
    design: str = "cooperative"
    vote: str = "maximin"
    sign: bool = True
    delegate: bool = False

    def __post_init__(self) -> None:
        for name, value, choices in (
            ("play", self.play, PLAYS),
            ("design", self.design, DESIGNS),
            ("vote", self.vote, VOTES),
        ):
            if value not in choices:
                raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}")

    def act(self, round_state: RoundState, rng: Any) -> dict[str, Any]:
        game = game_of(round_state)
        phase = round_state["phase"]
        if phase == "design":
            return self._design(round_state, game, rng)
        if phase == "vote":
            return {"type": "vote", "approve": self._ballot(round_state, game, rng)}
        if phase == "sign":
            signs = bool(rng.integers(2)) if self.play == "random" else self.sign
            return {"type": "sign", "sign": signs}
        return {"type": "play", "action": self._move(round_state, game, rng)}

    def _design(self, round_state: RoundState, game: BaseGame, rng: Any) -> dict[str, Any]:
        kind = self.design
        if round_state["mechanism"] == "mediation":
            if kind == "random":
                mediator = tuple(int(rng.integers(game.actions)) for _ in range(game.players))
            else:
                mediator = {
                    "cooperative": d.cooperative_mediator,
                    "punishing": d.punishing_mediator,
                    "selfish": d.selfish_mediator,
                }[kind](game)
            return {"type": "design", "mediator": d.mediator_json(mediator)}
        if kind == "random":
            contract = tuple(int(rng.integers(-3, 4)) for _ in range(game.actions))
        elif kind == "selfish":
            contract = d.null_contract(game)
        else:
            contract = d.temptation_contract(game)
        return {"type": "design", "contract": d.contract_json(contract)}

    def _ballot(self, round_state: RoundState, game: BaseGame, rng: Any) -> dict[str, bool]:
        proposals = round_state["proposals"]
        me = int(round_state["player"]) - 1
        if self.vote == "all":
            return {p["id"]: True for p in proposals}
        if self.vote == "own":
            return {p["id"]: p["proposer"] == me + 1 for p in proposals}
        if self.vote == "random":
            return {p["id"]: bool(rng.integers(2)) for p in proposals}
        if self.vote in ("cooperative", "uncooperative"):
            wanted = self.vote == "cooperative"
            return {p["id"]: _cooperative(game, p) == wanted for p in proposals}
        values: dict[str, Fraction] = {}
        for p in proposals:
            if "mediator" in p:
                values[p["id"]] = d.mediator_security(game, d.mediator_of(game, p["mediator"]), me)
            else:
                values[p["id"]] = d.contract_security(game, d.contract_of(game, p["contract"]), me)
        best = max(values.values())
        return {key: value == best for key, value in values.items()}

    def _move(self, round_state: RoundState, game: BaseGame, rng: Any) -> str:
        delegates = self.delegate if self.play != "random" else bool(rng.integers(2))
        if "delegate" in round_state and delegates:
            return str(round_state["delegate"])
        me = int(round_state["player"]) - 1
        if self.play == "cooperate":
            return token(game.cooperative)
        if self.play == "defect":
            return token(game.defecting)
        if self.play == "random":
            return token(int(rng.integers(game.actions)))
        if self.play in ("tft", "reputation") and "partner_image" in round_state:
            good = round_state["partner_image"] == "good"
            return token(game.cooperative if good else game.defecting)
        if self.play in ("tft", "reputation") and "reputation" in round_state:
            shown = partners_last_actions(round_state)
            unknown_is_good = self.play == "tft"  # tft gives a stranger the benefit of the doubt
            good = all(
                a == token(game.cooperative) or (a is None and unknown_is_good) for a in shown
            )
            return token(game.cooperative if good else game.defecting)
        if self.play in ("tft", "reputation"):
            history = round_state["history"]
            if not history:
                return token(game.cooperative)
            last = history[-1]["actions"]
            mine = f"Player {me + 1}"
            others_cooperated = all(
                a == token(game.cooperative) for p, a in last.items() if p != mine
            )
            return token(game.cooperative if others_cooperated else game.defecting)
        return token(d.best_reply_to_cooperation(game, me, _contract(round_state, game)))


@dataclass(frozen=True)
class AllC(MechanismPlayer):
    vote: str = "all"


@dataclass(frozen=True)
class AllD(MechanismPlayer):
    play: str = "defect"
    design: str = "selfish"
    vote: str = "own"
    sign: bool = False


@dataclass(frozen=True)
class TitForTat(MechanismPlayer):
    play: str = "tft"


@dataclass(frozen=True)
class Designer(MechanismPlayer):
    play: str = "best_reply"
    delegate: bool = True


@dataclass(frozen=True)
class Refuser(MechanismPlayer):
    play: str = "best_reply"
    design: str = "selfish"
    sign: bool = False


@dataclass(frozen=True)
class RandomPlayer(MechanismPlayer):
    play: str = "random"
    design: str = "random"
    vote: str = "random"


@dataclass(frozen=True)
class Discriminator(MechanismPlayer):
    play: str = "reputation"


NORMAL_FORM_POLICIES = {
    "mech_allc": AllC,
    "mech_alld": AllD,
    "mech_tft": TitForTat,
    "mech_designer": Designer,
    "mech_refuser": Refuser,
    "mech_random": RandomPlayer,
    "mech_reputation": Discriminator,
}
