"""Issue 30: an LLM Keeper's audit (`keeper_audit`): every Keeper answer is asked again of a
second agent with the same Keeper prompt, stored with the turn, never played; `pdbench analyze`
reports the disagreement rate from the stored pairs."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import only_run_dir
from silently_wrong_helpers import console_in_process
from test_judged_runs import manifest_of, read_lines, run, without_clock

CONFIG = (
    "run: {{seed: 3, replicates: 3}}\n"
    "game: {{id: passcode, options: {{round_limit: 4}}}}\n"
    "conditions:\n"
    "  - {{name: audited, agent_a: passcode_halving, agent_b: passcode_lengths,\n"
    "     keeper: llm, keeper_audit: {audit}}}\n"
)

SAYS_NO = """class Agent:
    GAME = "passcode"

    def on_turn(self, round_state):
        return {"type": "answer", "text": "No."}
"""


def keeper_turns(lines: list[dict]) -> list[dict]:
    return [line for line in lines if "keeper:a" in line["seats"]]


def test_an_audit_by_the_same_model_agrees_everywhere_and_replays_free(tmp_path, monkeypatch):
    config = tmp_path / "audit.yaml"
    config.write_text(CONFIG.format(audit="llm"))
    run_dir = run(tmp_path, "same", config=config)
    lines = keeper_turns(read_lines(run_dir))
    assert lines
    for line in lines:
        for seat in ("keeper:a", "keeper:b"):
            action = line["actions"][seat]
            assert action["audit"] == action["text"]  # the same mock: the same answer
            assert len(line["decisions"][seat]["attempts"]) == 2  # the Keeper's and the audit's
    parties = manifest_of(run_dir)["matchups"]["audited"]["third_parties"]
    assert parties == {"keeper": "KEEPER", "keeper_audit": "KEEPER"}  # who audited, stated
    calls = manifest_of(run_dir)["provider_calls"]
    assert calls["live"] + calls["cached"] == 4 * len(lines)
    again = run(tmp_path, "replay", "run.cache.mode=replay", config=config)
    assert manifest_of(again)["provider_calls"]["live"] == 0
    assert without_clock(read_lines(again)) == without_clock(read_lines(run_dir))
    done = console_in_process("analyze", str(run_dir), monkeypatch=monkeypatch)
    assert done.returncode == 0, done
    pairs = 2 * len(lines)
    assert f"Keeper audit: disagreement 0.0 % (0/{pairs};" in done.stdout


def test_an_audit_that_answers_otherwise_gives_a_nonzero_rate_and_never_changes_the_game(
    tmp_path, monkeypatch
):
    agent = tmp_path / "says_no.py"
    agent.write_text(SAYS_NO)
    config = tmp_path / "audit.yaml"
    config.write_text(CONFIG.format(audit=f"{{type: arena, path: {agent}}}"))
    plain = tmp_path / "plain.yaml"
    plain.write_text(CONFIG.format(audit="null"))
    audited = keeper_turns(read_lines(run(tmp_path, "differ", config=config)))
    unaudited = keeper_turns(read_lines(run(tmp_path, "plain", config=plain)))
    # the game is the same turn for turn: the audit's answer is stored, never played
    assert [
        {seat: {k: v for k, v in a.items() if k != "audit"} for seat, a in line["actions"].items()}
        for line in audited
    ] == [line["actions"] for line in unaudited]
    answers = [line["actions"][s] for line in audited for s in ("keeper:a", "keeper:b")]
    assert all(a["audit"] == "No." for a in answers)
    differ = sum(not a["text"].startswith("No") for a in answers)
    assert 0 < differ < len(answers)
    run_dir = Path(tmp_path / "runs" / "differ")
    done = console_in_process("analyze", str(run_dir), monkeypatch=monkeypatch)
    assert done.returncode == 0, done
    share = 100 * differ / len(answers)
    assert f"Keeper audit: disagreement {share:.1f} % ({differ}/{len(answers)};" in done.stdout


def test_the_audit_is_a_hydra_group_and_analyze_reports_it(tmp_path, monkeypatch):
    done = console_in_process(
        "run", "conf/config.yaml", "game=passcode", "agent_a=passcode_halving",
        "agent_b=passcode_lengths", "keeper=llm", "keeper_audit=truthful", "run.replicates=2",
        f"run.output_dir={tmp_path}", monkeypatch=monkeypatch,
    )  # fmt: skip
    assert done.returncode == 0, done
    run_dir = only_run_dir(tmp_path)
    done = console_in_process("analyze", str(run_dir), monkeypatch=monkeypatch)
    assert done.returncode == 0, done
    # the mock Keeper answers by the house rule: the house Keeper as audit agrees everywhere
    assert (
        "keeper_audit=truthful" in done.stdout and "Keeper audit: disagreement 0.0 %" in done.stdout
    )


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        (["game=nuclear_war", "agent_a=debate_fixed", "agent_b=debate_fixed",
          "keeper_audit=llm"], "keeper_audit: nuclear_war has no keeper_audit role (its third roles: judge)"),
        (["keeper_audit=truthful"], "keeper_audit: the 2x2 game pd has no keeper_audit role (it has no third role)"),
        (["game=passcode", "agent_a=passcode_halving", "agent_b=passcode_lengths",
          "keeper_audit=truthful", "keeper_audit.policy=scripted_judge"],
         "keeper_audit.policy: scripted_judge is not a house keeper of passcode"),
        (["game=passcode", "agent_a=passcode_halving", "agent_b=passcode_lengths",
          "keeper_audit=liar"], 'unknown keeper "liar"; choose one of: llm, truthful'),
    ],
)  # fmt: skip
def test_an_audit_that_does_not_fit_is_exit_2_naming_the_field(
    overrides, words, monkeypatch, tmp_path
):
    done = console_in_process(
        "run", "conf/config.yaml", *overrides, f"run.output_dir={tmp_path}", monkeypatch=monkeypatch
    )
    assert done.returncode == 2, done
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in done.stderr
    assert "keeper_audit" in lines[0] and words in lines[0], lines[0]


def test_analyze_on_a_passcode_run_without_an_audit_says_so(tmp_path, monkeypatch):
    config = tmp_path / "plain.yaml"
    config.write_text(CONFIG.format(audit="null"))
    run_dir = run(tmp_path, "plain", config=config)
    done = console_in_process("analyze", str(run_dir), monkeypatch=monkeypatch)
    assert done.returncode == 2, done
    assert "no Keeper audit stored (bind keeper_audit" in done.stderr
    assert "Traceback" not in done.stderr
