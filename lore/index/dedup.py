"""The near-duplicate check's view of an index that lives long (``lore mcp``, ``lore ui``,
an index the command server holds for its workers): each checked kind's shown records
with their titles' words already sorted, in order of title length, kept up to date record
by record.

``token_sort_ratio`` (the check's measure) is ``ratio`` of the two titles with their words
sorted. A title in the index is normalized (words one space apart), so sorting its words
once, here, lets every later check call ``ratio`` directly: rapidfuzz then no longer sorts
20,000 titles per capture. Kept in order of length, the titles within reach of a target's
length (``lore.capture.checks._reach``) are one slice. A process that ends after one
command never builds the view (sorting every title in Python costs more than one check);
it uses the titles as they are.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from typing import Any

from lore.index.columns import DEDUPE_KINDS, SEARCH_KINDS


class View:
    """One kind's shown records (``docs``), their titles' words sorted (``sorts``) and
    the titles' lengths (``lens``), ordered by length, then record number."""

    __slots__ = ("docs", "lens", "sorts")

    def __init__(self, docs: list[int], lens: array[int], sorts: list[str]) -> None:
        self.docs, self.lens, self.sorts = docs, lens, sorts

    def within(self, lo: int, hi: int) -> tuple[list[int], list[str]]:
        """The records whose title is ``lo`` to ``hi`` long, and their sorted titles."""
        a, b = bisect_left(self.lens, lo), bisect_right(self.lens, hi)
        return self.docs[a:b], self.sorts[a:b]


def words_sorted(title: str) -> str:
    """A normalized title with its words in order (what ``token_sort_ratio`` compares)."""
    return " ".join(sorted(title.split(" ")))


def build(idx: Any) -> None:
    """Make the view of every checked kind (the server does it before a worker needs it)."""
    titles = idx.titles
    known: dict[str, str] = {}
    for kind in DEDUPE_KINDS:
        docs = sorted(idx.docs(kind), key=lambda d: (len(titles[d]), d))
        sorts = []
        for d in docs:
            title = titles[d]
            found = known.get(title)
            if found is None:
                found = known[title] = words_sorted(title)
            sorts.append(found)
        idx.dedup[kind] = View(docs, array("I", (len(titles[d]) for d in docs)), sorts)


def view(idx: Any, kind: str, *, make: bool) -> View | None:
    """``kind``'s view; None when there is none and ``make`` is false."""
    found = idx.dedup.get(kind)
    if found is None and make and kind in DEDUPE_KINDS:
        build(idx)
        found = idx.dedup.get(kind)
    return found


def added(idx: Any, kept: dict[str, View], doc: int) -> dict[str, View]:
    """The views ``kept`` after the record ``doc`` was added (shown: its kind's view
    takes it; it has the highest number, so it goes after the titles as long)."""
    found = kept.get(SEARCH_KINDS[idx.kinds[doc]])
    if found is not None and not idx.hidden[doc]:
        title = idx.titles[doc]
        at = bisect_right(found.lens, len(title))
        found.lens.insert(at, len(title))
        found.docs.insert(at, doc)
        found.sorts.insert(at, words_sorted(title))
    return kept


def killed(idx: Any, kept: dict[str, View], doc: int) -> dict[str, View]:
    """The views ``kept`` after the record ``doc`` was killed (its kind's view drops it)."""
    found = kept.get(SEARCH_KINDS[idx.kinds[doc]])
    if found is not None:
        size = len(idx.titles[doc])
        a, b = bisect_left(found.lens, size), bisect_right(found.lens, size)
        try:
            at = found.docs.index(doc, a, b)
        except ValueError:
            return kept
        del found.lens[at], found.docs[at], found.sorts[at]
    return kept
