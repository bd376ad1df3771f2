"""The record model: one dataclass per kind, each declaring its storage in one place.

A kind's ``Kind`` spec says its id prefix, component, storage shape and the
fields that search and display use; its dataclass fields are the schema. Unknown
keys read from disk are kept in ``extra`` and written back, so a newer lore's
fields survive an older lore.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple, TypeVar

SCHEMA_VERSION = 1

HIDDEN_STATUSES = frozenset({"retracted", "superseded", "archived"})
ARCHIVED = "archived"  # lore archive: settled, out of the default views (lore.dynamics)


# --- storage shapes -----------------------------------------------------------------
# Small immutable values are NamedTuples, not frozen dataclasses: every dataclass costs
# start-up time (it compiles its methods at import), and these load on every command.


class Log(NamedTuple):
    """Append-only JSONL: one record per line, changes appended as revision lines."""

    file: str


class Dir(NamedTuple):
    """One document per record: ``<dir>/<id><suffix>`` (YAML or JSON).

    ``events``: an append-only JSONL file beside the folder for what two clones may do
    to one record at once (validate, flag a pattern): a document edited on two clones
    merges into one change, lines in a union-merged log never do. Readers fold each
    record's events into its document (``Record.fold_events``).
    """

    dir: str
    suffix: str  # ".yaml" or ".json"
    events: str | None = None


class Map(NamedTuple):
    """One hand-editable YAML file holding a mapping of records keyed by name."""

    file: str
    key: str


class Kind(NamedTuple):
    name: str
    prefix: str | None  # None: the record is keyed by name (registry projects)
    component: str
    storage: Log | Dir | Map
    title: str  # the field that names the record in one line
    search: tuple[str, ...] = ()  # text fields recall searches


# --- field helpers ------------------------------------------------------------------


def text(default: str = "", *, required: bool = False, choices: tuple[str, ...] = ()) -> Any:
    return field(default=default, metadata={"required": required, "choices": choices})


def texts(*, ref: str | None = None) -> Any:
    """A list of strings; ``ref`` names the kind (or ``any``) its items point at."""
    return field(default_factory=list, metadata={"ref": ref})


def ref(kind: str = "any") -> Any:
    """An optional id of another record."""
    return field(default=None, metadata={"ref": kind})


# Checkers for the annotation strings used by record fields.
_CHECKS: dict[str, Callable[[Any], bool]] = {
    "str": lambda v: isinstance(v, str),
    "str | None": lambda v: v is None or isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "float | None": lambda v: (
        v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
    ),
    "bool": lambda v: isinstance(v, bool),
    "list[str]": lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
    "list[dict[str, Any]]": lambda v: isinstance(v, list) and all(isinstance(i, dict) for i in v),
    "dict[str, Any]": lambda v: isinstance(v, dict),
    "dict[str, Any] | None": lambda v: v is None or isinstance(v, dict),
}
_TYPE_WORDS = {
    "str": "a string",
    "str | None": "a string or null",
    "int": "an integer",
    "float": "a number",
    "float | None": "a number or null",
    "bool": "true or false",
    "list[str]": "a list of strings",
    "list[dict[str, Any]]": "a list of objects",
    "dict[str, Any]": "an object",
    "dict[str, Any] | None": "an object or null",
}

# --- records ------------------------------------------------------------------------


@dataclass(kw_only=True, eq=False, repr=False)
class Record:
    """Fields every record has. Kind-specific fields are declared by subclasses.

    ``__eq__`` and ``__repr__`` are written once here instead of generated for every
    kind: generating them costs start-up time on each command (kinds load on demand).
    """

    KIND: ClassVar[Kind]
    # Fields two clones may set to different values at once: a log kind's revisions carry
    # the value they replaced (``was``), and ``lore.dynamics.conflicts`` names two revisions
    # that set one differently without either having seen the other.
    DIVERGENT: ClassVar[tuple[str, ...]] = ("status", "pinned")

    id: str = ""
    timestamp: str = ""
    session_id: str | None = None
    project: str | None = None
    source: str = "manual"
    tags: list[str] = field(default_factory=list)
    v: int = SCHEMA_VERSION
    extra: dict[str, Any] = field(default_factory=dict)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # mutable, like a generated dataclass

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.field_names())
        return f"{type(self).__name__}({shown})"

    # -- conversion --

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return _field_names(cls)

    @classmethod
    def fold_events(cls, state: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
        """``state`` (a document's data) with the record's ``events`` applied, oldest first
        (only kinds whose ``Dir`` has an events log have any)."""
        return state

    @classmethod
    def from_dict(cls: type[R], data: dict[str, Any]) -> R:
        """Build a record as stored, keeping unknown keys; never raises on bad values."""
        names = set(cls.field_names())
        known = {k: v for k, v in data.items() if k in names}
        extra = {k: v for k, v in data.items() if k not in names and k != "extra"}
        if isinstance(data.get("extra"), dict):
            extra = {**data["extra"], **extra}
        elif "extra" in data:  # an unknown key that happens to be called "extra"
            extra["extra"] = data["extra"]
        record = cls(**known)
        record.extra = extra
        return record

    def to_dict(self) -> dict[str, Any]:
        """The on-disk and ``--json`` shape: id, timestamp, kind fields, common fields, extras
        (a field declared ``omit_none``, such as ``provenance``, only when it is set)."""
        out: dict[str, Any] = {}
        for name in self.field_names():
            out[name] = getattr(self, name)
        for name in _omitted(type(self)):
            if out[name] is None:
                del out[name]
        out.update(self.extra)
        return out

    # -- checks --

    def problems(self) -> list[tuple[str, str]]:
        """Schema violations as ``(field, message)``; empty when the record is valid."""
        found: list[tuple[str, str]] = []
        for name, check, words, required, choices, shape in _field_checks(type(self)):
            value = getattr(self, name)
            if check is not None and not check(value):
                found.append((name, f"must be {words}"))
                continue
            if required and not (isinstance(value, str) and value.strip()):
                found.append((name, "is required and must not be empty"))
            if choices and value not in choices:
                found.append((name, f"must be one of {', '.join(choices)} (got {value!r})"))
            if shape is not None and shape(value):  # a field's own check (its metadata)
                found.append((name, shape(value)))
        if not self.id:
            found.append(("id", "is required"))
        elif not isinstance(self.id, str):
            pass  # reported above as "must be a string"
        elif self.KIND.prefix and not self.id.startswith(self.KIND.prefix + "-"):
            found.append(("id", f"must start with '{self.KIND.prefix}-'"))
        if not self.timestamp:
            found.append(("timestamp", "is required"))
        elif isinstance(self.timestamp, str):
            from lore.clock import parse_timestamp

            try:
                parse_timestamp(self.timestamp)
            except (ValueError, TypeError, AttributeError):
                found.append(("timestamp", f"is not an ISO-8601 time ({self.timestamp!r})"))
        return found

    def references(self) -> list[tuple[str, str, str]]:
        """``(field, target_id, target_kind)`` for every id this record points at."""
        refs: list[tuple[str, str, str]] = []
        for fld in dataclasses.fields(self):
            target = fld.metadata.get("ref")
            if not target:
                continue
            value = getattr(self, fld.name)
            if isinstance(value, str) and value:
                refs.append((fld.name, value, target))
            elif isinstance(value, list):
                refs.extend((fld.name, v, target) for v in value if isinstance(v, str) and v)
        return refs

    # -- display --

    @property
    def kind(self) -> str:
        return self.KIND.name

    @property
    def title(self) -> str:
        value = getattr(self, self.KIND.title, "")
        return value if isinstance(value, str) else str(value)

    @property
    def hidden(self) -> bool:
        if getattr(self, "status", None) in HIDDEN_STATUSES:
            return True
        return self.retracted or self.archived

    @property
    def archived(self) -> bool:
        """Moved out of the default views by ``lore archive``: status ``archived`` (kinds
        without a ``status`` field keep it among their extra keys)."""
        return getattr(self, "status", self.extra.get("status")) == ARCHIVED

    @property
    def retracted(self) -> bool:
        """Withdrawn by ``lore retract``: status ``retracted`` for kinds whose status
        allows it, else (failure, observation, evidence) a non-empty ``retracted_at``."""
        if retracts_by_status(type(self)):
            return getattr(self, "status", None) == "retracted"
        return bool(self.extra.get("retracted_at"))

    def search_text(self) -> str:
        parts: list[str] = []
        for name in self.KIND.search:
            value = getattr(self, name, None)
            if isinstance(value, str):
                parts.append(value)
            elif isinstance(value, list):
                parts.extend(v for v in value if isinstance(v, str))
        return "\n".join(p for p in parts if p)


R = TypeVar("R", bound=Record)

_BY_STATUS: dict[type, bool] = {}


def retracts_by_status(cls: type) -> bool:
    """Whether ``cls`` has a ``status`` field that can be ``retracted``."""
    cached = _BY_STATUS.get(cls)
    if cached is None:
        status = next((f for f in dataclasses.fields(cls) if f.name == "status"), None)
        cached = _BY_STATUS[cls] = status is not None and "retracted" in (
            status.metadata.get("choices") or ()
        )
    return cached


_Check = tuple[str, Any, str, bool, tuple[str, ...], Any]
_FIELD_CHECKS: dict[type, tuple[_Check, ...]] = {}
_OMITTED: dict[type, tuple[str, ...]] = {}


def _field_checks(cls: type) -> tuple[_Check, ...]:
    """``(name, check, type words, required, choices, shape)`` per field (``shape``: the
    field's own check from its metadata, returning a problem or None), worked out once per
    class (``problems()`` runs for every imported line: 100,000 of them in a bulk import)."""
    cached = _FIELD_CHECKS.get(cls)
    if cached is None:
        cached = tuple(
            (
                f.name,
                _CHECKS.get(str(f.type)),
                _TYPE_WORDS.get(str(f.type), ""),
                bool(f.metadata.get("required")),
                tuple(f.metadata.get("choices") or ()),
                f.metadata.get("shape"),
            )
            for f in dataclasses.fields(cls)
            if f.name != "extra"
        )
        _FIELD_CHECKS[cls] = cached
    return cached


def _omitted(cls: type) -> tuple[str, ...]:
    cached = _OMITTED.get(cls)
    if cached is None:
        fields = dataclasses.fields(cls)
        cached = _OMITTED[cls] = tuple(f.name for f in fields if f.metadata.get("omit_none"))
    return cached


_FIELD_ORDER_CACHE: dict[type, tuple[str, ...]] = {}
_BASE_HEAD = ("id", "timestamp")


def _field_names(cls: type) -> tuple[str, ...]:
    cached = _FIELD_ORDER_CACHE.get(cls)
    if cached is None:
        names = [f.name for f in dataclasses.fields(cls) if f.name != "extra"]
        base = [f.name for f in dataclasses.fields(Record) if f.name != "extra"]
        own = [n for n in names if n not in base]
        tail = [n for n in base if n not in _BASE_HEAD]
        cached = (*_BASE_HEAD, *own, *tail)
        _FIELD_ORDER_CACHE[cls] = cached
    return cached


# --- registry of kinds --------------------------------------------------------------

_KINDS: dict[str, type[Record]] = {}
_PREFIXES: dict[str, type[Record]] = {}


def register(cls: type[R]) -> type[R]:
    spec = cls.KIND
    _KINDS[spec.name] = cls
    if spec.prefix:
        _PREFIXES[spec.prefix] = cls
    return cls


# Every kind and the component module that defines it, in the canonical order. Kinds
# load on demand: `lore observe` imports only the inbox module, not all nine (each
# dataclass costs start-up time on the capture path).
_KIND_MODULES = {
    "evidence": "evidence",
    "failure": "failures",
    "concept": "graph",
    "edge": "graph",
    "observation": "inbox",
    "goal": "intent",
    "decision": "journal",
    "pattern": "patterns",
    "anti-pattern": "patterns",
    "project": "registry",
    "session": "transfer",
}
_PREFIX_KINDS = {
    "evi": "evidence",
    "fail": "failure",
    "concept": "concept",
    "edge": "edge",
    "obs": "observation",
    "goal": "goal",
    "dec": "decision",
    "pat": "pattern",
    "anti": "anti-pattern",
    "session": "session",
}


def _ensure(kind: str) -> type[Record] | None:
    cls = _KINDS.get(kind)
    if cls is None and kind in _KIND_MODULES:
        from importlib import import_module

        import_module(f"lore.components.{_KIND_MODULES[kind]}")
        cls = _KINDS.get(kind)
    return cls


def kinds() -> dict[str, type[Record]]:
    """Every record kind, in the canonical order."""
    out = {}
    for name in _KIND_MODULES:
        cls = _ensure(name)
        assert cls is not None, name
        out[name] = cls
    return out


def kind_class(name: str) -> type[Record]:
    from lore.errors import UsageError

    key = name.strip().lower().replace("_", "-")
    key = _ALIASES.get(key, key)
    cls = _ensure(key)
    if cls is None:
        from difflib import get_close_matches

        close = get_close_matches(key, [*_KIND_MODULES, *_ALIASES], n=1, cutoff=0.75)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UsageError(
            f"unknown record kind {name!r}{hint}; expected one of "
            f"{', '.join(sorted(_KIND_MODULES))}"
        )
    return cls


def class_for_id(record_id: str) -> type[Record] | None:
    prefix, sep, _ = record_id.partition("-")
    kind = _PREFIX_KINDS.get(prefix) if sep else None
    return _ensure(kind) if kind else None


_ALIASES = {
    "decisions": "decision",
    "patterns": "pattern",
    "anti-patterns": "anti-pattern",
    "antipattern": "anti-pattern",
    "antipatterns": "anti-pattern",
    "anti": "anti-pattern",
    "failures": "failure",
    "observations": "observation",
    "evidences": "evidence",
    "goals": "goal",
    "sessions": "session",
    "projects": "project",
    "concepts": "concept",
    "edges": "edge",
}
