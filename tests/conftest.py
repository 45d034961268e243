"""Shared test setup.

pytest puts this folder on `sys.path` (it holds a conftest.py and is not a package), which is what
lets test modules in any subfolder `from helpers import ScriptedAgent, versus_test`.
"""

import pytest


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own replay cache, so no test sees another's answers or the repo's."""
    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
