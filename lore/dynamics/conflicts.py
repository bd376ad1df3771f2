"""Conflicts a merge leaves: a record revised on two clones with different values for one
field (its kind's ``DIVERGENT`` fields: outcome, status, confidence, pinned, ...).

Every revision of such a field records the value it replaced (``was``). Two revisions that
set the field to different values, the later one not having replaced the earlier one's
value, were made without seeing each other: git's union merge kept both lines and the
later wins silently. Such a divergence is *open* until a later revision sets the field
in turn (having seen the merged value; ``lore consolidate --apply`` writes one). Nothing
is lost: both revisions stay in the log. A revision written before lore kept ``was`` is
taken as made in turn (no false alarm on an old store).

``lore validate`` warns (``divergent-value``), ``lore resume`` shows one line,
``lore consolidate`` proposes the settlement.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any, NamedTuple

from lore.model import Log, Record, kind_class, kinds
from lore.store.core import Store


class Setting(NamedTuple):
    value: Any
    line: int
    timestamp: str


class Divergence(NamedTuple):
    id: str
    kind: str
    field: str
    first: Setting  # the earlier of the two revisions that did not see each other
    second: Setting  # the later one, whose value the fold kept

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.kind,
            "field": self.field,
            "values": [self.first.value, self.second.value],
            "kept": self.second.value,
            "lines": [self.first.line, self.second.line],
            "timestamps": [self.first.timestamp, self.second.timestamp],
        }

    def message(self) -> str:
        a, b = self.first, self.second
        return (
            f"{self.field} was set to {a.value!r} (line {a.line}, {a.timestamp}) and to "
            f"{b.value!r} (line {b.line}, {b.timestamp}) without either seeing the other "
            f"(two clones merged; lore consolidate proposes the settlement); {b.value!r}, the "
            "later, is kept: set the one that is right with a new revision"
        )


def _choices(cls: type[Record], name: str) -> tuple[Any, ...]:
    for f in dataclasses.fields(cls):
        if f.name == name:
            return tuple(f.metadata.get("choices") or ())
    return ()


def divergences(
    cls: type[Record], rid: str, revisions: list[tuple[str, int, dict[str, Any]]]
) -> list[Divergence]:
    """The open divergences of one record, from its revision lines ``(order key, line
    number, line)`` (the fold's order: timestamp, then line)."""
    out = []
    ordered = sorted(revisions, key=lambda r: (r[0], r[1]))
    for name in cls.DIVERGENT:
        allowed = _choices(cls, name)
        setting = [
            (Setting(obj["set"][name], number, str(obj.get("timestamp"))), obj.get("was"))
            for _, number, obj in ordered
            if isinstance(obj.get("set"), dict) and name in obj["set"]
        ]
        found: Divergence | None = None
        for (before, _), (after, was) in itertools.pairwise(setting):
            if not isinstance(was, dict) or name not in was or was[name] == before.value:
                found = None  # set in turn (or written before lore kept "was")
                continue
            if before.value == after.value:
                continue  # the same value on both clones: nothing to settle
            if allowed and not all(v in allowed for v in (before.value, after.value)):
                continue  # a bad value corrected: the schema check reports it
            found = Divergence(rid, cls.KIND.name, name, before, after)
        if found is not None:
            out.append(found)
    return out


def scan_rows(cls: type[Record], rows: list[tuple[int, dict[str, Any]]]) -> list[Divergence]:
    """Every open divergence in one log's parsed lines."""
    from lore.store.fold import REVISE, _order_key

    by_id: dict[str, list[tuple[str, int, dict[str, Any]]]] = {}
    seen: set[bytes] = set()
    from lore.storage import jsonl

    for number, obj in rows:
        rid = obj.get("id")
        if obj.get("_op") != REVISE or not isinstance(rid, str):
            continue
        key = jsonl.dumps(obj)
        if key in seen:  # a union merge's identical lines count once
            continue
        seen.add(key)
        by_id.setdefault(rid, []).append((_order_key(obj.get("timestamp")), number, obj))
    out = []
    for rid, items in by_id.items():
        if len(items) >= 2:
            out.extend(divergences(cls, rid, items))
    return out


def scan(store: Store) -> list[Divergence]:
    """Every open divergence in the store's logs (reads them whole)."""
    from lore.storage import jsonl

    out = []
    for cls in kinds().values():
        if not isinstance(cls.KIND.storage, Log) or not cls.DIVERGENT:
            continue
        path = store.location(cls)
        if path.is_file():
            rows, _ = jsonl.read(path)
            out.extend(scan_rows(cls, rows))
    out.sort(key=lambda d: (d.second.timestamp, d.id, d.field))
    return out


def from_index(store: Store, idx: Any) -> list[Divergence]:
    """The open divergences of the indexed records revised twice or more, reading only
    their revision lines (the index knows where each one is)."""
    import orjson

    from lore.index.columns import SEARCH_KINDS
    from lore.store.fold import _order_key

    out = []
    handles: dict[str, Any] = {}
    try:
        for doc, spans in idx.revs.items():
            if len(spans) < 2 or doc in idx.dead:
                continue
            cls = kind_class(SEARCH_KINDS[idx.kinds[doc]])
            if not isinstance(cls.KIND.storage, Log) or not cls.DIVERGENT:
                continue
            name = cls.KIND.name
            if name not in handles:
                handles[name] = open(store.location(cls), "rb")  # noqa: SIM115 (closed below)
            handle = handles[name]
            items = []
            for offset, length in spans:
                handle.seek(offset)
                try:
                    obj = orjson.loads(handle.read(length))
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict):
                    items.append((_order_key(obj.get("timestamp")), offset, obj))
            out.extend(divergences(cls, idx.id_of(doc), items))
    except OSError:
        return out
    finally:
        for handle in handles.values():
            handle.close()
    return [_numbered(store, d) for d in out]


def _numbered(store: Store, found: Divergence) -> Divergence:
    """``found`` with its revisions' byte offsets turned into line numbers."""
    path = store.location(kind_class(found.kind))
    try:
        with open(path, "rb") as handle:
            head = handle.read(max(found.first.line, found.second.line))
    except OSError:
        return found

    def line(offset: int) -> int:
        return head.count(b"\n", 0, offset) + 1

    return found._replace(
        first=found.first._replace(line=line(found.first.line)),
        second=found.second._replace(line=line(found.second.line)),
    )
