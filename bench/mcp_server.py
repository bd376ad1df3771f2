"""Benchmark of ``lore mcp`` with the SDK's real client (stdio_client + ClientSession): server
start to first answer, and one warm server's ``recall``, ``recall`` right after a
``remember``, and ``remember`` (the near-duplicate check runs), with the server's own CPU time
per call read from /proc. ``bench/run.py`` runs it on both generated stores (section 8);
alone it replaces only that section of ``docs/benchmarks.md``. Not part of the test suite.

    python bench/mcp_server.py                 # 100,000 records (bench/gen_store.py)
    python bench/mcp_server.py --store DIR     # a store made by bench/gen_store.py
    python bench/mcp_server.py --quick         # 10,000 records, fewer calls
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parent.parent
LORE = REPO / ".venv" / "bin" / "lore"
GEN = REPO / "bench" / "gen_store.py"
DOC = REPO / "docs" / "benchmarks.md"
BEGIN, END = "<!-- mcp-bench:begin -->", "<!-- mcp-bench:end -->"
QUESTIONS = (
    "why did we choose Redis for the session store cache?",
    "retry flaky network calls",
    "deploy pipeline timeout",
    "postgres migration locking",
    "log shipper cold caches",
)
sys.path.insert(0, str(REPO / "bench"))
from report import write_section  # noqa: E402
from stores import cpu_of  # noqa: E402

# Words absent from the generated stores (as bench/run.py's), so no remember is refused.
WORDS = (
    "heron", "osprey", "kestrel", "plover", "curlew", "bittern", "grebe", "merlin", "avocet",
    "dunlin", "godwit", "siskin", "linnet", "ouzel", "shrike", "wagtail", "garnet", "beryl",
    "zircon", "spinel", "quartz", "jasper", "onyx", "agate", "basalt", "gneiss", "schist",
)  # fmt: skip
# Targets of issue 19 (seconds): the server's own start is reported without one.
TARGETS = {"recall": 0.010, "after": 0.020, "remember": 0.015}


def params(root: Path, cache: Path, cwd: Path) -> StdioServerParameters:
    env = {"LORE_DATA_DIR": str(root), "LORE_CACHE_DIR": str(cache), "NO_COLOR": "1"}
    env["PATH"] = os.environ.get("PATH", "")
    env["HOME"] = os.environ.get("HOME", "")
    return StdioServerParameters(command=str(LORE), args=["mcp"], env=env, cwd=cwd)


async def start_once(p: StdioServerParameters) -> float:
    """Spawn to the first answer of a recall call (initialize, then one tool call)."""
    started = time.perf_counter()
    async with stdio_client(p) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("recall", {"query": QUESTIONS[0]})
        elapsed = time.perf_counter() - started
        assert not result.is_error, result.content[0]
    return elapsed


def _server_pid() -> int | None:
    """The ``lore mcp`` child of this process (stdio_client started it)."""
    me = str(os.getpid())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[1] == me and b"mcp" in cmd:
            return int(entry.name)
    return None


def _text(i: int) -> str:
    words = [WORDS[(i * 7 + k * 13 + 3) % len(WORDS)] for k in range(4)]
    a, b = os.urandom(4).hex(), os.urandom(4).hex()
    return f"Use {words[0]} {words[1]} for the {words[2]} {words[3]} {a} via {b}"


async def warm_calls(p: StdioServerParameters, calls: int) -> dict[str, list[tuple[float, float]]]:
    """(wall seconds, the server's CPU seconds) of each timed call, by row."""
    times: dict[str, list[tuple[float, float]]] = {"recall": [], "after": [], "remember": []}
    async with stdio_client(p) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()  # the client validates results against the schemas
        for q in QUESTIONS:  # warm-up: the index is loaded and every folder watched
            await session.call_tool("recall", {"query": q})
        pid = _server_pid()

        async def timed(row: str, name: str, args: dict[str, object]) -> object:
            cpu = cpu_of(pid)
            started = time.perf_counter()
            result = await session.call_tool(name, args)
            times[row].append((time.perf_counter() - started, cpu_of(pid) - cpu))
            assert not result.is_error, result.content[0]
            return result

        for i in range(calls):
            await timed("recall", "recall", {"query": QUESTIONS[i % len(QUESTIONS)]})
        for i in range(calls):
            await timed("remember", "remember", {"text": _text(i)})
        for i in range(calls):  # a remember (untimed), then the recall that follows it
            result = await session.call_tool("remember", {"text": _text(calls + i)})
            assert not result.is_error, result.content[0]
            await timed("after", "recall", {"query": QUESTIONS[i % len(QUESTIONS)]})
    return times


def measure(root: Path, cache: Path, cwd: Path, calls: int, starts: int) -> dict[str, object]:
    """Everything this benchmark measures on one store (its index built already)."""
    p = params(root, cache, cwd)
    start_times = [anyio.run(start_once, p) for _ in range(starts)]
    warm = anyio.run(warm_calls, p, calls)
    return {"start": start_times, **warm}


def rows(where: str, found: dict[str, object]) -> list[str]:
    """The section's table rows for one store's ``measure``."""
    out = []
    start = found["start"]
    assert isinstance(start, list)
    out.append(
        f"| server start to first answer | {where} | {len(start)} | "
        f"{statistics.median(start) * 1000:,.1f} | — | — | — |"
    )
    labels = {
        "recall": "`recall` (warm server)",
        "after": "`recall` right after a `remember`",
        "remember": "`remember` (warm server)",
    }
    for key, label in labels.items():
        runs = found[key]
        assert isinstance(runs, list)
        wall = statistics.median(w for w, _ in runs)
        # The server's CPU comes in clock ticks (10 ms): the mean of the calls, not a median
        # of ticks, says what one call costs.
        cpu = statistics.fmean(c for _, c in runs)
        target = TARGETS[key]
        verdict = "PASS" if wall <= target else "**FAIL**"
        out.append(
            f"| {label} | {where} | {len(runs)} | {wall * 1000:,.1f} | {cpu * 1000:,.1f} | "
            f"≤ {target * 1000:g} ms | {verdict} |"
        )
    return out


def host_speed() -> float:
    """CPU ms of a fixed pure-Python loop (the best of three): how fast the shared host runs
    right now. The MCP targets are absolute milliseconds, so a slow phase of the host (the
    same loop has taken 143 to 225 ms on the benchmark machine) moves them with it."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        sum(i * i for i in range(3_000_000))
        best = min(best, time.process_time() - start)
    return best * 1e3


def section(
    tables: list[str],
    calls: int,
    load: tuple[float, float, float],
    speed: tuple[float, float] | None = None,
) -> str:
    lines = [
        BEGIN,
        "## 8. The MCP server (`lore mcp`)",
        "",
        "`lore mcp` driven by the MCP SDK's own client (`stdio_client` + `ClientSession`) "
        "over stdio, on each generated store with its search index built. *Start to first "
        "answer*: spawning the server, `initialize` and one `recall`, a new process each run "
        "(no target). Warm rows: one server, five warm-up recalls, then "
        f"{calls} `recall` calls cycling over {len(QUESTIONS)} questions, {calls} `remember` "
        f"calls with new texts (the near-duplicate check runs), and {calls} pairs of an "
        "untimed `remember` and the `recall` right after it (which reads the new decision "
        "into the server's index first). *Median ms* is the round trip; *server CPU ms* the "
        "server process's own user+system time per call (from /proc, in 10 ms clock ticks: "
        "the mean over the row's calls). Targets "
        "(issue 19) are on the round trip.",
        "",
        f"Run {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {os.cpu_count()} CPUs, "
        f"load average at start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}, at end "
        + " / ".join(f"{x:.2f}" for x in os.getloadavg())
        + "."
        + (
            f" Host speed (`host_speed`: a fixed pure-Python loop, the best of three): "
            f"{speed[0]:.0f} ms of CPU before the rows, {speed[1]:.0f} ms after (about "
            "145 ms when this machine runs at its usual speed)."
            if speed
            else ""
        ),
        "",
        "| Call | Store | Runs | Median ms | Server CPU ms | Target | Result |",
        "| --- | --- | ---: | ---: | ---: | --- | --- |",
        *tables,
        END,
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark lore's MCP server.")
    parser.add_argument("--store", type=Path, help="an existing generated store (data root)")
    parser.add_argument("--quick", action="store_true", help="10,000 records, fewer calls")
    parser.add_argument("--out", type=Path, default=DOC, help=f"report (default {DOC})")
    args = parser.parse_args(argv)
    n = 10_000 if args.quick else 100_000
    calls, starts = (10, 3) if args.quick else (40, 7)
    tmp = Path(tempfile.mkdtemp(prefix="lore-mcp-bench-"))
    try:
        root = args.store or tmp / "root"
        cache = tmp / "cache"
        cwd = tmp / "cwd"
        cwd.mkdir()
        env = {**os.environ, "LORE_DATA_DIR": str(root), "LORE_CACHE_DIR": str(cache)}
        if args.store is None:
            print(f"bench: generating {n:,} records", file=sys.stderr)
            subprocess.run([sys.executable, str(GEN), str(root), "--n", str(n)], check=True,
                           stdout=subprocess.DEVNULL, cwd=cwd)  # fmt: skip
        subprocess.run([str(LORE), "index", "rebuild"], check=True, env=env, cwd=cwd,
                       stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)  # fmt: skip
        load, before = os.getloadavg(), host_speed()
        found = measure(root, cache, cwd, calls, starts)
        where = f"{n:,} records" if args.store is None else f"store {root.name}"
        text = section(rows(where, found), calls, load, (before, host_speed()))
        print(text, file=sys.stderr)
        write_section(args.out, text, BEGIN, END)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
