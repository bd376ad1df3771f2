"""What events mean, by the tables in ``lore.ingest.rules``: whether a call is a failure
(``failure_of``: also what a PostToolUseFailure hook needs), its error type and key line,
and which sentences are candidates. ``SessionState`` (``lore.ingest.session``) adds them up.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from lore.ingest import rules, shell
from lore.ingest.clean import masked, plain, safe, strip_private
from lore.ingest.events import DENIED, ERROR, INTERRUPTED, SHELL, TIMEOUT, Event
from lore.secrets.policy import lazy

FAILED = frozenset({ERROR, TIMEOUT, INTERRUPTED, DENIED})
HEADER = re.compile(r"^(?:Error: )?Exit code -?\d+\s*\n?|</?tool_use_error>")
# Only for sentences (ingestion), never for a hook's failed command: compiled on first use.
SENTENCE = lazy(r"(?<=[.!?])\s+(?=[A-Z\"'(`*_])")
FENCE = lazy(r"```.*?(?:```|\Z)", re.DOTALL)
BULLET = lazy(r"^\s*(?:[-*+•]|\d+[.)])\s+")
WORD = lazy(r"[a-z']+")


class Failed(NamedTuple):
    """A failed shell command, as a failure record needs it."""

    key: str  # the command as "the same command" is told apart (shell.key)
    command: str  # masked, whitespace collapsed
    error_type: str
    message: str  # the key error line, masked
    exit_code: int | None
    step: str  # what the agent said the command was for, when it said


def failure_of(event: Event) -> Failed | None:
    """The failure a call event is, or None: not a shell command, succeeded, cancelled
    because a sibling call failed, or a search or listing command that found nothing."""
    if event.action != SHELL or event.status not in FAILED or not event.command.strip():
        return None
    output = HEADER.sub("", plain(strip_private(event.text)), count=2)
    if event.status == ERROR and shell.is_no_match(event.command, event.exit_code, output):
        return None
    error_type = classify(event.status, event.exit_code, event.command, output)
    message = safe(key_line(output, error_type, event), rules.KEY_LINE_LIMIT)
    if not message:
        code = f" with code {event.exit_code}" if event.exit_code is not None else ""
        message = safe(f"`{shell.key(event.command)}` failed{code}", rules.KEY_LINE_LIMIT)
    return Failed(
        shell.key(masked(event.command)),
        safe(event.command, 1000),
        error_type,
        message,
        event.exit_code,
        safe(event.note, 200),
    )


def classify(status: str, exit_code: int | None, command: str, output: str) -> str:
    """The error type, in the passes rules.ErrorType describes."""
    rows = rules.ERROR_TYPES
    families = [row for row in rows if row.family is not None]
    signs = rows[: rows.index(families[0])]
    rest = rows[rows.index(families[-1]) + 1 : -1]
    for row in signs:
        if (row.status and status == row.status) or exit_code in row.exits:
            return row.name
    for row in (*families, *signs):
        if row.output is not None and row.output.search(output):
            return row.name
    for program in reversed(shell.programs(command)):
        for row in families:
            if row.family is not None and row.family.match(program):
                return row.name
    line = key_line(output, "", Event("call", (1, 1), status=status))
    for row in rest:
        if row.output is not None and row.output.search(line):
            return row.name
    return rows[-1].name


def key_line(output: str, error_type: str, event: Event) -> str:
    """The one output line that says what went wrong (rules: SUMMARY_LINE, ERROR_LINE,
    EXCEPTION_LINE; a test or lint run's summary first, an exception's last line first)."""
    if event.status == DENIED:
        said = output.split("the user said:\n", 1)[1] if "the user said:\n" in output else ""
        return f"refused by the user: {said.strip()}" if said.strip() else "refused by the user"
    if event.status == INTERRUPTED:
        return "interrupted by the user"
    lines = [line.strip() for line in output.splitlines()]
    useful = [line for line in lines if line and not rules.NOISE_LINE.match(line)]
    if not useful:
        return "timed out" if event.status == TIMEOUT else ""
    if event.status == TIMEOUT:
        return useful[0]

    def first(pattern: re.Pattern[str]) -> str | None:
        return next((line for line in useful if pattern.search(line)), None)

    def last(pattern: re.Pattern[str]) -> str | None:
        return next((line for line in reversed(useful) if pattern.search(line)), None)

    summary = last(rules.SUMMARY_LINE)
    error = first(rules.ERROR_LINE)
    exception = last(rules.EXCEPTION_LINE) if "Traceback" in output else None
    if error_type in ("TestFailure", "LintError"):
        order = (summary, error, exception)
    elif exception:
        order = (exception, error, summary)
    else:
        order = (error, summary, exception)
    fallback = useful[-1] if error_type in ("TestFailure", "LintError") else useful[0]
    chosen = next((line for line in order if line), fallback)
    return chosen.strip("= ").strip() or chosen


# --- sentences ---------------------------------------------------------------------------


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def is_acknowledgement(text: str) -> bool:
    """A short acknowledgement ("ok, let's go", "yes please", "commit this"): no words,
    or at most rules.ACK_MAX_WORDS words that are all in rules.ACK_WORDS."""
    found = words(text)
    return not found or (
        len(found) <= rules.ACK_MAX_WORDS and all(w in rules.ACK_WORDS for w in found)
    )


def is_substantive(text: str) -> bool:
    """A request worth naming: not an acknowledgement, at least three words."""
    return not is_acknowledgement(text) and len(words(text)) >= 3


def sentences(text: str) -> list[str]:
    """Statements in a message: code blocks, quotes, tables and private text left out;
    markdown bullets stripped; each line split into sentences."""
    text = FENCE.sub("\n", strip_private(text))
    found: list[str] = []
    for line in text.splitlines():
        line = BULLET.sub("", line.strip())
        if not line or line.startswith((">", "|", "#", "<", "$ ", "```")):
            continue
        found.extend(s.strip() for s in SENTENCE.split(line) if s.strip())
    return found


def candidates_of(event: Event) -> list[tuple[str, str]]:
    """``(tag, sentence)`` for each sentence of a prompt or reply that states a decision,
    a correction or preference, or a convention (rules.CANDIDATES); never a question,
    an acknowledgement, a long paste, a compaction summary or a tool's output."""
    if event.kind not in ("prompt", "reply"):
        return []
    who = "user" if event.kind == "prompt" else "agent"
    found: list[tuple[str, str]] = []
    said = sentences(event.text)
    for n, sentence in enumerate(said):
        if sentence.endswith("?") or len(sentence) > rules.MAX_CHARS:
            continue
        if len(words(sentence)) < rules.MIN_WORDS or is_acknowledgement(sentence):
            continue
        if rules.REASSURANCE.search(sentence):
            continue
        for rule in rules.CANDIDATES:
            if rule.who not in ("both", who) or not rule.pattern.search(sentence):
                continue
            if rule.reason and who == "agent" and not rules.REASON.search(sentence):
                continue
            if len(words(sentence)) < rules.CONTEXT_WORDS and n + 1 < len(said):
                sentence = f"{sentence} {said[n + 1]}"  # "No, no mocking." says little alone
            found.append((rule.tag, sentence))
            break
    return found


def next_steps(reply: str) -> list[str]:
    """The items listed under a "Next steps" (or "Remaining", "TODO"...) heading."""
    items: list[str] = []
    inside = False
    for line in strip_private(reply).splitlines():
        bare = line.strip().strip("*_#: ").strip()
        if rules.NEXT_HEADING.match(line.strip().strip("*_#").strip()) or rules.NEXT_HEADING.match(
            bare + ":"
        ):
            inside = True
            continue
        if inside:
            if BULLET.match(line):
                items.append(BULLET.sub("", line.strip()))
            elif line.strip():
                inside = False
    return items


# Event names only Gemini CLI gives its hooks (geminicli.com/docs/hooks/reference).
GEMINI_EVENTS = frozenset({"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "PreCompress"})


def hook_agent(payload: dict[str, Any]) -> str:
    """The agent that sent a hook payload: Gemini CLI (its own event names, its shell tool),
    Codex (a Bash result that is the output text; its ``turn_id``, its ``rollout-*``
    session file), else Claude Code (whose Bash result is ``{stdout, stderr, ...}``)."""
    if payload.get("hook_event_name") in GEMINI_EVENTS or payload.get("tool_name") in (
        "run_shell_command",
    ):
        return "gemini"
    response = payload.get("tool_response")
    if isinstance(response, str):
        return "codex"
    if isinstance(response, dict) and ("stdout" in response or "stderr" in response):
        return "claude"
    transcript = payload.get("transcript_path")
    name = transcript.rsplit("/", 1)[-1] if isinstance(transcript, str) else ""
    return "codex" if "turn_id" in payload or name.startswith("rollout-") else "claude"


def hook_failure(payload: dict[str, Any]) -> Failed | None:
    """The failure a PostToolUse or PostToolUseFailure payload (Claude Code), a PostToolUse
    payload (Codex) or an AfterTool payload (Gemini CLI) reports, by the same rules as a
    transcript's (None when it is not one)."""
    from lore.ingest.transcript import reader_module

    event = reader_module(hook_agent(payload)).hook_event(payload)  # that agent's reader only
    return failure_of(event) if event is not None else None
