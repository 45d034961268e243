"""The fast path for policy-only conditions: all replicates of a condition at once, in numpy.

It plays exactly the moves the general match loop plays (the policies' `act_batch` is their `act`
over arrays, with the same seeded draws) and writes byte-identical rounds.jsonl lines apart from
timestamps; tests/integration/test_batch_equivalence.py holds it to that.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdbench.agents.policy import LastRounds, Policy, make_policy
from pdbench.runners.plan import PlannedMatch
from pdbench.spec import ConditionSpec, PolicyAgentSpec


@dataclass(frozen=True)
class MatchArrays:
    """One match as arrays over its rounds (True = C)."""

    coop_a: np.ndarray
    coop_b: np.ndarray
    payoff_a: np.ndarray
    payoff_b: np.ndarray


def is_batchable(condition: ConditionSpec) -> bool:
    return isinstance(condition.agent_a, PolicyAgentSpec) and isinstance(
        condition.agent_b, PolicyAgentSpec
    )


def _policy(spec: PolicyAgentSpec, planned: PlannedMatch) -> Policy:
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


def match_lines(base: dict, arrays: MatchArrays, *, timestamp: str) -> bytes:
    """rounds.jsonl lines of one batch-played match: the same keys, order and number formatting
    as `round_lines` gives a policy-vs-policy match of the general loop."""
    import orjson

    n = len(arrays.coop_a)
    if n == 0:
        return b""
    head = orjson.dumps(base)[:-1] + b',"round_index":'
    outcome = {}
    for a in (True, False):
        for b in (True, False):
            outcome[(a, b)] = (
                b',"agent_a_action":"'
                + (b"C" if a else b"D")
                + b'","agent_b_action":"'
                + (b"C" if b else b"D")
                + b'","agent_a_payoff":'
            )
    pay_a = _json_numbers(arrays.payoff_a)
    pay_b = _json_numbers(arrays.payoff_b)
    cum_a = _json_numbers(np.cumsum(arrays.payoff_a))
    cum_b = _json_numbers(np.cumsum(arrays.payoff_b))
    tail = b',"timestamp_utc":' + orjson.dumps(timestamp) + b"}\n"
    coop_a = arrays.coop_a.tolist()
    coop_b = arrays.coop_b.tolist()
    return b"".join(
        b"".join(
            (
                head,
                b"%d" % (t + 1),
                outcome[(coop_a[t], coop_b[t])],
                pay_a[t],
                b',"agent_b_payoff":',
                pay_b[t],
                b',"agent_a_cum_payoff":',
                cum_a[t],
                b',"agent_b_cum_payoff":',
                cum_b[t],
                tail,
            )
        )
        for t in range(n)
    )
