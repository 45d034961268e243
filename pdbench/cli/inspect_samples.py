"""One stored match as an Inspect sample (issue 46), and who plays each role of its condition:
its messages and events (inspect_transcript.py), its outcome and per-match metrics as scores, the
tokens and cost it paid as its model and role usage.

inspect_ai (the optional `inspect` group) is imported inside functions only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pdbench.analysis.metrics.aggregation_choice import reads_rounds_of
from pdbench.cli.inspect_transcript import (
    MatchTranscript,
    Role,
    is_call,
    parse_utc,
    role_of_seat,
    usage_of,
    walk_pair_round,
    walk_turn,
)
from pdbench.core.seats import stored_seat_agents
from pdbench.storage.ledger import LedgerEntry

if TYPE_CHECKING:
    from inspect_ai.log import EvalSample

    from pdbench.storage.manifest import RunManifest


def _model_name(provider: dict[str, Any]) -> str:
    """A provider spec's model as Inspect names models: `<provider>/<model>`."""
    model = str(provider.get("model"))
    return model if "/" in model else f"{provider.get('name')}/{model}"


def _role(name: str, player: str, kind: str, spec: Any) -> Role:
    specs = spec if isinstance(spec, list) else [spec]
    providers = [
        s["provider"] for s in specs if isinstance(s, dict) and isinstance(s.get("provider"), dict)
    ]
    if not providers:
        return Role(name, player, kind)
    first = next(s for s in specs if isinstance(s, dict) and s.get("provider"))
    generate = {
        key: first.get(key)
        for key in ("temperature", "max_tokens", "seed")
        if first.get(key) is not None
    }
    models = sorted({_model_name(p) for p in providers})  # a panel's judges: each model once
    return Role(name, player, kind, "+".join(models), generate)


def condition_roles(manifest: RunManifest, condition: str) -> dict[str, Role]:
    """agent_a, agent_b and the game's third roles, each with the model that plays it."""
    config = manifest.condition_config(condition) or {}
    matchup = manifest.matchups.get(condition)
    roles = {}
    seats = stored_seat_agents(config)  # its fields, or its population's seats
    for seat in ("a", "b"):
        name = f"agent_{seat}"
        player = getattr(matchup, name, name) if matchup else name
        kind = (getattr(matchup, f"type_{seat}", None) if matchup else None) or "agent"
        roles[name] = _role(name, player, kind, seats.get(name))
    for name, player in (matchup.third_parties if matchup else {}).items():
        kind = "house third party" if "(house default)" in player else "third party"
        roles[name] = _role(name, player, kind, config.get(name))
    return roles


def count_calls(records: list[dict[str, Any]], entry: LedgerEntry) -> int:
    """The provider calls the match's stored lines (and its ledger line) hold."""
    found = 0
    for record in records:
        attempts = [a for m in record.get("conversation") or [] for a in m.get("attempts") or []]
        attempts += record.get("agent_a_attempts") or []
        attempts += record.get("agent_b_attempts") or []
        attempts += [
            a for d in (record.get("decisions") or {}).values() for a in d.get("attempts") or []
        ]
        found += sum(is_call(attempt) for attempt in attempts)
    return found + sum(is_call(a) for a in entry.aborted_round_attempts or [])


def match_outcome(
    records: list[dict[str, Any]], rounds: bool
) -> tuple[dict[str, float | None], str | None]:
    """Each player's score for the match and who won (None: a tie or nobody): a match read as
    rounds (`reads_rounds_in`) from its last round's totals, else from the outcome on its last
    turn line."""
    last = records[-1] if records else {}
    if rounds and last:
        a, b = last["agent_a_cum_payoff"], last["agent_b_cum_payoff"]
        return {"agent_a": a, "agent_b": b}, None if a == b else ("agent_a" if a > b else "agent_b")
    outcome = last.get("outcome")
    if not rounds and outcome is not None:
        scores = {role_of_seat(s): v for s, v in (outcome.get("scores") or {}).items()}
        winner = outcome.get("winner")
        return scores, role_of_seat(winner) if winner else None
    return {"agent_a": None, "agent_b": None}, None


def match_description(roles: dict[str, Role], condition: str, replicate: int) -> str:
    """Who played whom (and who kept or judged), as the sample's input."""
    a, b = roles["agent_a"], roles["agent_b"]
    third = "".join(
        f", {r.name} {r.player}" for r in roles.values() if r.name not in (a.name, b.name)
    )
    return (
        f"{a.player} (agent_a, {a.kind}) vs {b.player} (agent_b, {b.kind}){third}; "
        f"condition {condition}, replicate {replicate}"
    )


def only_model_role(roles: dict[str, Role]) -> Role | None:
    """The one role a model plays, when only one does (then every call of the match is its)."""
    models = [role for role in roles.values() if role.model]
    return models[0] if len(models) == 1 else None


def _usage_from_counts(transcript: MatchTranscript) -> None:
    """A match whose calls are not told apart (live or cached): what it paid, from the ledger's
    counts, under its one model, or as `unattributed` when several models played."""
    paid = usage_of(transcript.entry.calls.paid().to_json())
    only = only_model_role(transcript.roles)
    transcript.usage["model"] = {(only.model if only else None) or "unattributed": paid}
    transcript.usage["role"] = {only.name if only else "unattributed": paid}


def reads_rounds_in(manifest: RunManifest, condition: str, records: list[dict[str, Any]]) -> bool:
    """Whether the condition's matches are read as rounds (the reader gives a 2x2 match of
    either record version as round records) or as turn lines, asked of its game's entry
    (`aggregation_choice.reads_rounds_of`); the game is the manifest's, else its lines'."""
    matchup = manifest.matchups.get(condition)
    game = matchup.game if matchup else next((r.get("game") for r in records), None)
    return isinstance(game, str) and bool(reads_rounds_of(game))


def build_sample(
    transcript: MatchTranscript,
    records: list[dict[str, Any]],
    metrics: dict[str, Any],
    description: str,
    rounds: bool,
) -> EvalSample:
    """The sample of one match whose lines `transcript` has not walked yet; `rounds`: its lines
    are round records (`reads_rounds_in`), else turn lines."""
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ChatMessageUser, ModelOutput
    from inspect_ai.scorer import Score

    entry = transcript.entry
    transcript.messages.append(ChatMessageUser(content=description))
    walk = walk_pair_round if rounds else walk_turn
    for record in records:
        walk(transcript, record)
    aborted = [attempt for attempt in entry.aborted_round_attempts or [] if is_call(attempt)]
    if aborted:  # the answers of the round that ended the match: no seat is stored with them
        only = only_model_role(transcript.roles)
        for attempt in aborted:
            transcript.call(only, attempt, parse_utc(entry.finished_utc), kind="aborted_round")
    if transcript.cached is None and (entry.calls.live or entry.calls.cached):
        _usage_from_counts(transcript)
    scores, winner = match_outcome(records, rounds)
    status = "aborted" if entry.error else "finished"
    shown = ", ".join(f"{r} {v:g}" for r, v in scores.items() if v is not None) or "no round"
    explanation = (
        f"{status} after {entry.n_rounds} of {entry.planned_rounds} rounds"
        if rounds
        else f"{status} after {entry.n_rounds} turns"
    )
    explanation += f": {entry.error}" if entry.error else ""
    started = parse_utc(records[0].get("timestamp_utc")) if records else None
    finished = parse_utc(entry.finished_utc)
    return EvalSample(
        id=entry.replicate,
        epoch=1,
        input=description,
        target="",
        messages=transcript.messages,
        output=ModelOutput.from_content(model="pdbench", content=shown),
        scores={
            "outcome": Score(
                value=scores,
                answer=winner or ("none" if entry.error else "tie"),
                explanation=explanation,
            ),
            "metrics": Score(
                value=metrics, explanation="pdbench's per-match metrics (aggregates.parquet)"
            ),
        },
        metadata={
            "condition": entry.condition,
            "replicate": entry.replicate,
            "status": status,
            "error": entry.error,
            "n_rounds": entry.n_rounds,
            "planned_rounds": entry.planned_rounds,
            "seeds": entry.seeds,
            "calls": entry.calls.to_json(omit_zero_flags=True),
            "cache_marks": "exact"
            if transcript.cached is not None
            else "not stored for this match",
        },
        events=transcript.events,
        model_usage=transcript.usage["model"],
        role_usage=transcript.usage["role"],
        started_at=started.isoformat() if started else None,
        completed_at=finished.isoformat() if finished else None,
        total_time=(finished - started).total_seconds() if started and finished else None,
        error=EvalError(message=entry.error, traceback="", traceback_ansi="")
        if entry.error
        else None,
    )
