"""Benchmark of ``lore mcp`` with the SDK's real client (stdio_client + ClientSession) on a
generated store: server start to first answer, and warm ``recall`` and ``remember`` calls.
Writes its section of ``docs/benchmarks.md`` (between the ``mcp-bench`` markers, which
``bench/run.py`` keeps when it rewrites the file). Not part of the test suite.

    python bench/mcp_server.py                 # 100,000 records (generated, about 15 s)
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
from run import RUN_WORDS  # noqa: E402  (words absent from the generated store)

TARGETS = {"recall": 0.030, "remember": 0.020, "start": 1.5}


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


async def warm_calls(p: StdioServerParameters, calls: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"recall": [], "remember": []}
    async with stdio_client(p) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()  # the client validates results against the schemas
        for q in QUESTIONS:  # warm-up: the index is loaded and every folder watched
            await session.call_tool("recall", {"query": q})
        for i in range(calls):
            started = time.perf_counter()
            result = await session.call_tool("recall", {"query": QUESTIONS[i % len(QUESTIONS)]})
            times["recall"].append(time.perf_counter() - started)
            assert not result.is_error and result.structured_content["results"]
        for i in range(calls):
            # As bench/run.py's remember rows (far apart, so no call is a near-duplicate),
            # plus two random tokens so a reused store holds none of them either.
            words = [RUN_WORDS[(i * 7 + k * 13 + 3) % len(RUN_WORDS)] for k in range(4)]
            a, b = os.urandom(4).hex(), os.urandom(4).hex()
            text = f"Use {words[0]} {words[1]} for the {words[2]} {words[3]} {a} via {b}"
            started = time.perf_counter()
            result = await session.call_tool("remember", {"text": text})
            times["remember"].append(time.perf_counter() - started)
            assert not result.is_error, result.content[0]
    return times


def row(label: str, where: str, times: list[float], target: float, unit: str) -> str:
    med = statistics.median(times)
    scale = 1000 if unit == "ms" else 1
    shown = f"{target * scale:g} {unit}"
    verdict = "PASS" if med < target else "**FAIL**"
    return (
        f"| {label} | {where} | {len(times)} | {med * 1000:,.1f} | "
        f"{min(times) * 1000:,.1f}–{max(times) * 1000:,.1f} | < {shown} | {verdict} |"
    )


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
        p = params(root, cache, cwd)
        load = os.getloadavg()
        start_times = [anyio.run(start_once, p) for _ in range(starts)]
        warm = anyio.run(warm_calls, p, calls)
        where = f"{n:,} records" if args.store is None else f"store {root.name}"
        lines = [
            BEGIN,
            "## 8. The MCP server (`lore mcp`)",
            "",
            "Measured by `bench/mcp_server.py` with the MCP SDK's own client (`stdio_client` + "
            "`ClientSession`) talking to `.venv/bin/lore mcp` over stdio, on the generated "
            "store with its search index built. *Start to first answer*: spawning the server, "
            "`initialize` and one `recall` call, a new process each run. Warm rows: one "
            f"server, {len(QUESTIONS)} warm-up recalls, then {calls} `recall` calls cycling "
            f"over {len(QUESTIONS)} questions and {calls} `remember` calls with new texts "
            "(each runs the near-duplicate check), timed round trip by round trip.",
            "",
            f"Run {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {os.cpu_count()} CPUs, "
            f"load average at start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}, at end "
            + " / ".join(f"{x:.2f}" for x in os.getloadavg())
            + ".",
            "",
            "| Call | Store | Runs | Median ms | Min–max ms | Target | Result |",
            "| --- | --- | ---: | ---: | ---: | --- | --- |",
            row("server start to first answer", where, start_times, TARGETS["start"], "s"),
            row("`recall` (warm server)", where, warm["recall"], TARGETS["recall"], "ms"),
            row("`remember` (warm server)", where, warm["remember"], TARGETS["remember"], "ms"),
            END,
        ]
        section = "\n".join(lines) + "\n"
        print(section, file=sys.stderr)
        write_section(args.out, section)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def write_section(doc: Path, section: str) -> None:
    """Replace the marked section of ``doc`` (or append it)."""
    text = doc.read_text(encoding="utf-8") if doc.exists() else "# Benchmarks\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        text = head + section + ("\n" + tail if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    doc.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
