"""Recall's shortcut (``lore.recall.prune``) changes nothing: the first ``limit`` records,
their order and their scores are those that scoring every record gives, whatever the query,
the filters and the store's shape (shared words, threads that pass scores on, questions,
hidden records, several kinds and projects)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from lore.capture.build import build
from lore.index.persist import open_index
from lore.recall import core, prune
from lore.store.core import Store

WORDS = [
    "cache",
    "redis",
    "session",
    "store",
    "queue",
    "retry",
    "flaky",
    "network",
    "deploy",
    "timeout",
    "lock",
]
KINDS = ("observation", "decision", "failure")


def make_store(store: Store, seed: int, n: int = 360) -> None:
    rng = random.Random(seed)
    records = []
    for i in range(n):
        kind = KINDS[i % 3] if rng.random() < 0.6 else "observation"
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 7)))
        text = f"{words} {'why?' if rng.random() < 0.1 else ''} item{i}"
        fields: dict[str, Any] = {}
        if kind == "failure":
            fields["error_type"] = rng.choice(["Timeout", "NetworkError"])
        record = build(kind, text, fields).record
        thread = i // 6 if rng.random() < 0.5 else None  # runs of one thread pass scores on
        record.tags = [f"thread-{thread}"] if thread is not None else []
        record.project = rng.choice([None, "alpha", "beta"])
        record.timestamp = f"2026-0{1 + i % 5}-{1 + i % 27:02d}T{i % 24:02d}:00:00.000000Z"
        records.append(record)
    store.add(records)
    for record in records[::17]:  # hidden ones
        store.revise(record.id, {"status": "discarded"} if record.kind == "observation"
                     else {"retracted_at": "2026-06-01T00:00:00.000000Z"})  # fmt: skip


def queries(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        q = " ".join(rng.sample(WORDS, rng.randint(1, 4)))
        if rng.random() < 0.2:
            q += " in march 2026"
        if rng.random() < 0.15:
            q = "what failed " + q
        out.append(q)
    return out


def ranked(result: core.Ranking, limit: int) -> list[tuple[int, float]]:
    return [(r.doc, round(r.score, 12)) for r in result.ranked[:limit]]


@pytest.mark.parametrize("seed", [1, 2])
def test_the_first_records_are_those_of_scoring_every_record(
    store: Store, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", "2026-06-15T00:00:00Z")
    make_store(store, seed)
    idx = open_index(store)
    proved = []
    search = prune.search

    def counted(*args: Any, **kwargs: Any) -> Any:
        found = search(*args, **kwargs)
        proved.append(found is not None)
        return found

    monkeypatch.setattr(prune, "search", counted)
    options: list[dict[str, Any]] = [
        {},
        {"kinds": ("decision", "failure")},
        {"project": "alpha"},
        {"here": "beta"},
        {"since": "2026-03-01"},
    ]
    for i, query in enumerate(queries(seed, 40)):
        for limit in (1, 5, 10):
            extra = options[i % len(options)]
            fast = core.rank(store, query, limit=limit, index=idx, **extra)
            full = core.rank(store, query, limit=0, index=idx, **extra)
            assert ranked(fast, limit) == ranked(full, limit), (query, limit, extra)
    assert sum(proved) > len(proved) // 2  # the shortcut was taken, not only fallen back


def test_another_generators_candidates_are_scored_with_their_neighbours(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``rank(candidates=...)`` (how bench/fts5.py puts FTS5 under lore's ranking): every
    record as candidates gives scoring every record; no candidate gives nothing."""
    monkeypatch.setenv("LORE_NOW", "2026-06-15T00:00:00Z")
    make_store(store, 3, n=120)
    idx = open_index(store)
    for query in queries(3, 8):
        full = core.rank(store, query, limit=0, index=idx)
        every = set(range(len(idx.kinds)))
        given = core.rank(store, query, limit=10, index=idx, candidates=every)
        assert ranked(given, 10) == ranked(full, 10), query
        assert core.rank(store, query, limit=10, index=idx, candidates=set()).ranked == []
