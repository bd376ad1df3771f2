"""The near-duplicate check's view of an index that lives long (``lore mcp``, ``lore ui``,
an index the command server holds for its workers): each checked kind's shown records
with their titles' words already sorted, kept up to date record by record.

``token_sort_ratio`` (the check's measure) is ``ratio`` of the two titles with their words
sorted. A title in the index is normalized (words one space apart), so sorting its words
once, here, lets every later check call ``ratio`` directly: rapidfuzz then no longer sorts
20,000 titles per capture. A process that ends after one command never builds the view
(sorting every title in Python costs more than one check); it uses the titles as they are.
"""

from __future__ import annotations

from typing import Any

from lore.index.columns import DEDUPE_KINDS, SEARCH_KINDS


def words_sorted(title: str) -> str:
    """A normalized title with its words in order (what ``token_sort_ratio`` compares)."""
    return " ".join(sorted(title.split(" ")))


def build(idx: Any) -> None:
    """Make the view for every checked kind (the server does it before a worker needs it)."""
    titles = idx.titles
    known: dict[str, str] = {}
    for kind in DEDUPE_KINDS:
        docs = idx.docs(kind)
        sorts = []
        for d in docs:
            title = titles[d]
            found = known.get(title)
            if found is None:
                found = known[title] = words_sorted(title)
            sorts.append(found)
        idx.dedup[kind] = (docs, sorts)


def view(idx: Any, kind: str, *, make: bool) -> tuple[list[int], list[str]] | None:
    """``kind``'s (shown records, their titles' words sorted), in index order; None when
    there is none and ``make`` is false."""
    found = idx.dedup.get(kind)
    if found is None and make and kind in DEDUPE_KINDS:
        build(idx)
        found = idx.dedup.get(kind)
    return found


def added(idx: Any, kept: dict[str, Any], doc: int) -> dict[str, Any]:
    """The views ``kept`` after the record ``doc`` was added (shown: its kind's view
    takes it)."""
    entry = kept.get(SEARCH_KINDS[idx.kinds[doc]])
    if entry is not None and not idx.hidden[doc]:
        entry[0].append(doc)
        entry[1].append(words_sorted(idx.titles[doc]))
    return kept


def killed(idx: Any, kept: dict[str, Any], doc: int) -> dict[str, Any]:
    """The views ``kept`` after the record ``doc`` was killed (its kind's view drops it)."""
    entry = kept.get(SEARCH_KINDS[idx.kinds[doc]])
    if entry is not None:
        docs, sorts = entry
        try:
            at = docs.index(doc)
        except ValueError:
            return kept
        del docs[at], sorts[at]
    return kept
