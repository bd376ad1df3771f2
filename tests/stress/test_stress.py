"""The heavy fault campaign, run only with LORE_STRESS=1 (minutes, not seconds):

    LORE_STRESS=1 .venv/bin/python -m pytest -q -s tests/stress

Each test prints one `stress:` JSON line with its figures (records written, found,
lost); docs/reliability.md holds the latest ones.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

sys.path.insert(0, str(Path(__file__).parent.parent / "reliability"))
import workloads

pytestmark = pytest.mark.skipif(
    os.environ.get("LORE_STRESS") != "1", reason="stress run: set LORE_STRESS=1"
)

Run = Callable[..., Result]


def report(name: str, figures: dict[str, Any]) -> None:
    shown = {k: v for k, v in figures.items() if not k.startswith("validate")}
    print(f"\nstress: {json.dumps({'scenario': name, **shown})}")


def test_8_processes_x_500_mixed_captures_and_handoffs(data_dir: Path) -> None:
    result = workloads.concurrent_captures(data_dir, workers=8, per_worker=500, every=50)
    report("concurrency 8x500", result)
    assert result["exit_codes"] == [0] * 8
    assert result["failures"] == []
    assert result["written"] == 4000
    assert result["lost"] == 0
    assert result["unique_ids"] and result["acked_unique"]
    expected = result["pattern_validations"]["expected"]
    assert result["pattern_validations"] == {"expected": expected, "stored": expected}
    criteria = result["goal_criteria"]["expected"]
    assert criteria == 8 * 10  # every worker's goal update was acknowledged
    assert result["goal_criteria"] == {"expected": criteria, "stored": criteria, "unique_ids": True}
    assert expected == 8 * 50
    assert result["validate"]["issues"] == []


def test_120_sigkills_lose_nothing_acknowledged(data_dir: Path, run: Run) -> None:
    result = workloads.killed_writers(data_dir, kills=120, seed=10)
    codes = {i["code"] for i in result["validate_before_repair"]["issues"]}
    run("doctor", "--repair")
    after = workloads.validate(data_dir)
    report("crash safety 120 SIGKILLs", {**result, "issues_before_repair": sorted(codes)})
    assert result["lost"] == 0
    assert codes <= {"torn-line", "parse"}
    assert after["issues"] == []


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_interrupted_import_of_30000_records(
    data_dir: Path, tmp_path: Path, run: Run, how: signal.Signals
) -> None:
    source = tmp_path / "export.jsonl"
    lines = workloads.export_file(source, 30000)
    proc = workloads.start_import(data_dir, source, chunk=200)
    try:
        assert workloads.wait_for_writes(data_dir, proc, timeout=300)
        proc.send_signal(how)
        _out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    first = len(workloads.stored_ids(data_dir))
    again = run("import", str(source), "--json")
    reply = json.loads(again.stdout)
    final = workloads.stored_ids(data_dir)
    report(
        f"import interrupted by {how.name}",
        {
            "records": len(lines),
            "stored_before_rerun": first,
            "exit": proc.returncode,
            "rerun_imported": reply["imported"],
            "rerun_skipped_existing": reply["skipped_existing"],
            "found": len(final),
            "lost": len({o["id"] for o in lines} - set(final)),
            "duplicates": len(final) - len(set(final)),
        },
    )
    assert 0 < first < len(lines)
    assert proc.returncode == (-signal.SIGKILL if how == signal.SIGKILL else 130)
    if how != signal.SIGKILL:
        assert f"import interrupted: wrote {first} of 30000 records" in err.decode()
    assert sorted(final) == sorted(o["id"] for o in lines)
    assert workloads.validate(data_dir)["issues"] == []


def test_full_disk_campaign(tmp_path: Path, run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    with workloads.small_filesystem(tmp_path / "small", "512k") as mount:
        if mount is None:
            pytest.skip("cannot mount a tmpfs here (needs root)")
        monkeypatch.setenv("LORE_DATA_DIR", str(mount / "root"))
        acked: list[str] = []
        refused = 0
        for i in range(3000):
            kind = ("observe", "fail", "learn")[i % 3]
            args = {
                "observe": ["observe", f"n{i} " + "a" * (i % 50 * 100)],
                "fail": ["fail", "Timeout", f"t{i} " + "b" * (i % 40 * 100)],
                "learn": ["learn", f"Pattern {i} {os.urandom(4).hex()}", "--force"],
            }[kind]
            result = run(*args, "--json")
            if result.exit_code == 0:
                acked.append(json.loads(result.stdout)["id"])
            else:
                assert result.exit_code == 1
                assert "No space left on device" in json.loads(result.stdout)["error"]
                refused += 1
        found = set(workloads.stored_ids(mount / "root"))
        check = workloads.validate(mount / "root")
        leftovers = [p for p in (mount / "root").rglob("*.tmp")]
        report(
            "full disk (512 KiB tmpfs)",
            {
                "written": len(acked),
                "refused": refused,
                "found": len(found & set(acked)),
                "lost": len(set(acked) - found),
                "issues": len(check["issues"]),
                "temp_files": len(leftovers),
            },
        )
        assert refused > 0
        assert set(acked) == found
        assert check["issues"] == []
        assert leftovers == []


@pytest.mark.parametrize("mode", ["merge", "rebase"])
def test_three_clones_writing_beside_sync_loops_for_20_seconds_lose_nothing(
    run: Run, tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue 15 campaign's run: three writer loops and a sync loop per clone."""
    import time

    sys.path.insert(0, str(Path(__file__).parent.parent))
    import test_sync_safety as sync_safety

    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "t")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "t@example.com")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    (tmp_path / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    clones = sync_safety.team(run, tmp_path, 3)
    until = time.monotonic() + 20.0
    procs = []
    for c, clone in enumerate(clones):
        for w in range(3):
            out = tmp_path / f"acked-{c}-{w}"
            args = (str(clone), str(out), until, w)
            procs.append(sync_safety.FORK.Process(target=sync_safety._writer, args=args))
        procs.append(
            sync_safety.FORK.Process(target=sync_safety._syncer, args=(str(clone), mode, until))
        )
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
    acked: set[str] = set()
    for file in tmp_path.glob("acked-*"):
        acked |= set(file.read_text().split())
    for clone in [*clones, *clones]:
        sync_safety.lore(run, clone, "sync", f"--{mode}")
    lost = {c.name: len(acked - sync_safety.ids(c)) for c in clones}
    report(f"sync beside writers ({mode})", {"acknowledged": len(acked), "lost": lost})
    assert all(n == 0 for n in lost.values())
