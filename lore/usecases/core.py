"""The use cases behind the core commands (capture and its shortcuts, retract, handoff,
resume, show, review, recall), each returning the command's ``--json`` document
(LORE_CONTRACT.md §8). ``lore.cli`` renders these documents; ``lore.mcp`` returns them as
they are, so a shell user and an agent get the same answer from the same code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from lore.errors import UsageError
from lore.model import Record
from lore.process import one_shot
from lore.store.core import Store
from lore.usecases.common import reply

RECALL_MODES = ("patterns", "failures", "triggers", "brief")
DEFAULT_THRESHOLD = 3


class Written(NamedTuple):
    """A write's JSON document, the record it wrote and the warnings to show with it."""

    doc: dict[str, Any]
    record: Record
    warnings: list[str]


def capture(store: Store, text: str, **options: Any) -> Written:
    """``lore capture`` and its shortcuts: store one record (options as
    :func:`lore.capture.capture` takes them), with the Rule-of-Three count for a failure
    and the decisions a new decision contradicts."""
    from lore.capture.core import capture as _capture

    captured = _capture(store, text, **options)
    record = captured.record
    doc = reply(record)
    if record.kind == "failure":
        from lore.capture.failure_rules import rule_of_three

        rule = rule_of_three(store, record)
        if rule:
            doc["rule_of_three"] = rule
    contradicts = getattr(record, "contradicts", None)
    if contradicts:
        doc["contradicts"] = contradicts
    return Written(doc, record, captured.warnings)


def retract(
    store: Store, record_id: str, *, reason: str | None = None, allow_secret: bool = False
) -> Written:
    """``lore retract``: withdraw a record; the capture shape plus ``retracted_at``. The
    reason passes the secrets gate unless ``allow_secret``."""
    from lore.usecases.records import retract as _retract

    updated, when = _retract(store, record_id, reason=reason, allow_secret=allow_secret)
    doc = {
        "ok": True,
        "id": updated.id,
        "type": updated.kind,
        "timestamp": updated.timestamp,
        "retracted_at": when,
        "record": updated.to_dict(),
    }
    return Written(doc, updated, [])


def handoff(
    store: Store,
    message: str,
    *,
    project: str | None = None,
    next_steps: Sequence[str] = (),
    blockers: Sequence[str] = (),
    questions: Sequence[str] = (),
    threads: Sequence[str] = (),
    replace: bool = False,
    merge: bool = False,
    allow_secret: bool = False,
) -> Written:
    """``lore handoff``: close the current session with ``message`` and the open items
    (through the secrets gate unless ``allow_secret``); the document says what happened
    to the open items the session inherited (``open_items``). ``merge`` keeps the last
    handoff's open items and adds these; ``replace`` and ``merge`` exclude each other."""
    if replace and merge:
        raise UsageError("--replace and --merge exclude each other")
    from lore.capture.build import detect_project
    from lore.git.info import snapshot
    from lore.sessions.handoff import handoff as _handoff

    report: dict[str, Any] = {}
    session = _handoff(
        store,
        message,
        project=detect_project(project),
        next_steps=list(next_steps),
        blockers=list(blockers),
        questions=list(questions),
        threads=list(threads),
        git=snapshot(),
        replace=replace,
        merge=merge,
        report=report,
        allow_secret=allow_secret,  # the gate runs where the handoff's texts are assembled
    )
    return Written(reply(session, open_items=report), session, [])


def resume(
    store: Store,
    *,
    session_id: str | None = None,
    project: str | None = None,
    fork: bool = False,
    budget: int | None = None,
) -> tuple[str, dict[str, Any]]:
    """``lore resume``: the resume text (cut to ``budget`` tokens) and its JSON document."""
    from lore.capture.build import detect_project
    from lore.git.info import snapshot
    from lore.sessions.resume import resume as _resume
    from lore.sessions.resume_text import render

    name = detect_project(project)
    bundle = _resume(store, project=name, session_id=session_id, git=None)
    if bundle.reconstructed is not None:
        bundle.reconstructed["git"] = _project_git(store, project, name, snapshot)
    if fork:
        from lore.components.transfer import start

        parent = store.get(bundle.session["id"]) if bundle.session else None
        child = start(store, project=name, parent=parent)  # type: ignore[arg-type]
        bundle.fork = {"id": child.id, "parent": child.parent}
    text, cut = render(bundle, budget=budget)
    data: dict[str, Any] = bundle.to_dict()
    data["cut"] = cut
    return text, data


def _project_git(
    store: Store, explicit: str | None, name: str | None, snapshot: Any
) -> dict[str, object] | None:
    """The git state resume rebuilds a project's context from: the working directory's
    repository, unless ``--project`` names another project than that repository; then
    the repository at the project's registered path, if any (never another project's)."""
    from lore.git.info import find_repo

    here = find_repo()
    if explicit is None or (here is not None and here.name == name):
        return snapshot()
    from lore.errors import NotFoundError
    from lore.usecases.registry import get_project, local_path

    try:
        path = local_path(store, get_project(store, str(name)).path)
    except NotFoundError:
        return None
    from pathlib import Path

    return snapshot(Path(path)) if path and Path(path).is_dir() else None


def show(
    store: Store, record_id: str, *, history: bool = False, source: bool = False
) -> dict[str, Any]:
    """``lore show``: the record as stored (with ``history``: ``{"record", "history"}``),
    plus ``evidence`` (the evidence records that support it) when there is some, and with
    ``source`` the transcript lines its provenance names (``source_lines``, from
    ``lore.ingest.source``). An imported record is found by its ``legacy_id`` too."""
    from lore.index.legacy import candidates
    from lore.store.legacy import get
    from lore.usecases.evidence import backing
    from lore.usecases.records import record_history

    # an imported record also by its legacy_id (looked for through the index)
    record = get(store, record_id, lambda legacy: candidates(store, legacy))
    data = record.to_dict()
    out: dict[str, Any] = (
        {"record": data, "history": record_history(store, record.id)} if history else data
    )
    if source:
        from lore.ingest.source import expand

        out = {**out, "source_lines": expand(data)}
    evidence = backing(store, record.id)
    return {**out, "evidence": evidence} if evidence else out


def review(
    store: Store,
    *,
    days: int = 3,
    resolve_id: str | None = None,
    outcome: str | None = None,
    lesson: str | None = None,
    force: bool = False,
    allow_secret: bool = False,
) -> dict[str, Any]:
    """``lore review``: decisions pending review, or the resolution of ``resolve_id`` (its
    lesson through the secrets gate unless ``allow_secret``)."""
    from lore.sessions.review import pending, resolve

    if resolve_id is None:
        if outcome or lesson:
            raise UsageError("--outcome and --lesson go with --resolve ID")
        return {"days": days, "pending": [d.to_dict() for d in pending(store, days=days)]}
    if outcome is None:
        raise UsageError("--resolve needs --outcome successful|revised|abandoned")
    return resolve(
        store, resolve_id, outcome=outcome, lesson=lesson, force=force, allow_secret=allow_secret
    ).to_dict()


COMPACT_TITLE = 120  # characters of a title in a compact recall


class Recalled(NamedTuple):
    """A recall's JSON document; ``hits`` (with snippets) for a plain or graph search, else
    empty; ``via``: how the graph found each hit (graph search)."""

    mode: str  # "search", "graph", "context" or one of RECALL_MODES
    doc: dict[str, Any]
    hits: list[Any]
    via: dict[str, list[str]] = {}  # noqa: RUF012 (never mutated)


def recall(
    store: Store,
    query: str = "",
    *,
    mode: str | None = None,
    kinds: Sequence[str] = (),
    project: str | None = None,
    tags: Sequence[str] = (),
    since: str | None = None,
    until: str | None = None,
    limit: int = 10,
    show_all: bool = False,
    explain: bool = False,
    error_type: str | None = None,
    threshold: int | None = None,
    deep: bool = False,
    graph_depth: int = 0,
) -> Recalled:
    """``lore recall`` in every mode: checks the combination, runs it, returns its document.
    ``deep`` / ``graph_depth``: a plain search through the knowledge graph (lore.graph)."""
    from lore.capture.build import detect_project
    from lore.recall import core as r

    if mode is not None:  # (the modes' module, and the components it reads, only for them)
        from lore.recall import modes
    text = query.strip()
    if mode is not None and mode not in RECALL_MODES:
        raise UsageError(f"unknown recall mode {mode!r}: use one of {', '.join(RECALL_MODES)}")
    if (deep or graph_depth) and mode is not None:
        raise UsageError("--deep and --graph-depth go with a plain QUERY, not a mode")
    if error_type and mode != "failures":
        raise UsageError("--error-type goes with --failures")
    if threshold is not None and mode != "triggers":
        raise UsageError("--threshold goes with --triggers")
    here = detect_project(project)
    if mode == "patterns":
        from lore.usecases.patterns import suggest

        return Recalled(mode, suggest(store, text or None, project=here, limit=limit), [])
    if mode == "failures":
        doc = modes.failures(
            store,
            error_type=error_type,
            query=text or None,
            project=project,
            since=since,
            until=until,
            limit=limit,
        )
        return Recalled(mode, doc, [])
    if mode == "triggers":
        doc = modes.triggers(store, threshold=threshold or DEFAULT_THRESHOLD, project=project)
        return Recalled(mode, doc, [])
    if mode == "brief":
        if not text:
            raise UsageError("--brief needs a topic: lore recall --brief TOPIC")
        return Recalled(mode, modes.brief(store, text, project=project, here=here, limit=limit), [])
    if not text and project and not (kinds or tags or since or until):
        from lore.recall import modes

        return Recalled("context", modes.context(store, project, limit=limit), [])
    if not text:
        raise UsageError("nothing to recall: give a QUERY (or a mode: --patterns, --failures, ...)")
    if deep or graph_depth:
        return _graph(store, text, deep, graph_depth, limit, kinds, project, tags, since,
                      until, show_all, explain, here)  # fmt: skip
    asked = r.Asked()
    found = r.recall(
        store,
        text,
        kinds=tuple(kinds),
        project=project,
        tags=tuple(tags),
        since=since,
        until=until,
        limit=limit,
        show_hidden=show_all,
        here=here,
        asked=asked,
    )
    results = [h.to_dict(explain=explain) for h in found]
    doc = {"query": text, "window": _window(text), "kinds": asked.kinds, "results": results}
    return Recalled("search", doc, found)


def compact(recalled: Recalled) -> dict[str, Any]:
    """A search's document with each result cut to ``{"id", "type", "title", "score"}``
    (the title: the kind's title field, whitespace collapsed, at most COMPACT_TITLE
    characters), for an agent that reads one record afterwards with ``show``."""
    if recalled.mode not in ("search", "graph"):
        raise UsageError(f"compact goes with a plain QUERY, not {recalled.mode}")
    results = []
    for hit in recalled.hits:
        record = hit.record
        title = getattr(record, record.KIND.title, None)
        text = " ".join(title.split()) if isinstance(title, str) else ""
        if len(text) > COMPACT_TITLE:
            text = text[: COMPACT_TITLE - 1].rstrip() + "…"
        score = round(hit.score, 4)
        results.append({"id": record.id, "type": record.KIND.name, "title": text, "score": score})
    return {**recalled.doc, "results": results}


def _window(text: str) -> dict[str, Any] | None:
    """The time window the query names (``lore.timeexpr``), as recall's JSON carries it."""
    from lore.recall.core import query_window

    window = query_window(text)
    return window.to_dict() if window else None


def _graph(
    store: Store,
    text: str,
    deep: bool,
    depth: int,
    limit: int,
    kinds: Sequence[str],
    project: str | None,
    tags: Sequence[str],
    since: str | None,
    until: str | None,
    show_all: bool,
    explain: bool,
    here: str | None,
) -> Recalled:
    """``recall --deep`` / ``--graph-depth``: the hits, with ``explain.via`` when asked."""
    from lore.graph.recall import graph_recall
    from lore.recall.core import Asked

    asked = Asked()
    found, via = graph_recall(
        store,
        text,
        deep=deep,
        depth=depth,
        limit=limit,
        kinds=tuple(kinds),
        project=project,
        tags=tuple(tags),
        since=since,
        until=until,
        show_hidden=show_all,
        here=here,
        # the lore console script ends after this command (see lore.graph.snapshot.load);
        # a long-lived caller (lore mcp, tests) does not
        one_shot=one_shot() and (store.kept is None),
        asked=asked,
    )
    results = []
    for hit in found:
        item = hit.to_dict(explain=explain)
        if explain and hit.record.id in via:
            item["explain"]["via"] = via[hit.record.id]
        results.append(item)
    doc = {"query": text, "window": _window(text), "kinds": asked.kinds, "results": results}
    return Recalled("graph", doc, found, via)
