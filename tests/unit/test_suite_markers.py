"""`pytest -m "not slow"` is the inner loop: every end-to-end test is marked slow (conftest)."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_every_collected_end_to_end_test_is_slow(request):
    items = request.session.items
    e2e = [item for item in items if TESTS / "e2e" in Path(str(item.path)).parents]
    not_slow = [item.nodeid for item in e2e if item.get_closest_marker("slow") is None]
    assert not not_slow, not_slow[:10]
    here = [item for item in items if item.nodeid == request.node.nodeid]
    assert here and here[0].get_closest_marker("slow") is None  # a unit test is not
