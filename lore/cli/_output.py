"""Everything lore prints: JSON to stdout, human text to stdout, messages to stderr.

JSON is one document per command (orjson). Human output uses plain ``click.echo``
on the hot paths and a rich ``Console(markup=False, highlight=False)`` (built on
first use) for tables, so text like ``[red]`` in a record prints as written.
Colour honours ``NO_COLOR``, ``FORCE_COLOR`` and whether the stream is a terminal.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from lore.errors import LoreError, UsageError

STDIN_WAIT_SECONDS = 2.0


def json_option(fn: Any) -> Any:
    """``--json``: print one JSON document; also makes errors print as JSON."""

    def mark(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
        if value:
            ctx.meta["lore.json"] = True
        return value

    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        callback=mark,
        expose_value=True,
        is_eager=True,
        help="Print one JSON document on stdout instead of text.",
    )(fn)


def emit_json(obj: Any) -> None:
    import orjson

    data = orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS) + b"\n"
    # sys.stdout is looked up now (click's test runner swaps it); click 8.5 deprecates
    # click.get_binary_stream, so write to the text stream's buffer directly.
    stream = sys.stdout
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(data.decode("utf-8"))
        stream.flush()
        return
    stream.flush()  # keep order with anything already written as text
    buffer.write(data)
    buffer.flush()


def echo(text: str = "") -> None:
    # click strips styles when stdout is not a terminal; FORCE_COLOR must keep them.
    click.echo(text, color=True if color_enabled() else None)


def is_terminal() -> bool:
    """Whether stdout is a terminal (tables) rather than a pipe or file (plain lines)."""
    return bool(getattr(sys.stdout, "isatty", lambda: False)())


def color_enabled(err: bool = False) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = sys.stderr if err else sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())


def style(text: str, err: bool = False, **styles: Any) -> str:
    return click.style(text, **styles) if color_enabled(err) else text


def warn(message: str) -> None:
    color = True if color_enabled(err=True) else None
    click.echo(style(f"lore: warning: {message}", err=True, fg="yellow"), err=True, color=color)


def report_read_issues(store: Any) -> None:
    """Warn (stderr) about every line or file the store could not read: a listing that
    skipped something says so, as `lore list` does."""
    for issue in store.issues:
        warn(str(issue))


def note(message: str) -> None:
    click.echo(f"lore: {message}", err=True)


def rule_of_three_note(rule: dict[str, Any]) -> None:
    """The Rule of Three line (stderr) once a failure type recurs: what names it, or the two
    commands that do (either one ends the note for that type)."""
    kind, count = rule["error_type"], rule["count"]
    head = f"Rule of Three: {count} failures of type {kind}"
    if rule.get("pitfall"):
        note(
            f'{head}, already named: {rule["pitfall"]} "PITFALL: {kind}" '
            f"(lore promote-failure {kind} updates it)"
        )
    elif rule.get("pattern"):
        note(f"{head}, already named: pattern {rule['pattern']} (tagged {kind})")
    else:
        note(
            f'{head}. Name it: lore promote-failure {kind} --fix "..." (a PITFALL anti-pattern), '
            f'or lore learn "..." --solution "..." --tags {kind} (a pattern)'
        )


def emit_error(exc: LoreError, *, as_json: bool) -> None:
    if as_json:
        emit_json(exc.to_dict())
    color = True if color_enabled(err=True) else None
    click.echo(style(f"lore: error: {exc.message}", err=True, fg="red"), err=True, color=color)


_console: Any = None


def console() -> Any:
    """The shared rich console for tables and panels (stdout)."""
    global _console
    if _console is None:
        from rich.console import Console

        color = color_enabled()
        _console = Console(
            markup=False,
            highlight=False,
            emoji=False,
            no_color=not color,
            # no_color alone still lets bold through when rich sees FORCE_COLOR:
            # no colour system means no escape codes at all.
            color_system="auto" if color else None,
            soft_wrap=False,
        )
    return _console


def read_text(text: str | None, *, what: str = "text") -> str:
    """The TEXT argument, or stdin when TEXT is ``-`` or absent and stdin is piped.

    ``-`` reads stdin to the end, however long the producer takes (the user asked for
    stdin). With no TEXT, a terminal is never read, and a pipe that stays silent for
    ``LORE_STDIN_TIMEOUT`` seconds (default 2) counts as no input, so lore never
    hangs on an agent's open, unused stdin.
    """
    if text is not None and text != "-":
        return text
    stdin = sys.stdin  # not click.get_text_stream: deprecated in click 8.5
    if text == "-":
        return _read_all(stdin, what)
    if stdin.isatty():
        raise UsageError(f"no {what} given: pass it as an argument or pipe it on stdin")
    wait = _stdin_wait()
    if not _stdin_ready(wait):
        raise UsageError(
            f"no {what} given: stdin is open but nothing arrived within {wait:g}s; "
            f"pass - as the {what} to wait for the pipe to close, "
            "or raise LORE_STDIN_TIMEOUT"
        )
    return _read_all(stdin, what)


def _read_all(stdin: Any, what: str) -> str:
    """All of stdin as UTF-8, byte-exact: no newline translation ("\r" stays "\r")."""
    buffer = getattr(stdin, "buffer", None)
    if buffer is None:
        return str(stdin.read())
    try:
        return bytes(buffer.read()).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"the {what} on stdin is not UTF-8 text (byte {exc.start})") from None


def _stdin_wait() -> float:
    try:
        return float(os.environ.get("LORE_STDIN_TIMEOUT", STDIN_WAIT_SECONDS))
    except ValueError:
        return STDIN_WAIT_SECONDS


def _stdin_ready(timeout: float) -> bool:
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return True  # not a real file (tests feed a buffer): read it directly
    import select

    try:
        ready, _, _ = select.select([fd], [], [], timeout)
    except (OSError, ValueError):
        return True
    return bool(ready)


def wants_json(as_json: bool) -> bool:
    """A subcommand's ``--json``, or its group's (``lore goal --json show ID``): click
    shares ``ctx.meta`` along the chain, and ``json_option`` marks it there."""
    ctx = click.get_current_context(silent=True)
    return as_json or bool(ctx is not None and ctx.meta.get("lore.json"))
