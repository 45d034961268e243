"""Issue 46's done-when in a real browser: an exported run opens in `inspect view`. The script
that takes the docs' screenshots (scripts/inspect_view_screenshot.py) is run as a user runs it:
it makes a run on the mock, exports it with `pdbench export --inspect`, serves it with
`inspect view` on 127.0.0.1 and waits, in Debian's headless Chromium, for the sample list (one
row per match) and for the first match's transcript before photographing each."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)"
    ),
]


def test_an_exported_run_opens_in_inspect_view(tmp_path):
    pytest.importorskip(
        "inspect_ai", reason="the inspect group is not installed: uv sync --group inspect"
    )
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "inspect_view_screenshot.py"), "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    for name in ("inspect-view-samples.png", "inspect-view-transcript.png"):
        picture = tmp_path / name
        assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert f"wrote {picture}" in done.stdout
