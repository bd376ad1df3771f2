"""The index's vocabulary as the file holds it: every term, sorted and packed, with where
its postings sit in the blob and two bounds recall prunes by (the largest count of the term
in a record, the shortest record holding it). Found by binary search, never unmarshalled
into a dictionary of every term (a read that asks for four terms pays for four).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

from lore.index.packed import Packed


class Vocab:
    """Sorted terms (``Packed``) and, by position, their postings' offset and size in the
    blob (bytes), the largest weighted count (``maxtf``) and shortest weighted length
    (``mindl``) among the records in those postings."""

    __slots__ = ("at", "maxtf", "mindl", "size", "terms")

    def __init__(self, terms: Packed, at: Any, size: Any, maxtf: Any, mindl: Any) -> None:
        self.terms, self.at, self.size, self.maxtf, self.mindl = terms, at, size, maxtf, mindl

    @classmethod
    def empty(cls) -> Vocab:
        return cls(Packed(), array("Q"), array("I"), array("I"), array("I"))

    def position(self, term: str) -> int:
        """The term's position, or -1."""
        terms = self.terms
        lo, hi = 0, len(terms)
        while lo < hi:
            mid = (lo + hi) // 2
            if terms[mid] < term:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < len(terms) and terms[lo] == term else -1

    def get(self, term: str) -> tuple[int, int] | None:
        """(offset, size) of the term's postings in the blob, or None."""
        k = self.position(term)
        return None if k < 0 else (self.at[k], self.size[k])

    def bounds(self, term: str) -> tuple[int, int] | None:
        """(largest count, shortest length) among the term's stored postings, or None."""
        k = self.position(term)
        return None if k < 0 else (self.maxtf[k], self.mindl[k])

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self.position(term) >= 0

    def __len__(self) -> int:
        return len(self.terms)

    def keys(self) -> set[str]:
        return set(self.terms.strings())


def pack(entries: list[tuple[str, int, int, int, int]]) -> dict[str, bytes]:
    """The file's regions for ``entries`` (term, offset, size, maxtf, mindl), sorted by term."""
    terms = Packed.of([e[0] for e in entries])
    text, starts = terms.tobytes()
    return {
        "vocab": text,
        "vocab_at": starts,
        "vocab_off": array("Q", (e[1] for e in entries)).tobytes(),
        "vocab_size": array("I", (e[2] for e in entries)).tobytes(),
        "vocab_maxtf": array("I", (e[3] for e in entries)).tobytes(),
        "vocab_mindl": array("I", (e[4] for e in entries)).tobytes(),
    }


class Merged(Sequence[str]):
    """Two sorted, disjoint sequences of terms seen as one sorted sequence (the stored
    vocabulary and the few terms added since), without copying the long one."""

    __slots__ = ("_flat", "base", "extra")

    def __init__(self, base: Sequence[str], extra: list[str]) -> None:
        self.base, self.extra = base, extra
        self._flat: list[str] | None = None

    def __len__(self) -> int:
        return len(self.base) + len(self.extra)

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        base, extra = self.base, self.extra
        # The k-th term is base[j] for the j with j + (extras before base[j]) == k, or
        # an extra; find the smallest j whose merged position is at least k.
        lo, hi = 0, len(base)
        while lo < hi:
            mid = (lo + hi) // 2
            if mid + bisect_left(extra, base[mid]) < k:
                lo = mid + 1
            else:
                hi = mid
        if lo < len(base) and lo + bisect_left(extra, base[lo]) == k:
            return base[lo]
        return extra[k - lo]

    def __iter__(self) -> Any:
        # Every term at once (a typo search scores them all): two sorted runs are merged
        # by one sort in C, kept for the next pass, instead of a merge step per term.
        if self._flat is None:
            base = self.base
            flat = list(base.strings() if isinstance(base, Packed) else base)
            flat += self.extra
            flat.sort()
            self._flat = flat
        return iter(self._flat)
