"""Recall's per-term work, kept on the index (``Index.memo``) between queries: a term's
close variants and companions, a variant's postings as scored, and their extremes. The
index drops the memo whenever a record is killed, and on an addition keeps only the
postings of terms the record and the tag names do not hold (``lore.index.write``), so an
answer from it is the one a fresh computation gives; a long-lived process (``lore mcp``)
pays for a term once.
"""

from __future__ import annotations

from array import array
from typing import Any

from lore.index import analyze
from lore.index.persist import Index
from lore.recall import associate, ranking
from lore.store.core import Store

COUNTS_KEPT = 600_000  # postings kept as dicts by ``counts`` (about 70 bytes each)
Postings = tuple[Any, Any, int]  # (records, counts, df): as ``lore.recall.signals`` scores


def close(idx: Index, term: str) -> dict[str, float]:
    """``ranking.close_terms`` of ``term`` in the index's vocabulary (do not change it)."""
    key = ("close", term)
    found = idx.memo.get(key)
    if found is None:
        found = idx.memo[key] = ranking.close_terms(term, idx.vocabulary())
    return found


def companions(idx: Index, store: Store, term: str) -> dict[str, float]:
    """``associate.associates`` of ``term`` (do not change it)."""
    key = ("assoc", term)
    found = idx.memo.get(key)
    if found is None:
        found = idx.memo[key] = associate.associates(idx, store, term)
    return found


def postings(idx: Index, variants: list[str]) -> dict[str, Postings]:
    """Each variant's postings as recall scores them: (records, counts, df), the
    occurrences from a project's muted tag words (``lore.index.tagwords``) taken out, dead
    records counted out of df; ((), (), 0) for a variant the index lacks."""
    memo = idx.memo
    missing = [v for v in dict.fromkeys(variants) if ("post", v) not in memo]
    if missing:
        from lore.index.tagwords import muted

        if ("tagwords",) not in memo:  # what an addition checks to keep these (index.write)
            names = (tag for tag in idx.tags if isinstance(tag, str))
            memo[("tagwords",)] = {t for name in names for t in analyze.terms(name)}
        mute = muted(idx, set(missing))
        dead = idx.dead
        for variant in missing:
            column = idx.postings_of(variant)
            if not column:
                memo[("post", variant)] = ((), (), 0)
                continue
            docs, tfs = column[0::2], column[1::2]
            less = mute.get(variant)
            if less:
                kept = [(d, tf - less.get(d, 0)) for d, tf in zip(docs, tfs)]
                docs = array("I", [d for d, tf in kept if tf > 0])
                tfs = array("I", [tf for _, tf in kept if tf > 0])
            df = len(docs) - (len(dead.intersection(docs)) if dead else 0)
            memo[("post", variant)] = (docs, tfs, df)
    return {v: memo[("post", v)] for v in variants}


def records(idx: Index, variants: list[str], lists: dict[str, Postings]) -> frozenset[int]:
    """The records holding any of ``variants`` (their postings in ``lists``, as
    ``postings`` gives them)."""
    key = ("set", *variants)
    found = idx.memo.get(key)
    if found is None:
        found = frozenset(lists[variants[0]][0]).union(*(lists[v][0] for v in variants[1:]))
        idx.memo[key] = found
    return found


def counts(idx: Index, variant: str, docs: Any, tfs: Any) -> dict[int, int]:
    """A variant's postings (as ``postings`` gives them) as a dict, record -> count: a
    pool of records is looked up in it in C. Kept for at most COUNTS_KEPT postings in
    all; past that, the others kept are dropped first."""
    key = ("tf", variant)
    memo = idx.memo
    found = memo.get(key)
    if found is None:
        held = [k for k in memo if k[0] == "tf"]
        if sum(len(memo[k]) for k in held) + len(docs) > COUNTS_KEPT:
            for k in held:
                del memo[k]
        found = memo[key] = dict(zip(docs, tfs))
    return found


def mask(idx: Index, variants: list[str], lists: dict[str, Postings]) -> int:
    """``records`` as an int, bit d set for record d (``lore.index.bitset``)."""
    key = ("mask", *variants)
    found = idx.memo.get(key)
    if found is None:
        from lore.index import bitset

        found = bitset.of((lists[v][0] for v in variants), len(idx.kinds))
        idx.memo[key] = found
    return found


def linking(idx: Index) -> int:
    """The records with a neighbour they could pass scores to (the index's ``nb``), as
    an int (``lore.index.bitset``); kept until the next addition or kill."""
    found = idx.memo.get(("nb",))
    if found is None:
        from lore.index import bitset

        found = idx.memo[("nb",)] = bitset.of_flags(idx.nb)
    return found


def extremes(idx: Index, variant: str, docs: Any, tfs: Any) -> tuple[int, int]:
    """The largest count and the shortest record length in a variant's postings (as
    ``postings`` gives them): from the vocabulary for the stored part, counted here for
    what was added since."""
    key = ("ext", variant)
    found = idx.memo.get(key)
    if found is None:
        found = idx.memo[key] = _extremes(idx, variant, docs, tfs)
    return found


def _extremes(idx: Index, variant: str, docs: Any, tfs: Any) -> tuple[int, int]:
    stored = idx.vocab.bounds(variant) if variant not in idx.fresh else None
    if stored is None:
        return max(tfs), min(map(idx.dl.__getitem__, docs))
    most, shortest = stored
    added = idx.more.get(variant)
    if added:
        most = max(most, max(added[1::2]))
        shortest = min(shortest, min(map(idx.dl.__getitem__, added[0::2])))
    return most, shortest
