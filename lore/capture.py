"""Capture: turn text plus flags into one new record, and store it safely.

Owns the routing rules (which kind a set of flags means), the checks every write
passes (schema, secrets gate, near-duplicates) and the enrichment of a new record
(id, time, project tag, session, git commit, decision entities and spec quality).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from lore import clock
from lore.errors import DuplicateError, InvalidInputError, SecretError, UsageError
from lore.model import Record, kind_class
from lore.store import Store

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
EVIDENCE_LEVELS = ("preliminary", "confirmed", "contested", "superseded")
DEDUPE_KINDS = ("decision", "pattern", "anti-pattern")
# Kinds checked for near-duplicates by their own commands, not by capture (no index titles).
OTHER_DEDUPE_KINDS = ("goal",)
SIMILARITY_THRESHOLD = 92.0  # rapidfuzz token_sort_ratio, 0-100


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
    from lore.gitinfo import find_repo

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
        if key not in names or key in NOT_FLAGS:
            foreign.append(key)
            continue
        values[key] = value
    if foreign:
        raise UsageError(_foreign_message(kind, foreign), kind=kind)
    text = text.strip()
    if kind == "decision":
        from lore.components.journal import extract_entities, parse_inline, unique

        decision, rationale, alternatives = parse_inline(text)
        text = decision or text
        if rationale and not values.get("rationale"):
            values["rationale"] = rationale
        if alternatives and not values.get("alternatives"):
            values["alternatives"] = alternatives
        values["entities"] = unique(
            split_list(values.get("entities"))
            + split_list(values.get("files"))
            + extract_entities(text)
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
    return field not in NOT_FLAGS and field in kind_class(kind).field_names()


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


def check(record: Record, *, allow_secret: bool = False) -> None:
    """Schema and secrets checks every new record passes before it is written."""
    problems = record.problems()
    if problems:
        name, message = problems[0]
        raise InvalidInputError(f"{record.kind} {name} {message}", field=name, kind=record.kind)
    if not allow_secret:
        data = record.to_dict()
        for key in ("id", "timestamp", "v", "git_commit"):
            data.pop(key, None)
        gate(data)


def gate(data: dict[str, Any]) -> None:
    """The secrets gate: refuse ``data`` (field -> text) if a value looks like a credential.

    Every path that writes new text calls this (through :func:`check` for new records).
    """
    from lore.secrets import scan_fields

    findings = scan_fields(data)
    if findings:
        first = findings[0]
        raise SecretError(
            f"refusing to write: {first.field} looks like it holds a secret ({first.kind}); "
            "remove it, or pass --allow-secret if this is not a real credential",
            field=first.field,
            secret=first.rule,
            findings=[{"field": f.field, "rule": f.rule, "kind": f.kind} for f in findings],
        )


def check_references(store: Store, record: Record) -> None:
    """Every id a new record points at must exist (and be of the right kind)."""
    for name, target, kind in record.references():
        found = store.find(target)
        if found is None:
            raise InvalidInputError(
                f"{record.kind} {name}: no record with id {target!r}", field=name, id=target
            )
        if kind != "any" and found.kind != kind:
            raise InvalidInputError(
                f"{record.kind} {name}: {target} is {'an' if found.kind[0] in 'aeiou' else 'a'} "
                f"{found.kind}, not a {kind}",
                field=name,
                id=target,
            )


def find_duplicate(store: Store, record: Record, *, ignore: Iterable[str] = ()) -> Record | None:
    """An active record of the same kind whose title is the same or nearly the same.

    ``ignore``: ids that do not count (the decision a new one supersedes).
    """
    if record.kind not in DEDUPE_KINDS and record.kind not in OTHER_DEDUPE_KINDS:
        return None
    target = normalize(record.title)
    if not target:
        return None
    skip = set(ignore)
    index = warm_index(store, record.kind) if record.kind in DEDUPE_KINDS else None
    if index is not None:  # a warm index holds every title: no log to read
        return _duplicate_in_index(store, index, record.kind, target, skip)
    title_field = record.KIND.title

    def may_match(state: dict[str, Any]) -> bool:
        title = state.get(title_field)
        # Not a string (or absent): the record's title says; it is checked below.
        return not isinstance(title, str) or _within_reach(target, normalize(title))

    existing = [
        r for r in store.matching(record.kind, may_match) if not r.hidden and r.id not in skip
    ]
    found = _closest(target, [normalize(r.title) for r in existing])
    return None if found is None else existing[found]


def _closest(target: str, titles: list[str]) -> int | None:
    """The position of the first title equal to ``target``, else of the first best one
    scoring at least SIMILARITY_THRESHOLD, else None."""
    try:
        return titles.index(target)
    except ValueError:
        pass
    # Only titles that can reach the threshold go to rapidfuzz (in their order, so the
    # first of equally good matches still wins); often none do, and it is not imported.
    # Reach depends on the length alone: compare lengths (a store has 20,000 titles).
    lo, hi = _reach(len(target))
    near = [i for i, n in enumerate(map(len, titles)) if lo <= n <= hi]
    if not near:
        return None
    from rapidfuzz import fuzz, process

    match = process.extractOne(
        target,
        [titles[i] for i in near],
        scorer=fuzz.token_sort_ratio,
        score_cutoff=SIMILARITY_THRESHOLD,
    )
    return near[match[2]] if match else None


def normalize(text: str) -> str:
    """A title as the near-duplicate check compares it (``lore.search.normalize``, which
    the index uses too; imported on first use, off the plain capture path)."""
    from lore.search import normalize as normalized

    return normalized(text)


def warm_index(store: Store, kind: str) -> Any:
    """The search index with ``kind`` up to date (in memory), or None when this machine
    has none yet: then the caller reads the files, and ``lore.index`` is not imported."""
    index_file = store.root.index_file
    if not index_file.is_file():
        return None
    from lore.index import current

    if kind != "decision":
        return current(store, (kind,))
    from lore.store import _stamp

    # A decision's capture asks twice (duplicates, then contradictions) with nothing
    # written in between: the second gets the same index instead of loading it again.
    key = (_stamp(index_file), _stamp(store.location(kind)))
    if _WARM and _WARM[0] is store and _WARM[1] == key:
        return _WARM[2]
    index = current(store, (kind,))
    _WARM[:] = [store, key, index]
    return index


_WARM: list[Any] = []  # [store, (index file stamp, decision log stamp), index]


def _duplicate_in_index(
    store: Store, index: Any, kind: str, target: str, skip: set[str]
) -> Record | None:
    """``find_duplicate`` on the index's titles, in the order the store lists records
    (a log's by creation line, documents by time), so the same record is reported."""
    titles, ts, off = index.titles, index.ts, index.off
    # Only titles that could match are put in the store's order (sorting 20,000 decisions
    # for every capture would cost more than the whole check).
    lo, hi = _reach(len(target))
    docs = index.docs(kind)
    docs = [d for d, n in zip(docs, map(len, map(titles.__getitem__, docs))) if lo <= n <= hi]
    if kind == "decision":
        docs.sort(key=off.__getitem__)
    else:
        docs.sort(key=lambda d: (ts[d], index.id_of(d)))
    if skip:
        docs = [d for d in docs if index.id_of(d) not in skip]
    found = _closest(target, [titles[d] for d in docs])
    return None if found is None else index.fetch(store, docs[found])


def _reach(a: int) -> tuple[int, int]:
    """The lengths a title needs to be within reach of a target of length ``a``."""
    lo = int(SIMILARITY_THRESHOLD * a / (200 - SIMILARITY_THRESHOLD))
    hi = int((200 - SIMILARITY_THRESHOLD) * a / SIMILARITY_THRESHOLD) + 1
    # The float bounds are close; settle them on the exact test.
    while lo > 0 and _within_reach("x" * a, "x" * (lo - 1)):
        lo -= 1
    while not _within_reach("x" * a, "x" * lo):
        lo += 1
    while not _within_reach("x" * a, "x" * hi):
        hi -= 1
    return lo, hi


def _within_reach(target: str, title: str) -> bool:
    """Whether ``title`` can score ``SIMILARITY_THRESHOLD`` against ``target`` at all.

    token_sort_ratio is 200 * common / (a + b) for lengths a and b (normalized text is
    single-spaced, so sorting its words keeps its length), and the common part is at
    most the shorter: titles much longer or shorter than the target never match.
    """
    a, b = len(target), len(title)
    return 200 * min(a, b) >= SIMILARITY_THRESHOLD * (a + b)


def capture(
    store: Store,
    text: str,
    *,
    kind: str | None = None,
    fields: dict[str, Any] | None = None,
    tags: Sequence[str] = (),
    project: str | None = None,
    source: str | None = None,
    force: bool = False,
    allow_secret: bool = False,
    timestamp: str | None = None,
) -> Captured:
    """Route, build, check and store one record; returns it with any warnings."""
    _head_at.cache_clear()  # HEAD may have moved since the last capture in this process
    fields = dict(fields or {})
    if not text or not text.strip():
        raise UsageError("nothing to capture: the text is empty")
    name = route(kind, fields)
    if name == "failure" and isinstance(fields.get("error_type"), str):
        from lore.components.failures import canonical_type

        fields["error_type"] = canonical_type(fields["error_type"].strip())
    captured = build(
        name,
        text,
        fields,
        tags=tags,
        project=project,
        source=source,
        session_id=current_session_id(store, detect_project(project)),
        timestamp=timestamp,
    )
    record = captured.record
    check(record, allow_secret=allow_secret)
    check_references(store, record)
    if name == "failure":
        from lore.failure_rules import type_warnings

        captured.warnings.extend(type_warnings(store, record))
    supersedes = fields.get("supersedes") if name == "decision" else None
    if supersedes:
        old = store.get(supersedes)
        if old.kind != "decision":
            raise InvalidInputError(f"--supersedes needs a decision id, got {old.kind} {old.id}")
        record.supersedes = [supersedes]  # type: ignore[attr-defined]
    # Only a decision naming two entities can contradict one (lore.usecases.contradictions).
    contradicting = name == "decision" and len(record.entities) >= 2  # type: ignore[attr-defined]

    def guard() -> None:
        if not force:
            # The decision being superseded is meant to read alike: it is not a duplicate.
            duplicate = find_duplicate(store, record, ignore=[supersedes] if supersedes else [])
            if duplicate is not None:
                raise DuplicateError(
                    f"a near-duplicate {record.kind} already exists: {duplicate.id} "
                    f"({duplicate.title[:80]!r}); pass --force to record it anyway",
                    existing_id=duplicate.id,
                )
        if contradicting:
            from lore.usecases.contradictions import find_contradictions

            found = find_contradictions(store, record, ignore=[supersedes] if supersedes else [])
            record.contradicts = [r.id for r, _ in found]  # type: ignore[attr-defined]
            captured.warnings.extend(
                f"contradicts {r.id} ({r.title[:60]!r}): both name {', '.join(shared)}; "
                f"if it replaces it: lore journal supersede {r.id} --by {record.id}"
                for r, shared in found
            )

    store.add([record], guard=guard)
    if contradicting and record.contradicts:  # type: ignore[attr-defined]
        from lore.usecases.contradictions import record_edges

        record_edges(store, record)
    if supersedes:
        store.revise(supersedes, {"status": "superseded", "superseded_by": record.id})
    return captured
