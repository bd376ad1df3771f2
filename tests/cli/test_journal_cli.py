"""``lore journal ...``: list, show, query, stats, update, learn, link, retract, supersede,
with their JSON shapes, exact revision lines and refusals that leave the files alone."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.timeexpr import FORMS

Run = Callable[..., Result]
DECISIONS = "journal/data/decisions.jsonl"
T1, T2, T3 = (
    "2026-03-01T10:00:00.000000Z",
    "2026-03-02T10:00:00.000000Z",
    "2026-03-03T10:00:00.000000Z",
)
NOW = "2026-03-10T12:00:00.000000Z"
MISSING = "dec-000000000000"


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def lines(root: Path, name: str = DECISIONS) -> list[dict[str, Any]]:
    path = root / name
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def ok_json(result: Result) -> Any:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert result.stdout.count("\n") == 1
    return json.loads(result.stdout)


def remember(run: Run, text: str, *args: str, when: str = T1) -> str:
    result = run("remember", text, "-q", *args, env={"LORE_NOW": when})
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture
def three(run: Run) -> list[str]:
    """Three decisions a day apart: tooling/successful, architecture/pending, other."""
    a = remember(run, "Use ruff for lint", "--type", "tooling", "--outcome", "successful",
                 "-t", "lint", "--project", "web", when=T1)  # fmt: skip
    b = remember(run, "Split the API into services", "--type", "architecture", "-t", "api",
                 "--project", "web", when=T2)  # fmt: skip
    c = remember(run, "Name modules after capabilities", "--project", "cli", when=T3)
    return [a, b, c]


# --- list -----------------------------------------------------------------------------


def test_list_newest_first_one_line_each(run: Run, three: list[str]) -> None:
    a, b, c = three
    result = run("journal", "list")
    assert result.exit_code == 0
    assert result.stdout == (
        f"{c}  2026-03-03  pending     Name modules after capabilities\n"
        f"{b}  2026-03-02  pending     Split the API into services\n"
        f"{a}  2026-03-01  successful  Use ruff for lint\n"
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--type", "tooling"], [0]),
        (["--outcome", "pending"], [2, 1]),
        (["--tag", "api"], [1]),
        (["--project", "web"], [1, 0]),
        (["--project", "web", "--outcome", "pending"], [1]),
        (["--since", "2026-03-02"], [2, 1]),
        (["--until", "2026-03-02"], [1, 0]),  # a day: until its end
        (["--since", "2026-03-02", "--until", "2026-03-02"], [1]),
        (["--since", "2026-W10"], [2, 1]),  # ISO week 10 starts on Monday 2026-03-02
        (["--until", "2026-W09"], [0]),
        (["--until", "2026-03-01T12:00Z"], [0]),  # a moment: before it
        (["--recent", "1"], [2]),
        (["--type", "naming"], []),
    ],
)
def test_list_filters_combine(
    run: Run, three: list[str], args: list[str], expected: list[int]
) -> None:
    found = ok_json(run("journal", "list", *args, "--json"))
    assert [d["id"] for d in found] == [three[i] for i in expected]


def test_list_session_filter(run: Run, three: list[str]) -> None:
    session = "session-0123456789ab"
    assert ok_json(run("journal", "list", "--session", session, "--json")) == []
    result = run("remember", "Keep one log per kind", "-q", env={"LORE_SESSION_ID": session})
    found = ok_json(run("journal", "list", "--session", session, "--json"))
    assert [(d["id"], d["session_id"]) for d in found] == [(result.stdout.strip(), session)]


def test_list_hides_retracted_and_superseded_unless_all(run: Run, three: list[str]) -> None:
    a, b, c = three
    assert run("journal", "retract", a).exit_code == 0
    assert run("journal", "supersede", b, "--by", c).exit_code == 0
    assert [d["id"] for d in ok_json(run("journal", "list", "--json"))] == [c]
    every = ok_json(run("journal", "list", "--all", "--json"))
    assert [(d["id"], d["status"]) for d in every] == [
        (c, "active"),
        (b, "superseded"),
        (a, "retracted"),
    ]
    assert run("journal", "list", "--all").stdout.splitlines()[2].endswith("[retracted]")


def test_list_json_is_the_records(run: Run, three: list[str], data_dir: Path) -> None:
    found = ok_json(run("journal", "list", "--json"))
    on_disk = {row["id"]: row for row in lines(data_dir)}
    assert found == [on_disk[i] for i in reversed(three)]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--outcome", "great"], 4, "decision outcome must be one of pending, successful, "
         "revised, abandoned (got 'great')"),
        (["--type", "misc"], 4, "decision type must be one of architecture, implementation, "
         "naming, tooling, process, bugfix, refactor, other (got 'misc')"),
        (["--since", "yesterdayish"], 2, "--since 'yesterdayish': not a time lore can read; "
         f"use {FORMS}"),
        (["--until", "2026-13"], 2, f"--until '2026-13': not a time lore can read; use {FORMS}"),
    ],
)  # fmt: skip
def test_list_bad_filters(run: Run, args: list[str], code: int, message: str) -> None:
    result = run("journal", "list", *args, "--json")
    assert result.exit_code == code
    assert json.loads(result.stdout)["error"] == message


@pytest.mark.usefixtures("empty_root")
def test_list_empty_says_so_on_stderr(run: Run) -> None:
    result = run("journal", "list")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "lore: no decisions\n")


# --- show, query, stats ---------------------------------------------------------------------


def test_show_is_the_record(run: Run, three: list[str], data_dir: Path) -> None:
    shown = ok_json(run("journal", "show", three[0], "--json"))
    assert shown == lines(data_dir)[0]
    text = run("journal", "show", three[0]).stdout
    assert text.splitlines()[:3] == [
        f"decision {three[0]}",
        f"  timestamp: {T1}",
        "  decision: Use ruff for lint",
    ]


def test_show_unknown_or_other_kind_is_not_found(run: Run) -> None:
    obs = run("observe", "x", "-q").stdout.strip()
    for target, message in (
        ("dec-000000000000", "no decision with id 'dec-000000000000'"),
        (obs, f"no decision with id {obs!r} ({obs} is an observation)"),
    ):
        result = run("journal", "show", target, "--json")
        assert result.exit_code == 3
        assert json.loads(result.stdout) == {
            "ok": False,
            "error": message,
            "code": "not_found",
            "id": target,
        }


def test_query_searches_decisions_only(run: Run, three: list[str]) -> None:
    run("observe", "ruff is fast on lint")
    found = ok_json(run("journal", "query", "ruff", "lint", "--json"))
    assert found["query"] == "ruff lint"
    assert [(r["id"], r["type"]) for r in found["results"]] == [(three[0], "decision")]
    assert set(found["results"][0]) >= {"id", "type", "score", "decision", "decision_type"}
    text = run("journal", "query", "ruff").stdout
    assert re.fullmatch(rf"\d\.\d\d  decision {three[0]}  Use ruff for lint\n", text), text
    none = run("journal", "query", "kubernetes")
    assert (none.stdout, none.stderr) == ("", "lore: no decisions match 'kubernetes'\n")


def test_stats_counts_every_decision(run: Run, three: list[str]) -> None:
    run("journal", "retract", three[2])
    stats = ok_json(run("journal", "stats", "--json"))
    assert stats == {
        "total": 3,
        "by_type": {
            "architecture": 1,
            "implementation": 0,
            "naming": 0,
            "tooling": 1,
            "process": 0,
            "bugfix": 0,
            "refactor": 0,
            "other": 1,
        },
        "by_outcome": {"pending": 2, "successful": 1, "revised": 0, "abandoned": 0},
        "by_status": {"active": 2, "retracted": 1, "superseded": 0, "archived": 0},
    }
    assert run("journal", "stats").stdout == (
        "total: 3\n"
        "by type: architecture 1, tooling 1, other 1\n"
        "by outcome: pending 2, successful 1\n"
        "by status: active 2, retracted 1\n"
    )


# --- update, learn ------------------------------------------------------------------------


def test_update_is_one_revision(run: Run, three: list[str], data_dir: Path) -> None:
    b = three[1]
    result = run(
        "journal", "update", b, "--outcome", "Revised", "--rationale", "too many hops",
        "--lesson", "start with a monolith", "--tags", "api,arch", "--type", "architecture",
        "--json", env={"LORE_NOW": NOW},
    )  # fmt: skip
    reply = ok_json(result)
    assert list(reply) == ["ok", "id", "type", "timestamp", "record", "changed"]
    assert reply["changed"] == ["outcome", "rationale", "lesson_learned", "tags"]
    assert reply["timestamp"] == T2  # the record's own
    assert lines(data_dir)[-1] == {
        "_op": "revise",
        "id": b,
        "timestamp": NOW,
        "set": {
            "outcome": "revised",
            "rationale": "too many hops",
            "lesson_learned": "start with a monolith",
            "tags": ["api", "arch", "web"],
        },
        "was": {"outcome": "pending"},  # what it replaced: two clones' outcomes told apart
    }
    assert len(lines(data_dir)) == 4
    record = reply["record"]
    assert (record["outcome"], record["tags"], record["type"]) == (
        "revised",
        ["api", "arch", "web"],
        "architecture",
    )


def test_update_with_the_same_values_writes_nothing(
    run: Run, three: list[str], data_dir: Path
) -> None:
    before = snapshot(data_dir)
    reply = ok_json(run("journal", "update", three[0], "--outcome", "successful", "--json"))
    assert reply["changed"] == []
    assert snapshot(data_dir) == before
    assert run("journal", "update", three[0], "--outcome", "successful").stdout == (
        f"decision {three[0]}: nothing changed\n"
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--outcome", "done"], 4, "decision outcome must be one of pending, successful, "
         "revised, abandoned (got 'done')"),
        (["--type", "misc"], 4, "decision type must be one of architecture, implementation, "
         "naming, tooling, process, bugfix, refactor, other (got 'misc')"),
        (
            [],
            2,
            "nothing to update: give --outcome, --rationale, --lesson, --tag, --type, "
            "--files or --add-file",
        ),
        (["--lesson", "token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"], 7,
         "refusing to write: lesson_learned looks like it holds a secret (GitHub token); remove "
         "it, or pass --allow-secret if this is not a real credential"),
    ],
)  # fmt: skip
def test_update_refusals_change_nothing(
    run: Run, three: list[str], data_dir: Path, args: list[str], code: int, message: str
) -> None:
    before = snapshot(data_dir)
    result = run("journal", "update", three[0], *args, "--json")
    assert result.exit_code == code, result.stderr
    assert json.loads(result.stdout)["error"] == message
    assert snapshot(data_dir) == before


def test_update_unknown_id(run: Run, data_dir: Path) -> None:
    result = run("journal", "update", "dec-000000000000", "--outcome", "revised")
    assert result.exit_code == 3
    assert result.stderr == "lore: error: no decision with id 'dec-000000000000'\n"


def test_learn_records_the_lesson(run: Run, three: list[str], data_dir: Path) -> None:
    result = run("journal", "learn", three[0], "Pin the linter version", env={"LORE_NOW": NOW})
    assert result.stdout == f"updated decision {three[0]}: lesson_learned\n"
    assert lines(data_dir)[-1] == {
        "_op": "revise",
        "id": three[0],
        "timestamp": NOW,
        "set": {"lesson_learned": "Pin the linter version"},
    }
    empty = run("journal", "learn", three[0], "  ", "--json")
    assert (empty.exit_code, json.loads(empty.stdout)["error"]) == (2, "the lesson is empty")


def test_learn_dash_reads_the_lesson_from_stdin(run: Run, three: list[str]) -> None:
    piped = run("journal", "learn", three[0], "-", "--json", input="Pin the linter\n")
    assert piped.exit_code == 0
    assert json.loads(piped.stdout)["record"]["lesson_learned"] == "Pin the linter"


# --- link -----------------------------------------------------------------------------------


def test_link_is_both_ways_and_idempotent(run: Run, three: list[str], data_dir: Path) -> None:
    a, b, _ = three
    reply = ok_json(run("journal", "link", a, b, "--json"))
    assert (reply["ok"], reply["ids"], reply["changed"]) == (True, [a, b], [a, b])
    assert [r["related_decisions"] for r in reply["records"]] == [[b], [a]]
    count = len(lines(data_dir))
    again = ok_json(run("journal", "link", b, a, "--json"))
    assert again["changed"] == []
    assert len(lines(data_dir)) == count
    assert run("journal", "link", a, b).stdout == f"{a} and {b} were already linked\n"


def test_link_refusals(run: Run, three: list[str], data_dir: Path) -> None:
    before = snapshot(data_dir)
    same = run("journal", "link", three[0], three[0], "--json")
    assert (same.exit_code, json.loads(same.stdout)["error"]) == (
        4,
        f"cannot link {three[0]} to itself",
    )
    missing = run("journal", "link", three[0], "dec-000000000000")
    assert missing.exit_code == 3
    assert snapshot(data_dir) == before


# --- retract --------------------------------------------------------------------------------


def test_retract_and_retract_again(run: Run, three: list[str], data_dir: Path) -> None:
    reply = ok_json(
        run(
            "journal",
            "retract",
            three[0],
            "--reason",
            "wrong tool",
            "--json",
            env={"LORE_NOW": NOW},
        )
    )
    assert list(reply) == ["ok", "id", "type", "timestamp", "retracted_at", "record"]
    assert (reply["id"], reply["timestamp"], reply["retracted_at"]) == (three[0], T1, NOW)
    assert reply["record"]["status"] == "retracted"
    assert lines(data_dir)[-1] == {
        "_op": "revise",
        "id": three[0],
        "timestamp": NOW,
        "set": {"status": "retracted", "retracted_at": NOW, "retraction_reason": "wrong tool"},
        "was": {"status": "active"},
    }
    before = snapshot(data_dir)
    again = run("journal", "retract", three[0], "--json")
    assert (again.exit_code, json.loads(again.stdout)["error"]) == (
        4,
        f"{three[0]} is already retracted",
    )
    assert snapshot(data_dir) == before
    obs = run("observe", "x", "-q").stdout.strip()
    assert run("journal", "retract", obs).exit_code == 3


# --- supersede ------------------------------------------------------------------------------


def test_supersede_links_both(run: Run, three: list[str], data_dir: Path) -> None:
    a, b, _ = three
    reply = ok_json(run("journal", "supersede", a, "--by", b, "--json", env={"LORE_NOW": NOW}))
    assert list(reply) == ["ok", "id", "changed", "old", "new"]
    assert (reply["id"], reply["changed"]) == (a, [a, b])
    assert (reply["old"]["status"], reply["old"]["superseded_by"]) == ("superseded", b)
    assert reply["new"]["supersedes"] == [a]
    assert lines(data_dir)[-2:] == [
        {
            "_op": "revise",
            "id": a,
            "timestamp": NOW,
            "set": {"status": "superseded", "superseded_by": b},
            "was": {"status": "active"},
        },
        {"_op": "revise", "id": b, "timestamp": NOW, "set": {"supersedes": [a]}},
    ]
    count = len(lines(data_dir))
    again = ok_json(run("journal", "supersede", a, "--by", b, "--json"))
    assert again["changed"] == []
    assert len(lines(data_dir)) == count


@pytest.mark.parametrize("case", ["self", "missing-old", "missing-new", "by-other", "retracted"])
def test_supersede_refusals(run: Run, three: list[str], data_dir: Path, case: str) -> None:
    a, b, c = three
    if case == "by-other":
        run("journal", "supersede", a, "--by", c)
    if case == "retracted":
        run("journal", "retract", b)
    before = snapshot(data_dir)
    args, code, message = {
        "self": ([a, "--by", a], 4, f"a decision cannot supersede itself ({a})"),
        "missing-old": (["dec-000000000000", "--by", a], 3, f"no decision with id {MISSING!r}"),
        "missing-new": ([a, "--by", "dec-000000000000"], 3, f"no decision with id {MISSING!r}"),
        "by-other": ([a, "--by", b], 4, f"{a} is already superseded by {c}"),
        "retracted": ([a, "--by", b], 4,
                      f"{b} is retracted: only an active decision can supersede another"),
    }[case]  # fmt: skip
    result = run("journal", "supersede", *args, "--json")
    assert (result.exit_code, json.loads(result.stdout)["error"]) == (code, message)
    assert snapshot(data_dir) == before


def test_supersede_checks_old_under_its_lock(
    run: Run, three: list[str], data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two supersedes of one decision racing: the loser read OLD before the winner
    marked it. It must be refused, and its NEW must not gain OLD in ``supersedes``."""
    from lore.store.core import Store
    from lore.usecases import journal

    a, b, c = three
    store = Store(data_dir)
    stale = journal.decision(store, a)  # what the loser read: still active
    run("journal", "supersede", a, "--by", c)
    real = journal.decision
    monkeypatch.setattr(journal, "decision", lambda s, i: stale if i == a else real(s, i))
    before = snapshot(data_dir)
    with pytest.raises(journal.InvalidInputError, match=f"{a} is already superseded by {c}"):
        journal.supersede(Store(data_dir), a, b)
    assert snapshot(data_dir) == before


def test_journal_alone_lists(run: Run, three: list[str]) -> None:
    assert run("journal").stdout == run("journal", "list").stdout
    assert ok_json(run("journal", "--json")) == ok_json(run("journal", "list", "--json"))
