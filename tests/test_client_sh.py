"""scripts/lore-client.sh: sourced under `set -euo pipefail`, it records or stays silent."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import Result

Run = Callable[..., Result]
CLIENT = Path(__file__).resolve().parent.parent / "scripts" / "lore-client.sh"
LORE = Path(sys.executable).parent / "lore"
BASH = shutil.which("bash")
AWS_KEY = "AKIA" + "Z7Q4M2XKP9LW3RTB"  # built up so this file holds no credential-looking text

pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")


def bash(script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BASH or "bash", "-c", f'set -euo pipefail\n. "{CLIENT}"\n{script}'],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def listed(run: Run, kind: str) -> list[dict[str, Any]]:
    result = run("list", kind, "--json")
    assert result.exit_code == 0, result.stderr
    return orjson.loads(result.stdout)


EVERY_CALL = """
lore_decision "Use rsync" "resumable" "scp,tar" "deploy"
lore_pattern "Retry" "backoff" "HTTP" "http"
lore_failure NonZeroExit "rsync exited 23" rsync deploy ci
lore_observe "seen" "x"
lore_handoff "Done." "next one"
lore_resume 100
lore_decision
lore_failure OnlyOneArgument
if lore_available; then echo available; fi
echo "end:$?"
"""


@pytest.mark.parametrize("lore_bin", [None, "/nonexistent/bin/lore"])
def test_without_lore_every_function_is_silent_and_returns_0(
    tmp_path: Path, data_dir: Path, lore_bin: str | None
) -> None:
    path = "/usr/bin:/bin"
    if shutil.which("lore", path=path):
        pytest.skip("a lore is installed system-wide")
    env = {"PATH": path, "HOME": str(tmp_path / "home"), "LORE_DATA_DIR": str(data_dir)}
    if lore_bin:
        env["LORE_BIN"] = lore_bin
    done = bash(EVERY_CALL, env, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "end:0\n", "")
    assert not data_dir.exists()


def test_with_lore_each_function_writes_its_record(
    run: Run, tmp_path: Path, data_dir: Path
) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "LORE_BIN": str(LORE),
        "LORE_WATCH": "0",  # no watcher daemon outliving the test
        "LORE_DATA_DIR": str(data_dir),
        "LORE_PROJECT": "shop",
        "NO_COLOR": "1",
    }
    script = f"""
dec=$(lore_decision "Use rsync for deploys" "atomic, resumable" "scp,tar" "deploy")
pat=$(lore_pattern "Retry flaky calls" "3 tries with backoff" "HTTP clients" "http")
fail=$(lore_failure NonZeroExit "-1 returned by rsync" rsync deploy "ci,rsync")
obs=$(lore_observe "-x is deprecated" "cli")
handed=$(lore_handoff "Deploys done. Docs next." "write docs" "--check the flags")
dup=$(lore_decision "Use rsync for deploys")
secret=$(lore_observe "the key is {AWS_KEY}")
echo "$dec $pat $fail $obs"
echo "handoff:[$handed] duplicate:[$dup] secret:[$secret]"
lore_available && echo available
lore_resume 300 | head -n 3
"""
    done = bash(script, env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    ids, refused, available, *resume = done.stdout.splitlines()
    dec, pat, fail, obs = ids.split()
    assert available == "available"

    (decision,) = listed(run, "decisions")
    assert decision["id"] == dec
    assert (decision["decision"], decision["rationale"]) == (
        "Use rsync for deploys",
        "atomic, resumable",
    )
    assert (decision["alternatives"], decision["tags"]) == (["scp", "tar"], ["deploy", "shop"])
    (pattern,) = listed(run, "patterns")
    assert (pattern["id"], pattern["name"], pattern["solution"]) == (
        pat,
        "Retry flaky calls",
        "3 tries with backoff",
    )
    assert (pattern["context"], pattern["tags"]) == ("HTTP clients", ["http", "shop"])
    (failure,) = listed(run, "failures")
    assert failure["id"] == fail
    assert (failure["error_type"], failure["error_message"]) == (
        "NonZeroExit",
        "-1 returned by rsync",
    )
    assert (failure["tool"], failure["step"], failure["tags"]) == (
        "rsync",
        "deploy",
        ["ci", "rsync", "shop"],
    )
    (observation,) = listed(run, "observations")
    assert (observation["id"], observation["content"], observation["tags"]) == (
        obs,
        "-x is deprecated",
        ["cli", "shop"],
    )
    (session,) = listed(run, "sessions")
    # lore_handoff prints the session's id, as the header promises of every function.
    assert refused == f"handoff:[{session['id']}] duplicate:[] secret:[]"
    assert (session["message"], session["next_steps"]) == (
        "Deploys done. Docs next.",
        ["write docs", "--check the flags"],
    )
    assert session["captured"] == {
        "decision": [dec],
        "pattern": [pat],
        "failure": [fail],
        "observation": [obs],
    }
    assert resume == [
        "lore resume — shop",
        f"## Last handoff ({session['id']}, {session['ended_at'][:16].replace('T', ' ')} UTC)",
        "Deploys done. Docs next.",
    ]


def test_debug_shows_why_a_write_was_refused(tmp_path: Path, data_dir: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "LORE_BIN": str(LORE),
        "LORE_WATCH": "0",  # no watcher daemon outliving the test
        "LORE_DATA_DIR": str(data_dir),
        "LORE_CLIENT_DEBUG": "1",
    }
    done = bash(f'lore_observe "key {AWS_KEY}"; echo "rc:$?"', env, tmp_path)
    assert done.stdout == "rc:0\n"
    assert "lore: error: refusing to write" in done.stderr


def test_the_client_needs_no_lore_installed_to_be_sourced(tmp_path: Path) -> None:
    # Sourcing defines functions and runs nothing: even `set -u` with an empty env is fine.
    done = subprocess.run(
        [BASH or "bash", "-c", f'set -euo pipefail; . "{CLIENT}"; declare -F | wc -l'],
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert int(done.stdout) == 9  # two _lore_client_* helpers, lore_available, six lore_* functions
    assert os.access(CLIENT, os.R_OK)


def test_handoff_passes_the_open_items_note_through_and_can_merge(
    run: Run, tmp_path: Path, data_dir: Path
) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "LORE_BIN": str(LORE),
        "LORE_WATCH": "0",  # no watcher daemon outliving the test
        "LORE_DATA_DIR": str(data_dir),
        "LORE_PROJECT": "shop",
    }
    first = bash('lore_handoff "Part one." "write docs" "fix CI"', env, tmp_path)
    assert (first.returncode, first.stderr) == (0, "")  # nothing earlier to replace
    first_id = first.stdout.strip()
    # A plain handoff replaces the agent's open items: the client says so, as lore does.
    second = bash('id=$(lore_handoff "Part two." "deploy"); echo "id:$id"', env, tmp_path)
    (session,) = [s for s in listed(run, "sessions") if s["id"] != first_id]
    assert second.stdout == f"id:{session['id']}\n"
    assert second.stderr == (
        f"lore: open items: this handoff's 1 replace the 2 left by {first_id} "
        "(--merge keeps them and adds these)\n"
    )
    assert session["next_steps"] == ["deploy"]
    # --merge keeps them and adds its own.
    third = bash('lore_handoff --merge "Part three." "announce"', env, tmp_path)
    newest = max(listed(run, "sessions"), key=lambda s: s["ended_at"])
    assert third.stdout == f"{newest['id']}\n"
    assert third.stderr == (
        f"lore: open items: kept the 1 left by {session['id']}, added 1 (merged)\n"
    )
    assert newest["next_steps"] == ["deploy", "announce"]
    # Errors stay quiet without LORE_CLIENT_DEBUG, and the function still returns 0.
    refused = bash(f'lore_handoff "key {AWS_KEY}"; echo "rc:$?"', env, tmp_path)
    assert (refused.stdout, refused.stderr) == ("rc:0\n", "")
