"""The issue's "done when" on every development transcript (../shared/bench/transcripts,
skipped where it is absent): each failed shell command becomes a grounded failure (its
provenance lines hold the failed call), cancelled siblings and no-matches never do, a second
run and a run over the file grown in two steps write nothing twice, and each session's digest
names its first request and the files it edited."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from lore.ingest import shell

SHARED = Path("/work/shared/bench/transcripts")
CLAUDE = sorted((SHARED / "claude-code").glob("*.jsonl")) if SHARED.is_dir() else []
pytestmark = pytest.mark.skipif(not CLAUDE, reason="the development transcripts are not here")


def bash_results(path: Path) -> dict[str, tuple[int, int, str, str, bool]]:
    """tool_use_id -> (call line, result line, command, output, is_error) of every Bash call."""
    calls: dict[str, tuple[int, str]] = {}
    found = {}
    for number, raw in enumerate(path.read_bytes().splitlines(), 1):
        entry = orjson.loads(raw)
        content = (
            entry.get("message", {}).get("content")
            if isinstance(entry.get("message"), dict)
            else None
        )
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and block.get("name") == "Bash":
                calls[block["id"]] = (number, block["input"]["command"])
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in calls:
                first, command = calls[block["tool_use_id"]]
                text = (
                    block["content"]
                    if isinstance(block["content"], str)
                    else "\n".join(b.get("text", "") for b in block["content"])
                )
                found[block["tool_use_id"]] = (
                    first,
                    number,
                    command,
                    text,
                    bool(block.get("is_error")),
                )
    return found


@pytest.mark.parametrize("source", CLAUDE, ids=lambda p: p.name)
def test_every_failed_command_is_a_grounded_failure(
    run: Any, data_dir: Path, tmp_path: Path, source: Path
) -> None:
    path = tmp_path / source.name
    shutil.copy(source, path)
    path.chmod(0o644)
    assert run("ingest", str(path), "--json").exit_code == 0
    failures = json.loads(run("list", "failure", "--json").stdout)
    results = bash_results(path)
    by_lines = {(r[0], r[1]): r for r in results.values()}
    counted = 0
    for failure in failures:
        first, last = failure["provenance"]["lines"]
        call = by_lines[(first, last)]  # the provenance lines are a Bash call and its result
        assert call[4] is True, failure["id"]  # ... that failed
        assert "Sibling tool call errored" not in call[3]
        assert shell.key(call[2]).startswith(shell.key(failure["tool"]).rstrip("…"))
        counted += failure["occurrences"]
    errors = [r for r in results.values() if r[4] and "Sibling tool call errored" not in r[3]]
    no_match = [r for r in errors if shell.is_no_match(r[2], _exit(r[3]), r[3])]
    assert counted == len(errors) - len(no_match)
    # A second run writes nothing.
    before = {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()}
    again = json.loads(run("ingest", str(path), "--json").stdout)
    assert again["files"][0]["read"] == "unchanged"
    assert {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()} == before
    sessions = json.loads(run("list", "session", "--json").stdout)
    if "subagent" in source.name:
        assert sessions == []
        return
    (session,) = sessions
    assert session["digest"]["first_request"]
    assert session["digest"]["files"]


def _exit(text: str) -> int | None:
    return int(text.split("\n", 1)[0].split()[-1]) if text.startswith("Exit code") else None


@pytest.mark.parametrize("source", CLAUDE, ids=lambda p: p.name)
def test_a_file_read_as_it_grows_gives_the_same_records(
    run: Any, data_dir: Path, tmp_path: Path, source: Path
) -> None:
    whole = tmp_path / "whole" / source.name
    whole.parent.mkdir()
    shutil.copy(source, whole)
    assert run("--data-dir", str(tmp_path / "once"), "ingest", str(whole)).exit_code == 0
    content = source.read_bytes()
    grown = tmp_path / "grown" / source.name
    grown.parent.mkdir()
    cut = len(content) // 2
    grown.write_bytes(content[:cut])  # ends inside a line
    assert run("--data-dir", str(tmp_path / "steps"), "ingest", str(grown)).exit_code == 0
    grown.write_bytes(content)
    assert run("--data-dir", str(tmp_path / "steps"), "ingest", str(grown)).exit_code == 0

    def state(root: str) -> list[dict[str, Any]]:
        found = json.loads(
            run("--data-dir", str(tmp_path / root), "list", "failure", "--json").stdout
        )
        return sorted(
            (
                {k: v for k, v in f.items() if k != "provenance"}
                | {"lines": f["provenance"]["lines"]}
                for f in found
            ),
            key=lambda f: f["id"],
        )

    assert state("once") == state("steps")
    created = (
        [
            line["id"]
            for line in map(
                orjson.loads,
                (tmp_path / "steps" / "failures" / "data" / "failures.jsonl")
                .read_bytes()
                .splitlines(),
            )
            if "_op" not in line
        ]
        if (tmp_path / "steps" / "failures" / "data" / "failures.jsonl").exists()
        else []
    )
    assert len(created) == len(set(created))
