"""What a long-lived process keeps between calls: recall's per-term work on the index
(``lore.recall.terms``, ``Index.memo``), the most used count with the use history
(``history.most_used``), the index's kind lists (``Index.docs``) through additions. Every
answer equals the one computed afresh, after captures, in-place edits, deletions and uses."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from lore.capture.build import build
from lore.index import history
from lore.index.persist import open_index
from lore.recall import core
from lore.store.core import Store

WORDS = ["deploy", "deploybot", "pipeline", "redis", "cache", "timeout", "canary", "queue"]


def add(store: Store, kind: str, text: str, tags: Any = (), **fields: Any) -> str:
    record = build(kind, text, fields).record
    record.tags = list(tags)
    record.project = "alpha"
    store.add([record])
    return record.id


def answer(store: Store, query: str, limit: int) -> list[tuple[str, float]]:
    idx = open_index(store)
    ranked = core.rank(store, query, limit=limit, index=idx).ranked[:limit]
    return [(idx.id_of(r.doc), round(r.score, 12)) for r in ranked]


def afresh(store: Store, query: str, limit: int) -> list[tuple[str, float]]:
    """The same query on the same index with nothing kept from earlier queries."""
    open_index(store).memo.clear()
    return answer(store, query, limit)


def test_a_kept_index_sees_new_variants_and_edits_at_the_next_query(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", "2026-06-15T00:00:00Z")
    store.kept = {}  # the index stays in memory between queries, as in lore mcp
    first = add(store, "pattern", "Deploy pipeline on Fridays", solution="run it")
    assert [rid for rid, _ in answer(store, "deploy", 10)] == [first]
    assert ("close", "deploy") in open_index(store).memo
    # A longer form of the word appears: the term's variants are looked up again.
    second = add(store, "observation", "The deploybot posts a summary")
    assert {rid for rid, _ in answer(store, "deploy", 10)} == {first, second}
    # The pattern's file edited in place (same size): its words change at the next query.
    path = store.location("pattern") / f"{first}.yaml"
    before = path.stat().st_size
    path.write_text(path.read_text().replace("Deploy", "Canary"))
    assert path.stat().st_size == before
    assert [rid for rid, _ in answer(store, "deploy", 10)] == [second]
    assert [rid for rid, _ in answer(store, "canary", 10)] == [first]
    path.unlink()
    assert answer(store, "canary", 10) == []


@pytest.mark.parametrize(("seed", "kept"), [(3, None), (4, None), (4, 3)])
def test_kept_answers_equal_fresh_ones_through_random_changes(
    store: Store, monkeypatch: pytest.MonkeyPatch, seed: int, kept: int | None
) -> None:
    """``kept``: the postings kept as dicts (``terms.COUNTS_KEPT``), a few: dropped and
    made again as queries go."""
    from lore.recall import terms

    if kept is not None:
        monkeypatch.setattr(terms, "COUNTS_KEPT", kept)
    monkeypatch.setenv("LORE_NOW", "2026-06-15T00:00:00Z")
    store.kept = {}
    rng = random.Random(seed)
    kinds = ("observation", "pattern", "decision")
    patterns: list[str] = []
    queries = ["deploy", "deploy pipeline", "redis cache timeout", "canari", "queue"]
    for step in range(24):
        for query in queries:  # warm: every query's terms are kept
            answer(store, query, 5)
        words = " ".join(rng.sample(WORDS, 3))
        change = rng.random()
        if change < 0.2 and patterns:  # an edit in place
            path = store.location("pattern") / f"{rng.choice(patterns)}.yaml"
            text = path.read_text()
            for old, new in (("deploy", "canary"), ("canary", "deploy")):
                if old in text:
                    path.write_text(text.replace(old, new, 1))
                    break
        else:
            kind = kinds[step % len(kinds)]
            extra = {"solution": "do it"} if kind == "pattern" else {}
            tags = rng.choice([[], ["alpha"], ["alpha"], ["deploy"], ["redis", "alpha"]])
            rid = add(store, kind, f"{words} {step}", tags=tags, **extra)
            if kind == "pattern":
                patterns.append(rid)
        for query in queries:
            for limit in (1, 5):
                found = answer(store, query, limit)
                sizes = [len(v) for k, v in open_index(store).memo.items() if k[0] == "tf"]
                assert sum(sizes) <= (kept or terms.COUNTS_KEPT) or len(sizes) == 1
                assert found == afresh(store, query, limit), (step, query, limit)


def test_the_most_used_count_follows_the_history(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = store.root

    def fresh() -> int:
        with monkeypatch.context() as m:
            m.setattr(history, "_KEPT", {})
            m.setattr(history, "_TOP", {})
            return max((u.total for u in history.usage(root).values()), default=0)

    assert history.most_used(root) == 0 == fresh()
    assert history.note_recalled(root, ["obs-a", "obs-b"])
    assert history.most_used(root) == 1 == fresh()
    assert history.note_used(root, ["obs-b"], "injected")  # read as an appended line
    assert history.most_used(root) == 2 == fresh()
    log: Path = history.log_path(root)
    with open(log, "ab") as handle:  # another process
        handle.write(b"r 1.5 obs-c obs-c obs-c\n")
    assert history.most_used(root) == 3 == fresh()
    monkeypatch.setattr(history, "FOLD_BYTES", 10)
    assert history.note_recalled(root, ["obs-a"])  # folded: the history read again
    assert history.most_used(root) == 3 == fresh()
    log.write_bytes(b"i 2.0 obs-z\n")  # a new log in place of the old: read again whole
    assert history.most_used(root) == 3 == fresh()
    history.usage_path(root).unlink()  # the summary gone: only the new log is left
    assert history.most_used(root) == 1 == fresh()


@pytest.mark.parametrize("bits", [False, True])
@pytest.mark.parametrize("seed", [1, 2])
def test_the_levels_are_those_of_counting_every_record(
    store: Store, monkeypatch: pytest.MonkeyPatch, seed: int, bits: bool
) -> None:
    """``prune.Levels`` counts only the records in two sets or more (sets of ints), or
    every record at once (sets as ints): either way its levels and each level's records
    are those of counting every record of every set."""
    from collections import Counter

    from lore.index import analyze
    from lore.recall import prune, signals
    from tests.test_recall_prune import make_store, queries

    monkeypatch.setenv("LORE_NOW", "2026-06-15T00:00:00Z")
    make_store(store, seed)
    idx = open_index(store)
    seen = set()
    mixed = 0  # levels holding records with a neighbour to pass scores to, and without
    for query in queries(seed, 30, typos=True):
        terms = analyze.query_terms(query)
        planned = signals.plan(idx, terms, store)
        counted: Counter[int] = Counter()
        for term, variants in planned.every:
            near: set[int] = set()
            for variant, _ in variants:
                docs, _, df = planned.lists[variant]
                if df:
                    (counted.update(docs) if variant == term else near.update(docs))
            counted.update(near)
        levels = prune.Levels(idx, terms, planned, bits=bits)
        assert levels.levels == sorted(set(counted.values()), reverse=True), query
        for level in levels.levels:
            want = {d for d, h in counted.items() if h == level}
            assert sorted(levels.docs(level)) == sorted(want), (query, level)
            linked = sorted(d for d in want if idx.nb[d])
            assert sorted(levels.docs(level, linked=True)) == linked, (query, level)
            alone = sorted(d for d in want if not idx.nb[d])
            assert sorted(levels.docs(level, linked=False)) == alone, (query, level)
            mixed += bool(linked and alone)
        seen.update(levels.levels)
    assert {1, 2, 3} <= seen  # records holding one, two and three of a query's terms
    assert mixed


def test_kind_lists_kept_through_additions_equal_fresh_ones(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Index.docs`` answers are kept through a record's addition (it joins the lists
    that take it) and equal the lists computed afresh: shown, hidden, flagged."""
    monkeypatch.setenv("LORE_NOW", "2026-06-15T00:00:00Z")
    store.kept = {}
    rng = random.Random(5)
    kinds = ("decision", "observation")
    keys = [(k, f, h) for k in kinds for f in (False, True) for h in (False, True)]
    grew = 0
    for step in range(30):
        idx = open_index(store)
        for kind, flagged, hidden in keys:
            idx.docs(kind, flagged=flagged, hidden=hidden)
        kind = rng.choice(("decision", "observation"))
        fields: dict[str, Any] = {"outcome": "pending"} if kind == "decision" and step % 3 else {}
        record = build(kind, f"{' '.join(rng.sample(WORDS, 2))} {step}", fields).record
        if step % 4 == 0:  # a hidden one
            record.status = "retracted" if kind == "decision" else "archived"
            assert record.hidden
        store.add([record])
        idx = open_index(store)
        kept = {key: idx.docs(key[0], flagged=key[1], hidden=key[2]) for key in keys}
        idx._docs = {}
        fresh = {key: idx.docs(key[0], flagged=key[1], hidden=key[2]) for key in keys}
        assert kept == fresh, step
        grew = max(grew, len(fresh[("decision", True, False)]))
    assert grew > 3  # flagged (pending) decisions were listed


def test_a_tag_that_stops_covering_its_project_counts_again_at_the_next_query(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tag every record of a project carries is not matched text (lore.index.tagwords);
    a new record of the project without it, and without the word, makes it text again."""
    monkeypatch.setenv("LORE_NOW", "2026-06-15T00:00:00Z")
    store.kept = {}
    tagged = [add(store, "observation", f"release notes {n}", tags=["deploy"]) for n in "abc"]
    assert answer(store, "deploy", 10) == []
    add(store, "observation", "other notes")
    assert sorted(rid for rid, _ in answer(store, "deploy", 10)) == sorted(tagged)
    assert answer(store, "deploy", 10) == afresh(store, "deploy", 10)


def test_tag_bit_sets_kept_through_changes_equal_fresh_ones(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each tag's records as a bit set (``lore.index.tagbits``, what a held or long-lived
    index keeps for the timeline) follow additions record by record and are dropped by a
    change that kills a record (an edit in place): kept, they equal the sets made afresh."""
    from lore.index import bitset, tagbits

    monkeypatch.setenv("LORE_NOW", "2026-06-15T00:00:00Z")
    store.kept = {}
    rng = random.Random(11)
    patterns: list[str] = []
    kept_through = 0
    for step in range(30):
        idx = open_index(store)
        if idx.tagbits is None:
            tagbits.build(idx)
        if step % 7 == 6 and patterns:  # an edit in place: the old record is killed
            path = store.location("pattern") / f"{rng.choice(patterns)}.yaml"
            path.write_text(path.read_text().replace("alpha", "beta"))
        else:
            kind = rng.choice(("observation", "pattern"))
            extra = {"solution": "do it"} if kind == "pattern" else {}
            tags = rng.sample(["alpha", "beta", "deploy", "redis"], rng.randrange(3))
            rid = add(store, kind, f"{' '.join(rng.sample(WORDS, 2))} {step}", tags=tags, **extra)
            if kind == "pattern":
                patterns.append(rid)
        idx = open_index(store)
        size = len(idx.kinds)
        fresh = {t: bitset.of([idx.posting("tags", t)], size) for t in idx.tags}
        if idx.tagbits is not None:
            kept_through += 1
            assert {t: b for t, b in idx.tagbits.items() if b} == fresh, step
    assert 20 <= kept_through < 30  # kept through additions, dropped by edits


def test_the_vocabulary_kept_through_additions_is_every_term_sorted(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Index.vocabulary`` (what typo and prefix matching walk) keeps the terms added
    since the file was written, sorted, through each addition: it equals the sorted union
    of the stored terms and every term added, new words and old ones alike."""
    monkeypatch.setenv("LORE_NOW", "2026-06-15T00:00:00Z")
    store.kept = {}
    add(store, "observation", "deploy pipeline redis cache")
    open_index(store).vocabulary()
    from lore.index.persist import save_kept

    save_kept(store)  # the file holds these words; what follows is added in memory
    rng = random.Random(13)
    for step in range(25):
        idx = open_index(store)
        assert list(idx.vocabulary()) == sorted(
            set(idx.vocab.terms) | idx.more.keys() | idx.fresh.keys()
        ), step
        words = [*rng.sample(WORDS, 2), f"zz{rng.randrange(40)}", f"aa{step}"]
        add(store, "observation", " ".join(words))
    assert len(open_index(store).more) > 20  # words were added in memory
