"""``lore capture`` and its shortcuts (remember, learn, fail, observe), plus ``retract``.

Parses flags into field values and renders the result; routing, checks and
storage are ``lore.capture``'s job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option, note, read_text, warn
from lore.errors import UsageError

pass_app = click.make_pass_decorator(App)

KIND_FLAGS = (
    "decision",
    "pattern",
    "anti_pattern",
    "failure",
    "observation",
    "evidence",
    "concept",
)

# (option declarations, field name, help, multiple)
FIELD_OPTIONS: list[tuple[tuple[str, ...], str, str, bool]] = [
    # failure
    (("--error-type",), "error_type", "Failure: error type (e.g. NonZeroExit, Timeout).", False),
    (("--tool",), "tool", "Failure: the tool or command that failed.", False),
    (("--step",), "step", "Failure: the step of the work where it failed.", False),
    # pattern
    (("--solution",), "solution", "Pattern: what works.", False),
    (("--problem",), "problem", "Pattern: the problem it solves.", False),
    (("--context",), "context", "Pattern: when it applies.", False),
    (("--category",), "category", "Pattern / anti-pattern: a category.", False),
    (("--origin",), "origin", "Pattern: where it was learned.", False),
    (
        ("--confidence",),
        "confidence",
        "Pattern: 0-1. Evidence: preliminary|confirmed|contested|superseded.",
        False,
    ),
    (("--example",), "examples", "Pattern: an example (repeatable).", True),
    # anti-pattern
    (("--symptom",), "symptom", "Anti-pattern: how it shows.", False),
    (("--risk",), "risk", "Anti-pattern: what it costs.", False),
    (("--fix",), "fix", "Anti-pattern: how to get out of it.", False),
    (("--severity",), "severity", "Anti-pattern: low|medium|high|critical.", False),
    # evidence
    (("--provenance",), "provenance", "Evidence: where it comes from (URL, command, log).", False),
    (("--supports",), "supports", "Evidence: ids it backs (comma-separated, repeatable).", True),
    # decision
    (("--rationale", "-r"), "rationale", "Decision: why.", False),
    (
        ("--alternatives", "-a"),
        "alternatives",
        "Decision: options not taken (comma-separated, repeatable).",
        True,
    ),
    (
        ("--type",),
        "type",
        "Decision: architecture, implementation, naming, tooling, process, bugfix, "
        "refactor or other.",
        False,
    ),
    (("--files", "-f"), "files", "Decision: files it touches (comma-separated, repeatable).", True),
    (
        ("--entities", "-e"),
        "entities",
        "Decision: things it touches (comma-separated, repeatable).",
        True,
    ),
    (("--outcome",), "outcome", "Decision: pending|successful|revised|abandoned.", False),
    (("--lesson",), "lesson_learned", "Decision: the lesson learned.", False),
    (("--related",), "related_decisions", "Decision: related decision ids (repeatable).", True),
    (("--supersedes",), "supersedes", "Decision: the id of a decision this one replaces.", False),
    # concept
    (("--description",), "description", "Concept: what it means.", False),
    (("--alias",), "aliases", "Concept: another name (repeatable).", True),
]
FIELD_NAMES = [name for _, name, _, _ in FIELD_OPTIONS]


def common_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Options every capture command shares, in the order --help shows them."""
    options = [
        click.option(
            "--tags", "-t", "tags", multiple=True, help="Tags (comma-separated, repeatable)."
        ),
        click.option("--source", help="Where this came from (default: manual)."),
        click.option("--project", help="Project name (default: the git repository's name)."),
        click.option("--force", is_flag=True, help="Record even if a near-duplicate exists."),
        click.option(
            "--allow-secret",
            is_flag=True,
            help="Write even if the text looks like it holds a credential.",
        ),
        click.option("--quiet", "-q", is_flag=True, help="Print only the new id."),
        json_option,
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def field_options(*skip: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The per-field flags of every kind (less ``skip``), so shortcuts take them too."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        for decls, name, help_text, multiple in reversed(FIELD_OPTIONS):
            if name not in skip:
                fn = click.option(*decls, name, multiple=multiple, default=None, help=help_text)(fn)
        return fn

    return decorate


def _fields(kwargs: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name in FIELD_NAMES:
        value = kwargs.pop(name, None)
        if isinstance(value, tuple):
            value = list(value) or None
        if value is not None:
            out[name] = value
    return out


def _run(
    app: App,
    text: str,
    *,
    kind: str | None,
    fields: dict[str, Any],
    tags: tuple[str, ...],
    source: str | None,
    project: str | None,
    force: bool,
    allow_secret: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    from lore.commands import capture

    written = capture(
        app.store,
        text,
        kind=kind,
        fields=fields,
        tags=tags,
        project=project,
        source=source,
        force=force,
        allow_secret=allow_secret,
    )
    record = written.record
    for message in written.warnings:
        warn(message)
    rule = written.doc.get("rule_of_three")
    if as_json:
        emit_json(written.doc)
    elif quiet:
        echo(record.id)
    else:
        title = " ".join(record.title.split())
        echo(f"{record.kind} {record.id}: {title[:72]}{'…' if len(title) > 72 else ''}")
    if rule:
        note(
            f"Rule of Three: {rule['count']} failures of type {rule['error_type']}. "
            f'Name the pattern: lore learn "..." --solution "..." --tags {rule["error_type"]}'
        )


# Each capture command carries ~45 click options, and building one costs a quarter of a
# millisecond: they are built on first use (module ``__getattr__`` below), so `lore fail`
# builds one command, not five. `lore --help` never builds any (see LAZY_COMMANDS).


def _build_capture() -> click.Command:
    @click.command(name="capture")
    @click.argument("text", required=False)
    @click.option("--decision", "decision", is_flag=True, help="Record a decision.")
    @click.option("--pattern", "pattern", is_flag=True, help="Record a pattern (lesson).")
    @click.option("--anti-pattern", "anti_pattern", is_flag=True, help="Record an anti-pattern.")
    @click.option("--failure", "failure", is_flag=True, help="Record a failure.")
    @click.option("--observation", "observation", is_flag=True, help="Record a raw observation.")
    @click.option("--evidence", "evidence", is_flag=True, help="Record a piece of evidence.")
    @click.option("--concept", "concept", is_flag=True, help="Record a concept.")
    @field_options()
    @common_options
    @pass_app
    def capture_cmd(app: App, text: str | None, **kwargs: Any) -> None:
        """Record TEXT as a decision, pattern, failure, observation, evidence or concept.

        An explicit kind flag wins; otherwise failure flags (--error-type, --tool,
        --step) beat anti-pattern flags (--symptom, --risk, --fix, --severity) beat
        pattern flags (--solution, --problem, --context, --category, --origin,
        --confidence, --example) beat evidence flags (--provenance, --supports) beat
        decision flags (--rationale, --alternatives, --type, --files, --entities,
        --outcome, --lesson, --related, --supersedes); with none of them TEXT is an
        observation. TEXT "-", or no TEXT with piped stdin, reads stdin.

        \b
        Examples:
          lore capture "Use ruff for lint" -r "one fast tool" -a "flake8,pylint"
          lore capture "Retry on 429" --solution "exponential backoff" -t http
          lore capture "pytest hung" --error-type Timeout --tool pytest
          git log -1 --format=%B | lore capture --decision
        """
        chosen = [k for k in KIND_FLAGS if kwargs.pop(k)]
        if len(chosen) > 1:
            flags = ", ".join("--" + k.replace("_", "-") for k in chosen)
            raise UsageError(f"choose one kind, not {flags}")
        kind = chosen[0].replace("_", "-") if chosen else None
        body = read_text(text)
        fields = _fields(kwargs)
        _run(app, body, kind=kind, fields=fields, **kwargs)

    return capture_cmd


def _shortcut(kind: str, name: str, doc: str) -> click.Command:
    @click.command(name=name, help=doc)
    @click.argument("text", required=False)
    @field_options()
    @common_options
    @pass_app
    def command(app: App, text: str | None, **kwargs: Any) -> None:
        body = read_text(text)
        _run(app, body, kind=kind, fields=_fields(kwargs), **kwargs)

    return command


def _build_remember() -> click.Command:
    return _shortcut(
        "decision",
        "remember",
        """Record a decision: TEXT, optionally "X because: why vs: a, b".

        Inline "because:" becomes the rationale and "vs:" the alternatives (flags
        win over inline text). File paths and `backticked` terms join the entities.
        Same flags as `lore capture`.

        \b
        Examples:
          lore remember "Store sessions as JSON files because: merge-safe vs: sqlite, one yaml"
          lore remember "Pin click<9" -r "8.x API" --type tooling -f pyproject.toml
        """,
    )


def _build_learn() -> click.Command:
    return _shortcut(
        "pattern",
        "learn",
        """Record a pattern (a lesson): TEXT is its name.

        \b
        Example:
          lore learn "Retry flaky network calls" --solution "3 tries, backoff" --context "CI"
        """,
    )


def _build_observe() -> click.Command:
    return _shortcut(
        "observation",
        "observe",
        """Record a raw observation for later triage.

        \b
        Example:
          lore observe "Docs build takes 4 minutes on CI"
        """,
    )


def _build_fail() -> click.Command:
    @click.command(name="fail")
    @click.argument("error_type")
    @click.argument("message", required=False)
    @field_options("error_type")
    @common_options
    @pass_app
    def fail_cmd(app: App, error_type: str, message: str | None, **kwargs: Any) -> None:
        """Record a failure of ERROR_TYPE with MESSAGE ("-" or piped stdin reads it).

        Recommended error types: UserDeny, HardDeny, NonZeroExit, Timeout, ToolError,
        LogicError, PermissionError, EnvironmentError, UserError (any identifier is
        accepted). When a type reaches three failures, a Rule-of-Three hint is
        printed on stderr.

        \b
        Example:
          lore fail NonZeroExit "npm test exited 1" --tool npm --step test
        """
        body = read_text(message, what="message")
        fields = _fields(kwargs)
        fields["error_type"] = error_type
        _run(app, body, kind="failure", fields=fields, **kwargs)

    return fail_cmd


_BUILDERS: dict[str, Callable[[], click.Command]] = {
    "capture_cmd": _build_capture,
    "remember_cmd": _build_remember,
    "learn_cmd": _build_learn,
    "observe_cmd": _build_observe,
    "fail_cmd": _build_fail,
}


def __getattr__(name: str) -> click.Command:
    """``capture_cmd``, ``remember_cmd``, ... built on first access, then kept."""
    builder = _BUILDERS.get(name)
    if builder is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    command = globals()[name] = builder()
    return command


@click.command(name="retract")
@click.argument("record_id")
@click.option("--reason", help="Why it is withdrawn (kept with the revision).")
@json_option
@pass_app
def retract_cmd(app: App, record_id: str, reason: str | None, as_json: bool) -> None:
    """Withdraw a record: it stays on disk but leaves default listings.

    Works for decisions, patterns, anti-patterns, concepts and edges (kinds whose
    status can be "retracted"). For logs the change is an appended revision line
    carrying --reason; documents (patterns) are updated atomically in place with
    retracted_at and retraction_reason.
    """
    from lore.commands import retract

    written = retract(app.store, record_id, reason=reason)
    if as_json:
        emit_json(written.doc)
    else:
        echo(f"retracted {written.record.kind} {written.record.id}")
