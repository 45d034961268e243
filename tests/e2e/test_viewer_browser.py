"""The viewer in a real headless Chromium: `pdbench ui` serves a run, every tab renders (the
Analysis tab from `pdbench analyze`'s file; the Tournament tab of a tournament run, opened by
typing its run dir into the sidebar); a run of every turn game and a ladder open on their own
pages, and every page reads whole at 1440 and 1024 px (no card, table or label cut).

Needs a system Chromium (CI: `apt-get install -y chromium`); the playwright package drives it
through `executable_path`, so `playwright install` is never needed. Screenshots of every tab go
to tests/artifacts/ (git-ignored) for a human to look at, or to the folder PDBENCH_TEST_ARTIFACTS
names (CI can keep them); among them viewer-conditions-grid.png, the heat map of issue 14's
3 x 6 persona x opponent sweep.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from in_process import run_front_door
from persona_grid import shared_persona_grid
from project_copy import copy_project
from viewer_runs import GAME_KINDS, STATUS_KINDS, expected_tally, shared_viewer_runs, tally_words

from pdbench.ui.game_views import game_view

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("PDBENCH_TEST_ARTIFACTS") or ROOT / "tests" / "artifacts")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
CHARTS = '[data-testid="stVegaLiteChart"]'
RENDERED_CHART = f"{CHARTS} canvas, {CHARTS} svg"
EXCEPTION = '[data-testid="stException"]'
TABLES = '[data-testid="stDataFrame"]'
RUNNING = '[data-testid="stStatusWidget"]'
WIDTH = 1500
WINDOWS = (1440, 1024)  # the widths every page is read at (issue 41)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)"
    ),
]


def pdbench_command(*args: str) -> list[str]:
    return [sys.executable, "-c", "from pdbench.cli import main; main()", *args]


def pdbench_in_process(
    project: Path, *args: str, entry: str = "cli", env: dict[str, str] | None = None
) -> str:
    """`pdbench ARGS` (or `python -m pdbench ARGS`, entry "module") through the entry function
    the command runs, in this process (tests/in_process.py), in `project`: the runs the viewer
    shows are made so; the viewer itself (`pdbench ui`) is a real process. Returns stdout."""
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("PDBENCH_SWEEP_ID", "PDBENCH_RUN_DIR")},
        **(env or {}),
    }
    done = run_front_door(entry, args, cwd=project, env=env, wall_limit_s=300)
    assert done.code == 0, (args, done.code, done.stderr[-3000:])
    return done.stdout


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """The committed project: its conf/ as shipped, never the user's edited experiment."""
    return copy_project(tmp_path_factory.mktemp("project"))


@pytest.fixture(scope="module")
def run_dir(project, tmp_path_factory) -> Path:
    """conf/experiment.yaml with 2 replicates: 4 conditions, mock LLM agents with prompts."""
    output = tmp_path_factory.mktemp("runs")
    pdbench_in_process(
        project,
        "run",
        "conf/experiment.yaml",
        "--replicates",
        "2",
        "--run-id",
        "browser",
        "-q",
        f"run.output_dir={output}",
        f"run.cache.dir={output / 'cache'}",
    )
    pdbench_in_process(project, "analyze", str(output / "browser"), "--bootstrap", "50")
    return output / "browser"


@pytest.fixture(scope="module")
def tournament_dir(project, run_dir) -> Path:
    """The classic tournament, shortened (50 rounds, 2 replicates), with tournament.parquet
    (Payne's generations included) and analysis.parquet."""
    output = run_dir.parent
    for args in (
        (
            "run",
            "conf/experiment/tournament_classic.yaml",
            "--run-id",
            "tournament",
            "-q",
            "run.replicates=2",
            "horizon.rounds=50",
            f"run.output_dir={output}",
        ),
        ("tournament", str(output / "tournament"), "--runs", "100", "--payne"),
        ("analyze", str(output / "tournament"), "--bootstrap", "30"),
    ):
        pdbench_in_process(project, *args)
    return output / "tournament"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def viewer_server(
    project, run_dir, tmp_path_factory
) -> Iterator[tuple[subprocess.Popen, str, Path]]:
    """`pdbench ui RUN_DIR --port P` in its own process group, stopped whatever happens:
    (process, url, log). Started before the other runs are made, so it starts up meanwhile."""
    port = free_port()
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            pdbench_command("ui", str(run_dir), "--port", str(port)),
            cwd=project,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # `pdbench ui` starts Streamlit as its child: stop both
        )
    try:
        yield server, f"http://127.0.0.1:{port}", log
    finally:
        stop(server)


@pytest.fixture(scope="module")
def viewer_url(viewer_server, tournament_dir, grid_dir, every_kind_of_run) -> str:
    """The viewer's address once it answers. The runs the tests open are made first, in this
    process, while the viewer starts: playwright's sync API (the `page` fixture) keeps an event
    loop running in this thread while the browser is open, and a pdbench command run here starts
    its own."""
    server, url, log = viewer_server
    wait_until_healthy(url, server, log)
    return url


def wait_until_healthy(url: str, server: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the viewer exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"the viewer did not answer within {timeout} s:\n{log.read_text()[-3000:]}")


def stop(server: subprocess.Popen) -> None:
    if server.poll() is not None:
        return
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=10)


@pytest.fixture(scope="module")
def page(viewer_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": 1000})
            page.goto(viewer_url, wait_until="domcontentloaded", timeout=60_000)
            yield page
        finally:
            browser.close()


def settle(page, charts: int) -> None:
    """Wait for Streamlit to finish the script run and for `charts` charts to be drawn."""
    page.wait_for_selector(RUNNING, state="detached", timeout=60_000)
    page.wait_for_function(
        """([selector, count]) => Array.from(document.querySelectorAll(selector))
               .filter(chart => chart.offsetParent !== null
                                && chart.querySelector('canvas, svg')).length >= count""",
        arg=[CHARTS, charts],
        timeout=60_000,
    )
    still(page)  # Vega has drawn every mark and nothing moves any more


# The page's layout: per visible chart its size and how many SVG elements it holds, per visible
# table its number of cells, the main area's height and the window's size. Compared frame by
# frame by `still`.
LAYOUT = f"""() => JSON.stringify([
    Array.from(document.querySelectorAll('{CHARTS}'))
        .filter(chart => chart.offsetParent !== null)
        .map(chart => {{ const box = chart.getBoundingClientRect();
                         return [Math.round(box.width), Math.round(box.height),
                                 chart.querySelectorAll('svg *').length]; }}),
    Array.from(document.querySelectorAll('{TABLES}'))
        .filter(grid => grid.offsetParent !== null)
        .map(grid => grid.querySelectorAll('[role=columnheader], [role=gridcell]').length),
    document.querySelector('[data-testid=stMain]')?.scrollHeight,
    window.innerWidth, window.innerHeight])"""


def still(page, frames: int = 8) -> None:
    """Wait until the layout (`LAYOUT`) has not changed for `frames` painted frames in a row:
    the event that proves Vega finished drawing and the page finished laying out, in place of
    a fixed pause (frames come slower on a loaded machine, and so does this wait)."""
    page.wait_for_function(
        f"""(frames) => {{
            const now = ({LAYOUT})();
            const seen = window.__pdbenchLayout;
            window.__pdbenchLayout = {{ layout: now,
                                       same: seen && seen.layout === now ? seen.same + 1 : 0 }};
            return window.__pdbenchLayout.same >= frames;
        }}""",
        arg=frames,
        polling="raf",
        timeout=60_000,
    )
    page.evaluate("() => { window.__pdbenchLayout = undefined; }")


def screenshot(page, name: str, width: int = WIDTH) -> Path:
    """The whole page: Streamlit scrolls inside stMain, so grow the viewport to fit it first."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    height = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
    size = {"width": width, "height": max(1000, height + 40)}
    page.set_viewport_size(size)
    # charts re-lay out to the new size: wait until the window has it and the layout is still
    page.wait_for_function(
        "([w, h]) => window.innerWidth === w && window.innerHeight === h",
        arg=[size["width"], size["height"]],
        timeout=60_000,
    )
    still(page)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size({"width": width, "height": 1000})
    return path


def drawn_marks(page) -> list[dict[str, int]]:
    """Per visible chart, how many data marks Vega painted, by mark type ({"rect": 40, ...}).

    Axes and legends are not counted, and neither are marks without a colour (what Vega draws
    when a field's values miss the colour scale's domain), so a chart that looks empty fails.
    """
    return page.evaluate(
        """(selector) => Array.from(document.querySelectorAll(selector))
               .filter(chart => chart.offsetParent !== null)
               .map(chart => {
                   const counts = {};
                   for (const group of chart.querySelectorAll('svg g.role-mark')) {
                       const type = Array.from(group.classList)
                           .find(c => c.startsWith('mark-')).slice(5);
                       const painted = Array.from(group.children).filter(mark =>
                           ['fill', 'stroke'].some(name => {
                               const colour = mark.getAttribute(name);
                               return colour && colour !== 'none' && colour !== 'transparent';
                           })).length;
                       counts[type] = (counts[type] || 0) + painted;
                   }
                   return counts;
               })""",
        CHARTS,
    )


def legend_overflow(page) -> list[tuple[int, int]]:
    """(legend right edge, chart right edge) of every visible legend that sticks out of its chart."""
    return page.evaluate(
        """(selector) => Array.from(document.querySelectorAll(selector))
               .filter(chart => chart.offsetParent !== null)
               .flatMap(chart => {
                   const right = chart.getBoundingClientRect().right;
                   return Array.from(chart.querySelectorAll('svg g.role-legend'))
                       .map(g => [Math.round(g.getBoundingClientRect().right), Math.round(right)])
                       .filter(([edge, limit]) => edge > limit + 1);
               })""",
        CHARTS,
    )


def grid_cells(page) -> list[list[str]]:
    """Per visible table (st.dataframe), the text of its header and body cells, in order (the
    grid paints on a canvas; its accessible cells carry the text), once every one has drawn its
    header cells and the page is still."""
    page.wait_for_function(
        """(selector) => Array.from(document.querySelectorAll(selector))
               .filter(grid => grid.offsetParent !== null)
               .every(grid => grid.querySelector('[role=columnheader]'))""",
        arg=TABLES,
        timeout=60_000,
    )
    still(page)
    return page.evaluate(
        """(selector) => Array.from(document.querySelectorAll(selector))
               .filter(grid => grid.offsetParent !== null)
               .map(grid => Array.from(grid.querySelectorAll(
                   '[role=columnheader], [role=gridcell]')).map(cell => cell.textContent))""",
        '[data-testid="stDataFrame"]',
    )


TAB = '[data-testid="stTab"]'


def select_tab(page, tab, timeout_s: float = 60) -> None:
    """Click a tab (a locator) until it is the selected one. st.tabs switches in the browser with
    no script run, but a script run that redraws the tab bar (a run's tabs settling as its files
    are read) puts the selection back on the first tab: a click that landed just before such a
    redraw is lost (CI, once, under load), so it is repeated rather than waited on for a minute."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
    from playwright.sync_api import expect

    deadline = time.monotonic() + timeout_s
    while True:
        tab.click(timeout=60_000)
        page.wait_for_selector(RUNNING, state="detached", timeout=60_000)
        try:
            expect(tab).to_have_attribute("aria-selected", "true", timeout=5_000)
            return
        except (AssertionError, PlaywrightTimeoutError):
            if time.monotonic() > deadline:
                raise


def open_tab(page, name: str) -> None:
    select_tab(page, page.locator(TAB, has_text=name))


def test_every_tab_renders_without_an_exception(page):
    settle(page, charts=2)
    assert page.locator(RENDERED_CHART).count() >= 2
    timeline, payoffs = drawn_marks(page)
    assert timeline["rect"] >= 2 * 20 and timeline["text"] == 2 * 20  # one cell per action
    assert payoffs["line"] >= 2  # both agents (and the all-C / all-D references)
    assert page.get_by_text("Run browser", exact=True).is_visible()
    assert page.locator('[data-testid="stMetric"]').count() >= 13
    match = screenshot(page, "viewer-match")
    assert match.stat().st_size > 50_000
    assert page.locator(EXCEPTION).count() == 0

    open_tab(page, "Conditions")
    settle(page, charts=2)
    ci_chart, over_time = drawn_marks(page)
    assert ci_chart["symbol"] >= 4 * 3  # a mean per condition for both agents, A and B
    assert ci_chart["rule"] >= 1  # the CI bars
    assert over_time["line"] >= 4  # one line per condition
    screenshot(page, "viewer-conditions")
    assert page.locator(EXCEPTION).count() == 0

    open_tab(page, "Round inspector")
    page.wait_for_selector("text=Raw response", timeout=30_000)
    assert page.get_by_text("Round 1: your action?", exact=False).first.is_visible()
    screenshot(page, "viewer-inspector")
    assert page.locator(EXCEPTION).count() == 0

    open_tab(page, "Run facts")
    page.wait_for_selector('[data-testid="stMetric"]:has-text("Live calls")', timeout=30_000)
    screenshot(page, "viewer-run-facts")
    assert page.locator(EXCEPTION).count() == 0


def test_choosing_another_condition_redraws_the_match(page):
    open_tab(page, "Match")
    settle(page, charts=2)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.locator('[data-testid="stSelectbox"]').first.click()
    page.get_by_role("option", name="gtft_vs_alld").click()
    page.wait_for_selector("text=gtft_vs_alld · replicate 0", timeout=30_000)
    settle(page, charts=2)
    assert page.get_by_text("A · GTFT", exact=False).first.is_visible()
    assert drawn_marks(page)[0]["text"] == 2 * 20
    screenshot(page, "viewer-match-gtft-vs-alld")
    assert page.locator(EXCEPTION).count() == 0


def test_the_analysis_tab_shows_fingerprints_and_the_comparison_table(page):
    open_tab(page, "Analysis")
    page.wait_for_selector("text=Memory-one fingerprint", timeout=30_000)
    settle(page, charts=1)
    (fingerprint,) = drawn_marks(page)
    assert fingerprint["rect"] >= 2  # P(C) bars of the condition's two agents
    profile, sfem, fingerprints, comparisons = grid_cells(page)
    assert profile[:3] == ["agent", "niceness", "forgiveness"]
    assert sfem[:3] == ["agent", "nearest", "tremble"] and "allc=tft=grim=wsls=tf2t" in sfem
    assert "P(C) after CC" in fingerprints and "gtft_vs_alld · A · GTFT" in fingerprints
    assert comparisons[:3] == ["A", "B", "test"] and "paired sign-flip" in comparisons
    assert page.get_by_text("Comparison between conditions").is_visible()
    assert page.get_by_text("comparisons: all pairs", exact=False).is_visible()
    screenshot(page, "viewer-analysis")
    assert page.locator(EXCEPTION).count() == 0


def test_the_tournament_tab_of_a_tournament_run(page, tournament_dir):
    run_dir_input = page.locator('[data-testid="stSidebar"] input').first
    run_dir_input.fill(str(tournament_dir))
    run_dir_input.press("Enter")
    page.wait_for_selector("text=Run tournament", timeout=60_000)
    open_tab(page, "Tournament")
    page.wait_for_selector("text=Payoff matrix", timeout=30_000)
    settle(page, charts=2)
    heatmap, population = drawn_marks(page)
    assert heatmap["rect"] == 36 and heatmap["text"] == 36  # 6 x 6 pairs, self-play included
    assert population["line"] == 6  # one share per player
    ranking = grid_cells(page)[0]
    assert ranking[:2] == ["rank", "player"]
    assert [ranking[ranking.index(str(rank)) + 1] for rank in (1, 2)] == ["tft", "grim"]
    screenshot(page, "viewer-tournament")
    page.get_by_text("Payne's generations", exact=False).first.click()
    settle(page, charts=2)
    assert drawn_marks(page)[1]["line"] == 6
    assert page.locator(EXCEPTION).count() == 0

    open_tab(page, "Analysis")
    page.wait_for_selector("text=Memory-one fingerprint", timeout=30_000)
    settle(page, charts=1)
    screenshot(page, "viewer-analysis-tournament")
    assert page.locator(EXCEPTION).count() == 0


@pytest.fixture(scope="module")
def grid_dir(tmp_path_factory) -> Path:
    """Issue 14's 3 x 6 persona x opponent sweep on the mock, in a copy of the project, made once
    per session and shared with test_persona_grid (tests/persona_grid.py); the viewer only reads
    it."""
    return shared_persona_grid(tmp_path_factory)[0]


def test_a_persona_by_opponent_grid_shows_its_heat_map(page, grid_dir):
    page.set_viewport_size({"width": 1440, "height": 1000})  # the window width
    run_dir_input = page.locator('[data-testid="stSidebar"] input').first
    run_dir_input.fill(str(grid_dir))
    run_dir_input.press("Enter")
    page.wait_for_selector(f"text=Run {grid_dir.name}", timeout=60_000)
    open_tab(page, "Conditions")
    page.wait_for_selector("text=Factor heat map", timeout=30_000)
    settle(page, charts=3)
    heatmap, ci_chart, over_time = drawn_marks(page)
    assert heatmap["rect"] == 18 and heatmap["text"] == 18  # 6 opponents x 3 personas
    assert ci_chart["symbol"] >= 18  # one mean per condition (both agents, above 10 conditions)
    assert over_time["line"] >= 1
    # Labels are the varying factors, never the full override list.
    labels = page.evaluate(
        """() => Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"] svg text'))
               .map(t => t.textContent)"""
    )
    assert "exploitative" in labels and "tft" in labels  # the heat map's axes
    assert "agent_b=tft, persona=exploitative" in labels  # the CI chart's rows
    assert not any("agent_a=" in label for label in labels)  # agent_a does not vary
    # The table shows the factors and the chosen metrics without scrolling sideways.
    table = page.locator('[data-testid="stDataFrame"]').first
    assert table.evaluate(
        """grid => { const s = grid.querySelector('.dvn-scroller');
                     return !s || s.scrollWidth <= s.clientWidth + 1; }"""
    )
    headers = grid_cells(page)[0]
    assert headers[:3] == ["agent_b", "persona", "replicates"]
    # Every legend lies inside its chart at 1440 px (the over-time legend was cut at the edge).
    assert legend_overflow(page) == []
    shot = screenshot(page, "viewer-conditions-grid")
    assert shot.stat().st_size > 50_000
    assert page.locator(EXCEPTION).count() == 0


@pytest.fixture(scope="module")
def every_kind_of_run(tmp_path_factory) -> dict[str, Path]:
    """Aborted, partial, empty-condition, unfinished, interrupted, noisy and negotiated runs."""
    return shared_viewer_runs(tmp_path_factory)


def test_every_kind_of_run_opens_on_every_tab(page, every_kind_of_run):
    """Issue 26: each run typed into the same viewer; every tab renders without an exception and
    the summary above the tabs matches the counts in the stored files."""
    page.set_viewport_size({"width": 1440, "height": 1000})  # the window width
    run_dir_input = page.locator('[data-testid="stSidebar"] input').first
    for kind in STATUS_KINDS:  # the turn games' runs: test_every_game_reads_whole_...
        run_dir = every_kind_of_run[kind]
        run_dir_input.fill(str(run_dir))
        run_dir_input.press("Enter")
        page.wait_for_selector(f"text=Run {run_dir.name}", timeout=60_000)
        page.wait_for_selector(RUNNING, state="detached", timeout=60_000)
        summary = tally_words(expected_tally(run_dir))
        page.wait_for_selector(f"text={summary}", timeout=30_000)
        assert page.locator(EXCEPTION).count() == 0, kind
        tabs = page.locator('[data-testid="stTab"]')
        index = 0
        # The tabs are counted again each time: a run's tab bar may still be settling (the
        # Analysis and Tournament tabs come with their files), and a tab counted for the run
        # shown before must not be waited for.
        while index < tabs.count():
            select_tab(page, tabs.nth(index))
            assert page.locator(EXCEPTION).count() == 0, (kind, tabs.nth(index).inner_text())
            if tabs.nth(index).inner_text() == "Conditions":
                # The comparison table fits at 1440 px and never prints "None" (issue 26).
                table = page.locator('[data-testid="stDataFrame"]:visible').first
                table.wait_for(timeout=30_000)
                assert table.evaluate(
                    """grid => { const s = grid.querySelector('.dvn-scroller');
                                 return !s || s.scrollWidth <= s.clientWidth + 1; }"""
                ), kind
                assert "None" not in grid_cells(page)[0], kind
            index += 1
        screenshot(page, f"viewer-kind-{kind}")
        if tabs.count():
            tabs.first.click()


# --- every game and the ladder, at 1440 and 1024 px (issue 41) ---------------------------------

# What is cut on the visible page: an element of a card (label, value, interval) wider than its
# box, a table scrolled sideways (the Conditions tab's comparison table may scroll: it holds every
# chosen metric), text wider than its column, the page itself, a chart label Vega shortened.
CUT = """() => {
    const visible = el => el.offsetParent !== null;
    const name = el => (el.innerText || el.textContent || '').trim().slice(0, 80);
    const cut = [];
    for (const card of document.querySelectorAll('[data-testid=stMetric]')) {
        if (!visible(card)) continue;
        for (const el of [card, ...card.querySelectorAll('*')])
            if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
                cut.push('card: ' + name(card)); break; }
    }
    for (const grid of document.querySelectorAll('[data-testid=stDataFrame]')) {
        if (!visible(grid) || grid.closest('.st-key-scrolling_comparison_table')) continue;
        const scroller = grid.querySelector('.dvn-scroller');
        if (scroller && scroller.scrollWidth > scroller.clientWidth + 1)
            cut.push('table: ' + Array.from(grid.querySelectorAll('[role=columnheader]'))
                                      .map(c => c.textContent).join(' | '));
    }
    for (const text of document.querySelectorAll('[data-testid=stMarkdownContainer]'))
        if (visible(text) && text.scrollWidth > text.clientWidth + 1) cut.push('text: ' + name(text));
    const main = document.querySelector('[data-testid=stMain]');
    if (main.scrollWidth > main.clientWidth + 1) cut.push('page');
    for (const label of document.querySelectorAll('[data-testid=stVegaLiteChart] svg text'))
        if (visible(label.closest('[data-testid=stVegaLiteChart]'))
            && label.textContent.endsWith('…')) cut.push('chart label: ' + label.textContent);
    return cut;
}"""


def first_table(page) -> list[str]:
    """The header and body cells of the first visible table, scrolled into view (the grid
    writes its accessible cells once it is on screen)."""
    table = page.locator(f"{TABLES}:visible").first
    table.scroll_into_view_if_needed(timeout=30_000)
    table.locator("[role=columnheader]").first.wait_for(state="attached", timeout=60_000)
    still(page)
    return table.evaluate(
        """grid => Array.from(grid.querySelectorAll('[role=columnheader], [role=gridcell]'))
                   .map(cell => cell.textContent)"""
    )


def read_whole(page, name: str, charts: int = 0) -> None:
    """The page as it is, at each of WINDOWS: charts drawn, nothing cut, a screenshot."""
    for width in WINDOWS:
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_function("(w) => window.innerWidth === w", arg=width, timeout=60_000)
        settle(page, charts)
        assert page.evaluate(CUT) == [], (name, width)
        screenshot(page, f"viewer-{name}-{width}", width)
        assert page.locator(EXCEPTION).count() == 0, (name, width)


def open_run(page, run_dir: Path) -> None:
    run_dir_input = page.locator('[data-testid="stSidebar"] input').first
    run_dir_input.fill(str(run_dir))
    run_dir_input.press("Enter")
    page.wait_for_selector(f"text=Run {run_dir.name}", timeout=60_000)
    page.wait_for_selector(RUNNING, state="detached", timeout=60_000)


def visible_text(page, *texts: str) -> None:
    """Each text is on the page, visible (in the tab shown). Waited for: on a loaded machine
    Streamlit may still be writing the tab when the previous check returns."""
    for text in texts:
        page.get_by_text(text, exact=False).first.wait_for(state="visible", timeout=30_000)


# Per game: what its transcript shows (a placeholder would show none of it).
TRANSCRIPTS = {
    "liars_dice": ("Liar's Dice transcript", "Showdown:", "lost a die"),
    "passcode": ("Passcode transcript", "Question:", "Keeper, to A only", "revealed the word"),
    "nuclear_war": (
        "Nuclear War transcript", "positions swapped", "debate_1", "(president, the judge)",
        "The verdict followed the", "Decision:",
    ),
    "nil_recruitment": (
        "NIL Recruitment transcript", "universities swapped", "persuasion_3",
        "Every verdict of the panel", "Decision:",
    ),
    "public_goods": (
        "Public goods", "What each player earned", "Contributions per round",
        "Who punished whom", "Group 2", "I will contribute",
    ),
    "donor_game": (
        "Donor game", "What each player earned", "Giving and image over the rounds",
        "Who gave to whom", "The norms each player's choices agree with",
    ),
}  # fmt: skip
# The charts a game's transcript draws (public goods: contributions and the punishment matrix;
# the donor game: giving and image over time, each player's choices, who gave to whom)
TRANSCRIPT_CHARTS = {"public_goods": 2, "donor_game": 3}


def expected_seats(run_dir: Path) -> int:
    """The player seats of a run's matches, from its first stored turn (agent_a, agent_b, ...)."""
    first = orjson.loads((run_dir / "rounds.jsonl").read_bytes().splitlines()[0])
    return sum(re.fullmatch(r"agent_[a-z]", key) is not None for key in first)


def test_every_game_reads_whole_on_each_tab_at_1440_and_1024(page, every_kind_of_run):
    """A run of each turn game: its transcript's own content, its measures with intervals, its
    facts; the summary counts what happened (an aborted Liar's Dice match included)."""
    for kind in GAME_KINDS:
        run_dir = every_kind_of_run[kind]
        open_run(page, run_dir)
        page.wait_for_selector(f"text={tally_words(expected_tally(run_dir))}", timeout=30_000)
        # the tab bar of the run shown before goes once the new one is drawn: wait for it
        page.wait_for_function(
            """(names) => JSON.stringify(Array.from(
                   document.querySelectorAll('[data-testid="stTab"]')).map(t => t.innerText))
                   === JSON.stringify(names)""",
            arg=["Transcript", "Metrics", "Run facts"],
            timeout=60_000,
        )
        visible_text(page, *TRANSCRIPTS[kind])
        read_whole(page, f"{kind}-transcript", charts=TRANSCRIPT_CHARTS.get(kind, 0))
        open_tab(page, "Metrics")
        first = game_view(kind).MEASURES[0].label  # a contest's win rate
        page.wait_for_selector(f'[data-testid="stMetric"]:visible:has-text("{first}")')
        cards = page.evaluate(
            """(first) => Array.from(document.querySelectorAll('[data-testid=stMetric]'))
                   .filter(card => card.offsetParent !== null && card.querySelector(
                       '[data-testid=stMetricLabel]').innerText.trim() === first)
                   .map(card => card.innerText)""",
            first,
        )
        seats = expected_seats(run_dir)  # A and B, a group's A, B, C, ...
        assert len(cards) == seats and any("95% CI" in card for card in cards), cards
        read_whole(page, f"{kind}-metrics", charts=1)
        (measure,) = drawn_marks(page)
        assert measure["symbol"] >= 2 and measure["rule"] >= 1  # A and B: means and intervals
        open_tab(page, "Run facts")
        visible_text(page, "Seeds and calls of each match", "config hash")
        seeds = " ".join(first_table(page))
        assert "turns" in seeds and "2000" not in seeds and "game" in seeds
        read_whole(page, f"{kind}-run-facts")
        open_tab(page, "Transcript")


@pytest.fixture(scope="module")
def ladder_dir(project, every_kind_of_run, tmp_path_factory) -> Path:
    """`pdbench ladder` over the turn games' shared runs (three games in one ladder)."""
    out = tmp_path_factory.mktemp("ladder")
    runs = [str(every_kind_of_run[kind]) for kind in ("liars_dice", "passcode", "nuclear_war")]
    pdbench_in_process(project, "ladder", *runs, "--out", str(out))
    return out


def test_the_ladder_names_its_game_and_reads_whole_at_1440_and_1024(page, ladder_dir):
    run_dir_input = page.locator('[data-testid="stSidebar"] input').first
    run_dir_input.fill(str(ladder_dir))
    run_dir_input.press("Enter")
    page.wait_for_selector("text=Ratings in liars_dice", timeout=60_000)
    settle(page, charts=1)
    (chart,) = page.locator(f"{CHARTS}:visible").all()
    assert chart.bounding_box()["height"] >= 150  # the ratings chart was ~60 px tall
    labels = page.evaluate(
        """() => Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"] svg text'))
               .map(t => t.textContent)"""
    )
    assert "liars_probability" in labels  # a whole name (CUT finds any Vega shortened)
    ratings = first_table(page)
    assert ratings[:6] == ["rank", "agent", "rating", "95% CI", "W/D/L", "matches"]
    rating = ratings[ratings.index("1") + 2]
    assert rating.isdigit(), rating  # whole Elo points, never 1749.9247
    read_whole(page, "ladder", charts=1)


def test_the_2x2_pages_read_whole_at_1440_and_1024(page, viewer_url, run_dir):
    """The experiment's run: the Match tab's cards, the Conditions tab's charts (lines that sit
    at the same share drawn apart), Run facts' tables, whole at both widths."""
    open_run(page, run_dir)
    open_tab(page, "Match")
    read_whole(page, "match", charts=2)
    open_tab(page, "Conditions")
    read_whole(page, "conditions", charts=2)
    paths = page.evaluate(
        """() => Array.from(document.querySelectorAll(
                   '[data-testid="stVegaLiteChart"] svg g.mark-line path'))
               .filter(p => p.closest('[data-testid="stVegaLiteChart"]').offsetParent !== null)
               .map(p => p.getAttribute('d'))"""
    )
    assert len(set(paths)) == len(paths) == 4  # one line per condition, none hiding another
    open_tab(page, "Run facts")
    visible_text(page, "Seeds and calls of each match", "collapse k / threshold")
    read_whole(page, "run-facts")
    open_tab(page, "Match")
