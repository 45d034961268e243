"""Record Axelrod-Python's play as the reference pdbench's policies are held to.

    uv run python scripts/record_axelrod_reference.py [--venv /tmp/axl]

Axelrod is never a dependency of pdbench: this script makes a throwaway virtual environment
outside the repository (`uv venv /tmp/axl`, then `uv pip install axelrod==4.14.0`), runs the
recording there (this same file with --inside, which imports axelrod and never pdbench), and
writes tests/fixtures/axelrod_reference/matches.json:

- `players`: for each pdbench policy (with its parameters), the Axelrod player that plays it;
- `matches`: every ordered pair of those players, the moves of a 200-round match in Axelrod's
  default game (R=3, S=0, T=5, P=1);
- `tournament`: an Axelrod tournament of the six classic strategies (turns 200, repetitions 5,
  seed 1): ranking, mean payoff per turn of row against column, and which entries are random.

tests/unit/test_strategies_axelrod.py replays every recorded match through pdbench. Re-run this
script when a policy joins the list below, and say why in the commit.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

AXELROD_VERSION = "4.14.0"
TURNS = 200
PROJECT = Path(__file__).resolve().parents[1]
FIXTURE = PROJECT / "tests" / "fixtures" / "axelrod_reference" / "matches.json"

# pdbench policy -> (its params, the Axelrod player that plays the same, as a Python expression
# evaluated with `axl` = the axelrod package). Only deterministic players: a random player's
# moves depend on its random stream, which pdbench does not share with Axelrod.
PLAYERS: dict[str, tuple[dict[str, Any], str]] = {
    "allc": ({}, "axl.Cooperator()"),
    "alld": ({}, "axl.Defector()"),
    "tft": ({}, "axl.TitForTat()"),
    "grim": ({}, "axl.Grudger()"),
    "wsls": ({}, "axl.WinStayLoseShift()"),
    "stft": ({}, "axl.SuspiciousTitForTat()"),
    "tf2t": ({}, "axl.TitFor2Tats()"),
    "alternator": ({}, "axl.Alternator()"),
    "gradual": ({}, "axl.Gradual()"),
    "prober": ({}, "axl.Prober()"),
    # A cycle as long as the match is a fixed script: defect in round 1, cooperate after.
    "defect_at": ({"rounds": [1]}, f'axl.Cycler("D" + "C" * {TURNS - 1})'),
    "scripted": ({"moves": "CCD"}, 'axl.Cycler("CCD")'),
    # All four probabilities 0 or 1: deterministic in Axelrod too (it draws nothing).
    "memory_one": ({}, "axl.MemoryOnePlayer((1, 0, 0, 1), axl.Action.C)"),
}

# Registered pdbench policies that have no deterministic Axelrod counterpart to record.
NOT_RECORDED: dict[str, dict[str, str]] = {
    "gtft": {"axelrod": "GTFT()", "why": "stochastic: its draws come from pdbench's own stream"},
    "random": {"axelrod": "Random(p)", "why": "stochastic"},
}

TOURNAMENT_PLAYERS = {
    "allc": "axl.Cooperator()",
    "alld": "axl.Defector()",
    "tft": "axl.TitForTat()",
    "grim": "axl.Grudger()",
    "gtft": "axl.GTFT()",
    "wsls": "axl.WinStayLoseShift()",
}
TOURNAMENT = {"turns": 200, "repetitions": 5, "seed": 1}


# --- inside the throwaway venv: axelrod only ----------------------------------------------------


def record_inside() -> dict[str, Any]:
    import axelrod as axl

    def player(expression: str) -> Any:
        return eval(expression, {"axl": axl})  # the expressions above, nothing else

    def moves(history: list) -> str:
        return "".join(str(action) for action in history)

    matches = []
    for name_a, (_, expression_a) in PLAYERS.items():
        for name_b, (_, expression_b) in PLAYERS.items():
            played = axl.Match((player(expression_a), player(expression_b)), turns=TURNS).play()
            matches.append(
                {
                    "a": name_a,
                    "b": name_b,
                    "moves_a": moves([a for a, _ in played]),
                    "moves_b": moves([b for _, b in played]),
                }
            )

    names = list(TOURNAMENT_PLAYERS)
    players = [player(expression) for expression in TOURNAMENT_PLAYERS.values()]
    random_player = [bool(axl.Classifiers["stochastic"](p)) for p in players]
    results = axl.Tournament(players, **TOURNAMENT).play(progress_bar=False)
    size = len(players)
    tournament = {
        **TOURNAMENT,
        "game": {"R": 3, "S": 0, "T": 5, "P": 1},
        "players": names,
        "axelrod_players": {name: e.removeprefix("axl.") for name, e in TOURNAMENT_PLAYERS.items()},
        "ranking": [names[i] for i in results.ranking],
        "axelrod_ranked_names": list(results.ranked_names),
        "median_normalised_score": {
            names[i]: float(sorted(scores)[len(scores) // 2])
            for i, scores in enumerate(results.normalised_scores)
        },
        "mean_payoff_matrix": [[float(x) for x in row] for row in results.payoff_matrix],
        # An entry is stochastic when either player is (as Axelrod classifies it); the
        # repetitions of a stochastic entry may still agree (GTFT draws only after a D).
        "stochastic": [
            [random_player[i] or random_player[j] for j in range(size)] for i in range(size)
        ],
        "repetitions_differ": [
            [len(set(results.payoffs[i][j])) > 1 for j in range(size)] for i in range(size)
        ],
    }
    return {"axelrod_version": axl.__version__, "matches": matches, "tournament": tournament}


# --- outside: make the venv, run the inside, write the fixture ----------------------------------


def make_venv(venv: Path) -> Path:
    uv = shutil.which("uv")
    if uv is None:
        raise SystemExit("error: uv is needed to make the throwaway venv (pip install uv)")
    if PROJECT in venv.resolve().parents or venv.resolve() == PROJECT:
        raise SystemExit(f"error: {venv} is inside the repository; choose a folder outside it")
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([uv, "venv", str(venv)], check=True, cwd=PROJECT)
    subprocess.run(
        [uv, "pip", "install", "--python", str(python), f"axelrod=={AXELROD_VERSION}"],
        check=True,
        cwd=PROJECT,
    )
    return python


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path("/tmp/axl"))
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        json.dump(record_inside(), sys.stdout)
        return 0

    python = make_venv(args.venv)
    inside = subprocess.run(
        [str(python), "-W", "ignore", str(Path(__file__).resolve()), "--inside"],
        check=True,
        capture_output=True,
        text=True,
    )
    recorded = json.loads(inside.stdout)
    if recorded["axelrod_version"] != AXELROD_VERSION:
        raise SystemExit(f"error: recorded with axelrod {recorded['axelrod_version']}")
    fixture = {
        "about": "Axelrod-Python's play, recorded by scripts/record_axelrod_reference.py; "
        "replayed by tests/unit/test_strategies_axelrod.py",
        "axelrod_version": recorded["axelrod_version"],
        "turns": TURNS,
        "game": {"R": 3, "S": 0, "T": 5, "P": 1},
        "players": {
            name: {"params": params, "axelrod": expression.removeprefix("axl.")}
            for name, (params, expression) in PLAYERS.items()
        },
        "not_recorded": NOT_RECORDED,
        "matches": recorded["matches"],
        "tournament": recorded["tournament"],
    }
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"wrote {FIXTURE.relative_to(PROJECT)}: {len(fixture['matches'])} matches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
