"""Storing what a transcript showed, through the normal write path: failures and candidate
observations through ``lore.capture.capture`` (schema, secrets gate, then the store, so the
Rule of Three counts them), the session record through the store with the same gate.
Every record has a stable id: what exists is updated (a failure's count, its resolution,
the session's digest), never written again. Whether it exists is read from its own lines
or file (``Store.peek``): a few ids never load a 100,000-record store's logs."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from lore.components.inbox import CANDIDATE_TAG
from lore.errors import DuplicateError, LoreError
from lore.ingest.clean import safe
from lore.ingest.digest import Digest, relative
from lore.ingest.ids import record_id
from lore.ingest.session import SessionState
from lore.store.core import Store

SOURCE = "ingest"


class Context(NamedTuple):
    """The transcript being written from, and where its records belong."""

    transcript: str
    agent: str
    session: str | None  # the agent's session id
    scope: str  # what ids are derived from: agent, session (and subagent file)
    lore_session: str | None  # the session record (None: a subagent's file)
    project: str | None
    base: Path | None  # edited files are named relative to it
    dry_run: bool
    cwd: str | None = None  # where the session ran: the files its records name are there


class Written(NamedTuple):
    failures_new: list[str]
    failures_updated: list[str]
    resolved: list[str]
    candidates: list[str]
    withheld: list[dict[str, str]]  # records the secrets gate (or a check) refused
    rule_of_three: list[dict[str, Any]]


def _files_in(ctx: Context) -> Path | bool:
    """Where the files a record names are looked up for their hashes: the folder the
    session ran in, or nowhere (False) when it is not on this machine (never the folder
    ``lore ingest`` happens to run in: another repository's ``src/db.py``)."""
    if ctx.cwd and Path(ctx.cwd).is_dir():
        return Path(ctx.cwd)
    return False


def failure_id(ctx: Context, key: str) -> str:
    return record_id("fail", ctx.scope, key)


def write_failures(store: Store, state: SessionState, ctx: Context) -> Written:
    """New failures captured, known ones updated (count, resolution); a dry run only says."""
    new: list[str] = []
    updated: list[str] = []
    resolved: list[str] = []
    withheld: list[dict[str, str]] = []
    rules: dict[str, dict[str, Any]] = {}
    for key in sorted(state.touched, key=lambda k: state.failures[k]["lines"][0]):
        entry = state.failures[key]
        fid = entry["id"] = failure_id(ctx, key)
        fix = _resolution(entry, ctx.base)
        existing = store.peek(fid)
        if existing is None:
            if not ctx.dry_run:
                try:
                    rule = _capture_failure(store, entry, fid, fix, ctx)
                except DuplicateError:  # written meanwhile (another run): update it below
                    existing = store.peek(fid)
                except LoreError as exc:
                    withheld.append({"id": fid, "reason": exc.message})
                    continue
                else:
                    if rule:
                        rules[rule["error_type"]] = rule
            if existing is None:
                new.append(fid)
                resolved.extend([fid] if fix else [])
                continue
        changes: dict[str, Any] = {}
        count = max(int(existing.extra.get("occurrences") or 1), entry["count"])
        if count != existing.extra.get("occurrences"):
            changes["occurrences"] = count
        # A resolution goes only when the command failed again since (more occurrences than
        # recorded): a transcript read again after it was cut short has lost the fix, not undone it.
        failed_again = entry["count"] > int(existing.extra.get("occurrences") or 1)
        if fix != existing.extra.get("resolved") and (fix or failed_again):
            changes["resolved"] = fix
            resolved.extend([fid] if fix else [])
        if getattr(existing, "provenance", None) is None:
            # Recorded by a hook as it failed, before the transcript held it: now it does.
            changes["provenance"] = make(ctx.transcript, ctx.session, *entry["lines"])
        if changes:
            if not ctx.dry_run:
                store.revise(fid, changes, reason="lore ingest")
            updated.append(fid)
    return Written(new, updated, resolved, [], withheld, list(rules.values()))


def _capture_failure(
    store: Store, entry: dict[str, Any], fid: str, fix: dict[str, Any] | None, ctx: Context
) -> dict[str, Any] | None:
    """Capture one failure; its Rule of Three count when its type has reached it."""
    from lore.capture.core import capture
    from lore.capture.failure_rules import rule_of_three

    extra: dict[str, Any] = {"exit_code": entry["exit_code"], "occurrences": entry["count"]}
    if fix:
        extra["resolved"] = fix
    record = capture(
        store,
        entry["message"],
        kind="failure",
        fields={"error_type": entry["error_type"], "tool": entry["command"], "step": entry["step"]},
        project=ctx.project,
        source=SOURCE,
        timestamp=entry["time"],
        record_id=fid,
        session_id=ctx.lore_session,
        provenance=make(ctx.transcript, ctx.session, *entry["lines"]),
        extra=extra,
        files_in=_files_in(ctx),
    ).record
    return rule_of_three(store, record)


def _resolution(entry: dict[str, Any], base: Path | None) -> dict[str, Any] | None:
    done = entry.get("resolved")
    if not done:
        return None
    fix = [safe(relative(name, base), 500) for name in done.get("likely_fix") or []]
    return {"at": done.get("at"), "lines": done.get("lines"), "likely_fix": fix}


def write_candidates(
    store: Store, found: list[tuple[str, str, Any]], ctx: Context
) -> tuple[list[str], list[dict[str, str]]]:
    """Each candidate sentence as a raw observation tagged ``candidate`` and its kind."""
    from lore.capture.core import capture
    from lore.ingest.extract import words

    ids: list[str] = []
    withheld: list[dict[str, str]] = []
    for tag, sentence, event in found:
        oid = record_id("obs", ctx.scope, " ".join(words(sentence)))
        if oid in ids or (store.peek(oid) is not None):
            continue
        if ctx.dry_run:
            ids.append(oid)
            continue
        try:
            capture(
                store,
                safe(sentence, 500),
                kind="observation",
                tags=[CANDIDATE_TAG, tag],
                project=ctx.project,
                source=SOURCE,
                timestamp=event.time,
                record_id=oid,
                session_id=ctx.lore_session,
                provenance=make(ctx.transcript, ctx.session, *event.lines),
                files_in=_files_in(ctx),
            )
        except DuplicateError:
            continue
        except LoreError as exc:
            withheld.append({"id": oid, "reason": exc.message})
            continue
        ids.append(oid)
    return ids, withheld


def write_session(
    store: Store, digest: Digest, ctx: Context, captured: dict[str, list[str]], last_line: int
) -> str | None:
    """The session record: created closed, or updated with the new digest. A handoff the
    agent or a person wrote keeps its own message and open items; only the digest, the
    provenance and the captured ids are added to it."""
    from lore import clock
    from lore.components.transfer import Session
    from lore.secrets.gate import gate

    sid = ctx.lore_session
    if sid is None or digest.empty:
        return None
    name = {"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}[ctx.agent]
    day = (digest.started or "")[:10]
    lead = f"{name} session{f' of {day}' if day else ''} (ingested)."
    message = digest.message(lead)
    fields: dict[str, Any] = {
        "message": message,
        "summary": _cut(digest.summary(f"{name} {day}".strip()), 200),
        "threads": digest.open,
        "digest": digest.to_dict(),
    }
    gate(fields)
    provenance = make(ctx.transcript, ctx.session, 1, max(1, last_line))
    if ctx.dry_run:
        return sid
    existing = store.peek(sid)
    if existing is None:
        when = clock.normalize_timestamp(digest.started) if digest.started else clock.now()
        record = Session(
            id=sid,
            timestamp=when,
            status="closed",
            started_at=when,
            ended_at=clock.normalize_timestamp(digest.ended) if digest.ended else when,
            message=message,
            summary=fields["summary"],
            threads=digest.open,
            captured={k: v for k, v in captured.items() if v},
            project=ctx.project,
            tags=[ctx.project] if ctx.project else [],
            source=SOURCE,
            provenance=provenance,
        )
        record.extra["digest"] = fields["digest"]
        store.add([record])
        return sid
    merged = dict(existing.captured) if isinstance(existing.captured, dict) else {}  # type: ignore[attr-defined]
    for kind, ids in captured.items():
        if ids:  # as at creation: no empty lists
            merged[kind] = list(dict.fromkeys([*(merged.get(kind) or []), *ids]))
    changes: dict[str, Any] = {
        "digest": fields["digest"],
        "provenance": provenance,
        "captured": merged,
    }
    # A hook's automatic handoff keeps its own message too: the next PreCompact or SessionEnd
    # hook rewrites it; ingestion adds its digest, provenance and captured ids.
    automatic = existing.source == SOURCE
    if automatic:
        changes.update(message=message, summary=fields["summary"], threads=digest.open)
        if digest.ended and existing.source == SOURCE:
            changes["ended_at"] = clock.normalize_timestamp(digest.ended)
    current = existing.to_dict()
    changes = {k: v for k, v in changes.items() if current.get(k) != v}
    if changes:
        store.revise(sid, changes, reason="lore ingest")
    return sid


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def make(transcript: str, session: str | None, first: int, last: int) -> dict[str, Any]:
    """A ``provenance`` value (lore.model.provenance)."""
    return {"transcript": transcript, "session": session, "lines": [first, last]}
