"""The ledger's matches as every aggregation reads them (the rounds', `round_aggregates`, and the
replay of a game's rows, `turn_aggregates`): the ledger of a run that lost it, the plan's order,
and the check that each match's stored lines are what its ledger line counts. Done once here, so
a run of any game is held to the same checks, in the same words."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pdbench.core.errors import PdbenchError
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.manifest import RunManifest

MatchKey = tuple[str, int]  # (condition, replicate)


def ledger_of_stored(stored: Mapping[MatchKey, tuple[int, str | None]]) -> list[LedgerEntry]:
    """A run whose ledger is gone (only its lines and manifest left): each stored match as its
    ledger line would say it, its stored length as played and planned (so every stored match
    counts as finished, unless its stored outcome names an error)."""
    return [
        LedgerEntry(
            condition=condition,
            replicate=replicate,
            n_rounds=length,
            planned_rounds=length,
            seeds={},
            error=error,
        )
        for (condition, replicate), (length, error) in stored.items()
    ]


def in_plan_order(ledger: Iterable[LedgerEntry], manifest: RunManifest) -> list[LedgerEntry]:
    """The ledger's matches in the plan's order of conditions (a condition the manifest does not
    list last, by name), each condition's by replicate: the order of the table's rows."""
    order = {name: i for i, name in enumerate(manifest.conditions)}
    return sorted(
        ledger, key=lambda e: (order.get(e.condition, len(order)), e.condition, e.replicate)
    )


def refuse_miscounted(
    entries: Iterable[LedgerEntry], stored: Mapping[MatchKey, int], where: str, unit: str
) -> None:
    """Each match's stored lines (`stored`: how many `unit`, rounds or turns, per match) must be
    what its ledger line says, and no more than it planned (a 2x2 match's horizon, a turn game's
    cap): otherwise its numbers would be wrong, so nothing is aggregated (PdbenchError)."""
    for entry in entries:
        have = stored.get(entry.key, 0)
        match = f"{where}: condition {entry.condition} replicate {entry.replicate}"
        if entry.n_rounds > entry.planned_rounds:
            raise PdbenchError(
                f"{match} played {entry.n_rounds} {unit} but its horizon allows "
                f"{entry.planned_rounds}; nothing is aggregated"
            )
        if have != entry.n_rounds:
            raise PdbenchError(
                f"{match} has {have} {unit} stored but its ledger line says "
                f"{entry.n_rounds} (a match written twice or cut short?); nothing is aggregated"
            )
