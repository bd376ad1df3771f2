"""The ``lore`` console script: the CLI, started with the garbage collector tuned for a
short-lived process, and the agent hooks' fast path.

The frequent commands (``lore.cmdserver.client.COMMANDS``) are first handed to the command
server (``lore.cmdserver``), which has all of this imported already; the rest of this
module is for when it is off, absent or refuses.

Start-up creates tens of thousands of objects that live as long as the process (click,
typing, the record kinds). Collecting while they are made frees nothing, and every later
full collection would scan them again: a few milliseconds on each command that agents
run in hooks. So collection is off while the CLI is imported, those objects are then
frozen out of the collector's sight, and the youngest generation is collected less
often. Cyclic garbage is still collected; only ``lore`` processes are affected, never a
program that imports ``lore`` as a library.

An agent's hook call, as ``lore hooks install`` writes it (``lore [--data-dir DIR] hooks
run [EVENT]``), skips click: ``lore.sessions.hook_run`` answers, the same call
``lore hooks run`` makes. The agent waits for this process only: the index it changed in
memory is written by a detached copy of the process after the answer; a hook that answers
nothing (PreCompact, Stop, SessionEnd) goes on in a detached copy when its work is long
(``hook_run.long_work``) or it runs out of time, instead of giving up. Any other form of
the command goes through click.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # (True for type checkers; importing typing costs the console script 5 ms)

if TYPE_CHECKING:
    from typing import Any

QUIET_EVENTS = ("pre-compact", "stop", "session-end")  # hooks that answer nothing


def hook_call(argv: list[str]) -> tuple[str | None, str | None] | None:
    """``(data dir, event)`` when ``argv`` is ``[--data-dir DIR] hooks run [EVENT]``
    (either may be None), else None: anything else is click's to parse."""
    data_dir = None
    if argv[:1] == ["--data-dir"] and len(argv) > 1:
        data_dir, argv = argv[1], argv[2:]
    elif argv[:1] and argv[0].startswith("--data-dir="):
        data_dir, argv = argv[0].partition("=")[2], argv[1:]
    if argv[:2] != ["hooks", "run"] or len(argv) > 3 or data_dir == "":
        return None
    event = argv[2] if len(argv) == 3 else None
    return None if event is not None and event.startswith("-") else (data_dir, event)


def main() -> None:
    """Run the ``lore`` command line (``sys.argv``)."""
    argv = sys.argv[1:]
    call = hook_call(argv)
    if call is None:
        from lore.cmdserver.client import run

        code = run(argv)  # the command server ran it (None: nothing ran)
        if code is not None:
            os._exit(code & 0xFF)
    _import(call is None)
    from lore.process import mark_one_shot

    mark_one_shot()
    if call is not None and run_hook(*call):
        # Answered: end without tearing the interpreter down (the agent would wait for it).
        import contextlib

        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(0)
    from lore.cli import main as cli_main

    cli_main()


def _import(cli: bool) -> None:
    """Import the CLI (or what every hook needs) out of the collector's way."""
    from lore.process import LongLived

    with LongLived():
        if cli:
            import lore.cli
        else:  # what every hook needs, imported as the CLI is
            import lore.sessions.hook_run
            import lore.store.core  # noqa: F401


class _HookApp:
    """The data root and its store, as ``lore.cli._app.App`` gives them to a command."""

    def __init__(self, root: Any) -> None:
        from lore.store.core import Store

        self.root = root
        self.store = Store(root)


def run_hook(data_dir: str | None, event: str | None) -> bool:
    """Answer one hook call; False (nothing done) when click must run it instead: a
    ``--data-dir`` that is a file, a data root that cannot be resolved, or one click
    warns about (moved, or inside a checkout)."""
    from lore.paths import resolve_root
    from lore.sessions.hook_events import hook_seconds
    from lore.sessions.hook_run import answer, long_work, parse_payload, read_stdin

    if data_dir is not None and os.path.exists(data_dir) and not os.path.isdir(data_dir):
        return False
    try:
        root = resolve_root(data_dir)
    except Exception:
        return False
    if root.moved_from is not None or root.source == "checkout":
        return False
    app = _HookApp(root)
    seconds = hook_seconds()  # the deadline (LORE_HOOK_SECONDS, else 0.9 s)
    raw = read_stdin()
    payload = parse_payload(raw)[0]
    quiet = _quiet(event if event else payload.get("hook_event_name"))
    detaching = quiet is not None and hasattr(os, "fork")
    if detaching and long_work(str(quiet), payload):
        _detach("long work")  # the agent goes on at once
    elif detaching:  # out of time (as ``answer`` counts it), it goes on detached
        _detach_after(seconds)
    output, name, notes = answer(
        app, event, raw, seconds=None if detaching else seconds, keep_index=True
    )
    _detach_after(0)
    try:
        if output is not None:
            import orjson

            sys.stdout.buffer.write(orjson.dumps(output) + b"\n")
            sys.stdout.flush()
    except BaseException as exc:  # a closed pipe: the hook fails open
        notes.append(f"{type(exc).__name__}: {exc}")
    if os.environ.get("LORE_DEBUG"):
        for said in notes:
            sys.stderr.write(f"lore hook {name}: {said}\n")
    _save_index_detached(app.store)
    return True


def _quiet(event: Any) -> str | None:
    """The event's name when it answers nothing (PreCompact, Stop, SessionEnd), else None."""
    from lore.sessions.hook_events import normalize

    known = normalize(event)
    return known.name if known is not None and known.name in QUIET_EVENTS else None


_DETACHED: list[bool] = []  # set once this process is the detached copy


def _detach_after(seconds: float) -> None:
    """After ``seconds`` (0: never), answer the agent (exit 0) and go on in a detached
    copy of this process. Where there is no fork, the hook simply runs to its end."""
    import signal

    if not hasattr(os, "fork"):
        return
    if not seconds:
        signal.setitimer(signal.ITIMER_REAL, 0)
        return
    signal.signal(signal.SIGALRM, lambda _signum, _frame: _detach("out of time"))
    signal.setitimer(signal.ITIMER_REAL, seconds)


def _detach(why: str) -> None:
    """Answer the agent (which waits for this process to end) and go on detached."""
    if not _DETACHED and os.environ.get("LORE_DEBUG"):
        sys.stderr.write(f"lore hook: {why}: going on in a detached process\n")
    if _fork() is False:
        os._exit(0)  # the parent: the hook is done (it has nothing to say)


def _fork() -> bool | None:
    """Fork, the child in its own session with no terminal and no pipe to the agent: True
    in the child, False in the parent, None when there is no fork (or this process is the
    detached copy already: no second one). A file lock held goes on being held: the child
    shares its open file."""
    if _DETACHED or not hasattr(os, "fork"):
        return None
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork():
            return False
    except (OSError, ValueError):  # no fork (a process limit), a closed stream
        return None
    _DETACHED.append(True)
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    return True


def _save_index_detached(store: Any) -> None:
    """Write the index the hook changed in memory (``Store.kept``), in a detached copy of
    this process: the agent does not wait for tens of megabytes to be written. One at a
    time per root (a lock beside the index); a hook that reads the older file meanwhile
    brings it up to date in memory, as this one did."""
    kept = store.kept
    if not kept or not kept.get("dirty") or kept.get("index") is None or not hasattr(os, "fork"):
        return
    if not _DETACHED and not _fork():
        return  # the parent (the agent has its answer), or no fork
    try:
        import fcntl

        from lore.index.persist import index_path, save_kept

        path = index_path(store.root).with_name(".saving")
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another save runs: leave it to it
        save_kept(store)
    finally:
        os._exit(0)
