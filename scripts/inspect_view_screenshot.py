"""Regenerate docs/images/inspect-view-*.png: a small run on the offline mock, exported with
`pdbench export RUN --inspect`, opened in `inspect view` and photographed in a real headless
Chromium (Debian's, driven by playwright; nothing is downloaded).

    uv run --group inspect python scripts/inspect_view_screenshot.py            # docs/images/
    uv run --group inspect python scripts/inspect_view_screenshot.py --out DIR  # elsewhere

The run is the AgentDuel Split or Steal preset (5 rounds, talk before every commit): the mock LLM
agent against TFT, 3 matches. Two pictures: the condition's sample list (one sample per match, the
outcome and metrics as score columns) and the first match's transcript (its model calls, each
with its role).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
RUN = [
    "game=agentduel_split_or_steal",
    "agent_a=llm_default",
    "agent_b=tft",
    "run.replicates=3",
]
VIEWPORT = {"width": 1400, "height": 860}


def make_logs(folder: Path) -> Path:
    """A run on the mock in `folder`, exported as Inspect logs; returns the logs' folder."""
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(folder / "cache"), "COLUMNS": "120"}
    pdbench = [str(Path(sys.executable).with_name("pdbench"))]  # the console script
    run = [*pdbench, "run", "conf/config.yaml", *RUN, f"run.output_dir={folder / 'runs'}"]
    quiet = {"cwd": ROOT, "env": env, "check": True, "stdout": subprocess.DEVNULL}
    subprocess.run([*run, "--run-id", "split-or-steal", "-q"], **quiet)  # type: ignore[call-overload]
    logs = folder / "logs"
    export = [*pdbench, "export", str(folder / "runs" / "split-or-steal"), "--inspect", str(logs)]
    subprocess.run(export, **quiet)  # type: ignore[call-overload]
    return logs


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve(logs: Path, port: int) -> subprocess.Popen:
    """`inspect view` on 127.0.0.1, once it answers."""
    inspect = Path(sys.executable).with_name("inspect")
    server = subprocess.Popen(
        [str(inspect), "view", "--log-dir", str(logs), "--port", str(port), "--host", "127.0.0.1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/logs", timeout=2).read()
            return server
        except OSError:
            if server.poll() is not None:
                raise RuntimeError(f"inspect view exited with {server.returncode}") from None
            time.sleep(0.3)
    server.terminate()
    raise RuntimeError("inspect view did not answer within 60 s")


def photograph(url: str, out: Path, chromium: str) -> list[Path]:
    """The sample list, then the first sample's transcript, as PNGs in `out`."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    shots = [out / "inspect-view-samples.png", out / "inspect-view-transcript.png"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(url)
        page.get_by_text("3 Samples", exact=True).wait_for(timeout=60_000)  # the list's footer
        page.get_by_text("mock[cooperative] (agent_a, llm)").first.wait_for()
        page.screenshot(path=str(shots[0]))
        page.get_by_text("mock[cooperative] (agent_a, llm)").first.click()
        page.get_by_text("Round 1: agent_a C, agent_b C").first.wait_for(timeout=60_000)
        page.screenshot(path=str(shots[1]))
        browser.close()
    return shots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("chromium is not installed (apt-get install -y chromium)")
    with tempfile.TemporaryDirectory(prefix="pdbench-inspect-") as tmp:
        logs = make_logs(Path(tmp))
        port = free_port()
        server = serve(logs, port)
        try:
            for shot in photograph(f"http://127.0.0.1:{port}/", args.out, chromium):
                print(f"wrote {shot}")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
