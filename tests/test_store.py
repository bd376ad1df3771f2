"""lore.store: every kind stored where documented, revisions folded the same way everywhere."""

from __future__ import annotations

import dataclasses
import itertools
import os
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from lore.errors import EXIT_NOT_FOUND, InvalidInputError, LockTimeoutError, NotFoundError
from lore.model import Dir, Log, Record, kind_class, kinds
from lore.storage import yamlio
from lore.storage.jsonl import ReadIssue
from lore.storage.lock import locked
from lore.store.core import Store
from lore.store.fold import fold

NOW = "2024-06-01T12:00:00.000000Z"


def sample(kind: str, n: int = 1, **fields: Any) -> Record:
    """A valid record of ``kind`` with a predictable id and timestamp."""
    cls = kind_class(kind)
    data: dict[str, Any] = {
        "timestamp": f"2024-01-{n:02d}T00:00:00.000000Z",
        "tags": ["t"],
        "project": "demo",
    }
    for fld in dataclasses.fields(cls):
        if fld.metadata.get("required"):
            data[fld.name] = f"{kind}-{fld.name}-{n}"
    if cls.KIND.prefix:
        data["id"] = f"{cls.KIND.prefix}-{n:012x}"
    else:
        data["id"] = data["name"] = f"project-{n}"
    data.update(fields)
    record = cls.from_dict(data)
    assert record.problems() == []
    return record


def log_lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


EXPECTED_LOCATIONS = {
    "decision": "journal/data/decisions.jsonl",
    "pattern": "patterns/data/patterns",
    "anti-pattern": "patterns/data/anti-patterns",
    "failure": "failures/data/failures.jsonl",
    "observation": "inbox/data/observations.jsonl",
    "evidence": "evidence/data/evidence.jsonl",
    "goal": "intent/data/goals",
    "session": "transfer/data/sessions",
    "project": "registry/data/projects.yaml",
    "concept": "graph/data/concepts.jsonl",
    "edge": "graph/data/edges.jsonl",
}


def test_locations_are_the_documented_ones(store: Store, data_dir: Path) -> None:
    assert {k: store.location(k) for k in kinds()} == {
        k: data_dir / rel for k, rel in EXPECTED_LOCATIONS.items()
    }
    assert store.location(kind_class("decision")) == data_dir / EXPECTED_LOCATIONS["decision"]


def test_init_creates_every_component_data_dir_once(store: Store, data_dir: Path) -> None:
    created = store.init()
    assert sorted(p.relative_to(data_dir).as_posix() for p in created) == sorted(
        f"{c}/data"
        for c in (
            "journal",
            "patterns",
            "failures",
            "inbox",
            "intent",
            "transfer",
            "registry",
            "evidence",
            "graph",
        )
    )
    assert store.init() == []


@pytest.mark.parametrize("kind", sorted(kinds()))
def test_add_get_records_for_every_kind(store: Store, kind: str) -> None:
    first, second, third = sample(kind, 1), sample(kind, 2), sample(kind, 3)
    store.add([first, second])
    store.add([third])

    for record in (first, second, third):
        assert store.get(record.id) == record
    assert store.records(kind) == [first, second, third]
    assert store.records(kind.upper() + "S" if kind != "evidence" else kind) == [
        first,
        second,
        third,
    ]
    assert [r.id for r in store.all_records()] == [first.id, second.id, third.id]

    location = store.location(kind)
    storage = type(first).KIND.storage
    if isinstance(storage, Log):
        assert location.read_bytes() == b"".join(
            orjson.dumps(r.to_dict()) + b"\n" for r in (first, second, third)
        )
    elif isinstance(storage, Dir):
        files = sorted(p.name for p in location.iterdir() if not p.name.startswith("."))
        assert files == sorted(f"{r.id}{storage.suffix}" for r in (first, second, third))
        for record in (first, second, third):
            raw = (location / f"{record.id}{storage.suffix}").read_bytes()
            if storage.suffix == ".json":
                assert raw == orjson.dumps(record.to_dict(), option=orjson.OPT_INDENT_2) + b"\n"
            else:
                assert yamlio.to_plain(yamlio.loads(raw.decode(), "x")) == record.to_dict()
                assert list(yamlio.loads(raw.decode(), "x")) == list(record.to_dict())
    else:
        entries = {}
        for record in (first, second, third):
            entry = record.to_dict()
            del entry["id"], entry["name"]
            # A new map entry leaves out what holds its default (a hand-edited file).
            defaults = (None, "", [], {})
            entry = {k: v for k, v in entry.items() if v not in defaults}
            del entry["source"], entry["v"]
            entries[record.id] = entry
        assert yamlio.to_plain(yamlio.load(location)) == {"projects": entries}
    assert store.issues == []


def test_add_writes_one_line_per_log_in_one_call_across_kinds(store: Store) -> None:
    records = [sample("decision", 1), sample("failure", 1), sample("decision", 2)]
    store.add(records)
    assert log_lines(store.location("decision")) == [records[0].to_dict(), records[2].to_dict()]
    assert log_lines(store.location("failure")) == [records[1].to_dict()]


def test_add_refuses_to_overwrite_a_document(store: Store) -> None:
    pattern = sample("pattern", 1)
    store.add([pattern])
    file = store.location("pattern") / f"{pattern.id}.yaml"
    before = file.read_bytes()

    with pytest.raises(InvalidInputError, match="already exists; refusing to overwrite") as caught:
        store.add([sample("pattern", 1, name="other")])

    assert caught.value.exit_code == 4
    assert caught.value.details == {"id": pattern.id}
    assert file.read_bytes() == before


def test_add_refuses_a_second_project_with_the_same_name(store: Store) -> None:
    store.add([sample("project", 1)])
    before = store.location("project").read_bytes()

    with pytest.raises(InvalidInputError, match="'project-1' already exists"):
        store.add([sample("project", 1, description="again")])

    assert store.location("project").read_bytes() == before


def test_guard_runs_with_every_target_locked_and_can_veto(store: Store) -> None:
    seen: list[str] = []

    def guard() -> None:
        for kind in ("decision", "pattern"):
            with pytest.raises(LockTimeoutError), locked(store.location(kind), timeout=0):
                pass
            seen.append(kind)
        raise InvalidInputError("vetoed")

    with pytest.raises(InvalidInputError, match="vetoed"):
        store.add([sample("decision"), sample("pattern")], guard=guard)

    assert seen == ["decision", "pattern"]
    assert not store.location("decision").exists()
    assert not (store.location("pattern") / "pat-000000000001.yaml").exists()
    with locked(store.location("decision"), timeout=0):  # released after the veto
        pass


# --- revisions -------------------------------------------------------------------------


def test_revise_on_a_log_appends_a_revision_line_and_folds_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    decision = sample("decision")
    store.add([decision])

    updated = store.revise(decision.id, {"outcome": "successful", "x_note": 1}, reason="worked")

    assert log_lines(store.location("decision")) == [
        decision.to_dict(),
        {
            "_op": "revise",
            "id": decision.id,
            "timestamp": NOW,
            "set": {"outcome": "successful", "x_note": 1},
            "reason": "worked",
            "was": {"outcome": "pending"},  # a field two clones may set differently
        },
    ]
    expected = {**decision.to_dict(), "outcome": "successful", "x_note": 1}
    assert updated.to_dict() == expected
    assert store.get(decision.id).to_dict() == expected
    assert Store(store.path).get(decision.id).to_dict() == expected
    assert len(store.records("decision")) == 1


def test_revise_without_reason_has_no_reason_key(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    store.add([sample("observation")])
    store.revise("obs-000000000001", {"status": "promoted"})
    assert log_lines(store.location("observation"))[-1] == {
        "_op": "revise",
        "id": "obs-000000000001",
        "timestamp": NOW,
        "set": {"status": "promoted"},
        "was": {"status": "raw"},
    }


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"outcome": "great"}, "outcome", "outcome must be one of pending, successful"),
        ({"tags": "one"}, "tags", "tags must be a list of strings"),
        ({"decision": "  "}, "decision", "decision is required and must not be empty"),
        ({"id": "dec-000000000009"}, "id", "id cannot be changed"),
    ],
)
def test_invalid_revision_is_refused_and_nothing_is_written(
    store: Store, changes: dict[str, Any], field: str, message: str
) -> None:
    store.add([sample("decision")])
    before = store.location("decision").read_bytes()

    with pytest.raises(InvalidInputError, match=message) as caught:
        store.revise("dec-000000000001", changes)

    assert caught.value.details == {"field": field, "id": "dec-000000000001"}
    assert store.location("decision").read_bytes() == before


def test_revise_a_session_document_rewrites_its_json(store: Store) -> None:
    session = sample("session", status="open")
    store.add([session])

    store.revise(session.id, {"status": "closed", "next_steps": ["ship"]})

    file = store.location("session") / f"{session.id}.json"
    expected = {**session.to_dict(), "status": "closed", "next_steps": ["ship"]}
    assert file.read_bytes() == orjson.dumps(expected, option=orjson.OPT_INDENT_2) + b"\n"
    assert store.get(session.id).to_dict() == expected


def _line(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj) + b"\n"


CREATE = {"id": "obs-0000000000aa", "timestamp": "2024-01-01T00:00:00.000000Z", "content": "c"}
REVISIONS = [
    {
        "_op": "revise",
        "id": "obs-0000000000aa",
        "timestamp": "2024-01-03T00:00:00.000000Z",
        "set": {"status": "promoted", "content": "third"},
    },
    {
        "_op": "revise",
        "id": "obs-0000000000aa",
        "timestamp": "2024-01-02T00:00:00.000000Z",
        "set": {"status": "discarded", "content": "second", "tags": ["b"]},
    },
    {
        "_op": "revise",
        "id": "obs-0000000000aa",
        "timestamp": "2024-01-04T00:00:00.000000Z",
        "set": {"content": "fourth"},
    },
]


def test_later_revision_wins_by_timestamp_in_every_line_order() -> None:
    for order in itertools.permutations([CREATE, *REVISIONS]):
        rows = [(n, obj) for n, obj in enumerate(order, 1)]
        states, issues = fold(rows, "obs.jsonl")
        assert issues == []
        assert states == {
            "obs-0000000000aa": {**CREATE, "status": "promoted", "content": "fourth", "tags": ["b"]}
        }


def test_union_merged_log_folds_by_timestamp(store: Store) -> None:
    path = store.location("observation")
    path.parent.mkdir(parents=True)
    lines = [_line(obj) for obj in (CREATE, *REVISIONS)]
    random.Random(7).shuffle(lines)
    path.write_bytes(b"".join(lines))

    record = store.get("obs-0000000000aa")

    assert (record.content, record.status, record.tags) == ("fourth", "promoted", ["b"])  # type: ignore[attr-defined]
    assert store.issues == []


def test_non_canonical_revision_timestamps_sort_by_time_not_text() -> None:
    rows = [
        (1, CREATE),
        (2, {"_op": "revise", "id": CREATE["id"], "timestamp": "2024-01-02T10:00:00Z",
             "set": {"content": "later"}}),
        (3, {"_op": "revise", "id": CREATE["id"], "timestamp": "2024-01-02T09:00:00.5Z",
             "set": {"content": "earlier"}}),
        (4, {"_op": "revise", "id": CREATE["id"], "timestamp": "2024-01-02T11:00:00+02:00",
             "set": {"content": "earliest"}}),
    ]  # fmt: skip
    states, _ = fold(rows, "x")
    assert states[CREATE["id"]]["content"] == "later"


def test_equal_timestamps_fall_back_to_line_order() -> None:
    rev = {"_op": "revise", "id": CREATE["id"], "timestamp": "2024-01-02T00:00:00.000000Z"}
    rows = [
        (1, CREATE),
        (2, {**rev, "set": {"content": "a"}}),
        (3, {**rev, "set": {"content": "b"}}),
    ]
    assert fold(rows, "x")[0][CREATE["id"]]["content"] == "b"


def test_identical_duplicate_lines_count_once(store: Store) -> None:
    base = [_line(CREATE), _line(REVISIONS[1])]
    ours = [_line(REVISIONS[0])]
    theirs = [_line(REVISIONS[0]), _line(REVISIONS[2])]
    path = store.location("observation")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(base + ours + base + theirs))  # a union merge of two clones

    records = store.records("observation")

    assert [(r.id, r.content, r.status) for r in records] == [  # type: ignore[attr-defined]
        ("obs-0000000000aa", "fourth", "promoted")
    ]
    assert store.issues == []


def test_differing_duplicate_creation_line_keeps_the_first_and_reports(store: Store) -> None:
    path = store.location("observation")
    path.parent.mkdir(parents=True)
    path.write_bytes(_line(CREATE) + _line({**CREATE, "content": "impostor"}) + _line(CREATE))

    assert store.get(CREATE["id"]).content == "c"  # type: ignore[attr-defined]
    assert store.issues == [
        ReadIssue(str(path), 2, "duplicate id obs-0000000000aa (first line kept)", "duplicate-id")
    ]


def test_revision_for_unknown_id_is_a_dangling_revision(store: Store) -> None:
    path = store.location("observation")
    path.parent.mkdir(parents=True)
    ghost = {**REVISIONS[0], "id": "obs-00000000dead"}
    path.write_bytes(_line(CREATE) + _line(ghost) + _line({**ghost, "timestamp": NOW}))

    assert [r.id for r in store.records("observation")] == [CREATE["id"]]
    assert store.issues == [
        ReadIssue(str(path), 2, "revision for unknown id obs-00000000dead", "dangling-revision")
    ]
    with pytest.raises(NotFoundError):
        store.get("obs-00000000dead")


def test_lines_without_id_or_set_are_schema_issues(store: Store) -> None:
    path = store.location("observation")
    path.parent.mkdir(parents=True)
    path.write_bytes(
        _line(CREATE)
        + _line({"content": "no id"})
        + _line({"_op": "revise", "id": CREATE["id"], "set": "status=promoted"})
    )

    assert store.get(CREATE["id"]).status == "raw"  # type: ignore[attr-defined]
    assert [(i.line, i.code, i.message) for i in store.issues] == [
        (2, "schema", "record has no id"),
        (3, "schema", "revision has no 'set' object"),
    ]


def test_issues_are_reported_once_however_often_a_file_is_reloaded(store: Store) -> None:
    store.add([sample("observation")])
    path = store.location("observation")
    with path.open("ab") as handle:
        handle.write(b"not json\n")

    store.records("observation")
    store.revise("obs-000000000001", {"status": "promoted"})
    store.records("observation")
    Store(store.path).add([sample("observation", 2)])
    store.records("observation")

    assert [(i.line, i.code) for i in store.issues] == [(2, "parse")]
    path.write_bytes(path.read_bytes().splitlines(keepends=True)[0])
    store.records("observation")
    assert store.issues == []


# --- hidden records, cache, lookups ----------------------------------------------------


def test_retracted_and_superseded_are_hidden_by_default(store: Store) -> None:
    kept, retracted, old, new = (sample("decision", n) for n in (1, 2, 3, 4))
    store.add([kept, retracted, old, new])
    store.revise(retracted.id, {"status": "retracted"})
    store.revise(old.id, {"status": "superseded", "superseded_by": new.id})
    pattern = sample("pattern")
    store.add([pattern])
    store.revise(pattern.id, {"status": "retracted"})

    assert [r.id for r in store.records("decision")] == [kept.id, new.id]
    assert [r.id for r in store.records("decision", hidden=True)] == [
        kept.id,
        retracted.id,
        old.id,
        new.id,
    ]
    assert store.records("pattern") == []
    assert [r.id for r in store.records("pattern", hidden=True)] == [pattern.id]
    assert store.get(retracted.id).status == "retracted"  # type: ignore[attr-defined]
    assert pattern.id not in [r.id for r in store.all_records()]
    assert pattern.id in [r.id for r in store.all_records(hidden=True)]


def test_matching_builds_only_the_states_keep_lets_through(store: Store) -> None:
    one, two, three, four = (sample("failure", n, error_type="Timeout") for n in (1, 2, 3, 4))
    two.error_type = "NonZeroExit"  # type: ignore[attr-defined]
    store.add([one, two, three, four])
    store.revise(three.id, {"error_type": "NonZeroExit"})  # the folded state is what counts
    seen: list[str] = []

    def keep(state: dict[str, Any]) -> bool:
        seen.append(state["id"])
        return bool(state.get("error_type") == "Timeout")

    found = Store(store.path).matching("failure", keep)  # nothing loaded yet
    assert [r.id for r in found] == [one.id, four.id]
    assert seen == [one.id, two.id, three.id, four.id]
    assert found == [r for r in store.records("failure") if r.error_type == "Timeout"]  # type: ignore[attr-defined]


def test_matching_keeps_hidden_records_and_returns_other_kinds_whole(store: Store) -> None:
    kept, retracted = sample("decision", 1), sample("decision", 2)
    store.add([kept, retracted])
    store.revise(retracted.id, {"status": "retracted"})
    pattern = sample("pattern")
    store.add([pattern])
    fresh = Store(store.path)
    assert [r.id for r in fresh.matching("decision", lambda s: True)] == [kept.id, retracted.id]
    assert fresh.matching("decision", lambda s: False) == []
    # a document kind is read whole: the caller's own checks still apply
    assert [r.id for r in fresh.matching("pattern", lambda s: False)] == [pattern.id]
    # so is a log already loaded (its records exist anyway)
    assert len(fresh.records("decision")) == 1
    assert [r.id for r in fresh.matching("decision", lambda s: False)] == [kept.id, retracted.id]


def test_cache_notices_a_log_appended_by_another_store(store: Store) -> None:
    store.add([sample("decision", 1)])
    assert len(store.records("decision")) == 1

    other = Store(store.path)
    other.add([sample("decision", 2)])
    other.revise("dec-000000000001", {"outcome": "abandoned"})

    assert [(r.id, r.outcome) for r in store.records("decision")] == [  # type: ignore[attr-defined]
        ("dec-000000000001", "abandoned"),
        ("dec-000000000002", "pending"),
    ]


def test_cache_notices_a_document_and_the_map_changed_by_another_store(store: Store) -> None:
    store.add([sample("pattern"), sample("project")])
    assert store.get("pat-000000000001").validations == 0  # type: ignore[attr-defined]
    assert store.get("project-1").status == "active"  # type: ignore[attr-defined]

    other = Store(store.path)
    other.revise("pat-000000000001", {"validations": 1})
    other.revise("project-1", {"status": "paused"})
    other.add([sample("pattern", 2)])

    assert store.get("pat-000000000001").validations == 1  # type: ignore[attr-defined]
    assert store.get("project-1").status == "paused"  # type: ignore[attr-defined]
    assert [r.id for r in store.records("pattern")] == ["pat-000000000001", "pat-000000000002"]


def test_cache_notices_a_document_replaced_within_one_mtime_tick(store: Store) -> None:
    """Coarse file-system clocks: same size, same mtime, only the inode differs."""
    store.add([sample("pattern")])
    other = Store(store.path)
    other.revise("pat-000000000001", {"validations": 1})  # creates the sidecar lock file
    file = store.location("pattern") / "pat-000000000001.yaml"
    assert store.get("pat-000000000001").validations == 1  # type: ignore[attr-defined]
    before = file.stat()

    other.revise("pat-000000000001", {"validations": 7})
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert file.stat().st_size == before.st_size

    assert store.get("pat-000000000001").validations == 7  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "record_id", ["dec-000000000000", "pat-ffffffffffff", "session-x", "nope", "zzz-1", ""]
)
def test_unknown_ids_are_not_found_with_exit_3(store: Store, record_id: str) -> None:
    store.add([sample("decision"), sample("pattern"), sample("project")])

    with pytest.raises(NotFoundError) as caught:
        store.get(record_id)

    assert caught.value.exit_code == EXIT_NOT_FOUND == 3
    assert caught.value.message == f"no record with id {record_id!r}"
    assert caught.value.to_dict() == {
        "ok": False,
        "error": f"no record with id {record_id!r}",
        "code": "not_found",
        "id": record_id,
    }
    assert store.find(record_id) is None
    with pytest.raises(NotFoundError):
        store.revise(record_id, {"status": "active"})


def test_project_records_are_keyed_by_name(store: Store) -> None:
    webapp = sample("project", 1, id="webapp", name="webapp", description="the app")
    tools = sample("project", 2, id="pat-tools", name="pat-tools")  # looks like a pattern id
    store.add([webapp, tools])

    assert store.get("webapp") == webapp
    assert store.get("webapp").id == "webapp"
    assert store.get("pat-tools") == tools
    assert store.revise("pat-tools", {"status": "archived"}).status == "archived"  # type: ignore[attr-defined]
    assert list(yamlio.to_plain(yamlio.load(store.location("project")))["projects"]) == [
        "webapp",
        "pat-tools",
    ]


# --- update: read-modify-write under the lock ------------------------------------------


@pytest.mark.parametrize("kind", ["observation", "pattern", "project", "session"])
def test_update_passes_current_state_and_applies_returned_changes(store: Store, kind: str) -> None:
    record = sample(kind)
    store.add([record])
    seen: list[dict[str, Any]] = []

    def bump(state: dict[str, Any]) -> dict[str, Any]:
        seen.append(state)
        return {"counter": state.get("counter", 0) + 1}

    store.update(record.id, bump)
    updated = store.update(record.id, bump)

    assert seen == [record.to_dict(), {**record.to_dict(), "counter": 1}]
    assert updated.extra == {"counter": 2}
    assert Store(store.path).get(record.id).extra == {"counter": 2}


@pytest.mark.parametrize("kind", ["observation", "pattern", "project"])
def test_update_holds_the_record_lock_while_fn_runs(store: Store, kind: str) -> None:
    record = sample(kind)
    store.add([record])
    location = store.location(kind)
    target = location / f"{record.id}.yaml" if location.suffix == "" else location

    def check(state: dict[str, Any]) -> dict[str, Any]:
        with pytest.raises(LockTimeoutError), locked(target, timeout=0):
            pass
        return {}

    store.update(record.id, check)
    with locked(target, timeout=0):  # released afterwards
        pass


@pytest.mark.parametrize("result", [{}, None])
def test_update_with_no_changes_writes_nothing(store: Store, result: dict[str, Any] | None) -> None:
    store.add([sample("observation"), sample("pattern")])
    snapshot = {
        p: p.read_bytes() for p in store.path.rglob("*") if p.is_file() and p.suffix != ".lock"
    }

    assert store.update("obs-000000000001", lambda s: result) == sample("observation")
    assert store.update("pat-000000000001", lambda s: result) == sample("pattern")

    assert {
        p: p.read_bytes() for p in store.path.rglob("*") if p.is_file() and p.suffix != ".lock"
    } == snapshot


def test_update_errors_leave_the_record_and_the_lock_alone(store: Store) -> None:
    store.add([sample("pattern")])
    file = store.location("pattern") / "pat-000000000001.yaml"
    before = file.read_bytes()

    def explode(state: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        store.update("pat-000000000001", explode)
    with pytest.raises(InvalidInputError, match="validations must be an integer"):
        store.update("pat-000000000001", lambda s: {"validations": "many"})

    assert file.read_bytes() == before
    with locked(file, timeout=0):
        pass


def test_update_of_a_deleted_document_is_not_found(store: Store) -> None:
    store.add([sample("pattern")])
    store.get("pat-000000000001")
    (store.location("pattern") / "pat-000000000001.yaml").unlink()
    store._cache.clear()
    with pytest.raises(NotFoundError):
        store.update("pat-000000000001", lambda s: {"validations": 1})


# --- one record without its kind: peek, and a revision ------------------------------------


@pytest.mark.parametrize("kind", sorted(kinds()))
def test_peek_finds_what_find_finds_without_loading_the_kind(store: Store, kind: str) -> None:
    records = [sample(kind, n) for n in (1, 2, 3)]
    store.add(records)
    if isinstance(kind_class(kind).KIND.storage, Log):
        store.revise(records[1].id, {"tags": ["t", "revised"]}, reason="test")
    fresh = Store(store.path)
    for record in records:
        found = fresh.peek(record.id)
        assert found is not None
        assert found.to_dict() == Store(store.path).get(record.id).to_dict()
    missing = f"{kind_class(kind).KIND.prefix or 'project'}-{99:012x}"
    assert fresh.peek(missing) is None
    if isinstance(kind_class(kind).KIND.storage, (Log, Dir)):
        assert kind not in fresh._cache  # nothing of its kind loaded for it


def test_peek_of_a_project_named_like_a_record_and_of_unsafe_ids(store: Store) -> None:
    project = sample("project", 1, name="fail-tools", id="fail-tools")
    store.add([project])
    failure = sample("failure", 1)
    store.add([failure])
    assert store.peek("fail-tools").to_dict() == project.to_dict()  # type: ignore[union-attr]
    assert store.peek(failure.id).to_dict() == failure.to_dict()  # type: ignore[union-attr]
    for unsafe in ("pat-../../x", "goal-a/b", "session-\x00"):
        assert store.peek(unsafe) is None
        assert store.find(unsafe) is None


def test_a_revision_of_a_logged_record_reads_only_its_lines(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a big log, revising one record must not build every record of it."""
    monkeypatch.setenv("LORE_NOW", NOW)
    store.add([sample("failure", n) for n in range(1, 29)])
    cold = Store(store.path)
    target = sample("failure", 7)
    updated = cold.revise(target.id, {"occurrences": 3}, reason="counted")
    assert "failure" not in cold._cache
    expected = {**target.to_dict(), "occurrences": 3}
    assert updated.to_dict() == expected
    assert Store(store.path).get(target.id).to_dict() == expected
    loaded = Store(store.path)
    assert len(loaded.records("failure")) == 28  # a warm store revises from what it holds
    assert loaded.revise(target.id, {"occurrences": 4}).to_dict()["occurrences"] == 4
    assert loaded.get(target.id).extra["occurrences"] == 4
