"""``lore journal export``: JSON, one Markdown document, and ADR files that keep their
numbers and names when re-run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

Run = Callable[..., Result]
T1, T2, T3 = (
    "2026-03-01T10:00:00.000000Z",
    "2026-03-02T10:00:00.000000Z",
    "2026-03-03T10:00:00.000000Z",
)


def remember(run: Run, *args: str, when: str) -> str:
    result = run("remember", *args, "-q", env={"LORE_NOW": when})
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture
def life(run: Run) -> tuple[str, str]:
    """A decision's whole life: captured, updated, taught a lesson, superseded."""
    old = remember(run, "Use Redis for caching", "-r", "pub/sub invalidation", "-a",
                   "Memcached,Postgres", "--type", "architecture", "-f", "src/cache.py",
                   when=T1)  # fmt: skip
    new = remember(run, "Use Valkey for caching", "-r", "the licence changed", when=T2)
    assert run("journal", "update", old, "--outcome", "revised").exit_code == 0
    assert run("journal", "learn", old, "Check the licence").exit_code == 0
    assert run("journal", "supersede", old, "--by", new).exit_code == 0
    return old, new


def test_adr_files_are_numbered_and_complete(
    run: Run, life: tuple[str, str], tmp_path: Path
) -> None:
    old, new = life
    out = tmp_path / "adr"
    result = run("journal", "export", "--format", "adr", "--output", str(out), "--json")
    assert result.exit_code == 0, result.stderr
    first = "0001-use-redis-for-caching.md"
    second = "0002-use-valkey-for-caching.md"
    assert json.loads(result.stdout) == {
        "ok": True,
        "format": "adr",
        "directory": str(out),
        "exported": 2,
        "created": [first, second],
        "updated": [],
        "unchanged": [],
    }
    assert sorted(p.name for p in out.iterdir()) == [first, second]
    assert (out / first).read_text() == (
        "# 1. Use Redis for caching\n"
        "\n"
        f"<!-- lore-id: {old} -->\n"
        "\n"
        "Date: 2026-03-01\n"
        "\n"
        "## Status\n"
        "\n"
        f"Superseded by [2. Use Valkey for caching]({second})\n"
        "\n"
        "## Context\n"
        "\n"
        "pub/sub invalidation\n"
        "\n"
        "Type: architecture · Files: `src/cache.py`\n"
        "\n"
        "## Decision\n"
        "\n"
        "Use Redis for caching\n"
        "\n"
        "## Alternatives considered\n"
        "\n"
        "- Memcached\n"
        "- Postgres\n"
        "\n"
        "## Consequences\n"
        "\n"
        "Outcome: revised\n"
        "\n"
        "## Lesson learned\n"
        "\n"
        "Check the licence\n"
    )
    text = (out / second).read_text()
    assert text.startswith(f"# 2. Use Valkey for caching\n\n<!-- lore-id: {new} -->\n")
    # Still pending: proposed, not accepted.
    assert "## Status\n\nProposed\n\nSupersedes [1. Use Redis for caching]" in text


def test_adr_rerun_updates_in_place_and_numbers_new_ones_on(
    run: Run, life: tuple[str, str], tmp_path: Path
) -> None:
    _, new = life
    out = tmp_path / "adr"
    out.mkdir()
    (out / "0007-hand-written.md").write_text("# 7. Kept by hand\n")
    args = ("journal", "export", "--format", "adr", "-o", str(out), "--json")
    first = json.loads(run(*args).stdout)
    assert first["created"] == ["0008-use-redis-for-caching.md", "0009-use-valkey-for-caching.md"]
    same = json.loads(run(*args).stdout)
    assert (same["created"], same["updated"]) == ([], [])
    assert run("journal", "update", new, "--outcome", "successful").exit_code == 0
    third = remember(run, "Shard the cache by tenant", when=T3)
    again = json.loads(run(*args).stdout)
    assert again["created"] == ["0010-shard-the-cache-by-tenant.md"]
    assert again["updated"] == ["0009-use-valkey-for-caching.md"]
    assert again["unchanged"] == ["0008-use-redis-for-caching.md"]
    assert sorted(p.name for p in out.iterdir()) == [
        "0007-hand-written.md",
        "0008-use-redis-for-caching.md",
        "0009-use-valkey-for-caching.md",
        "0010-shard-the-cache-by-tenant.md",
    ]
    assert (out / "0007-hand-written.md").read_text() == "# 7. Kept by hand\n"
    assert "Outcome: successful" in (out / "0009-use-valkey-for-caching.md").read_text()
    assert f"<!-- lore-id: {third} -->" in (out / "0010-shard-the-cache-by-tenant.md").read_text()


def test_adr_file_renamed_by_hand_is_still_found(
    run: Run, life: tuple[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "adr"
    run("journal", "export", "--format", "adr", "-o", str(out))
    (out / "0001-use-redis-for-caching.md").rename(out / "0001-redis.md")
    result = json.loads(
        run("journal", "export", "--format", "adr", "-o", str(out), "--json").stdout
    )
    assert result["unchanged"] == ["0001-redis.md"]
    assert result["updated"] == ["0002-use-valkey-for-caching.md"]  # its link follows the file
    assert "[1. Use Redis for caching](0001-redis.md)" in (out / result["updated"][0]).read_text()
    assert sorted(p.name for p in out.iterdir()) == [
        "0001-redis.md",
        "0002-use-valkey-for-caching.md",
    ]


def test_json_export_to_stdout_and_file(
    run: Run, life: tuple[str, str], tmp_path: Path, data_dir: Path
) -> None:
    old, new = life
    result = run("journal", "export")
    records = json.loads(result.stdout)
    assert [r["id"] for r in records] == [old, new]
    assert records[0]["status"] == "superseded"
    target = tmp_path / "decisions.json"
    reply = json.loads(run("journal", "export", "--output", str(target), "--json").stdout)
    assert reply == {"ok": True, "format": "json", "exported": 2, "file": str(target)}
    assert json.loads(target.read_text()) == records


def test_markdown_export(run: Run, life: tuple[str, str]) -> None:
    old, new = life
    text = run("journal", "export", "--format", "markdown").stdout
    assert text.startswith("# Decisions\n\n2 decisions, oldest first.\n\n")
    assert (
        f"## {old}\n\n**Use Redis for caching**\n\n"
        f"Date: 2026-03-01 · Status: Superseded by [{new}](#{new})\n" in text
    )
    assert (
        f"## {new}\n\n**Use Valkey for caching**\n\nDate: 2026-03-02 · Status: Proposed\n" in text
    )
    assert "### Alternatives considered\n\n- Memcached\n- Postgres\n" in text


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--format", "adr"], 2, "--format adr writes one file per decision: give --output DIR"),
        ([], 2, "--json describes a written export: give --output"),
    ],
)
def test_export_usage_errors(run: Run, args: list[str], code: int, message: str) -> None:
    result = run("journal", "export", *args, "--json")
    assert (result.exit_code, json.loads(result.stdout)["error"]) == (code, message)


def test_export_bad_format_is_a_usage_error(run: Run) -> None:
    assert run("journal", "export", "--format", "yaml").exit_code == 2


def test_adr_output_that_is_a_file(run: Run, life: tuple[str, str], tmp_path: Path) -> None:
    target = tmp_path / "file.md"
    target.write_text("x")
    result = run("journal", "export", "--format", "adr", "-o", str(target))
    assert result.exit_code == 2
    assert target.read_text() == "x"


def test_adr_slug_keeps_accented_words_whole() -> None:
    from lore.usecases.journal_export import slug

    assert slug("Über-Cache für Ünïcode: café déjà vu!") == "uber-cache-fur-unicode-cafe-deja-vu"
    assert slug("Straße naïve") == "strasse-naive"
    assert slug("日本語") == "decision"


@pytest.mark.parametrize(
    ("outcome", "status"),
    [
        (None, "Proposed"),
        ("successful", "Accepted"),
        ("revised", "Amended"),
        ("abandoned", "Rejected"),
    ],
)
def test_adr_status_follows_the_outcome(
    run: Run, tmp_path: Path, outcome: str | None, status: str
) -> None:
    made = remember(run, "Use Kafka for events", when=T1)
    if outcome:
        assert run("journal", "update", made, "--outcome", outcome).exit_code == 0
    out = tmp_path / "adr"
    assert run("journal", "export", "--format", "adr", "-o", str(out)).exit_code == 0
    text = (out / "0001-use-kafka-for-events.md").read_text()
    assert f"## Status\n\n{status}\n\n## Context" in text
    markdown = run("journal", "export", "--format", "markdown").stdout
    assert f"Date: 2026-03-01 · Status: {status}\n" in markdown


def test_adr_status_of_a_retracted_decision(run: Run, tmp_path: Path) -> None:
    made = remember(run, "Use Kafka for events", when=T1)
    assert run("journal", "update", made, "--outcome", "successful").exit_code == 0
    assert run("retract", made).exit_code == 0
    out = tmp_path / "adr"
    assert run("journal", "export", "--format", "adr", "-o", str(out)).exit_code == 0
    assert "## Status\n\nRetracted\n" in (out / "0001-use-kafka-for-events.md").read_text()
