"""Four places where code and contract disagreed (issue 8), each pinned to the documents."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

Run = Callable[..., Result]
ROOT = Path(__file__).resolve().parent.parent.parent
CONTRACT = (ROOT / "LORE_CONTRACT.md").read_text(encoding="utf-8")


def test_lore_now_is_normalised(run: Run) -> None:
    result = run("observe", "frozen", "--json", env={"LORE_NOW": "2026-01-02T03:04:05+01:00"})
    assert result.exit_code == 0
    assert json.loads(result.stdout)["timestamp"] == "2026-01-02T02:04:05.000000Z"
    assert "canonical form" in CONTRACT[CONTRACT.index("- **`LORE_NOW`**") :][:600]


def test_a_bad_lore_now_exits_2_and_writes_nothing(run: Run, data_dir: Path) -> None:
    result = run("observe", "frozen", "--json", env={"LORE_NOW": "yesterday-ish"})
    assert result.exit_code == 2
    reply = json.loads(result.stdout)
    assert reply["code"] == "usage"
    assert reply["error"].startswith("LORE_NOW='yesterday-ish' is not an ISO-8601 time")
    assert not (data_dir / "inbox" / "data" / "observations.jsonl").exists()
    row = next(line for line in CONTRACT.splitlines() if line.startswith("| `LORE_NOW`"))
    assert "exit 2" in row
    exit_2 = next(line for line in CONTRACT.splitlines() if line.startswith("| 2 | `EXIT_USAGE`"))
    assert "LORE_NOW" in exit_2


def test_secret_message_is_the_documented_one(run: Run) -> None:
    documented = (ROOT / "docs" / "reference" / "json-output.md").read_text(encoding="utf-8")
    example = next(
        json.loads(line) for line in documented.splitlines() if '"code":"secret"' in line
    )
    result = run("observe", "the staging database password = hunter2hunter2", "--json")
    assert result.exit_code == 7
    assert json.loads(result.stdout) == example
    tutorial = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    assert f"lore: error: {example['error']}\n" in tutorial
    assert result.stderr == f"lore: error: {example['error']}\n"
    assert "looks like it holds a secret (<kind>);" in CONTRACT


def test_import_json_key_order_is_the_documented_one(run: Run, tmp_path: Path) -> None:
    section = CONTRACT[CONTRACT.index("**import**:") :]
    block = section[
        section.index("```json") + 7 : section.index("```", section.index("```json") + 7)
    ]
    documented = re.findall(r'"([a-z_]+)":', block.split("{", 1)[1])
    top = [k for k in documented if k not in ("decision", "failure", "line", "error")]
    source = tmp_path / "in.jsonl"
    source.write_text('{"kind": "observation", "content": "x"}\n')
    result = run("import", str(source), "--json")
    assert result.exit_code == 0
    assert list(json.loads(result.stdout)) == top


def test_hooks_run_with_an_unknown_event_fails_open(run: Run) -> None:
    result = run("hooks", "run", "UNKNOWN", input="{}")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == ""
    debug = run("hooks", "run", "UNKNOWN", input="{}", env={"LORE_DEBUG": "1"})
    assert debug.exit_code == 0
    assert "unknown event" in debug.stderr
    page = (ROOT / "docs" / "reference" / "exit-codes.md").read_text(encoding="utf-8")
    assert "| `hooks run` | never: it always exits 0" in page
