"""Recall's shortcut (``lore.recall.prune``) changes nothing: the first ``limit`` records,
their order and their scores are those that scoring every record gives, whatever the query
(typos too), the filters and the store's shape (shared words, threads that pass scores on,
questions, hidden records, several kinds and projects) and the activation model's inputs
(use on this machine, old and recent; citations; pins; outcomes; stale files)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from lore.capture.anchors import blob_id
from lore.capture.build import build
from lore.index import history
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
KINDS = ("observation", "decision", "failure", "pattern", "anti-pattern")


def make_store(store: Store, seed: int, n: int = 360, files: Path | None = None) -> None:
    """``n`` records; with ``files`` (a folder), the activation model's inputs vary too:
    use on this machine (recalls and injections, long ago and lately), citations between
    decisions, pins, outcomes, and file hashes that still hold or no longer do."""
    rng = random.Random(seed)
    kinds = KINDS if files is not None else KINDS[:3]
    records = []
    if files is not None:
        files.mkdir(parents=True, exist_ok=True)
        (files / "kept.py").write_text("KEPT = 1\n")
        (files / "edited.py").write_text("EDITED = 2\n")
        kept = blob_id(b"KEPT = 1\n")
        old = blob_id(b"EDITED = 1\n")  # captured before the edit: stale now
    for i in range(n):
        kind = kinds[i % len(kinds)] if rng.random() < 0.6 else "observation"
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 7)))
        text = f"{words} {'why?' if rng.random() < 0.1 else ''} item{i}"
        fields: dict[str, Any] = {}
        if kind == "failure":
            fields["error_type"] = rng.choice(["Timeout", "NetworkError"])
        if kind == "decision" and files is not None:
            fields["outcome"] = rng.choice(["pending", "successful", "revised", "abandoned"])
            earlier = [r.id for r in records if r.kind == "decision"]
            if earlier and rng.random() < 0.4:  # cites earlier decisions (some many times)
                fields["related_decisions"] = rng.sample(earlier[:8] + earlier, 2)
        record = build(kind, text, fields).record
        thread = i // 6 if rng.random() < 0.5 else None  # runs of one thread pass scores on
        record.tags = [f"thread-{thread}"] if thread is not None else []
        record.project = rng.choice([None, "alpha", "beta"])
        record.timestamp = f"2026-0{1 + i % 5}-{1 + i % 27:02d}T{i % 24:02d}:00:00.000000Z"
        if files is not None:
            if rng.random() < 0.08:
                record.extra["pinned"] = True
            if rng.random() < 0.2:
                path, blob = rng.choice([("kept.py", kept), ("edited.py", old)])
                record.extra["file_hashes"] = [
                    {"path": str(files / path), "blob": blob, "commit": None}
                ]
        records.append(record)
    if files is not None:  # one record as alive as any can be (the bound is reached)
        every = " ".join(WORDS)
        fields = {"outcome": "successful", "lesson_learned": "it held"}
        best = build("decision", f"{every} the best", fields, project="alpha").record
        best.extra["pinned"] = True
        best.timestamp = "2026-01-02T00:00:00.000000Z"
        records.append(best)
    store.add(records)
    if files is not None:  # use on this machine: some ids often, some long ago
        for day in ("2025-06-01", "2026-02-10", "2026-06-01", "2026-06-14"):
            ids = [r.id for r in rng.sample(records, 40)]
            with pytest.MonkeyPatch.context() as m:
                m.setenv("LORE_NOW", f"{day}T12:00:00Z")
                for _ in range(rng.randint(1, 6)):
                    history.note_recalled(store.root, rng.sample(ids, 10))
                history.note_used(store.root, rng.sample(ids, 5), "injected")
        busy = [r.id for r in records[::29]] + [records[-1].id]
        for _ in range(30):  # past the use share's saturation
            history.note_recalled(store.root, busy)
    for record in records[::17]:  # hidden ones
        store.revise(record.id, {"status": "discarded"} if record.kind == "observation"
                     else {"retracted_at": "2026-06-01T00:00:00.000000Z"})  # fmt: skip


def typo(word: str, rng: random.Random) -> str:
    """``word`` with two letters swapped or one dropped (recall's typo matching)."""
    at = rng.randrange(1, len(word) - 1)
    if rng.random() < 0.5:
        return word[:at] + word[at + 1] + word[at] + word[at + 2 :]
    return word[:at] + word[at + 1 :]


def queries(seed: int, count: int, typos: bool = False) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        words = rng.sample(WORDS, rng.randint(1, 4))
        if typos and rng.random() < 0.3:
            words = [typo(w, rng) if rng.random() < 0.5 else w for w in words]
        q = " ".join(words)
        if rng.random() < 0.2:
            q += " in march 2026"
        if rng.random() < 0.15:
            q = "what failed " + q
        out.append(q)
    return out


def ranked(result: core.Ranking, limit: int) -> list[tuple[int, float]]:
    return [(r.doc, round(r.score, 12)) for r in result.ranked[:limit]]


@pytest.mark.parametrize("one_shot", [False, True])
@pytest.mark.parametrize("seed", [1, 2])
def test_the_first_records_are_those_of_scoring_every_record(
    store: Store, seed: int, monkeypatch: pytest.MonkeyPatch, one_shot: bool
) -> None:
    """In a one-shot process (sets of ints, postings filtered) and a long-lived one (sets
    as ints, postings kept as dicts) alike."""
    from lore import process

    monkeypatch.setattr(process, "_ONE_SHOT", [True] if one_shot else [])
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
        {"here": "nowhere"},  # no such project, no such tag: no record gets the part
        {"here": "thread-1"},  # no such project, but records tagged with it
    ]
    for i, query in enumerate(queries(seed, 40)):
        for limit in (1, 5, 10):
            extra = options[i % len(options)]
            fast = core.rank(store, query, limit=limit, index=idx, **extra)
            full = core.rank(store, query, limit=0, index=idx, **extra)
            assert ranked(fast, limit) == ranked(full, limit), (query, limit, extra)
    assert sum(proved) > len(proved) // 2  # the shortcut was taken, not only fallen back


OPTIONS: list[dict[str, Any]] = [
    {},
    {"kinds": ("decision", "failure")},
    {"project": "alpha"},
    {"here": "beta"},
    {"since": "2026-03-01"},
    {"here": "alpha", "kinds": ("decision", "pattern", "anti-pattern")},
    {"here": "nowhere"},
    {"here": "thread-2"},
]


def differences(store: Store, seed: int) -> list[Any]:
    """The queries whose first records with the shortcut differ from scoring every record."""
    idx = open_index(store)
    out = []
    for i, query in enumerate(queries(seed, 40, typos=True)):
        for limit in (1, 3, 10):
            extra = OPTIONS[i % len(OPTIONS)]
            fast = core.rank(store, query, limit=limit, index=idx, **extra)
            full = core.rank(store, query, limit=0, index=idx, **extra)
            if ranked(fast, limit) != ranked(full, limit):
                out.append((query, limit, extra))
    return out


@pytest.mark.parametrize("one_shot", [False, True])
@pytest.mark.parametrize("seed", [4, 5])
def test_the_shortcut_is_exact_under_the_activation_model(
    store: Store, seed: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, one_shot: bool
) -> None:
    """Use, citations, pins, outcomes and stale files all move scores (what the bound
    ``core.besides_text`` must cover): the first records are still those of scoring every
    record, and the shortcut was taken (in a one-shot process and a long-lived one)."""
    from lore import process

    monkeypatch.setattr(process, "_ONE_SHOT", [True] if one_shot else [])
    make_store(store, seed, files=tmp_path / "files")
    monkeypatch.setenv("LORE_NOW", "2026-06-15T00:00:00Z")
    idx = open_index(store)
    assert idx.pins and idx.cited_max() >= 2 and idx.has_anchors()
    full = core.rank(store, "cache redis", limit=0, index=idx)
    parts = [r.parts for r in full.ranked]
    assert any(p["stale"] for p in parts) and any(p["used"] >= 20 for p in parts)
    assert any(p["pinned"] for p in parts) and any(p["cited"] for p in parts)
    proved = []
    search = prune.search

    def counted(*args: Any, **kwargs: Any) -> Any:
        found = search(*args, **kwargs)
        proved.append(found is not None)
        return found

    monkeypatch.setattr(prune, "search", counted)
    assert differences(store, seed) == []
    assert sum(proved) > len(proved) // 2  # the shortcut was taken, not only fallen back


def test_the_bound_holds_for_every_record_and_is_reached(
    store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """What the proof rests on: no record's score holds more besides its text than
    ``core.besides_text``, and a pinned, much used, fully important decision of the
    current project holds exactly that (so any smaller bound would be wrong). Where no
    record can get the project's part (no project here, or one no record belongs to or
    is tagged with), the bound leaves it out, and is still reached."""
    from lore.recall import ranking

    make_store(store, 4, files=tmp_path / "files")
    monkeypatch.setenv("LORE_NOW", "2026-06-15T00:00:00Z")
    idx = open_index(store)
    most: dict[str | None, float] = {}
    for i, query in enumerate(queries(4, 24, typos=True)):
        extra = OPTIONS[i % len(OPTIONS)]
        here = extra.get("project") or extra.get("here")
        bound = core.besides_text(store, idx, here)
        for r in core.rank(store, query, limit=0, index=idx, **extra).ranked:
            besides = r.score - ranking.W_TEXT * r.parts["relevance"]
            assert besides <= bound + 1e-12, (query, r.parts)
            most[here] = max(most.get(here, 0.0), besides)
    with_project = core.besides_text(store, idx, "alpha")
    assert most["alpha"] == pytest.approx(with_project, abs=1e-9)
    for nothing in (None, "nowhere"):
        without = core.besides_text(store, idx, nothing)
        assert without == pytest.approx(with_project - ranking.W_PROJECT, abs=1e-12)
        assert most[nothing] == pytest.approx(without, abs=1e-9)
    assert core.besides_text(store, idx, "thread-2") == with_project  # a tag some records carry


def test_a_bound_too_tight_is_caught(
    store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The exactness test above can fail: with a bound that leaves out most of what
    activation adds, the shortcut drops records that belong among the first."""
    from lore.recall import ranking

    make_store(store, 4, files=tmp_path / "files")
    monkeypatch.setenv("LORE_NOW", "2026-06-15T00:00:00Z")
    exact = core.besides_text
    monkeypatch.setattr(core, "besides_text", lambda *args: exact(*args) - ranking.W_ACTIVATION)
    assert differences(store, 4)


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


def test_a_later_round_scores_only_the_records_it_adds() -> None:
    """``signals.Known``: a round over more records scores only those it adds; a round
    that does not hold every record scored before scores all of its own afresh."""
    from lore.recall import signals

    known = signals.Known()
    known.grow({1, 2, 3})
    assert known.fresh == {1, 2, 3}
    known.scores["redis"] = {1: 0.5}
    known.grow({1, 2, 3, 4, 5})
    assert known.fresh == {4, 5} and known.scores == {"redis": {1: 0.5}}
    known.grow({1, 9})  # (not a superset: 2 to 5 are gone)
    assert known.fresh == {1, 9} and known.scores == {}
