"""Every command that takes --since or --until says which times it reads, in the same words
(the forms of ``lore.timeexpr``), so no command's help goes stale on its own."""

from __future__ import annotations

from collections.abc import Iterator

import click

from lore.cli import LAZY_COMMANDS, cli
from lore.cli.recall import SINCE_HELP, UNTIL_HELP


def commands(
    group: click.Group, ctx: click.Context, path: str
) -> Iterator[tuple[str, click.Command]]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        yield f"{path} {name}", command
        if isinstance(command, click.Group):
            yield from commands(command, ctx, f"{path} {name}")


def test_every_since_and_until_option_names_the_same_forms() -> None:
    ctx = click.Context(cli)
    found = {}
    for path, command in commands(cli, ctx, "lore"):
        for param in command.params:
            if isinstance(param, click.Option) and param.opts[0] in ("--since", "--until"):
                found[f"{path} {param.opts[0]}"] = param.help
    assert {"lore recall --since", "lore failures --until", "lore journal list --since"} <= set(
        found
    )
    expected = {"--since": SINCE_HELP, "--until": UNTIL_HELP}
    assert {k: v for k, v in found.items() if v != expected[k.rsplit(" ", 1)[1]]} == {}
    assert len(LAZY_COMMANDS) > 10
