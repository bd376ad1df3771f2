"""The records that may carry a ``legacy_id`` (an imported record's original id), from the
index's postings of its words, so that ``lore show`` of an id nobody has answers from the
index instead of reading every record of every kind (``lore.store.legacy``)."""

from __future__ import annotations

from typing import Any

from lore.store.core import Store


def candidates(store: Store, legacy_id: str) -> list[Any] | None:
    """The live records whose indexed words hold every word of ``legacy_id`` (the index
    holds each record's ``legacy_id`` words, ``lore.index.write``): a superset of those
    whose ``legacy_id`` it is. None when the index cannot narrow it: none on this machine
    yet, or an id without a word the index keeps."""
    if not store.root.index_file.is_file():
        return None
    from lore.index import analyze
    from lore.index.persist import open_index

    terms = list(dict.fromkeys(analyze.terms(legacy_id)))
    if not terms:
        return None
    index = open_index(store)
    dead = index.dead
    return [index.fetch(store, d) for d in sorted(index.holding(terms)) if d not in dead]
