"""``lore scan [--json] [--redact]``: secrets already in a data root, found and masked."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result

from lore.upkeep.scan import mask

Run = Callable[..., Result]

AWS = "AKIA" + "Z7Q4M2XKP9LW3RTB"
GITHUB = "ghp" + "_" + "R8mN2kQ7vX4pL9sT3wY6bC1dF5gH0jK8mN2q"
PASSWORD = "password=" + "Hunter2!xyz9"


def made(run: Run, *args: str) -> str:
    result = run(*args, "--allow-secret", "--json")
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["id"])


def scan_json(run: Run, *args: str) -> tuple[int, dict[str, Any]]:
    result = run("scan", "--json", *args)
    return result.exit_code, json.loads(result.stdout)


def test_clean_root_exits_0(run: Run) -> None:
    run("observe", "nothing secret here")
    code, reply = scan_json(run)
    assert code == 0
    assert reply["ok"] is True
    assert reply["found"] == 0
    assert reply["findings"] == []
    assert reply["files"] == 1


def test_scan_names_file_line_id_field_kind_and_masks(run: Run, data_dir: Path) -> None:
    run("observe", "first, clean")
    obs = made(run, "observe", f"deploy key {AWS}")
    dec = made(run, "remember", "Use vault", "-r", PASSWORD)
    pat = made(run, "learn", "Clone with a token", "--solution", f"git clone https://{GITHUB}@x")
    code, reply = scan_json(run)
    assert code == 7
    assert reply["ok"] is False
    assert reply["found"] == 3
    by_id = {f["id"]: f for f in reply["findings"]}
    assert by_id[obs] == {
        "file": "inbox/data/observations.jsonl",
        "line": 2,
        "id": obs,
        "field": "content",
        "rule": "aws-access-key",
        "kind": "AWS access key ID",
        "secret": "AKIA…(20 chars)",
        "current": True,
    }
    assert by_id[dec]["field"] == "rationale"
    assert by_id[dec]["rule"] == "password-assignment"
    assert by_id[pat]["file"] == f"patterns/data/patterns/{pat}.yaml"
    assert by_id[pat]["field"] == "solution"
    text = (data_dir / by_id[pat]["file"]).read_text().splitlines()
    assert GITHUB in text[by_id[pat]["line"] - 1]
    assert AWS not in json.dumps(reply) and GITHUB not in json.dumps(reply)


def test_text_output_and_exit_code(run: Run) -> None:
    obs = made(run, "observe", f"deploy key {AWS}")
    result = run("scan")
    assert result.exit_code == 7
    assert result.stdout == (
        f"inbox/data/observations.jsonl:1: {obs} content: AWS access key ID "
        "AKIA…(20 chars) [aws-access-key]\n"
    )
    assert "1 secret(s) found" in result.stderr


def test_redact_masks_through_revisions_and_rewrites(run: Run, data_dir: Path) -> None:
    obs = made(run, "observe", f"deploy key {AWS}")
    pat = made(run, "learn", "Clone with a token", "--solution", f"use {GITHUB} then")
    pattern_file = data_dir / "patterns" / "data" / "patterns" / f"{pat}.yaml"
    pattern_file.write_text("# kept by hand\n" + pattern_file.read_text())
    log = data_dir / "inbox" / "data" / "observations.jsonl"
    before = log.read_bytes()
    result = run("scan", "--redact", "--json")
    assert result.exit_code == 0
    reply = json.loads(result.stdout)
    assert sorted(reply["redacted"]) == sorted([obs, pat])
    assert reply["found"] == 0
    assert "git filter-repo" in result.stderr
    # the log: its creation line untouched, one revision appended
    after = log.read_bytes()
    assert after.startswith(before)
    revision = json.loads(after[len(before) :])
    assert revision["_op"] == "revise"
    assert revision["set"] == {"content": "deploy key [REDACTED:aws-access-key]"}
    assert revision["reason"] == "lore scan --redact"
    # the document: rewritten in place, hand edit kept, secret gone
    text = pattern_file.read_text()
    assert text.startswith("# kept by hand\n")
    assert GITHUB not in text
    assert "solution: use [REDACTED:github-token] then" in text
    shown = json.loads(run("show", obs, "--json").stdout)
    assert shown["content"] == "deploy key [REDACTED:aws-access-key]"
    # afterwards: only history, exit 0
    code, again = scan_json(run)
    assert code == 0
    assert again["in_history"] == 1
    assert [f["current"] for f in again["findings"]] == [False]
    assert run("validate").exit_code == 0


def test_a_secret_in_a_line_that_does_not_parse_is_reported(run: Run, data_dir: Path) -> None:
    run("observe", "clean")
    log = data_dir / "inbox" / "data" / "observations.jsonl"
    with log.open("a") as handle:
        handle.write('{"id": "obs-1", "content": "' + AWS + '"\n')  # not valid JSON
    code, reply = scan_json(run)
    assert code == 7
    (finding,) = reply["findings"]
    assert (finding["line"], finding["id"], finding["rule"]) == (2, None, "aws-access-key")


def test_mask_never_shows_most_of_the_secret() -> None:
    assert mask("AKIAZ7Q4M2XKP9LW3RTB") == "AKIA…(20 chars)"
    assert mask("hunter2xyz") == "hu…(10 chars)"
    assert mask("abc") == "…(3 chars)"
