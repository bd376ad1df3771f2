"""The sandbox guard of tests/conftest.py fails a test that writes the real HOME, XDG
folders or temp directory, in this process or from a subprocess: checked by running a
small suite under a copy of the conftest, with a HOME and a temp directory of its own,
serially and on two pytest-xdist workers (how the suite runs by default)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"

LEAKY_SUITE = """
import os
import subprocess
from pathlib import Path


def test_clean(tmp_path):
    (tmp_path / "fine.txt").write_text("inside its own folder")


def test_writes_the_real_home():
    target = Path(os.environ["GUARD_REAL_HOME"]) / ".cache" / "lore"
    target.mkdir(parents=True)
    (target / "index.bin").write_bytes(b"x")


def test_undo_then_the_home_it_falls_back_to(monkeypatch):
    monkeypatch.undo()  # also undoes the isolation fixture
    (Path.home() / ".cache").mkdir()


def test_writes_the_real_temp_directory():
    with open(os.path.join(os.environ["GUARD_REAL_TMP"], "leak.txt"), "w") as handle:
        handle.write("x")


def test_a_subprocess_leaves_a_temp_file():
    subprocess.run(["mktemp"], check=True, capture_output=True)
"""


@pytest.mark.parametrize(
    ("options", "workers"),
    [(["-p", "no:xdist"], []), (["-p", "xdist", "-n", "2"], ["gw0", "gw1"])],
    ids=["serial", "xdist"],
)
def test_the_guard_fails_each_leaking_test_and_the_run(
    tmp_path: Path, options: list[str], workers: list[str]
) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(CONFTEST, suite / "conftest.py")
    (suite / "test_leaks.py").write_text(LEAKY_SUITE, encoding="utf-8")
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "GUARD_REAL_HOME": str(home),
        "GUARD_REAL_TMP": str(tmp),
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options],
        cwd=suite,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 1, out
    assert "5 passed, 4 errors" in out.splitlines()[-1]  # each test passes, then errors
    for name, finding in [
        ("test_writes_the_real_home", f"os.mkdir {home / '.cache'}"),
        ("test_writes_the_real_home", f"open {home / '.cache' / 'lore' / 'index.bin'}"),
        ("test_undo_then_the_home_it_falls_back_to", "wrote the session's HOME: .cache"),
        ("test_writes_the_real_temp_directory", f"open {tmp / 'leak.txt'}"),
        ("test_a_subprocess_leaves_a_temp_file", "left "),
    ]:
        assert f"test_leaks.py::{name}: {finding}" in out, (name, out)
    assert "test_leaks.py::test_clean:" not in out
    assert "writes outside the test sandbox" in out
    # The suite's own folder stays (for inspection) when the run fails: remove it.
    kept = [p for p in tmp.iterdir() if p.name.startswith("lore-tests-")]
    assert len(kept) == 1
    assert list((kept[0] / "home").iterdir()) == []  # the guard cleaned up after the test
    # Each worker had a HOME and a temp folder of its own in the sandbox, also cleaned up;
    # its tmp_path lived in pytest's basetemp, which the guard allowed (test_clean).
    assert sorted(p.name for p in (kept[0] / "workers").glob("*")) == workers
    for worker in workers:
        assert list((kept[0] / "workers" / worker / "home").iterdir()) == []
    if workers:
        assert "bringing up nodes" in out  # xdist ran it
