"""The index's parts read without unpacking everything: packed strings, the vocabulary found
by binary search (and merged with new terms), the orders by id and by time, the counts kept
record by record, the neighbour byte, and the C-speed selection resume uses."""

from __future__ import annotations

import bisect
import os
import random
from array import array
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lore.capture.build import build
from lore.index.aggregates import Aggregates
from lore.index.orders import find, newest
from lore.index.packed import Packed
from lore.index.persist import load, open_index
from lore.index.view import top
from lore.index.vocab import Merged
from lore.recall import signals
from lore.store.core import Store

WORDS = st.text(alphabet="abcdé", min_size=1, max_size=5)


@given(st.lists(WORDS, max_size=40))
def test_packed_strings_read_one_at_a_time_and_appended(strings: list[str]) -> None:
    text, starts = Packed.of(strings[:5]).tobytes()
    packed = Packed(text, memoryview(starts).cast("I"))  # as read back from a file
    for value in strings[5:]:
        packed.append(value)
    assert [packed[k] for k in range(len(packed))] == strings
    assert packed.strings() == strings and list(packed) == strings
    if strings:
        assert packed[-1] == strings[-1] and packed[1:3] == strings[1:3]


@given(st.sets(WORDS, max_size=60), st.data())
def test_merged_terms_are_one_sorted_sequence(words: set[str], data: Any) -> None:
    every = sorted(words)
    base = sorted(data.draw(st.sets(st.sampled_from(every))) if every else set())
    merged = Merged(Packed.of(base), sorted(words - set(base)))
    assert list(merged) == every and [merged[k] for k in range(len(merged))] == every
    for probe in [*every, "", "zz", "b"]:
        assert bisect.bisect_left(merged, probe) == bisect.bisect_left(every, probe)


@settings(max_examples=200)
@given(st.lists(st.floats(allow_nan=False, width=32), min_size=1, max_size=60), st.data())
def test_top_is_a_full_sort_cut_short(values: list[float], data: Any) -> None:
    n = len(values)
    second = array(
        "d", data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.5]), min_size=n, max_size=n))
    )
    first = array("d", values)
    docs = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1)))
    k = data.draw(st.integers(1, 12))
    for largest in (True, False):
        want = sorted(docs, key=lambda d: (first[d], second[d], d), reverse=largest)[:k]
        assert top(docs, k, (first, second), largest=largest) == want


def _store_with(store: Store, n: int, seed: int) -> list[str]:
    """``n`` observations with random times, some revised (killed and added again)."""
    rng = random.Random(seed)
    made = []
    for i in range(n):
        day = rng.randint(1, 28)
        record = build("observation", f"note {i} {rng.choice(['alpha', 'beta'])}", {}).record
        record.timestamp = f"2026-02-{day:02d}T10:00:00.000000Z"
        if 10 <= i < 16:  # a run of one context, hours apart: neighbours
            record.tags = ["thread", "x"]
            record.timestamp = f"2026-02-10T{i:02d}:00:00.000000Z"
        made.append(record)
    store.add(made)
    return [r.id for r in made]


def test_ids_are_found_through_the_written_order_and_the_records_added_since(
    store: Store,
) -> None:
    ids = _store_with(store, 60, 1)
    open_index(store)
    for rid in ids[::5]:  # revisions: the old record dies, a new one is added after
        store.revise(rid, {"status": "discarded"})
    more = _store_with(store, 5, 2)
    idx = load(store.root)
    assert idx is not None
    idx.refresh(store)
    assert idx._id_order is not None and idx._ordered < len(idx.kinds)  # some are new
    wanted = {*ids[::3], *more, "obs-missing"}
    assert find(idx, wanted) == {rid: d for rid, d in idx.by_id().items() if rid in wanted}


def test_the_newest_of_a_kind_come_from_the_end_of_the_order_by_time(store: Store) -> None:
    _store_with(store, 50, 3)
    open_index(store)
    _store_with(store, 6, 4)  # added after the file was written
    idx = load(store.root)
    assert idx is not None
    idx.refresh(store)
    code = 4  # SEARCH_KINDS.index("observation")
    live = [d for d in range(len(idx.kinds)) if d not in idx.dead and idx.kinds[d] == code]
    want = sorted(live, key=lambda d: (idx.ts[d], d), reverse=True)
    assert list(newest(idx, code)) == want


def test_counts_kept_record_by_record_equal_a_recount(store: Store) -> None:
    ids = _store_with(store, 40, 5)
    idx = open_index(store)
    for rid in ids[:10]:
        store.revise(rid, {"status": "discarded"})
    idx = load(store.root)
    assert idx is not None
    idx.refresh(store)
    kept, counted = idx.aggregates(), Aggregates.count(idx)
    assert kept.state() == counted.state()
    assert idx.total_length() == sum(idx.dl[d] for d in range(len(idx.kinds)) if d not in idx.dead)


def test_the_neighbour_byte_covers_every_pair_recall_passes_scores_between(
    store: Store,
) -> None:
    _store_with(store, 80, 6)
    idx = open_index(store)
    for d in range(len(idx.kinds)):
        for step in (-1, 1):
            other = signals.neighbour(idx, d, step)
            if other >= 0:
                assert idx.nb[d] and idx.nb[other], (d, other)
    linked = Counter(idx.nb)
    assert linked[1] >= 6 and linked[0] > 0  # the fixture has both
    assert any(signals.neighbour(idx, d, 1) >= 0 for d in range(len(idx.kinds)))


def test_the_dynamics_columns_are_stored_and_read_lazily(store: Store) -> None:
    """Pins, citations and file hashes (lore.dynamics' inputs) come back from the file as
    they were written, read on first use; after records are added in memory and after a
    compaction they still answer as a fresh build does."""
    from lore.index.persist import Index, save

    first = build("decision", "Use Postgres", {}).record
    second = build("decision", "Index the orders", {"related_decisions": [first.id]}).record
    third = build("observation", "pool size matters", {}).record
    second.extra["pinned"] = True
    third.extra["file_hashes"] = [{"path": "src/db.py", "blob": "ab" * 20, "commit": None}]
    store.add([first, second, third])
    save(open_index(store), store.root)
    idx = load(store.root)
    assert idx is not None and "pins" in idx._lazy and idx._anchors is None
    docs = idx.find_ids({first.id, second.id, third.id})
    assert idx.pins == {docs[second.id]}
    assert idx.cites == {docs[second.id]: (first.id,)}
    assert idx.cited_count(docs[first.id]) == 1 and idx.cited_max() == 1
    assert idx.anchors_of(docs[third.id]) == (("src/db.py", "ab" * 20, None),)
    assert idx.anchored(docs[third.id]) and not idx.anchored(docs[first.id])
    fourth = build("decision", "Cite it again", {"related_decisions": [first.id]}).record
    store.add([fourth])
    store.revise(third.id, {"status": "discarded"})
    idx = open_index(store)  # applied in memory
    assert idx.cited_count(idx.find_ids({first.id})[first.id]) == 2 and idx.cited_max() == 2
    idx.compact()
    fresh = Index(str(store.path))
    fresh.refresh(store)
    for built in (idx, Index.loads(idx.dumps(), str(store.path)), fresh):
        assert built is not None
        found = built.find_ids({first.id, second.id, third.id, fourth.id})
        assert built.pins == {found[second.id]}
        assert built.cited_count(found[first.id]) == 2 and built.cited_max() == 2
        assert built.anchors_of(found[third.id]) == (("src/db.py", "ab" * 20, None),)


def test_citations_counted_record_by_record_match_a_fresh_count(store: Store) -> None:
    """Records added to and withdrawn from a loaded index keep ``cit``, ``cw`` and ``dw``
    as a fresh build counts them: a new record cited before it existed (a forward
    reference, as a merge brings), a revision that stops citing, one that cites itself,
    and kills before any record was added."""
    from lore.index.persist import Index, save

    rng = random.Random(7)
    early = [build("decision", f"Choice number {k}", {}).record for k in range(6)]
    ahead = build("decision", "Arrives later", {}).record  # cited before it exists
    early.append(
        build("decision", "Cites ahead", {"related_decisions": [ahead.id, early[0].id]}).record
    )
    store.add(early)
    save(open_index(store), store.root)

    def check() -> None:
        idx = open_index(store)
        assert idx.cit_valid
        fresh = Index(str(store.path))
        fresh.refresh(store)
        fresh.count_citations()
        ids = fresh.ids
        mine = idx.find_ids(set(ids))
        for doc, rid in enumerate(ids):
            if doc in fresh.dead:
                continue
            at = mine[rid]
            assert (rid, idx.cit[at]) == (rid, fresh.cit[doc])
            assert abs(idx.cw[at] - fresh.cw[doc]) < 1e-6, rid
            assert abs(idx.dw[at] - fresh.dw[doc]) < 1e-5, rid
        assert idx.cited_max() >= max(fresh.cit, default=0)

    store.add([ahead])  # the first change after loading: ``cites`` still the file's bytes
    check()
    save(open_index(store), store.root)
    store.revise(early[1].id, {"outcome": "revised"})  # a kill first: columns still frozen
    check()
    live = [r.id for r in early]
    for k in range(12):
        cited = rng.sample(live, 2)
        record = build("decision", f"Later choice {k}", {"related_decisions": cited}).record
        store.add([record])
        live.append(record.id)
        if k % 3 == 0:
            store.revise(cited[0], {"related_decisions": []})
        if k % 4 == 1:
            store.revise(record.id, {"related_decisions": [record.id, cited[1]]})
        check()


def test_a_held_index_is_taken_only_by_a_child_and_only_while_its_file_is_unchanged(
    store: Store,
) -> None:
    """``lore.index.held``: the command server holds an index made growable; its forked
    workers take it (each its own copy) as long as the file on disk is that very file."""
    from lore.index import held
    from lore.index.persist import Index, index_path, save

    first = build("decision", "Use Postgres", {}).record
    store.add([first])
    save(open_index(store), store.root)
    path, root = str(index_path(store.root)), str(store.path)
    try:
        assert held.hold(path, root, Index.loads)
        assert held.take(path) is None  # the holder never takes its own
        held.HOLDER[:] = [-1]  # as seen from a forked child
        taken = held.take(path)
        assert taken is not None and not taken._frozen
        assert taken.find_ids({first.id}) == {first.id: 0}
        assert held.take(path) is None  # taken once
        assert held.hold(path, root, Index.loads)
        held.HOLDER[:] = [-1]
        replaced = path + ".new"  # the same bytes in a new file, renamed over it
        with open(path, "rb") as source, open(replaced, "wb") as target:
            target.write(source.read())
        os.replace(replaced, path)
        assert held.take(path) is None and path in held.HELD  # not that file any more
        second = build("decision", "Index the orders", {}).record
        store.add([second])
        idx = load(store.root)
        assert idx is not None and idx._frozen  # read from the file, not the held one
        idx = open_index(store)
        assert set(idx.find_ids({first.id, second.id})) == {first.id, second.id}
    finally:
        held.HELD.clear()
        held.HOLDER.clear()


def test_the_holder_applies_what_the_files_gained_and_a_child_finds_nothing_left(
    store: Store,
) -> None:
    """``held.refresh``: records captured since the index file was written (fewer than
    SAVE_AFTER, so the file stays) are applied once in the holder; a forked worker takes
    an index that holds them, and its own refresh finds nothing more to apply. An edit
    after that is still seen by the worker's refresh."""
    from lore.index import held
    from lore.index.persist import Index, index_path, save

    first = build("decision", "Use Postgres", {}).record
    store.add([first])
    save(open_index(store), store.root)
    path, root = str(index_path(store.root)), str(store.path)
    later = [build("decision", f"Cache the orders {k}", {}).record for k in range(3)]
    store.add(later)
    try:
        assert held.hold(path, root, Index.loads)
        held.refresh(path, root)
        held.HOLDER[:] = [-1]  # as seen from a forked child
        taken = held.take(path)
        assert taken is not None
        wanted = {first.id, *(r.id for r in later)}
        assert set(taken.find_ids(wanted)) == wanted  # applied by the holder
        assert taken.refresh(store) is False  # nothing left for the worker
        assert not held.moved(path)  # so the holder need not refresh again
        store.revise(later[0].id, {"decision": "Cache the invoices"})
        assert taken.refresh(store) is True  # a change after the holder's refresh
        assert "invoic" in taken.vocabulary()
        assert held.moved(path)  # the worker applied one: the holder will too
        assert held.moved(path + ".other")  # not taken: read from its file
    finally:
        held.HELD.clear()
        held.HOLDER.clear()
        held.TAKEN.clear()


def test_the_server_holds_and_refreshes_the_index_a_worker_reports(store: Store) -> None:
    """The worker's report line goes through the server's own reading of it
    (``Server._learn``): the server holds the index file of that data root, up to date
    with what was captured since the file, and holds it again only when the file changes.
    A line of another shape is not taken for an index."""
    from types import SimpleNamespace

    from lore.cmdserver.server import Server
    from lore.index import held
    from lore.index.persist import index_path, save

    first = build("decision", "Use Postgres", {}).record
    store.add([first])
    save(open_index(store), store.root)
    later = build("decision", "Cache the orders", {}).record
    store.add([later])
    path, root = str(index_path(store.root)), str(store.path)
    assert held.reported(held.report(path, root)) == (path, root, True)  # took none: moved
    assert held.reported(f"index:{path}\t{root}") is None
    assert held.reported("lore.index.held") is None

    def learn(*lines: str) -> None:
        read, write = os.pipe()
        os.write(write, "\n".join(lines).encode())
        os.close(write)
        Server._learn(SimpleNamespace(modules=set()), read)  # type: ignore[arg-type]

    try:
        learn("json", held.report(path, root))
        kept = held.HELD[path][1]
        assert set(kept.find_ids({first.id, later.id})) == {first.id, later.id}
        learn(f"index:0\t{path}\t{root}")  # the same file, nothing moved: kept as it is
        assert held.HELD[path][1] is kept
    finally:
        held.HELD.clear()
        held.HOLDER.clear()
        held.TAKEN.clear()


def test_holding_is_the_intersection_of_every_terms_records(store: Store) -> None:
    """``Columns.holding`` (the rarest term's records, searched for in the others') is the
    plain intersection, through records added since the file and dead ones."""
    rng = random.Random(7)
    words = ["src", "cache", "py", "auth", "queue", "models", "lib"]

    def some(n: int) -> None:
        store.add(
            [
                build("observation", " ".join(rng.sample(words, rng.randint(1, 5))), {}).record
                for _ in range(n)
            ]
        )

    some(80)
    open_index(store)
    some(20)  # added since the file was written
    idx = load(store.root)
    assert idx is not None
    idx.refresh(store)

    def plain(terms: list[str]) -> set[int]:
        found = [set((idx.postings_of(t) or array("I"))[0::2]) for t in terms]
        return set.intersection(*found) if found else set()

    for _ in range(60):
        terms = rng.sample([*words, "absent"], rng.randint(1, 4))
        assert idx.holding(terms) == plain(terms), terms
    assert idx.holding([]) == set()
    assert idx.holding(["py", "py"]) == plain(["py"])


def test_a_projects_records_are_its_own_those_tagged_with_it_and_those_of_none(
    store: Store,
) -> None:
    """``ProjectView.docs``: a record is in project alpha when its project is alpha, it
    carries the tag alpha, or it has no project; the order is the index's."""
    from lore.index.view import ProjectView

    rng = random.Random(31)
    made = []
    for i in range(60):
        record = build("decision", f"choice {i}", {}).record
        record.project = rng.choice(["alpha", "beta", None])
        record.tags = rng.choice([[], ["alpha"], ["gamma"]])
        made.append(record)
    store.add(made)
    idx = open_index(store)
    for project, tagging in (("alpha", True), ("beta", False), ("delta", False)):
        view = ProjectView(store, project)
        every = view.docs("decision", everywhere=True)
        want = [
            d
            for d in every
            if idx.projects[idx.proj[d]] in (project, None, "")
            or (tagging and d in idx.tagged(project))
        ]
        assert view.docs("decision") == want, project
        assert 0 < len(want) < len(every)
