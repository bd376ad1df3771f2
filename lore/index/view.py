"""The index seen from one project: which records are in it, newest first; records are
read from disk only once chosen. Resume and the Rule of Three's summary read through it.
"""

from __future__ import annotations

import heapq
from typing import Any

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
        if self._mine is None:
            idx = self.index
            codes = {idx.project_code(self.project), idx.project_code(None), idx.project_code("")}
            self._mine = (codes - {-1}, idx.tagged(self.project))
        codes, tagged = self._mine
        proj = self.index.proj
        return [d for d in found if proj[d] in codes or d in tagged]

    def newest(self, docs: list[int], n: int) -> list[int]:
        ts = self.index.ts
        # Equal times: the later record first (nlargest keeps the input order of ties).
        return heapq.nlargest(n, reversed(docs), key=ts.__getitem__)

    def fact(self, doc: int) -> tuple[Any, ...]:
        return self.index.facts.get(doc, ())

    def read(self, doc: int) -> Any:
        return self.index.fetch(self.store, doc)
