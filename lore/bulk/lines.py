"""One import line to one record: parse it, find its kind and id, and build and check it
exactly like a capture (schema, secrets, enrichment), the line's own fields winning.
"""

from __future__ import annotations

import dataclasses
import re
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from lore.capture.build import CAPTURE_KINDS, TEXT_FIELD, build
from lore.capture.build import split_list as _split
from lore.capture.checks import check
from lore.errors import InvalidInputError, LoreError, SecretError, UsageError
from lore.model import Record, kind_class

if TYPE_CHECKING:
    from lore.bulk.write import Existing

# The kinds a capture builds (a line gives some fields; capture's defaults fill the rest).
KINDS: tuple[str, ...] = CAPTURE_KINDS
# Kinds a line can only give whole (no capture builds them): goals, sessions, curated
# edges and projects, as `lore export` and the bash-lore importer write them.
WHOLE_KINDS: tuple[str, ...] = ("goal", "session", "edge", "project")
# Every kind `lore import` takes and `lore export` writes, in export order.
ALL_KINDS: tuple[str, ...] = (*CAPTURE_KINDS, "edge", "goal", "session", "project")
# Keys of a line that are not record fields or are set through build()'s own arguments.
_CONTROL = frozenset({"kind", "id", "timestamp", "tags", "project", "source", "session_id"})
# After the prefix: letters, digits, '-' and '_' only, so a document id is a safe file name.
_ID_TAIL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,79}")


class LineError(Exception):
    """One line's problem; becomes ``{"line": n, "error": message}``."""


# (kind, id, outcome): the Record, an error message, or None for an id already stored
# (skipped unchecked). None, not a sentinel object: it must survive pickling by workers.
Checked = tuple[str | None, str | None, Record | str | None]


@dataclass
class LineContext:
    existing: Existing
    project: str | None  # the working directory's, for lines without one
    allow_secret: bool
    # The kinds lines may have: `lore import` takes every kind (ALL_KINDS); another
    # importer may narrow them.
    kinds: tuple[str, ...] = ALL_KINDS


def check_line(raw: bytes | str | dict[str, Any], context: LineContext) -> Checked:
    """One line as ``(kind, id, outcome)``; kind and id are None when unreadable."""
    kind = record_id = None
    try:
        obj = _parse(raw)
        kind = _kind(obj, context.kinds)
        record_id = _record_id(obj, kind)
        if record_id is not None and record_id in context.existing.ids(kind):
            return kind, record_id, None
        if kind in WHOLE_KINDS:
            return kind, record_id, _whole(kind, obj, record_id, context)
        return kind, record_id, _record(kind, obj, record_id, context)
    except LineError as exc:
        return kind, record_id, str(exc)


def _record(kind: str, obj: dict[str, Any], record_id: str | None, context: LineContext) -> Record:
    """The record one import line describes, built and checked exactly like a capture.

    Fields the line carries win over capture's enrichment (verbatim; a comma
    string is accepted for a list field, and null means the default). Fields it
    leaves out get capture's values: a new id, the time now, the working
    directory's project (and its tag) and git commit, a decision's entities and
    spec quality, and inline ``because:``/``vs:`` parsing (only when the line has
    neither ``rationale`` nor ``alternatives``). A line is never attached to the
    current session. Unknown keys are kept in ``extra``.
    """
    spec = _spec(kind)
    cwd = context.project
    given: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in obj.items():
        if key in _CONTROL:
            continue
        if key == "message" and kind == "failure" and "error_message" not in obj:
            key = "error_message"
        if key in spec.types:
            given[key] = value
        elif key == "extra" and isinstance(value, dict):
            extra.update(value)
        else:
            extra[key] = value
    text = given.pop(spec.text_field, None)
    if text is not None and not isinstance(text, str):
        raise LineError(f"{spec.text_field} must be a string")
    timestamp = obj.get("timestamp")
    if timestamp is not None and not isinstance(timestamp, str):
        raise LineError("timestamp must be a string")
    line_project = obj.get("project")
    tags = obj.get("tags")
    source = obj.get("source")
    # build() gets what it derives or normalises values from; the rest is set after it.
    fields = {k: given[k] for k in spec.build_keys & given.keys() if _buildable(given[k], spec, k)}
    try:
        captured = build(
            kind,
            text or "",
            fields,
            tags=_split(tags) if isinstance(tags, str) else (),
            project=line_project if isinstance(line_project, str) and line_project else cwd,
            source=source if isinstance(source, str) else None,
            session_id=None,
            timestamp=timestamp,  # build() rewrites it in canonical form
            record_id=record_id,
        )
    except LoreError as exc:
        raise LineError(_without_kind(exc.message, kind)) from None
    except (ValueError, TypeError) as exc:  # the timestamp's parsing raises these
        if timestamp is None:
            raise LineError(f"cannot build the record: {exc}") from exc
        raise LineError(f"timestamp is not an ISO-8601 time ({timestamp!r})") from None
    record = captured.record
    # The line wins: overwrite what build() derived or defaulted with what was given.
    for key, value in given.items():
        if value is None and key not in spec.nullable:
            continue  # null means "the default" for a field that cannot be null
        if isinstance(value, str):
            if key in spec.lists:
                # A comma string is a list, except examples: each is a sentence (as capture).
                value = [value] if key == "examples" else _split(value)
            elif key == "confidence":
                continue  # build() parsed it (pattern: a number; evidence: a lower-case level)
        setattr(record, key, value)
    if text is not None:
        if kind != "decision":
            setattr(record, spec.text_field, text)  # verbatim: build() stripped it
        elif "rationale" in given or "alternatives" in given:
            # Explicit fields: no inline because:/vs: parsing of the text.
            record.decision = text  # type: ignore[attr-defined]
            if "rationale" not in given:
                record.rationale = ""  # type: ignore[attr-defined]
            if "alternatives" not in given:
                record.alternatives = []  # type: ignore[attr-defined]
        elif record.decision == text.strip():  # type: ignore[attr-defined]
            record.decision = text  # type: ignore[attr-defined]
    if "project" in obj:  # the line's project (even null) and its tags, exactly
        record.project = line_project
        if "tags" not in obj:
            record.tags = [line_project] if isinstance(line_project, str) and line_project else []
    if "tags" in obj:
        record.tags = _split(tags) if isinstance(tags, str) else tags if tags is not None else []
        cwd_project = record.project if "project" not in obj else None
        if cwd_project and isinstance(record.tags, list) and cwd_project not in record.tags:
            record.tags = [*record.tags, cwd_project]  # as capture tags the cwd's project
    if source is not None:
        record.source = source
    if "session_id" in obj:
        record.session_id = obj["session_id"]
    if kind == "decision" and "spec_quality" not in given:
        from lore.components.journal import spec_quality

        with suppress(AttributeError, TypeError):  # a badly typed field: check() names it
            record.spec_quality = spec_quality(record)  # type: ignore[arg-type,attr-defined]
    record.extra = extra
    try:
        check(record, allow_secret=context.allow_secret)
    except SecretError as exc:
        raise LineError(_secret_message(record, exc)) from None
    except InvalidInputError as exc:
        raise LineError(_without_kind(exc.message, kind)) from None
    return record


def _whole(kind: str, obj: dict[str, Any], record_id: str | None, context: LineContext) -> Record:
    """A record given whole (a goal, session, edge or project): read as the store reads it,
    its timestamp made canonical, then checked like a capture (schema, secrets gate)."""
    from lore import clock

    data = {k: v for k, v in obj.items() if k != "kind"}
    cls = _spec(kind).cls
    if record_id is None:
        data["id"] = clock.new_id(cls.KIND.prefix or kind)
    timestamp = data.get("timestamp")
    if timestamp is None:
        data["timestamp"] = clock.now()
    elif not isinstance(timestamp, str):
        raise LineError("timestamp must be a string")
    else:
        try:
            data["timestamp"] = clock.normalize_timestamp(timestamp)
        except ValueError:
            raise LineError(f"timestamp is not an ISO-8601 time ({timestamp!r})") from None
    record = cls.from_dict(data)
    try:
        check(record, allow_secret=context.allow_secret)
    except SecretError as exc:
        raise LineError(_secret_message(record, exc)) from None
    except InvalidInputError as exc:
        raise LineError(_without_kind(exc.message, kind)) from None
    return record


def _without_kind(message: str, kind: str) -> str:
    """capture's "decision rationale must be ..." as "rationale must be ..." (the line says)."""
    prefix = f"{kind} "
    return message[len(prefix) :] if message.startswith(prefix) else message


def _parse(raw: bytes | str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise LineError(f"invalid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise LineError(f"expected a JSON object, got {type(obj).__name__}")
    return obj


def _kind(obj: dict[str, Any], kinds: tuple[str, ...] = ALL_KINDS) -> str:
    value = obj.get("kind")
    if isinstance(value, str) and value in kinds:
        return value
    if not isinstance(value, str) or not value.strip():
        raise LineError(f"kind is required (one of {', '.join(kinds)})")
    try:
        name = kind_class(value).KIND.name
    except UsageError:
        raise LineError(f"unknown kind {value!r} (expected one of {', '.join(kinds)})") from None
    if name not in kinds:
        raise LineError(f"cannot import a {name} (import takes {', '.join(kinds)})")
    return name


def _record_id(obj: dict[str, Any], kind: str) -> str | None:
    value = obj.get("id")
    if kind == "project":  # keyed by its name
        name = obj.get("name")
        if not isinstance(name, str) or not name.strip() or (value not in (None, name)):
            raise LineError("a project line needs a name (its id)")
        return name
    if value is None:
        return None
    if kind == "session":
        from lore.components.transfer import SESSION_ID_RE

        if not isinstance(value, str) or not SESSION_ID_RE.match(value):
            raise LineError(
                f"id must be 'session-' then 4 to 64 lowercase letters, digits or '-' "
                f"(got {value!r})"
            )
        return value
    prefix = _spec(kind).prefix
    if (
        not isinstance(value, str)
        or not value.startswith(f"{prefix}-")
        or not _ID_TAIL.fullmatch(value[len(prefix) + 1 :])
    ):
        raise LineError(
            f"id must be '{prefix}-' then letters, digits, '-' or '_' (got {value!r}); "
            "leave it out to get a new id"
        )
    return value


def canonical(raw: bytes | str | dict[str, Any]) -> bytes:
    """A (parseable) line's content, whatever its key order and spacing."""
    return orjson.dumps(_parse(raw), option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


@dataclass(frozen=True)
class _Spec:
    """What import needs to know about one kind, worked out once."""

    cls: type[Record]
    prefix: str
    text_field: str
    types: dict[str, str]  # field -> annotation ("list[str]"), as the model checks them
    lists: frozenset[str]
    nullable: frozenset[str]
    build_keys: frozenset[str]


# Per kind, the fields build() derives other values from or normalises.
_BUILD_KEYS = {
    "decision": frozenset({"rationale", "alternatives", "entities", "files"}),
    "pattern": frozenset({"confidence", "examples"}),
    "evidence": frozenset({"confidence", "supports"}),
    "concept": frozenset({"aliases"}),
}
_SPECS: dict[str, _Spec] = {}


def _spec(kind: str) -> _Spec:
    spec = _SPECS.get(kind)
    if spec is None:
        cls = kind_class(kind)
        types = {f.name: str(f.type) for f in dataclasses.fields(cls) if f.name != "extra"}
        spec = _SPECS[kind] = _Spec(
            cls=cls,
            prefix=cls.KIND.prefix or kind,
            text_field=TEXT_FIELD.get(kind, cls.KIND.title),
            types=types,
            lists=frozenset(k for k, t in types.items() if t == "list[str]"),
            nullable=frozenset(k for k, t in types.items() if "None" in t),
            build_keys=_BUILD_KEYS.get(kind, frozenset()),
        )
    return spec


def _buildable(value: Any, spec: _Spec, key: str) -> bool:
    """Whether build() can take ``value`` safely; anything else is set verbatim after it."""
    if key in spec.lists:
        return isinstance(value, str) or (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        )
    if key == "confidence":
        return isinstance(value, (str, int, float)) and not isinstance(value, bool)
    return isinstance(value, str)


def _secret_message(record: Record, exc: SecretError) -> str:
    findings = exc.details.get("findings") or [
        {"field": exc.details.get("field"), "rule": exc.details.get("secret"), "kind": "secret"}
    ]
    first = findings[0]
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    return (
        f"{record.kind} {first['field']} looks like it holds a {first['kind']} "
        f"(rule {first['rule']}){more}; pass --allow-secret if it is not a real credential"
    )
