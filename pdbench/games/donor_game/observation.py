"""What one donor is shown (`DonorGame.observe`): exactly issue 45's round_state, plus `game`,
`round_limit` and `norm`.

- `phase` ("donate"), `round_number`, `round_limit` (`rounds`, or null when not disclosed),
  `you` (your label, the same all match), `cost`, `benefit`, `norm` (the norm an image is
  judged by, "none" when no image is kept), `your_score` (your score so far).
- `recipient`: `{label, reputation: {image_score, recent_actions}}`. `image_score` is the
  recipient's image under the norm, 1 (good) or 0 (bad), null under norm none; everyone starts
  good (`norms.START_IMAGE`). `recent_actions` is the recipient's last k actions as a donor
  (`recent_actions` option), oldest first, each `{round_number, recipient, gave}` naming whom
  it donated to; with `second_order` each also holds `recipient_recent_actions`: that
  recipient's last k donor actions before that round (first-order entries). [] in round 1.
- `history`: your past rounds, each `{round_number, gave_to, gave, received_from, received,
  earnings}`: whom you donated to and whether you gave, who donated to you and whether it gave.
  Under `pairing: halves` a player donates or receives in a round, never both: its past round
  holds `gave_to` and `gave` or `received_from` and `received` (and their amounts), and a
  recipient's `recent_actions` are the rounds it donated in. A player receiving this round is
  not asked (only donors act) and is shown nothing.

Continuous giving (`amount: continuous`) adds `amount` ("continuous"), `endowment` (what
everyone started with), `benefit_factor` (b / c: what a unit given brings its recipient) and
`recipient.resources` (what it holds now: Vallinder & Hughes's donor sees it); `your_score` is
then your resources, the most you may give. Each shown action then also holds `amount` and
`share` (of the donor's resources when it chose; null when it held nothing), and each past
round `amount` (what you gave) and `received_amount`. With `punishment` round_state adds
`punishment_factor`, each shown action `punished` (it spent its amount punishing its recipient
instead of giving), each past round `punished` (you) and `punished_by_donor`. With
`trace_links` 3 each second-order entry holds its own `recipient_recent_actions` (the chain's
third link).

A match of several games (`generations` or `games_per_generation` above 1) adds `stage`
(`generation`, `generations`, `game`, `games_per_generation`, `round`, `rounds`: where the round
falls); `round_number` counts the match's rounds and `round_limit` is all of them; the trace and
the history hold the game in play only (a game starts with no past). With generations each
donor's round_state adds `your_strategy` (the text it wrote), and a strategy phase's round_state
(`strategy_state`) holds the rules, `stage`, `you`, `players`, `kept` (how many survive a
generation) and `survivors`: the previous generation's survivors' labels, strategies and final
scores, best first.

Nothing else: no seat id, no other player's image or deeds beyond what the options publish about
your recipient, no choice of this round (all donors choose at once), and never the seed.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pdbench.games.donor_game.generations import STRATEGY_LIMIT, game_start, position
from pdbench.games.donor_game.options import Options
from pdbench.games.donor_game.state import DonorState, RoundRecord


def as_number(value: Fraction | float | int) -> int | float:
    """A whole amount as an int, any other as a float."""
    exact = value if isinstance(value, Fraction) else Fraction(str(value))
    return int(exact) if exact.denominator == 1 else float(exact)


def _entry(record: RoundRecord, player: int, labels: tuple[str, ...]) -> dict[str, Any]:
    recipient = record.recipients[player]
    assert recipient is not None, "an entry is a round the player donated in"
    entry: dict[str, Any] = {
        "round_number": record.round_number,
        "recipient": labels[recipient],
        "gave": record.gave[player],
    }
    if record.amounts is not None:  # continuous giving: the amount and its share
        share = record.share(player)
        entry["amount"] = as_number(record.amounts[player])
        entry["share"] = None if share is None else as_number(share)
    if record.punished is not None:  # with punishment: spent punishing, not given
        entry["punished"] = record.punished[player]
    return entry


def donor_actions(
    finished: tuple[RoundRecord, ...], player: int, labels: tuple[str, ...], k: int, before: int
) -> list[dict[str, Any]]:
    """`player`'s last `k` actions as a donor in the rounds before round `before`, oldest
    first (under halves, the rounds it donated in)."""
    if k == 0:
        return []
    done = [r for r in finished if r.round_number < before and r.donated(player)][-k:]
    return [_entry(r, player, labels) for r in done]


def _chain(
    finished: tuple[RoundRecord, ...],
    entries: list[dict[str, Any]],
    labels: tuple[str, ...],
    k: int,
    links: int,
) -> None:
    """Give each entry its recipient's last k donor actions before it, and theirs, down to a
    chain of `links` links (the recipient's own action is the first)."""
    if links < 2:
        return
    by_label = {label: i for i, label in enumerate(labels)}
    for entry in entries:
        earlier = donor_actions(
            finished, by_label[entry["recipient"]], labels, k, entry["round_number"]
        )
        _chain(finished, earlier, labels, k, links - 1)
        entry["recipient_recent_actions"] = earlier


def this_game(options: Options, state: DonorState) -> tuple[RoundRecord, ...]:
    """The finished rounds of the game in play (a game starts with no past)."""
    if not options.staged:
        return state.finished
    start = game_start(options, state.round_number)
    return tuple(r for r in state.finished if r.round_number >= start)


def reputation(options: Options, state: DonorState, player: int) -> dict[str, Any]:
    """What a donor is shown of `player`, its recipient this round."""
    k, labels, finished = options.recent_actions, state.labels, this_game(options, state)
    recent = donor_actions(finished, player, labels, k, state.round_number)
    if options.second_order:
        _chain(finished, recent, labels, k, options.trace_links)
    image = None if state.images is None else state.images[player]
    return {"image_score": image, "recent_actions": recent}


def _past_round(record: RoundRecord, player: int, labels: tuple[str, ...]) -> dict[str, Any]:
    """`player`'s side of a past round: what it gave (when it donated) and what it received
    (when someone donated to it; under halves a player does one or the other)."""
    recipient, donor = record.recipients[player], record.donor_of(player)
    past: dict[str, Any] = {"round_number": record.round_number}
    if recipient is not None:
        past["gave_to"], past["gave"] = labels[recipient], record.gave[player]
    if donor is not None:
        past["received_from"], past["received"] = labels[donor], record.gave[donor]
    past["earnings"] = as_number(record.earnings[player])
    if record.amounts is not None:
        if recipient is not None:
            past["amount"] = as_number(record.amounts[player])
        if donor is not None:
            past["received_amount"] = as_number(record.amounts[donor])
    if record.punished is not None:
        if recipient is not None:
            past["punished"] = record.punished[player]
        if donor is not None:
            past["punished_by_donor"] = record.punished[donor]
    return past


def round_state(
    options: Options, platform_name: str, state: DonorState, player: int
) -> dict[str, Any]:
    """The round_state of `player` (population index, a donor this round) in `state`."""
    recipient = state.recipients[player]
    if recipient is None:
        raise ValueError(f"player {player} does not donate in round {state.round_number}")
    shown: dict[str, Any] = {
        "game": platform_name,
        "phase": state.phase,
        "round_number": state.round_number,
        "round_limit": options.total_rounds if options.round_limit_disclosed else None,
        "you": state.labels[player],
        "recipient": {
            "label": state.labels[recipient],
            "reputation": reputation(options, state, recipient),
        },
        "cost": as_number(options.cost),
        "benefit": as_number(options.benefit),
        "norm": options.norm,
        "your_score": as_number(state.totals[player]),
        "history": [_past_round(r, player, state.labels) for r in this_game(options, state)],
    }
    if options.staged:
        shown["stage"] = stage(options, state.round_number)
    if options.evolves:
        shown["your_strategy"] = state.strategies[player]
    if options.continuous:  # what Vallinder & Hughes's donor sees besides the trace
        shown["amount"] = "continuous"
        shown["endowment"] = as_number(options.endowment)
        shown["benefit_factor"] = as_number(options.benefit_factor)
        shown["recipient"]["resources"] = as_number(state.totals[recipient])
    if options.punishment:
        shown["punishment_factor"] = as_number(options.punishment_factor)
    if options.halves:  # the prompt's rules say how players pair (default: not shown)
        shown["pairing"] = "halves"
    return shown


def stage(options: Options, round_number: int) -> dict[str, int]:
    """Where a round falls in a match of several games."""
    generation, game, round_in_game = position(options, round_number)
    return {
        "generation": generation,
        "generations": options.generations,
        "game": game,
        "games_per_generation": options.games_per_generation,
        "round": round_in_game,
        "rounds": options.rounds,
    }


def _rules(options: Options) -> dict[str, Any]:
    """The game's rules a strategy is written for."""
    rules: dict[str, Any] = {
        "cost": as_number(options.cost),
        "benefit": as_number(options.benefit),
        "endowment": as_number(options.endowment),
        "norm": options.norm,
        "amount": options.amount,
        "recent_actions": options.recent_actions,
        "second_order": options.second_order,
    }
    if options.continuous:
        rules["benefit_factor"] = as_number(options.benefit_factor)
    if options.punishment:
        rules["punishment_factor"] = as_number(options.punishment_factor)
    if options.halves:
        rules["pairing"] = "halves"
    return rules


def strategy_state(
    options: Options, platform_name: str, state: DonorState, player: int
) -> dict[str, Any]:
    """The round_state of a player writing its strategy: the rules, where the match is, and the
    survivors' strategies with their final scores, best first (none in generation 1)."""
    return {
        "game": platform_name,
        "phase": "strategy",
        "round_number": state.round_number,
        "you": state.labels[player],
        "stage": stage(options, state.round_number),
        "rules": _rules(options),
        "players": options.players,
        "kept": options.kept,
        "survivors": [
            {
                "label": state.labels[i],
                "strategy": state.strategies[i],
                "score": as_number(score),
            }
            for i, score in state.advice
        ],
        "strategy_limit": STRATEGY_LIMIT,
    }
