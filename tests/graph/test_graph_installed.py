"""The graph as a user runs it: the installed ``lore`` console script, one process per
command (capture, then the very next graph query sees it), and rebuild's text report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from click.testing import Result

LORE = Path(sys.executable).parent / "lore"


def _lore(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LORE), *args],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


@pytest.mark.skipif(not LORE.is_file(), reason="no installed lore script beside this Python")
def test_installed_lore_capture_then_graph(tmp_path: Path) -> None:
    env = {**os.environ, "LORE_DATA_DIR": str(tmp_path / "data")}
    env["LORE_CACHE_DIR"] = str(tmp_path / "cache")
    first = _lore("remember", "Use Redis for the cart cache", "--json", env=env)
    assert first.returncode == 0, first.stderr
    a = json.loads(first.stdout)["id"]
    assert _lore("graph", "rebuild", env=env).returncode == 0
    done = _lore("capture", "p99 held at 2k users", "--supports", a, "--json", env=env)
    e = json.loads(done.stdout)["id"]
    shown = _lore("graph", "neighbors", a, "--json", env=env)
    assert shown.returncode == 0, shown.stderr
    neighbors = json.loads(shown.stdout)["neighbors"]
    assert [(n["id"], n["relation"], n["direction"]) for n in neighbors] == [(e, "supports", "in")]
    exported = _lore("graph", "export", "--format", "json", env=env)
    graph = nx.node_link_graph(json.loads(exported.stdout), edges="edges")
    assert set(graph.edges(keys=True)) == {(e, a, "supports")}
    missing = _lore("graph", "show", "dec-000000000000", "--json", env=env)
    assert missing.returncode == 3
    assert json.loads(missing.stdout)["code"] == "not_found"


def test_rebuild_prints_counts_per_type(run: Callable[..., Result], put: Any) -> None:
    put("decision", id="dec-a1", decision="Cache", files=["a.py"])
    put("failure", id="fail-f1", error_type="Timeout", error_message="slow")
    result = run("graph", "rebuild")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "4 nodes, 2 edges, 2 components",
        "nodes: decision 1, error-type 1, failure 1, file 1",
        "edges: instance_of 1, references 1",
        "orphans: 0",
    ]
