"""Reading the records behind an index's record numbers from their own lines or file
(``fetch``, ``fetch_many``), never folding a whole log: a layer of the ``Index`` class."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import orjson

from lore.errors import LoreError
from lore.index.columns import Columns
from lore.model import Dir, Log, Record, kind_class
from lore.store.coerce import read
from lore.store.core import Store
from lore.store.documents import read_fast
from lore.store.events import folded
from lore.store.fold import fold


class Readable(Columns):
    """The columns, and the records behind them."""

    def fetch_many(self, store: Store, docs: Sequence[int]) -> list[Record]:
        """``fetch`` of each of ``docs``, in their order; a log's records read through one
        open file, in the order they sit in it (a timeline's day lists 200)."""
        found: dict[int, Record] = {}
        logs: dict[type[Record], list[int]] = {}
        for doc in docs:
            cls = kind_class(self.kind_of(doc))
            if isinstance(cls.KIND.storage, Log) and doc not in found:
                logs.setdefault(cls, []).append(doc)
        for cls, wanted in logs.items():
            location = store.location(cls)
            with contextlib.suppress(OSError), open(location, "rb") as handle:
                for doc in sorted(set(wanted), key=self.off.__getitem__):
                    with contextlib.suppress(OSError, ValueError, KeyError, LoreError):
                        record = self._from_log(handle, location, cls, doc)
                        if record.id == self.id_of(doc):
                            found[doc] = record
        return [found.get(doc) or self.fetch(store, doc) for doc in docs]

    def _from_log(self, handle: Any, location: Any, cls: type[Record], doc: int) -> Record:
        """The record ``doc`` of a log, folded from its lines (``handle``: the open log)."""
        rows = []
        for offset, length in ((self.off[doc], self.ln[doc]), *self.revs.get(doc, ())):
            handle.seek(offset)
            rows.append((offset, orjson.loads(handle.read(length))))
        states, _ = fold(rows, str(location))
        return read(cls, states[self.id_of(doc)])

    def fetch(self, store: Store, doc: int) -> Record:
        """The full record behind ``doc``, read from its own lines or file only."""
        cls = kind_class(self.kind_of(doc))
        location = store.location(cls)
        record: Record | None = None
        with contextlib.suppress(OSError, ValueError, KeyError, LoreError):
            storage = cls.KIND.storage
            if isinstance(storage, Log):
                with open(location, "rb") as handle:
                    record = self._from_log(handle, location, cls, doc)
            elif isinstance(storage, Dir):
                name = self.files.get(doc) or self.id_of(doc) + storage.suffix
                record = read(cls, read_fast(location / name))
                record.id = record.id or name[: -len(storage.suffix)]
                record = folded(store, cls, record)
        if record is None or record.id != self.id_of(doc):
            return store.get(self.id_of(doc))  # the file moved under us: the slow, sure way
        return record
