"""``lore import --from bash-lore DIR`` on the shared fixture (a root the bash implementation
wrote; tests/fixtures/bash-lore/README.md counts its records) and on broken copies of it."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.store.core import Store

FIXTURE = Path(__file__).parent / "fixtures" / "bash-lore" / "data"
Run = Callable[..., Result]

# What the fixture's README counts, per lore kind.
README_COUNTS = {
    "decision": 39,
    "pattern": 17,
    "anti-pattern": 6,
    "failure": 25,
    "observation": 20,
    "evidence": 10,
    "goal": 6,
    "session": 5,
    "concept": 5,
}
# The curated edges: concepts' grounded_by, then graph.json's hand-made links.
EDGES = [
    ("dec-5cab0fcc", "grounds", "concept-427b1912"),
    ("dec-f6249b98", "grounds", "concept-427b1912"),
    ("dec-e150588c", "grounds", "concept-427b1912"),
    ("dec-ffda58c1", "grounds", "concept-93bf0a0d"),
    ("dec-8cf9cbed", "grounds", "concept-93bf0a0d"),
    ("pat-950064-ec56b17b", "grounds", "concept-93bf0a0d"),
    ("dec-d8ccfefb", "depends_on", "dec-430d7663"),
    ("dec-a904502e", "implements", "concept-c629615d"),
    ("dec-ffda58c1", "implements", "concept-210465fa"),
    ("dec-8cf9cbed", "implements", "concept-210465fa"),
    ("pat-950064-ec56b17b", "implements", "concept-210465fa"),
    ("concept-05fb67b1", "relates_to", "concept-210465fa"),
]


def _import(run: Run, root: Path = FIXTURE, *args: str) -> dict[str, Any]:
    result = run("import", "--from", "bash-lore", str(root), "--json", *args)
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


@pytest.fixture(scope="module")
def imported_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture imported once for the module's tests that only read the result."""
    from click.testing import CliRunner

    from lore.cli import cli

    base = tmp_path_factory.mktemp("bashlore")
    env = {"HOME": str(base / "home"), "LORE_CACHE_DIR": str(base / "cache")}
    args = ["--data-dir", str(base / "data"), "import", "--from", "bash-lore", str(FIXTURE)]
    result = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return base / "data"


@pytest.fixture
def imported(imported_once: Path, data_dir: Path) -> Path:
    """This test's data root: a copy of the imported fixture (what ``_import`` makes)."""
    shutil.copytree(imported_once, data_dir)
    return data_dir


def _by_id(store: Store, kind: str) -> dict[str, Any]:
    return {r.id: r for r in store.records(kind, hidden=True)}


def test_fixture_imports_every_record_the_readme_counts(run: Run, store: Store) -> None:
    doc = _import(run)
    assert doc["ok"] is True and doc["from"] == "bash-lore" and doc["dry_run"] is False
    assert doc["by_kind"] == {**README_COUNTS, "edge": len(EDGES)}
    assert doc["imported"] == sum(README_COUNTS.values()) + len(EDGES)
    assert doc["skipped_existing"] == 0
    for kind, count in README_COUNTS.items():
        assert doc["kinds"][kind] == {
            "found": count,
            "imported": count,
            "existing": 0,
            "skipped": 0,
        }
    assert doc["kinds"]["project"]["found"] == 0  # the registry files are empty seeds
    # The one odd line of the fixture: flags.jsonl line 4 is not JSON.
    assert doc["skipped"] == [
        {
            "file": "patterns/data/flags.jsonl",
            "line": 4,
            "kind": None,
            "reason": "invalid JSON (Expecting ',' delimiter at column 105)",
        }
    ]
    assert doc["derived_edges"] == 266
    ignored = {i["file"] for i in doc["ignored"]}
    assert ignored == {
        "graph/data/graph.json.bak",
        "journal/data/.current_session",
        "journal/data/entries/2026-07-13_stripe-retries-failed-webhooks-for-up-to-three-days.md",
        "journal/data/entries/2026-07-15_incident-duplicate-refund-emails-on-2026-07-14.md",
        "journal/data/index/",
        "transfer/data/.current_session",
        "transfer/data/sessions/session-20260713-090440-d2299339.compressed.json",
    }
    assert len(doc["ids"]) == doc["imported"]
    # The stored state matches the README's breakdowns.
    decisions = store.records("decision", hidden=True)
    assert Counter(d.status for d in decisions) == {"active": 36, "superseded": 2, "retracted": 1}
    assert Counter(d.outcome for d in decisions) == {
        "pending": 33,
        "successful": 4,
        "revised": 1,
        "abandoned": 1,
    }
    patterns = store.records("pattern", hidden=True)
    assert Counter(p.status for p in patterns) == {"active": 16, "deprecated": 1}
    failures = store.records("failure", hidden=True)
    assert Counter(f.error_type for f in failures) == {
        "ToolError": 6,
        "NonZeroExit": 5,
        "Timeout": 4,
        "EnvironmentError": 3,
        "PermissionError": 2,
        "LogicError": 2,
        "UserDeny": 1,
        "HardDeny": 1,
        "UserError": 1,
    }
    observations = store.records("observation", hidden=True)
    assert Counter(o.status for o in observations) == {"raw": 17, "promoted": 2, "discarded": 1}
    evidence = store.records("evidence", hidden=True)
    assert Counter(e.confidence for e in evidence) == {
        "confirmed": 5,
        "preliminary": 3,
        "contested": 1,
        "superseded": 1,
    }
    goals = store.records("goal")
    assert sorted(len(g.criteria) for g in goals) == [0, 0, 0, 2, 3, 3]
    sessions = store.records("session", hidden=True)
    assert Counter(s.status for s in sessions) == {"closed": 4, "open": 1}
    assert sum(1 for s in sessions if s.parent) == 2
    edges = store.records("edge", hidden=True)
    assert sorted((e.src, e.relation, e.dst) for e in edges) == sorted(EDGES)


def test_after_import_validate_is_clean_resume_shows_the_last_handoff(
    run: Run, imported: Path
) -> None:
    check = run("validate", "--json")
    assert check.exit_code == 0
    report = json.loads(check.stdout)
    assert (report["errors"], report["warnings"], report["issues"]) == (0, 0, [])
    resume = json.loads(run("resume", "--json").stdout)
    assert resume["session"]["id"] == "session-20260716-090521-054b740b"
    assert resume["session"]["message"].startswith("Spec 001 done and closed; outbox relay live")
    assert resume["session"]["next_steps"][0] == (
        "Start spec 003 (refund audit log): trigger-based immutability first"
    )
    text = run("resume").stdout
    assert "## Last handoff (session-20260716-090521-054b740b" in text
    assert "Git at handoff: outbox-emails 3a8cad9, 1 uncommitted file" in text


def test_recall_finds_imported_patterns(run: Run, imported: Path) -> None:
    found = json.loads(run("recall", "advisory lock scheduled job", "--json").stdout)
    assert found["results"][0]["id"] == "pat-035802-bc581f85"
    patterns = json.loads(run("recall", "--patterns", "keyset pagination", "--json").stdout)
    assert "pat-044728-12b87af3" in [p["id"] for p in patterns["patterns"]]


def test_a_second_run_imports_nothing_new(run: Run, data_dir: Path) -> None:
    first = _import(run)
    before = {
        p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file() and "lock" not in p.name
    }
    second = _import(run)
    assert second["imported"] == 0 and second["by_kind"] == {} and second["ids"] == []
    assert second["skipped_existing"] == first["imported"]
    for kind, count in README_COUNTS.items():
        assert second["kinds"][kind] == {
            "found": count,
            "imported": 0,
            "existing": count,
            "skipped": 0,
        }
    after = {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file() and "lock" not in p.name}
    assert after == before


def test_dry_run_reports_per_kind_and_writes_nothing(run: Run, data_dir: Path) -> None:
    doc = _import(run, FIXTURE, "--dry-run")
    assert doc["dry_run"] is True and doc["by_kind"]["decision"] == 39
    assert not [p for p in data_dir.rglob("*") if p.is_file()]
    text = run("import", "--from", "bash-lore", str(FIXTURE), "--dry-run")
    assert text.exit_code == 0
    assert "  decision         39 found     39 new      0 already imported" in text.stdout
    assert text.stdout.splitlines()[-1].startswith("would import 145 records (decision 39, ")
    assert text.stdout.rstrip().endswith("skipped 0 existing, 1 odd (dry run: nothing written)")
    assert "lore: warning: patterns/data/flags.jsonl:4: invalid JSON" in text.stderr
    assert not [p for p in data_dir.rglob("*") if p.is_file()]


def test_records_keep_their_ids_times_links_and_quirks(imported: Path, store: Store) -> None:
    decisions = _by_id(store, "decision")
    old = decisions["dec-c7328c24"].to_dict()
    assert (old["status"], old["superseded_by"], old["outcome"]) == (
        "superseded",
        "dec-f64ae884",
        "revised",
    )
    assert old["timestamp"] == "2026-07-13T14:21:09.000000Z"
    assert old["resolved_at"] == "2026-07-16T13:18:26Z"
    assert decisions["dec-f64ae884"].supersedes == ["dec-c7328c24"]  # type: ignore[attr-defined]
    retracted = decisions["dec-382c756e"].to_dict()
    assert retracted["status"] == "retracted"
    assert retracted["retracted_at"] == "2026-07-15T15:58:22Z"
    assert retracted["retraction_reason"].startswith("Never adopted: ON CONFLICT")
    context = decisions["dec-7f51e324"].to_dict()
    assert (context["type"], context["legacy"]) == ("other", {"type": "context"})
    assert (context["rationale"], context["lesson_learned"]) == (  # trailing space kept
        "All amounts are `int` cents in the DB and in the API; never floats. Currency (ISO "
        "4217) is stored next to every amount. ",
        "",
    )
    assert context["session_id"] == "session-bbbf1761" and context["git_commit"].startswith("c5bf")
    paths = decisions["dec-ffda58c1"].to_dict()
    assert paths["files"] == [
        "/home/sam/dev/orders-api/migrations/versions/0007_processed_events.py",
        "/home/sam/dev/orders-api/src/orders_api/webhooks/stripe.py",
    ]
    assert decisions["dec-d96dc1e6"].entities == ["event.id", "processed_events"]  # type: ignore[attr-defined]
    pattern = store.get("pat-138554-60841b11").to_dict()
    assert pattern["name"] == "Wrap every outbound HTTP call in a catch-all retry decorator"
    assert (pattern["status"], pattern["confidence"]) == ("deprecated", 0.0)
    assert pattern["inverted_to"] == "anti-211159-c9e79d7b"
    assert [f["type"] for f in pattern["flags"]] == ["harmful"] * 4
    assert pattern["flags"][0] == {
        "timestamp": "2026-07-15T18:20:18.000000Z",
        "type": "harmful",
        "reason": "retried a non-idempotent Stripe refund POST and refunded order 90121 twice",
    }
    assert store.get("anti-227550-ac639390").inverted_from == "pat-138554-60841b11"  # type: ignore[attr-defined]
    examples = store.get("pat-950064-ec56b17b").examples  # type: ignore[attr-defined]
    assert examples[0] == "bad: if not redis.get(event.id): credit(order)   # races between workers"
    assert examples[1].startswith("good: with db.begin():\n    if insert_processed(event.id):")
    pitfall = store.get("anti-209990-59fbc053").symptom  # type: ignore[attr-defined]
    assert 'relation "processed_events" already exists' in pitfall and "\\" not in pitfall
    signal = store.get("obs-bc5c34d9cabc").to_dict()
    assert (signal["legacy_id"], signal["status"], signal["promoted_to"]) == (
        "sig-318bcfdf",
        "promoted",
        "evi-2105909d",
    )
    assert signal["legacy"] == {"promoted_to": "evidence"} and signal["source"] == "k6"
    goal = store.get("goal-1783948083-3a117e14").to_dict()
    assert goal["title"] == "Feature: Replay-safe Stripe webhooks"
    assert goal["timestamp"] == "2026-07-13T13:08:03.000000Z"  # -04:00 read as UTC
    assert goal["description"].endswith("Make every handler idempotent and traceable.")
    assert goal["criteria"][1]["id"] == "sc-2" and goal["criteria"][1]["met"] is True
    assert goal["criteria"][1]["text"] == "Operators can trace an event end to end"
    assert goal["legacy"]["source"]["type"] == "spec-kit" and goal["source"] == "bash-lore"
    assert store.get("goal-1783948275-3d24ce0b").deadline == "2026-07-24"  # type: ignore[attr-defined]
    fork = store.get("session-20260716-090521-054b740b").to_dict()
    assert (fork["status"], fork["parent"], fork["project"]) == (
        "closed",
        "session-20260715-085238-03b48a90",
        "orders-api",
    )
    assert fork["ended_at"] == "2026-07-16T20:52:00.000000Z"
    assert fork["blockers"] == [
        "Terraform module ci_runners needs the new runner_image input (INFRA-88)"
    ]
    assert fork["captured"] == {
        "decision": ["dec-f64ae884", "dec-1944380e", "dec-40d1fb0f", "dec-20414b6c"]
    }
    assert fork["git"]["branch"] == "outbox-emails" and fork["git"]["stash_count"] == 1
    assert fork["inherited"]["questions"] == ["Is a 60s stale catalog acceptable for flash sales?"]
    first = store.get("session-20260713-090440-d2299339").to_dict()
    assert first["captured"]["pattern"] == ["pat-950064-ec56b17b"]  # named in patterns_learned
    concept = store.get("concept-210465fa").to_dict()
    assert concept["description"].endswith("(冪等性)") and concept["source"] == "manual"
    relation = next(e for e in store.records("edge") if e.src == "concept-05fb67b1").to_dict()
    assert (relation["legacy_relation"], relation["weight"]) == ("informs", 1)


def test_legacy_ids_work_in_show_recall_and_graph(run: Run, imported: Path) -> None:
    shown = run("show", "sig-318bcfdf", "--json")
    assert shown.exit_code == 0
    assert json.loads(shown.stdout)["id"] == "obs-bc5c34d9cabc"
    text = run("show", "sig-318bcfdf")
    assert text.stdout.startswith("observation obs-bc5c34d9cabc\n")
    found = json.loads(run("recall", "sig-318bcfdf", "--json").stdout)
    assert found["results"][0]["id"] == "obs-bc5c34d9cabc"
    node = json.loads(run("graph", "show", "sig-318bcfdf", "--json").stdout)
    assert node["node"]["id"] == "obs-bc5c34d9cabc"
    assert node["node"]["legacy_id"] == "sig-318bcfdf"
    assert node["edges"] == [
        {"from": "obs-bc5c34d9cabc", "to": "evi-2105909d", "relation": "promoted_to"}
    ]
    missing = run("show", "sig-00000000")
    assert missing.exit_code == 3
    # with the index there (recall built it), the legacy id is looked up through it
    from lore.index.legacy import candidates
    from lore.paths import resolve_root
    from lore.store.core import Store

    store = Store(resolve_root(None))
    assert store.root.index_file.is_file()
    assert [r.id for r in candidates(store, "sig-318bcfdf") or []] == ["obs-bc5c34d9cabc"]
    assert candidates(store, "sig-00000000") == []
    again = run("show", "sig-318bcfdf", "--json")
    assert json.loads(again.stdout)["id"] == "obs-bc5c34d9cabc"
    assert run("show", "sig-00000000").exit_code == 3


def _broken_root(tmp_path: Path) -> Path:
    root = tmp_path / "bash"
    shutil.copytree(FIXTURE, root)
    journal = root / "journal/data/decisions.jsonl"
    journal.write_text(
        journal.read_text() + '{"id": "dec-0000dead", "decision": "torn\n'
        '["not", "an", "object"]\n{"decision": "no id here"}\n'
    )
    failures = root / "failures/data/failures.jsonl"
    failures.write_text(
        failures.read_text()
        + json.dumps(
            {
                "id": "fail-0000beef",
                "timestamp": "2026-07-17T15:00:00Z",
                "error_type": "bad type!",
                "error_message": "x",
            }
        )
        + "\n"
    )
    patterns = root / "patterns/data/patterns.yaml"
    text = patterns.read_text().replace(  # awk wrote quotes unescaped: no longer YAML
        '    name: "Editing alembic_version by hand"',
        '    name: "Editing "alembic_version" by hand"',
    )
    text += '  - id: "anti-000000-00000000"\n    name: [unclosed\n    oops\n'
    patterns.write_text(text)
    concepts = root / "patterns/data/concepts.yaml"  # hand-built: quotes left unescaped
    concepts.write_text(
        concepts.read_text().replace("(created_at, id) instead", '"(created_at, id)" instead')
    )
    goal = root / "intent/data/goals/goal-1784213550-43b91021.yaml"
    goal.write_text("name: [broken\n  - : :\n")
    session = root / "transfer/data/sessions/session-20260714-085735-536d33cc.json"
    session.write_text(session.read_text()[:200])
    signals = root / "inbox/data/signals.jsonl"
    signals.write_bytes(signals.read_bytes() + b'{"id": "sig-bad", "content": "\xff\xfe"}\n')
    return root


def test_a_broken_root_imports_the_rest_and_names_the_broken_lines(
    run: Run, tmp_path: Path, store: Store
) -> None:
    doc = _import(run, _broken_root(tmp_path))
    skipped = [(s["file"], s["line"], s["kind"]) for s in doc["skipped"]]
    assert skipped == [
        ("failures/data/failures.jsonl", 26, "failure"),
        ("inbox/data/signals.jsonl", 24, "observation"),
        ("intent/data/goals/goal-1784213550-43b91021.yaml", 2, "goal"),
        ("journal/data/decisions.jsonl", 78, "decision"),
        ("journal/data/decisions.jsonl", 79, "decision"),
        ("journal/data/decisions.jsonl", 80, "decision"),
        ("patterns/data/flags.jsonl", 4, None),
        ("patterns/data/patterns.yaml", 262, "anti-pattern"),
        ("transfer/data/sessions/session-20260714-085735-536d33cc.json", 6, "session"),
    ]
    reasons = {(s["file"], s["line"]): s["reason"] for s in doc["skipped"]}
    assert reasons[("journal/data/decisions.jsonl", 79)] == "not a JSON object (list)"
    assert reasons[("journal/data/decisions.jsonl", 80)] == "no id"
    assert reasons[("failures/data/failures.jsonl", 26)] == (
        "error_type 'bad type!' is not an error type lore reads"
    )
    assert (
        reasons[("inbox/data/signals.jsonl", 24)]
        == "not UTF-8 text (invalid start byte at column 31)"
    )
    assert reasons[("patterns/data/patterns.yaml", 262)].startswith("does not parse as YAML")
    # Everything else came in, the unescaped anti-pattern read leniently.
    assert doc["kinds"]["decision"]["imported"] == 39
    assert doc["kinds"]["anti-pattern"]["imported"] == 6
    assert store.get("anti-227954-5fc7d2ef").title == 'Editing "alembic_version" by hand'
    assert doc["kinds"]["concept"]["imported"] == 5
    assert store.get("concept-c629615d").description == (  # type: ignore[attr-defined]
        'Paging by the last seen sort key "(created_at, id)" instead of an OFFSET'
    )
    assert doc["kinds"]["goal"]["imported"] == 5
    assert doc["kinds"]["session"]["imported"] == 4
    assert doc["kinds"]["failure"] == {"found": 26, "imported": 25, "existing": 0, "skipped": 1}
    # One line that is not UTF-8 is skipped; the file's other signals come in.
    assert doc["kinds"]["observation"] == {"found": 20, "imported": 20, "existing": 0, "skipped": 0}
    text = run("import", "--from", "bash-lore", str(tmp_path / "bash"))
    assert text.exit_code == 0
    assert "lore: warning: journal/data/decisions.jsonl:79: not a JSON object (list)" in text.stderr


def test_a_credential_in_a_record_is_refused_by_the_secrets_gate(
    run: Run, tmp_path: Path, store: Store
) -> None:
    root = tmp_path / "bash"
    (root / "inbox/data").mkdir(parents=True)
    key = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    line = {
        "id": "sig-12345678",
        "timestamp": "2026-07-13T14:06:44Z",
        "content": f"token {key}",
        "status": "raw",
        "tags": [],
    }
    (root / "inbox/data/signals.jsonl").write_text(json.dumps(line) + "\n")
    doc = _import(run, root)
    assert doc["imported"] == 0 and doc["kinds"]["observation"]["skipped"] == 1
    assert doc["skipped"][0]["reason"].startswith("observation content looks like it holds a")
    assert store.records("observation") == []
    allowed = _import(run, root, "--allow-secret")
    assert allowed["by_kind"] == {"observation": 1}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["import", "--from", "bash-lore", "nowhere"], "no such directory: nowhere"),
        (
            ["import", "--from", "bash-lore", str(FIXTURE / "journal/data/decisions.jsonl")],
            "decisions.jsonl is a file, not a directory: give the directory LORE_DATA_DIR",
        ),
        (["import", "--from", "bash-lore", "."], "is not a bash-lore data root"),
        (["import", "--from", "bash-lore", str(FIXTURE), "--skip-invalid"], "always skips"),
        (["import", "--from", "bash-lore", "-"], "takes a directory"),
        (["import", str(FIXTURE)], "add --from bash-lore"),
    ],
)
def test_usage_errors(run: Run, args: list[str], message: str, data_dir: Path) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert not data_dir.exists() or not [p for p in data_dir.rglob("*") if p.is_file()]


def test_its_own_data_root_is_refused(run: Run, data_dir: Path) -> None:
    run("remember", "Use uv")
    (data_dir / "journal/data/decisions.jsonl").touch()
    result = run("import", "--from", "bash-lore", str(data_dir))
    assert result.exit_code == 2 and "this lore's own data root" in result.stderr


def test_the_lenient_reader() -> None:
    from lore.bulk.bashlore_read import lenient_mapping

    text = (
        'name: "Editing "alembic_version" by hand"\n'
        "title: Incident: duplicate emails\n"
        "tags: [stripe, 'web hooks']\n"
        "body: |-\n  line one\n    indented\n"
        'items:\n  - a\n  - "b"\n'
        "count: 3\nscore: 0.5\ndone: true\nnothing: null\n"
    )
    assert lenient_mapping(text) == {
        "name": 'Editing "alembic_version" by hand',
        "title": "Incident: duplicate emails",
        "tags": ["stripe", "web hooks"],
        "body": "line one\n  indented",
        "items": ["a", "b"],
        "count": 3,
        "score": 0.5,
        "done": True,
        "nothing": None,
    }
    for bad in ("name: [unclosed", "just text", "items:\n  - a: 1\n", "a: b\n  - c\n"):
        with pytest.raises(ValueError):
            lenient_mapping(bad)


def test_odd_shapes_are_skipped_never_a_crash(run: Run, tmp_path: Path, store: Store) -> None:
    root = tmp_path / "odd"
    files = {
        "journal/data/decisions.jsonl": '{"id": ["x"], "decision": "list id"}\n'
        '{"id": "dec-00000001", "decision": {"a": 1}}\n'
        '{"id": "dec-00000002", "decision": "Kept", "timestamp": "yesterday-ish"}\n'
        '{"id": "dec-00000003", "decision": "Fine", "timestamp": "2026-01-02T03:04:05Z",'
        ' "tags": "one", "entities": [1, "x"], "related_decisions": ["dec-gone"]}\n',
        "patterns/data/patterns.yaml": "patterns:\n  - name: no id here\n  - id: [1, 2]\n"
        "    name: list id\n  - 7\nanti_patterns: {}\n",
        "failures/data/failures.jsonl": '{"id": "fail-00000001", "error_type": "Timeout",'
        ' "error_message": "m", "step": {"deep": 1}, "timestamp": "2026-01-02T03:04:05Z"}\n',
        "intent/data/goals/goal-1.yaml": "- just\n- a list\n",
        "transfer/data/sessions/session-odd.json": "[1, 2]",
        "registry/data/metadata.yaml": "version: '1.0'\nmetadata:\n  svc:\n    name: other\n"
        "    role: api\n  odd: 5\n",
        "registry/data/contracts.yaml": "contracts:\n  task:\n    location: x.md\n",
        "graph/data/graph.json": json.dumps(
            {
                "nodes": {"n1": {"type": ["decision"], "name": "dec-00000003"}, "n2": 5},
                "edges": [
                    7,
                    {"from": "n1", "to": "n2", "relation": "causes"},
                    {"from": "n1", "to": "zz", "relation": "fixes"},
                ],
            },
            indent=2,
        ),
        "notes.txt": "hello",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    doc = _import(run, root)
    reasons = [(s["file"], s["reason"]) for s in doc["skipped"]]
    assert ("journal/data/decisions.jsonl", "no id") in reasons
    assert ("journal/data/decisions.jsonl", "a decision without decision text") in reasons
    assert (
        "journal/data/decisions.jsonl",
        "timestamp is not an ISO-8601 time ('yesterday-ish')",
    ) in reasons
    assert ("patterns/data/patterns.yaml", "a pattern without an id") in reasons
    assert ("patterns/data/patterns.yaml", "patterns entry is not a mapping") in reasons
    goal = next(r for f, r in reasons if f == "intent/data/goals/goal-1.yaml")
    assert goal.startswith("does not parse as YAML (not a mapping; line 1 is not 'key: value'")
    assert ("transfer/data/sessions/session-odd.json", "not a JSON object") in reasons
    assert (
        "registry/data/contracts.yaml",
        "contract 'task': lore has no record kind for interface contracts",
    ) in reasons
    assert ("graph/data/graph.json", "not an edge (from, to and relation)") in reasons
    assert ("graph/data/graph.json", "edge n1 fixes zz: zz is not a node of graph.json") in reasons
    assert doc["by_kind"] == {"decision": 1, "failure": 1, "project": 2}
    decision = store.get("dec-00000003").to_dict()
    assert (decision["tags"], decision["entities"]) == (["one"], ["x"])
    assert decision["legacy"] == {"related_decisions": ["dec-gone"]}
    assert store.get("fail-00000001").to_dict()["legacy"] == {"step": {"deep": 1}}
    assert {p.id for p in store.records("project")} == {"svc", "odd"}
    assert store.get("svc").to_dict()["role"] == "api"
    assert {"file": "notes.txt", "reason": "not a file bash-lore writes"} in doc["ignored"]
    assert json.loads(run("validate", "--json").stdout)["errors"] == 0
