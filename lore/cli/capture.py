"""``lore capture`` and its shortcuts (remember, learn, fail, observe), plus ``retract``.

Parses flags into field values and renders the result; routing, checks and
storage are ``lore.capture``'s job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import click

from lore.cli._app import App
from lore.cli._options import tag_option
from lore.cli._output import echo, emit_json, json_option, read_text, rule_of_three_note, warn
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

# (option declarations, field name, help, multiple); --help shows each under the
# heading of every kind that takes it (GroupedCommand).
FIELD_OPTIONS: list[tuple[tuple[str, ...], str, str, bool]] = [
    # failure
    (("--error-type",), "error_type", "Error type (e.g. NonZeroExit, Timeout).", False),
    (("--tool",), "tool", "The tool or command that failed.", False),
    (("--step",), "step", "The step of the work where it failed.", False),
    # pattern
    (("--solution",), "solution", "What works.", False),
    (("--problem",), "problem", "The problem it solves.", False),
    (("--context",), "context", "When it applies.", False),
    (("--category",), "category", "A category.", False),
    (("--origin",), "origin", "Where it was learned.", False),
    (
        ("--confidence",),
        "confidence",
        "0-1 for a pattern; preliminary, confirmed, contested or superseded for evidence.",
        False,
    ),
    (("--example",), "examples", "An example (repeatable).", True),
    # anti-pattern
    (("--symptom",), "symptom", "How it shows.", False),
    (("--risk",), "risk", "What it costs.", False),
    (("--fix",), "fix", "How to get out of it.", False),
    (("--severity",), "severity", "One of low, medium, high, critical.", False),
    # evidence
    (("--provenance",), "provenance", "Where it comes from (URL, command, log).", False),
    (("--supports",), "supports", "The ids it backs (comma-separated, repeatable).", True),
    # decision
    (("--rationale", "-r"), "rationale", "Why.", False),
    (
        ("--alternatives", "-a"),
        "alternatives",
        "Options not taken (comma-separated, repeatable).",
        True,
    ),
    (
        ("--type",),
        "type",
        "One of architecture, implementation, naming, tooling, process, bugfix, refactor, other.",
        False,
    ),
    (("--files", "-f"), "files", "Files it touches (comma-separated, repeatable).", True),
    (
        ("--entities", "-e"),
        "entities",
        "Things it touches (comma-separated, repeatable).",
        True,
    ),
    (("--outcome",), "outcome", "One of pending, successful, revised, abandoned.", False),
    (("--lesson",), "lesson_learned", "The lesson learned.", False),
    (("--related",), "related_decisions", "Related decision ids (repeatable).", True),
    (("--supersedes",), "supersedes", "The id of a decision this one replaces.", False),
    # concept
    (("--description",), "description", "What it means.", False),
    (("--alias",), "aliases", "Another name (repeatable).", True),
]
FIELD_NAMES = [name for _, name, _, _ in FIELD_OPTIONS]
# A flag two kinds share, helped as the kind whose heading --help lists it under.
KIND_HELP = {
    ("pattern", "confidence"): "How sure it works, 0-1 (default 0.5).",
    ("evidence", "confidence"): (
        "One of preliminary, confirmed, contested, superseded (default preliminary)."
    ),
}


def common_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Options every capture command shares, in the order --help shows them."""
    options = [
        tag_option(),
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


def field_options(
    *skip: str, kind: str | None = None, only: tuple[str, ...] = ()
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The per-field flags of every kind (less ``skip``). With ``kind`` (a shortcut),
    the flags of other kinds are hidden from --help; given anyway, capture refuses
    them with a usage error that names the kind they belong to. With ``only`` (kinds),
    just the flags those kinds take exist (``inbox promote``: its --to targets)."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        own = _own_fields(kind) if kind else None
        offered = set().union(*(_own_fields(k) for k in only)) if only else None
        for decls, name, help_text, multiple in reversed(FIELD_OPTIONS):
            if name not in skip and (offered is None or name in offered):
                hidden = own is not None and name not in own
                fn = click.option(
                    *decls, name, multiple=multiple, default=None, help=help_text, hidden=hidden
                )(fn)
        return fn

    return decorate


def _own_fields(kind: str) -> set[str]:
    from lore.capture.build import takes

    return {name for name in FIELD_NAMES if takes(kind, name)}


class GroupedCommand(click.Command):
    """A capture command whose --help lists its flags under one heading per kind
    (a shortcut, whose ``kind`` is set, under its own kind's heading only)."""

    kind: str | None = None
    kinds: tuple[str, ...] = ()  # the kinds whose headings --help shows (default: all)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from lore.capture.build import CAPTURE_KINDS, takes

        params = {p.name: p for p in self.get_params(ctx) if isinstance(p, click.Option)}
        fields = [name for name in FIELD_NAMES if name in params]
        sections: list[tuple[str | None, str, list[str]]] = []
        kinds = [k for k in KIND_FLAGS if k in params]
        if kinds:
            sections.append((None, "Kind options (at most one)", kinds))
        for kind in [self.kind] if self.kind else self.kinds or CAPTURE_KINDS:
            own = [name for name in fields if takes(kind, name)]
            sections.append((kind, f"{kind.capitalize()} options", own))
        placed = {name for _, _, names in sections for name in names}
        common = [n for n in params if n not in placed and n not in FIELD_NAMES]
        sections.append((None, "Common options", common))
        for heading_kind, title, names in sections:
            rows = []
            for name in names:
                record = params[name].get_help_record(ctx)
                if record:
                    text = KIND_HELP.get((heading_kind or "", name), record[1])
                    rows.append((record[0], text))
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


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
    from lore.usecases.core import capture

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
        rule_of_three_note(rule)


# Each capture command carries ~45 click options, and building one costs a quarter of a
# millisecond: they are built on first use (module ``__getattr__`` below), so `lore fail`
# builds one command, not five. `lore --help` never builds any (see LAZY_COMMANDS).


def _build_capture() -> click.Command:
    @click.command(name="capture", cls=GroupedCommand)
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
        observation. A flag that is not a field of the chosen kind is a usage error
        (exit 2) and nothing is written. TEXT "-" reads stdin until it closes, however
        long that takes; no TEXT with piped stdin reads it only if something arrives
        within LORE_STDIN_TIMEOUT seconds (default 2).

        \b
        Examples:
          lore capture "Use ruff for lint" -r "one fast tool" -a "flake8,pylint"
          lore capture "Retry on 429" --solution "exponential backoff" -t http
          lore capture "pytest hung" --error-type Timeout --tool pytest
          git log -1 --format=%B | lore capture --decision -
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
    @click.command(name=name, help=doc, cls=GroupedCommand)
    @click.argument("text", required=False)
    @field_options(kind=kind)
    @common_options
    @pass_app
    def command(app: App, text: str | None, **kwargs: Any) -> None:
        body = read_text(text)
        _run(app, body, kind=kind, fields=_fields(kwargs), **kwargs)

    cast(GroupedCommand, command).kind = kind
    return command


def _build_remember() -> click.Command:
    return _shortcut(
        "decision",
        "remember",
        """Record a decision: TEXT, optionally "X because: why vs: a, b".

        Inline "because:" becomes the rationale and "vs:" the alternatives (flags
        win over inline text). File paths and `backticked` terms in TEXT and in the
        rationale (inline or --rationale) join the entities.
        Takes the decision flags below; a flag of another kind is a usage error.

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
    @click.command(name="fail", cls=GroupedCommand)
    @click.argument("error_type")
    @click.argument("message", required=False)
    @field_options("error_type", kind="failure")
    @common_options
    @pass_app
    def fail_cmd(app: App, error_type: str, message: str | None, **kwargs: Any) -> None:
        """Record a failure of ERROR_TYPE with MESSAGE ("-" or piped stdin reads it).

        Recommended error types: UserDeny, HardDeny, NonZeroExit, Timeout, ToolError,
        LogicError, PermissionError, EnvironmentError, UserError, matched in any case
        and stored in this spelling (any other identifier is accepted; a warning
        names a known type an edit or two away). When a type reaches three failures,
        a Rule-of-Three hint is printed on stderr. MESSAGE "-" reads stdin until it
        closes, however long the command before the pipe takes.

        \b
        Examples:
          lore fail NonZeroExit "npm test exited 1" --tool npm --step test
          pytest 2>&1 | tail -n 20 | lore fail NonZeroExit - --tool pytest
        """
        body = read_text(message, what="message")
        fields = _fields(kwargs)
        fields["error_type"] = error_type
        _run(app, body, kind="failure", fields=fields, **kwargs)

    cast(GroupedCommand, fail_cmd).kind = "failure"
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
@click.option("--reason", help="Why it is withdrawn (kept as retraction_reason).")
@click.option(
    "--allow-secret",
    is_flag=True,
    help="Write even if the reason looks like it holds a credential.",
)
@json_option
@pass_app
def retract_cmd(
    app: App, record_id: str, reason: str | None, allow_secret: bool, as_json: bool
) -> None:
    """Withdraw a record: it stays on disk but leaves default listings.

    Works for every kind kept in a log (decisions, failures, observations,
    evidence, concepts, edges: an appended revision line) and for patterns and
    anti-patterns (their YAML file is updated atomically in place). The record
    gains retracted_at and, with --reason, retraction_reason; kinds with a status
    (decision, pattern, anti-pattern, concept, edge) also get status "retracted".
    Retracted failures no longer count toward the Rule of Three.
    """
    from lore.usecases.core import retract

    written = retract(app.store, record_id, reason=reason, allow_secret=allow_secret)
    if as_json:
        emit_json(written.doc)
    else:
        echo(f"retracted {written.record.kind} {written.record.id}")
