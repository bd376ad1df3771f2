"""One agent hook call, whichever face runs it (``lore hooks run``, or the console script's
fast path in ``lore.launch``): the payload read, the event's use case run under a deadline,
the answer built. Fails open: any failure, like running out of time, answers nothing and
is said in the notes (printed with LORE_DEBUG); nothing here prints or exits.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any, Protocol

HOOK_BUDGET = 1500  # tokens of resume context a session starts with (LORE_HOOK_BUDGET)
WARMING_SECONDS = 300  # a warm-up started this recently is still running (or done)
# A longer transcript makes PreCompact's and SessionEnd's handoff long work: its digest
# reads all of it (up to 8 MB). The console script then lets the agent go on at once.
DIGEST_INLINE_BYTES = 256 * 1024


class App(Protocol):
    """What a hook needs of the command line's application object."""

    @property
    def root(self) -> Any: ...

    @property
    def store(self) -> Any: ...


class OutOfTime(BaseException):
    """The hook's deadline passed (a BaseException: no ``except Exception`` swallows it)."""


@contextlib.contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Raise ``OutOfTime`` in the main thread ``seconds`` from now (None: no deadline);
    elsewhere (not the main thread: an in-process caller) there is none. The previous
    SIGALRM handler is put back afterwards."""
    import signal

    def out_of_time(_signum: int, _frame: Any) -> None:
        raise OutOfTime

    previous: Any = None
    if seconds is not None:
        try:
            previous = signal.signal(signal.SIGALRM, out_of_time)
            signal.setitimer(signal.ITIMER_REAL, seconds)
        except (ValueError, OSError):  # not the main thread (in-process tests)
            previous = None
    try:
        yield
    finally:
        if previous is not None:
            with contextlib.suppress(ValueError, OSError):
                signal.setitimer(signal.ITIMER_REAL, 0)
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(signal.SIGALRM, previous)


def answer(
    app: App, event: str | None, raw: bytes, *, seconds: float | None, keep_index: bool = False
) -> tuple[dict[str, Any] | None, str, list[str]]:
    """Run the hook ``event`` (None: the payload's ``hook_event_name`` says) on the payload
    ``raw``: the JSON to print (or None), the event's name, and what happened (notes).

    ``keep_index``: the search index is loaded once and changed in memory only
    (``Store.kept``); the caller saves it after answering (``lore.index.persist.save_kept``)
    or never, and the hook never waits for the index file to be written."""
    from lore.sessions.hook_events import NAMES, normalize

    name = event or "?"
    notes: list[str] = []
    output = None
    try:
        with deadline(seconds):
            payload, problem = parse_payload(raw)
            known = normalize(event if event else payload.get("hook_event_name"))
            if known is None:
                notes.append(f"unknown event (expected one of {', '.join(NAMES)})")
            else:
                name = known.name
                if keep_index and app.store.kept is None:
                    app.store.kept = {}
                output = run(app, known.name, payload, problem, notes)
    except BaseException as exc:  # fail open, whatever happened
        output = None
        notes.append(f"{type(exc).__name__}: {exc}")
        if isinstance(exc, OutOfTime):
            warm_up_in_background(app)
    return output, name, notes


def long_work(event: str, payload: dict[str, Any]) -> bool:
    """Whether a hook that answers nothing (lore's ``event`` name) has long work to do:
    a PreCompact or SessionEnd handoff of a transcript of more than DIGEST_INLINE_BYTES."""
    path = payload.get("transcript_path")
    if event not in ("pre-compact", "session-end") or not isinstance(path, str):
        return False
    try:
        return os.stat(path).st_size > DIGEST_INLINE_BYTES
    except (OSError, ValueError):
        return False


def parse_payload(raw: bytes) -> tuple[dict[str, Any], str | None]:
    """The hook's JSON object, and what is wrong with it (None: nothing)."""
    import orjson

    if not raw.strip():
        return {}, "no payload on stdin"
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {}, "the payload on stdin is not JSON"
    if not isinstance(data, dict):
        return {}, "the payload on stdin is not a JSON object"
    if not data:
        return {}, "the payload on stdin is an empty object"
    return data, None


def read_stdin() -> bytes:
    """The payload's bytes: stdin when something is written to it within 0.2 s (an agent
    always writes one; a hook run by hand without input must not wait forever)."""
    import select

    try:
        try:
            ready = bool(select.select([sys.stdin.fileno()], [], [], 0.2)[0])
        except (OSError, ValueError):
            ready = True  # not a real file (an in-process caller's buffer): read it as is
        return sys.stdin.buffer.read() if ready else b""
    except (OSError, ValueError, AttributeError):
        return b""


def run(
    app: App, event: str, payload: dict[str, Any], problem: str | None, notes: list[str]
) -> dict[str, Any] | None:
    """The use case of ``event`` (lore's name); its answer, or None."""
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and os.path.isdir(cwd):
        os.chdir(cwd)
    from lore.capture.build import detect_project

    if event == "session-start":  # needs nothing from the payload: a bad one still resumes
        from lore.sessions.resume import resume
        from lore.sessions.resume_text import render

        project = detect_project(None)
        try:
            budget = int(os.environ.get("LORE_HOOK_BUDGET", HOOK_BUDGET))
        except ValueError:
            budget = HOOK_BUDGET
        text, _ = render(resume(app.store, project=project), budget=budget)
        note_session(app, payload)
        return context(event, payload, text)
    if problem is not None:  # fail open: write nothing, exit 0
        notes.append(f"nothing written: {problem}")
        return None
    session_id = lore_session_id(payload)
    if session_id and not os.environ.get("LORE_SESSION_ID"):
        os.environ["LORE_SESSION_ID"] = session_id
    note_session(app, payload)
    if event == "user-prompt-submit":
        from lore.sessions.inject import prompt_context

        found, said = prompt_context(
            app.store, payload, project=detect_project(None), lore_session=session_id
        )
        notes.append(said)
        return context(event, payload, found) if found else None
    if event in ("post-tool-use", "post-tool-use-failure"):
        from lore.sessions.hook_capture import record_failure

        told, said = record_failure(
            app.store, payload, project=detect_project(None), lore_session=session_id
        )
        notes.append(said)
        return context(event, payload, told) if told else None
    from lore.sessions.hook_ingest import ingest_transcript

    if event != "stop":  # the handoff first: ingestion then adds to the session's record
        from lore.sessions.hooks import auto_handoff

        name = "PreCompact" if event == "pre-compact" else "SessionEnd"
        session, said = auto_handoff(app.store, name, payload, project=detect_project(None))
        notes.append(said if session is not None else f"nothing written: {said}")
    ingested, said = ingest_transcript(app.store, payload)
    if ingested or event == "stop":  # else the handoff above said why nothing was read
        notes.append(said)
    return None


def lore_session_id(payload: dict[str, Any]) -> str | None:
    """The agent's session as lore's (``lore.ingest.ids``: the session record ``lore
    ingest`` writes for the same transcript is this one)."""
    from lore.ingest.ids import session_record_id

    raw = str(payload.get("session_id") or "")
    return (
        session_record_id(raw) if sum(c in "0123456789abcdef" for c in raw.lower()) >= 8 else None
    )


def context(event: str, payload: dict[str, Any], text: str) -> dict[str, Any]:
    """The hook's answer: ``additionalContext`` under the event's name as the agent spelt
    it in the payload (Gemini CLI's ``BeforeAgent``), else as Claude Code spells it."""
    from lore.sessions.hook_events import BY_NAME, normalize

    said = payload.get("hook_event_name")
    name = said if normalize(said) is BY_NAME[event] else BY_NAME[event].claude
    return {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}


def note_session(app: App, payload: dict[str, Any]) -> None:
    """Remember the agent session the hooks saw last (``lore hooks pause`` acts on it)."""
    from lore.sessions.hook_state import note_last

    session, cwd = payload.get("session_id"), payload.get("cwd")
    if isinstance(session, str) and session.strip():
        with contextlib.suppress(OSError):
            note_last(app.root.local, session, cwd if isinstance(cwd, str) else None)


def warm_up_in_background(app: App) -> None:
    """Build the search index in a detached process after a hook ran out of time.

    On a big store the first index build takes seconds; killed at the hook's deadline,
    it would never be saved and every later hook would time out the same way. The
    detached `lore index rebuild` outlives the hook, so the next one finds it warm. Only
    when there is no index file yet (a hook that ran out of time beside a saved index was
    slowed by the machine, and a rebuild would only load it more), and at most one every
    WARMING_SECONDS (a marker in the index's folder), however many hooks time out.
    """
    import subprocess
    import time

    from lore.index.persist import index_path

    with contextlib.suppress(Exception):
        index = index_path(app.root)
        if index.exists():
            return
        marker = index.with_name(".warming")
        marker.parent.mkdir(parents=True, exist_ok=True)
        try:
            if time.time() - marker.stat().st_mtime < WARMING_SECONDS:
                return
        except FileNotFoundError:
            pass
        marker.touch()
        root = str(app.root.path)
        subprocess.Popen(
            [sys.executable, "-m", "lore", "--data-dir", root, "index", "rebuild"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # not killed with the hook's process group
            close_fds=True,
        )
