"""docs/reference/cli-conventions.md against every option of every command (the whole
click tree, walked): one spelling per meaning, a short flag means one thing, each shared
option is written down, and each old spelling is a hidden alias that still parses."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest
from click.testing import Result

from lore.cli import cli

Run = Callable[..., Result]
DOC = Path(__file__).resolve().parents[2] / "docs" / "reference" / "cli-conventions.md"


def _commands() -> Iterator[tuple[str, click.Command, click.Context]]:
    """(path, command, context) of every command, groups included, root first."""

    def walk(
        command: click.Command, ctx: click.Context
    ) -> Iterator[tuple[str, click.Command, click.Context]]:
        path = " ".join(ctx.command_path.split()[1:])
        yield path, command, ctx
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None and not sub.hidden:
                    yield from walk(sub, click.Context(sub, info_name=name, parent=ctx))

    yield from walk(cli, click.Context(cli, info_name="lore", **cli.context_settings))


def _options() -> Iterator[tuple[str, click.Option, list[str], tuple[str, ...]]]:
    """(command path, option, visible names, hidden aliases) of every option --help shows."""
    for path, command, ctx in _commands():
        for param in command.get_params(ctx):
            if isinstance(param, click.Option) and not param.hidden:
                hidden = tuple(getattr(param, "hidden_aliases", ()))
                names = [n for n in param.opts + param.secondary_opts if n not in hidden]
                yield path, param, names, hidden


def _table(heading: str) -> list[list[str]]:
    """The rows of the first table under ``heading`` (cells stripped, header dropped)."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    rows: list[list[str]] = []
    for line in text[start:].splitlines()[2:]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break
    assert len(rows) > 2, heading
    return rows[2:]  # past the header and the --- line


def _code(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _flag(cell: str) -> str:
    """The option in ``--limit N``: ``--limit``."""
    [code] = _code(cell) or [""]
    return code.split()[0] if code else ""


def test_a_short_flag_means_one_thing_everywhere() -> None:
    documented = {_flag(row[0]): _flag(row[1]) for row in _table("### Short flags")}
    used: dict[str, set[str]] = defaultdict(set)
    for path, _, names, _ in _options():
        longs = [n for n in names if n.startswith("--")]
        for short in (n for n in names if not n.startswith("--")):
            used[short].add(f"{longs[0]} ({path or 'lore'})")
    meanings = {short: {entry.split()[0] for entry in where} for short, where in used.items()}
    assert {s: m for s, m in meanings.items() if len(m) > 1} == {}
    assert {short: next(iter(m)) for short, m in meanings.items()} == documented


def test_a_long_option_has_the_same_short_flag_everywhere() -> None:
    shorts: dict[str, dict[tuple[str, ...], list[str]]] = defaultdict(lambda: defaultdict(list))
    for path, _, names, _ in _options():
        flags = tuple(sorted(n for n in names if not n.startswith("--")))
        for long in (n for n in names if n.startswith("--")):
            shorts[long][flags].append(path or "lore")
    assert {long: dict(seen) for long, seen in shorts.items() if len(seen) > 1} == {}


def test_every_shared_option_is_written_down_with_its_short_flag() -> None:
    commands: dict[str, set[str]] = defaultdict(set)
    short_of: dict[str, str] = {}
    for path, _, names, _ in _options():
        primary = next((n for n in names if n.startswith("--")), None)
        if primary is None or primary in ("--help", "--version"):
            continue
        commands[primary].add(path)
        short_of[primary] = next((n for n in names if not n.startswith("--")), "")
    shared = {long for long, where in commands.items() if len(where) > 1}
    rows = _table("### Shared options")
    documented = {_flag(row[0]): _flag(row[1]) for row in rows}
    assert len(documented) == len(rows), "an option is listed twice"
    assert sorted(shared - set(documented)) == []  # used by 2+ commands, not written down
    assert sorted(set(documented) - shared) == []  # written down, no longer shared
    assert {long: short_of[long] for long in shared} == documented


def _aliases_in_code() -> set[tuple[str, str, str]]:
    found = set()
    for path, _, names, hidden in _options():
        primary = next(n for n in names if n.startswith("--"))
        found |= {(path, alias, primary) for alias in hidden}
    return found


def _aliases_in_doc() -> set[tuple[str, str, str]]:
    found = set()
    for commands, old, now in _table("## Old spellings"):
        for command in _code(commands):
            found.add((command, _flag(old), _flag(now)))
    return found


def test_every_old_spelling_is_a_documented_hidden_alias() -> None:
    assert _aliases_in_code() == _aliases_in_doc()
    visible = {(path, name) for path, _, names, _ in _options() for name in names}
    for path, old, _ in _aliases_in_doc():
        assert (path, old) not in visible
        assert old not in _help_options(path)


def _help_options(path: str) -> set[str]:
    """The flags the options section of ``lore PATH --help`` shows."""
    for where, command, ctx in _commands():
        if where == path:
            text = command.get_help(ctx)
            section = text[text.find("Options:") :] if "Options:" in text else text
            return set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", section))
    raise AssertionError(f"no command {path!r}")


@pytest.mark.parametrize(
    ("args", "field", "value"),
    [
        (["capture", "note", "--tags", "a,b", "--json"], "tags", ["a", "b"]),
        (["observe", "note", "--tags", "a", "--json"], "tags", ["a"]),
        (["goal", "create", "Ship it", "--tags", "a", "--json"], "tags", ["a"]),
        (["goal", "create", "Ship it", "-t", "a,b", "--json"], "tags", ["a", "b"]),
        (
            ["graph", "add", "concept", "Cache", "--definition", "A store", "--json"],
            "description",
            "A store",
        ),
        (
            ["graph", "add", "concept", "Cache", "--description", "A store", "--json"],
            "description",
            "A store",
        ),
        (
            ["capture", "--concept", "Cache", "--description", "A store", "--json"],
            "description",
            "A store",
        ),
    ],
)
def test_old_and_new_spellings_write_the_same(
    run: Run, args: list[str], field: str, value: object
) -> None:
    import json

    result = run(*args)
    assert result.exit_code == 0, result.output
    reply = json.loads(result.stdout)
    record = reply.get("record", reply)
    assert record[field] == value


def test_old_spellings_of_filters_still_filter(run: Run) -> None:
    import json

    def ids(*args: str) -> list[str]:
        result = run(*args, "--json")
        assert result.exit_code == 0, result.output
        doc = json.loads(result.stdout)
        items = doc["failures"] if isinstance(doc, dict) else doc
        return [item["id"] for item in items]

    old = json.loads(run("remember", "Use ruff", "--json").stdout)["id"]
    new = json.loads(run("remember", "Use uv", "--json").stdout)["id"]
    assert ids("journal", "list", "--recent", "1") == ids("journal", "list", "-n", "1")
    assert len(ids("journal", "list", "--limit", "1")) == 1
    assert set(ids("journal", "list")) == {old, new}
    fail = json.loads(run("fail", "Timeout", "slow", "--json").stdout)["id"]
    run("fail", "NonZeroExit", "exit 1")
    assert ids("failures", "--type", "Timeout") == [fail]
    assert ids("failures", "--error-type", "Timeout") == [fail]
    edge = run("graph", "link", old, new, "-r", "relates_to", "--json")
    assert edge.exit_code == 0, edge.output
    assert run("graph", "unlink", old, new, "--relation", "relates_to").exit_code == 0


GROUPS_WITH_HELP = ["graph", "graph add", "hooks", "transfer", "index", "engram"]


@pytest.mark.parametrize("group", GROUPS_WITH_HELP)
def test_a_group_without_a_default_prints_its_help_and_exits_0(run: Run, group: str) -> None:
    result = run(*group.split())
    assert result.exit_code == 0
    assert re.match(rf"Usage: \S+ {group} \[OPTIONS\] \[COMMAND\] \[ARGS\]\.\.\.\n", result.stdout)
    assert result.stderr == ""


def test_every_group_alone_exits_0(run: Run) -> None:
    """No group answers "missing command" (exit 2) when run alone."""
    groups = [path for path, command, _ in _commands() if isinstance(command, click.Group)]
    assert set(GROUPS_WITH_HELP) <= set(groups)
    for group in groups:
        if not group or group == "mcp":  # bare lore is its help; lore mcp serves on stdio
            continue
        result = run(*group.split())
        assert result.exit_code == 0, (group, result.output)
