"""The derived index: built from the files, refreshed when they change, disposable."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lore import clock
from lore.capture.build import build
from lore.index import history as history_mod
from lore.index import persist as persist_mod
from lore.index import refresh as index_refresh
from lore.index import refresh as refresh_mod
from lore.index.persist import Index, index_path, load, open_index, rebuild
from lore.recall.core import recall
from lore.storage import yamlio
from lore.storage.fastyaml import Unsure as _Unsure
from lore.storage.fastyaml import flat_yaml as _flat_yaml
from lore.store.core import Store


def add(store: Store, kind: str, text: str, **fields: Any) -> str:
    record = build(kind, text, fields).record
    store.add([record])
    return record.id


def add_goal(store: Store, title: str) -> str:
    from lore.clock import new_id, now
    from lore.components.intent import Goal

    goal = Goal(id=new_id("goal"), timestamp=now(), title=title)
    store.add([goal])
    return goal.id


def found(store: Store, query: str, **options: Any) -> list[str]:
    return [h.record.id for h in recall(store, query, remember=False, **options)]


def snapshot(idx: Index) -> dict[str, Any]:
    """What an index means, independent of record numbering and dead slots."""
    live = [d for d in range(len(idx.ids)) if d not in idx.dead]
    postings = {}
    for term in idx.vocabulary():
        column = idx.postings_of(term)
        assert column is not None
        pairs = sorted(
            (idx.ids[column[i]], column[i + 1])
            for i in range(0, len(column), 2)
            if column[i] not in idx.dead
        )
        if pairs:
            postings[term] = pairs
    return {
        "docs": sorted(
            (
                idx.ids[d],
                idx.kind_of(d),
                idx.hidden[d],
                idx.ts[d],
                idx.projects[idx.proj[d]],
                round(idx.imp[d], 4),
                idx.dl[d],
            )
            for d in live
        ),
        "postings": postings,
        "tags": {t: sorted(idx.ids[d] for d in idx.tagged(t)) for t in idx.tags if idx.tagged(t)},
    }


def assert_same_as_rebuild(store: Store) -> None:
    incremental = open_index(store)
    fresh = Index(str(store.path))
    fresh.refresh(store)
    assert snapshot(incremental) == snapshot(fresh)


# --- freshness -------------------------------------------------------------------------------


def test_a_capture_is_visible_to_the_next_recall(store: Store) -> None:
    add(store, "decision", "Use Kafka for events")
    assert found(store, "kafka") != []
    later = add(store, "decision", "Use Kafka topics per tenant")
    assert later in found(store, "kafka tenant")
    assert_same_as_rebuild(store)


def test_appends_are_read_without_rereading_the_log(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(store, "failure", "first crash", error_type="Timeout")
    open_index(store)

    def boom(*_: Any) -> None:
        raise AssertionError("the whole log was re-read")

    # monkeypatch.context(), not monkeypatch.undo(): undo() would also undo the
    # isolation fixture (HOME, XDG, the data root) for the rest of the test.
    with monkeypatch.context() as patch:
        patch.setattr(Index, "_reload_log", boom)
        second = add(store, "failure", "second crash", error_type="Timeout")
        assert second in found(store, "second crash")
    assert_same_as_rebuild(store)


def test_appended_revisions_update_the_record(store: Store) -> None:
    dec = add(store, "decision", "Adopt gRPC for internal calls")
    assert found(store, "grpc") == [dec]
    store.revise(dec, {"outcome": "abandoned", "lesson_learned": "too much tooling"})
    [hit] = recall(store, "grpc", remember=False)
    assert hit.record.outcome == "abandoned"
    assert found(store, "tooling lesson") == [dec]  # the revised text is searchable
    store.revise(dec, {"status": "retracted"})
    assert found(store, "grpc") == []
    assert found(store, "grpc", show_hidden=True) == [dec]
    assert_same_as_rebuild(store)


def test_a_revision_before_its_creation_line_still_applies(store: Store) -> None:
    path = store.location("observation")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        '{"_op":"revise","id":"obs-000000000001","timestamp":"2025-01-02T00:00:00Z",'
        '"set":{"content":"renamed note"}}\n'
    )
    assert found(store, "renamed") == []
    with path.open("a") as handle:
        handle.write(
            '{"id":"obs-000000000001","timestamp":"2025-01-01T00:00:00Z","content":"note"}\n'
        )
    assert found(store, "renamed") == ["obs-000000000001"]
    assert store.get("obs-000000000001").content == "renamed note"
    assert_same_as_rebuild(store)


def test_a_hand_edit_of_a_log_is_seen(store: Store) -> None:
    add(store, "observation", "alpha note")
    open_index(store)
    path = store.location("observation")
    before = path.stat()
    path.write_text(path.read_text().replace("alpha", "gamma"))  # same size and inode
    # (an edit seconds later: within one coarse mtime tick a same-size edit is invisible)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 2_000_000_000))
    assert (path.stat().st_size, path.stat().st_ino) == (before.st_size, before.st_ino)
    assert found(store, "alpha") == []
    assert len(found(store, "gamma")) == 1
    assert_same_as_rebuild(store)


def test_a_torn_last_line_is_picked_up_once_completed(store: Store) -> None:
    path = store.location("observation")
    path.parent.mkdir(parents=True, exist_ok=True)
    line = '{"id":"obs-00000000000a","timestamp":"2025-01-01T00:00:00Z","content":"torn line"}'
    path.write_text('{"id":"obs-00000000000b","timestamp":"2025-01-01T00:00:00Z","content":"ok"}\n')
    with path.open("a") as handle:
        handle.write(line[:30])
    assert found(store, "torn") == []
    with path.open("a") as handle:
        handle.write(line[30:] + "\n")
    # The store reads the glued line as garbage too: index and store agree.
    stored = [r.id for r in store.records("observation") if "torn" in r.content]
    assert found(store, "torn") == stored
    assert_same_as_rebuild(store)


def test_documents_added_edited_and_deleted(store: Store) -> None:
    pat = add(store, "pattern", "Feature flags for risky changes")
    anti = add(store, "anti-pattern", "Big bang rewrites", fix="strangle the old system")
    assert found(store, "feature flags") == [pat]
    file = store.location("pattern") / f"{pat}.yaml"
    file.write_text(file.read_text().replace("Feature flags", "Canary releases"))
    assert found(store, "feature flags") == []
    assert found(store, "canary") == [pat]
    (store.location("anti-pattern") / f"{anti}.yaml").unlink()
    assert found(store, "strangle rewrites") == []
    assert_same_as_rebuild(store)


def test_a_settled_directory_skips_its_listing_but_sees_every_change(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = add(store, "pattern", "Feature flags for risky changes")
    folder = store.location("pattern")
    hour_ago = time.time() - 3600
    os.utime(folder, (hour_ago, hour_ago))  # last changed long before the next listing
    assert found(store, "feature flags") == [first]
    assert load(store.root).sources["pattern"]["dir"] is not None  # trusted from now on
    listings: list[Path] = []
    real = refresh_mod._Listing.names

    def names(self: Any) -> list[str]:
        listings.append(self.path)
        return real(self)

    monkeypatch.setattr(refresh_mod._Listing, "names", names)
    assert found(store, "feature flags") == [first]
    assert folder not in listings  # unchanged: one stat per file, no listing
    file = folder / f"{first}.yaml"
    file.write_text(file.read_text().replace("Feature flags", "Canary releases"))  # in place
    assert found(store, "canary") == [first]
    second = add(store, "pattern", "Dark launches")  # a new entry moves the folder's mtime
    assert found(store, "dark launches") == [second]
    assert folder in listings  # the new entry was found by listing the folder again
    (folder / f"{first}.yaml").unlink()
    assert found(store, "canary") == []
    assert_same_as_rebuild(store)


def test_a_directory_changed_just_now_is_not_trusted(store: Store) -> None:
    add(store, "pattern", "Feature flags for risky changes")
    open_index(store)
    assert load(store.root).sources["pattern"]["dir"] is None  # within the settle window


def test_a_deleted_log_empties_its_kind(store: Store) -> None:
    add(store, "evidence", "benchmarks show a 3x speedup", provenance="bench/run.txt")
    assert len(found(store, "speedup")) == 1
    store.location("evidence").unlink()
    assert found(store, "speedup") == []


# --- disposability ---------------------------------------------------------------------------


def test_the_index_lives_outside_the_data_root(store: Store, data_dir: Path) -> None:
    add(store, "observation", "somewhere local")
    found(store, "local")
    path = index_path(store.root)
    assert path.is_file()
    assert data_dir not in path.parents
    assert path.parent.parent == store.root.local


def test_deleting_the_index_folder_is_harmless(store: Store) -> None:
    target = add(store, "observation", "survives deletion")
    found(store, "survives")
    import shutil

    shutil.rmtree(index_path(store.root).parent)
    assert found(store, "survives") == [target]
    assert index_path(store.root).is_file()


@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"not an index at all",
        b"LOREIDX\x00" + b"999 3.11 little\n" + b"junk",  # another schema version
        persist_mod._header() + b"\x00\x01\x02 truncated marshal",
    ],
)
def test_a_corrupt_or_old_index_is_rebuilt(store: Store, garbage: bytes) -> None:
    target = add(store, "observation", "corruption is fine")
    found(store, "corruption")
    index_path(store.root).write_bytes(garbage)
    assert load(store.root) is None
    assert found(store, "corruption") == [target]
    assert load(store.root) is not None


@pytest.mark.parametrize("older", [18, 22])  # the speed branch's lazy format, main's dynamics
def test_an_index_of_an_older_schema_is_rebuilt_never_misread(store: Store, older: int) -> None:
    target = add(store, "observation", "older formats are rebuilt")
    found(store, "older")
    data = index_path(store.root).read_bytes()
    head = persist_mod._header()
    assert data.startswith(head) and persist_mod.INDEX_SCHEMA not in (18, 22)
    old_head = head.replace(f"{persist_mod.INDEX_SCHEMA} ".encode(), f"{older} ".encode(), 1)
    index_path(store.root).write_bytes(old_head + data[len(head) :])
    assert load(store.root) is None
    assert found(store, "older") == [target]
    assert index_path(store.root).read_bytes().startswith(head)


def test_a_truncated_index_is_rebuilt(store: Store) -> None:
    target = add(store, "observation", "truncation is fine too")
    found(store, "truncation")
    data = index_path(store.root).read_bytes()
    index_path(store.root).write_bytes(data[: len(data) - 8])  # the blob lost its tail
    assert load(store.root) is None
    assert found(store, "truncation") == [target]


def test_an_index_for_another_root_is_not_used(store: Store, tmp_path: Path) -> None:
    add(store, "observation", "mine")
    idx = open_index(store)
    other = Store(tmp_path / "elsewhere")
    index_path(other.root).parent.mkdir(parents=True, exist_ok=True)
    index_path(other.root).write_bytes(idx.dumps())
    assert load(other.root) is None


def test_rebuild_matches_incremental_history(store: Store) -> None:
    ids = [add(store, "decision", f"decision number {i} about caching") for i in range(5)]
    open_index(store)
    for rid in ids[:3]:
        store.revise(rid, {"outcome": "successful"})
        open_index(store)
    built = rebuild(store)
    assert snapshot(built) == snapshot(open_index(store))


def test_compaction_drops_dead_slots(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_refresh, "COMPACT_MIN_DEAD", 2)
    ids = [add(store, "decision", f"choice {i} for the cache") for i in range(4)]
    open_index(store)
    for rid in ids:
        store.revise(rid, {"outcome": "revised"})
    idx = open_index(store)
    assert idx.dead == set() and len(idx.ids) == 4
    assert sorted(found(store, "cache choice")) == sorted(ids)
    assert_same_as_rebuild(store)


def test_status_reports_freshness(store: Store) -> None:
    assert persist_mod.status(store)["exists"] is False
    add_goal(store, "Ship v2")
    open_index(store)
    doc = persist_mod.status(store)
    assert (doc["exists"], doc["readable"], doc["fresh"], doc["records"]) == (True, True, True, 1)
    assert doc["kinds"] == {"goal": 1}
    add_goal(store, "Ship v3")
    assert persist_mod.status(store)["fresh"] is False


# --- recall history --------------------------------------------------------------------------


def test_recall_history_counts_returned_ids(store: Store) -> None:
    a = add(store, "observation", "history one")
    b = add(store, "observation", "history two")
    recall(store, "history", limit=1)
    recall(store, "history", limit=2)
    counts = history_mod.recall_counts(store.root)
    assert sorted(counts.values()) == [1, 2] and set(counts) == {a, b}
    assert history_mod.counts_path(store.root).parent == store.root.local


def test_a_failing_history_write_never_fails_a_recall(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = add(store, "observation", "unwritable history")
    history_mod.log_path(store.root).mkdir(parents=True)  # a folder where the log goes
    assert [h.record.id for h in recall(store, "unwritable")] == [target]
    assert history_mod.recall_counts(store.root) == {}


def test_the_use_history_is_appended_and_folded(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each use appends one line (never a rewrite): recalled or injected, when, the ids; a
    long log is folded into usage.json, and nothing is counted twice or lost."""
    root = store.root
    log, summary = history_mod.log_path(root), history_mod.usage_path(root)
    monkeypatch.setenv("LORE_NOW", "2026-06-01T00:00:00Z")
    t1 = clock.epoch("2026-06-01T00:00:00.000000Z")
    assert history_mod.note_recalled(root, ["obs-a", "obs-b"])
    assert history_mod.note_used(root, ["obs-a", "bad id", ""], "injected")
    assert log.read_text() == f"r {t1!r} obs-a obs-b\ni {t1!r} obs-a\n"
    assert not summary.exists()
    assert history_mod.recall_counts(root) == {"obs-a": 2, "obs-b": 1}
    use = history_mod.usage(root)["obs-a"]
    assert (use.recalled, use.injected, use.last) == (1, 1, t1)
    monkeypatch.setenv("LORE_NOW", "2026-06-02T00:00:00Z")
    t2 = clock.epoch("2026-06-02T00:00:00.000000Z")
    monkeypatch.setattr(history_mod, "FOLD_BYTES", 40)
    assert history_mod.note_recalled(root, ["obs-c", "obs-a"])  # past 40 bytes: folded
    assert not log.exists()
    assert orjson.loads(summary.read_bytes()) == {
        "obs-a": [2, 1, t2],
        "obs-b": [1, 0, t1],
        "obs-c": [1, 0, t2],
    }
    assert history_mod.note_recalled(root, ["obs-b"])
    assert log.read_text() == f"r {t2!r} obs-b\n"
    assert history_mod.recall_counts(root) == {"obs-a": 3, "obs-b": 2, "obs-c": 1}
    assert history_mod.usage(root)["obs-b"].last == t2


def test_an_older_recall_counts_file_is_read_once_as_recalls(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = store.root
    root.local.mkdir(parents=True, exist_ok=True)
    history_mod.counts_path(root).write_bytes(orjson.dumps({"obs-a": 4, "bad": "x"}))
    assert history_mod.recall_counts(root) == {"obs-a": 4}
    monkeypatch.setattr(history_mod, "FOLD_BYTES", 1)
    monkeypatch.setenv("LORE_NOW", "2026-06-01T00:00:00Z")
    t1 = clock.epoch("2026-06-01T00:00:00.000000Z")
    assert history_mod.note_used(root, ["obs-b"], "injected")  # folded at once
    assert orjson.loads(history_mod.usage_path(root).read_bytes()) == {
        "obs-a": [4, 0, 0.0],
        "obs-b": [0, 1, t1],
    }


def test_a_process_reads_only_the_history_appended_since(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-lived process (lore mcp) keeps the table it read and reads only the lines
    appended since; anything else (a fold, a new log, the summary rewritten) is read
    again whole. Every answer equals a fresh reading."""
    root, log = store.root, history_mod.log_path(store.root)

    def fresh() -> dict[str, int]:
        with monkeypatch.context() as m:
            m.setattr(history_mod, "_KEPT", {})
            return dict(history_mod.recall_counts(root))

    whole: list[int] = []
    summary = history_mod._summary
    monkeypatch.setattr(history_mod, "_summary", lambda r: whole.append(1) or summary(r))
    assert history_mod.note_recalled(root, ["obs-a", "obs-b"])
    assert history_mod.recall_counts(root) == {"obs-a": 1, "obs-b": 1} == fresh()
    assert history_mod.note_recalled(root, ["obs-a"])
    with open(log, "ab") as handle:  # another process, its line not finished yet
        handle.write(b"r 1.5 obs-c obs")
    before = len(whole)
    assert history_mod.recall_counts(root) == {"obs-a": 2, "obs-b": 1}
    with open(log, "ab") as handle:
        handle.write(b"-d\nnot a line\n")
    assert history_mod.recall_counts(root) == {"obs-a": 2, "obs-b": 1, "obs-c": 1, "obs-d": 1}
    assert len(whole) == before  # only the appended lines were read
    assert history_mod.recall_counts(root) == fresh()
    monkeypatch.setattr(history_mod, "FOLD_BYTES", 10)
    assert history_mod.note_recalled(root, ["obs-e"])  # folded into usage.json
    assert history_mod.recall_counts(root) == {
        "obs-a": 2, "obs-b": 1, "obs-c": 1, "obs-d": 1, "obs-e": 1
    } == fresh()  # fmt: skip
    log.write_bytes(b"i 2.0 obs-z\n")  # a new log (no fold), then one that shrank in place
    assert history_mod.recall_counts(root)["obs-z"] == 1
    with open(log, "r+b") as handle:
        handle.truncate(0)
    assert "obs-z" not in history_mod.recall_counts(root)
    assert history_mod.recall_counts(root) == fresh()


# --- the fast YAML reader --------------------------------------------------------------------


_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=150
) | st.sampled_from(
    ["", "null", "true", "1", "-2", "0.5", "1.0e3", "yes", "a: b", "x #y", "'q'", '"d"', "- z"]
)
_value = st.one_of(
    _text,
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.lists(_text, max_size=4),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True), _value, min_size=1))
def test_fast_yaml_reads_what_ruamel_reads(data: dict[str, Any]) -> None:
    text = yamlio.dumps(data).decode("utf-8")
    expected = yamlio.to_plain(yamlio.loads(text, "x.yaml"))
    try:
        fast = _flat_yaml(text)
    except _Unsure:
        return
    assert fast == expected
    assert [type(v) for v in fast.values()] == [type(v) for v in expected.values()]


@pytest.mark.parametrize(
    "text",
    [
        "name: x\n# a comment\n",
        "name: x # trailing comment\n",
        "when: 2025-01-01T00:00:00Z\n",
        "n: 0x1f\n",
        "n: 1_000\n",
        "flag: yes\n",
        "flag: True\n",
        "flag: y\n",
        "flag: No\n",
        "flag: oN\n",
        "flag: OFF\n",
        "flag: n\nother: yes\n",
        "flag: yes\n  continued\n",
        "flag: yes # no\n",
        "flag: Y:\n",
        "items:\n- a\n",
        "nested:\n  key: v\n",
        "text: |\n  block\n",
        "quoted: 'it''s\n  folded'\n",
        'esc: "a\\tb"\n',
        "dup: 1\ndup: 2\n",
        "anchor: &a x\n",
        "list: [a, b]\n",
        "---\nname: x\n",
        "blank:\n\n  - a\n",
        "crits:\n  - text: x\n    met: false\n",
    ],
)
def test_fast_yaml_declines_or_agrees_on_hand_written_yaml(text: str) -> None:
    try:
        fast = _flat_yaml(text)
    except _Unsure:
        return
    assert fast == yamlio.to_plain(yamlio.loads(text, "x.yaml"))


def test_fast_yaml_reads_yaml_1_1_booleans_as_the_strings_ruamel_reads() -> None:
    """yes, no, on, off, y, n (any case) are strings in YAML 1.2: ruamel writes them
    plain and reads them back as strings, and so does the fast reader (not declining)."""
    for word in ("y", "n", "yes", "No", "ON", "oFf"):
        text = f"solution: {word}\nname: x\n"
        assert _flat_yaml(text) == {"solution": word, "name": "x"}
        assert _flat_yaml(text) == yamlio.to_plain(yamlio.loads(text, "x.yaml"))
    text = yamlio.dumps({"solution": "y", "flag": "off"}).decode("utf-8")
    assert _flat_yaml(text) == {"solution": "y", "flag": "off"}


def test_fast_yaml_reads_lore_documents(store: Store) -> None:
    pat = add(store, "pattern", "A long pattern " + "word " * 40, solution="it's: tricky #1")
    file = store.location("pattern") / f"{pat}.yaml"
    from lore.store.documents import read_document

    try:
        fast = _flat_yaml(file.read_text())
    except _Unsure:
        fast = None
    assert fast is None or fast == read_document(file)
    plain = add(store, "pattern", "Plain words only", solution="cache the lookups " * 12)
    plain_file = store.location("pattern") / f"{plain}.yaml"
    assert _flat_yaml(plain_file.read_text()) == read_document(plain_file)


def test_ids_read_one_at_a_time_match_the_full_list(store: Store) -> None:
    made = [add(store, "observation", f"note {i}") for i in range(3)]
    open_index(store)
    idx = load(store.root)
    assert idx is not None
    one_by_one = [idx.id_of(d) for d in range(idx.size)]
    assert sorted(one_by_one) == sorted(made) and one_by_one == idx.ids


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_changes_keep_the_index_equal_to_a_rebuild(
    store: Store, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Captures, revisions, hand edits, deletions and rewrites, in random order: after each,
    the refreshed index means what a fresh build means, and every record reads back."""
    import random

    monkeypatch.setattr(index_refresh, "COMPACT_MIN_DEAD", 3)
    rng = random.Random(seed)
    words = [
        "cache",
        "queue",
        "deploy",
        "retry",
        "token",
        "schema",
        "index",
        "worker",
        "backup",
        "metrics",
    ]
    made: list[str] = []

    def text() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(1, 5)))

    for _ in range(30):
        op = rng.choice(["add", "add", "revise", "edit-log", "edit-doc", "delete-doc", "raw"])
        if op == "add" or not made:
            kind = rng.choice(["decision", "observation", "failure", "pattern", "anti-pattern"])
            extra = {"error_type": "Timeout"} if kind == "failure" else {}
            made.append(add(store, kind, text(), **extra))
        elif op == "revise":
            rid = rng.choice(made)
            kind = store.get(rid).kind
            if kind == "decision":
                store.revise(rid, {"rationale": text(), "outcome": "successful"})
            elif kind in ("pattern", "anti-pattern"):
                store.revise(rid, {"status": rng.choice(["active", "retracted"])})
            else:
                field = "content" if kind == "observation" else "error_message"
                store.revise(rid, {field: text()})
        elif op == "edit-log":
            path = store.location("observation")
            if path.exists():
                path.write_text(path.read_text().replace(rng.choice(words), rng.choice(words)))
        elif op in ("edit-doc", "delete-doc"):
            files = sorted(store.location("pattern").glob("*.yaml"))
            if files:
                file = rng.choice(files)
                if op == "delete-doc":
                    file.unlink()
                    made.remove(file.stem)
                else:
                    file.write_text(file.read_text().replace("name: ", f"name: {text()} ", 1))
        else:
            path = store.location("failure")
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a") as handle:
                handle.write("{not json\n" if rng.random() < 0.5 else "\n")
        idx = open_index(store)
        fresh = Index(str(store.path))
        fresh.refresh(store)
        assert snapshot(idx) == snapshot(fresh)
        for doc in range(len(idx.kinds)):
            if doc not in idx.dead:
                assert idx.fetch(store, doc).to_dict() == store.get(idx.id_of(doc)).to_dict()


def test_finding_a_few_ids_agrees_with_the_full_map(store: Store) -> None:
    made = [add(store, "observation", f"note {i}") for i in range(5)]
    made.append(add(store, "decision", "Use Redis"))
    open_index(store)
    store.revise(made[-1], {"outcome": "successful"})  # re-indexed: a dead slot and a new one
    store.revise(made[0], {"status": "discarded"})
    open_index(store)
    loaded = load(store.root)
    assert loaded is not None and loaded._ids._list is None  # still the packed text
    wanted = {*made[:3], made[-1], "obs-000000000000", "note"}
    fast = loaded.find_ids(wanted)
    assert loaded._ids._list is None  # answered without splitting every id
    assert fast == {rid: doc for rid, doc in loaded.by_id().items() if rid in wanted}
    assert set(fast) == {*made[:3], made[-1]}


def test_an_index_built_with_the_other_stemmer_is_rebuilt(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lore.index import analyze

    first = add(store, "decision", "Retry the flaky uploads")
    assert [h.record.id for h in recall(store, "retries", remember=False)] == [first]
    assert load(store.root) is not None
    monkeypatch.setattr(analyze, "_snowball", False)  # PyStemmer gone: the light stemmer
    monkeypatch.setattr(analyze, "_stem_cache", {})
    monkeypatch.setattr(analyze, "_term_cache", {})
    assert load(store.root) is None  # its header names the other stemmer
    assert [h.record.id for h in recall(store, "retries", remember=False)] == [first]
    assert b" light\n" in index_path(store.root).read_bytes()[:64]


def test_fetch_many_reads_what_fetch_reads(store: Store) -> None:
    """``Columns.fetch_many`` (each log read through one open file) gives, in the order
    asked, the records ``fetch`` gives one by one: logs and documents, revised records,
    a record asked for twice, and one whose line moved under the index (read the sure way)."""
    import random

    ids = [add(store, "decision", f"Adopt tool number {i}") for i in range(6)]
    ids += [add(store, "pattern", f"Pattern number {i}", solution="do it") for i in range(3)]
    ids += [add(store, "failure", f"Error number {i}", error_type="Boom") for i in range(3)]
    ids += [add(store, "observation", f"Noticed thing {i}") for i in range(3)]
    store.revise(ids[1], {"outcome": "successful"})
    store.revise(ids[7], {"solution": "do it twice"})
    idx = open_index(store)
    docs = list(idx.by_id().values())
    asked = docs + docs[:3]
    random.Random(3).shuffle(asked)
    many = idx.fetch_many(store, asked)
    assert [r.to_dict() for r in many] == [idx.fetch(store, d).to_dict() for d in asked]
    assert {r.id for r in many} == set(ids)
    revised = next(r for r in many if r.id == ids[1])
    assert revised.outcome == "successful"
    # a line that moved: the journal rewritten with a line before the others
    journal = store.location("decision")
    journal.write_bytes(b'{"_op": "noop"}\n' + journal.read_bytes())
    first = idx.by_id()[ids[0]]
    assert idx.fetch_many(store, [first])[0].to_dict() == store.get(ids[0]).to_dict()
