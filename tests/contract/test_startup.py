"""Start-up cost: the hot paths never import networkx, rapidfuzz, rich or ruamel.

Runs in a fresh interpreter (this test process has imported everything already).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("networkx", "rapidfuzz", "rich", "ruamel")

SCRIPT = """
import json, sys
import lore.cli

HEAVY = {heavy!r}


def loaded():
    return sorted({{name.split(".")[0] for name in sys.modules}} & set(HEAVY))


report = {{"import": loaded()}}
for label, args in (
    ("--help", ["--help"]),
    ("capture --help", ["capture", "--help"]),
    ("observation", ["capture", "the CI cache is cold", "-q"]),
    ("observation --json", ["observe", "another one", "--json"]),
    ("first decision", ["remember", "Use X because: y", "-q"]),
    ("failure", ["fail", "Timeout", "hung", "-q"]),
    # no stored title is near its length: no fuzzy matching needed
    ("unlike decision", ["remember", "Write the changelog entry before the code", "-q"]),
    # the detector works: these do load what they need
    ("second decision", ["remember", "Use Z", "-q"]),
    ("list", ["list", "observations"]),
):
    try:
        lore.cli.main(args)
    except SystemExit as exc:
        assert exc.code in (0, None), (label, exc.code)
    report[label] = loaded()
sys.stderr.write(json.dumps(report) + "\\n")
"""


def test_hot_paths_import_no_heavy_module(tmp_path: Path) -> None:
    env = {**os.environ, "LORE_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(heavy=HEAVY)],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report == {
        "import": [],
        "--help": [],
        "capture --help": [],
        "observation": [],
        "observation --json": [],
        "first decision": [],
        "failure": [],
        "unlike decision": [],
        "second decision": ["rapidfuzz"],
        "list": ["rapidfuzz"],  # to a pipe: plain lines, no rich table
    }
    # the captures really happened (the script did not exit early)
    assert (tmp_path / "data" / "inbox/data/observations.jsonl").read_text().count("\n") == 2
    assert (tmp_path / "data" / "journal/data/decisions.jsonl").is_file()
