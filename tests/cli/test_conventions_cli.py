"""The scripting contract, command by command (docs/reference/cli-conventions.md): empty
listings keep stdout empty, `lore list` takes every kind and a time window, and the options
that used to differ between commands for no reason now agree."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]
T1, T2, T3 = (f"2026-03-0{d}T10:00:00.000000Z" for d in (1, 2, 3))


def ok(run: Run, *args: str, at: str | None = None) -> Any:
    result = run(*args, "--json", env={"LORE_NOW": at} if at else None)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --- an empty listing says so on stderr, never on stdout --------------------------------

EMPTY_LISTINGS = [
    ("list decisions", "no decision records"),
    ("list sessions", "no session records"),
    ("list", "no records"),
    ("sessions", "no sessions"),
    ("sessions list", "no sessions"),
    ("promote-failure", "no failure type has 3 or more failures"),
    ("journal", "no decisions"),
    ("journal query cache", "no decisions match 'cache'"),
    ("inbox", "no raw observations"),
    ("evidence", "no evidence"),
    ("goal", "no goals"),
    ("registry", "no projects registered (add one: lore registry add NAME)"),
    ("patterns", "no patterns"),
    ("failures", "no failures"),
    ("triggers", "no error type has 3 or more failures"),
    ("recall cache", "no matches for 'cache'"),
    ("review", "no decisions pending for more than 3 days"),
    ("concepts", "no concepts"),
    ("concepts propose", "no clusters to propose"),
    ("graph concepts", "no concepts"),
    ("graph orphans", "no orphans"),
]


@pytest.mark.parametrize(("command", "message"), EMPTY_LISTINGS)
@pytest.mark.usefixtures("empty_root")
def test_an_empty_listing_leaves_stdout_empty(run: Run, command: str, message: str) -> None:
    result = run(*command.split())
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == f"lore: {message}\n"
    as_json = run(*command.split(), "--json")
    assert as_json.exit_code == 0
    json.loads(as_json.stdout)  # one JSON document, also when there is nothing


def test_an_empty_listing_in_a_pipe_counts_zero(tmp_path: Path) -> None:
    """From the installed lore, through a real pipe: nothing for `wc -l` to count."""
    import os
    import shutil
    import subprocess
    import sys

    lore = shutil.which("lore", path=str(Path(sys.executable).parent)) or "lore"
    done = subprocess.run(
        ["bash", "-c", f'"{lore}" list decisions | wc -l'],
        capture_output=True,
        text=True,
        env={**os.environ, "LORE_DATA_DIR": str(tmp_path)},
        check=True,
    )
    assert done.stdout.strip() == "0"
    assert done.stderr == "lore: no decision records\n"


# --- lore list: every kind, and a time window -----------------------------------------


def test_list_without_a_kind_lists_every_kind_newest_first(run: Run) -> None:
    dec = ok(run, "remember", "Use SQLite", at=T1)["id"]
    fail = ok(run, "fail", "Timeout", "pytest hung", at=T2)["id"]
    obs = ok(run, "observe", "CI is slow on Mondays", at=T3)["id"]
    ok(run, "registry", "add", "webshop", at=T2)
    rows = ok(run, "list")
    assert [(r["kind"], r["id"]) for r in rows] == [
        ("observation", obs),
        ("failure", fail),
        ("project", "webshop"),
        ("decision", dec),
    ]
    assert list(rows[0])[:2] == ["kind", "id"]  # each record as `lore export` writes it
    text = run("list")
    assert text.stdout.splitlines() == [
        f"{obs}\t2026-03-03 10:00\tobservation\tCI is slow on Mondays",
        f"{fail}\t2026-03-02 10:00\tfailure\tpytest hung",
        "webshop\t2026-03-02 10:00\tproject\twebshop",
        f"{dec}\t2026-03-01 10:00\tdecision\tUse SQLite",
    ]
    assert [r["id"] for r in ok(run, "list", "-n", "1")] == [obs]
    assert [r["id"] for r in ok(run, "list", "decisions")] == [dec]  # a kind: as before
    assert "kind" not in ok(run, "list", "decisions")[0]


def test_list_takes_since_and_until_like_journal_list(run: Run) -> None:
    a = ok(run, "observe", "first", at=T1)["id"]
    b = ok(run, "observe", "second", at=T2)["id"]
    c = ok(run, "observe", "third", at=T3)["id"]

    def ids(*args: str) -> list[str]:
        return [r["id"] for r in ok(run, "list", *args, at="2026-03-04T00:00:00.000000Z")]

    assert ids("observations", "--since", "2026-03-02") == [c, b]
    assert ids("observations", "--until", "2026-03-02") == [b, a]
    assert ids("--since", "2026-03-02", "--until", "2026-03-02") == [b]
    assert ids("observations", "--since", "2d") == [c, b]  # since 2026-03-02 00:00
    assert ids("observations", "--until", "2d") == [a]
    bad = run("list", "--since", "someday")
    assert bad.exit_code == 2
    assert "--since" in bad.stderr


# --- options that differed for no reason ------------------------------------------------


def test_goal_create_takes_t_like_every_capture(run: Run) -> None:
    goal = ok(run, "goal", "create", "Ship v2", "-t", "release,q3", "-t", "web")
    assert goal["record"]["tags"] == ["release", "q3", "web"]


def test_journal_list_n_is_the_limit(run: Run) -> None:
    ok(run, "remember", "Use SQLite", at=T1)
    newest = ok(run, "remember", "Use Postgres", at=T2)["id"]
    assert [d["id"] for d in ok(run, "journal", "list", "-n", "1")] == [newest]
    assert [d["id"] for d in ok(run, "journal", "list", "--limit", "1")] == [newest]
    help_text = run("journal", "list", "--help").stdout
    assert "-n, --limit INTEGER RANGE" in help_text
    assert "--recent" not in help_text


def test_journal_update_replaces_or_adds_files(run: Run) -> None:
    dec = ok(run, "remember", "Cache sessions", "-f", "a.py")["record"]
    assert (dec["files"], dec["entities"]) == (["a.py"], ["a.py"])
    added = ok(run, "journal", "update", dec["id"], "--add-file", "b.py,c.py")
    assert added["changed"] == ["files", "entities"]
    assert added["record"]["files"] == ["a.py", "b.py", "c.py"]
    assert added["record"]["entities"] == ["a.py", "b.py", "c.py"]
    replaced = ok(run, "journal", "update", dec["id"], "-f", "d.py")
    assert replaced["record"]["files"] == ["d.py"]
    assert replaced["record"]["entities"] == ["a.py", "b.py", "c.py", "d.py"]  # never removed
    again = ok(run, "journal", "update", dec["id"], "--files", "d.py")
    assert again["changed"] == []
    assert run("journal", "update", dec["id"], "--add-file", "d.py").stdout == (
        f"decision {dec['id']}: nothing changed\n"
    )


def test_concepts_alone_lists_the_concepts(run: Run) -> None:
    concept = ok(run, "graph", "add", "concept", "Caching", "--description", "Keep answers")
    result = run("concepts")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == f"concept {concept['id']}  Caching"
    assert ok(run, "concepts") == ok(run, "concepts", "list") == ok(run, "graph", "concepts")


def test_registry_context_of_an_unregistered_project_points_to_lore_context(run: Run) -> None:
    ok(run, "remember", "Use Stripe", "--project", "billing")
    result = run("registry", "context", "billing")
    assert result.exit_code == 3
    assert result.stderr == (
        "lore: error: no project named 'billing' in the registry; `lore context billing` "
        "shows the records of a project whether or not it is registered (`lore registry "
        "add` registers it)\n"
    )
    assert run("context", "billing").exit_code == 0


def test_inbox_promote_offers_only_the_flags_of_its_targets(run: Run) -> None:
    text = run("inbox", "promote", "--help").stdout
    for flag in ("--rationale", "--solution", "--supports", "--confidence"):
        assert flag in text
    for flag in ("--error-type", "--tool", "--symptom", "--severity", "--alias", "--fix"):
        assert flag not in text
    obs = ok(run, "observe", "pytest hangs on CI")["id"]
    refused = run("inbox", "promote", obs, "--to", "decision", "--error-type", "Timeout")
    assert refused.exit_code == 2
    assert "No such option '--error-type'" in refused.stderr
    assert ok(run, "inbox", "--status", "raw")[0]["id"] == obs  # nothing was written


def test_a_concept_has_a_description_whichever_command_writes_it(run: Run) -> None:
    by_capture = ok(run, "capture", "--concept", "Queue", "--description", "FIFO work")
    by_graph = ok(run, "graph", "add", "concept", "Stack", "--description", "LIFO work")
    promoted = ok(
        run, "concepts", "promote", "Heap", "--members", by_capture["id"], "--description", "Tree"
    )
    assert by_capture["record"]["description"] == "FIFO work"
    assert by_graph["description"] == "LIFO work"
    assert promoted["concept"]["description"] == "Tree"


def test_paths_in_the_rationale_join_the_entities(run: Run) -> None:
    """`remember --help` says file paths join the entities: those of the rationale too."""
    inline = ok(run, "remember", "Cache sessions because: src/app.py re-reads `config.toml`")
    assert inline["record"]["rationale"] == "src/app.py re-reads `config.toml`"
    assert inline["record"]["entities"] == ["config.toml", "src/app.py"]
    flag = ok(run, "remember", "Pin click in `pyproject.toml`", "-r", "see lore/cli/__init__.py")
    assert flag["record"]["entities"] == ["pyproject.toml", "lore/cli/__init__.py"]
    assert "in TEXT and in the rationale" in " ".join(run("remember", "--help").stdout.split())
