"""`pdbench ladder` on stored runs: the classic round robin rates as the tournament's head-to-head
results rank it wherever the ratings are decisive, two runs given together rate an agent once,
an edited arena file is a new agent, and bad input is one line and exit 2."""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

import pandas as pd
import pytest
from in_process import run_front_door
from project_copy import command_env, shared_copy


def pdbench(tmp: Path, *args: str):
    return run_front_door("cli", list(args), cwd=shared_copy(), env=command_env(tmp))


def run(tmp: Path, run_id: str, *overrides: str, config: str = "conf/config.yaml") -> Path:
    done = pdbench(
        tmp, "run", config, "--run-id", run_id, "-q", f"run.output_dir={tmp / 'runs'}", *overrides
    )
    assert done.code == 0, done.stderr
    return tmp / "runs" / run_id


def ladder(
    tmp: Path, *run_dirs: Path, out: str = "ladder", options: tuple[str, ...] = ()
) -> tuple[pd.DataFrame, str]:
    done = pdbench(tmp, "ladder", *map(str, run_dirs), "--out", str(tmp / out), *options)
    assert done.code == 0, done.stderr
    table = pd.read_parquet(tmp / out / "ladder.parquet")
    return table, done.stdout


def rated(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["table"] == "rating"].set_index("agent")


SHORT = ("horizon.rounds=20", "run.replicates=3")


@pytest.fixture(scope="module")
def tft_alld(tmp_path_factory) -> Path:
    """TFT against ALLD, 3 replicates of 20 rounds: the finished run that three tests below
    rate (together with another run, beside an aborted one, into the project's data/). Only
    read: each test writes its ladders and other runs under its own tmp_path."""
    return run(tmp_path_factory.mktemp("tft_alld"), "one", "agent_a=tft", "agent_b=alld", *SHORT)


@pytest.mark.slow  # a 105-match round robin and its tournament (about 10 s)
def test_the_classic_ladder_orders_as_the_tournament_wherever_the_ratings_are_decisive(tmp_path):
    classic = run(tmp_path, "classic", config="conf/experiment/tournament_classic.yaml")
    done = pdbench(tmp_path, "tournament", str(classic), "--runs", "10")
    assert done.code == 0, done.stderr
    tournament = pd.read_parquet(classic / "tournament.parquet")
    ranking = tournament[tournament["table"] == "ranking"].set_index("player")
    table, printed = ladder(tmp_path, classic, options=("--rank-on", "wins"))
    ratings = rated(table)
    assert sorted(ratings.index) == sorted(ranking.index)  # policies are named as the tournament
    decisive = 0
    for p, q in itertools.combinations(ratings.index, 2):
        if ratings.loc[p, "ci_low"] > ratings.loc[q, "ci_high"]:
            decisive += 1
            assert ranking.loc[p, "median_wins"] > ranking.loc[q, "median_wins"], (p, q)
        elif ratings.loc[q, "ci_low"] > ratings.loc[p, "ci_high"]:
            decisive += 1
            assert ranking.loc[q, "median_wins"] > ranking.loc[p, "median_wins"], (p, q)
    assert decisive == 5  # ALLD beats every other; the rest draw with each other
    # 21 pairs x 5 replicates, of which the 6 self-play pairs compare nothing
    assert "75 finished matches counted" in printed and "30 self-play" in printed
    assert ratings["matches"].sum() == 2 * 75


def test_the_dilemma_ranks_on_payoff_unless_asked_for_wins_and_every_output_says_which(tmp_path):
    """Issue 42: on wins ALLD (never beaten) rates first, on payoff it is fifth of six as in the
    tournament; the prisoner's dilemma ranks on payoff by default (Game.ranked_on), and the
    printed title, the stored rows and the flags say which, and why ALLD's rating on wins is the
    prior's."""
    classic = run(
        tmp_path, "classic", "run.replicates=2", config="conf/experiment/tournament_classic.yaml"
    )
    on_payoff, printed = ladder(tmp_path, classic, out="payoff")
    on_wins, printed_wins = ladder(tmp_path, classic, out="wins", options=("--rank-on", "wins"))
    assert "pd: ranked on payoff (what each earns against the field)" in printed
    assert "pd: ranked on wins (who beat whom)" in printed_wins
    assert set(on_payoff["ranked_on"].dropna()) == {"payoff"}
    assert set(on_wins["ranked_on"].dropna()) == {"wins"}
    by_payoff, by_wins = rated(on_payoff), rated(on_wins)
    assert by_wins.loc["alld", "rank"] == 1 and by_payoff.loc["alld", "rank"] == 5
    assert list(by_payoff.sort_values("rank").index[:2]) == ["grim", "tft"]  # tied first
    # in a complete round robin the payoff rating is the tournament's score (mean per round)
    assert by_payoff.loc["tft", "rating"] == pytest.approx(2.5990, abs=1e-4)
    assert by_payoff.loc["alld", "rating"] == pytest.approx(by_payoff.loc["alld", "mean_payoff"])
    assert (by_payoff["unit"] == "payoff").all() and (by_wins["unit"] == "Elo").all()
    # ALLD won every match: its rating on wins is the prior's, flagged in the file and printed
    assert not by_wins.loc["alld", "identified"]
    assert by_wins.loc["alld", "flag"].startswith("won every match")
    assert "* alld: won every match" in printed_wins
    assert by_payoff["identified"].all()  # 10 matches each, every one of them estimable
    assert not any(line.startswith("* ") for line in printed.splitlines())


def test_two_runs_given_together_rate_an_agent_once(tmp_path, tft_alld):
    first = tft_alld
    second = run(tmp_path, "two", "agent_a=grim", "agent_b=tft", *SHORT)
    table, printed = ladder(tmp_path, first, second, first)
    ratings = rated(table)
    assert sorted(ratings.index) == ["alld", "grim", "tft"]
    assert ratings.loc["tft", "matches"] == 6 and ratings.loc["tft", "runs"] == 2
    assert "3 duplicates dropped" in printed
    assert "2 groups" not in printed  # tft links alld and grim: one component
    # the same inputs give the same file
    again, _ = ladder(tmp_path, second, first, out="again")
    assert again[again["table"] == "rating"].equals(table[table["table"] == "rating"])


def test_an_edited_arena_file_is_a_new_agent(tmp_path):
    agent = tmp_path / "mine.py"
    source = (Path(shared_copy()) / "examples" / "agents" / "tit_for_tat.py").read_text()
    short = ("horizon.rounds=10", "run.replicates=2", "agent_b=alld", "agent_a=arena")
    agent.write_text(source)
    before = run(tmp_path, "before", f"agent_a.path={agent}", *short)
    first_hash = hashlib.sha256(agent.read_bytes()).hexdigest()
    agent.write_text(source.replace("if history else cooperate", "if history else _defect"))
    after = run(tmp_path, "after", f"agent_a.path={agent}", *short)
    second_hash = hashlib.sha256(agent.read_bytes()).hexdigest()
    table, printed = ladder(tmp_path, before, after)
    ratings = rated(table)
    assert sorted(ratings.index) == sorted(
        ["alld", f"mine@{first_hash[:8]}", f"mine@{second_hash[:8]}"]
    )
    assert f"mine@{first_hash[:8]}" in printed and f"mine@{second_hash[:8]}" in printed


def test_a_folder_that_is_no_run_is_one_line_and_exit_2(tmp_path):
    done = pdbench(tmp_path, "ladder", str(tmp_path), "--out", str(tmp_path / "out"))
    assert done.code == 2
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.slow  # a 56-pair round robin with talk (about 8 s)
def test_the_ladder_preset_rates_the_house_agents_and_the_users_files(tmp_path):
    preset = run(
        tmp_path, "preset", "run.replicates=1", config="conf/experiment/ladder_split_or_steal.yaml"
    )
    table, printed = ladder(tmp_path, preset)
    ratings = rated(table)
    files = {
        name: hashlib.sha256((Path(shared_copy()) / "examples" / "agents" / name).read_bytes())
        for name in ("negotiator.py", "grudger.py")
    }
    expected = ["allc", "alld", "tft", "grim", "wsls", "random"]
    expected += [f"{Path(name).stem}@{digest.hexdigest()[:8]}" for name, digest in files.items()]
    assert sorted(ratings.index) == sorted(expected)
    assert (ratings["game"] == "split_or_steal+talk").all()
    assert (ratings["matches"] == 2 * 7).all()  # both seats against each of the 7 others
    assert "0 provider calls" in printed


def test_only_finished_matches_count_and_the_rest_are_said(tmp_path, tft_alld):
    short = ("horizon.rounds=10", "run.replicates=2")
    finished = tft_alld  # 3 finished matches (the module's run)
    done = pdbench(
        tmp_path,
        "run",
        "conf/config.yaml",
        "--run-id",
        "aborted",
        "-q",
        f"run.output_dir={tmp_path / 'runs'}",
        "agent_a=llm_default",
        "agent_a.provider.mock.invalid_rate=1.0",
        "agent_b=alld",
        *short,
    )
    assert done.code == 6, done.stderr  # every match aborted: the model never answered validly
    table, printed = ladder(tmp_path, finished, tmp_path / "runs" / "aborted")
    assert "3 finished matches counted" in printed and "2 left out: 2 aborted" in printed
    skipped = table[table["table"] == "skipped"]
    assert list(skipped["run_id"]) == ["aborted", "aborted"]
    assert all(note.startswith("aborted: ") for note in skipped["note"])
    assert sorted(rated(table).index) == ["alld", "tft"]


@pytest.mark.slow  # a copy of the project of its own (its data/ is written)
def test_without_out_the_ladder_goes_to_a_folder_named_by_its_inputs(tmp_path, tft_alld):
    from project_copy import copy_project

    project = copy_project(tmp_path / "project")
    first = tft_alld
    env = command_env(tmp_path)
    ladder_of_first = ["ladder", str(first)]
    done = run_front_door("cli", ladder_of_first, cwd=project, env=env)
    assert done.code == 0, done.stderr
    (folder,) = (project / "data" / "ladders").iterdir()
    assert len(folder.name) == 12 and (folder / "ladder.parquet").is_file()
    again = run_front_door("cli", ladder_of_first, cwd=project, env=env)
    assert [p.name for p in (project / "data" / "ladders").iterdir()] == [folder.name]
    other = run_front_door("cli", [*ladder_of_first, "--rank-on", "wins"], cwd=project, env=env)
    assert again.code == other.code == 0
    assert len(list((project / "data" / "ladders").iterdir())) == 2


def test_the_n_player_option_leaves_a_two_player_ladder_as_it_was(tmp_path, tft_alld):
    """`--n-player` chooses how matches of more than two players are rated; a ladder of
    two-player matches is the same table with either choice, and a bad choice is one line."""
    default, printed = ladder(tmp_path, tft_alld, out="default")
    pairs, printed_pairs = ladder(tmp_path, tft_alld, out="pairs", options=("--n-player", "pairs"))
    pd.testing.assert_frame_equal(default, pairs)
    assert printed.replace("default", "pairs") == printed_pairs
    wrong = pdbench(tmp_path, "ladder", str(tft_alld), "--n-player", "triples")
    assert wrong.code == 2 and "--n-player" in wrong.stderr
