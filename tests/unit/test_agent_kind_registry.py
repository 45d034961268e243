"""The agent-kind registry answers for the kinds: each built-in kind names an option of the
`agent` config group that chooses it, which error messages suggest (`agent_b=arena`)."""

from __future__ import annotations

from pathlib import Path

import yaml

from pdbench.config.agent_spec import AGENT_SPECS

CONF = Path(__file__).resolve().parents[2] / "conf" / "agent"


def test_each_built_in_kind_names_an_agent_option_of_its_own_kind():
    assert set(AGENT_SPECS) >= {"policy", "llm", "arena"}
    for kind, spec in AGENT_SPECS.items():
        assert spec.kind_example, kind
        option = yaml.safe_load((CONF / f"{spec.kind_example}.yaml").read_text())
        assert option["type"] == kind, (kind, spec.kind_example)
