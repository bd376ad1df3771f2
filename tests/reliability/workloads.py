"""Fault workloads shared by the quick tests (tests/reliability) and the stress runs
(tests/stress, LORE_STRESS=1): concurrent writers, writers killed at random, interrupted
imports, a full disk. Each returns plain numbers for the report (docs/reliability.md)."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FORK = multiprocessing.get_context("fork")
PYTHON = sys.executable


def stored_ids(root: Path) -> list[str]:
    """Every record id in the root, as `lore export` and the sessions list see them."""
    from lore.store.core import Store

    store = Store(root)
    return [r.id for r in store.all_records(hidden=True)]


def validate(root: Path) -> dict[str, Any]:
    from lore.store.core import Store
    from lore.upkeep.validate import validate as check

    return check(Store(root)).to_dict()


# --- concurrency ------------------------------------------------------------------------------


def _commands(worker: int, i: int, shared: str) -> list[str]:
    tag = os.urandom(6).hex()
    return [
        ["observe", f"w{worker} note {i} {tag}"],
        ["remember", f"Adopt {tag} for w{worker} step {i}", "--force", "-r", f"per {shared}"],
        ["fail", "Timeout", f"w{worker} timeout {i} {tag}"],
        ["learn", f"Pattern {tag} w{worker} {i}", "--force"],
        ["capture", "--evidence", f"w{worker} measured {i} {tag}"],
    ][i % 5]


def _capture_worker(
    barrier: Any,
    worker: int,
    root: str,
    count: int,
    every: int,
    out: str,
    shared: str,
    goal: str,
) -> None:
    os.environ["LORE_DATA_DIR"] = root
    from click.testing import CliRunner

    from lore.cli import cli

    runner = CliRunner()
    acks: list[dict[str, Any]] = []
    failures: list[str] = []
    resolved = 0
    criteria = 0
    barrier.wait(30)
    for i in range(count):
        env = None
        args = _commands(worker, i, shared)
        if every and i % every == every - 1:
            args = ["handoff", f"w{worker} handoff {i}"]
            env = {"LORE_SESSION_ID": f"session-w{worker}h{i}"}
        result = runner.invoke(cli, [*args, "--json"], env=env)
        if result.exit_code != 0:
            failures.append(f"{args}: {result.exit_code} {result.output}")
            continue
        reply = json.loads(result.stdout)
        acks.append({"id": reply["id"], "type": reply["type"]})
        if reply["type"] == "decision" and i % 10 == 1:
            # a pattern validation: the decision cites the shared pattern, so every
            # successful review raises it (a read-modify-write of one document)
            done = runner.invoke(
                cli, ["review", "--resolve", reply["id"], "--outcome", "successful", "--json"]
            )
            if done.exit_code == 0:
                resolved += 1
            else:
                failures.append(f"review {reply['id']}: {done.exit_code} {done.output}")
        if i % 50 == 3:
            # a goal update: every worker adds criteria to the one shared goal document
            # (every 50th step: 8 x 500 steps give a goal of 80 criteria, each update a
            # locked read-modify-write of the whole YAML document)
            done = runner.invoke(
                cli, ["goal", "update", goal, "--add-criterion", f"w{worker} step {i}", "--json"]
            )
            if done.exit_code == 0:
                criteria += 1
            else:
                failures.append(f"goal update: {done.exit_code} {done.output}")
    Path(out).write_text(
        json.dumps({"acks": acks, "failures": failures, "resolved": resolved, "criteria": criteria})
    )


def concurrent_captures(root: Path, workers: int, per_worker: int, every: int) -> dict[str, Any]:
    """``workers`` processes each run ``per_worker`` CLI writes of mixed kinds (every
    ``every``-th one a handoff) at once; returns what was acknowledged and found."""
    from lore.capture.core import capture
    from lore.store.core import Store

    shared = capture(Store(root), "Shared pattern", kind="pattern", force=True).record.id
    from lore.usecases.goals import create_goal

    goal = create_goal(Store(root), "Shared goal")["id"]
    barrier = FORK.Barrier(workers)
    outs = [root.parent / f"acks-{w}.json" for w in range(workers)]
    procs = [
        FORK.Process(
            target=_capture_worker,
            args=(barrier, w, str(root), per_worker, every, str(outs[w]), shared, goal),
        )
        for w in range(workers)
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(1800)
    acks: list[dict[str, Any]] = []
    failures: list[str] = []
    resolved = criteria = 0
    for out in outs:
        data = json.loads(out.read_text())
        acks.extend(data["acks"])
        failures.extend(data["failures"])
        resolved += data["resolved"]
        criteria += data["criteria"]
    validations = Store(root).get(shared).validations  # type: ignore[attr-defined]
    goal_criteria = Store(root).get(goal).criteria  # type: ignore[attr-defined]
    found = stored_ids(root)
    acked = [a["id"] for a in acks]
    return {
        "exit_codes": [p.exitcode for p in procs],
        "pattern_validations": {"expected": resolved, "stored": validations},
        "goal_criteria": {
            "expected": criteria,
            "stored": len(goal_criteria),
            "unique_ids": len({c["id"] for c in goal_criteria}) == len(goal_criteria),
        },
        "written": len(acked),
        "failures": failures,
        "found": len(set(acked) & set(found)),
        "lost": len(set(acked) - set(found)),
        "unique_ids": len(set(found)) == len(found),
        "acked_unique": len(set(acked)) == len(acked),
        "validate": validate(root),
    }


# --- crash safety -----------------------------------------------------------------------------

_WRITER = """
import os, sys
from lore.capture.core import capture
from lore.store.core import Store
store = Store(sys.argv[1])
kinds = ["observation", "decision", "failure", "pattern", "evidence"]
i = 0
while True:
    tag = os.urandom(6).hex()
    kind = kinds[i % len(kinds)]
    fields = {"error_type": "Timeout"} if kind == "failure" else {}
    result = capture(store, f"crash {kind} {i} {tag} " + "x" * (i % 7 * 300), kind=kind,
                     fields=fields, force=True)
    sys.stdout.write(result.record.id + "\\n")
    sys.stdout.flush()
    i += 1
"""


def killed_writers(root: Path, kills: int, seed: int = 0) -> dict[str, Any]:
    """Start a writer, SIGKILL it at a random moment once it writes; ``kills`` times."""
    rng = random.Random(seed)
    acked: list[str] = []
    for _ in range(kills):
        proc = subprocess.Popen(
            [PYTHON, "-c", _WRITER, str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdout is not None
        first = proc.stdout.readline()  # it is writing now
        time.sleep(rng.uniform(0.0, 0.15))
        proc.send_signal(signal.SIGKILL)
        rest = proc.stdout.read()
        proc.stdout.close()
        proc.wait()
        acked.extend(
            x.decode() for x in [first, *rest.splitlines(keepends=True)] if x.endswith(b"\n")
        )
    acked = [a.strip() for a in acked if a.strip()]
    before = validate(root)
    found = set(stored_ids(root))
    return {
        "kills": kills,
        "written": len(acked),
        "found": len(set(acked) & found),
        "lost": len(set(acked) - found),
        "validate_before_repair": before,
    }


# --- interrupted import -----------------------------------------------------------------------


def export_file(path: Path, count: int) -> list[dict[str, Any]]:
    """A JSONL export of ``count`` records with ids: observations, failures, patterns."""
    lines = []
    for i in range(count):
        kind = ("observation", "failure", "pattern")[i % 3]
        obj: dict[str, Any] = {"kind": kind, "timestamp": "2026-01-01T00:00:00Z"}
        if kind == "observation":
            obj.update(id=f"obs-imp{i:08d}", content=f"imported note {i}")
        elif kind == "failure":
            obj.update(id=f"fail-imp{i:08d}", error_type="Timeout", error_message=f"t {i}")
        else:
            obj.update(id=f"pat-imp{i:08d}", name=f"Imported pattern number {i}")
        lines.append(obj)
    path.write_text("".join(json.dumps(o) + "\n" for o in lines))
    return lines


def start_import(root: Path, file: Path, chunk: int) -> subprocess.Popen[bytes]:
    code = (
        f"import lore.bulk.importer as b; b.WRITE_CHUNK = {chunk}\n"
        f"from lore.cli import main; main(['--data-dir', {str(root)!r}, 'import', {str(file)!r}])"
    )
    return subprocess.Popen([PYTHON, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for_writes(root: Path, proc: subprocess.Popen[bytes], timeout: float = 60) -> bool:
    """True once the import has stored something (its write phase has begun)."""
    log = root / "inbox" / "data" / "observations.jsonl"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(OSError):
            if log.stat().st_size > 0:
                return True
        time.sleep(0.002)
    return False


# --- full disk --------------------------------------------------------------------------------


@contextlib.contextmanager
def small_filesystem(path: Path, size: str = "256k") -> Iterator[Path | None]:
    """A tmpfs of ``size`` mounted at ``path`` (None when this process may not mount)."""
    path.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        yield None
        return
    if done.returncode != 0:
        yield None
        return
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)
