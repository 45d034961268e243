"""Images under a named norm through the front door (issue 45, docs/mechanisms.md):
`python -m pdbench game=pd mechanism=reputation mechanism.reputation_shown=image
mechanism.norm=stern_judging` with a population of house players and the offline mock runs
offline; every seat's observation before every round is the one the rules give from the stored
actions (its digest), and the partner's image it was shown is the one this test recomputes from
the stored rounds with its own table of the norms (tests/reputation_records.py). Run in this
process (tests/in_process.py)."""

from __future__ import annotations

import json
from pathlib import Path

from in_process import run_front_door
from project_copy import command_env, shared_copy
from reputation_records import expected_images

from pdbench.games.normal_form.rules import rules_of
from pdbench.runners.turns import observation_digest


def test_an_image_run_shows_each_seat_the_image_the_stored_rounds_give(tmp_path: Path) -> None:
    output = tmp_path / "runs"
    done = run_front_door(
        "module",
        [
            "game=pd",
            "mechanism=reputation",
            "mechanism.reputation_shown=image",
            "mechanism.norm=stern_judging",
            "population={mech_reputation:2,mech_random:2,llm_default:2}",
            "mechanism.rounds=5",
            "run.replicates=1",
            f"run.output_dir={output}",
            f"hydra.run.dir={tmp_path / 'hydra'}",
        ],
        cwd=shared_copy(),
        env=command_env(tmp_path),
    )
    assert done.code == 0, done.stdout + done.stderr
    (run_dir,) = [d for d in output.iterdir() if d.is_dir()]
    match = [json.loads(line) for line in (run_dir / "rounds.jsonl").read_text().splitlines()]
    outcome = match[-1]["outcome"]
    assert (outcome["options"]["reputation_shown"], outcome["options"]["norm"]) == (
        "image",
        "stern_judging",
    )
    rules = rules_of(outcome["options"])
    revealed = {line["round"]: line["revealed"] for line in match}
    images = expected_images("stern_judging", rules.seats, revealed, "A0")
    shown = set()
    state = rules.initial_state(outcome["seed"])
    for line in match:
        now = line["round"]
        for seat in rules.seats:
            seen = rules.observe(state, seat)
            assert observation_digest(seen) == line["observation_digest"][seat]
            (group,) = [g for g in revealed[now]["groups"] if seat in g]
            (partner,) = [s for s in group if s != seat]
            assert seen["partner_image"] == ("good" if images[now][partner] else "bad")
            shown.add(seen["partner_image"])
        state = rules.apply(state, line["actions"])
    assert [line["round"] for line in match] == [1, 2, 3, 4, 5]
    assert shown == {"good", "bad"}
