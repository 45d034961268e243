"""Deal key files (pdbench.storage.deal_key): made once and race-free, private, read back exactly;
a run is dealt with its own folder's copy, and every way that copy can be lost, replaced or
contradicted is refused in one line saying what to do."""

from __future__ import annotations

import stat
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from helpers import TEST_DEAL

from pdbench.core.errors import PdbenchError
from pdbench.core.rng import UNKEYED, DealKey
from pdbench.storage.deal_key import (
    DEAL_KEY_FILE,
    deal_record,
    ensure_key,
    read_key,
    settle_run_deal,
    sweep_deal,
)
from pdbench.storage.manifest import RunManifest

OTHER = DealKey(bytes(range(1, 33)))


def never() -> DealKey:
    raise AssertionError("an existing run is never dealt anew")


def manifest(deal: DealKey | None) -> RunManifest:
    return RunManifest(run_id="r", deal=deal_record(deal) if deal is not None else None)


def test_a_key_file_is_private_and_reads_back_as_written(tmp_path):
    path = tmp_path / DEAL_KEY_FILE
    key, made = ensure_key(path, lambda: TEST_DEAL)
    assert made and key == TEST_DEAL and read_key(path) == TEST_DEAL
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == TEST_DEAL.secret.hex() + "\n"
    assert ensure_key(path, never) == (TEST_DEAL, False)  # made once
    assert [p.name for p in tmp_path.iterdir()] == [DEAL_KEY_FILE]  # no temporary left


@pytest.mark.parametrize(
    ("content", "reason"),
    [(None, "no such file"), ("abc\n", "not a deal key"), ("zz" * 32, "not a deal key")],
)
def test_a_bad_key_file_is_one_line_naming_the_setting_and_the_file(tmp_path, content, reason):
    path = tmp_path / "mine.key"
    if content is not None:
        path.write_text(content)
    with pytest.raises(PdbenchError) as caught:
        read_key(path, "run.deal_key_file")
    assert str(caught.value).startswith(f"run.deal_key_file: {path}: {reason}")


def test_writers_racing_to_make_a_key_all_get_the_one_that_won(tmp_path):
    """A sweep's jobs (processes, machines sharing the folder) start together: one key. The
    exclusion is the file system's (a hard link to a taken name fails), so threads released
    at once race exactly as processes do."""
    path = tmp_path / DEAL_KEY_FILE
    start = threading.Barrier(12)

    def race() -> str:
        start.wait()
        return ensure_key(path, DealKey.new)[0].fingerprint

    with ThreadPoolExecutor(12) as pool:
        fingerprints = [future.result() for future in [pool.submit(race) for _ in range(12)]]
    assert set(fingerprints) == {read_key(path).fingerprint}
    assert [p.name for p in tmp_path.iterdir()] == [DEAL_KEY_FILE]


def test_a_new_run_copies_its_sources_key_and_resumes_with_its_own(tmp_path):
    deal = settle_run_deal(tmp_path, None, new_run=lambda: TEST_DEAL)
    assert deal == TEST_DEAL and read_key(tmp_path / DEAL_KEY_FILE) == TEST_DEAL
    assert stat.S_IMODE((tmp_path / DEAL_KEY_FILE).stat().st_mode) == 0o600
    # the workspace's key may change (or be absent, on another machine): the run keeps its own
    assert settle_run_deal(tmp_path, manifest(TEST_DEAL), new_run=never) == TEST_DEAL
    # a folder whose first attempt stopped before its manifest keeps the key it was given
    assert settle_run_deal(tmp_path, None, new_run=lambda: OTHER) == TEST_DEAL


def test_a_run_dealt_before_keys_resumes_unkeyed(tmp_path):
    assert settle_run_deal(tmp_path, manifest(None), new_run=never) is UNKEYED
    assert not (tmp_path / DEAL_KEY_FILE).exists()
    with pytest.raises(PdbenchError, match=r"dealt without a key .* drop the setting"):
        settle_run_deal(tmp_path, manifest(None), new_run=never, pinned=("s", TEST_DEAL))


def test_a_lost_or_replaced_run_key_is_refused(tmp_path):
    with pytest.raises(PdbenchError, match=rf"deal\.key is missing: .* {TEST_DEAL.fingerprint}"):
        settle_run_deal(tmp_path, manifest(TEST_DEAL), new_run=never)
    (tmp_path / DEAL_KEY_FILE).write_text(OTHER.secret.hex() + "\n")
    with pytest.raises(PdbenchError, match=f"holds deal key {OTHER.fingerprint}, but the run"):
        settle_run_deal(tmp_path, manifest(TEST_DEAL), new_run=never)


def test_a_pinned_key_must_be_the_runs_own(tmp_path):
    settle_run_deal(tmp_path, None, new_run=lambda: TEST_DEAL)
    pinned = ("run.deal_key_file", OTHER)
    with pytest.raises(PdbenchError) as caught:
        settle_run_deal(tmp_path, manifest(TEST_DEAL), new_run=never, pinned=pinned)
    message = str(caught.value)
    assert message.startswith(f"run.deal_key_file: holds deal key {OTHER.fingerprint}")
    assert "another --run-id" in message and "\n" not in message
    same = ("run.deal_key_file", TEST_DEAL)
    assert settle_run_deal(tmp_path, manifest(TEST_DEAL), new_run=never, pinned=same) == TEST_DEAL


def test_a_sweep_deals_with_its_own_key_unless_it_was_begun_before_keys(tmp_path):
    sweep = tmp_path / "sweep"
    assert sweep_deal(sweep, lambda: TEST_DEAL, begun_before_keys=False) == TEST_DEAL
    assert sweep_deal(sweep, never, begun_before_keys=False) == TEST_DEAL  # the jobs after it
    assert sweep_deal(tmp_path / "older", never, begun_before_keys=True) is UNKEYED


def test_the_manifest_names_the_key_never_holds_it():
    record = deal_record(TEST_DEAL)
    assert record is not None
    assert record.model_dump() == {
        "derivation": "hmac-sha256",
        "file": "deal.key",
        "fingerprint": TEST_DEAL.fingerprint,
    }
    assert TEST_DEAL.secret.hex() not in RunManifest(run_id="r", deal=record).model_dump_json()
    assert deal_record(UNKEYED) is None
