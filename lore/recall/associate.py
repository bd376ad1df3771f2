"""Term associations learned from the store itself: the words that keep company with a
rare query word in the records holding it, so recall can bridge words a question and a
record do not share. Derived at query time from the index's postings and those records.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from lore.index import analyze

ASSOC_MAX_SHARE = 0.1  # only words in at most this share of the records have associates
ASSOC_MAX_DOCS = 32  # ... and in at most this many (bounds the records read per word)
ASSOC_MIN_COUNT = 2  # an associate shares at least this many records with the word
ASSOC_MIN = 0.5  # and its association (shared / sqrt(df(word) * df(associate))) is this
ASSOC_TOP = 3  # the strongest this many associates of a word are kept
ASSOC_WEIGHT = 0.3  # an associate matches at this share of the word's own weight


def record_terms(record: Any) -> set[str]:
    """The distinct index terms of a record's searched fields (as ``lore.index`` takes them)."""
    kind = record.KIND
    out: set[str] = set()
    for name in (kind.title, *kind.search):
        value = getattr(record, name, None)
        texts = [value] if isinstance(value, str) else value if isinstance(value, list) else ()
        for text in texts:
            if isinstance(text, str):
                out.update(analyze.terms(text))
    return out


def associates(idx: Any, store: Any, term: str) -> dict[str, float]:
    """The index terms most associated with ``term``, each with its association (0..1]:
    the share of records they hold together, shared / sqrt(df(term) * df(other)). Empty for
    a term in one record, in more than ASSOC_MAX_SHARE of them or ASSOC_MAX_DOCS."""
    column = idx.postings_of(term)
    if not column:
        return {}
    dead = idx.dead
    most = min(ASSOC_MAX_DOCS, ASSOC_MAX_SHARE * idx.size)
    if len(column) // 2 - len(dead) > most:  # in too many records, dead ones aside
        return {}
    docs = [d for d in column[0::2] if d not in dead]
    if len(docs) < ASSOC_MIN_COUNT or len(docs) > most:
        return {}
    together: Counter[str] = Counter()
    for d in docs:
        together.update(record_terms(idx.fetch(store, d)))
    found: dict[str, float] = {}
    for other, shared in together.items():
        if other == term or shared < ASSOC_MIN_COUNT:
            continue
        postings = idx.postings_of(other)
        df = len(postings) // 2 if postings else shared
        strength = shared / math.sqrt(len(docs) * max(df, shared))
        if strength >= ASSOC_MIN:
            found[other] = strength
    best = sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))[:ASSOC_TOP]
    return dict(best)
