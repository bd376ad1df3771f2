"""The ``lore`` command: a lazy click group, global options and error rendering.

Subcommands live in their own modules and are imported only when invoked (or
listed by ``--help``), so ``lore capture`` never pays for networkx or rich tables.
This package is the only place that prints or exits.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from lore import __version__
from lore.errors import EXIT_INTERRUPTED, LoreError

# command name -> ("module:function" relative to lore.cli, one-line help for `lore --help`).
# The one-liners live here so `lore --help` imports no command module; a contract
# test checks each equals the first line of the command's own docstring.
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "resume": ("session:resume_cmd", "Print what the last session left, most useful first."),
    "capture": (
        "capture:capture_cmd",
        "Record TEXT as a decision, pattern, failure, observation, evidence or concept.",
    ),
    "remember": (
        "capture:remember_cmd",
        'Record a decision: TEXT, optionally "X because: why vs: a, b".',
    ),
    "learn": ("capture:learn_cmd", "Record a pattern (a lesson): TEXT is its name."),
    "fail": (
        "capture:fail_cmd",
        'Record a failure of ERROR_TYPE with MESSAGE ("-" or piped stdin reads it).',
    ),
    "observe": ("capture:observe_cmd", "Record a raw observation for later triage."),
    "handoff": (
        "session:handoff_cmd",
        'End the current session with MESSAGE for the next one ("-" reads stdin).',
    ),
    "recall": ("recall:recall_cmd", "Search every kind of record for QUERY, best match first."),
    "search": ("recall:search_cmd", "Search every kind of record for QUERY, best match first."),
    "context": (
        "recall:context_cmd",
        "Show PROJECT's context: registry entry, decisions, patterns, failures, goals.",
    ),
    "brief": (
        "recall:brief_cmd",
        "Brief on TOPIC: its decisions, patterns, failures and contradictions.",
    ),
    "failures": ("recall:failures_cmd", "List failures newest first, with counts per error type."),
    "triggers": (
        "recall:triggers_cmd",
        "List error types with --threshold or more failures (default 3).",
    ),
    "timeline": (
        "timeline:timeline_cmd",
        "Count records by year, month, ISO week and day, each period with a digest.",
    ),
    "ingest": (
        "ingest:ingest_cmd",
        "Learn from agent sessions: failures, candidates and digests from transcripts.",
    ),
    "show": (
        "records:show_cmd",
        "Print the record with id RECORD_ID (any kind) in its latest state.",
    ),
    "list": ("records:list_cmd", "List records of KIND, newest first."),
    "patterns": ("patterns:patterns_cmd", "Work with patterns and anti-patterns (default: list)."),
    "suggest": (
        "patterns:suggest_cmd",
        "Suggest the patterns that fit CONTEXT, and the anti-patterns to watch for.",
    ),
    "goal": ("goal:goal_cmd", "Create, list, show and update goals (default: list)."),
    "registry": (
        "registry:registry_cmd",
        "Register projects and bundle their context (default: list).",
    ),
    "retract": (
        "capture:retract_cmd",
        "Withdraw a record: it stays on disk but leaves default listings.",
    ),
    "review": (
        "feedback:review_cmd",
        "List decisions pending review, or resolve one with --resolve ID --outcome O.",
    ),
    "stale": (
        "dynamics:stale_cmd",
        "List records whose files changed, moved or vanished since they were captured.",
    ),
    "consolidate": (
        "consolidate:consolidate_cmd",
        "Propose merges, settlements, archives and reviews that tend the memory.",
    ),
    "archive": (
        "dynamics:archive_cmd",
        "Move settled records out of the default views (a revision: status archived).",
    ),
    "unarchive": (
        "dynamics:unarchive_cmd",
        "Bring archived records back into the default views, with the status they had.",
    ),
    "pin": (
        "dynamics:pin_cmd",
        "Pin records: their activation never decays (a revision: pinned true).",
    ),
    "unpin": ("dynamics:unpin_cmd", "Unpin records: their activation decays again with their age."),
    "promote-failure": (
        "feedback:promote_failure_cmd",
        'Turn recurring failures into a "PITFALL: TYPE" anti-pattern.',
    ),
    "journal": (
        "journal:journal_cmd",
        "Work with decisions: list, query, update, link, supersede, export (default: list).",
    ),
    "inbox": (
        "inbox:inbox_cmd",
        "Triage observations: list them (default: the raw ones), promote or discard one.",
    ),
    "evidence": (
        "evidence:evidence_cmd",
        "Record and weigh evidence: add, list, show, update, stats (default: list).",
    ),
    "sessions": ("session:sessions_cmd", "List and show sessions (default: list)."),
    "transfer": ("session:transfer_cmd", "Housekeeping for sessions."),
    "import": (
        "bulk:import_cmd",
        "Import records from a JSONL FILE (or - for stdin), or a bash-lore data root.",
    ),
    "export": (
        "bulk:export_cmd",
        "Write every record of every kind, with its history, as JSONL `lore import` reads.",
    ),
    "validate": ("validate:validate_cmd", "Check every data file; exit 4 if anything is wrong."),
    "doctor": (
        "doctor:doctor_cmd",
        "Check the data root and its surroundings; exit 4 if an error remains.",
    ),
    "scan": (
        "scan:scan_cmd",
        "Find credentials already stored in the data root; exit 7 if any is found.",
    ),
    "index": (
        "recall:index_cmd",
        "Manage the derived search index (it lives outside the data root).",
    ),
    "graph": (
        "graph:graph_cmd",
        "Query, export and curate the knowledge graph derived from every record.",
    ),
    "concepts": (
        "concepts:concepts_cmd",
        "List concepts, propose new ones from clusters of similar records, promote them.",
    ),
    "hooks": ("hooks:hooks_cmd", "Install, remove, run and pause the agent hooks."),
    "mcp": ("mcp:mcp_cmd", "Run lore as an MCP server on stdio (for coding agents)."),
    "ui": (
        "ui:ui_cmd",
        "Browse the memory in a local web app: search, records, timeline, graph, queues.",
    ),
    "demo": (
        "demo:demo_cmd",
        "Play the whole loop on a throwaway data root, showing each command.",
    ),
    "init": ("admin:init_cmd", "Create <root>/<component>/data/ for all nine components."),
    "paths": (
        "admin:paths_cmd",
        "Print the resolved data root and every component's data directory.",
    ),
    "sync": (
        "sync:sync_cmd",
        "Commit lore's changes in a git data root, pull, push; report what moved.",
    ),
    "engram": (
        "engram:engram_cmd",
        "Bridge to Engram's memory database: sync shadows of lore's records, promote memories.",
    ),
    "help": ("admin:help_cmd", "Show the help of lore or of COMMAND (e.g. lore help recall)."),
}


class LoreGroup(click.Group):
    """A group whose subcommands are imported on first use, in a fixed order."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(LAZY_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = LAZY_COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, attr = entry[0].split(":")
        from importlib import import_module

        module = import_module(f"lore.cli.{module_name}")
        command: click.Command = getattr(module, attr)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0]
        if name not in LAZY_COMMANDS and not ctx.resilient_parsing and not name.startswith("-"):
            raise click.UsageError(unknown_command_message(name), ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_text) for name, (_, help_text) in LAZY_COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            result = super().invoke(ctx)
            _warn_if_missing(ctx)
            return result
        except LoreError as exc:
            from lore.cli._output import emit_error

            emit_error(exc, as_json=bool(ctx.meta.get("lore.json")))
            raise click.exceptions.Exit(exc.exit_code) from None
        except BrokenPipeError:
            # The reader went away (`lore list | head`). click's own main() would turn
            # EPIPE into exit 1 before lore's main() sees it; the contract says 0.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise click.exceptions.Exit(0) from None
        except OSError as exc:
            # A file system refusal (permissions, a file where a directory should be,
            # a full disk) is the user's to fix, not an internal error: say which path.
            from lore.cli._output import emit_error

            where = f": {exc.filename}" if exc.filename else ""
            error = LoreError(f"{exc.strerror or exc}{where}", path=exc.filename)
            emit_error(error, as_json=bool(ctx.meta.get("lore.json")))
            raise click.exceptions.Exit(error.exit_code) from None


def unknown_command_message(name: str) -> str:
    """``No such command 'recal'.`` plus the closest commands, as git says it."""
    from difflib import get_close_matches

    close = get_close_matches(name, list(LAZY_COMMANDS), n=3, cutoff=0.6)
    message = f"No such command {name!r}."
    if close:
        message += " Did you mean " + " or ".join(repr(c) for c in close) + "?"
    return message


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=LoreGroup, context_settings=CONTEXT_SETTINGS, invoke_without_command=True)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=str),
    default=None,
    help="Data root to use (overrides LORE_DATA_DIR and every default).",
)
@click.version_option(__version__, "-V", "--version", prog_name="lore")
@click.pass_context
def cli(ctx: click.Context, data_dir: str | None) -> None:
    """lore: durable, git-native memory for AI coding agents and shell scripts.

    \b
    Start a session:   lore resume
    Record as you go:  lore remember "Use X because: Y vs: Z"
                       lore learn "Retry with backoff" --solution "..."
                       lore fail NonZeroExit "pytest exited 1"
                       lore observe "The CI cache is cold on Mondays"
    Look things up:    lore show ID, lore list decisions
    Check the data:    lore validate

    Data lives under one root (see `lore paths`); stdout carries data, stderr
    messages, and every read command takes --json.
    """
    if ctx.invoked_subcommand is None:
        # Bare `lore` is a request for help, not a mistake: print it and exit 0.
        click.echo(ctx.get_help())
        ctx.exit(0)
    from lore.cli._app import App

    app = ctx.obj = App(data_dir)
    message = root_warning(app.root)
    if message:
        from lore.cli._output import warn

        warn(message)
    missing = app.root.source in ("option", "env") and not app.root.path.exists()
    if missing and ctx.invoked_subcommand not in QUIET_ON_MISSING:
        ctx.meta["lore.missing_root"] = app.root


# Commands that report a missing data root themselves, or create it.
QUIET_ON_MISSING = frozenset(
    {"paths", "init", "doctor", "validate", "demo", "help", "hooks", "mcp", "ui"}
)


def _warn_if_missing(ctx: click.Context) -> None:
    """After a command ran to its end (not for --help or an error): a data root named by
    --data-dir or LORE_DATA_DIR that did not exist and that the command did not create (it
    only read) is said on stderr, so a mistyped path is not taken for an empty memory.
    Nothing changes on stdout or in the exit code."""
    root = ctx.meta.get("lore.missing_root")
    if root is None or root.path.exists():
        return
    from lore.cli._output import warn

    how = "--data-dir" if root.source == "option" else "LORE_DATA_DIR"
    warn(
        f"the data root {root.path} ({how}) does not exist: nothing was read from it; "
        "check the path, or create it with: lore init"
    )


def root_warning(root: Any) -> str | None:
    """What every command says while the data root is at risk or was moved away."""
    from lore.paths import default_root

    if root.moved_from is not None:
        how = {"option": "--data-dir", "env": "LORE_DATA_DIR"}.get(root.source)
        fix = f"point {how} at it" if how else f"set LORE_DATA_DIR={root.path}"
        return (
            f"the data root {root.moved_from} was moved to {root.path} (lore paths "
            f"--move-to): using {root.path}; {fix} to stop this warning"
        )
    if root.source == "checkout":
        return (
            f"the data root {root.path} is inside lore's source checkout, which git ignores "
            "(git clean -xdf, or deleting or re-cloning the checkout, erases it); move it "
            f"with: lore paths --move-to {default_root()}"
        )
    return None


def _mask(exc: click.ClickException) -> None:
    """Mask any credential click's message quotes from the command line ("No such option
    '-----BEGIN RSA PRIVATE KEY-----…'" for a key passed where an option was expected)."""
    from lore.secrets.gate import redact

    message = exc.format_message()
    masked = redact(message)
    if masked != message:
        exc.format_message = lambda: masked  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: exit codes per LORE_CONTRACT.md."""
    args = sys.argv[1:] if argv is None else argv
    try:
        # Without standalone mode click returns the exit code of a ctx.exit() /
        # Exit instead of raising it; commands themselves return None.
        code = cli.main(args=args, prog_name="lore", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        _mask(exc)
        if "--json" in args:
            from lore.cli._output import emit_json

            emit_json({"ok": False, "error": exc.format_message(), "code": "usage"})
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("lore: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except KeyboardInterrupt:
        click.echo("lore: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except BrokenPipeError:
        # The reader went away (`lore list | head`): not an error worth a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)
    except LoreError as exc:  # raised outside a command (rare)
        from lore.cli._output import emit_error

        emit_error(exc, as_json="--json" in args)
        sys.exit(exc.exit_code)
    except Exception as exc:
        if os.environ.get("LORE_DEBUG"):
            raise
        if "--json" in args:
            from lore.cli._output import emit_json

            emit_json({"ok": False, "error": f"{type(exc).__name__}: {exc}", "code": "internal"})
        click.echo(
            f"lore: internal error: {type(exc).__name__}: {exc} (set LORE_DEBUG=1 for a traceback)",
            err=True,
        )
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
