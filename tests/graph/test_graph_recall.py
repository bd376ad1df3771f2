"""Recall through the graph: --graph-depth adds neighbourhoods, --deep finds what shares
no word with the query, --explain says which edges brought a record in; plain recall
and capture never import networkx."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result


@pytest.fixture
def linked(put: Any) -> None:
    put("decision", id="dec-r1", decision="Use Redis for the session store")
    put("decision", id="dec-r2", decision="Postgres holds billing data")
    put("evidence", id="evi-z1", content="Zookeeper quorum measured at five nodes",
        supports=["dec-r1"])  # fmt: skip
    put("observation", id="obs-x1", content="Kafka partitions rebalance hourly")


def _ids(result: Result) -> list[str]:
    assert result.exit_code == 0, result.output
    return [r["id"] for r in json.loads(result.stdout)["results"]]


def test_deep_finds_a_linked_record_plain_recall_misses(
    run: Callable[..., Result], linked: None
) -> None:
    assert _ids(run("recall", "redis session", "--json")) == ["dec-r1"]
    result = run("recall", "redis session", "--deep", "--explain", "--json")
    results = json.loads(result.stdout)["results"]
    assert [r["id"] for r in results] == ["dec-r1", "evi-z1"]
    assert results[1]["explain"]["via"] == ["evi-z1 supports dec-r1"]
    assert results[1]["explain"]["text"] == 0.0
    assert results[0]["explain"]["text"] > 0 and "via" not in results[0]["explain"]
    assert results[0]["score"] > results[1]["score"] > 0


def test_graph_depth_adds_each_hits_neighbourhood(run: Callable[..., Result], linked: None) -> None:
    assert _ids(run("recall", "redis", "--graph-depth", "0", "--json")) == ["dec-r1"]
    result = run("recall", "redis", "--graph-depth", "1", "--explain", "--json")
    results = json.loads(result.stdout)["results"]
    assert [r["id"] for r in results] == ["dec-r1", "evi-z1"]
    assert results[1]["explain"] == {
        "graph": round(results[0]["score"] * 0.5, 4),
        "distance": 1.0,
        "via": ["evi-z1 supports dec-r1"],
    }
    text = run("recall", "redis", "--graph-depth", "1", "--explain").stdout
    assert "via evi-z1 supports dec-r1" in text
    assert run("recall", "redis", "--graph-depth", "4").exit_code == 2
    assert run("recall", "redis", "--deep", "--brief").exit_code == 2


SCRIPT = """
import json, sys
import lore.cli
report = {}
for label, args in (
    ("capture", ["remember", "Use Redis for sessions", "-q"]),
    ("recall", ["recall", "redis", "--json"]),
    ("resume", ["resume"]),
    ("graph", ["graph", "stats"]),
):
    try:
        lore.cli.main(args)
    except SystemExit as exc:
        assert exc.code in (0, None), (label, exc.code)
    report[label] = "networkx" in sys.modules
sys.stderr.write(json.dumps(report) + "\\n")
"""


def test_capture_recall_and_resume_never_import_networkx(tmp_path: Path) -> None:
    env = {**os.environ, "LORE_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report == {"capture": False, "recall": False, "resume": False, "graph": True}


def test_kind_filter_applies_to_what_the_graph_adds(
    run: Callable[..., Result], linked: None
) -> None:
    assert _ids(run("recall", "redis", "--graph-depth", "1", "--kind", "decision", "--json")) == [
        "dec-r1"
    ]
    deep = run("recall", "redis session", "--deep", "--kind", "decision", "--json")
    assert _ids(deep) == ["dec-r1"]
