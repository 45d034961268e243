"""The fast path for policy-only conditions: all replicates of a condition at once, in numpy.

It plays exactly the moves the general match loop plays (the policies' `act_batch` is their `act`
over arrays, with the same seeded draws, and the same trembling-hand flips under noise) and writes
byte-identical rounds.jsonl lines apart from timestamps; tests/integration/test_batch_equivalence.py
holds it to that.
"""

from __future__ import annotations

import numpy as np
import orjson

from pdbench.config.schema import AgentSpec
from pdbench.core.rng import make_rng
from pdbench.runners.plan import PlannedMatch
from pdbench.storage.schema import PER_ROUND_FIELDS
from pdbench.strategies import Policy
from pdbench.strategies.play import BatchArrays, play_arrays

# One match as arrays over its rounds (True = C): the actions played, their payoffs and, with
# noise only, the actions intended; the batch core's arrays, one row of them.
MatchArrays = BatchArrays


def _policy(spec: AgentSpec, planned: PlannedMatch, side: str) -> Policy:
    """The batch-form policy a spec names, given the game from its own side; the caller only
    batches conditions whose two agents have a batch form (`has_batch_form`)."""
    policy = spec.batch_policy(planned.matrix_game.seen_by(side))
    if policy is None:
        raise TypeError(
            f"condition {planned.condition.name}: {spec.display_name} has no batch form; "
            "play it through the match loop"
        )
    return policy


def _tremble_draws(seeds: list[int], noise: float, longest: int) -> np.ndarray:
    """Per match (row) and round, whether the trembling hand flips the move: the loop's draws
    (one uniform per round from the side's noise stream)."""
    return np.stack([make_rng(seed).random(longest) for seed in seeds]) < noise


def play_batch(matches: list[PlannedMatch]) -> list[MatchArrays]:
    """Play matches of one policy-only condition together; each stops at its own length."""
    condition = matches[0].condition
    longest = max(m.n_rounds for m in matches)
    noise = matches[0].noise
    flips = (
        (
            _tremble_draws([m.noise_seed_a for m in matches], noise, longest),
            _tremble_draws([m.noise_seed_b for m in matches], noise, longest),
        )
        if noise > 0
        else None
    )
    played = play_arrays(
        _policy(condition.agent_a, matches[0], "a"),
        _policy(condition.agent_b, matches[0], "b"),
        matches[0].matrix_game,
        longest,
        seeds_a=[m.seed_a for m in matches],
        seeds_b=[m.seed_b for m in matches],
        flips=flips,
    )
    return [
        MatchArrays(
            played.coop_a[i, : m.n_rounds],
            played.coop_b[i, : m.n_rounds],
            played.payoff_a[i, : m.n_rounds],
            played.payoff_b[i, : m.n_rounds],
            None if played.intended_a is None else played.intended_a[i, : m.n_rounds],
            None if played.intended_b is None else played.intended_b[i, : m.n_rounds],
        )
        for i, m in enumerate(matches)
    ]


def _json_numbers(values: np.ndarray) -> list[bytes]:
    """Each number exactly as orjson writes it (so both paths produce the same bytes)."""
    return orjson.dumps(values, option=orjson.OPT_SERIALIZE_NUMPY)[1:-1].split(b",")


_ROUND_NUMBERS: list[bytes] = []  # b"1", b"2", ...: rendered once, shared by every match

# How the batch path renders each per-round field of RoundRecord (its order is RoundRecord's):
# "round" the round number, "outcome" a value fixed by the round's two moves, "cumulative" a
# running total, "constant" the same for every round of the condition, "intended" a value fixed by
# the round's two intended moves (written only in a match with noise, like RoundRecord does).
_FIELD_SOURCE = {
    "round_index": "round",
    "agent_a_action": "outcome",
    "agent_b_action": "outcome",
    "agent_a_payoff": "outcome",
    "agent_b_payoff": "outcome",
    "agent_a_cum_payoff": "cumulative",
    "agent_b_cum_payoff": "cumulative",
    "timestamp_utc": "constant",
    "agent_a_intended": "intended",
    "agent_b_intended": "intended",
    # A match with a negotiation phase never plays here (the runner loops it): never written.
    "conversation": "talk",
}
_UNKNOWN = [name for name in PER_ROUND_FIELDS if name not in _FIELD_SOURCE]
assert not _UNKNOWN, f"the batch path does not know how to render {_UNKNOWN}"


def match_lines(
    base: dict, arrays: MatchArrays, *, timestamp: str, bodies: dict | None = None
) -> bytes:
    """rounds.jsonl lines of one batch-played match: the same keys, order and number formatting
    as RoundRecord.to_json gives a policy-vs-policy match of the general loop.

    Each line is the match's head (RoundRecord's MATCH_FIELDS, the same on every line) followed
    by a body that depends only on the round's moves. Replicates of a deterministic condition
    play the same moves, so `bodies` (one dict per condition: same game, same timestamp) lets
    them share their rendered bodies.
    """
    if len(arrays.coop_a) == 0:
        return b""
    key = tuple(
        None if column is None else column.tobytes()
        for column in (arrays.coop_a, arrays.coop_b, arrays.intended_a, arrays.intended_b)
    )
    if bodies is not None and key in bodies:
        lead, rendered = bodies[key]
    else:
        lead, rendered = _line_bodies(arrays, timestamp)
        if bodies is not None:
            bodies[key] = (lead, rendered)
    head = orjson.dumps(base)[:-1] + b"," + lead
    return head + head.join(rendered)


def _line_bodies(arrays: MatchArrays, timestamp: str) -> tuple[bytes, list[bytes]]:
    """The per-round part of every line: (what comes before the first per-round value, the same
    on every line, and per round the rest up to the newline).

    A line is laid out as fixed text (keys, and values fixed by the round's outcome or constant)
    alternating with per-round values (the round number, running totals). Fixed text is rendered
    once per outcome, so a line is a handful of byte joins however many fields RoundRecord has.
    """
    n = len(arrays.coop_a)
    while len(_ROUND_NUMBERS) < n:
        _ROUND_NUMBERS.append(b"%d" % (len(_ROUND_NUMBERS) + 1))
    # An outcome code per round: bits (a played C, b played C) and, with noise, after them
    # (a intended C, b intended C). Every value fixed by the outcome is rendered once per code.
    noisy = arrays.intended_a is not None and arrays.intended_b is not None
    outcomes = arrays.coop_a.astype(np.int8) * 2 + arrays.coop_b  # 3 = CC, 2 = CD, 1 = DC, 0 = DD
    if arrays.intended_a is not None and arrays.intended_b is not None:
        outcomes = outcomes * 4 + arrays.intended_a.astype(np.int8) * 2 + arrays.intended_b
    shift = 2 if noisy else 0
    firsts = {int(o): int(i) for o, i in zip(*np.unique(outcomes, return_index=True), strict=True)}

    def action(cooperated: int) -> bytes:
        return b'"C"' if cooperated else b'"D"'

    def fixed_value(name: str, outcome: int) -> bytes:
        if _FIELD_SOURCE[name] == "constant":
            return orjson.dumps(timestamp)
        first = firsts[outcome]
        played = outcome >> shift
        return {
            "agent_a_action": lambda: action(played >> 1),
            "agent_b_action": lambda: action(played & 1),
            "agent_a_payoff": lambda: orjson.dumps(float(arrays.payoff_a[first])),
            "agent_b_payoff": lambda: orjson.dumps(float(arrays.payoff_b[first])),
            "agent_a_intended": lambda: action((outcome >> 1) & 1),
            "agent_b_intended": lambda: action(outcome & 1),
        }[name]()

    fixed: list[dict[int, bytes]] = [dict.fromkeys(firsts, b"")]  # fixed text before value k
    values: list[list[bytes]] = []  # per-round values, one list per value field
    # The intended actions are written only with noise, as RoundRecord.to_json leaves them out.
    written = [
        n
        for n in PER_ROUND_FIELDS
        if _FIELD_SOURCE[n] != "talk" and (noisy or _FIELD_SOURCE[n] != "intended")
    ]
    for index, name in enumerate(written):
        key = (b"," if index else b"") + orjson.dumps(name) + b":"
        for outcome in firsts:
            fixed[-1][outcome] += key
        if _FIELD_SOURCE[name] in ("outcome", "constant", "intended"):
            for outcome in firsts:
                fixed[-1][outcome] += fixed_value(name, outcome)
            continue
        if _FIELD_SOURCE[name] == "round":
            values.append(_ROUND_NUMBERS[:n])
        else:
            payoffs = arrays.payoff_a if name == "agent_a_cum_payoff" else arrays.payoff_b
            values.append(_json_numbers(np.cumsum(payoffs)))
        fixed.append(dict.fromkeys(firsts, b""))
    for outcome in firsts:
        fixed[-1][outcome] += b"}\n"

    outcome_list = outcomes.tolist()
    # The text before the first value is the same for every outcome when the line starts with a
    # per-round value (round_index): it moves into the match's head.
    lead_options = set(fixed[0].values())
    lead = lead_options.pop() if len(lead_options) == 1 else b""
    columns: list[list[bytes]] = [] if lead else [[fixed[0][o] for o in outcome_list]]
    for value_column, after in zip(values, fixed[1:], strict=True):
        columns.append(value_column)
        columns.append([after[o] for o in outcome_list])
    return lead, [b"".join(parts) for parts in zip(*columns, strict=False)]
