"""The fast path for policy-only conditions: all replicates of a condition at once, in numpy.

It plays exactly the moves the general match loop plays (the policies' `act_batch` is their `act`
over arrays, with the same seeded draws) and writes byte-identical rounds.jsonl lines apart from
timestamps; tests/integration/test_batch_equivalence.py holds it to that.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdbench.config.schema import AgentSpec, PolicyAgentSpec
from pdbench.runners.plan import PlannedMatch
from pdbench.strategies import LastRounds, Policy, make_policy


@dataclass(frozen=True)
class MatchArrays:
    """One match as arrays over its rounds (True = C)."""

    coop_a: np.ndarray
    coop_b: np.ndarray
    payoff_a: np.ndarray
    payoff_b: np.ndarray


def _policy(spec: AgentSpec, planned: PlannedMatch) -> Policy:
    """The batch-form policy a spec names; the caller only batches conditions whose two agents
    are policies with a batch form (`PolicyAgentSpec.has_batch_form`)."""
    if not (isinstance(spec, PolicyAgentSpec) and spec.has_batch_form):
        raise TypeError(
            f"condition {planned.condition.name}: {spec.display_name} has no batch form; "
            "play it through the match loop"
        )
    return make_policy(spec.policy, planned.game, spec.params)


def play_batch(matches: list[PlannedMatch]) -> list[MatchArrays]:
    """Play matches of one policy-only condition together; each stops at its own length."""
    condition = matches[0].condition
    game = matches[0].game
    longest = max(m.n_rounds for m in matches)
    agent_a = _policy(condition.agent_a, matches[0])
    agent_b = _policy(condition.agent_b, matches[0])
    agent_a.reset_batch([m.seed_a for m in matches], longest)
    agent_b.reset_batch([m.seed_b for m in matches], longest)

    # payoff_table[side][a_defects, b_defects]
    p = game.payoffs
    table_a = np.array([[p.R, p.S], [p.T, p.P]])
    table_b = np.array([[p.R, p.T], [p.S, p.P]])
    size = len(matches)
    coop_a = np.empty((size, longest), dtype=bool)
    coop_b = np.empty((size, longest), dtype=bool)
    pay_a = np.empty((size, longest))
    pay_b = np.empty((size, longest))
    last_a = last_b = None
    for t in range(longest):
        a = agent_a.act_batch(t + 1, last_a)
        b = agent_b.act_batch(t + 1, last_b)
        coop_a[:, t], coop_b[:, t] = a, b
        pay_a[:, t] = table_a[(~a).astype(np.intp), (~b).astype(np.intp)]
        pay_b[:, t] = table_b[(~a).astype(np.intp), (~b).astype(np.intp)]
        last_a = LastRounds(own_coop=a, opponent_coop=b, own_payoff=pay_a[:, t])
        last_b = LastRounds(own_coop=b, opponent_coop=a, own_payoff=pay_b[:, t])
    return [
        MatchArrays(
            coop_a[i, : m.n_rounds],
            coop_b[i, : m.n_rounds],
            pay_a[i, : m.n_rounds],
            pay_b[i, : m.n_rounds],
        )
        for i, m in enumerate(matches)
    ]


def _json_numbers(values: np.ndarray) -> list[bytes]:
    """Each number exactly as orjson writes it (so both paths produce the same bytes)."""
    import orjson

    return orjson.dumps(values, option=orjson.OPT_SERIALIZE_NUMPY)[1:-1].split(b",")


_ROUND_NUMBERS: list[bytes] = []  # b"1", b"2", ...: rendered once, shared by every match


def match_lines(
    base: dict, arrays: MatchArrays, *, timestamp: str, bodies: dict | None = None
) -> bytes:
    """rounds.jsonl lines of one batch-played match: the same keys, order and number formatting
    as `round_lines` gives a policy-vs-policy match of the general loop.

    Each line is the match's head (run, condition, replicate, horizon: the same on every line)
    followed by a body that depends only on the round's moves. Replicates of a deterministic
    condition play the same moves, so `bodies` (one dict per condition: same game, same
    timestamp) lets them share their rendered bodies.
    """
    import orjson

    if len(arrays.coop_a) == 0:
        return b""
    head = orjson.dumps(base)[:-1] + b',"round_index":'
    key = (arrays.coop_a.tobytes(), arrays.coop_b.tobytes())
    rendered = bodies.get(key) if bodies is not None else None
    if rendered is None:
        rendered = _line_bodies(arrays, timestamp)
        if bodies is not None:
            bodies[key] = rendered
    return head + head.join(rendered)


def _line_bodies(arrays: MatchArrays, timestamp: str) -> list[bytes]:
    """Per round: everything of the line after `"round_index":`, newline included."""
    import orjson

    n = len(arrays.coop_a)
    while len(_ROUND_NUMBERS) < n:
        _ROUND_NUMBERS.append(b"%d" % (len(_ROUND_NUMBERS) + 1))
    tail = b',"timestamp_utc":' + orjson.dumps(timestamp) + b"}\n"
    outcomes = arrays.coop_a.astype(np.int8) * 2 + arrays.coop_b  # 3 = CC, 2 = CD, 1 = DC, 0 = DD
    middle: dict[int, bytes] = {}
    for outcome, first in zip(*np.unique(outcomes, return_index=True), strict=True):
        action_a = b"C" if outcome >= 2 else b"D"
        action_b = b"C" if outcome % 2 else b"D"
        middle[int(outcome)] = b"".join(
            (
                b',"agent_a_action":"',
                action_a,
                b'","agent_b_action":"',
                action_b,
                b'","agent_a_payoff":',
                orjson.dumps(float(arrays.payoff_a[first])),
                b',"agent_b_payoff":',
                orjson.dumps(float(arrays.payoff_b[first])),
                b',"agent_a_cum_payoff":',
            )
        )
    cum_b_key = b',"agent_b_cum_payoff":'
    return [
        b"".join((number, middle[outcome], cum_a, cum_b_key, cum_b, tail))
        for number, outcome, cum_a, cum_b in zip(
            _ROUND_NUMBERS,
            outcomes.tolist(),
            _json_numbers(np.cumsum(arrays.payoff_a)),
            _json_numbers(np.cumsum(arrays.payoff_b)),
            strict=False,  # _ROUND_NUMBERS may be longer than this match
        )
    ]
