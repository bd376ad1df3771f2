"""Benchmark of ``lore ingest`` on the real development transcripts: reading a 3 MB Claude
Code transcript into a fresh data root, and running again over a folder of 100 unchanged
sessions (the agent's own folder for a repository). Writes its section of
``docs/benchmarks.md`` (between the ``ingest-bench`` markers, which ``bench/run.py`` keeps
when it rewrites the file). Not part of the test suite.

    python bench/ingest.py                          # ../shared/bench/transcripts
    python bench/ingest.py --transcripts DIR        # a folder holding claude-code/*.jsonl
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

from report import write_section

REPO = Path(__file__).resolve().parent.parent
LORE = REPO / ".venv" / "bin" / "lore"
DOC = REPO / "docs" / "benchmarks.md"
BEGIN, END = "<!-- ingest-bench:begin -->", "<!-- ingest-bench:end -->"
TARGETS = {"first": 2.0, "rerun": 0.3}
SESSIONS = 100


def default_transcripts() -> Path | None:
    for up in (REPO.parent, REPO.parent.parent):
        found = up / "shared" / "bench" / "transcripts"
        if (found / "claude-code").is_dir():
            return found
    return None


def env(home: Path, data: Path, cache: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("LORE_", "PYTHON"))}
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"):
        keep.pop(name, None)
    return {**keep, "HOME": str(home), "LORE_DATA_DIR": str(data), "LORE_CACHE_DIR": str(cache),
            "NO_COLOR": "1"}  # fmt: skip


def timed(argv: list[str], environ: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=environ, cwd=cwd, check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    return time.perf_counter() - start


def row(label: str, what: str, times: list[float], target: float) -> str:
    med = statistics.median(times)
    verdict = "PASS" if med < target else "**FAIL**"
    return (
        f"| {label} | {what} | {len(times)} | {med * 1000:,.0f} | "
        f"{min(times) * 1000:,.0f}–{max(times) * 1000:,.0f} | < {target:g} s | {verdict} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark lore ingest.")
    parser.add_argument("--transcripts", type=Path, default=default_transcripts())
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--out", type=Path, default=DOC, help=f"report (default {DOC})")
    args = parser.parse_args(argv)
    if args.transcripts is None or not (args.transcripts / "claude-code").is_dir():
        parser.error("no transcripts: pass --transcripts DIR (holding claude-code/*.jsonl)")
    sources = sorted((args.transcripts / "claude-code").glob("*.jsonl"))
    big = max(sources, key=lambda p: p.stat().st_size)
    tmp = Path(tempfile.mkdtemp(prefix="lore-ingest-bench-"))
    try:
        load = os.getloadavg()
        # 1. One big transcript into a fresh data root and cache, each run.
        work = tmp / "work"
        work.mkdir()
        first = []
        for n in range(args.runs):
            environ = env(tmp / "home", tmp / f"data{n}", tmp / f"cache{n}")
            first.append(timed([str(LORE), "ingest", str(big)], environ, work))
        # 2. A folder of 100 sessions, read once, then run again and again unchanged.
        repo = tmp / "repo"
        (repo / ".git").mkdir(parents=True)
        (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        home = tmp / "home"
        folder = (
            home / ".claude" / "projects" / "".join(c if c.isalnum() else "-" for c in str(repo))
        )
        folder.mkdir(parents=True)
        total = 0
        for n in range(SESSIONS):
            source = sources[n % len(sources)]
            content = source.read_bytes()
            old = content.split(b'"sessionId":"', 1)[1].split(b'"', 1)[0]
            new = f"{n:08x}-0000-4000-8000-{n:012x}".encode()
            (folder / f"{new.decode()}.jsonl").write_bytes(content.replace(old, new))
            total += len(content)
        environ = env(home, tmp / "shared-data", tmp / "shared-cache")
        setup = timed([str(LORE), "ingest"], environ, repo)
        rerun = [timed([str(LORE), "ingest"], environ, repo) for _ in range(args.runs * 2)]
        lines = [
            BEGIN,
            "## 10. Ingestion (`lore ingest`)",
            "",
            "Measured by `bench/ingest.py` on the development transcripts "
            "(`../shared/bench/transcripts/`), running `.venv/bin/lore` as a new process each "
            f"time. *First read*: `{big.name}` ({big.stat().st_size / 1e6:.1f} MB, "
            f"{sum(1 for _ in big.open('rb')):,} lines) into a fresh data root and machine-local "
            f"directory each run. *Run again*: `lore ingest` with no PATH in a repository whose "
            f"Claude Code folder holds {SESSIONS} sessions ({total / 1e6:.0f} MB; the "
            f"{len(sources)} development transcripts, each copied under new session ids), all "
            f"read once before (that first run took {setup:.1f} s), none changed since.",
            "",
            f"Run {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {os.cpu_count()} CPUs, "
            f"load average at start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}, at end "
            + " / ".join(f"{x:.2f}" for x in os.getloadavg())
            + ".",
            "",
            "| Command | What | Runs | Median ms | Min–max ms | Target | Result |",
            "| --- | --- | ---: | ---: | ---: | --- | --- |",
            row(
                "`lore ingest FILE` (first read)",
                f"{big.stat().st_size / 1e6:.1f} MB transcript",
                first,
                TARGETS["first"],
            ),
            row(
                "`lore ingest` (run again)",
                f"{SESSIONS} unchanged sessions",
                rerun,
                TARGETS["rerun"],
            ),
            END,
        ]
        section = "\n".join(lines) + "\n"
        print(section, file=sys.stderr)
        write_section(args.out, section, BEGIN, END)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
