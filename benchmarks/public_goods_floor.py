"""The floor of benchmark 7: a plain numpy loop playing the benchmark's public goods groups (four
fixed house types, partners, contributions only) and writing the same rounds.jsonl lines the
runner writes, without the runner (no plan, no agents, no ledger, no manifest, no aggregates).

    uv run python benchmarks/public_goods_floor.py RUN_DIR OUT.jsonl
    # prints: "floor: LINES lines in WALL s wall, CPU s CPU; same rounds: True"

It reads from RUN_DIR (a pdbench run of that condition) only what a plain loop could not know:
each match's game seed (its ledger line) and the run's names; the labels come from the game's
seeded draw. `check_same_rounds` holds its output to the run's rounds.jsonl (timestamps aside),
so the floor writes what pdbench writes, line for line.
"""

from __future__ import annotations

import hashlib
import re
import sys
import time
from pathlib import Path

import numpy as np
import orjson

from pdbench.games.public_goods.matching import draw_round

SEATS = ("a", "b", "c", "d")
# Seat -> house type, the benchmark's condition (contribution rules of policies.py).
POLICIES = {
    "a": "pgg_conditional_cooperator",
    "b": "pgg_free_rider",
    "c": "pgg_hump",
    "d": "pgg_full_contributor",
}
E, N, LABELS = 20, 4, ("P1", "P2", "P3", "P4")


def contributions(rounds: int, matches: int) -> np.ndarray:
    """rounds x matches x seats: each seat's amount (the others' last mean for a and c)."""
    out = np.zeros((rounds, matches, N), dtype=np.int64)
    out[0, :, 0] = out[0, :, 2] = 10  # half the endowment in round 1
    out[:, :, 3] = E
    for r in range(1, rounds):
        last = out[r - 1]
        mean = (last.sum(axis=1, keepdims=True) - last) / (N - 1)
        out[r, :, 0] = np.floor(mean[:, 0] + 0.5)
        hump = mean[:, 2]
        out[r, :, 2] = np.floor(np.where(hump <= 10, hump, np.maximum(0.0, 20 - hump)) + 0.5)
    return out


def _json_by_label(values: list) -> str:
    return "{" + ",".join(f'"{label}":{v!r}' for label, v in zip(LABELS, values, strict=True)) + "}"


def write_floor(run_dir: Path, out: Path) -> int:
    ledger = [orjson.loads(line) for line in (run_dir / "matches.jsonl").read_bytes().splitlines()]
    first = orjson.loads((run_dir / "rounds.jsonl").open("rb").readline())
    outcome_options = None
    seeds = [entry["seeds"]["game"] for entry in ledger]
    rounds = ledger[0]["n_rounds"]
    played = contributions(rounds, len(seeds))
    earned_units = (E - played) * 20 + played.sum(axis=2, keepdims=True) * 8  # in 1/20
    earned = (earned_units / 20).tolist()
    totals = (np.cumsum(earned_units, axis=0) / 20).tolist()
    amounts = played.tolist()
    shared = {key: first[key] for key in ("run_id", "condition")}
    lines = 0
    with out.open("wb") as sink:
        for m, seed in enumerate(seeds):
            draw = draw_round(seed, 1, N, 1, "partners", rounds)
            order = draw.groups[0]  # seats in label order
            label = dict(zip(SEATS, draw.labels, strict=True))
            head = {
                **shared,
                "replicate": ledger[m]["replicate"],
                "game": "public_goods",
                "family": "turn",
                **{f"agent_{s}": POLICIES[s].upper() for s in SEATS},
            }
            history = ["", "", "", ""]
            score = [0.0] * N
            for r in range(rounds):
                c, e = amounts[r][m], earned[r][m]
                by_label_c = [c[i] for i in order]
                scores = _json_by_label([score[i] for i in order])
                digests = {}
                for i, seat in enumerate(SEATS):
                    seen = (
                        f'{{"endowment":{E},"game":"public-goods","history":[{history[i]}],'
                        f'"messages":[],"multiplier":1.6,"phase":"contribute","players":'
                        f'["P1","P2","P3","P4"],"round_limit":{rounds},"round_number":{r + 1},'
                        f'"scores":{scores},"you":"{label[seat]}","your_score":{score[i]!r}}}'
                    )
                    digests[seat] = hashlib.sha256(seen.encode()).hexdigest()[:16]
                line = {
                    **head,
                    "round": r + 1,
                    "turn": r + 1,
                    "phase": "contribute",
                    "seats": list(SEATS),
                    "observation_digest": digests,
                    "actions": {
                        s: {"type": "contribute", "amount": c[i]} for i, s in enumerate(SEATS)
                    },
                    "revealed": {
                        "round_number": r + 1,
                        "groups": [[SEATS[i] for i in order]],
                        "labels": label,
                        "contributions": dict(zip(SEATS, c, strict=True)),
                        "earnings": dict(zip(SEATS, e, strict=True)),
                    },
                    "timestamp_utc": "",
                }
                score = totals[r][m]
                entry = (
                    f'{{"contributions":{_json_by_label(by_label_c)},'
                    f'"earnings":{_json_by_label([e[i] for i in order])},"punished":{{}},'
                    f'"round_number":{r + 1},"you":'
                )
                for k, i in enumerate(order):
                    mine = f'{entry}"{LABELS[k]}"}}'
                    history[i] = f"{history[i]},{mine}" if history[i] else mine
                if r == rounds - 1:
                    scores_by_seat = dict(zip(SEATS, score, strict=True))
                    best = max(score)
                    leaders = [s for s, v in scores_by_seat.items() if v == best]
                    if outcome_options is None:
                        outcome_options = _options(run_dir)
                    line["outcome"] = {
                        "scores": scores_by_seat,
                        "winner": leaders[0] if len(leaders) == 1 else None,
                        "error": None,
                        "seed": seed,
                        "options": outcome_options,
                    }
                sink.write(orjson.dumps(line) + b"\n")
                lines += 1
    return lines


def _options(run_dir: Path) -> dict:
    """The variant's options as the run stores them (its last line's outcome)."""
    with (run_dir / "rounds.jsonl").open("rb") as handle:
        handle.seek(max(0, (run_dir / "rounds.jsonl").stat().st_size - 8192))
        last = handle.read().splitlines()[-1]
    return orjson.loads(last)["outcome"]["options"]


STAMP = re.compile(rb'"timestamp_utc":"[^"]*"')


def check_same_rounds(run_dir: Path, floor: Path) -> bool:
    """Whether the floor wrote the run's rounds.jsonl, line for line, timestamps aside."""
    with (run_dir / "rounds.jsonl").open("rb") as ours, floor.open("rb") as theirs:
        for a, b in zip(ours, theirs, strict=True):
            if STAMP.sub(b"", a) != STAMP.sub(b"", b):
                return False
    return True


if __name__ == "__main__":
    run, target = Path(sys.argv[1]), Path(sys.argv[2])
    wall, cpu = time.perf_counter(), time.process_time()
    written = write_floor(run, target)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    same = check_same_rounds(run, target)  # not timed
    print(f"floor: {written} lines in {wall:.3f} s wall, {cpu:.3f} s CPU; same rounds: {same}")
    sys.exit(0 if same else 1)
