"""§5: stdout carries data only. Text listings a script reads line by line hold nothing else."""

from __future__ import annotations

from collections.abc import Callable

from click.testing import Result

Run = Callable[..., Result]


def test_review_stdout_is_one_decision_per_line(run: Run) -> None:
    ids = []
    for text in ("Adopt ruff", "Use SQLite"):
        result = run("remember", text, "-q", env={"LORE_NOW": "2026-03-01T00:00:00.000000Z"})
        ids.append(result.stdout.strip())
    result = run("review", env={"LORE_NOW": "2026-03-10T00:00:00.000000Z"})
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split("  ")[0] for line in lines] == ids  # no blank line, no hint
    assert result.stderr.startswith("lore: resolve with: lore review --resolve ID")
