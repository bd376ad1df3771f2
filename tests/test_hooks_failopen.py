"""Every hook entry point fails open: exit 0, quickly, nothing harmful printed.

The installed ``lore hooks run EVENT`` is run as Claude Code runs it (a JSON payload on
stdin, a transcript on disk) against a data root that is missing, read-only, locked by
another process, corrupt, or on a full disk. Whatever happens inside, the agent's
session must go on: exit status 0, stdout empty or one hook JSON object, no traceback.
The one-second promise is measured in bench/ (docs/reliability.md); here a generous
bound only catches a hang (a lock wait of LORE_LOCK_TIMEOUT seconds, say).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

LORE = Path(sys.executable).parent / "lore"
EVENTS = (
    "session-start",
    "user-prompt-submit",
    "post-tool-use",
    "post-tool-use-failure",
    "pre-compact",
    "stop",
    "session-end",
)
HANG = 5.0  # seconds: far above the 1 s budget, far below a lock timeout plus start-up


def hook(event: str, root: Path, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    transcript = tmp_path / "transcript.jsonl"
    if not transcript.exists():
        lines = [
            {"type": "user", "message": {"role": "user", "content": "Add retries to the client"}},
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t1",
                            "name": "Edit",
                            "input": {"file_path": str(tmp_path / "work" / "client.py")},
                        }
                    ],
                },
            },
        ]
        transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    payload = {
        "session_id": "5f0e9a3c-1b2d-4e5f-8a9b-0c1d2e3f4a5b",
        "transcript_path": str(transcript),
        "cwd": str(tmp_path / "work"),
        "hook_event_name": event,
        "prompt": "Use Postgres? Retry calls to the client like last time",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q tests/test_client.py", "description": "Run tests"},
        "tool_use_id": "toolu_01",
        "error": "Exit code 1\nFAILED tests/test_client.py::test_retry - AssertionError\n"
        "1 failed, 3 passed in 0.2s",
    }
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("LORE_")},
        "LORE_DATA_DIR": str(root),
        "LORE_CACHE_DIR": str(tmp_path / "cache"),
        "LORE_PROJECT": "shop",
    }
    start = time.monotonic()
    done = subprocess.run(
        [str(LORE), "hooks", "run", event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    return done, time.monotonic() - start


def assert_failed_open(done: subprocess.CompletedProcess[str], elapsed: float) -> None:
    assert done.returncode == 0, done.stderr
    assert elapsed < HANG, f"the hook took {elapsed:.1f} s"
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    if done.stdout.strip():
        shown = json.loads(done.stdout)  # one JSON object for the agent, nothing else
        assert isinstance(shown, dict)
        assert set(shown) <= {"hookSpecificOutput", "systemMessage", "continue"}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root with a handoff in it, so every log and folder exists with its lock file."""
    base = tmp_path_factory.mktemp("template")
    root = base / "root"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("LORE_")},
        "LORE_DATA_DIR": str(root),
        "LORE_CACHE_DIR": str(base / "cache"),
    }
    for args in (
        ["init"],
        ["remember", "Use Postgres because: transactions", "--project", "shop"],
        ["fail", "Timeout", "slow", "--project", "shop"],
        ["learn", "Retry calls", "--solution", "backoff", "--project", "shop"],
        ["handoff", "Seeded.", "--project", "shop"],
    ):
        subprocess.run([str(LORE), *args], env=env, cwd=base, capture_output=True, check=True)
    return root


def seeded(root: Path, template: Path) -> None:

    shutil.copytree(template, root, dirs_exist_ok=True)


@contextlib.contextmanager
def mounted(path: Path, size: str) -> Iterator[None]:
    path.mkdir(parents=True, exist_ok=True)
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
        capture_output=True,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root and mount rights)")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)


@pytest.mark.parametrize("event", EVENTS)
def test_missing_root(event: str, tmp_path: Path) -> None:
    (tmp_path / "work").mkdir(exist_ok=True)
    assert_failed_open(*hook(event, tmp_path / "no" / "such" / "root", tmp_path))


@pytest.mark.parametrize("event", EVENTS)
def test_root_is_a_file(event: str, tmp_path: Path) -> None:
    (tmp_path / "work").mkdir(exist_ok=True)
    root = tmp_path / "root"
    root.write_text("not a directory\n")
    assert_failed_open(*hook(event, root, tmp_path))
    assert root.read_text() == "not a directory\n"


@pytest.mark.parametrize("event", EVENTS)
def test_corrupt_root(event: str, tmp_path: Path, template: Path) -> None:
    root = tmp_path / "root"
    seeded(root, template)
    with (root / "journal" / "data" / "decisions.jsonl").open("ab") as log:
        log.write(b'{"id": "dec-broken", "decision": \n\xff\xfe not utf-8\n<<<<<<< HEAD\n')
    for doc in (root / "patterns" / "data" / "patterns").glob("*.yaml"):
        doc.write_text("name: [unclosed\n  : : :\n")
    for doc in (root / "transfer" / "data" / "sessions").glob("*.json"):
        doc.write_text('<<<<<<< HEAD\n{"id": 1}\n=======\n{"id": 2}\n>>>>>>> theirs\n')
    assert_failed_open(*hook(event, root, tmp_path))


@pytest.mark.parametrize("event", EVENTS)
def test_locked_by_another_process(event: str, tmp_path: Path, template: Path) -> None:
    root = tmp_path / "root"
    seeded(root, template)
    held = []
    for lock in root.rglob(".*.lock"):
        handle = lock.open("a")
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        held.append(handle)
    assert held, "the seeded root has no lock files to hold"
    try:
        assert_failed_open(*hook(event, root, tmp_path))
    finally:
        for handle in held:
            handle.close()


@pytest.mark.parametrize("event", EVENTS)
def test_read_only_root(event: str, tmp_path: Path, template: Path) -> None:
    root = tmp_path / "root"
    with mounted(root, "4m"):
        seeded(root, template)
        before = sorted(p.name for p in root.rglob("*"))
        remount = subprocess.run(
            ["mount", "-o", "remount,ro", str(root)], capture_output=True, check=False
        )
        if remount.returncode != 0:
            pytest.skip("cannot remount read-only here")
        assert_failed_open(*hook(event, root, tmp_path))
        assert sorted(p.name for p in root.rglob("*")) == before


@pytest.mark.parametrize("event", EVENTS)
def test_full_disk(event: str, tmp_path: Path, template: Path) -> None:
    root = tmp_path / "root"
    with mounted(root, "1m"):
        seeded(root, template)
        logs = {p: p.read_bytes() for p in root.rglob("*.jsonl")}
        filler = root / "filler"
        with contextlib.suppress(OSError), filler.open("wb") as out:
            while True:
                out.write(b"\0" * 65536)
        done, elapsed = hook(event, root, tmp_path)
        assert_failed_open(done, elapsed)
        # Nothing half-written: every log is as it was, or gained whole lines only.
        for path, old in logs.items():
            now = path.read_bytes()
            assert now.startswith(old) and now.endswith(b"\n"), path
        assert not [p for p in root.rglob("*.tmp")], "a temporary file was left behind"
