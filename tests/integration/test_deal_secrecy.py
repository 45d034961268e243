"""Issue 40's worst case, as the red team played it: a sandboxed Liar's Dice agent file that reads
nothing it may not read, but replays the match's deal from public numbers (the run seed, the
replicate in its working folder's name, pdbench's open code) and plays on the opponent's dice.

It plays a few dozen short matches against a house player beside its own honest strategy (the
same file with the cheat switched off, in a second condition: the same deals and the same house
draws, replicate for replicate). A deal that public numbers predict lets it see the opponent's
hand at every showdown and win nearly every match; a keyed deal leaves it at chance: its
computed dice match its own no more often than a random roll would, and it wins no more than the
honest baseline.
"""

from __future__ import annotations

import math
from pathlib import Path

import orjson
import pytest

from pdbench.agents.arena.log import AGENT_GUTTER
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
CHEAT = ROOT / "tests" / "fixtures" / "arena" / "cheat_replay_deal.py"
RUN_SEED = 42  # the examples' seed: public
REPLICATES = 16
DICE = 3  # short matches: at most five rounds


def experiment(tmp_path: Path) -> Path:
    """The cheater and its honest twin in seat b against the house's probability player, which
    opens (the honest twin then wins about two matches in five: room to see a cheat)."""
    agents = tmp_path / "agents"
    agents.mkdir()
    source = CHEAT.read_text().replace("RUN_SEED = 0", f"RUN_SEED = {RUN_SEED}")
    (agents / "cheat.py").write_text(source)
    (agents / "honest.py").write_text(source.replace("CHEAT = True", "CHEAT = False"))
    path = tmp_path / "deal.yaml"
    path.write_text(
        f"""
run: {{seed: {RUN_SEED}, replicates: {REPLICATES}, max_concurrency: 4}}
game: {{id: liars_dice, options: {{dice_per_player: {DICE}}}}}
conditions:
  - name: cheat
    agent_a: liars_probability
    agent_b: {{type: arena, path: {agents / "cheat.py"}}}
  - name: honest
    agent_a: liars_probability
    agent_b: {{type: arena, path: {agents / "honest.py"}}}
"""
    )
    return path


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    tmp_path = tmp_path_factory.mktemp("deal")
    loaded = load(experiment(tmp_path), [f"run.output_dir={tmp_path / 'runs'}"], project_root=ROOT)
    outcome = run_experiment(loaded)
    assert outcome.status == "complete", outcome.error
    return outcome.run_dir


def lines_of(run_dir: Path, condition: str) -> list[dict]:
    lines = [orjson.loads(line) for line in (run_dir / "rounds.jsonl").read_bytes().splitlines()]
    return [line for line in lines if line["condition"] == condition]


def wins_of_b(run_dir: Path, condition: str) -> int:
    outcomes = [line["outcome"] for line in lines_of(run_dir, condition) if "outcome" in line]
    assert len(outcomes) == REPLICATES
    return sum(outcome["winner"] == "b" for outcome in outcomes)


def deal_notes(run_dir: Path, condition: str) -> dict[tuple[int, int], tuple[bool, list[int]]]:
    """(replicate, round) -> (whether its computed dice were its own, the opponent's it computed),
    from the cheater's log (the last note of each round)."""
    notes = {}
    for replicate in range(REPLICATES):
        log = run_dir / "agent_logs" / f"{condition}__rep{replicate}__b.log"
        for shown in log.read_text().splitlines():
            line = shown.removeprefix(AGENT_GUTTER)  # what the agent printed
            if line.startswith("DEAL round "):
                head, _, dice = line.partition(" opponent ")
                round_number = int(head.split()[2].rstrip(":"))
                notes[(replicate, round_number)] = (head.endswith("yes"), orjson.loads(dice))
    return notes


def showdowns(run_dir: Path, condition: str) -> dict[tuple[int, int], list[int]]:
    """(replicate, round) -> the opponent's (seat a's) dice as its showdown revealed them."""
    found = {}
    for line in lines_of(run_dir, condition):
        shown = (line.get("revealed") or {}).get("showdown")
        if shown is not None:
            found[(line["replicate"], shown["round"])] = shown["dice"]["a"]
    return found


def test_the_cheater_cannot_compute_the_opponents_dice(played):
    notes, revealed = deal_notes(played, "cheat"), showdowns(played, "cheat")
    assert len(revealed) >= REPLICATES  # every match has at least one showdown
    knew = [key for key, dice in revealed.items() if notes[key] == (True, dice)]
    predicted_own = sum(hit for hit, _ in notes.values())
    # A random roll of its own 1-3 dice matches by chance with probability at most 1/6 (two
    # sorted dice: 1/36 to 2/36; one die: 1/6): well under half of the rounds, whereas a replayed
    # deal matches in every round and names the opponent's hand at every showdown.
    assert knew == [] or len(knew) <= len(revealed) / 3, f"knew {len(knew)}/{len(revealed)}"
    assert predicted_own <= len(notes) / 3, f"computed its own dice in {predicted_own}/{len(notes)}"


def test_the_cheater_wins_no_more_than_its_honest_twin(played):
    cheat, honest = wins_of_b(played, "cheat"), wins_of_b(played, "honest")
    # Paired matches (the same deals and house draws): at chance the cheater is its honest twin.
    # The bound allows two standard deviations of a difference of two win counts.
    margin = 2 * math.sqrt(2 * REPLICATES * 0.25)
    assert cheat <= honest + margin, f"cheater won {cheat}/{REPLICATES}, honest {honest}"
