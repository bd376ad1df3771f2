"""Issue 18 §1: records keep the hashes of the files they name; `lore stale` finds those
that changed, moved or vanished, from git's object store, right on any checkout; recall
and resume mark stale advice and rank it lower; `lore review --stale` reconfirms,
supersedes or retracts."""

from __future__ import annotations

import os
from pathlib import Path

from tests.dynamics.conftest import Repo, Run, lore, needs_git

pytestmark = needs_git


def test_capture_keeps_each_named_files_blob_and_the_commit(run: Run, repo: Repo) -> None:
    outside = repo.top.parent / "notes.md"
    outside.write_text("outside any repository\n")
    made = lore(run, "remember", "Pool connections", "--files", "src/db.py,src/missing.py")
    assert made["record"]["file_hashes"] == [
        {"path": "src/db.py", "blob": repo.blob("src/db.py"), "commit": repo.head()}
    ]
    os.chdir(repo.top / "src")  # a path relative to a subdirectory is recorded from the top
    seen = lore(run, "observe", f"gone.py is flaky, see {outside} and `db.py:3`")
    assert seen["record"]["file_hashes"] == [
        {"path": "src/gone.py", "blob": repo.blob("src/gone.py"), "commit": repo.head()},
        {"path": str(outside), "blob": repo.blob(str(outside)), "commit": None},
        {"path": "src/db.py", "blob": repo.blob("src/db.py"), "commit": repo.head()},
    ]
    plain = lore(run, "observe", "nothing here names a file")
    assert "file_hashes" not in plain["record"]


def _capture_three(run: Run) -> tuple[str, str, str]:
    db = lore(run, "remember", "Pool connections in src/db.py")["id"]
    old = lore(run, "learn", "Helpers live in src/old.py", "--solution", "import them")["id"]
    gone = lore(run, "observe", "src/gone.py is flaky")["id"]
    return db, old, gone


def _change_move_vanish(repo: Repo) -> dict[str, str]:
    repo.write("src/db.py", "import sqlite3\n\ndef connect(pool=4):\n    return 1\n# pooled\n")
    commits = {"db": repo.commit("Pool the connections")}
    repo.git("mv", "src/old.py", "src/helpers.py")
    commits["move"] = repo.commit("Rename old to helpers")
    repo.git("rm", "-q", "src/gone.py")
    commits["gone"] = repo.commit("Drop the flaky module")
    return commits


def test_stale_lists_changed_moved_and_vanished_files_with_their_commits(
    run: Run, repo: Repo
) -> None:
    first = repo.head()
    db, old, gone = _capture_three(run)
    assert lore(run, "stale")["stale"] == []
    commits = _change_move_vanish(repo)
    doc = lore(run, "stale")
    assert (doc["repo"], doc["head"]) == (str(repo.top), commits["gone"])
    assert (doc["anchored"], doc["checked"], doc["skipped"]) == (3, 3, 0)
    by_id = {s["id"]: s for s in doc["stale"]}
    assert set(by_id) == {db, old, gone}
    [changed] = by_id[db]["files"]
    assert changed == {
        "path": "src/db.py",
        "state": "changed",
        "moved_to": None,
        "recorded": changed["recorded"],
        "current": repo.blob("src/db.py"),
        "commit": first,
        "commits": [
            {
                "sha": commits["db"],
                "date": changed["commits"][0]["date"],
                "subject": "Pool the connections",
            }
        ],
        "commit_count": 1,
        "added": 3,
        "deleted": 2,
        "diffstat": "+3 -2 in 1 commit",
    }
    [moved] = by_id[old]["files"]
    assert (moved["state"], moved["moved_to"], moved["current"]) == (
        "moved", "src/helpers.py", repo.blob("src/helpers.py")
    )  # fmt: skip
    assert [c["sha"] for c in moved["commits"]] == [commits["move"]]
    assert moved["diffstat"] == "+0 -0 in 1 commit"
    [vanished] = by_id[gone]["files"]
    assert (vanished["state"], vanished["current"], vanished["diffstat"]) == (
        "vanished", None, "+0 -1 in 1 commit"
    )  # fmt: skip
    assert [c["subject"] for c in vanished["commits"]] == ["Drop the flaky module"]
    text = run("stale")
    assert text.exit_code == 0
    assert f"{db}  " in text.stdout and "  src/db.py  changed: +3 -2 in 1 commit (" in text.stdout
    assert "  src/old.py  moved to src/helpers.py: +0 -0 in 1 commit (" in text.stdout
    assert "3 of 3 records are stale" in text.stderr


def test_stale_is_right_on_any_checkout_and_sees_edits(run: Run, repo: Repo) -> None:
    first = repo.head()
    _capture_three(run)
    _change_move_vanish(repo)
    assert len(lore(run, "stale")["stale"]) == 3
    repo.git("checkout", "-q", first)  # the files as they were: nothing is stale there
    assert lore(run, "stale")["stale"] == []
    repo.write("src/db.py", "edited, not committed\n")
    [edited] = lore(run, "stale")["stale"]
    assert [(f["path"], f["state"], f["diffstat"]) for f in edited["files"]] == [
        ("src/db.py", "edited", "+1 -4 not committed")
    ]
    repo.git("checkout", "-q", "--", "src/db.py")
    repo.git("checkout", "-q", "main")  # a new HEAD: the cached answers are not reused
    assert len(lore(run, "stale")["stale"]) == 3


def test_stale_repo_option_and_records_of_another_repository(
    run: Run, repo: Repo, tmp_path: Path
) -> None:
    _capture_three(run)
    _change_move_vanish(repo)
    other = Repo(tmp_path / "other")
    other.write("src/db.py", "another project's file\n")
    other.commit("init")
    os.chdir(other.top)
    lore(run, "remember", "Cache in src/db.py")  # its commit exists only in `other`
    here = lore(run, "stale")
    assert (here["anchored"], here["checked"], here["skipped"], here["stale"]) == (4, 1, 3, [])
    there = lore(run, "stale", "--repo", str(repo.top / "src"))
    assert (there["repo"], there["checked"], there["skipped"]) == (str(repo.top), 3, 1)
    assert len(there["stale"]) == 3
    bad = run("stale", "--repo", str(tmp_path / "nowhere"))
    assert bad.exit_code == 2 and "no such directory" in bad.stderr


def test_recall_and_resume_mark_stale_advice_and_rank_it_lower(run: Run, repo: Repo) -> None:
    repo.write("src/cache.py", "CACHE = {}\n")
    repo.commit("cache")
    stale = lore(run, "remember", "Keep the session cache in src/db.py")["id"]
    fresh = lore(run, "remember", "Keep the session cache in src/cache.py")["id"]
    before = lore(run, "recall", "session cache", "--explain")["results"]
    assert [r["explain"]["stale"] for r in before] == [0.0, 0.0]
    repo.write("src/db.py", "rewritten\n")
    repo.commit("rewrite db")
    found = lore(run, "recall", "session cache", "--explain")["results"]
    assert [r["id"] for r in found] == [fresh, stale]
    assert found[1]["stale"] == ["src/db.py"] and "stale" not in found[0]
    assert (found[0]["explain"]["stale"], found[1]["explain"]["stale"]) == (0.0, 1.0)
    assert found[1]["score"] < found[0]["score"]
    text = run("recall", "session cache")
    assert "      [stale: src/db.py changed since]" in text.stdout
    bundle = lore(run, "resume")
    assert [d["id"] for d in bundle["recent_decisions"]] == [fresh, stale]
    assert bundle["recent_decisions"][1]["stale"] == ["src/db.py"]
    assert "stale" not in bundle["recent_decisions"][0]
    assert f"({stale}, pending, stale: src/db.py changed)" in run("resume").stdout


def test_review_stale_reconfirm_records_the_new_hashes(run: Run, repo: Repo) -> None:
    db, old, gone = _capture_three(run)
    commits = _change_move_vanish(repo)
    listed = lore(run, "review", "--stale")
    assert {s["id"] for s in listed["stale"]} == {db, old, gone}
    done = lore(run, "review", "--stale", "--reconfirm", old, gone)
    assert [(r["id"], r["changed"]) for r in done["reconfirmed"]] == [(old, True), (gone, True)]
    assert lore(run, "show", old)["file_hashes"] == [
        {"path": "src/helpers.py", "blob": repo.blob("src/helpers.py"), "commit": commits["gone"]}
    ]
    assert lore(run, "show", gone)["file_hashes"] == [
        {"path": "src/gone.py", "blob": None, "commit": commits["gone"]}
    ]
    history = lore(run, "show", gone, "--history")["history"]
    assert history[-1]["reason"] == "reconfirmed: the advice still holds after its files changed"
    assert [s["id"] for s in lore(run, "stale")["stale"]] == [db]
    again = lore(run, "review", "--stale", "--reconfirm", old)
    assert again["reconfirmed"][0]["changed"] is False  # fresh: nothing written
    plain = lore(run, "remember", "No files named here")["id"]
    refused = run("review", "--stale", "--reconfirm", plain)
    assert refused.exit_code == 4 and "without file hashes" in refused.stderr
    assert run("review", "--stale", "--reconfirm").exit_code == 2
    assert run("review", "--reconfirm", db).exit_code == 2  # --reconfirm goes with --stale


def test_review_stale_walks_the_records_on_stdin(run: Run, repo: Repo) -> None:
    db, old, gone = _capture_three(run)
    _change_move_vanish(repo)
    # newest first: the observation, the pattern, the decision
    answers = "t\nthe module is gone\nx\nn\ns\nPool connections in src/db.py, four of them\n"
    walked = run("review", "--stale", input=answers)
    assert walked.exit_code == 0, walked.stderr
    assert f"retracted {gone}" in walked.stdout
    assert "answer r, s, t, n or q" in walked.stderr
    assert lore(run, "show", gone)["retraction_reason"] == "the module is gone"
    assert lore(run, "show", old)["status"] == "active"  # skipped
    decision = lore(run, "show", db)
    assert decision["status"] == "superseded"
    new = lore(run, "show", decision["superseded_by"])
    assert new["decision"] == "Pool connections in src/db.py, four of them"
    assert new["file_hashes"][0]["blob"] == repo.blob("src/db.py")  # captured afresh
    assert [s["id"] for s in lore(run, "stale")["stale"]] == [old]
    stopped = run("review", "--stale", input="")  # the end of the input ends the walk
    assert stopped.exit_code == 0 and "stopped; 0 changed" in stopped.stderr
    assert lore(run, "show", old)["status"] == "active"


def test_prompt_injection_marks_stale_advice_ranks_it_lower_and_counts_the_use(
    run: Run, repo: Repo, monkeypatch: object
) -> None:
    import json

    monkeypatch.setenv("LORE_SESSION_ID", "")  # type: ignore[attr-defined]
    repo.write("src/cache.py", "CACHE = {}\n")
    repo.commit("cache")
    fresh = lore(run, "remember", "Keep the session cache warm in src/cache.py")["id"]
    stale = lore(run, "remember", "Keep the session cache warm in src/db.py")["id"]  # newer
    repo.write("src/db.py", "rewritten\n")
    repo.commit("rewrite db")
    payload = {"session_id": "s-1", "prompt": "is the warm cache in src/db.py or src/cache.py?",
               "cwd": str(repo.top)}  # fmt: skip
    result = run("hooks", "run", "user-prompt-submit", input=json.dumps(payload))
    assert result.exit_code == 0, result.stderr
    lines = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"].splitlines()
    assert [line.split()[1] for line in lines[1:]] == [fresh, stale]  # the stale one lower
    assert lines[2].endswith("; stale: src/db.py changed since]")
    assert "stale" not in lines[1]
    used = {
        r["id"]: r["explain"]["used"]
        for r in lore(run, "recall", "session cache warm", "--explain")["results"]
    }
    assert used == {fresh: 1.0, stale: 1.0}  # each injection counts as a use here


def test_ingested_records_anchor_the_files_of_the_folder_the_session_ran_in(
    run: Run, repo: Repo, tmp_path: Path
) -> None:
    from tests.ingest.test_ingest_cli import CWD, FIXTURES

    name = "tests/test_phase3b_e2e.py"
    repo.write(name, "the checkout lore ingest runs in: another project\n")
    repo.commit("same path, another file")
    ran = Repo(tmp_path / "protocol-processor-service")
    ran.write(name, "def test_e2e():\n    assert True\n")
    head = ran.commit("the session's repository")
    text = (FIXTURES / "claude-medgemma.jsonl").read_text()
    here = tmp_path / "here.jsonl"
    here.write_text(text.replace(CWD, str(ran.top)))
    elsewhere = tmp_path / "elsewhere.jsonl"  # a session of another machine
    elsewhere.write_text(text.replace("ea6cc712", "fb7dd823"))

    def failure(path: Path) -> dict[str, object]:
        doc = lore(run, "ingest", str(path))
        [new] = [
            i for i in doc["files"][0]["failures"]["new"] if "head" in lore(run, "show", i)["tool"]
        ]
        return lore(run, "show", new)  # type: ignore[no-any-return]

    assert failure(here)["file_hashes"] == [
        {"path": name, "blob": ran.blob(name), "commit": head}
    ]  # the session's file, never the one of the folder lore ingest ran in
    assert "file_hashes" not in failure(elsewhere)  # its folder is not on this machine


def test_a_hook_anchors_the_files_of_the_folder_the_command_ran_in(
    run: Run, repo: Repo, tmp_path: Path, monkeypatch: object
) -> None:
    """The hooks run in the payload's ``cwd`` (``lore.cli.hooks``): its files are hashed."""
    import json

    from tests.cli.test_hooks_capture import failing

    monkeypatch.setenv("LORE_SESSION_ID", "")  # type: ignore[attr-defined]
    ran = Repo(tmp_path / "service")
    ran.write("tests/test_client.py", "def test_retry():\n    assert 2 == 3\n")
    head = ran.commit("the agent's repository")
    repo.write("tests/test_client.py", "the folder the hook process started in\n")
    repo.commit("same path, another file")
    payload = {**failing("pytest -q tests/test_client.py"), "cwd": str(ran.top)}
    result = run("hooks", "run", "post-tool-use-failure", input=json.dumps(payload))
    assert (result.exit_code, result.stderr) == (0, "")
    [failure] = lore(run, "list", "failure")
    assert lore(run, "show", failure["id"])["file_hashes"] == [
        {"path": "tests/test_client.py", "blob": ran.blob("tests/test_client.py"), "commit": head}
    ]


def test_doctor_warns_about_stale_advice_in_the_repository(
    run: Run, repo: Repo, tmp_path: Path
) -> None:
    db, old, gone = _capture_three(run)
    assert [f for f in lore(run, "doctor")["findings"] if f["code"] == "stale-advice"] == []
    _change_move_vanish(repo)
    doc = lore(run, "doctor")
    [finding] = [f for f in doc["findings"] if f["code"] == "stale-advice"]
    assert finding == {
        "severity": "warning",
        "code": "stale-advice",
        "path": str(repo.top),
        "message": f"3 of 3 records that name files here are stale: their files changed, "
        f"moved or vanished since they were captured ({gone}, {old}, {db}); lore stale lists "
        "them, lore review --stale walks them (reconfirm, supersede, retract)",
        "fixable": False,
    }
    assert doc["ok"] is True  # a warning: doctor still exits 0
    text = run("doctor")
    assert text.exit_code == 0
    assert f"{repo.top}: warning: 3 of 3 records" in text.stdout
    os.chdir(tmp_path.parent)  # outside any repository: nothing to say
    assert [f for f in lore(run, "doctor")["findings"] if f["code"] == "stale-advice"] == []
    validated = lore(run, "validate")  # the data are fine: staleness is the checkout's
    assert [i for i in validated["issues"] if "stale" in i["code"]] == []
