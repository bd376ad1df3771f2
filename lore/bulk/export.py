"""Bulk export: every importable record's latest state as one JSONL line each, so that
importing the file reproduces the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from lore.bulk.lines import KINDS
from lore.errors import UsageError
from lore.model import kind_class
from lore.store.core import Store


def export_records(
    store: Store, kinds: Iterable[str] | None = None, include_hidden: bool = True
) -> Iterator[dict[str, Any]]:
    """Every record of ``kinds`` (default: all importable) as ``{"kind": ..., **to_dict()}``.

    Kinds come in a fixed order (decision, pattern, anti-pattern, failure,
    observation, evidence, concept), each kind's records oldest first, each in its
    latest (folded) state; revision history is not carried.
    """
    for kind in export_kinds(kinds):
        found = store.records(kind, hidden=include_hidden)
        for record in sorted(found, key=lambda r: str(r.timestamp or "")):
            data = record.to_dict()
            data.pop("kind", None)  # an extra key called "kind" cannot survive import
            yield {"kind": kind, **data}


def export_kinds(kinds: Iterable[str] | None = None) -> list[str]:
    """The importable kinds named in ``kinds`` (singular or plural), in export order."""
    if kinds is None:
        return list(KINDS)
    wanted = set()
    for name in kinds:
        canonical = kind_class(name).KIND.name
        if canonical not in KINDS:
            raise UsageError(f"cannot export {name}: export writes {', '.join(KINDS)}")
        wanted.add(canonical)
    return [k for k in KINDS if k in wanted]


def dumps_line(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS) + b"\n"
