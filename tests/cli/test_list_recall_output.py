"""Issue 7 cosmetics: FORCE_COLOR colours recall as it does list; piped list prints one
record per line, tab-separated, never wrapped, never padded (the installed lore, a real pipe)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

LORE = Path(sys.executable).parent / "lore"
pytestmark = pytest.mark.skipif(not LORE.exists(), reason="needs the installed lore")


def lore(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environ.update(LORE_DATA_DIR=str(tmp_path / "root"), COLUMNS="40", **env)
    return subprocess.run(
        [str(LORE), *args], capture_output=True, text=True, env=environ, timeout=60
    )


def test_piped_list_is_one_tab_separated_line_per_record(tmp_path: Path) -> None:
    long = "A very long observation title that would wrap in a forty column table " * 2
    ids = []
    for text, when in ((long, "2026-03-01T10:00:00Z"), ("short\tone", "2026-03-02T11:30:00Z")):
        done = lore(tmp_path, "observe", text, "-q", LORE_NOW=when)
        assert done.returncode == 0, done.stderr
        ids.append(done.stdout.strip())
    done = lore(tmp_path, "list", "observations")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"{ids[1]}\t2026-03-02 11:30\tshort one\n"
        f"{ids[0]}\t2026-03-01 10:00\t{' '.join(long.split())}\n"
    )
    forced = lore(tmp_path, "list", "observations", FORCE_COLOR="1").stdout
    assert forced.splitlines()[0] == f"\x1b[1m{ids[1]}\x1b[0m\t2026-03-02 11:30\tshort one"


def test_force_color_colours_recall_like_list(tmp_path: Path) -> None:
    done = lore(tmp_path, "remember", "Cache sessions in Redis", "-r", "shared cache", "-q")
    assert done.returncode == 0, done.stderr
    plain = lore(tmp_path, "recall", "cache").stdout
    assert "\x1b" not in plain
    forced = lore(tmp_path, "recall", "cache", FORCE_COLOR="1").stdout
    assert f"\x1b[1mdecision {done.stdout.strip()}\x1b[0m" in forced
    assert "\x1b[2m" in forced  # the dim snippet
    assert "\x1b" not in lore(tmp_path, "recall", "cache", FORCE_COLOR="1", NO_COLOR="1").stdout
