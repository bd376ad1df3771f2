"""Capture's building and routing: which kind a set of flags means, and the new record
made from text plus flags, enriched (id, time, project tag, session, git commit, entities).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from lore import clock
from lore.errors import InvalidInputError, UsageError
from lore.model import Record, kind_class
from lore.store.core import Store

# The field that receives the captured TEXT, per kind.
TEXT_FIELD = {
    "decision": "decision",
    "pattern": "name",
    "anti-pattern": "name",
    "failure": "error_message",
    "observation": "content",
    "evidence": "content",
    "concept": "name",
}
CAPTURE_KINDS = tuple(TEXT_FIELD)

# Flag-implied kinds, strongest first: failure flags beat pattern flags beat
# decision flags; no such flag makes an observation.
ROUTES: tuple[tuple[str, frozenset[str]], ...] = (
    ("failure", frozenset({"error_type", "tool", "step"})),
    ("anti-pattern", frozenset({"symptom", "risk", "fix", "severity"})),
    (
        "pattern",
        frozenset(
            {"solution", "problem", "context", "category", "origin", "confidence", "examples"}
        ),
    ),
    ("evidence", frozenset({"provenance", "supports"})),
    (
        "decision",
        frozenset(
            {
                "rationale",
                "alternatives",
                "type",
                "files",
                "entities",
                "outcome",
                "lesson_learned",
                "related_decisions",
                "supersedes",
            }
        ),
    ),
    ("concept", frozenset({"description", "aliases"})),
)
# Fields whose command-line flag is not simply --<field-name> (warnings name the flag).
FLAGS = {
    "examples": "--example",
    "aliases": "--alias",
    "lesson_learned": "--lesson",
    "related_decisions": "--related",
}
# Record fields capture sets itself: no flag may set them.
NOT_FLAGS = frozenset({"id", "timestamp", "v", "tags", "project", "extra"})
# Per kind, fields only lore sets (an ingested record's provenance object; evidence's
# ``provenance`` is a plain text flag).
NOT_FLAGS_OF = {kind: frozenset({"provenance"}) for kind in ("failure", "observation")}
EVIDENCE_LEVELS = ("preliminary", "confirmed", "contested", "superseded")


class Captured(NamedTuple):
    """The record a capture made and the warnings to show with it.

    (A NamedTuple, not a dataclass: each dataclass costs start-up time on this path.)
    """

    record: Record
    warnings: list[str]


def route(kind: str | None, fields: dict[str, Any]) -> str:
    """The kind a capture makes: the explicit one, else the strongest flag family."""
    if kind:
        name = kind_class(kind).KIND.name
        if name not in CAPTURE_KINDS:
            raise UsageError(f"cannot capture a {name}; capture makes {', '.join(CAPTURE_KINDS)}")
        return name
    given = {k for k, v in fields.items() if v not in (None, "", [], ())}
    if "confidence" in given and str(fields["confidence"]).strip().lower() in EVIDENCE_LEVELS:
        given = (given - {"confidence"}) | {"provenance"}  # a level word means evidence
    for name, flags in ROUTES:
        if given & flags:
            return name
    return "observation"


def split_list(values: Iterable[str] | str | None) -> list[str]:
    """Comma-separated and repeated values as one clean, de-duplicated list."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    out: list[str] = []
    for value in values:
        for part in str(value).split(","):
            part = part.strip()
            if part and part not in out:
                out.append(part)
    return out


def detect_project(explicit: str | None = None) -> str | None:
    if explicit:
        return explicit.strip() or None
    env = os.environ.get("LORE_PROJECT")
    if env:
        return env.strip() or None
    repo = _repo()
    return repo.name if repo else None


@lru_cache(maxsize=8)
def _repo_at(cwd: str) -> Any:
    from lore.git.info import find_repo

    return find_repo(Path(cwd))


def _repo() -> Any:
    """The git repository around the working directory (cached: imports call this a lot)."""
    try:
        return _repo_at(os.getcwd())
    except OSError:
        return None


@lru_cache(maxsize=8)
def _head_at(top: str) -> str | None:
    repo = _repo_at(top)
    return repo.head() if repo else None


def current_session_id(store: Store, project: str | None = None) -> str | None:
    """The session new records belong to: ``LORE_SESSION_ID``, else this machine's open one."""
    if not os.environ.get("LORE_SESSION_ID", "").strip() and not _any_open_session(store):
        return None  # what transfer would answer, without importing it (start-up time)
    from lore.components.transfer import current_session_id as current

    return current(store, project)


def _any_open_session(store: Store) -> bool:
    """Whether this machine may have an open session: any ``open-session.*`` pointer
    (transfer keeps them in ``<local>/state/``; no pointer means no open session)."""
    try:
        names = os.listdir(os.path.join(store.root.local, "state"))
    except OSError:
        return False
    return any(name.startswith("open-session.") for name in names)


_SHAPE_WORDS = {
    "str": "a string",
    "str | None": "a string",
    "list[str]": "a string or a list of strings",
    "float": "a number",
    "float | None": "a number",
    "int": "an integer",
}


def _check_shape(cls: type[Record], kind: str, key: str, value: Any) -> None:
    """A field's value must have a type capture can read (a flag gives text; an MCP call
    or the API may give anything): otherwise a usage-level refusal naming the field."""
    import dataclasses

    annotation = next((str(f.type) for f in dataclasses.fields(cls) if f.name == key), "")
    words = _SHAPE_WORDS.get(annotation)
    if words is None:
        return
    if annotation.startswith("str"):
        ok = isinstance(value, str)
    elif annotation == "list[str]":
        ok = isinstance(value, str) or (
            isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
        )
    else:  # a number field also takes its text ("0.8"), which is parsed later
        ok = isinstance(value, (int, float, str)) and not isinstance(value, bool)
    if not ok:
        raise InvalidInputError(
            f"{kind} {key} must be {words} (got {type(value).__name__})", field=key, kind=kind
        )


def build(
    kind: str,
    text: str,
    fields: dict[str, Any],
    *,
    tags: Sequence[str] = (),
    project: str | None = None,
    source: str | None = None,
    session_id: str | None = None,
    timestamp: str | None = None,
    record_id: str | None = None,
) -> Captured:
    """Make (but do not store) the record a capture would write."""
    cls = kind_class(kind)
    warnings: list[str] = []
    names = set(cls.field_names())
    values: dict[str, Any] = {}
    foreign = []
    for key, value in fields.items():
        if value in (None, "", [], ()):
            continue
        if key == "supersedes" and kind == "decision":
            continue  # handled by capture(): it revises the older decision
        if key not in names or key in NOT_FLAGS or key in NOT_FLAGS_OF.get(kind, ()):
            foreign.append(key)
            continue
        values[key] = value
    if foreign:
        raise UsageError(_foreign_message(kind, foreign), kind=kind)
    for key, value in values.items():
        _check_shape(cls, kind, key, value)
    text = text.strip()
    if kind == "decision":
        from lore.components.journal import extract_entities, parse_inline, unique

        decision, rationale, alternatives = parse_inline(text)
        text = decision or text
        if rationale and not values.get("rationale"):
            values["rationale"] = rationale
        if alternatives and not values.get("alternatives"):
            values["alternatives"] = alternatives
        said = values.get("rationale")
        values["entities"] = unique(
            split_list(values.get("entities"))
            + split_list(values.get("files"))
            + extract_entities(text)
            + (extract_entities(said) if isinstance(said, str) else [])
        )
        values["files"] = split_list(values.get("files"))
        for key in ("alternatives", "related_decisions"):
            if key in values:
                values[key] = split_list(values[key])
    for key in ("aliases", "supports", "examples"):
        if key in values and key != "examples":
            values[key] = split_list(values[key])
        elif key in values:
            values[key] = [values[key]] if isinstance(values[key], str) else list(values[key])
    if kind == "pattern" and "confidence" in values:
        values["confidence"] = _number(values["confidence"], "confidence", kind)
    if kind == "evidence" and "confidence" in values:
        values["confidence"] = str(values["confidence"]).strip().lower()
    values[TEXT_FIELD[kind]] = text
    project = detect_project(project)
    all_tags = split_list(list(tags))
    if project and project not in all_tags:
        all_tags.append(project)
    origin: dict[str, Any] = {"source": source} if source else {}
    record = cls(
        id=record_id or clock.new_id(cls.KIND.prefix or kind),
        timestamp=clock.normalize_timestamp(timestamp) if timestamp else clock.now(),
        project=project,
        tags=all_tags,
        session_id=session_id,
        **origin,
        **values,
    )
    if kind == "decision":
        from lore.components.journal import spec_quality

        repo = _repo()
        if repo is not None and record.git_commit is None:  # type: ignore[attr-defined]
            record.git_commit = _head_at(str(repo.top))  # type: ignore[attr-defined]
        record.spec_quality = spec_quality(record)  # type: ignore[arg-type,attr-defined]
    return Captured(record, warnings)


def takes(kind: str, field: str) -> bool:
    """Whether a capture of ``kind`` takes the field flag ``field``."""
    if field == "supersedes":
        return kind == "decision"
    if field in NOT_FLAGS or field in NOT_FLAGS_OF.get(kind, ()):
        return False
    return field in kind_class(kind).field_names()


def flag_name(field: str) -> str:
    """The command-line flag that sets ``field`` (``lesson_learned``: ``--lesson``)."""
    return FLAGS.get(field, "--" + field.replace("_", "-"))


def _foreign_message(kind: str, foreign: Sequence[str]) -> str:
    """``not a flag of a failure: --solution (pattern); nothing was written``."""
    parts = []
    for key in sorted(foreign, key=flag_name):
        owners = [k for k in CAPTURE_KINDS if takes(k, key)]
        parts.append(f"{flag_name(key)} ({', '.join(owners)})" if owners else flag_name(key))
    article = "an" if kind[0] in "aeiou" else "a"
    return f"not a flag of {article} {kind}: {', '.join(parts)}; nothing was written"


def _number(value: Any, name: str, kind: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"{kind} {name} must be a number between 0 and 1 (got {value!r})",
            field=name,
            kind=kind,
        ) from None
    if not 0 <= number <= 1:  # also refuses nan
        raise InvalidInputError(
            f"{kind} {name} must be between 0 and 1 (got {value!r})", field=name, kind=kind
        )
    return number
