"""The capture hooks' use case (PostToolUseFailure, and PostToolUse when a result carries
a failure): the failed shell command recorded at once by ``lore ingest``'s own rules and
under the id ingestion derives for it (so the two meet in one record), and the Rule of
Three told to the agent the first time an error type reaches its third failure in the
agent session (``lore.sessions.hook_state`` counts them)."""

from __future__ import annotations

from typing import Any

from lore.sessions import hook_state
from lore.store.core import Store

RULE_OF_THREE = 3  # failures of one type in one agent session before the agent is told
SOURCE = "hook"


def record_failure(
    store: Store,
    payload: dict[str, Any],
    *,
    project: str | None,
    lore_session: str | None,
) -> tuple[str | None, str]:
    """Record the payload's failed command; the Rule-of-Three context to give the agent
    (or None), and what happened (for LORE_DEBUG).

    The session's state counts each command's failures (its lock serializes the hooks of
    one session, and a failure's id belongs to one session), so a repeat appends one
    revision of ``occurrences`` instead of reading the failures log: on a big store that
    read alone would take most of a second."""
    from lore.ingest.extract import hook_agent, hook_failure
    from lore.ingest.ids import record_id

    session = payload.get("session_id")
    if not isinstance(session, str) or not session.strip():
        return None, "the payload names no session_id"
    failed = hook_failure(payload)
    if failed is None:
        return None, "not a failed shell command"
    # The scope ``lore ingest`` derives the session's ids from (lore.ingest.usecase), so the
    # hook and an ingestion of the agent's session file meet in one record. Inside a
    # subagent Claude Code names it (``agent_id``; ``session_id`` stays the parent's), and
    # its calls are in its own file, ``<session>/subagents/agent-<agent_id>.jsonl``.
    scope = f"{hook_agent(payload)}:{session}"
    agent_id = payload.get("agent_id")
    if isinstance(agent_id, str) and agent_id.strip():
        scope += f":agent-{agent_id.strip()}"
    fid = record_id("fail", scope, failed.key)
    local = store.root.local
    with hook_state.updating(local, session) as state:
        commands = state.setdefault("commands", {})
        seen = commands[fid] = int(commands.get(fid) or 0) + 1
        counts = state.setdefault("failures", {})
        counts[failed.error_type] = int(counts.get(failed.error_type) or 0) + 1
        told = state.setdefault("told", [])
        due = counts[failed.error_type] >= RULE_OF_THREE and failed.error_type not in told
        if due:
            told.append(failed.error_type)
        paused = hook_state.is_paused(state)
        of_type = counts[failed.error_type]
    from lore.errors import LoreError

    try:
        said = _write(store, failed, fid, seen, project, lore_session)
    except (LoreError, OSError) as exc:  # the agent is still told what the session saw
        if not due or paused:
            raise
        said = f"not written ({type(exc).__name__}: {exc})"
    if not due or paused:
        return None, said
    return rule_of_three_text(store, failed.error_type, of_type), f"{said}; told the Rule of Three"


def _write(
    store: Store, failed: Any, fid: str, seen: int, project: str | None, session: str | None
) -> str:
    """The failure captured (first time) or its ``occurrences`` raised (a repeat). A repeat
    whose record is missing (the first write failed: a lock held past the hook's time, a
    full disk) captures it then, with the count so far."""
    from lore.errors import DuplicateError

    if seen > 1 and _raise_occurrences(store, fid, seen):
        return f"counted {fid} again"
    # A first failure (capture's own check, under the log's lock, says whether an
    # ingestion wrote it already), or a repeat whose record is missing.
    from lore.capture.core import capture

    try:
        capture(
            store,
            failed.message,
            kind="failure",
            fields={
                "error_type": failed.error_type,
                "tool": failed.command,
                "step": failed.step,
            },
            project=project,
            source=SOURCE,
            record_id=fid,
            session_id=session,
            extra={"exit_code": failed.exit_code, "occurrences": seen},
        )
        return f"wrote {fid}"
    except DuplicateError:  # an ingestion wrote it meanwhile: count this one on it
        pass
    _raise_occurrences(store, fid, seen)
    return f"counted {fid} again"


def _raise_occurrences(store: Store, fid: str, seen: int) -> bool:
    """Append ``{"occurrences": n}`` when ``n`` beats what the record holds (an ingestion
    may have counted more), read from the record's own lines in the log; False when there
    is no such record."""
    from lore import clock
    from lore.components.failures import Failure
    from lore.storage import jsonl
    from lore.store.fold import REVISE

    record = store.peek(fid)
    if record is None:
        return False
    held = int(record.extra.get("occurrences") or 1)
    if seen <= held:
        return True
    line = {
        "_op": REVISE,
        "id": fid,
        "timestamp": clock.now(),
        "set": {"occurrences": seen},
        "reason": "lore hook",
    }
    jsonl.append(store.location(Failure), [line])  # one locked append, as Store.revise does
    return True


def rule_of_three_text(store: Store, error_type: str, seen: int) -> str:
    """What the agent is told at a type's third failure in its session: the count, and the
    PITFALL or pattern that names the type, or how to name it."""
    from lore.capture.failure_rules import error_types, pitfall_for

    total = error_types(store).get(error_type, 0)
    suffix = "th" if 10 <= seen % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(seen % 10, "th")
    nth = f"{seen}{suffix}"
    lines = [
        f"lore: Rule of Three: {nth} failure of type {error_type} in this session "
        f"({total} in lore). Stop retrying the same way."
    ]
    pitfall = pitfall_for(store, error_type)
    record = store.find(pitfall) if pitfall else None
    if record is not None:
        fix = " ".join(str(getattr(record, "fix", "") or "").split())
        name = getattr(record, "name", f"PITFALL: {error_type}")
        lines.append(f'Known: {record.id} "{name}"' + (f". Fix: {fix}" if fix else ""))
    else:
        pattern = _pattern_for(store, error_type)
        if pattern is not None:
            solution = " ".join(str(getattr(pattern, "solution", "") or "").split())
            lines.append(
                f'Known: {pattern.id} pattern "{pattern.name}"'
                + (f": {solution}" if solution else "")
            )
        else:
            lines.append(
                "No PITFALL names it yet: if these failures share a cause, record the fix "
                f'(lore promote-failure {error_type} --fix "...") so the next session is warned.'
            )
    return "\n".join(lines)


def _pattern_for(store: Store, error_type: str) -> Any:
    """The newest live, unflagged pattern tagged with the error type, if any (found through
    the warm index; without one, by reading the patterns)."""
    from lore.capture.checks import warm_index

    index = warm_index(store, "pattern")
    if index is not None:
        tagged = index.tagged(error_type)
        docs = sorted((d for d in index.docs("pattern") if d in tagged), key=lambda d: -index.ts[d])
        found = [index.fetch(store, d) for d in docs[:20]]
    else:
        found = [p for p in store.records("pattern") if error_type in (p.tags or [])]
    live = [p for p in found if not p.hidden and not getattr(p, "flags", None)]
    return max(live, key=lambda p: (str(p.timestamp), p.id)) if live else None
