"""One record read from its own lines or file, without loading the rest of its kind: for a
question about a few ids on a big store (a hook, an ingestion, one revision), where loading
a 25,000-record log to answer it costs far more than the question. Part of ``Store``
(``store`` below is one; typed loosely: ``lore.store.core`` imports this module)."""

from __future__ import annotations

from typing import Any

from lore.errors import NotFoundError
from lore.model import Dir, Log, Record, class_for_id, kind_class
from lore.storage import jsonl
from lore.storage.stamp import stamp
from lore.store.coerce import stored
from lore.store.fold import fold


def logged(store: Any, cls: type[Record], record_id: str) -> Record | None:
    """The logged record ``record_id`` of ``cls``: from the kind's records when the store
    has them loaded and the log has not moved since, else folded from the lines that hold
    its id (the fold of a full read, so the same record)."""
    location = store.location(cls)
    cached = store._cache.get(cls.KIND.name)
    if cached is not None and cached[0] == stamp(location):
        found: Record | None = cached[1].get(record_id)
        return found
    states, _ = fold(jsonl.lines_with_id(location, record_id), str(location))
    data = states.get(record_id)
    return None if data is None else stored(cls, data)[0]


def peek(store: Any, record_id: str) -> Record | None:
    """What ``store.find(record_id)`` finds, without loading a kind: a logged record from
    its lines, a document from its own file (a document renamed by hand, which ``find``
    would look for in its whole folder, is not found), else a project of that name."""
    cls = class_for_id(record_id)
    project = kind_class("project")
    if cls is None or cls is project or not isinstance(cls.KIND.storage, (Log, Dir)):
        return store.find(record_id)  # the registry only: small
    found: Record | None = None
    if isinstance(cls.KIND.storage, Log):
        found = logged(store, cls, record_id)
    else:
        try:
            found = store._read_one(cls, record_id)
        except NotFoundError:  # an id that can be no file name
            found = None
    if found is not None:
        return found
    # Projects are keyed by free-form names ("fail-tools" may be one), as in ``Store.get``.
    project_record: Record | None = store._load(project).get(record_id)
    return project_record
