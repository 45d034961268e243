"""Passcode (AgentDuel's passcode): two players question a Keeper about secret words and guess
them, as one package: everything that is this game's (issue 43's game contract).

- `rules`: the `Passcode` turn game (seeded words, the Keeper's seats, what each seat observes).
- `policies`: the house players and house Keepers.
- `aggregates`: the per-player metrics from a finished match (rows of the one metric registry).
- `measures`: the Keeper's truthfulness and audit, read from a stored run.
- `transcript` and `view`: the viewer's page of a match.

`GAME` below names each of these parts; `pdbench.games.registry` lists it with the other
built-in games.
"""

from __future__ import annotations

from pdbench.games.entry import TurnGameEntry
from pdbench.games.roles import ThirdRole

# The Secret Keeper, and the audit of what it answers.
KEEPER = ThirdRole(
    name="keeper",
    shown="the secret word and the question it is asked",
    house="pdbench.games.passcode.policies:KEEPERS",
    unbound="null",
    mock="pdbench.games.passcode.keeper_mock:answer_as_keeper",
)
KEEPER_AUDIT = ThirdRole(
    name="keeper_audit",
    shown="what the Keeper is shown",
    audits="keeper",
    unbound="null_hashed",
    measures="pdbench.games.passcode.measures:keeper_audit_report",
    missing="no Keeper audit stored (bind keeper_audit in the condition; "
    "a passcode run's metrics: pdbench aggregate, aggregates.parquet)",
)

GAME = TurnGameEntry(
    id="passcode",
    llm="pdbench.games.judged_prompts:PROMPTS",
    view="pdbench.games.passcode.view",
    platform_name="passcode",
    rules="pdbench.games.passcode.rules:Passcode",
    policies="pdbench.games.passcode.policies:PASSCODE_POLICIES",
    summary="ask a Secret Keeper questions, then guess its word before the other player",
    metrics="pdbench.games.passcode.aggregates",
    third_roles=(KEEPER, KEEPER_AUDIT),
    training_opponents=("passcode_halving",),
)
