"""What a researcher asks of a match under a mechanism, per player seat, from the match's stored
turns (replayed through the rules built from its stored options, so every number comes from what
is on disk):

- `cooperation_rate`: the share of rounds its realised action (a delegator's: the mediator's)
  was the cooperative one, A0;
- `approval_rate`: the share of the proposals on its ballots that it approved;
- `signing_rate`: the share of contracts put to it that it signed;
- `delegation_rate`: the share of rounds played with a mediator in which it delegated;
- `design_equilibrium`: the share of its own designs that make mutual cooperation an equilibrium
  (CoopEval's design quality: `designs.mediator_is_equilibrium`, `contract_is_equilibrium`,
  checked against the base game's payoffs);
- `winner_equilibrium`: the share of the match's decisions whose winning design does (the same
  for every seat of a match);
- `contract_active_rate`: the share of rounds played under a binding contract;
- `welfare_gain`: the group's mean payoff per player and round (transfers included: they sum to
  0) minus the base game's equilibrium payoff per player (`BaseGame.equilibrium_payoff`: PD's
  mutual defection), the same for every seat of a match;
- `mean_payoff` per round; `score`, the ranked total (`NormalForm.scores`): the sum of its
  payoffs, or with `discount` < 1 CoopEval's discounted average of them (`scoring`);
  `payoff_sum` the plain sum always, and `discount` the d its score was discounted by (1: none),
  so a discounted score is never read as a sum;
- `reputation_gap` (under reputation only): its cooperation rate facing a co-player whose newest
  shown round was cooperative minus facing one whose was not (rounds where a co-player had
  nothing shown left out; None without rounds on both sides), the shown rounds rebuilt with the
  observation's own reader (`reputation.shown_to`): about 1 for a discriminator, 0 for a player
  that ignores reputation (as public goods' `reputation_gap`). Under `reputation_shown: image`
  it is its cooperation rate facing a partner shown good minus facing one shown bad, the
  images replayed from the stored rounds (`images.images_by_round`).
A rate whose mechanism never asked it (no vote under `repetition`) is None.

`encounters` lists a reputation match's pairwise games (each 2-player group of each round) for
`pdbench tournament` on a population run (`pdbench.games.encounters`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from pdbench.core.metric import Metric
from pdbench.games.encounters import Encounter
from pdbench.games.metric_rows import register_game_rows
from pdbench.games.normal_form import designs as d
from pdbench.games.normal_form.base_games import token
from pdbench.games.normal_form.images import images_by_round, partner_of
from pdbench.games.normal_form.reputation import partners_last_actions, shown_to
from pdbench.games.normal_form.rules import NormalForm, rules_of
from pdbench.games.normal_form.state import Decision, NormalFormState
from pdbench.games.norms import GOOD
from pdbench.games.replay import replay


def summary_note(conditions: Any) -> str | None:
    """The line under the end-of-run table when a condition's score is discounted (its
    `discount_a` below 1): the score column is then CoopEval's discounted average, not a sum."""
    if "discount_a" not in conditions:
        return None
    by_discount: dict[float, list[str]] = {}
    for _, row in conditions[conditions["discount_a"] < 1].iterrows():
        by_discount.setdefault(float(row["discount_a"]), []).append(str(row["condition"]))
    if not by_discount:
        return None
    named = "; ".join(f"{', '.join(names)} (d = {d:g})" for d, names in by_discount.items())
    return (
        f"score: CoopEval's discounted average of the rounds' payoffs in {named}: round t "
        "weighs (1 - d) d^t, the last d^(T-1); payoff_sum in aggregates.parquet is the sum"
    )


def _ratio(top: int, bottom: int) -> float | None:
    return top / bottom if bottom else None


def is_equilibrium(rules: NormalForm, design: tuple[int, ...]) -> bool:
    if rules.mechanism == "mediation":
        return d.mediator_is_equilibrium(rules.game, design)
    return d.contract_is_equilibrium(rules.game, design)


def decisions(rules: NormalForm, state: NormalFormState) -> list[Decision]:
    """Every decision the match made, in order: the one of round 1 (`decide: once`), or one
    per round (`every_round`)."""
    return [
        played.decision
        for played in state.finished
        if played.decision is not None
        and (played.round_number == 1 or rules.decide == "every_round")
    ]


def state_row(rules: NormalForm, state: NormalFormState) -> dict[str, dict[str, object]]:
    """Per player seat, every metric row's stem and the counts its pooled ratio needs."""
    made = decisions(rules, state)
    rounds = state.finished
    n = rules.population
    gaps = reputation_gaps(rules, state)
    winners = [is_equilibrium(rules, m.designs[m.winner]) for m in made if m.winner is not None]
    welfare = None
    if rounds:
        mean = sum(sum(r.payoffs) for r in rounds) / (n * len(rounds))
        welfare = float(mean - rules.game.equilibrium_payoff())
    mediated = [r for r in rounds if rules.mechanism == "mediation" and r.decision is not None]
    contracted = [r for r in rounds if r.decision is not None and r.decision.active]
    scores = rules.scores(state)
    rows: dict[str, dict[str, object]] = {}
    for i, seat in enumerate(rules.seats):
        cooperated = sum(r.realised[i] == rules.game.cooperative for r in rounds)
        ballots = [m.approvals[i] for m in made if m.approvals is not None]
        approved = sum(sum(b) for b in ballots)
        entries = sum(len(b) for b in ballots)
        signatures = [m.signed[i] for m in made if m.signed is not None]
        delegated = sum(r.delegated[i] for r in mediated)
        own = [is_equilibrium(rules, m.designs[i]) for m in made]
        total = sum((r.payoffs[i] for r in rounds), start=Fraction(0))
        rows[seat] = {
            "cooperation_rate": _ratio(cooperated, len(rounds)),
            "approval_rate": _ratio(approved, entries),
            "signing_rate": _ratio(sum(signatures), len(signatures)),
            "delegation_rate": _ratio(delegated, len(mediated)),
            "design_equilibrium": _ratio(sum(own), len(own)),
            "winner_equilibrium": _ratio(sum(winners), len(winners)),
            "contract_active_rate": (
                _ratio(len(contracted), len(rounds)) if rules.mechanism == "contracting" else None
            ),
            "welfare_gain": welfare,
            "mean_payoff": float(total / len(rounds)) if rounds else None,
            "score": scores[seat],
            "payoff_sum": float(state.totals[i]),
            "discount": rules.discount,
            "reputation_gap": gaps.get(i),
            "cooperated": cooperated,
            "rounds": len(rounds),
            "approved": approved,
            "ballot_entries": entries,
            "signed": sum(signatures),
            "sign_asked": len(signatures),
            "delegated": delegated,
            "mediated_rounds": len(mediated),
            "equilibrium_designs": sum(own),
            "designs": len(own),
        }
    return rows


def faced(rules: NormalForm, state: NormalFormState) -> dict[int, list[tuple[bool, bool]]]:
    """Per population index, (every co-player's newest shown round was A0, it played A0), one
    per round in which each co-player had a round shown (reputation only)."""
    found: dict[int, list[tuple[bool, bool]]] = {i: [] for i in range(rules.population)}
    if rules.mechanism != "reputation":
        return found
    if rules.shows_images:
        return _faced_images(rules, state)
    first_order = replace(rules, reputation_order=1)  # the co-players' own rounds suffice
    for k, played in enumerate(state.finished):
        before = replace(
            state,
            round_number=played.round_number,
            finished=state.finished[:k],
            groups=played.groups,
        )
        for i in range(rules.population):
            shown = partners_last_actions({"reputation": shown_to(first_order, before, i)})
            if shown and None not in shown:
                good = all(a == token(rules.game.cooperative) for a in shown)
                found[i].append((good, played.realised[i] == rules.game.cooperative))
    return found


def _faced_images(rules: NormalForm, state: NormalFormState) -> dict[int, list[tuple[bool, bool]]]:
    """`faced` under `reputation_shown: image`: (the partner was shown good, it played A0)
    for every round."""
    rounds = [(played.groups or (), played.realised) for played in state.finished]
    found: dict[int, list[tuple[bool, bool]]] = {i: [] for i in range(rules.population)}
    before = images_by_round(rules, rounds)[:-1]  # each round's start (the last: the end)
    for images, played in zip(before, state.finished, strict=True):
        for i in range(rules.population):
            good = images[partner_of(played.groups or (), i)] == GOOD
            found[i].append((good, played.realised[i] == rules.game.cooperative))
    return found


def reputation_gaps(rules: NormalForm, state: NormalFormState) -> dict[int, float]:
    """Per population index with rounds on both sides, its `reputation_gap`."""
    gaps = {}
    for i, points in faced(rules, state).items():
        good = [c for g, c in points if g]
        bad = [c for g, c in points if not g]
        if good and bad:
            gaps[i] = sum(good) / len(good) - sum(bad) / len(bad)
    return gaps


def encounters(lines: Sequence[Mapping[str, Any]], options: Mapping[str, Any]) -> list[Encounter]:
    """Each 2-player group of each round of a reputation match, as one encounter (module
    docstring); [] for any other match (its players do not meet a population)."""
    rules = rules_of(options)
    if rules.mechanism != "reputation" or rules.game.players != 2:
        return []
    state = _replayed(rules, lines)
    seat = rules.seats
    return [
        Encounter(
            first=seat[i],
            second=seat[j],
            payoff_first=float(played.payoffs[i]),
            payoff_second=float(played.payoffs[j]),
            cooperated_first=played.realised[i] == rules.game.cooperative,
            cooperated_second=played.realised[j] == rules.game.cooperative,
        )
        for played in state.finished
        for i, j in played.groups or ()
    ]


def _replayed(rules: NormalForm, lines: Sequence[Mapping[str, Any]]) -> NormalFormState:
    seed = lines[-1]["outcome"]["seed"] if lines and "outcome" in lines[-1] else 0
    return replay(rules, seed, [line["actions"] for line in lines])


def match_row(
    lines: Sequence[Mapping[str, Any]], options: Mapping[str, Any]
) -> dict[str, dict[str, object]]:
    """The measures of one stored match (its turn lines and options)."""
    rules = rules_of(options)
    return state_row(rules, _replayed(rules, lines))


# Each stored per player seat; a pooled ratio sums its counts over a condition's finished
# matches before dividing; `shown`: the end-of-run table's columns (pdbench.cli.summary_table).
# Measured from the match's stored turn lines and options.
register_game_rows(
    ("normal_form",),
    lambda match: match_row(match.turns, match.options),
    (
        Metric(
            stem="cooperation_rate",
            label="Cooperation rate",
            short="cooperated",
            help="share of rounds its realised action was the cooperative one (A0)",
            kind="rate",
            per_agent=True,
            pooled=("cooperated", "rounds"),
            shown="cooperated",
            shown_at=1,
        ),
        Metric(
            stem="approval_rate",
            label="Approval rate",
            short="approved",
            help="share of the proposals on its ballots it approved",
            kind="rate",
            per_agent=True,
            pooled=("approved", "ballot_entries"),
            shown="approved",
            shown_at=2,
        ),
        Metric(
            stem="signing_rate",
            label="Signing rate",
            short="signed",
            help="share of the contracts put to it that it signed",
            kind="rate",
            per_agent=True,
            pooled=("signed", "sign_asked"),
            shown="signed",
            shown_at=3,
        ),
        Metric(
            stem="delegation_rate",
            label="Delegation rate",
            short="delegated",
            help="share of the rounds with a mediator in which it delegated",
            kind="rate",
            per_agent=True,
            pooled=("delegated", "mediated_rounds"),
            shown="delegated",
            shown_at=4,
        ),
        Metric(
            stem="design_equilibrium",
            label="Design equilibrium",
            short="design equilibrium",
            help="share of its designs making mutual cooperation an equilibrium",
            kind="rate",
            per_agent=True,
            pooled=("equilibrium_designs", "designs"),
        ),
        Metric(
            stem="winner_equilibrium",
            label="Winner equilibrium",
            short="winner equilibrium",
            help="share of winning designs making mutual cooperation an equilibrium",
            kind="rate",
            per_agent=True,
        ),
        Metric(
            stem="contract_active_rate",
            label="Contract active rate",
            short="contract active rate",
            help="share of rounds played under a binding contract",
            kind="rate",
            per_agent=True,
        ),
        Metric(
            stem="welfare_gain",
            label="Welfare gain",
            short="welfare gain",
            help="mean payoff per player and round minus the base game's equilibrium payoff",
            kind="signed",
            per_agent=True,
            shown="welfare gain",
            shown_at=5,
        ),
        Metric(
            stem="mean_payoff",
            label="Mean payoff",
            short="mean payoff",
            help="its mean payoff per round",
            kind="payoff",
            per_agent=True,
        ),
        Metric(
            stem="reputation_gap",
            label="Reputation gap",
            short="reputation gap",
            help="cooperation facing a partner shown cooperative (or good) minus facing another",
            kind="signed",
            per_agent=True,
        ),
        Metric(
            stem="score",
            label="Score",
            short="score",
            help="its final score (discounted: CoopEval's average when discount < 1)",
            kind="payoff",
            per_agent=True,
            shown="score",
            shown_at=0,
        ),
        Metric(
            stem="payoff_sum",
            label="Payoff sum",
            short="payoff sum",
            help="the sum of its payoffs over the rounds (the score when discount is 1)",
            kind="payoff",
            per_agent=True,
        ),
        Metric(
            stem="discount",
            label="Discount",
            short="discount",
            help="the continuation chance its score was discounted by (1: not discounted)",
            kind="rate",
            per_agent=True,
        ),
    ),
)
