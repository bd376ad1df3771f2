"""Options that several commands share, spelled once (docs/reference/cli-conventions.md),
and ``AliasOption``: an option whose old spellings still parse but leave --help.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import click

SINCE_HELP = "Only records since a time: 2026-05-12, 2026-05, 2026-W19, 7d, yesterday, last week..."
UNTIL_HELP = "Only records before the end of a time (same forms; 7d: older than 7 days)."
TAG_FILTER_HELP = "Only records with this tag (comma-separated, repeatable: all of them)."
TAGS_HELP = "Tags (comma-separated, repeatable)."


class AliasOption(click.Option):
    """A click option with ``hidden_aliases``: old spellings a script may still use. They
    parse like the option's own names, but --help (and the CLI reference built from it)
    shows only the current spelling."""

    def __init__(
        self, param_decls: list[str], *, hidden_aliases: Iterable[str] = (), **attrs: Any
    ) -> None:
        self.hidden_aliases = tuple(hidden_aliases)
        super().__init__([*param_decls, *self.hidden_aliases], **attrs)

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        opts, secondary = self.opts, self.secondary_opts
        self.opts = [o for o in opts if o not in self.hidden_aliases]
        self.secondary_opts = [o for o in secondary if o not in self.hidden_aliases]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts, self.secondary_opts = opts, secondary


def split_values(values: Iterable[str] | None) -> list[str]:
    """A comma-separated, repeatable option's values: ``-t a,b -t c`` -> [a, b, c]."""
    out: list[str] = []
    for value in values or ():
        for part in str(value).split(","):
            part = part.strip()
            if part and part not in out:
                out.append(part)
    return out


def tag_option(help: str = TAGS_HELP) -> Any:
    """``-t``/``--tag TAG``, repeatable and comma-separated: a record's tags, or (with
    TAG_FILTER_HELP) a filter. ``--tags`` is the old spelling of the capture commands."""
    return click.option(
        "--tag",
        "-t",
        "tags",
        cls=AliasOption,
        hidden_aliases=("--tags",),
        multiple=True,
        help=help,
    )


def limit_option(default: int, help: str, **extra: Any) -> Any:
    """``-n``/``--limit N``: at most N results (0: all)."""
    return click.option(
        "--limit", "-n", type=click.IntRange(min=0), default=default, help=help, **extra
    )


def kind_filter_option(help: str = "Only this kind (repeatable; plurals work).") -> Any:
    """``-k``/``--kind KIND``: only records of this kind."""
    return click.option("--kind", "-k", "kinds", multiple=True, help=help)


def error_type_filter_option(help: str) -> Any:
    """``--error-type TYPE`` as a filter (``--type`` is its old spelling in recall)."""
    return click.option(
        "--error-type", "error_type", cls=AliasOption, hidden_aliases=("--type",), help=help
    )


def help_when_alone(ctx: click.Context) -> None:
    """A group with no default subcommand, run alone, prints its help on stdout and exits
    0, as bare ``lore`` does (click would print it on stderr and exit 2)."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
        ctx.exit(0)
