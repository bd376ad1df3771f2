"""``legacy_id``: the original id of a record imported from another store (bash-lore) whose
id did not fit lore's id rules. Finding a record by it, for ``show`` and ``graph``; recall
matches it as text (the index holds its words).
"""

from __future__ import annotations

from collections.abc import Callable

from lore.errors import NotFoundError
from lore.model import Record, kinds
from lore.store.core import Store

FIELD = "legacy_id"


def find(
    store: Store, legacy_id: str, narrow: Callable[[str], list[Record] | None] | None = None
) -> Record | None:
    """The record whose ``legacy_id`` is ``legacy_id`` (the oldest, should two share it).
    ``narrow``: the records that may carry it (a superset, from the index: a layer above
    this one), or None, and then every record of every kind is read."""
    if not legacy_id:
        return None
    some = narrow(legacy_id) if narrow is not None else None
    if some is not None:
        found = [r for r in some if r.extra.get(FIELD) == legacy_id]
    else:
        found = []
        for cls in kinds().values():
            for record in store.matching(cls, lambda data: data.get(FIELD) == legacy_id):
                if record.extra.get(FIELD) == legacy_id:
                    found.append(record)
    return min(found, key=lambda r: (str(r.timestamp), r.id)) if found else None


def get(
    store: Store, record_id: str, narrow: Callable[[str], list[Record] | None] | None = None
) -> Record:
    """``store.get``, falling back to a record's ``legacy_id`` (``narrow``: see ``find``);
    exit 3 when neither finds one."""
    try:
        return store.get(record_id)
    except NotFoundError:
        record = find(store, record_id, narrow)
        if record is None:
            raise
        return record
