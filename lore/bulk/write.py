"""The interruptible batch writer of an import: records stored a batch at a time, each
batch checked under its write locks against ids another writer stored meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable

from lore.capture.checks import normalize
from lore.errors import DataError
from lore.model import Record, kind_class
from lore.store.core import Store

Progress = Callable[[str, int, int], None]  # (phase "check" | "write", done, total)


def write_batches(
    store: Store,
    records: list[Record],
    existing: Existing,
    progress: Progress | None,
    stop: Callable[[], bool] | None,
    chunk: int,
) -> None:
    """Store ``records`` batch by batch, stopping cleanly between batches when asked."""
    from functools import partial

    from lore.errors import InterruptedByUser

    total = len(records)
    if progress is not None:
        progress("write", 0, total)
    written = 0
    for start in range(0, total, chunk):
        if stop is not None and stop():
            raise InterruptedByUser(
                f"import interrupted: wrote {written} of {total} records; run the same "
                "import again to finish it (records already stored are skipped)",
                written=written,
                total=total,
                ids=[r.id for r in records[:written]],
            )
        batch = records[start : start + chunk]
        store.add(
            batch,
            guard=partial(existing.recheck, batch),
            progress=None if progress is None else partial(_report, progress, written, total),
        )
        written += len(batch)


def _report(progress: Progress, before: int, total: int, done: int) -> None:
    progress("write", before + done, total)


class Existing:
    """Ids and active titles already in the store, read once per kind."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._ids: dict[str, set[str]] = {}
        self._titles: dict[str, set[str]] = {}
        self._offsets: dict[str, int] = {}  # log kind -> bytes already checked
        self.written = 0  # records of this import stored so far

    def ids(self, kind: str) -> set[str]:
        found = self._ids.get(kind)
        if found is None:
            found = self._ids[kind] = {r.id for r in self.store.records(kind, hidden=True)}
        return found

    def titles(self, kind: str) -> set[str]:
        found = self._titles.get(kind)
        if found is None:
            records = self.store.records(kind)
            found = self._titles[kind] = {normalize(r.title) for r in records}
        return found

    def recheck(self, records: list[Record]) -> None:
        """Under the write locks: did another writer store one of these ids meanwhile?

        A log is read whole once, then only from where the previous check left it (the
        import's own earlier batch and whatever others appended since), so checking
        batch after batch stays linear in the size of the import.
        """
        for kind in {r.kind for r in records} & self._ids.keys():
            now = self._stored_ids(kind)
            if now != self._ids[kind]:
                clash = sorted(r.id for r in records if r.kind == kind and r.id in now)
                if clash:
                    done = (
                        "nothing was imported"
                        if not self.written
                        else (f"the {self.written} records before it are stored")
                    )
                    raise DataError(
                        f"another writer stored {clash[0]} while this import ran; {done}; "
                        "run it again (stored ids are skipped)",
                        id=clash[0],
                    )
        self.written += len(records)
        for record in records:  # about to be written: known from now on
            self._ids.setdefault(record.kind, set()).add(record.id)

    def _stored_ids(self, kind: str) -> set[str]:
        from lore.model import Log
        from lore.storage import jsonl

        cls = kind_class(kind)
        path = self.store.location(cls)
        offset = self._offsets.get(kind)
        if not isinstance(cls.KIND.storage, Log) or offset is None or not path.is_file():
            ids = {r.id for r in self.store.records(kind, hidden=True)}
            if isinstance(cls.KIND.storage, Log) and path.is_file():
                self._offsets[kind] = path.stat().st_size
            return ids
        with open(path, "rb") as handle:
            handle.seek(offset)
            tail = handle.read()
        self._offsets[kind] = offset + len(tail)
        rows, _ = jsonl.parse(tail, str(path))
        fresh = {obj["id"] for _, obj in rows if isinstance(obj.get("id"), str)}
        return self._ids[kind] | fresh
