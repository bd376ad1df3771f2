"""The ``ingest`` tool on a real transcript, and ``show`` with ``source`` on what it wrote."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (the [mcp] extra) is not installed")

FIXTURES = Path(__file__).parent.parent / "ingest" / "fixtures"


def test_ingest_then_show_the_source(server: Any, tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copy(FIXTURES / "claude-entire.jsonl", path)
    dry = server.ok("ingest", paths=[str(path)], dry_run=True)
    assert dry["dry_run"] is True and dry["totals"]["failures_new"] == 3
    doc = server.ok("ingest", paths=[str(path)])
    (report,) = doc["files"]
    assert (report["agent"], report["read"], len(report["failures"]["new"])) == ("claude", "new", 3)
    again = server.ok("ingest", paths=[str(path)])
    assert again["files"][0]["read"] == "unchanged"
    first = report["failures"]["new"][0]
    shown = server.ok("show", id=first, source=True)
    assert shown["error_type"] == "UsageError"
    assert [e["line"] for e in shown["source_lines"]["entries"]] == [2, 3]
    assert shown["source_lines"]["entries"][0]["who"] == "call"
    readme = str(FIXTURES / "README.md")
    refused = server.error("ingest", paths=[readme])
    assert (refused["code"], refused["error"].split(":")[0]) == ("invalid", readme)
