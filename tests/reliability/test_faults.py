"""Quick variants of the fault campaign (the heavy ones are tests/stress, LORE_STRESS=1):
concurrent writers, SIGKILLed writers, interrupted imports, a full disk."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

sys.path.insert(0, str(Path(__file__).parent))
import workloads

Run = Callable[..., Result]


def test_concurrent_mixed_captures_and_handoffs(data_dir: Path) -> None:
    result = workloads.concurrent_captures(data_dir, workers=4, per_worker=15, every=7)
    assert result["exit_codes"] == [0] * 4
    assert result["failures"] == []
    assert result["written"] == 60
    assert result["lost"] == 0
    assert result["found"] == 60
    assert result["unique_ids"] and result["acked_unique"]
    assert result["pattern_validations"] == {"expected": 8, "stored": 8}
    # 4 workers x 1 goal update each (step 3) on one shared goal document
    assert result["goal_criteria"] == {"expected": 4, "stored": 4, "unique_ids": True}
    assert result["validate"]["issues"] == []


def test_writers_killed_at_random_lose_nothing_acknowledged(data_dir: Path, run: Run) -> None:
    result = workloads.killed_writers(data_dir, kills=4, seed=1)
    assert result["written"] > 0
    assert result["lost"] == 0
    codes = {i["code"] for i in result["validate_before_repair"]["issues"]}
    assert codes <= {"torn-line", "parse"}
    run("doctor", "--repair")
    assert workloads.validate(data_dir)["issues"] == []


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_interrupted_import_leaves_a_prefix_and_a_rerun_completes_it(
    data_dir: Path, tmp_path: Path, run: Run, how: signal.Signals
) -> None:
    source = tmp_path / "export.jsonl"
    lines = workloads.export_file(source, 600)
    proc = workloads.start_import(data_dir, source, chunk=5)
    try:
        assert workloads.wait_for_writes(data_dir, proc), proc.communicate()
        proc.send_signal(how)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    stored = workloads.stored_ids(data_dir)
    file_ids = [o["id"] for o in lines]
    assert set(stored) <= set(file_ids)
    assert 0 < len(stored) < len(file_ids), "the import ended before the signal"
    for prefix in ("obs", "fail"):  # each log holds a prefix of its kind's lines
        mine = [i for i in file_ids if i.startswith(prefix + "-")]
        got = [i for i in stored if i.startswith(prefix + "-")]
        assert got == mine[: len(got)]
    if how == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 130
        message = err.decode()
        written = len(stored)
        assert f"import interrupted: wrote {written} of 600 records" in message
        assert written % 5 == 0  # the batch in hand was finished, never half written
    again = run("import", str(source), "--json")
    assert again.exit_code == 0, again.output
    reply = json.loads(again.stdout)
    assert reply["skipped_existing"] == len(stored)
    assert reply["imported"] == 600 - len(stored)
    final = workloads.stored_ids(data_dir)
    assert sorted(final) == sorted(file_ids)
    assert workloads.validate(data_dir)["issues"] == []


def test_import_stop_in_process_reports_how_far_it_got(data_dir: Path, tmp_path: Path) -> None:
    from lore.bulk import importer as bulk
    from lore.errors import InterruptedByUser
    from lore.store.core import Store

    source = tmp_path / "export.jsonl"
    workloads.export_file(source, 30)
    asked = iter([False, True])
    old = bulk.WRITE_CHUNK
    bulk.WRITE_CHUNK = 12
    try:
        with pytest.raises(InterruptedByUser) as info:
            bulk.import_records(Store(data_dir), source, stop=lambda: next(asked))
    finally:
        bulk.WRITE_CHUNK = old
    assert info.value.exit_code == 130
    assert info.value.details["written"] == 12
    assert info.value.details["total"] == 30
    assert len(workloads.stored_ids(data_dir)) == 12


def test_full_disk_gives_a_clear_error_and_leaves_nothing_partial(
    tmp_path: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    with workloads.small_filesystem(tmp_path / "small", "128k") as mount:
        if mount is None:
            pytest.skip("cannot mount a tmpfs here (needs root)")
        root = mount / "root"
        monkeypatch.setenv("LORE_DATA_DIR", str(root))
        acked, failed = [], None
        for i in range(400):
            result = run("observe", f"note {i} " + "y" * 3000, "--json")
            if result.exit_code != 0:
                failed = result
                break
            acked.append(json.loads(result.stdout)["id"])
        assert failed is not None, "the disk never filled"
        assert failed.exit_code == 1
        log = root / "inbox" / "data" / "observations.jsonl"
        error = json.loads(failed.stdout)
        assert error["error"] == f"No space left on device: {log}"  # which file: the log
        assert error["path"] == str(log)
        raw = log.read_bytes()
        assert raw.endswith(b"\n")
        assert workloads.stored_ids(root) == acked
        # a document on the full disk: refused whole, no partial or temporary file
        result = run("learn", "Big pattern", "--solution", "z" * 200_000, "--json")
        assert result.exit_code == 1
        patterns = root / "patterns" / "data" / "patterns"
        assert not patterns.exists() or list(patterns.iterdir()) == []
        report = workloads.validate(root)
        assert report["errors"] == 0 and report["warnings"] == 0
        assert sorted(report["issues"], key=str) == []


def test_lore_validate_after_a_subprocess_capture_on_a_full_disk(tmp_path: Path) -> None:
    with workloads.small_filesystem(tmp_path / "small2", "64k") as mount:
        if mount is None:
            pytest.skip("cannot mount a tmpfs here (needs root)")
        lore = str(Path(sys.executable).parent / "lore")
        env_root = str(mount / "root")
        codes = []
        for i in range(100):
            done = subprocess.run(
                [lore, "--data-dir", env_root, "observe", f"n{i} " + "q" * 20000],
                capture_output=True,
                text=True,
                check=False,
            )
            codes.append(done.returncode)
            if done.returncode:
                assert done.stderr.startswith("lore: error: No space left on device: ")
                assert env_root in done.stderr  # the path of the file that did not fit
                break
        assert codes[-1] == 1
        check = subprocess.run(
            [lore, "--data-dir", env_root, "validate"], capture_output=True, text=True, check=False
        )
        assert check.returncode == 0, check.stdout


def test_a_parallel_import_under_the_stop_handlers_ends(data_dir: Path, tmp_path: Path) -> None:
    """The import's SIGTERM handler must not reach its forked check workers: the pool
    ends them with SIGTERM when checking is done, and would wait for them forever."""
    source = tmp_path / "export.jsonl"
    workloads.export_file(source, 400)
    code = (
        "import lore.bulk.importer as b; b.PARALLEL_MIN_LINES = 10; b.CHUNK = 20\n"
        "import os; b.os.sched_getaffinity = lambda pid: {0, 1, 2, 3}\n"
        f"from lore.cli import main; main(['--data-dir', {str(data_dir)!r}, 'import', "
        f"{str(source)!r}])"
    )
    for _ in range(3):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, timeout=60, check=False
        )
        assert done.returncode == 0, done.stderr
    assert len(workloads.stored_ids(data_dir)) == 400


def test_a_document_folder_stamp_ignores_temp_files_that_come_and_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by the 8 x 500 stress run: a reader stat-ing another writer's temporary
    file just as it was renamed failed with "No such file or directory: .pat-....tmp"."""
    import os

    from lore.storage import stamp as stamp_module

    folder = tmp_path / "patterns"
    folder.mkdir()
    (folder / "pat-1.yaml").write_text("name: a\n")
    temp = folder / ".pat-1.yaml.0a1b2c.tmp"
    temp.write_text("name: b\n")
    first = stamp_module.stamp(folder)
    temp.unlink()
    assert stamp_module.stamp(folder) == first
    assert [entry[0] for entry in first] == ["pat-1.yaml"]

    real = os.scandir

    class Vanishing:
        name = "pat-2.yaml"

        def stat(self) -> os.stat_result:
            raise FileNotFoundError(2, "No such file or directory", str(folder / self.name))

    class Entries:
        def __init__(self, path: Path) -> None:
            self.inner = real(path)

        def __enter__(self) -> list[object]:
            return [*self.inner, Vanishing()]

        def __exit__(self, *exc: object) -> None:
            self.inner.close()

    monkeypatch.setattr(stamp_module.os, "scandir", Entries)
    assert stamp_module.stamp(folder) == first
