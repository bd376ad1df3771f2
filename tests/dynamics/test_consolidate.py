"""Issue 18 §2 and §4: `lore consolidate` proposes (never applies) merges of near-duplicates,
settlements of contradictions and of conflicts two clones left, archives and reviews, each
with a stable id; `--apply` and `--apply-all --kind K` write appended revisions and say
what changed; `lore validate` and `lore resume` name a conflict after a merge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import lines
from tests.dynamics.conftest import Run, git, lore, needs_git

OLD, NOW = "2025-01-10T10:00:00Z", "2026-03-10T10:00:00Z"


def made(run: Run, *args: str, at: str = NOW) -> str:
    result = run(*args, "--json", env={"LORE_NOW": at})
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)["id"]  # type: ignore[no-any-return]


def now(run: Run, *args: str, code: int = 0) -> Any:
    result = run(*args, "--json", env={"LORE_NOW": NOW})
    assert result.exit_code == code, (args, result.stdout, result.stderr)
    return json.loads(result.stdout)


def snapshot(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_near_duplicates_are_proposed_and_merged_keeping_links(run: Run, data_dir: Path) -> None:
    a = made(run, "remember", "Use JSONL files for storage", "--files", "lore/store.py",
             "-r", "plain files diff well", "-t", "storage", at=OLD)  # fmt: skip
    b = made(run, "remember", "use jsonl for the storage.", "--force", "-t", "storage")
    other = made(run, "remember", "Use JSONL for the export format")  # not the same subject
    made(run, "remember", "Use Redis for sessions")
    evidence = made(run, "evidence", "add", "JSONL diffs merge cleanly", "--supports", b)
    made(run, "graph", "link", a, other, "--relation", "relates_to")
    before = snapshot(data_dir)
    doc = now(run, "consolidate")
    assert snapshot(data_dir) == before  # proposing writes nothing
    [dup] = [p for p in doc["proposals"] if p["kind"] == "duplicate"]
    assert dup["id"].startswith("dup-") and dup["action"] == "merge"
    assert [r["id"] for r in dup["records"]] == [a, b]  # the oldest first
    assert dup["detail"]["similarity"] >= 0.8
    assert now(run, "consolidate")["proposals"][0]["id"] == dup["id"]  # stable
    text = run("consolidate", env={"LORE_NOW": NOW})
    assert text.stdout.startswith(f"{dup['id']}  duplicate: merge 2 decisions into one: ")
    assert "lore: 1 proposal (1 duplicate); apply with" in text.stderr
    assert now(run, "consolidate", "--dry-run") == doc  # the default shape, said aloud
    dry = now(run, "consolidate", "--apply", dup["id"], "--dry-run")
    assert dry == {
        "ok": True,
        "dry_run": True,
        "applied": [
            {
                "id": dup["id"],
                "kind": "duplicate",
                "action": "merge",
                "created": None,
                "changes": [
                    {"id": "(the merged record)", "change": f"created, merging {a}, {b}"},
                    {"id": a, "change": "superseded by (the merged record)"},
                    {"id": b, "change": "superseded by (the merged record)"},
                ],
            }
        ],
    }
    shown = run("consolidate", "--apply", dup["id"], "--dry-run", env={"LORE_NOW": NOW})
    assert shown.stdout.splitlines()[:2] == [
        f"{dup['id']}: would merge",
        f"  (the merged record)  would: created, merging {a}, {b}",
    ]
    assert "lore: dry run: nothing was written" in shown.stderr
    assert snapshot(data_dir) == before
    done = now(run, "consolidate", "--apply", dup["id"])
    assert done["dry_run"] is False
    [applied] = done["applied"]
    new = applied["created"]
    assert applied["changes"][:3] == [
        {"id": new, "change": f"created, merging {a}, {b}"},
        {"id": a, "change": f"superseded by {new}"},
        {"id": b, "change": f"superseded by {new}"},
    ]
    merged = now(run, "show", new)
    assert merged["decision"] == "Use JSONL files for storage"  # the most complete member
    assert (merged["rationale"], merged["files"], merged["supersedes"]) == (
        "plain files diff well", ["lore/store.py"], [a, b]
    )  # fmt: skip
    assert merged["merged_from"] == [a, b] and "storage" in merged["tags"]
    for member in (a, b):
        shown = now(run, "show", member)
        assert (shown["status"], shown["superseded_by"]) == ("superseded", new)
        history = now(run, "show", member, "--history")["history"]
        assert history[-1]["reason"] == f"merged into {new} (lore consolidate {dup['id']})"
    assert now(run, "show", evidence)["supports"] == [b, new]  # its evidence follows
    edges = [json.loads(x) for x in lines(data_dir / "graph" / "data" / "edges.jsonl")]
    assert {(e["src"], e["relation"], e["dst"]) for e in edges} == {
        (a, "relates_to", other), (new, "relates_to", other)
    }  # fmt: skip
    assert [p["kind"] for p in now(run, "consolidate")["proposals"]] == []
    assert now(run, "consolidate", "--apply", dup["id"], code=3)["code"] == "not_found"


def test_contradictions_are_settled_by_choosing_one(run: Run) -> None:
    use = made(run, "remember", "Use Redis for the session store", at=OLD)
    avoid = made(run, "remember", "Do not use Redis for the session store")
    made(run, "remember", "Use Postgres for reports")
    [ctr] = now(run, "consolidate", "--kind", "contradiction")["proposals"]
    assert (ctr["action"], ctr["choices"], ctr["default"]) == ("settle", [use, avoid], avoid)
    assert [r["id"] for r in ctr["records"]] == [use, avoid]  # both shown
    bad = now(run, "consolidate", "--apply", f"{ctr['id']}:dec-000000000000", code=4)
    assert "choose one of" in bad["error"]
    dry = now(run, "consolidate", "--apply", f"{ctr['id']}:{use}", "--dry-run")["applied"]
    assert dry[0]["changes"] == [
        {"id": avoid, "change": f"superseded by {use}"},
        {"id": use, "change": f"kept; supersedes {avoid}"},
    ]
    assert now(run, "show", avoid)["status"] == "active"  # a dry run writes nothing
    done = now(run, "consolidate", "--apply", f"{ctr['id']}:{use}")["applied"][0]
    assert done["changes"] == [
        {"id": avoid, "change": f"superseded by {use}"},
        {"id": use, "change": f"kept; supersedes {avoid}"},
    ]
    assert now(run, "show", avoid)["status"] == "superseded"
    assert now(run, "show", use)["supersedes"] == [avoid]
    assert now(run, "consolidate", "--kind", "contradiction")["proposals"] == []


def test_archive_and_review_proposals_and_apply_all(run: Run) -> None:
    note = made(run, "observe", "the CI cache misses on Mondays", at=OLD)
    candidate = made(run, "observe", "maybe pin the runner image", "-t", "candidate", at=OLD)
    made(run, "observe", "fresh: the linter is slow")
    pattern = made(run, "learn", "Warm the cache before the build", at=OLD)
    flagged = made(run, "learn", "Cache everything forever")
    now(run, "patterns", "flag", flagged, "--type", "obsolete", "--reason", "stale data")
    for n in range(3):
        made(run, "fail", "Timeout", f"the build timed out ({n})")
    doc = now(run, "consolidate")
    summaries = {p["id"]: (p["kind"], p["action"], p["summary"]) for p in doc["proposals"]}
    assert sorted(summaries.values()) == [
        ("archive", "archive", "archive 1 raw observation older than 30d"),
        ("archive", "archive", "archive 1 unconfirmed ingested candidate older than 30d"),
        ("review", "archive", "review 1 pattern flagged: archive it"),
        ("review", "archive", "review 1 pattern never validated in 30d: archive it"),
        ("review", "promote", "review 3 Timeout failures with no pattern: promote them to "
         "a PITFALL (lore promote-failure Timeout)"),
    ]  # fmt: skip
    assert doc["counts"] == {
        "duplicate": 0, "contradiction": 0, "conflict": 0, "archive": 2, "review": 3
    }  # fmt: skip
    assert now(run, "consolidate", "--archive-after", "5y")["counts"]["archive"] == 0
    assert now(run, "consolidate", "--since", "2026-01-01")["counts"]["archive"] == 0
    assert now(run, "consolidate", "--kind", "observation")["counts"] == {
        "duplicate": 0, "contradiction": 0, "conflict": 0, "archive": 2, "review": 0
    }  # fmt: skip
    assert run("consolidate", "--apply-all").exit_code == 2  # needs --kind
    assert run("consolidate", "--kind", "nonsense").exit_code == 2
    dry = now(run, "consolidate", "--apply-all", "--kind", "archive", "--dry-run")
    assert sorted((c["id"], c["change"]) for a in dry["applied"] for c in a["changes"]) == sorted(
        [(note, "archived"), (candidate, "archived")]
    )
    assert now(run, "show", note)["status"] == "raw"
    done = now(run, "consolidate", "--apply-all", "--kind", "archive")
    assert sorted(c["id"] for a in done["applied"] for c in a["changes"]) == sorted(
        [note, candidate]
    )
    assert now(run, "show", note)["status"] == "archived"
    reviewed = now(run, "consolidate", "--apply-all", "--kind", "review")["applied"]
    assert {c["change"] for a in reviewed for c in a["changes"]} == {
        "archived", "created PITFALL: Timeout (3 failures)"
    }  # fmt: skip
    assert now(run, "show", pattern)["status"] == "archived"
    assert now(run, "show", flagged)["status"] == "archived"
    assert now(run, "consolidate")["total"] == 0


def test_resume_shows_the_count_the_last_consolidate_found(run: Run) -> None:
    made(run, "observe", "an old note", at=OLD)
    assert now(run, "resume")["tending"] == {"conflicts": 0, "proposals": None}
    now(run, "consolidate")
    tending = now(run, "resume")["tending"]
    assert tending["proposals"] == {"count": 1, "at": tending["proposals"]["at"], "current": True}
    assert (
        "## Tending\n- 1 consolidation proposal (lore consolidate)"
        in run("resume", env={"LORE_NOW": NOW}).stdout
    )
    made(run, "observe", "a new note")
    assert now(run, "resume")["tending"]["proposals"]["current"] is False
    assert "- 1 consolidation proposal as of " in run("resume", env={"LORE_NOW": NOW}).stdout


def test_an_apply_keeps_resumes_count_true(run: Run) -> None:
    made(run, "observe", "an old note", at=OLD)
    made(run, "remember", "Use JSONL files for storage")
    made(run, "remember", "use jsonl for the storage.", "--force")
    found = {x["kind"]: x["id"] for x in now(run, "consolidate")["proposals"]}
    assert sorted(found) == ["archive", "duplicate"]
    first, second = found["duplicate"], found["archive"]
    assert now(run, "resume")["tending"]["proposals"]["count"] == 2
    now(run, "consolidate", "--apply", first)
    tending = now(run, "resume")["tending"]
    assert tending["proposals"] == {"count": 1, "at": tending["proposals"]["at"], "current": True}
    now(run, "consolidate", "--apply", second, "--kind", "archive")  # a filtered run
    assert now(run, "resume")["tending"]["proposals"]["count"] == 0
    assert "consolidation proposal" not in run("resume", env={"LORE_NOW": NOW}).stdout


@needs_git
def test_a_field_two_clones_set_differently_is_named_and_settled(run: Run, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    a, b = tmp_path / "a", tmp_path / "b"
    lore(run, "--data-dir", str(a), "init", "--git")
    decision = lore(run, "--data-dir", str(a), "remember", "Use SQLite because: one file")["id"]
    git(a, "add", "-A")
    git(a, "commit", "-qm", "lore")
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "-u", "origin", "main")
    git(tmp_path, "clone", "-q", str(remote), str(b))
    lore(run, "--data-dir", str(a), "review", "--resolve", decision, "--outcome", "successful")
    lore(run, "--data-dir", str(b), "review", "--resolve", decision, "--outcome", "abandoned")
    lore(run, "--data-dir", str(b), "sync")
    lore(run, "--data-dir", str(a), "sync")  # a merges b's revision
    log = a / "journal" / "data" / "decisions.jsonl"
    outcomes = [json.loads(x)["set"].get("outcome") for x in lines(log)[1:]]
    assert sorted(o for o in outcomes if o) == ["abandoned", "successful"]  # both kept
    report = lore(run, "--data-dir", str(a), "validate")
    [issue] = [i for i in report["issues"] if i["code"] == "divergent-value"]
    assert (issue["severity"], issue["id"], issue["field"]) == ("warning", decision, "outcome")
    assert "'successful'" in issue["message"] and "'abandoned'" in issue["message"]
    kept = lore(run, "--data-dir", str(a), "show", decision)["outcome"]
    resumed = lore(run, "--data-dir", str(a), "resume")
    assert resumed["tending"]["conflicts"] == 1
    text = run("--data-dir", str(a), "resume").stdout
    assert "- 1 conflict after a merge: a field two clones set differently" in text
    [cfl] = lore(run, "--data-dir", str(a), "consolidate", "--kind", "conflict")["proposals"]
    assert cfl["id"].startswith("cfl-") and cfl["default"] == kept
    assert sorted(cfl["choices"]) == ["abandoned", "successful"]
    assert cfl["detail"]["field"] == "outcome"
    dry = lore(run, "--data-dir", str(a), "consolidate", "--apply", f"{cfl['id']}:successful",
               "--dry-run")  # fmt: skip
    assert dry["applied"][0]["changes"] == [
        {"id": decision, "change": "outcome settled on 'successful'"}
    ]
    assert lore(run, "--data-dir", str(a), "show", decision)["outcome"] == kept
    lore(run, "--data-dir", str(a), "consolidate", "--apply", f"{cfl['id']}:successful")
    assert lore(run, "--data-dir", str(a), "show", decision)["outcome"] == "successful"
    after = lore(run, "--data-dir", str(a), "validate")
    assert [i for i in after["issues"] if i["code"] == "divergent-value"] == []
    assert lore(run, "--data-dir", str(a), "resume")["tending"]["conflicts"] == 0
    assert len(lines(log)) == 4  # the creation, both clones' revisions and the settlement


def test_an_outcome_changed_in_turn_is_no_conflict(run: Run) -> None:
    decision = made(run, "remember", "Use SQLite because: one file")
    now(run, "review", "--resolve", decision, "--outcome", "successful")
    now(run, "review", "--resolve", decision, "--outcome", "revised", "--force")
    codes = [i["code"] for i in now(run, "validate")["issues"]]
    assert "divergent-value" not in codes
    assert now(run, "consolidate", "--kind", "conflict")["proposals"] == []


def test_each_turned_around_decision_meets_only_its_closest_opposite(run: Run) -> None:
    use = made(run, "remember", "Use Redis for the session store", at=OLD)
    again = made(run, "remember", "Use Redis for the session store of the workers", "--force")
    avoid = made(run, "remember", "Do not use Redis for the session store")
    proposals = now(run, "consolidate", "--kind", "contradiction")["proposals"]
    # use and again both oppose avoid; avoid meets the closer (the same words), not both
    assert [p["choices"] for p in proposals] == [[use, avoid]]
    never = made(run, "remember", "Never use Redis for the session store of the workers", "--force")
    pairs = {
        frozenset(p["choices"])  # again and never share LORE_NOW: their order is their ids'
        for p in now(run, "consolidate", "--kind", "contradiction")["proposals"]
    }
    assert pairs == {frozenset((use, avoid)), frozenset((again, never))}


def test_similarity_weighs_the_text_beyond_the_title(run: Run) -> None:
    same = [
        made(run, "learn", "Retry flaky network calls", "--solution", "three tries, backoff"),
        made(run, "learn", "retry the flaky network calls", "--solution", "3 tries with backoff",
             "--force"),
    ]  # fmt: skip
    other = [
        made(run, "learn", "Retry flaky database calls", "--solution", "wrap in a transaction"),
        made(run, "learn", "retry the flaky database calls", "--solution", "pool the sessions",
             "--force"),
    ]  # fmt: skip
    found = {
        frozenset(r["id"] for r in p["records"]): p["detail"]["similarity"]
        for p in now(run, "consolidate", "--kind", "duplicate")["proposals"]
    }
    # equal title stems: 0.8 x 1.0, plus 0.1 x the Dice of {backoff, three, tri} and
    # {backoff, tri}, over 0.9
    assert found[frozenset(same)] == round((0.8 + 0.1 * 2 * 2 / (3 + 2)) / 0.9, 4)
    assert found[frozenset(other)] == round(0.8 / 0.9, 4)  # nothing in common below
