"""`pdbench train my_agent.py`: a short match of the user's agent file against a house agent of
its game, shown live turn by turn: what the agent saw (its round_state), what it answered and
what it printed, then the result. The match is stored as a normal run (data/runs/train-...), so
the viewer, the analyses and the ladder read it like any other.

The file is the user's code being debugged, so its own tracebacks are shown (pdbench's frames cut
away), unlike elsewhere; a file that cannot play (not Python, no Agent, an unknown GAME) or a turn
it failed (an exception in a hook, a wrong answer, a timeout) exits 2.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pdbench.cli import exits
from pdbench.core.visible import visible

if TYPE_CHECKING:
    import pandas as pd

    from pdbench.cli.train_table import TrainingTable
    from pdbench.config.agent_identity import AgentIdentity

# A note on a turn ("round 2 turn 5 (commit) saw: {...}", "(intro) answered: {...}"): the place
# is pdbench's (arena.turns.turn_label), so it is matched by its own shape, never by a word that
# the agent's answer quoted after it could also hold.
TRACE_NOTE = re.compile(
    r"(?P<where>(?:round \d+ )?(?:turn \d+ )?\([^()]*\)|round \d+(?: turn \d+)?) "
    r"(?P<kind>saw|answered): (?P<rest>.*)"
)


def train(
    agent_file: Annotated[
        Path, typer.Argument(help="Your agent file (class Agent, AgentDuel shape).")
    ],
    against: Annotated[
        str | None,
        typer.Option(
            help="The house agent to play in every other seat: a name from conf/agent/ "
            "(pdbench list agents); default: the game's training opponents (tft in a 2x2 "
            "game; docs/ladder.md lists each game's)."
        ),
    ] = None,
    rounds: Annotated[
        int | None,
        typer.Option(
            help="Rounds of the match; default: the game's (5 in split or steal). A game whose "
            "rules end a match (Liar's Dice, Passcode, the debates) refuses it."
        ),
    ] = None,
    seats: Annotated[
        int | None,
        typer.Option(
            help="Players in the match, for a game whose number varies (public goods); "
            "default: the game's."
        ),
    ] = None,
    game: Annotated[
        str | None,
        typer.Option(help="The game, for a file without GAME (e.g. prisoners-dilemma)."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Run seed (random house agents, horizon).")] = 0,
    output_dir: Annotated[
        str | None,
        typer.Option(help="Where the run folder goes (run.output_dir); default: data/runs."),
    ] = None,
) -> None:
    """Play your agent file against a house agent of its game and watch it think, turn by turn;
    stores the match as a run under data/runs/train-<file>-<hash>/."""
    from pdbench.agents.arena.training import AgentFileError, declared_game, game_of
    from pdbench.cli.bounds import SEED_MAX, check_between
    from pdbench.cli.train_table import training_table

    check_between("--seed", seed, 0, SEED_MAX)
    if rounds is not None:
        check_between("--rounds", rounds, 1, 1000)
    try:
        declared = declared_game(agent_file)
    except AgentFileError as problem:
        exits.say(f"error: {problem}")
        for line in problem.shown.splitlines():  # the file's own line, as Python shows it
            exits.say(line)
        raise typer.Exit(exits.BAD_INPUT) from None
    game_id = game_of(agent_file, declared, game)
    try:
        table = training_table(game_id, against, rounds, seats)
    except ValueError as problem:
        exits.say(f"error: {problem}")
        raise typer.Exit(exits.BAD_INPUT) from None
    _play(agent_file.resolve(), game_id, table, seed, output_dir)


def _game_option(game_id: str, project_root: Path) -> str:
    """The conf/game option to train in: AgentDuel's form of the game when there is one (split or
    steal with its talk phase), else the game itself."""
    agentduel = f"agentduel_{game_id}"
    return (
        agentduel if (project_root / "conf" / "game" / f"{agentduel}.yaml").is_file() else game_id
    )


def _play(
    path: Path, game_id: str, table: TrainingTable, seed: int, output_dir: str | None
) -> None:
    from pdbench.agents.arena import agent_log_path
    from pdbench.agents.base import AgentContext
    from pdbench.config.tree import find_project_root
    from pdbench.core.rng import UNKEYED
    from pdbench.runners.experiment import run_experiment
    from pdbench.runners.prepare import load

    root = find_project_root()
    from pdbench.config.tree import group_options
    from pdbench.core.errors import PdbenchError, unknown_choice

    house = [name for name in group_options("agent", root) if name != "arena"]
    for against in table.opponents.values():
        if against not in house:
            raise PdbenchError(unknown_choice("--against", against, house))
    # A file inside the project is named from its root (as a config names it), so the run's
    # condition name, id and log names do not depend on where the project is checked out.
    named = path.relative_to(root) if path.is_relative_to(root) else path
    overrides = [
        f"game={_game_option(game_id, root)}",
        "agent_a=arena",
        f"agent_a.path={named}",
        "agent_a.trace=true",
        *(f"{seat}={against}" for seat, against in table.opponents.items()),
        "run.replicates=1",
        f"run.seed={seed}",
        *table.overrides,
        *([f"run.output_dir={output_dir}"] if output_dir is not None else []),
    ]
    loaded = load(root / "conf" / "config.yaml", overrides)
    for warning in loaded.warnings:
        exits.say(f"warning: {warning}")
    condition = loaded.spec.conditions[0]
    run_id = f"train-{path.stem}-{loaded.config_hash[:10]}"
    run_dir = loaded.run_dir.parent / run_id
    context = AgentContext(  # only to name the agent's log file: no match is dealt with it
        run_seed=loaded.spec.run.seed,
        condition=condition.name,
        replicate=0,
        side="a",
        project_root=root,
        deal=UNKEYED,
        run_dir=run_dir,
    )
    log_path = agent_log_path(context, path)
    from pdbench.cli.train_table import match_length

    players = condition.players
    others = ", ".join(spec.display_name for side, spec in players.items() if side != "agent_a")
    third = "".join(f", {role}: {who}" for role, who in condition.third_party_labels.items())
    _echo(
        f"training {path.name} ({condition.agent_a.display_name}) against "
        f"{others} in {condition.game.id}{third}: {match_length(condition)}"
    )
    from pdbench.runners.stopping import RunInterrupted

    watcher = LogWatcher(log_path)
    watcher.start()
    try:
        outcome = run_experiment(loaded, run_dir=run_dir, run_id=run_id, command="pdbench train")
    except RunInterrupted as stopped:
        watcher.stop()
        raise typer.Exit(exits.say_interrupted(stopped)) from None
    finally:
        watcher.stop()
    if outcome.matches_skipped and not outcome.matches_planned - outcome.matches_skipped:
        _echo("(this file and these options were trained before: the stored match)")
    failed, aborted = _show_result(run_dir, path.stem)
    from pdbench.cli.report import shown_path

    _echo(f"run dir: {shown_path(run_dir)}")
    _echo(f"agent log: {shown_path(log_path)}")
    _echo(f"look at it: uv run pdbench ui {shown_path(run_dir)}")
    if aborted:  # the agent never played (it could not start): the file is what to fix
        why = aborted.removeprefix("aborted: ")
        exits.say(f"error: {path}: the match was aborted, so nothing is rated ({why})")
        raise typer.Exit(exits.BAD_INPUT)
    if outcome.status != "complete":
        exits.say_unfinished(outcome.status, outcome.matches_waiting, outcome.error)
        raise typer.Exit(exits.status_code(outcome.status))
    if failed:
        exits.say(f"error: {path}: {failed} turn(s) of your agent failed (shown above)")
        raise typer.Exit(exits.BAD_INPUT)


def _show_result(run_dir: Path, name: str) -> tuple[int, str | None]:
    """Print the match's result; return how many of the agent's turns failed, and why the match
    was aborted if it was (its first line; the agent's log shows the rest above)."""
    from pdbench.ladder.readers import read_outcomes

    failed = 0
    for line in (run_dir / "rounds.jsonl").read_text().splitlines():
        record = json.loads(line)
        failed += bool(record.get("agent_a_error"))  # a 2x2 round
        failed += bool(record.get("decisions", {}).get("a", {}).get("error"))  # a turn
        failed += sum(
            1
            for said in record.get("conversation") or []
            if said["speaker"] == "a" and said["error"]
        )
    outcomes = read_outcomes(run_dir)
    for _, match in outcomes.table.groupby("match_id", sort=False):
        _echo(f"result: {_result_line(match, outcomes.agents)}")
    aborted = None
    for skipped in outcomes.skipped:
        _echo(f"result: none ({skipped.reason.splitlines()[0]})")
        aborted = skipped.reason.splitlines()[0]
    return failed, aborted


def _result_line(match: pd.DataFrame, agents: dict[str, AgentIdentity]) -> str:
    """One match's result, seat by seat in seat order: "A 3 - 5 B: B wins" for a pair (as the
    ladder reads it), "A 30 - B 25 - C 41: C wins" for a group (the best score wins; equal best
    scores are a draw between them)."""
    rows = match.sort_values("seat")
    names = [agents[str(key)].name for key in rows["agent"]]
    scores = [float(score) for score in rows["score"]]
    best = [name for name, score in zip(names, scores, strict=True) if score == max(scores)]
    if len(best) == len(names):
        winner = "a draw"
    elif len(best) == 1:
        winner = f"{best[0]} wins"
    else:
        winner = "a draw between " + ", ".join(best)
    if len(names) == 2:
        return f"{names[0]} {scores[0]:g} - {scores[1]:g} {names[1]}: {winner}"
    shown = " - ".join(f"{name} {score:g}" for name, score in zip(names, scores, strict=True))
    return f"{shown}: {winner}"


def _shortened(round_state: str) -> str:
    """A round_state with its history cut to the last round (the log keeps all of it)."""
    try:
        seen = json.loads(round_state)
    except ValueError:
        return round_state
    for key in ("history", "rounds_history"):  # a turn game's finished rounds
        history = seen.get(key) if isinstance(seen, dict) else None
        if isinstance(history, list) and len(history) > 1:
            seen[key] = [f"... {len(history) - 1} earlier rounds", history[-1]]
    return json.dumps(seen, ensure_ascii=False)


class LogWatcher:
    """Prints the agent's log as it grows: pdbench's notes (what the agent saw and answered, a
    traceback cut to the user's frames) and the agent's own prints.

    Only pdbench's own lines start at column 0 (the turn a note is about, then the result);
    everything the agent made (its prints, its answers, its tracebacks) is shown indented under
    a label and with its control characters spelled out (pdbench.core.visible). The log tells
    the agent's lines from pdbench's notes (pdbench.agents.arena.log), so a print of the
    agent's that reads like a note is shown as printed."""

    def __init__(self, path: Path, every_s: float = 0.05) -> None:
        self.path = path
        self.every_s = every_s
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._follow, name="train-log", daemon=True)
        self._offset = 0
        self._partial = ""
        self._traceback: list[str] | None = None

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        if self._thread.is_alive():
            self._done.set()
            self._thread.join()

    def _follow(self) -> None:
        while not self._done.wait(self.every_s):
            self._read()
        self._read()
        if self._partial:
            self._show(self._partial)
        self._end_traceback()

    def _read(self) -> None:
        try:
            with open(self.path, "rb") as log:
                log.seek(self._offset)
                data = log.read()
        except FileNotFoundError:
            return
        self._offset += len(data)
        text = self._partial + data.decode("utf-8", "replace")
        *lines, self._partial = text.split("\n")
        for line in lines:
            self._show(line)

    def _show(self, line: str) -> None:
        from pdbench.agents.arena.log import read_log_line

        kind, text = read_log_line(line)
        if kind == "note continued":
            self._show_continued(text)
            return
        self._end_traceback()
        if kind == "agent":
            _echo(f"  printed:  {text}")
            return
        traced = TRACE_NOTE.match(text)
        if traced is None:
            _echo(f"  pdbench:  {text}")
        elif traced["kind"] == "saw":
            _echo(traced["where"])
            _echo(f"  saw:      {_shortened(traced['rest'])}")
        else:
            _echo(f"  answered: {traced['rest']}")

    def _show_continued(self, text: str) -> None:
        """A further line of a note: a traceback is gathered and shown cut to the user's own
        frames; anything else as it is, indented."""
        if self._traceback is not None:
            self._traceback.append(text)
            if text and not text.startswith(" ") and not text.startswith("Traceback"):
                self._end_traceback()  # the exception's own line ends the traceback
        elif text.startswith("Traceback (most recent call last):"):
            self._traceback = [text]
        else:
            _echo(f"  | {text}")

    def _end_traceback(self) -> None:
        from pdbench.agents.arena.training import own_traceback

        if self._traceback is None:
            return
        for line in own_traceback(self._traceback):
            _echo(f"  | {line}")
        self._traceback = None


def _echo(line: str) -> None:
    """One line on stdout, anything in it a terminal would act on spelled out: names and paths
    come from the user's files, and a note quotes the agent."""
    typer.echo(visible(line))
