"""Reading a stored record whose fields were hand-edited to the wrong type: a field that is
not of its declared type (``timestamp: 12345``, ``priority: [high]``, ``depends_on: 5``)
reads as the field's default, so every reader can trust the types it sorts, slices and
joins. The file is never changed, ``lore validate`` names the field (``schema``), and the
reader is told which fields were read as defaults.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from lore.model import R

_NONE = type(None)
# Annotation -> (exact types allowed, exact type each item must have, or None).
_SHAPES: dict[str, tuple[tuple[type, ...], type | None]] = {
    "str": ((str,), None),
    "str | None": ((str, _NONE), None),
    "int": ((int,), None),
    "float": ((int, float), None),
    "float | None": ((int, float, _NONE), None),
    "bool": ((bool,), None),
    "list[str]": ((list,), str),
    "list[dict[str, Any]]": ((list,), dict),
    "dict[str, Any]": ((dict,), None),
    "dict[str, Any] | None": ((dict, _NONE), None),
}
Layout = tuple[tuple[str, tuple[type, ...], type | None, Callable[[], Any]], ...]
_LAYOUTS: dict[type, Layout] = {}


def _layout(cls: type) -> Layout:
    cached = _LAYOUTS.get(cls)
    if cached is None:
        out = []
        for f in dataclasses.fields(cls):
            shape = _SHAPES.get(str(f.type))
            if shape is None or f.name in ("extra", "id"):
                continue  # an id of the wrong type is no record: the readers say so
            if f.default_factory is not dataclasses.MISSING:
                default: Callable[[], Any] = f.default_factory
            else:
                default = _constant(f.default)
            out.append((f.name, shape[0], shape[1], default))
        cached = _LAYOUTS[cls] = tuple(out)
    return cached


def _constant(value: Any) -> Callable[[], Any]:
    return lambda: value


def stored(cls: type[R], data: dict[str, Any]) -> tuple[R, list[str]]:
    """The record ``data`` holds, with each wrongly typed field read as its default; and
    the names of those fields (empty for a record as lore writes it)."""
    record = cls.from_dict(data)
    state = record.__dict__
    wrong: list[str] = []
    for name, allowed, item, default in _layout(cls):
        value = state[name]
        if type(value) in allowed and (item is None or all(type(i) is item for i in value)):
            continue
        state[name] = default()
        wrong.append(name)
    return record, wrong


def read(cls: type[R], data: dict[str, Any]) -> R:
    """:func:`stored` without the names."""
    return stored(cls, data)[0]


def issue_text(record: Any, wrong: list[str]) -> str:
    """The warning a reader gives for the fields :func:`stored` read as defaults."""
    names = ", ".join(wrong)
    return (
        f"{record.id or '(no id)'}: {names} {'has' if len(wrong) == 1 else 'have'} the wrong "
        "type; read as the default (lore validate names it)"
    )
