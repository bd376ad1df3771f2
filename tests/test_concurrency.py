"""Real processes writing at once: no lost, torn or duplicated records, no lost updates."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from lore.model import kind_class
from lore.storage import jsonl, yamlio
from lore.store.core import Store

FORK = multiprocessing.get_context("fork")
TS = "2024-01-01T00:00:00.000000Z"


# These tests are about lost, torn or doubled writes, not about lock waits: on a loaded
# machine (the suite runs on every core, beside other work) one of several processes
# polling for the same lock can wait past the default 10 s, so each waits up to LOCK_WAIT;
# a deadlock still fails the test, at JOIN_WAIT.
LOCK_WAIT = "120"
JOIN_WAIT = 180


def run_workers(target: Any, count: int, *args: Any) -> None:
    """Start ``count`` processes that wait for each other, then run ``target(worker, *args)``."""
    barrier = FORK.Barrier(count)
    workers = [
        FORK.Process(target=_start, args=(barrier, target, worker, *args))
        for worker in range(count)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(JOIN_WAIT)
    for worker in workers:
        if worker.exitcode is None:  # still running: a hang, which fails the test below
            worker.kill()
            worker.join()
    assert [w.exitcode for w in workers] == [0] * count


def _start(barrier: Any, target: Any, worker: int, *args: Any) -> None:
    os.environ["LORE_LOCK_TIMEOUT"] = LOCK_WAIT
    barrier.wait(60)
    target(worker, *args)


def _add_observations(worker: int, root: str, count: int) -> None:
    store = Store(root)
    cls = kind_class("observation")
    for i in range(count):
        record = cls.from_dict(
            {"id": f"obs-{worker:04x}{i:08x}", "timestamp": TS, "content": f"w{worker} n{i}"}
        )
        store.add([record])


def test_parallel_appends_keep_every_record_exactly_once(data_dir: Path) -> None:
    workers, per_worker = 8, 200

    run_workers(_add_observations, workers, str(data_dir), per_worker)

    path = Store(data_dir).location("observation")
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    assert raw.count(b"\n") == workers * per_worker
    rows, issues = jsonl.read(path)
    assert issues == []
    expected = {
        f"obs-{w:04x}{i:08x}": f"w{w} n{i}" for w in range(workers) for i in range(per_worker)
    }
    assert len(rows) == len(expected)
    assert {obj["id"]: obj["content"] for _, obj in rows} == expected
    # Each worker's own records stay in the order it wrote them.
    for w in range(workers):
        mine = [obj["id"] for _, obj in rows if obj["id"].startswith(f"obs-{w:04x}")]
        assert mine == sorted(mine)
    store = Store(data_dir)
    assert len(store.records("observation")) == workers * per_worker
    assert store.issues == []


PATTERN = "pat-00000000c0de"


def _revise_pattern(worker: int, root: str, count: int) -> None:
    store = Store(root)
    for i in range(count):
        store.revise(PATTERN, {f"w{worker}_{i}": i})


def _increment(worker: int, root: str, record_id: str, field: str, count: int) -> None:
    store = Store(root)
    for _ in range(count):
        store.update(record_id, lambda state: {field: state.get(field, 0) + 1})


def _seed_pattern(data_dir: Path) -> Path:
    store = Store(data_dir)
    store.add([kind_class("pattern").from_dict({"id": PATTERN, "timestamp": TS, "name": "shared"})])
    file = store.location("pattern") / f"{PATTERN}.yaml"
    text = file.read_text(encoding="utf-8")
    file.write_text("# hand-written note\n" + text, encoding="utf-8")
    return file


def test_parallel_revisions_of_one_document_lose_no_field(data_dir: Path) -> None:
    file = _seed_pattern(data_dir)

    run_workers(_revise_pattern, 4, str(data_dir), 25)

    doc = yamlio.to_plain(yamlio.load(file))
    assert {k: v for k, v in doc.items() if k.startswith("w")} == {
        f"w{w}_{i}": i for w in range(4) for i in range(25)
    }
    assert file.read_text(encoding="utf-8").startswith(
        "# hand-written note\nid: pat-00000000c0de\n"
    )
    assert sorted(p.name for p in file.parent.iterdir()) == [f".{PATTERN}.yaml.lock", file.name]


def test_parallel_increments_of_a_document_end_at_exactly_100(data_dir: Path) -> None:
    file = _seed_pattern(data_dir)

    run_workers(_increment, 4, str(data_dir), PATTERN, "validations", 25)

    assert Store(data_dir).get(PATTERN).validations == 100  # type: ignore[attr-defined]
    assert "validations: 100\n" in file.read_text(encoding="utf-8")
    assert file.read_text(encoding="utf-8").startswith("# hand-written note\n")


@pytest.mark.parametrize(("kind", "per_worker"), [("observation", 25), ("project", 10)])
def test_parallel_increments_of_a_log_record_and_a_project_lose_nothing(
    data_dir: Path, kind: str, per_worker: int
) -> None:
    record_id = "obs-00000000c0de" if kind == "observation" else "shared-project"
    data = {"id": record_id, "timestamp": TS, "content": "c", "name": record_id}
    cls = kind_class(kind)
    Store(data_dir).add([cls.from_dict({k: v for k, v in data.items() if k in cls.field_names()})])

    run_workers(_increment, 4, str(data_dir), record_id, "count", per_worker)

    store = Store(data_dir)
    assert store.get(record_id).extra == {"count": 4 * per_worker}
    assert store.issues == []
    if kind == "observation":  # one revision line per increment, none torn
        rows, issues = jsonl.read(store.location(kind))
        assert issues == []
        assert [obj.get("_op") for _, obj in rows] == [None] + ["revise"] * 4 * per_worker


def test_parallel_cli_captures_each_print_the_id_they_stored(data_dir: Path) -> None:
    env = {**os.environ, "LORE_DATA_DIR": str(data_dir), "NO_COLOR": "1"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "lore", "observe", f"parallel message {n}", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=env,
        )
        for n in range(6)
    ]
    printed: dict[str, str] = {}
    for n, proc in enumerate(procs):
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err.decode()
        result = orjson.loads(out)
        assert result["ok"] is True
        assert result["type"] == "observation"
        assert result["record"]["id"] == result["id"]
        printed[result["id"]] = f"parallel message {n}"

    store = Store(data_dir)
    stored = {r.id: r.content for r in store.records("observation")}  # type: ignore[attr-defined]
    assert stored == printed
    rows, issues = jsonl.read(store.location("observation"))
    assert issues == []
    assert len(rows) == 6
