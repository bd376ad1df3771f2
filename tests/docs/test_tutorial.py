"""docs/tutorial.md runs as written: every ``console`` block's commands, in order, in one shell.

Each ``$ command`` line is run by bash from a scratch directory standing in for ``/tmp``;
what it prints (stdout and stderr together, as a terminal shows them) must equal the
lines pasted under it, after ids, times and commit hashes are normalised; ``[exit N]``
pins a non-zero exit status. ``LORE_UPDATE_TUTORIAL=1`` rewrites the pasted outputs
from a fresh run instead, for when lore's output changes on purpose.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "tutorial.md"
MARK = "@@lore-tutorial-step@@"

_ID = re.compile(r"\b(dec|pat|anti|fail|obs|evi|goal|session|concept|edge)-[0-9a-f]{12}\b")
_NOISE = [
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z"), "<timestamp>"),
    (re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}"), "<time>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}"), "<date>"),
    (re.compile(r"\b[0-9a-f]{7,40}\b"), "<hash>"),
    (re.compile(r"\bin \d+(\.\d+)?\s?m?s\b"), "in <duration>"),
    (re.compile(r"\bsc-[0-9a-f]{6}\b"), "sc-<random>"),  # a criterion added to a goal
]


@dataclass
class Step:
    command: str
    expected: list[str]
    exit_code: int
    line: int  # where the command is in the tutorial (1-based), for messages
    block: tuple[int, int] = (0, 0)


def parse(text: str) -> list[Step]:
    """The ``$ `` commands of every console block, each with the output pasted under it."""
    steps: list[Step] = []
    in_block = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("```console"):
            in_block = True
            continue
        if in_block and line.startswith("```"):
            in_block = False
            continue
        if not in_block:
            continue
        if line.startswith("$ "):
            steps.append(Step(line[2:], [], 0, number))
        elif (m := re.fullmatch(r"\[exit (\d+)\]", line)) and steps:
            steps[-1].exit_code = int(m.group(1))
        elif steps:
            steps[-1].expected.append(line)
    return steps


def normalise(lines: list[str]) -> list[str]:
    """Ids numbered by first appearance per kind; times and hashes replaced by placeholders."""
    seen: dict[str, str] = {}
    counts: dict[str, int] = {}

    def number(m: re.Match[str]) -> str:
        ident = m.group(0)
        if ident not in seen:
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
            seen[ident] = f"{m.group(1)}-<{counts[m.group(1)]}>"
        return seen[ident]

    out = []
    for line in lines:
        line = _ID.sub(number, line)
        for pattern, replacement in _NOISE:
            line = pattern.sub(replacement, line)
        out.append(line.rstrip())
    return out


def run_tutorial(steps: list[Step], scratch: Path) -> list[tuple[list[str], int]]:
    """Run every step in one bash process; each step's output lines and exit status."""
    tmp = scratch / "tmp"
    tmp.mkdir()
    script = ["set +e"]
    for step in steps:
        command = step.command.replace("/tmp/", f"{tmp}/")
        script.append(f"{command}\nprintf '\\n{MARK} %d\\n' \"$?\"")
    bin_dir = Path(sys.executable).parent
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(scratch / "home"),
        "NO_COLOR": "1",
        "COLUMNS": "100",
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        # No git identity and no system config: the tutorial must work on a fresh machine.
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "LORE_CACHE_DIR": str(scratch / "cache"),
    }
    (scratch / "home").mkdir()
    output = in_terminal(["bash", "-c", "\n".join(script)], cwd=scratch, env=env)
    output = output.replace(f"{tmp}/", "/tmp/").replace(str(tmp), "/tmp")
    outputs: list[tuple[list[str], int]] = []
    current: list[str] = []
    for line in output.split("\n"):
        if line.startswith(MARK):
            # The printf's leading newline ends a last line without one; drop that blank.
            if current and current[-1] == "":
                current.pop()
            outputs.append((current, int(line.split()[1])))
            current = []
        else:
            current.append(line)
    return outputs


def same_ids(steps: list[Step], outputs: list[tuple[list[str], int]]) -> dict[str, str]:
    """Fresh run's id -> the tutorial's id for the same record, paired in order of appearance."""
    mapping: dict[str, str] = {}
    for step, (got, _) in zip(steps, outputs):
        fresh = [m.group(0) for line in got for m in _ID.finditer(line)]
        pasted = [m.group(0) for line in step.expected for m in _ID.finditer(line)]
        for new, old in zip(fresh, pasted):
            if new.split("-")[0] == old.split("-")[0]:
                mapping.setdefault(new, old)
    return mapping


def in_terminal(argv: list[str], *, cwd: Path, env: dict[str, str]) -> str:
    """Run argv with stdout and stderr on a 100-column pseudo-terminal, as a reader would.

    Tables, colours (off: NO_COLOR) and wrapping then follow the terminal rules, so the
    pasted outputs are what a person sees; stdin stays closed (/dev/null).
    """
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 100, 0, 0))
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    proc.wait(timeout=240)
    return settle(b"".join(chunks).decode("utf-8", "replace"))


_CSI = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])")


def settle(raw: str) -> str:
    """What the terminal shows once output stops: progress bars redrawn in place collapse.

    Enough of a terminal for lore's output: newline, carriage return, cursor up (CSI A)
    and erase line (CSI K); other control sequences (cursor visibility) are dropped.
    """
    raw = raw.replace("\r\n", "\n")  # the terminal's own line ends (onlcr)
    lines: list[str] = [""]
    row = 0
    pos = 0
    while pos < len(raw):
        m = _CSI.match(raw, pos)
        if m:
            if m.group(2) == "A":
                row = max(0, row - int(m.group(1) or 1))
            elif m.group(2) == "K":
                lines[row] = ""
            pos = m.end()
            continue
        char = raw[pos]
        pos += 1
        if char == "\n":
            row += 1
            if row == len(lines):
                lines.append("")
        elif char == "\r":
            lines[row] = ""  # lore never overwrites part of a line
        else:
            lines[row] += char
    # A cursor moved up and erased leaves blank lines below: the screen ends at the last text.
    while len(lines) > 1 and lines[-1] == "" and lines[-2] == "":
        lines.pop()
    return "\n".join(lines)


def update(text: str, steps: list[Step], outputs: list[tuple[list[str], int]]) -> str:
    lines = text.splitlines()
    # Replace from the bottom up so earlier line numbers stay valid.
    for step, (got, code) in reversed(list(zip(steps, outputs))):
        start = step.line  # index of the line after the command
        end = start + len(step.expected) + (1 if step.exit_code else 0)
        new = [line.rstrip() for line in got] + ([f"[exit {code}]"] if code else [])
        lines[start:end] = new
    return "\n".join(lines) + "\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="the tutorial uses git")
def test_tutorial_runs_as_written(tmp_path: Path) -> None:
    text = TUTORIAL.read_text(encoding="utf-8")
    steps = parse(text)
    assert len(steps) > 30, "the tutorial's console blocks were not found"
    outputs = run_tutorial(steps, tmp_path)
    assert len(outputs) == len(steps), "the tutorial's script stopped early"
    want_all = normalise([line for s in steps for line in [s.command, *s.expected]])
    got_all = normalise([line for s, (got, _) in zip(steps, outputs) for line in [s.command, *got]])
    # Compare step by step, so a failure names the command and its line.
    w = g = 0
    drifted: list[tuple[Step, tuple[list[str], int]]] = []
    for step, (got, code) in zip(steps, outputs):
        want_n = 1 + len(step.expected)
        got_n = 1 + len(got)
        want = want_all[w + 1 : w + want_n]
        have = got_all[g + 1 : g + got_n]
        w += want_n
        g += got_n
        if (have, code) != (want, step.exit_code):
            if os.environ.get("LORE_UPDATE_TUTORIAL") == "1":
                drifted.append((step, (got, code)))
                continue
            assert (have, code) == (want, step.exit_code), (
                f"docs/tutorial.md:{step.line}: `{step.command}` printed something else "
                "(LORE_UPDATE_TUTORIAL=1 rewrites the pasted outputs that drifted)"
            )
    if drifted:
        # Keep the tutorial's own ids, so a pasted output matches the ones around it.
        ids = same_ids(steps, outputs)

        def keep(line: str) -> str:
            return _ID.sub(lambda m: ids.get(m.group(0), m.group(0)), line)

        drifted = [(s, ([keep(x) for x in got], code)) for s, (got, code) in drifted]
        TUTORIAL.write_text(
            update(text, [s for s, _ in drifted], [o for _, o in drifted]), encoding="utf-8"
        )
