"""Recall's text score beyond plain BM25: close variants and companions of a term (the
only part that reads records: ``lore.recall.associate``), coverage of the query, a record's session
context (the records captured just before and after it) and the time window a query names.
Formula: ``lore.recall.ranking``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from itertools import compress
from typing import Any

from lore.index.persist import Index
from lore.recall import associate, ranking
from lore.store.core import Store
from lore.timeexpr import Window

CONTEXT_GAP_SECONDS = 6 * 3600.0  # neighbours captured further apart share no context
CONTEXT_NEXT = 0.3  # share of a record's score the record after it inherits
CONTEXT_PREV = 0.3  # share the record before it inherits
ASK_NEXT = 0.7  # share the record after a record that asks something inherits (its answer)
ASK_SELF = 0.8  # a record that asks keeps this share of its own score
COVERAGE_POWER = 0.6  # text x (share of the query's terms the record holds) ** this
WINDOW_BOOST = 2.0  # a record inside the query's time window counts 1 + this times
KIND_BOOST = 2.0  # a record of a kind the query names ("what failed") counts 1 + this times
ASSOCIATE = True  # a rare term also matches its associates (``lore.recall.associate``)


def neighbour(idx: Index, doc: int, step: int) -> int:
    """The record ``step`` places from ``doc`` in capture order if it shares ``doc``'s
    context (same kind and project; the same session, or without one the same tags;
    captured within CONTEXT_GAP_SECONDS), else -1. ``context`` also leaves out contexts
    made only of a project's blanket tags (``Index.blanket_contexts``)."""
    other = doc + step
    if other < 0 or other >= len(idx.kinds) or other in idx.dead:
        return -1
    if idx.kinds[other] != idx.kinds[doc] or idx.proj[other] != idx.proj[doc]:
        return -1
    if idx.ctx[other] != idx.ctx[doc] or not idx.ctx[doc]:
        return -1
    if abs(idx.ts[other] - idx.ts[doc]) > CONTEXT_GAP_SECONDS:
        return -1
    return other


def context(idx: Index, text: dict[int, float]) -> dict[int, float]:
    """What each record next to a match inherits from it: CONTEXT_NEXT of the score of
    the record before it (ASK_NEXT when that record asks), CONTEXT_PREV of the one after
    it; the larger when both do."""
    out: dict[int, float] = {}
    asks, ctx, blanket = idx.asks, idx.ctx, idx.blanket_contexts()
    # Only a record with a neighbour of its kind, project and context (``nb``) passes any.
    for d in compress(text, map(idx.nb.__getitem__, text)):
        if not ctx[d] or ctx[d] in blanket:
            continue
        s = text[d]
        after = ASK_NEXT if asks[d] else CONTEXT_NEXT
        for step, share in ((1, after), (-1, CONTEXT_PREV)):
            at = neighbour(idx, d, step)
            if at >= 0 and share * s > out.get(at, 0.0):
                out[at] = share * s
    return out


@dataclass
class Plan:
    """How ``match`` scores a query: each term with its variants and their factors (the
    term itself first, at 1.0), the companions among them (``lore.recall.associate``),
    and each variant's postings as scored: (records, counts, df), a project's muted tag
    words already taken out (``lore.index.tagwords``); df 0 scores nothing."""

    every: list[tuple[str, list[tuple[str, float]]]]
    companions: set[str]
    lists: dict[str, tuple[Any, Any, int]]


def plan(idx: Index, terms: list[str], store: Store | None = None) -> Plan:
    """The variants of ``terms`` and their postings (see ``Plan``; the per-term work is
    kept on the index between queries: ``lore.recall.terms``)."""
    from lore.recall import terms as per_term

    every: list[tuple[str, list[tuple[str, float]]]] = []
    companions: set[str] = set()  # matched for ranking, but not words of the query
    for term in terms:
        close = per_term.close(idx, term)
        factors = {v: ranking.FUZZY_WEIGHT * sim for v, sim in close.items()}
        if store is not None and ASSOCIATE:  # words that keep company with the term
            for v, strength in per_term.companions(idx, store, term).items():
                share = associate.ASSOC_WEIGHT * strength
                if v not in terms and share > factors.get(v, 0.0):
                    factors[v] = share
                    if v not in close:
                        companions.add(v)
        every.append((term, [(term, 1.0), *factors.items()]))
    # Words of a project's name (or of a tag all its records carry) are not matched text.
    lists = per_term.postings(idx, [v for _, variants in every for v, _ in variants])
    return Plan(every, companions, lists)


def match(
    idx: Index,
    terms: list[str],
    store: Store | None = None,
    *,
    planned: Plan | None = None,
    only: set[int] | None = None,
    known: Known | None = None,
) -> tuple[dict[int, float], dict[int, float], set[str], dict[int, int]]:
    """BM25 of every record for ``terms``: the part from the terms themselves, the part
    from their close variants, the index terms that matched (a term, its longer forms and
    typo fixes: what snippets mark; never a companion from ``lore.recall.associate``, which
    the query does not hold) and how many of ``terms`` each record holds (itself or a
    variant). Occurrences that come from a project's own
    name or a project's blanket tag (``lore.index.tagwords``) do not count. ``planned``:
    the query's ``plan``, if made already; ``only``: score these records alone (the
    rest are left out of the answer, as ``lore.recall.prune`` proves they may be);
    ``known``: what an earlier call of the same query scored for fewer records (``Known``),
    kept up to date here."""
    n = idx.size
    k1, b = ranking.K1, ranking.B
    base, scale = k1 * (1.0 - b), k1 * b * n / max(idx.total_length(), 1)
    dl = idx.dl
    exact: dict[int, float] = {}
    fuzzy: dict[int, float] = {}
    matched: set[str] = set()
    held: Counter[int] = Counter()
    made = planned or plan(idx, terms, store)
    companions = made.companions
    keep = False
    if only is not None:
        from lore.process import one_shot
        from lore.recall import terms as per_term

        keep = not one_shot()  # a long-lived process: it will ask about these terms again
    # Every record is scored here, filters or not; filters apply to the (fewer) matches.
    for term, variants in made.every:
        own: dict[int, float] = {}
        near: dict[int, float] = {}
        for variant, factor in variants:
            docs, tfs, df = made.lists[variant]
            if not df:
                continue
            if variant not in companions:  # snippets mark the query's words (and forms)
                matched.add(variant)
            weight = factor * ranking.idf(n, df) * (k1 + 1.0)
            earlier = known.scores.get(variant) if known is not None else None
            wanted = only if earlier is None or known is None else known.fresh
            pairs: Any = zip(docs, tfs)
            if wanted is not None and keep:  # looked up in C, the postings kept as a dict
                found = per_term.counts(idx, variant, docs, tfs)
                hit = found.keys() & wanted
                pairs = zip(hit, map(found.__getitem__, hit))
            elif wanted is not None:
                pairs = _restricted(docs, tfs, wanted)
            scores = {d: weight * tf / (tf + base + scale * dl[d]) for d, tf in pairs}
            if earlier is not None:
                scores = earlier | scores
            if known is not None:
                known.scores[variant] = scores
            if variant == term:  # a record appears once in a term's postings
                own = scores if known is None else dict(scores)  # (changed below)
                continue
            for d, s in scores.items():
                if s > near.get(d, 0.0):
                    near[d] = s
        for d, s in near.items():  # a term counts once: as itself or as its best variant
            if s > own.get(d, 0.0):
                fuzzy[d] = fuzzy.get(d, 0.0) + s
                own.pop(d, None)
        held.update(own.keys())  # (counted in C)
        held.update(near.keys())
        if not exact:
            exact = own
        else:
            get = exact.get
            for d, s in own.items():
                exact[d] = get(d, 0.0) + s
    return exact, fuzzy, matched, held


class Known:
    """What one query's earlier ``match`` scored, for a later call over more records
    (``lore.recall.prune`` scores a growing set): each variant's scores so far, and the
    records this call adds (``fresh``). Set with ``grow`` before each call."""

    def __init__(self) -> None:
        self.scores: dict[str, dict[int, float]] = {}
        self.seen: set[int] = set()
        self.fresh: set[int] = set()

    def grow(self, only: set[int]) -> None:
        """The next call scores ``only``: what it adds is scored, the rest kept (all of
        it scored afresh when ``only`` does not hold every record scored before)."""
        if not self.seen <= only:
            self.scores.clear()
        self.fresh = only - self.seen if self.scores else only
        self.seen = only


def _restricted(docs: Any, tfs: Any, only: set[int]) -> Any:
    """The (record, count) pairs of a term's postings (by record number) for the records in
    ``only``: looked up one by one when they are few, else filtered in one C pass."""
    if len(only) * 16 >= len(docs):
        return compress(zip(docs, tfs), map(only.__contains__, docs))
    out = []
    end = len(docs)
    for d in sorted(only):
        at = bisect_left(docs, d)
        if at < end and docs[at] == d:
            out.append((d, tfs[at]))
    return out


def relevance(
    idx: Index,
    terms: list[str],
    window: Window | None = None,
    store: Store | None = None,
    kinds: set[int] | frozenset[int] = frozenset(),
    *,
    planned: Plan | None = None,
    only: set[int] | None = None,
    known: Known | None = None,
) -> tuple[dict[int, float], dict[int, float], dict[int, float], set[str]]:
    """Each record's text score for ``terms`` (see ``lore.recall.ranking``): BM25 times coverage,
    a record that asks keeping ASK_SELF of it, plus what it inherits from its neighbours,
    times 1 + WINDOW_BOOST inside ``window``, times 1 + KIND_BOOST for a record of one of
    ``kinds`` (kind codes the query named). Returns (text, exact, fuzzy, matched).
    ``planned``, ``only``, ``known``: as ``match`` takes them."""
    exact, fuzzy, matched, held = match(idx, terms, store, planned=planned, only=only, known=known)
    text = dict(exact)
    for d, s in fuzzy.items():
        text[d] = text.get(d, 0.0) + s
    if len(terms) > 1:
        q = len(terms)
        for d, v in text.items():
            text[d] = v * (held[d] / q) ** COVERAGE_POWER
    around = context(idx, text)
    asks = idx.asks
    for d in text:
        if asks[d]:
            text[d] *= ASK_SELF
    for d, s in around.items():
        text[d] = text.get(d, 0.0) + s
    if window is not None and WINDOW_BOOST:
        ts, factor = idx.ts, 1.0 + WINDOW_BOOST
        for d in text:
            if window.contains(ts[d]):
                text[d] *= factor
    if kinds and KIND_BOOST:
        of, factor = idx.kinds, 1.0 + KIND_BOOST
        for d in text:
            if of[d] in kinds:
                text[d] *= factor
    return text, exact, fuzzy, matched
