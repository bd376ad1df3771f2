"""``lore recall`` (and ``search``), its modes and shortcuts, and ``lore index``."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.store.core import Store

Run = Callable[..., Result]
NOW = "2026-03-10T12:00:00.000000Z"
T1, T2, T3 = (f"2026-03-0{d}T10:00:00.000000Z" for d in (1, 2, 3))
COMMANDS = {
    "recall": "recall:recall_cmd",
    "search": "recall:search_cmd",
    "context": "recall:context_cmd",
    "brief": "recall:brief_cmd",
    "failures": "recall:failures_cmd",
    "triggers": "recall:triggers_cmd",
    "index": "recall:index_cmd",
}
EXPLAIN_KEYS = {
    *("bm25", "fuzzy", "relevance", "project", "stale"),
    # the activation model (lore.dynamics.activation) and its parts
    *("activation", "recency", "last_used", "used", "cited", "importance", "pinned"),
}


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the commands (a no-op once lore.cli lists them itself)."""
    from lore import cli

    for name, target in COMMANDS.items():
        if name not in cli.LAZY_COMMANDS:
            monkeypatch.setitem(cli.LAZY_COMMANDS, name, (target, ""))
    monkeypatch.setenv("LORE_NOW", NOW)


def new(run: Run, *args: str, at: str = T1) -> dict[str, Any]:
    result = run(*args, "--json", env={"LORE_NOW": at})
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)["record"]  # type: ignore[no-any-return]


def doc(run: Run, *args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("\n") == 1  # one JSON document
    return json.loads(result.stdout)


def as_result(record: dict[str, Any], kind: str, score: float | None = None) -> dict[str, Any]:
    """A stored record in recall's shape (``type`` = kind, ``decision_type`` for decisions)."""
    out: dict[str, Any] = {"id": record["id"], "type": kind}
    if score is not None:
        out["score"] = score
    for key, value in record.items():
        if key != "id":
            out["decision_type" if key == "type" else key] = value
    return out


# --- recall --------------------------------------------------------------------------------


def test_recall_json_shape(run: Run) -> None:
    dec = new(run, "remember", "Use PostgreSQL for storage", "--type", "architecture")
    obs = new(run, "observe", "storage is slow on Mondays", at=T2)
    got = doc(run, "recall", "postgresql", "storage")
    assert got["query"] == "postgresql storage"
    assert [r["id"] for r in got["results"]] == [dec["id"], obs["id"]]
    first = got["results"][0]
    assert list(first)[:3] == ["id", "type", "score"]
    assert first == as_result(dec, "decision", first["score"])
    assert first["decision_type"] == "architecture" and first["type"] == "decision"
    assert got["results"][1] == as_result(obs, "observation", got["results"][1]["score"])
    assert first["score"] > got["results"][1]["score"] > 0


def test_recall_explain_adds_every_component(run: Run) -> None:
    new(run, "learn", "Retry with backoff", "--solution", "jitter the retries")
    got = doc(run, "recall", "retry", "--explain")
    [hit] = got["results"]
    assert set(hit["explain"]) == EXPLAIN_KEYS | {"score"}
    assert hit["explain"]["score"] == hit["score"]
    assert hit["explain"]["relevance"] == 1.0


def test_search_is_an_alias(run: Run) -> None:
    new(run, "observe", "the queue backs up at night")

    def unscored(got: dict[str, Any]) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if k != "score"} for r in got["results"]]

    # (scores differ: the first search counts in the recall history)
    assert unscored(doc(run, "search", "queue")) == unscored(doc(run, "recall", "queue"))


def test_recall_human_output(run: Run) -> None:
    dec = new(run, "remember", "Cache [red]API[/red] responses", "-r", "the upstream cache is slow")
    result = run("recall", "cache")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].endswith(f"  decision {dec['id']}  Cache [red]API[/red] responses")
    assert float(lines[0].split()[0]) > 0
    assert lines[1] == "      the upstream »cache« is slow"
    assert "\x1b" not in result.stdout


def test_no_match_prints_nothing_and_succeeds(run: Run) -> None:
    new(run, "observe", "something else")
    result = run("recall", "kubernetes")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == "lore: no matches for 'kubernetes'\n"
    assert doc(run, "recall", "kubernetes") == {
        "query": "kubernetes",
        "window": None,
        "kinds": [],
        "results": [],
    }
    stop = run("recall", "what", "is", "the")
    assert (stop.exit_code, stop.stdout) == (0, "")
    assert stop.stderr == (
        "lore: nothing to search for: 'what is the' holds only stop words or one-letter words\n"
    )
    only_time = run("recall", "what", "did", "we", "do", "last", "week")
    assert (only_time.exit_code, only_time.stdout) == (0, "")
    assert only_time.stderr == (
        "lore: nothing to search for in 'what did we do last week' besides the time "
        "'last week' (lore timeline shows what happened when)\n"
    )


def test_filters_on_the_command_line(run: Run) -> None:
    dec = new(run, "remember", "Pin node in CI", "--project", "web", "-t", "ci", at=T1)
    obs = new(run, "observe", "node upgrade broke CI", "--project", "api", at=T3)

    def ids(*args: str) -> list[str]:
        return [r["id"] for r in doc(run, "recall", "node", "ci", *args)["results"]]

    assert ids("--kind", "decisions") == [dec["id"]]
    assert ids("--project", "api") == [obs["id"]]
    assert ids("--tag", "ci") == [dec["id"]]
    assert ids("--since", "2026-03-02") == [obs["id"]]
    assert ids("--since", "8d") == [obs["id"]]
    assert sorted(ids("--since", "2w")) == sorted([dec["id"], obs["id"]])
    assert ids("--until", "2026-03-02") == [dec["id"]]  # before March 2
    assert ids("--until", "8d") == [dec["id"]]  # older than 8 days
    assert ids("--since", "2026-03-01", "--until", "2026-03-01") == [dec["id"]]  # that day
    assert sorted(ids("--since", "2026-W09", "--until", "march")) == sorted([dec["id"], obs["id"]])
    assert ids("--since", "yesterday") == []
    assert len(ids("--limit", "1")) == 1


def test_a_time_inside_the_query_boosts_its_window(run: Run) -> None:
    old = new(run, "remember", "Cache sessions in Redis", at="2026-02-10T10:00:00.000000Z")
    mid = new(run, "remember", "Cache sessions in Memcached", at=T1)  # week 2026-W09
    both = doc(run, "recall", "cache", "sessions", "--explain")
    assert [r["id"] for r in both["results"]] == [mid["id"], old["id"]]  # newer first
    assert both["window"] is None
    found = doc(run, "recall", "what did we decide about cache sessions in february", "--explain")
    assert found["window"] == {
        "text": "in february",
        "since": "2026-02-01T00:00:00Z",
        "until": "2026-03-01T00:00:00Z",
    }
    assert [r["id"] for r in found["results"]] == [old["id"], mid["id"]]
    assert [r["explain"]["window"] for r in found["results"]] == [1.0, 0.0]
    assert [r["timestamp"] for r in found["results"]] == [old["timestamp"], mid["timestamp"]]
    text = run("recall", "cache sessions last week", "--explain")  # LORE_NOW: 2026-03-10
    assert text.exit_code == 0
    assert text.stderr.splitlines()[0] == (
        "lore: time window 'last week': 2026-03-02T00:00:00Z to 2026-03-09T00:00:00Z"
        " (its records rank higher)"
    )
    assert text.stdout.splitlines()[0].endswith(
        f"decision {mid['id']}  Cache sessions in Memcached"
    )


def test_hidden_records_need_all(run: Run) -> None:
    old = new(run, "remember", "Deploy with Fabric", at=T1)
    assert run("retract", old["id"]).exit_code == 0
    assert doc(run, "recall", "fabric")["results"] == []
    [hit] = doc(run, "recall", "fabric", "--all")["results"]
    assert (hit["id"], hit["status"]) == (old["id"], "retracted")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "nothing to recall"),
        (("x", "--patterns", "--brief"), "choose one mode"),
        (("x", "--type", "Timeout"), "--error-type goes with --failures"),
        (("x", "--threshold", "2"), "--threshold goes with --triggers"),
        (("x", "--since", "the day after the meeting"), "--since 'the day after the meeting'"),
        (("x", "--until", "2026-13"), "--until '2026-13': not a time lore can read; use"),
        (("x", "--kind", "edge"), "recall does not search edges"),
        (("x", "--kind", "nonsense"), "unknown record kind"),
        (("--brief",), "--brief needs a topic"),
    ],
)
def test_usage_errors(run: Run, args: tuple[str, ...], message: str) -> None:
    result = run("recall", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr
    as_json = run("recall", *args, "--json")
    assert as_json.exit_code == 2
    assert json.loads(as_json.stdout)["code"] == "usage"


def test_recall_writes_nothing_under_the_data_root(run: Run, data_dir: Path) -> None:
    new(run, "remember", "Use Kafka for events")
    new(run, "learn", "Idempotent consumers", "--solution", "dedupe by key")

    def digest() -> dict[str, str]:
        return {
            p.relative_to(data_dir).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(data_dir.rglob("*"))
            if p.is_file()
        }

    before = digest()
    for args in (
        ("recall", "kafka events"),
        ("recall", "consumers", "--json", "--explain"),
        ("recall", "--brief", "kafka"),
        ("recall", "--patterns"),
        ("index", "rebuild"),
        ("index", "status"),
        ("context", "x"),
        ("failures",),
        ("triggers",),
    ):
        assert run(*args).exit_code == 0
    assert digest() == before


# --- modes -------------------------------------------------------------------------------


def test_patterns_mode(run: Run) -> None:
    pat = new(run, "learn", "Retry with backoff", "--solution", "jitter", "--confidence", "0.9")
    weak = new(run, "learn", "Retry forever", "--confidence", "0.2", at=T2)
    anti = new(run, "capture", "Retry storms", "--symptom", "load spikes", "--severity", "high")
    new(run, "remember", "Retry the payment once")
    got = doc(run, "recall", "--patterns", "retry")
    assert list(got) == ["query", "project", "patterns", "anti_patterns"]
    assert got["query"] == "retry" and got["project"] is None
    assert [p["id"] for p in got["patterns"]] == [pat["id"], weak["id"]]
    assert [a["id"] for a in got["anti_patterns"]] == [anti["id"]]
    assert got["patterns"][0] == {
        **as_result(pat, "pattern", got["patterns"][0]["score"]),
        "flagged": None,  # suggest's patterns say whether they are flagged advice
    }
    top = doc(run, "recall", "--patterns")
    assert top["query"] is None
    assert [p["id"] for p in top["patterns"]] == [pat["id"], weak["id"]]  # by confidence
    assert top["patterns"][0] == {**as_result(pat, "pattern"), "flagged": None}
    assert [a["id"] for a in top["anti_patterns"]] == [anti["id"]]


def test_patterns_mode_without_a_query_keeps_to_the_project(run: Run) -> None:
    ours = new(run, "learn", "Cache warm-up before traffic", "--project", "api")
    shared = new(run, "learn", "Small pull requests")  # no project: everyone's
    new(run, "learn", "Theirs only", "--project", "web")
    got = doc(run, "recall", "--patterns", "--project", "api")
    assert got["project"] == "api"
    assert {p["id"] for p in got["patterns"]} == {ours["id"], shared["id"]}
    env = run("recall", "--patterns", "--json", env={"LORE_PROJECT": "api"})
    assert json.loads(env.stdout)["patterns"] == got["patterns"]


def test_failures_mode_and_shortcut(run: Run) -> None:
    a = new(run, "fail", "Timeout", "tests hung on the db", at=T1)
    b = new(run, "fail", "NonZeroExit", "pytest exited 1", at=T2)
    c = new(run, "fail", "Timeout", "deploy hung", at=T3)
    got = doc(run, "recall", "--failures")
    assert got == {
        "type": None,
        "counts": {"Timeout": 2, "NonZeroExit": 1},
        "failures": [as_result(c, "failure"), as_result(b, "failure"), as_result(a, "failure")],
    }
    typed = doc(run, "recall", "--failures", "--type", "Timeout")
    assert typed["type"] == "Timeout" and typed["counts"] == {"Timeout": 2}
    assert [f["id"] for f in typed["failures"]] == [c["id"], a["id"]]
    assert [f["id"] for f in doc(run, "recall", "--failures", "hung")["failures"]] == [
        c["id"],
        a["id"],
    ]
    assert doc(run, "failures", "--type", "Timeout") == typed
    assert doc(run, "failures", "--limit", "1")["failures"] == [as_result(c, "failure")]
    human = run("failures")
    assert human.stdout.splitlines()[0] == "counts: Timeout 2, NonZeroExit 1"
    assert f"{c['id']}  Timeout: deploy hung" in human.stdout


def test_triggers_mode_and_shortcut(run: Run) -> None:
    for i, when in enumerate((T1, T2, T3)):
        new(run, "fail", "Timeout", f"hung {i}", at=when)
    new(run, "fail", "NonZeroExit", "exit 1")
    got = doc(run, "recall", "--triggers")
    assert got == {
        "threshold": 3,
        "triggers": [
            {
                "error_type": "Timeout",
                "count": 3,
                "last_seen": T3,
                "last_message": "hung 2",
                "pitfall": None,
                "pattern": None,
            }
        ],
    }
    assert doc(run, "triggers") == got
    low = doc(run, "recall", "--triggers", "--threshold", "1")
    assert low["threshold"] == 1
    assert [t["error_type"] for t in low["triggers"]] == ["Timeout", "NonZeroExit"]
    assert doc(run, "triggers", "--threshold", "1") == low


def test_context_mode_and_shortcut(run: Run, store: Store) -> None:
    from lore.components.intent import Goal
    from lore.components.registry import Project

    store.add([Project(id="shop", name="shop", timestamp=T1, description="the web shop")])
    store.add([Goal(id="goal-000000000001", timestamp=T1, title="Launch", project="shop")])
    d1 = new(run, "remember", "Use Stripe", "--project", "shop", at=T1)
    d2 = new(run, "remember", "Use Postgres", "--project", "shop", at=T2)
    new(run, "remember", "Unrelated", "--project", "other")
    pat = new(run, "learn", "Webhooks retry", "--project", "shop")
    fail = new(run, "fail", "Timeout", "stripe slow", "--project", "shop")
    got = doc(run, "recall", "--project", "shop")
    assert list(got) == ["project", "registry", "decisions", "patterns", "failures", "goals"]
    assert got["project"] == "shop"
    assert [r["id"] for r in got["registry"]] == ["shop"]
    assert got["registry"][0]["type"] == "project"
    assert [d["id"] for d in got["decisions"]] == [d2["id"], d1["id"]]
    assert [p["id"] for p in got["patterns"]] == [pat["id"]]
    assert [f["id"] for f in got["failures"]] == [fail["id"]]
    assert [g["id"] for g in got["goals"]] == ["goal-000000000001"]
    assert doc(run, "context", "shop") == got
    empty = doc(run, "context", "nowhere")
    assert empty == {
        "project": "nowhere",
        "registry": [],
        "decisions": [],
        "patterns": [],
        "failures": [],
        "goals": [],
    }


def test_brief_mode_and_shortcut(run: Run, store: Store) -> None:
    good = new(run, "remember", "Cache sessions in `redis`", "--outcome", "successful", at=T1)
    bad = new(run, "remember", "Drop the `redis` cache", "--outcome", "abandoned", at=T2)
    other = new(run, "remember", "Cache templates in memory", "--outcome", "pending", at=T3)
    pat = new(run, "learn", "Cache invalidation by version key")
    fail = new(run, "fail", "Timeout", "cache warmup timed out")
    got = doc(run, "recall", "--brief", "cache")
    assert list(got) == ["topic", "decisions", "patterns", "failures", "contradictions"]
    assert got["topic"] == "cache"
    assert got["decisions"]["count"] == 3
    assert {d["id"] for d in got["decisions"]["items"]} == {good["id"], bad["id"], other["id"]}
    assert got["patterns"] == {"count": 1, "items": got["patterns"]["items"]}
    assert [p["id"] for p in got["patterns"]["items"]] == [pat["id"]]
    assert [f["id"] for f in got["failures"]["items"]] == [fail["id"]]
    pair = got["contradictions"]
    assert pair["count"] == 1
    [item] = pair["items"]
    assert {item["a"], item["b"]} == {good["id"], bad["id"]}
    assert item["shared"] == ["redis"]
    assert sorted(item["outcomes"]) == ["abandoned", "successful"]
    assert doc(run, "brief", "cache") == got
    human = run("brief", "cache").stdout
    assert "## Decisions (3)" in human and "## Contradictions (1)" in human


def test_modes_show_nothing_on_an_empty_store(run: Run) -> None:
    assert doc(run, "failures") == {"type": None, "counts": {}, "failures": []}
    assert doc(run, "triggers") == {"threshold": 3, "triggers": []}
    brief = doc(run, "brief", "anything")
    assert brief["decisions"] == {"count": 0, "items": []}
    assert brief["contradictions"] == {"count": 0, "items": []}


# --- the index -----------------------------------------------------------------------------


def test_index_rebuild_and_status(run: Run, store: Store) -> None:
    from lore.index.persist import index_path

    new(run, "observe", "one note")
    new(run, "remember", "one choice")
    status = doc(run, "index", "status")
    assert status["exists"] is False and status["records"] == 0
    rebuilt = doc(run, "index", "rebuild")
    assert set(rebuilt) == {"ok", "path", "records", "terms", "seconds"}
    assert (rebuilt["ok"], rebuilt["records"]) == (True, 2)
    assert rebuilt["path"] == str(index_path(store.root))
    status = doc(run, "index", "status")
    assert set(status) == {
        "path",
        "exists",
        "readable",
        "fresh",
        "watched",
        "schema",
        "records",
        "terms",
        "bytes",
        "kinds",
    }
    assert (status["exists"], status["fresh"], status["records"]) == (True, True, 2)
    assert status["watched"] is False  # LORE_WATCH=0 in the tests
    assert status["kinds"] == {"decision": 1, "observation": 1}
    new(run, "observe", "two notes")
    assert doc(run, "index", "status")["fresh"] is False
    human = run("index", "rebuild")
    assert human.stdout.startswith("index rebuilt: 3 records, ")


def test_capture_then_recall_without_rebuild(run: Run) -> None:
    assert doc(run, "recall", "zeppelin")["results"] == []
    rec = new(run, "observe", "the zeppelin test is flaky")
    assert [r["id"] for r in doc(run, "recall", "zeppelin")["results"]] == [rec["id"]]


def test_a_session_snippet_does_not_repeat_its_summary(run: Run) -> None:
    new(run, "handoff", "Parser finished. The lexer still chokes on unicode escapes.")
    result = run("recall", "parser", "lexer")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].endswith("Parser finished.")
    assert lines[1] == "      The »lexer« still chokes on unicode escapes."
