"""The index seen from one project: which records are in it, newest first; records are
read from disk only once chosen. Resume and the Rule of Three's summary read through it.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from itertools import compress
from operator import itemgetter, or_
from typing import Any

from lore.index.columns import gather
from lore.store.core import Store


class ProjectView:
    """The index seen from one project: which records are in it, newest first.

    A record is in ``project`` when its project is that name, it carries the name as a
    tag, or it has no project (the same rule as ``lore recall --project``'s context).
    Records are read from disk only once chosen.
    """

    def __init__(self, store: Store, project: str | None) -> None:
        from lore.index.persist import open_index

        self.store = store
        self.project = project
        self.index = open_index(store)
        self._mine: Any = None

    def docs(self, kind: str, *, flagged: bool = False, everywhere: bool = False) -> list[int]:
        """Shown records of ``kind`` (``flagged``: see ``lore.index.write._flag``) in the project
        (``everywhere``: in any project)."""
        found = self.index.docs(kind, flagged=flagged)
        if not self.project or everywhere:
            return found
        codes, tagged = self._membership()
        if not found:
            return found
        # (at C speed: a project's 17,000 decisions in one pass)
        ours: Any = map(codes.__contains__, gather(self.index.proj, found))
        if tagged:
            ours = map(or_, ours, map(tagged.__contains__, found))
        return list(compress(found, ours))

    def _membership(self) -> tuple[set[int], set[int]]:
        """(project codes, records tagged with the project) that make a record ours."""
        if self._mine is None:
            idx = self.index
            codes = {idx.project_code(self.project), idx.project_code(None), idx.project_code("")}
            self._mine = (codes - {-1}, idx.tagged(str(self.project)))
        return self._mine

    def shows(self, doc: int, *, everywhere: bool = False) -> bool:
        """Whether ``doc`` is among ``docs`` of its kind (shown; in the project)."""
        idx = self.index
        if idx.hidden[doc] or doc in idx.dead:
            return False
        if not self.project or everywhere:
            return True
        codes, tagged = self._membership()
        return idx.proj[doc] in codes or doc in tagged

    def newest_of(self, kind: str, *, everywhere: bool = False) -> Iterator[int]:
        """``docs(kind)``, newest first (equal times: the later record first), read from
        the end of the index's order by time (``lore.index.orders``): the first few cost
        a few steps, not a sort of the whole kind."""
        from lore.index.columns import SEARCH_KINDS

        idx = self.index
        if idx._time_order is None:  # an index not written yet: sort them
            ts = idx.ts
            docs = self.docs(kind, everywhere=everywhere)
            yield from sorted(docs, key=lambda d: (ts[d], d), reverse=True)
            return
        from lore.index.orders import newest

        for doc in newest(idx, SEARCH_KINDS.index(kind)):
            if self.shows(doc, everywhere=everywhere):
                yield doc

    def newest(self, docs: list[int], n: int) -> list[int]:
        ts = self.index.ts
        # Equal times: the later record first (nlargest keeps the input order of ties).
        return heapq.nlargest(n, reversed(docs), key=ts.__getitem__)

    def fact(self, doc: int) -> tuple[Any, ...]:
        return self.index.facts.get(doc, ())

    def read(self, doc: int) -> Any:
        return self.index.fetch(self.store, doc)


def top(docs: list[int], n: int, keys: Sequence[Any], *, largest: bool) -> list[int]:
    """The first ``n`` of ``docs`` ordered by ``(keys[0][d], keys[1][d], ..., d)``, largest
    first (``largest``) or smallest first, as a full sort would give them.

    The first key splits the records into those surely among the first ``n`` (better than
    the n-th best value), those tied with it (the next key decides among them) and the
    rest, in C loops (``itemgetter``, ``compress``): a kind's 20,000 records cost a few
    sorts of numbers, not 20,000 Python key calls.
    """
    if n <= 0 or not docs:
        return []
    if not keys or len(docs) <= n:
        return sorted(docs, key=lambda d: (*(c[d] for c in keys), d), reverse=largest)[:n]
    column, rest = keys[0], keys[1:]
    values = itemgetter(*docs)(column)
    cut = sorted(values)[-n] if largest else sorted(values)[n - 1]
    better = list(compress(docs, map(cut.__lt__ if largest else cut.__gt__, values)))
    tied = list(compress(docs, map(cut.__eq__, values)))
    better.sort(key=lambda d: (column[d], *(c[d] for c in rest), d), reverse=largest)
    return better + top(tied, n - len(better), rest, largest=largest)
