"""Shell command lines as the rules read them: split into segments (``&&``, ``||``, ``;``,
``|``, new lines, outside quotes), each segment's program (after ``WRAPPERS`` and variable
assignments), and the key that tells "the same command" apart within a session."""

from __future__ import annotations

import re

from lore.ingest import rules

SPLIT = re.compile(r"""'[^']*'|"(?:[^"\\]|\\.)*"|\$\((?:[^()]|\([^()]*\))*\)|(&&|\|\||[;|\n&])""")
REDIRECT = re.compile(r"\s+\d?>>?\s*(?:&\d|/dev/null|\S+)|\s+<\s*\S+")
FD_REDIRECT = re.compile(r"\d*>&\d+|&>>?")  # 2>&1, &>file: not a separator
FILTERS = frozenset(
    {"head", "tail", "wc", "sort", "uniq", "cut", "tr", "cat", "less", "tee", "column"}
)
TRAILING = re.compile(r"\s*\|\s*(?:head|tail|less|cat|wc|tee|sort|uniq)(?:\s+-?[\w=-]+)*\s*$")


def segments(command: str) -> list[str]:
    """The command's segments, in order, outside quotes and ``$(...)``."""
    command = FD_REDIRECT.sub(" ", command)
    parts: list[str] = []
    start = 0
    for match in SPLIT.finditer(command):
        if match.group(1) is None:
            continue
        parts.append(command[start : match.start()])
        start = match.end()
    parts.append(command[start:])
    return [p.strip() for p in parts if p.strip()]


def program(segment: str) -> str:
    """A segment without assignments, wrappers and redirections: what runs, with its args."""
    text = REDIRECT.sub("", segment.strip().lstrip("(").rstrip(")").strip())
    for _ in range(3):
        stripped = rules.WRAPPERS.sub("", rules.ASSIGNMENT.sub("", text))
        if stripped == text:
            break
        text = stripped
    return " ".join(text.split())


def programs(command: str) -> list[str]:
    """Every segment's program that does work (``cd``, ``echo``, ``export``... left out)."""
    found = []
    for segment in segments(command):
        prog = program(segment)
        if prog and prog.split()[0] not in rules.SETUP:
            found.append(prog)
    return found


def key(command: str) -> str:
    """What makes two runs "the same command": whitespace collapsed, a leading ``cd DIR &&``
    and a trailing ``2>&1`` or ``| tail -n 20`` dropped."""
    text = " ".join(command.split())
    text = re.sub(r"^cd \S+ && ", "", text)
    text = re.sub(r"\s+2>&1\b", "", text)
    previous = None
    while previous != text:
        previous, text = text, TRAILING.sub("", text)
    return text.strip()


def is_no_match(command: str, exit_code: int | None, output: str) -> bool:
    """A search or listing command that found nothing: grep/rg with no match, ls or find of
    a path or glob that is not there, ``test``/``[`` being false (rules.NO_MATCH)."""
    if exit_code not in rules.NO_MATCH_EXITS:
        return False
    progs = [p for p in programs(command) if p.split()[0] not in FILTERS]
    if not progs or not rules.NO_MATCH.match(progs[-1]):
        return False
    lines = [line for line in output.splitlines() if line.strip()]
    absent = [line for line in lines if rules.NOT_THERE.search(line)]
    errors = [line for line in lines if rules.ERROR_LINE.search(line) and line not in absent]
    if errors:
        return False
    return exit_code == 1 or bool(absent)


def family(command: str, pattern: re.Pattern[str]) -> bool:
    return any(pattern.match(p) for p in programs(command))


def run_of(command: str, pattern: re.Pattern[str]) -> tuple[str, tuple[str, ...]] | None:
    """A test or lint run's tool (``pytest``, ``mix test``, ``ruff check``) and the paths it
    was given, from the last program of the command that ``pattern`` (a family) matches."""
    for prog in reversed(programs(command)):
        if not pattern.match(prog):
            continue
        tool: list[str] = []
        paths: list[str] = []
        for word in prog.split():
            if word.startswith("-") or "=" in word:
                continue
            if paths or "/" in word or "." in word or "::" in word:
                paths.append(word)
            else:
                tool.append(word)
        return " ".join(tool), tuple(paths)
    return None


def covers(passed: tuple[str, ...], failed: tuple[str, ...]) -> bool:
    """Whether a run over ``passed`` paths includes one over ``failed`` (no path: all)."""
    wide = {".", "./", "./...", "..."}
    if not passed or wide & set(passed):
        return True
    return bool(failed) and all(any(f.startswith(p.rstrip("/")) for p in passed) for f in failed)
