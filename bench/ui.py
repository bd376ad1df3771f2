"""Benchmark of ``lore ui`` on a generated store, in headless Chromium (the tests' DevTools
driver): first paint and a ready page, each search end to end (request, ranking, drawing the
results) and, for reference, the other views. Writes its section of ``docs/benchmarks.md``
(between the ``ui-bench`` markers, which ``bench/run.py`` keeps). Not part of the test suite.

    python bench/ui.py                 # 100,000 records (generated, about 15 s)
    python bench/ui.py --store DIR     # a store made by bench/gen_store.py
    python bench/ui.py --quick         # 10,000 records, fewer runs
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LORE = REPO / ".venv" / "bin" / "lore"
GEN = REPO / "bench" / "gen_store.py"
DOC = REPO / "docs" / "benchmarks.md"
BEGIN, END = "<!-- ui-bench:begin -->", "<!-- ui-bench:end -->"
QUESTIONS = (
    "why did we choose Redis for the session store cache?",
    "retry flaky network calls",
    "deploy pipeline timeout",
    "postgres migration locking",
    "log shipper cold caches",
)
TARGETS = {"paint": 1.0, "ready": 1.0, "search": 0.300}
sys.path.insert(0, str(REPO / "tests" / "ui"))
from headless import Browser, executable  # noqa: E402
from report import write_section  # noqa: E402


def start(root: Path, cache: Path, cwd: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "LORE_DATA_DIR": str(root), "LORE_CACHE_DIR": str(cache), "NO_COLOR": "1"}
    proc = subprocess.Popen([str(LORE), "ui", "--port", "0"], env=env, cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # fmt: skip
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def api(url: str) -> float:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as reply:
        reply.read()
    return time.perf_counter() - started


def page(browser: Browser, url: str, route: str, ready: str) -> float:
    """Go to ``route`` within the page; seconds until ``ready`` holds (polled every 5 ms)."""
    started = time.perf_counter()
    browser.eval(f"location.hash = {json.dumps(route)}")
    deadline = started + 60
    while not browser.eval(f"Boolean({ready})"):
        if time.perf_counter() > deadline:
            raise AssertionError(f"{route}: not ready")
        time.sleep(0.005)
    return time.perf_counter() - started


def measure(url: str, runs: int, searches: int, profile: Path) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {k: [] for k in
                                     ("paint", "ready", "search", "record", "timeline",
                                      "graph", "queues")}  # fmt: skip
    browser = Browser(profile)
    try:
        for _ in range(runs):  # a fresh page load each time (the server stays warm)
            browser.goto("about:blank")
            browser.wait("location.href === 'about:blank'")
            browser.goto(url)
            browser.wait("document.body && document.body.dataset.ready === '1'", timeout=60)
            # the paint entry is queued after the frame, which can follow the page's script
            browser.wait("performance.getEntriesByType('paint').length > 1", timeout=60)
            paints = browser.eval(
                "Object.fromEntries(performance.getEntriesByType('paint')"
                ".map(e => [e.name, e.startTime]))"
            )
            times["paint"].append(paints["first-contentful-paint"] / 1000)
            times["ready"].append(float(browser.eval("document.body.dataset.readyMs")) / 1000)
        for q in QUESTIONS:  # warm-up: every query once
            page(
                browser,
                url,
                "#/search?q=" + urllib.parse.quote(q),
                f"document.querySelector('.results[data-query={json.dumps(q)}]')",
            )
        for i in range(searches):
            q = QUESTIONS[i % len(QUESTIONS)]  # the previous search was another question
            route = "#/search?q=" + urllib.parse.quote(q)
            ready = f"document.querySelector('.results[data-query={json.dumps(q)}]')"
            times["search"].append(page(browser, url, route, ready))
        hit = browser.eval("document.querySelector('.hit a.rec').getAttribute('href')")
        record_id = hit.rsplit("/", 1)[1]
        for _ in range(5):
            times["record"].append(page(browser, url, hit, "document.querySelector('#history')"))
            browser.eval("location.hash = '#/'")
            times["timeline"].append(
                page(browser, url, "#/timeline", "document.querySelector('.periods')")
            )
            focused = f"document.querySelector('#graph-canvas[data-focus=\"{record_id}\"]')"
            times["graph"].append(page(browser, url, f"#/graph/{record_id}", focused))
            times["queues"].append(
                page(browser, url, "#/queues", "document.querySelector('#queue-review .item')")
            )
            browser.eval("location.hash = '#/'")
        assert browser.errors() == [], browser.errors()
    finally:
        browser.close()
    return times


def row(label: str, where: str, times: list[float], target: float | None) -> str:
    med = statistics.median(times)
    if target is None:
        shown, verdict = "—", "—"
    else:
        shown = f"< {target * 1000:g} ms" if target < 1 else f"< {target:g} s"
        verdict = "PASS" if max(times) < target else "**FAIL**"
    spread = f"{min(times) * 1000:,.1f}–{max(times) * 1000:,.1f}"
    return (
        f"| {label} | {where} | {len(times)} | {med * 1000:,.1f} | {spread} | {shown} | {verdict} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark lore ui in headless Chromium.")
    parser.add_argument("--store", type=Path, help="an existing generated store (data root)")
    parser.add_argument("--quick", action="store_true", help="10,000 records, fewer runs")
    parser.add_argument("--out", type=Path, default=DOC, help=f"report (default {DOC})")
    args = parser.parse_args(argv)
    if executable() is None:
        print("bench: no chromium (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    n = 10_000 if args.quick else 100_000
    runs, searches = (3, 10) if args.quick else (10, 40)
    tmp = Path(tempfile.mkdtemp(prefix="lore-ui-bench-"))
    try:
        root = args.store or tmp / "root"
        cache, cwd = tmp / "cache", tmp / "cwd"
        cwd.mkdir()
        env = {**os.environ, "LORE_DATA_DIR": str(root), "LORE_CACHE_DIR": str(cache)}
        if args.store is None:
            print(f"bench: generating {n:,} records", file=sys.stderr)
            subprocess.run([sys.executable, str(GEN), str(root), "--n", str(n)], check=True,
                           stdout=subprocess.DEVNULL, cwd=cwd)  # fmt: skip
        for what in (["index", "rebuild"], ["graph", "rebuild"]):
            subprocess.run([str(LORE), *what], check=True, env=env, cwd=cwd,
                           stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)  # fmt: skip
        load = os.getloadavg()
        started = time.perf_counter()
        proc, url = start(root, cache, cwd)
        try:
            first = api(url + "api/recall?" + urllib.parse.urlencode({"q": QUESTIONS[0]}))
            warm = time.perf_counter() - started
            times = measure(url, runs, searches, tmp / "profile")
        finally:
            proc.terminate()
            proc.wait(timeout=60)
        where = f"{n:,} records" if args.store is None else f"store {root.name}"
        lines = [
            BEGIN,
            "## 9. The web app (`lore ui`)",
            "",
            "Measured by `bench/ui.py`: `.venv/bin/lore ui` on the generated store (its index "
            "and graph built), driven by headless Chromium through the DevTools protocol (the "
            "tests' driver, `tests/ui/headless.py`) on the same machine. *First paint*: the "
            "browser's first-contentful-paint of a fresh load of the page; *ready*: the page's "
            "script has asked the server what it serves and drawn the search view. *Search*: "
            "from setting the search route to the results drawn (request, ranking with every "
            f"filter and score part, drawing), {searches} searches over {len(QUESTIONS)} "
            "questions after one warm-up each. "
            "The other views are timed the same way (5 runs each), for reference.",
            "",
            f"Run {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {os.cpu_count()} CPUs, "
            f"load average at start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}, at end "
            + " / ".join(f"{x:.2f}" for x in os.getloadavg())
            + f". Server start to its first search answered (index and graph loaded): "
            f"{warm:.2f} s (that first request alone: {first * 1000:,.0f} ms).",
            "",
            "| What | Store | Runs | Median ms | Min–max ms | Target (every run) | Result |",
            "| --- | --- | ---: | ---: | ---: | --- | --- |",
            row("first paint", where, times["paint"], TARGETS["paint"]),
            row("page ready", where, times["ready"], TARGETS["ready"]),
            row("search, end to end", where, times["search"], TARGETS["search"]),
            row("a record's page (fields, history, links)", where, times["record"], None),
            row("the timeline (all years)", where, times["timeline"], None),
            row("a record's graph neighbourhood", where, times["graph"], None),
            row("the queues (inbox, review)", where, times["queues"], None),
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
