"""Issue 18 §3: `lore archive` moves settled records out of the default views as a revision
(they stay in the files, `--all` recall, exports and the graph's history), `lore unarchive`
brings them back, `lore pin` makes a record never decay, and use counts stay on the machine
that saw them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.dynamics.conftest import Run, git, lore, needs_git

OLD, NOW = "2024-01-10T10:00:00Z", "2026-03-10T10:00:00Z"


def made(run: Run, *args: str, at: str = OLD) -> str:
    result = run(*args, "--json", env={"LORE_NOW": at})
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)["id"]  # type: ignore[no-any-return]


def at_now(run: Run, *args: str, code: int = 0) -> dict:  # type: ignore[type-arg]
    result = run(*args, "--json", env={"LORE_NOW": NOW})
    assert result.exit_code == code, (args, result.stdout, result.stderr)
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_archive_selects_settled_old_records_and_dry_run_changes_nothing(
    run: Run, data_dir: Path
) -> None:
    note = made(run, "observe", "the deploy script is slow")
    made(run, "observe", "recent: the deploy script is slow again", at=NOW)
    pending = made(run, "remember", "Use blue-green deploys")
    settled = made(
        run, "remember", "Use rolling deploys for the workers", at="2024-01-11T10:00:00Z"
    )
    at_now(run, "review", "--resolve", settled, "--outcome", "successful")
    pinned = made(run, "observe", "the deploy key lives in the vault")
    at_now(run, "pin", pinned)
    files = {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()}
    dry = at_now(run, "archive", "--older-than", "1y", "--dry-run")
    assert (dry["dry_run"], dry["count"]) == (True, 2)
    assert [(r["id"], r["type"]) for r in dry["archived"]] == [
        (note, "observation"),
        (settled, "decision"),
    ]  # oldest first; never the pending decision, the pinned or the recent observation
    assert all(0 < r["activation"] < 1 for r in dry["archived"])
    assert {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()} == files
    only = at_now(run, "archive", "--older-than", "1y", "--kind", "observation", "--dry-run")
    assert [r["id"] for r in only["archived"]] == [note]
    assert at_now(run, "archive", "--below", "0.01", "--dry-run")["archived"] == []
    low = at_now(run, "archive", "--below", "0.5", "--dry-run")["archived"]
    assert note in [r["id"] for r in low] and pending not in [r["id"] for r in low]
    assert run("archive", "--json").exit_code == 2  # no selection at all
    assert run("archive", "--kind", "goal", "--older-than", "1y").exit_code == 2
    assert run("archive", "--below", "2", "--json").exit_code == 2


def test_an_archived_record_leaves_the_default_views_but_stays_everywhere_else(
    run: Run, data_dir: Path
) -> None:
    note = made(run, "observe", "the deploy script is slow")
    decision = made(run, "remember", "Deploy with the script in tools/deploy.sh")
    failure = made(run, "fail", "Timeout", "deploy script timed out")
    at_now(run, "review", "--resolve", decision, "--outcome", "successful")
    done = at_now(run, "archive", "--older-than", "1y")
    assert {r["id"] for r in done["archived"]} == {note, decision, failure}
    shown = at_now(run, "show", decision)
    assert (shown["status"], shown["archived_from"], shown["archived_at"]) == (
        "archived", "active", shown["archived_at"]
    )  # fmt: skip
    assert at_now(run, "show", failure)["status"] == "archived"  # a status among its extras
    assert at_now(run, "recall", "deploy script")["results"] == []
    every = at_now(run, "recall", "deploy script", "--all")["results"]
    assert {(r["id"], r["status"]) for r in every} == {
        (note, "archived"), (decision, "archived"), (failure, "archived")
    }  # fmt: skip
    assert at_now(run, "list", "decision") == []
    assert [r["id"] for r in at_now(run, "list", "decision", "--all")] == [decision]
    assert at_now(run, "inbox") == []
    assert [o["id"] for o in at_now(run, "inbox", "--status", "archived")] == [note]
    assert at_now(run, "resume")["recent_decisions"] == []
    exported = run("export", env={"LORE_NOW": NOW}).stdout.splitlines()
    assert {json.loads(line)["id"] for line in exported} >= {note, decision, failure}
    node = at_now(run, "graph", "show", decision)
    assert node["node"]["status"] == "archived"  # the graph keeps its history
    back = at_now(run, "unarchive", decision, failure)
    assert [(r["id"], r["status"]) for r in back["unarchived"]] == [
        (decision, "active"), (failure, "active")
    ]  # fmt: skip
    assert [d["id"] for d in at_now(run, "resume")["recent_decisions"]] == [decision]
    assert at_now(run, "unarchive", decision, code=4)["code"] == "invalid"


def test_archive_by_id_refuses_a_pinned_or_withdrawn_record(run: Run) -> None:
    pinned = made(run, "remember", "Keep the audit log forever")
    gone = made(run, "remember", "Keep the audit log a week")
    at_now(run, "pin", pinned)
    at_now(run, "retract", gone)
    refused = at_now(run, "archive", pinned, code=4)
    assert "pinned; lore unpin it first" in refused["error"]
    assert "only live records are archived" in at_now(run, "archive", gone, code=4)["error"]
    assert at_now(run, "show", pinned)["status"] == "active"
    at_now(run, "unpin", pinned)
    assert at_now(run, "archive", pinned)["archived"][0]["status"] == "archived"
    assert run("archive", pinned, "--older-than", "1y").exit_code == 2


def test_a_pinned_record_never_decays(run: Run) -> None:
    from lore.dynamics.activation import W_FRESH

    pinned = made(run, "remember", "Sign every release tag")
    other = made(run, "remember", "Sign every release artifact")
    done = at_now(run, "pin", pinned)
    assert (done["pinned"], done["records"][0]["id"]) == (True, pinned)
    assert at_now(run, "show", pinned)["pinned"] is True
    # the first recall: neither was used yet (a recall counts once it has answered)
    found = {r["id"]: r for r in at_now(run, "recall", "sign release", "--explain")["results"]}
    mine, theirs = found[pinned]["explain"], found[other]["explain"]
    assert (mine["pinned"], theirs["pinned"], mine["last_used"]) == (1.0, 0.0, 0.0)
    assert mine["recency"] == theirs["recency"] < 0.3  # two years old, both
    assert mine["activation"] - theirs["activation"] == pytest.approx(
        W_FRESH * (1 - theirs["recency"]), abs=1e-3
    )
    assert next(iter(found)) == pinned
    at_now(run, "unpin", pinned)
    assert at_now(run, "show", pinned)["pinned"] is False


def test_use_counts_and_last_use_feed_activation(run: Run, data_dir: Path) -> None:
    used = made(run, "remember", "Rotate the signing keys yearly")
    made(run, "remember", "Rotate the signing keys monthly")
    for _ in range(3):
        at_now(run, "recall", "rotate signing keys")
    parts = {
        r["id"]: r["explain"]
        for r in at_now(run, "recall", "rotate signing keys", "--explain")["results"]
    }
    assert parts[used]["used"] == 3.0  # the recalls before this one
    assert parts[used]["last_used"] == 1.0  # used now: fresh again, though two years old


def test_citations_by_later_records_raise_activation(run: Run) -> None:
    cited = made(run, "remember", "Store sessions in Redis")
    alone = made(run, "remember", "Store sessions in Postgres")
    made(run, "remember", "Expire Redis sessions", "--related", cited, at=NOW)
    made(run, "evidence", "add", "Redis held 1M sessions", "--supports", cited, at=NOW)
    parts = {
        r["id"]: r["explain"]
        for r in at_now(run, "recall", "store sessions", "--explain")["results"]
    }
    assert (parts[cited]["cited"], parts[alone]["cited"]) == (2.0, 0.0)
    assert parts[cited]["activation"] > parts[alone]["activation"]


@needs_git
def test_use_counts_stay_on_the_machine_that_saw_them(run: Run, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    a, b = tmp_path / "a", tmp_path / "b"
    lore(run, "--data-dir", str(a), "init", "--git")
    decision = lore(run, "--data-dir", str(a), "remember", "Use one queue per tenant")["id"]
    git(a, "add", "-A")
    git(a, "commit", "-qm", "lore")
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "-u", "origin", "main")
    git(tmp_path, "clone", "-q", str(remote), str(b))
    for _ in range(3):
        lore(run, "--data-dir", str(a), "recall", "queue per tenant")
    assert git(a, "status", "--porcelain") == ""  # a recall never changes the data root
    lore(run, "--data-dir", str(a), "sync")
    lore(run, "--data-dir", str(b), "sync")

    def used(root: Path) -> float:
        [hit] = lore(run, "--data-dir", str(root), "recall", "queue per tenant", "--explain")[
            "results"
        ]
        assert hit["id"] == decision
        return float(hit["explain"]["used"])

    assert (used(a), used(b)) == (3.0, 0.0)  # each machine its own
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=b, capture_output=True, text=True, check=True
    ).stdout
    assert "usage" not in tracked and "recall-counts" not in tracked


def test_archived_advice_is_never_suggested_nor_injected(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_SESSION_ID", "")
    pattern = made(run, "learn", "Pin the linter version in tools/lint.toml", "--solution", "x")
    decision = made(run, "remember", "Lint in CI with the config in tools/lint.toml")

    def injected(session: str) -> str:
        payload = {"session_id": session, "prompt": "what about tools/lint.toml?"}
        result = run("hooks", "run", "user-prompt-submit", input=json.dumps(payload))
        assert result.exit_code == 0, result.stderr
        out = result.stdout
        return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""

    assert pattern in injected("s-1") and decision in injected("s-2")
    assert [p["id"] for p in at_now(run, "suggest", "linter version")["patterns"]] == [pattern]
    at_now(run, "archive", pattern, decision)
    assert injected("s-3") == ""
    assert at_now(run, "suggest", "linter version")["patterns"] == []
    assert at_now(run, "suggest")["patterns"] == []


def test_resume_notices_only_raw_observations_and_graph_views_mark_the_rest(run: Run) -> None:
    raw = made(run, "observe", "the nightly build is slow", at=NOW)
    promoted = made(run, "observe", "the nightly build cache is cold", at=NOW)
    archived = made(run, "observe", "the nightly build ran twice", at=NOW)
    discarded = made(run, "observe", "the nightly build is haunted", at=NOW)
    target = at_now(run, "inbox", "promote", promoted, "--to", "pattern", "--solution", "warm")
    at_now(run, "archive", archived)
    at_now(run, "inbox", "discard", discarded, "--reason", "a joke")
    noticed = at_now(run, "resume")["reconstructed"]["recent_observations"]
    assert [o["id"] for o in noticed] == [raw]
    text = run("resume", env={"LORE_NOW": NOW}).stdout
    assert f"- noticed: the nightly build is slow ({raw})" in text
    assert promoted not in text and archived not in text and discarded not in text
    hubs = run("graph", "hubs", "--limit", "0", env={"LORE_NOW": NOW}).stdout.splitlines()
    lines = {line.split()[2]: line for line in hubs}
    assert lines[promoted].endswith("the nightly build cache is cold  [promoted]")
    assert lines[archived].endswith("the nightly build ran twice  [archived]")
    assert lines[raw].endswith("the nightly build is slow")
    assert lines[target["promoted_to"]].endswith("the nightly build cache is cold")
    assert discarded not in lines  # no longer knowledge: no node
