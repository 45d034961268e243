"""Streamlit's scan of the installed packages for v2 components, once per test process.

Every new `AppTest` makes its own `BidiComponentManager`, whose
`discover_and_register_components` calls `scan_component_manifests`: it reads the metadata of
every installed distribution (about 0.17 s of CPU each time, measured with process_time). What it
finds depends only on the installed packages, which do not change during a test session, so the
first scan's result is given to every later one: each app still registers the very components a
fresh scan would find (the manager, its registration and the app run are untouched).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.components.v2 import manifest_scanner

_scan = manifest_scanner.scan_component_manifests
_found: list[tuple[manifest_scanner.ComponentManifest, Path]] | None = None


def scan_component_manifests_once(
    max_workers: int | None = None,
) -> list[tuple[manifest_scanner.ComponentManifest, Path]]:
    global _found
    if _found is None:
        _found = _scan(max_workers)
    return list(_found)  # a new list, as a fresh scan returns


@pytest.fixture(scope="module")
def components_scanned_once() -> Iterator[None]:
    """Use as `pytestmark = pytest.mark.usefixtures("components_scanned_once")`, after
    importing it into the test module."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(manifest_scanner, "scan_component_manifests", scan_component_manifests_once)
        yield
