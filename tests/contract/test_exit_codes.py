"""Exit codes through the real entry point, ``lore.cli.main`` (LORE_CONTRACT.md §9)."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lore import __version__, errors
from lore.cli import main

Lore = Any


@pytest.fixture
def lore_main(capsys: pytest.CaptureFixture[str]) -> Lore:
    """Run ``main(args)``; returns (exit code, stdout, stderr)."""

    def invoke(*args: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as info:
            main(list(args))
        out, err = capsys.readouterr()
        code = info.value.code
        return (0 if code is None else int(code)), out, err

    return invoke


def test_exit_code_constants() -> None:
    assert {name: value for name, value in vars(errors).items() if name.startswith("EXIT_")} == {
        "EXIT_OK": 0,
        "EXIT_ERROR": 1,
        "EXIT_USAGE": 2,
        "EXIT_NOT_FOUND": 3,
        "EXIT_INVALID": 4,
        "EXIT_LOCK_TIMEOUT": 5,
        "EXIT_DUPLICATE": 6,
        "EXIT_SECRET": 7,
        "EXIT_CONFLICT": 8,
        "EXIT_INTERRUPTED": 130,
    }
    assert [(c.exit_code, c.code) for c in (
        errors.LoreError, errors.UsageError, errors.NotFoundError, errors.InvalidInputError,
        errors.DataError, errors.LockTimeoutError, errors.DuplicateError, errors.SecretError,
    )] == [
        (1, "error"), (2, "usage"), (3, "not_found"), (4, "invalid"), (4, "data"),
        (5, "lock_timeout"), (6, "duplicate"), (7, "secret"),
    ]  # fmt: skip


def test_version(lore_main: Lore) -> None:
    assert __version__ == "0.1.0"
    for flag in ("--version", "-V"):
        assert lore_main(flag) == (0, "lore, version 0.1.0\n", "")


def test_success_is_zero(lore_main: Lore) -> None:
    code, out, err = lore_main("observe", "x", "-q")
    assert (code, err) == (0, "")
    assert out.startswith("obs-")
    assert lore_main("--help")[0] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bogus"], "No such command 'bogus'."),
        (["capture", "x", "--bogus"], "No such option '--bogus'."),
        (["show"], "Missing argument 'RECORD_ID'."),
        (["list", "decisions", "--limit", "x"], "Invalid value for '--limit' / '-n'"),
        (["fail"], "Missing argument 'ERROR_TYPE'."),
    ],
)
def test_parser_usage_errors_are_2(lore_main: Lore, args: list[str], message: str) -> None:
    code, out, err = lore_main(*args)
    assert code == 2
    assert out == ""
    assert "Usage: lore " in err and message in err
    code, out, _ = lore_main(*args, "--json")
    assert code == 2
    data = json.loads(out)
    assert data["ok"] is False and data["code"] == "usage" and message in data["error"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["capture", ""], "nothing to capture: the text is empty"),
        (["capture", "x", "--decision", "--concept"], "choose one kind, not --decision, --concept"),
        (["list", "bogus"], "unknown record kind 'bogus'"),
    ],
)
def test_lore_usage_errors_are_2(lore_main: Lore, args: list[str], message: str) -> None:
    code, out, err = lore_main(*args, "--json")
    assert code == 2
    assert json.loads(out)["code"] == "usage"
    assert err.startswith(f"lore: error: {message}")


def test_not_found_is_3(lore_main: Lore) -> None:
    for args in (
        ["show", "dec-000000000000"],
        ["retract", "dec-000000000000"],
        ["remember", "Use X", "--supersedes", "dec-000000000000"],
    ):
        code, out, err = lore_main(*args, "--json")
        assert code == 3, args
        assert json.loads(out)["code"] == "not_found"
        assert err == "lore: error: no record with id 'dec-000000000000'\n"


def test_invalid_is_4(lore_main: Lore) -> None:
    assert lore_main("capture", "x", "--outcome", "bogus")[0] == 4
    assert lore_main("capture", "x", "--confidence", "2")[0] == 4
    code, out, _ = lore_main("remember", "Use X", "-q")
    assert code == 0
    assert lore_main("retract", out.strip())[0] == 0
    assert lore_main("retract", out.strip())[0] == 4


def test_lock_timeout_is_5(
    lore_main: Lore, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_LOCK_TIMEOUT", "0.05")
    sidecar = data_dir / "journal" / "data" / ".decisions.jsonl.lock"
    sidecar.parent.mkdir(parents=True)
    fd = os.open(sidecar, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        code, out, err = lore_main("remember", "Use X", "--json")
    finally:
        os.close(fd)
    assert code == 5
    data = json.loads(out)
    assert data["code"] == "lock_timeout"
    assert data["file"] == str(data_dir / "journal" / "data" / "decisions.jsonl")
    assert err.startswith("lore: error: timed out after 0.05s waiting for the lock on ")
    assert not (data_dir / "journal" / "data" / "decisions.jsonl").exists()


def test_duplicate_is_6_and_secret_is_7(lore_main: Lore) -> None:
    assert lore_main("remember", "Use ruff for linting", "-q")[0] == 0
    code, out, _ = lore_main("remember", "use ruff for linting", "--json")
    assert (code, json.loads(out)["code"]) == (6, "duplicate")
    code, out, _ = lore_main("observe", "key AKIA" + "QZ7XJ4K2LMNOPQRS", "--json")
    assert (code, json.loads(out)["code"]) == (7, "secret")


@pytest.fixture
def boom(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    def set_error(exc: BaseException) -> None:
        def raise_it(*_args: Any, **_kwargs: Any) -> Any:
            raise exc

        monkeypatch.setattr("lore.capture.core.capture", raise_it)

    yield set_error


def test_internal_error_is_1_and_json_says_so(lore_main: Lore, boom: Any) -> None:
    boom(RuntimeError("boom"))
    code, out, err = lore_main("observe", "x", "--json")
    assert code == 1
    assert json.loads(out) == {"ok": False, "error": "RuntimeError: boom", "code": "internal"}
    assert err == "lore: internal error: RuntimeError: boom (set LORE_DEBUG=1 for a traceback)\n"


def test_internal_error_with_debug_raises(
    boom: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    boom(RuntimeError("boom"))
    monkeypatch.setenv("LORE_DEBUG", "1")
    with pytest.raises(RuntimeError, match="boom"):
        main(["observe", "x"])


def test_interrupt_is_130(lore_main: Lore, boom: Any) -> None:
    boom(KeyboardInterrupt())
    code, out, err = lore_main("observe", "x")
    assert code == 130
    assert out == ""
    assert err.endswith("lore: interrupted\n")


def test_git_missing_is_1(lore_main: Lore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    code, out, err = lore_main("init", "--git", "--json")
    assert code == 1
    assert json.loads(out)["code"] == "error"
    assert err == "lore: error: git is not installed; cannot run `lore init --git`\n"


def test_closed_stdout_is_0(tmp_path: Path) -> None:
    """`lore ... | head` closing the pipe early ends lore quietly with 0 (needs a real pipe)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write to stdout now fails with EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "lore", "paths"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env={**os.environ, "LORE_DATA_DIR": str(tmp_path / "d")},
            timeout=20,
        )
    finally:
        os.close(write_end)
    assert done.stderr == b""
    assert done.returncode == 0


def test_file_system_refusal_is_a_clear_error_not_an_internal_one(run: Any, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    root = blocker / "data"
    result = run("--data-dir", str(root), "observe", "hello", "--json")
    assert result.exit_code == 1
    target = str(root)  # the root itself cannot be made (its lock lives there)
    assert json.loads(result.stdout) == {
        "ok": False,
        "error": f"Not a directory: {target}",
        "code": "error",
        "path": target,
    }
    assert result.stderr == f"lore: error: Not a directory: {target}\n"
    assert blocker.read_text() == "x"
