"""lore.bulk without the CLI: import checks, enrichment, duplicates and export order."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from lore.bulk import importer as bulk
from lore.bulk.export import export_records
from lore.bulk.importer import ImportResult, import_records
from lore.errors import InvalidInputError, UsageError
from lore.model import kind_class
from lore.store.core import Store

NOW = "2026-03-04T05:06:07.123456Z"
SECRET = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
COMMON = {"session_id": None, "project": "lore", "source": "adr", "tags": ["t1", "t2"], "v": 1}

# One line per kind with every field given, so the stored record must equal it exactly.
FULL: dict[str, dict[str, Any]] = {
    "decision": {
        "id": "dec-0123456789ab",
        "timestamp": "2024-05-06T07:08:09.101112Z",
        "decision": "Use orjson because: speed",  # explicit rationale: no inline parsing
        "rationale": "fast",
        "alternatives": ["json", "ujson, tuned"],
        "outcome": "successful",
        "type": "tooling",
        "entities": ["lore/storage/jsonl.py"],
        "files": ["a.py"],
        "lesson_learned": "measure first",
        "related_decisions": ["dec-aaaaaaaaaaaa"],
        "git_commit": None,
        "status": "active",
        "superseded_by": None,
        "spec_quality": 0.42,
        "supersedes": [],
        "contradicts": [],
        "derived_from": None,
    },
    "pattern": {
        "id": "pat-0123456789ab",
        "timestamp": "2024-05-06T07:08:09.101112Z",
        "name": "Retry flaky calls",
        "context": "CI",
        "problem": "429s",
        "solution": "backoff",
        "category": "network",
        "origin": "incident 7",
        "confidence": 0.8,
        "validations": 3,
        "examples": ["retry(3), then fail"],
        "status": "active",
        "flags": [{"timestamp": "2024-05-07T00:00:00.000000Z", "type": "obsolete", "reason": "v2"}],
        "inverted_to": None,
    },
    "anti-pattern": {
        "id": "anti-0123456789ab",
        "timestamp": "2024-05-06T07:08:09.101112Z",
        "name": "Sleep in tests",
        "symptom": "slow suite",
        "risk": "flakes",
        "fix": "fake clock",
        "severity": "high",
        "category": "testing",
        "status": "active",
        "inverted_from": None,
    },
    "failure": {
        "id": "fail-0123456789ab",
        "timestamp": "2024-05-06T07:08:09.101112Z",
        "error_type": "NonZeroExit",
        "error_message": "pytest exited 1",
        "tool": "pytest",
        "step": "test",
        "provenance": {
            "transcript": "/home/me/.claude/projects/-p/s.jsonl",
            "session": "s1",
            "lines": [3, 4],
        },
    },
    "observation": {
        "id": "obs-0123456789ab",
        "timestamp": "2024-05-06T07:08:09.101112Z",
        "content": "CI cache is cold on Mondays",
        "status": "promoted",
        "promoted_to": "dec-0123456789ab",
        "discard_reason": "",
        "provenance": {"transcript": "/s.jsonl", "session": None, "lines": [1, 1]},
    },
    "evidence": {
        "id": "evi-0123456789ab",
        "timestamp": "2024-05-06T07:08:09.101112Z",
        "content": "bench: 3x faster",
        "provenance": "bench/run.txt",
        "confidence": "confirmed",
        "supports": ["dec-0123456789ab"],
        "derived_from": None,
    },
    "concept": {
        "id": "concept-0123456789ab",
        "timestamp": "2024-05-06T07:08:09.101112Z",
        "name": "Data root",
        "description": "where the files live",
        "aliases": ["root"],
        "related": ["dec-0123456789ab"],
        "status": "active",
    },
}


def line(kind: str, **fields: Any) -> bytes:
    return orjson.dumps({"kind": kind, **fields})


def full(kind: str) -> dict[str, Any]:
    return {**FULL[kind], **COMMON}


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under the data root and its bytes (lock files included)."""
    if not root.exists():
        return {}
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)


# --- each kind ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(FULL))
def test_each_kind_is_stored_exactly_as_given(store: Store, kind: str) -> None:
    expected = full(kind)
    result = import_records(store, [line(kind, **expected, extra_note={"keep": [1, "two"]})])
    assert result.ids == [expected["id"]]
    stored = store.get(expected["id"]).to_dict()
    assert stored == {**expected, "extra_note": {"keep": [1, "two"]}}
    cls = kind_class(kind)
    assert list(stored) == [*cls.field_names(), "extra_note"]
    location = store.location(cls)
    if location.suffix == ".jsonl":
        assert location.read_bytes() == orjson.dumps(stored) + b"\n"
    else:
        assert [p.name for p in location.iterdir()] == [f"{expected['id']}.yaml"]


def test_original_timestamp_is_kept_in_canonical_form(store: Store) -> None:
    result = import_records(
        store,
        [
            line("observation", content="a", timestamp="2024-01-02T03:04:05+02:00"),
            line("observation", content="b", timestamp="2024-01-02"),
            line("observation", content="c"),
        ],
    )
    stamps = [store.get(i).timestamp for i in result.ids]
    assert stamps == ["2024-01-02T01:04:05.000000Z", "2024-01-02T00:00:00.000000Z", NOW]


def test_missing_fields_get_captures_enrichment(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_PROJECT", "proj")
    result = import_records(
        store,
        [
            line("decision", decision="Use uv in `pyproject.toml` because: fast vs: pip, poetry"),
            line("failure", error_type="Timeout", message="took 10m"),
            line("concept", name="Root", aliases="data root, base", tags="a,b"),
            line("pattern", name="Pin tools", confidence="0.9", examples="one, two"),
            line("evidence", content="seen", confidence=" Confirmed "),
        ],
    )
    decision, failure, concept, pattern, evidence = (store.get(i) for i in result.ids)
    assert decision.id.startswith("dec-") and len(decision.id) == len("dec-") + 12
    assert decision.to_dict() | {"id": "x"} == {
        "id": "x",
        "timestamp": NOW,
        "decision": "Use uv in `pyproject.toml`",
        "rationale": "fast",
        "alternatives": ["pip", "poetry"],
        "outcome": "pending",
        "type": "other",
        "entities": ["pyproject.toml"],
        "files": [],
        "lesson_learned": "",
        "related_decisions": [],
        "git_commit": None,
        "status": "active",
        "superseded_by": None,
        "spec_quality": 0.65,
        "supersedes": [],
        "contradicts": [],
        "derived_from": None,
        "session_id": None,
        "project": "proj",
        "source": "manual",
        "tags": ["proj"],
        "v": 1,
    }
    assert (failure.error_type, failure.error_message) == ("Timeout", "took 10m")
    assert (concept.aliases, concept.tags) == (["data root", "base"], ["a", "b", "proj"])
    assert (pattern.confidence, pattern.examples) == (0.9, ["one, two"])
    assert evidence.confidence == "confirmed"


def test_project_in_the_line_wins_and_adds_no_cwd_tag(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_PROJECT", "cwdproj")
    result = import_records(
        store,
        [
            line("observation", content="a", project="mine"),
            line("observation", content="b", project=None),
            line("observation", content="c", project="mine", tags=[]),
        ],
    )
    got = [(r.project, r.tags) for r in map(store.get, result.ids)]
    assert got == [("mine", ["mine"]), (None, []), ("mine", [])]


def test_decision_git_commit_in_the_line_wins(store: Store) -> None:
    result = import_records(
        store, [line("decision", decision="A", git_commit="abc123", spec_quality=0.9)]
    )
    record = store.get(result.ids[0])
    assert (record.git_commit, record.spec_quality) == ("abc123", 0.9)  # type: ignore[attr-defined]


def test_text_is_kept_verbatim(store: Store) -> None:
    text = "  Ünïcødé ✓ 日本語 🎉\nsecond line\n"
    result = import_records(store, [line("observation", content=text)])
    assert store.get(result.ids[0]).content == text  # type: ignore[attr-defined]


def test_paths_bytes_and_dicts_are_all_accepted(store: Store, tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"\xef\xbb\xbf" + line("observation", content="a") + b"\r\n\n   \n")
    assert import_records(store, source).imported == 1
    assert import_records(store, str(source), force=True).imported == 1
    assert import_records(store, line("observation", content="b")).imported == 1
    assert import_records(store, [{"kind": "observation", "content": "c"}]).imported == 1
    assert [r.content for r in store.records("observation")] == ["a", "a", "b", "c"]  # type: ignore[attr-defined]


# --- invalid lines ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        (b'{"kind": "decision", ', "invalid JSON: "),
        (b"[1, 2]", "expected a JSON object, got list"),
        (b'{"decision": "x"}', "kind is required (one of decision, pattern, "),
        (b'{"kind": "foo"}', "unknown kind 'foo' (expected one of decision, "),
        (b'{"kind": "goal", "title": ""}', "title is required and must not be empty"),
        (b'{"kind": "index", "title": "x"}', "unknown kind 'index' (expected one of "),
        (b'{"kind": "decision", "rationale": "r"}', "decision is required and must not be empty"),
        (b'{"kind": "decision", "decision": "  "}', "decision is required and must not be empty"),
        (b'{"kind": "failure", "message": "m"}', "error_type is required and must not be empty"),
        (
            b'{"kind": "decision", "decision": "x", "outcome": "great"}',
            "outcome must be one of pending, successful, revised, abandoned (got 'great')",
        ),
        (
            b'{"kind": "anti-pattern", "name": "x", "severity": ""}',
            "severity must be one of low, medium, high, critical (got '')",
        ),
        (
            b'{"kind": "pattern", "name": "x", "confidence": 2}',
            "confidence must be between 0 and 1",
        ),
        (b'{"kind": "pattern", "name": "x", "confidence": "hi"}', "confidence must be a number"),
        (b'{"kind": "decision", "decision": 5}', "decision must be a string"),
        (b'{"kind": "decision", "decision": "x", "tags": [1]}', "tags must be a list of strings"),
        (b'{"kind": "decision", "decision": "x", "files": {}}', "files must be a list of strings"),
        (b'{"kind": "observation", "content": "x", "timestamp": "soon"}', "timestamp is not an"),
        (b'{"kind": "observation", "content": "x", "timestamp": 5}', "timestamp must be a string"),
        (b'{"kind": "observation", "content": "x", "id": "dec-0123456789ab"}', "id must be 'obs-'"),
        (b'{"kind": "pattern", "name": "x", "id": "pat-../../etc"}', "id must be 'pat-' then"),
        (
            orjson.dumps({"kind": "decision", "decision": "x", "rationale": f"token {SECRET}"}),
            "decision rationale looks like it holds a GitHub token (rule github-token); "
            "pass --allow-secret if it is not a real credential",
        ),
        (
            orjson.dumps({"kind": "observation", "content": "x", "note": {"k": SECRET}}),
            "observation note.k looks like it holds a GitHub token",
        ),
    ],
)
def test_an_invalid_line_fails_the_import_and_writes_nothing(
    store: Store, data_dir: Path, bad: bytes, error: str
) -> None:
    import_records(store, [line("observation", content="already there")])
    before = snapshot(data_dir)
    with pytest.raises(InvalidInputError) as caught:
        import_records(store, [line("decision", decision="good"), b"", bad])
    invalid = caught.value.details["invalid"]
    assert [item["line"] for item in invalid] == [3]
    assert invalid[0]["error"].startswith(error)
    assert caught.value.message == (
        "1 of 2 lines is invalid; nothing was imported "
        "(fix them, or pass --skip-invalid to import the valid lines)"
    )
    assert caught.value.exit_code == 4
    assert snapshot(data_dir) == before


def test_nothing_is_created_on_an_empty_root(store: Store, data_dir: Path) -> None:
    with pytest.raises(InvalidInputError):
        import_records(store, [line("observation", content="ok"), b"nope"])
    assert not data_dir.exists()


def test_allow_secret_lets_a_secret_through(store: Store) -> None:
    result = import_records(store, [line("observation", content=SECRET)], allow_secret=True)
    assert store.get(result.ids[0]).content == SECRET  # type: ignore[attr-defined]


def test_skip_invalid_writes_the_good_lines_and_lists_the_bad(store: Store) -> None:
    result = import_records(
        store,
        [line("observation", content="a"), b"{", line("foo"), line("observation", content="b")],
        skip_invalid=True,
    )
    assert result.imported == 2
    assert [i["line"] for i in result.invalid] == [2, 3]
    assert [r.content for r in store.records("observation")] == ["a", "b"]  # type: ignore[attr-defined]


def test_every_write_is_one_store_add(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    add = Store.add

    def counting(self: Store, records: Any, **kwargs: Any) -> None:
        records = list(records)
        calls.append(len(records))
        add(self, records, **kwargs)

    monkeypatch.setattr(Store, "add", counting)
    import_records(store, [line(k, **full(k)) for k in FULL])
    assert calls == [7]


# --- duplicates ---------------------------------------------------------------------------


def test_reimport_skips_existing_ids(store: Store, data_dir: Path) -> None:
    lines = [line(k, **full(k)) for k in FULL]
    assert import_records(store, lines).imported == 7
    before = snapshot(data_dir)
    again = import_records(store, lines)
    assert (again.imported, again.skipped_existing, again.ids) == (0, 7, [])
    assert snapshot(data_dir) == before


def test_an_existing_id_is_skipped_even_when_the_line_would_now_be_refused(store: Store) -> None:
    first = import_records(store, [line("observation", content=SECRET)], allow_secret=True)
    again = import_records(store, [line("observation", id=first.ids[0], content=SECRET)])
    assert again.skipped_existing == 1


def test_the_same_id_twice_in_a_file(store: Store) -> None:
    obs = {"id": "obs-0123456789ab", "content": "a"}
    same = import_records(
        store,
        [
            line("observation", **obs),
            b'{"content":"a","id":"obs-0123456789ab","kind":"observation"}',
        ],
    )
    assert (same.imported, same.skipped_duplicate) == (1, 1)
    with pytest.raises(InvalidInputError) as caught:
        import_records(
            store,
            [
                line("observation", **{**obs, "id": "obs-aaaaaaaaaaaa"}),
                line("observation", id="obs-aaaaaaaaaaaa", content="b"),
            ],
        )
    assert caught.value.details["invalid"] == [
        {"line": 2, "error": "id obs-aaaaaaaaaaaa is already used on line 1"}
    ]


def test_title_duplicates(store: Store) -> None:
    import_records(store, [line("decision", decision="Use uv")])
    result = import_records(
        store,
        [
            line("decision", decision="use UV!"),  # same normalized title as a stored one
            line("pattern", name="Pin tools"),
            line("pattern", name="pin   tools"),  # same as the previous line, no id
            line("pattern", id="pat-0123456789ab", name="Pin tools"),  # has an id: kept
            line("observation", content="same"),  # observations are never title-deduped
            line("observation", content="same"),
            line("anti-pattern", name="Use uv"),  # another kind: not a duplicate
        ],
    )
    assert (result.imported, result.skipped_duplicate) == (5, 2)
    assert [store.get(i).kind for i in result.ids] == [
        "pattern",
        "pattern",
        "observation",
        "observation",
        "anti-pattern",
    ]


def test_title_duplicates_with_force_and_hidden_records(store: Store) -> None:
    old = import_records(store, [line("decision", decision="Use uv")]).ids[0]
    assert import_records(store, [line("decision", decision="Use uv")], force=True).imported == 1
    store.revise(old, {"status": "retracted"})
    retracted = line("decision", decision="Use uv", status="superseded")
    assert import_records(store, [retracted]).imported == 1  # hidden lines are history


def test_a_stored_retracted_title_is_no_duplicate(store: Store) -> None:
    old = import_records(store, [line("pattern", name="Pin tools")]).ids[0]
    store.revise(old, {"status": "retracted"})
    assert import_records(store, [line("pattern", name="Pin tools")]).imported == 1


# --- dry run, result ----------------------------------------------------------------------


def test_dry_run_reports_without_writing(store: Store, data_dir: Path) -> None:
    result = import_records(
        store, [line(k, **full(k)) for k in ("failure", "decision")], dry_run=True
    )
    assert result.to_dict() == {
        "ok": True,
        "dry_run": True,
        "imported": 2,
        "by_kind": {"decision": 1, "failure": 1},
        "skipped_existing": 0,
        "skipped_duplicate": 0,
        "invalid": [],
        "ids": ["fail-0123456789ab", "dec-0123456789ab"],
        "history": 0,
        "skipped_history": 0,
    }
    assert not data_dir.exists()


def test_import_result_default_shape() -> None:
    assert ImportResult().to_dict() == {
        "ok": True,
        "dry_run": False,
        "imported": 0,
        "by_kind": {},
        "skipped_existing": 0,
        "skipped_duplicate": 0,
        "invalid": [],
        "ids": [],
        "history": 0,
        "skipped_history": 0,
    }


def test_forked_workers_give_the_same_result(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [line(k, **full(k)) for k in FULL] + [
        line("observation", content=f"o{i}", id=f"obs-{i:012x}") for i in range(30)
    ]
    lines += [b"{bad", line("observation", content="o1", id=f"obs-{1:012x}")]
    import_records(store, lines[10:13])  # stored already: skipped_existing
    serial = import_records(store, lines, skip_invalid=True, dry_run=True)
    monkeypatch.setattr(bulk, "PARALLEL_MIN_LINES", 1)
    monkeypatch.setattr(bulk, "CHUNK", 4)
    if not bulk._CAN_FORK or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("checking in worker processes needs Linux and two CPUs")
    import multiprocessing

    contexts: list[str] = []
    get_context = multiprocessing.get_context

    def spy(method: str) -> Any:
        contexts.append(method)
        return get_context(method)

    monkeypatch.setattr(multiprocessing, "get_context", spy)
    seen: list[tuple[str, int, int]] = []
    forked = import_records(store, lines, skip_invalid=True, progress=lambda *a: seen.append(a))
    assert contexts == ["fork"]
    assert forked.to_dict() == {**serial.to_dict(), "dry_run": False}
    assert (forked.skipped_existing, forked.skipped_duplicate, len(forked.invalid)) == (3, 1, 1)
    assert seen[-2:] == [("write", 0, 34), ("write", 34, 34)]
    assert [s for s in seen if s[0] == "check"][-1] == ("check", 39, 39)
    assert store.get("obs-00000000001d").content == "o29"  # type: ignore[attr-defined]


# --- export -------------------------------------------------------------------------------


def test_export_order_filter_and_hidden(store: Store) -> None:
    import_records(
        store,
        [
            line("observation", content="late", timestamp="2024-03-01T00:00:00Z"),
            line("observation", content="early", timestamp="2024-01-01T00:00:00Z"),
            line(**{**full("decision"), "kind": "decision", "status": "superseded"}),
            line("pattern", name="p"),
        ],
    )
    everything = list(export_records(store))
    assert [(o["kind"], o.get("content")) for o in everything] == [
        ("decision", None),
        ("pattern", None),
        ("observation", "early"),
        ("observation", "late"),
    ]
    assert list(everything[0]) == ["kind", *kind_class("decision").field_names()]
    active = list(export_records(store, include_hidden=False))
    assert [o["kind"] for o in active] == ["pattern", "observation", "observation"]
    assert [o["kind"] for o in export_records(store, ["observations", "pattern"])] == [
        "pattern",
        "observation",
        "observation",
    ]


def test_export_refuses_unknown_kinds(store: Store) -> None:
    assert list(export_records(store, ["goal"])) == []  # every kind exports
    with pytest.raises(UsageError, match="unknown record kind 'nope'"):
        list(export_records(store, ["nope"]))


def test_the_write_phase_reports_progress_as_it_goes(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lore.store.core

    monkeypatch.setattr(lore.store.core, "PROGRESS_EVERY", 2)
    lines = [orjson.dumps({"kind": "pattern", "name": f"Lesson {n}"}).decode() for n in range(5)]
    seen: list[tuple[str, int, int]] = []
    import_records(store, lines, progress=lambda *a: seen.append(a))
    writes = [s for s in seen if s[0] == "write"]
    assert writes == [("write", 0, 5), ("write", 2, 5), ("write", 4, 5), ("write", 5, 5)]
