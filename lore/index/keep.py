"""What an index keeps through the addition of a record, instead of working it out again:
its kind lists (``Columns.docs``) and recall's answers about the terms the record does not
touch (``Columns.memo``, ``lore.recall.terms``).
"""

from __future__ import annotations

from typing import Any

from lore.index import analyze
from lore.index.columns import SEARCH_KINDS, Columns


def listed_with(idx: Columns, listed: dict[Any, list[int]], doc: int) -> dict[Any, list[int]]:
    """``docs()`` answers kept through the addition of ``doc`` (the last record number):
    it joins its kind's lists that take it (shown or ``hidden`` ones, ``flagged``)."""
    name = SEARCH_KINDS[idx.kinds[doc]]
    for (kind, flagged, hidden), found in listed.items():
        if kind == name and (hidden or not idx.hidden[doc]) and (idx.flags[doc] or not flagged):
            found.append(doc)
    return listed


# Recall's answers about a term (``lore.recall.terms``) that depend only on the term's
# postings and on what a project's tag words take out of them (``lore.index.tagwords``).
TERM_BOUND = ("post", "ext", "set", "mask", "tf")


def memo_with(memo: dict[Any, Any], terms: Any, tags: Any) -> dict[Any, Any]:
    """The answers of ``memo`` a new record holding ``terms`` (and ``tags``) leaves as they
    were: those about terms it does not hold and no tag name holds (``("tagwords",)``: every
    tag name's terms, kept up to date here); without that, none."""
    words = memo.get(("tagwords",))
    if words is None:
        return {}
    names = [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
    if names:
        words = set(words).union(*(analyze.terms(name) for name in names))
    kept = {
        key: value
        for key, value in memo.items()
        if key[0] in TERM_BOUND and not any(t in terms or t in words for t in key[1:])
    }
    kept[("tagwords",)] = words
    return kept
