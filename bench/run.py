"""lore's speed benchmarks: one entry point that measures everything on both generated
100,000-record stores (``bench/gen_store.py``'s and the shared ``gen_corpus.py``'s, see
``bench/stores.py``) and rewrites ``docs/benchmarks.md``. Not part of the test suite.

    python bench/run.py            # full run (two 100k-record stores, 15+ repeats)
    python bench/run.py --quick    # smoke run (10k records, 5 repeats)
    python bench/run.py --only capture   # sections 1 and 3 only, spliced into the report
    python bench/run.py --only reads     # sections 5 and 5b (recall, resume, timeline)

Every command runs as a subprocess of the installed entry point (.venv/bin/lore) with
LORE_DATA_DIR and LORE_CACHE_DIR in a temp dir, NO_COLOR=1 and stdin=/dev/null, beside
``python -c pass`` measured in the same run with the same interpreter. A target is met when
the median CPU time (user+system, of the process) is within it, as a multiple of the
baseline's median CPU time in the same runs; wall ratios are shown beside.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
LORE = REPO / ".venv" / "bin" / "lore"
GEN = REPO / "bench" / "gen_store.py"
DOC = REPO / "docs" / "benchmarks.md"
sys.path.insert(0, str(REPO / "bench"))
import summary  # noqa: E402
from report import write_section  # noqa: E402
from stores import Store, cpu_of, locked_pid, make_gen_corpus, make_gen_store  # noqa: E402

HEAVY = ("networkx", "rapidfuzz", "rich", "ruamel")
QUESTION = "why did we choose Redis for the session store cache?"
# Words for per-run capture texts: absent from the generated store and far apart from each
# other, so every run's decision is new (the near-duplicate check runs but never refuses).
RUN_WORDS = (
    "heron", "osprey", "kestrel", "plover", "curlew", "bittern", "grebe", "merlin", "avocet",
    "dunlin", "godwit", "siskin", "linnet", "ouzel", "shrike", "wagtail", "garnet", "beryl",
    "zircon", "spinel", "quartz", "jasper", "onyx", "agate", "basalt", "gneiss", "schist",
    "marble", "slate", "pumice", "obsidian", "feldspar", "mica", "talc", "gypsum", "calcite",
    "dolomite", "fluorite", "pyrite", "galena", "cobalt",
)  # fmt: skip

Make = Callable[[int], tuple[list[str], dict[str, str]]]
# The run index a profile uses: its capture text shares no word with the timed runs' texts.
PROFILE_RUN = 30
TREE_MS = 3.0  # import-tree detail: imports costing at least this much
SLOW_SECONDS = 10.0
SLOW_RUNS = 5


def interpreter() -> str:
    """The Python the ``lore`` script runs with (its shebang), so the baseline is the same."""
    first = LORE.read_text(encoding="utf-8").splitlines()[0]
    return first[2:].strip() if first.startswith("#!") else sys.executable


PY = interpreter()


@dataclass
class Row:
    label: str
    where: str
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # user + sys seconds of each run
    base: list[float] = field(default_factory=list)  # `python -c pass` run beside each run
    base_cpu: list[float] = field(default_factory=list)
    target: float | None = None  # a multiple of the baseline, or seconds when absolute
    absolute: bool = False
    note: str = ""
    error: str = ""
    make: Make | None = field(default=None, repr=False)  # re-run for a profile
    watcher: Store | None = field(default=None, repr=False)  # whose watcher CPU to report

    @property
    def median(self) -> float:
        return statistics.median(self.times) if self.times else float("nan")

    def ratio(self, base: float) -> float:
        """Median over the median of the baselines run beside it (else the global one)."""
        return self.median / (statistics.median(self.base) if self.base else base)

    def cpu_ratio(self, base_cpu: float) -> float:
        """Median CPU over the median CPU of the baselines run beside it."""
        beside = statistics.median(self.base_cpu) if self.base_cpu else base_cpu
        return statistics.median(self.cpu) / beside

    def passed(self, base: float, base_cpu: float = 0.0) -> bool | None:
        """Within target: absolute rows by wall time, the others by CPU ratio."""
        if self.error:
            return False
        if self.target is None:
            return None
        value = self.median if self.absolute else self.cpu_ratio(base_cpu)
        return value <= self.target


@dataclass
class Section:
    title: str
    intro: str
    rows: list[Row] = field(default_factory=list)
    extra: str = ""


class Bench:
    def __init__(self, quick: bool, tmp: Path) -> None:
        self.quick = quick
        self.tmp = tmp
        self.n = 10_000 if quick else 100_000
        self.repeats = 5 if quick else 15
        self.base_repeats = 10 if quick else 30
        self.import_repeats = 1 if quick else 3
        self.cold_repeats = 1 if quick else 3
        self.cwd = tmp / "cwd"  # not a git repository: no project is detected
        self.cwd.mkdir()
        self.counter = 0
        self.sections: list[Section] = []
        self.profiles: list[tuple[str, str]] = []
        self.facts: dict[str, str] = {}
        self.facts_store = ""
        self.recall: list[str] = []

    # -- plumbing -------------------------------------------------------------------

    def fresh(self, name: str) -> Path:
        self.counter += 1
        path = self.tmp / f"{name}-{self.counter}"
        path.mkdir(parents=True)
        return path

    def env(self, data: Path, cache: Path | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LORE_", "PYTHON"))}
        env.update(
            LORE_DATA_DIR=str(data),
            LORE_CACHE_DIR=str(cache or data.parent / f"{data.name}.cache"),
            NO_COLOR="1",
            LORE_COMMAND_SERVER_LOG=str(data.parent / "cmdserver.log"),
        )
        return env

    def run(self, argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
        """One timed run: (wall seconds, CPU seconds user+sys, error text or ""). A command
        the command server ran (``lore.cmdserver``) counts its worker's CPU too, from the
        server's log; what the server itself spent is added per row (``measure``)."""
        log = served_log(argv, env)
        size = log.stat().st_size if log is not None and log.exists() else 0
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.run(
            argv, stdin=subprocess.DEVNULL, capture_output=True, env=env, cwd=self.cwd
        )
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if log is not None:
            cpu += worker_cpu(log, size)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).decode(errors="replace").strip()[-300:]
            return elapsed, cpu, f"exit {proc.returncode}: {tail}"
        return elapsed, cpu, ""

    def measure(self, row: Row, make: Make, runs: int, warmup: int = 1, paired: bool = True) -> Row:
        """Time ``runs`` runs of ``make(i)`` (after ``warmup``), each beside a baseline run.

        Pairing makes the ratio robust to the machine's load changing during the run.
        A row whose first run takes over SLOW_SECONDS gets SLOW_RUNS runs (said in its note).
        """
        row.make = make
        pass_argv = [PY, "-c", "pass"]
        pid = row.watcher.watcher_pid() if row.watcher is not None else None
        watcher_before = cpu_of(pid)
        server, server_before, counted, served = None, 0.0, 0, False
        i = -warmup
        while i < runs:
            argv, env = make(i)
            if server is None:  # (the first run may start it)
                server = server_pid(env)
                server_before, counted = cpu_of(server), 0
            served = served or served_log(argv, env) is not None
            counted += 1
            base, base_cpu, _ = self.run(pass_argv, env) if paired else (0.0, 0.0, "")
            elapsed, cpu, error = self.run(argv, env)
            if error:
                row.error = error
                print(f"  ! {row.label}: {error}", file=sys.stderr)
                return row
            if i >= 0:
                row.times.append(elapsed)
                row.cpu.append(cpu)
                if paired:
                    row.base.append(base)
                    row.base_cpu.append(base_cpu)
            if i == -warmup and elapsed > SLOW_SECONDS and runs > SLOW_RUNS:
                runs = SLOW_RUNS
                row.note = f"over {SLOW_SECONDS:g} s per run: {SLOW_RUNS} runs, not {self.repeats}"
            i += 1
        if server is not None and served:
            # what the server spent itself (accepting, forking, reaping), spread over the runs
            own = (cpu_of(server) - server_before) / counted
            row.cpu = [c + own for c in row.cpu]
            row.note = _join(
                row.note,
                f"run by the command server: CPU = client + worker + {own * 1000:.1f} ms "
                "of the server's own",
            )
        if row.watcher is not None:
            spent = cpu_of(pid) - watcher_before
            watched = (
                "no watcher ran"
                if pid is None
                else (f"the watcher daemon used {spent * 1000 / (runs + warmup):.1f} ms CPU a run")
            )
            row.note = _join(row.note, watched)
        print(f"  {row.label} [{row.where}]: {row.median * 1000:.1f} ms", file=sys.stderr)
        return row

    def text(self, i: int, lead: str) -> str:
        words = [RUN_WORDS[(i * 7 + k * 13 + len(lead)) % len(RUN_WORDS)] for k in range(4)]
        return f"{lead} {words[0]} {words[1]} for the {words[2]} {words[3]} path {i + 100}"

    def two_paths(self, i: int) -> str:
        """A decision naming two files shaped like the generated store's, so the
        contradiction check (two shared entities) searches for candidates."""
        first, second = f"src/cache/models_{i % 39 + 1}.py", f"lib/auth/queue_{i * 7 % 39 + 1}.py"
        return f"{self.text(i, 'Adopt')} in {first} and {second}"

    def generate(self, root: Path, n: int, jsonl: Path | None = None) -> float:
        argv = [PY, str(GEN), str(root), "--n", str(n)]
        if jsonl is not None:
            argv += ["--jsonl", str(jsonl)]
        started = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=self.cwd)
        return time.perf_counter() - started

    def recall_argv(self) -> tuple[list[str], str]:
        """The real ``lore recall`` if registered; else a provisional in-process registration."""
        probe = subprocess.run(
            [str(LORE), "recall", "--help"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "LORE_COMMAND_SERVER": "0"},  # no server in the real cache
        )
        if probe.returncode == 0:
            return [str(LORE), "recall"], ""
        code = (
            "from lore.cli import LAZY_COMMANDS, main;"
            "LAZY_COMMANDS.setdefault('recall', ('recall:recall_cmd', ''));"
            "import sys; main(sys.argv[1:])"
        )
        return [PY, "-c", code, "recall"], "PROVISIONAL: `recall` not registered in lore.cli yet"

    # -- sections -------------------------------------------------------------------

    def baseline(self) -> None:
        sec = Section(
            "1. Python start-up",
            "The baseline every ratio divides by, and what importing the CLI costs on top. "
            "Every other row runs `python -c pass` beside each of its runs and divides by the "
            "median of those (×py), so a change in the machine's load during the run cancels "
            "out.",
        )
        env = self.env(self.fresh("empty"))
        self.base_row = self.measure(
            Row("python -c pass", "—"),
            lambda i: ([PY, "-c", "pass"], env),
            self.base_repeats,
            3,
            paired=False,
        )
        sec.rows.append(self.base_row)
        for code in ("import click", "import lore.cli"):
            sec.rows.append(
                self.measure(
                    Row(f'python -c "{code}"', "—"),
                    lambda i, c=code: ([PY, "-c", c], env),  # type: ignore[misc]
                    self.repeats,
                )
            )
        self.sections.append(sec)

    @property
    def base(self) -> float:
        return self.base_row.median

    def cli_basics(self) -> None:
        sec = Section(
            "2. `lore --help`, `lore --version`",
            "Start-up of the CLI itself (no target of its own; it is the floor of every "
            "command below).",
        )
        env = self.env(self.fresh("empty"))
        for args in (["--help"], ["--version"]):
            sec.rows.append(
                self.measure(
                    Row("lore " + " ".join(args), "empty root"),
                    lambda i, a=args: ([str(LORE), *a], env),  # type: ignore[misc]
                    self.repeats,
                )
            )
        self.sections.append(sec)

    def captures(self, small: Path, stores: list[Store]) -> None:
        sec = Section(
            "3. Capture",
            "Target (issue 19): `lore capture`, `lore remember` of a new decision and `lore fail` "
            "within 5× bare Python start-up, on both stores. Each run writes a new record with "
            "a different text. `remember` makes a decision, so the near-duplicate check runs "
            "over the titles within reach of the new one (rapidfuzz for those), and with two "
            "paths the contradiction check too (decisions naming both files); `fail` counts "
            "failures of its type for the Rule-of-Three hint. On the big stores both take "
            "their answers from the search index (built by the read rows before them), with "
            "what changed since it was written applied in memory.",
        )

        def on_empty(args: Callable[[int], list[str]]) -> Make:
            return lambda i: ([str(LORE), *args(i)], self.env(self.fresh("empty")))

        cases: list[tuple[str, str, Make, Store | None]] = [
            (
                'lore capture "<text>"',
                "empty root",
                on_empty(lambda i: ["capture", self.text(i, "Noticed")]),
                None,
            ),
            (
                'lore remember "<text>"',
                "100 records",
                lambda i: ([str(LORE), "remember", self.text(i, "Adopt")], self.env(small)),
                None,
            ),
            (
                'lore fail T "<message>"',
                "empty root",
                on_empty(lambda i: ["fail", "NonZeroExit", self.text(i, "pytest exited 1:")]),
                None,
            ),
        ]
        for store in stores:
            env = store.env()
            cases += [
                (
                    'lore capture "<text>"',
                    store.name,
                    lambda i, env=env: ([str(LORE), "capture", self.text(i, "Noticed")], env),
                    store,
                ),
                (
                    'lore remember "<text>"',
                    store.name,
                    lambda i, env=env: ([str(LORE), "remember", self.text(i, "Adopt")], env),
                    store,
                ),
                (
                    'lore remember "<text> <2 paths>"',
                    store.name,
                    lambda i, env=env: ([str(LORE), "remember", self.two_paths(i)], env),
                    store,
                ),
                (
                    'lore fail T "<message>"',
                    store.name,
                    lambda i, env=env: (
                        [str(LORE), "fail", "NonZeroExit", self.text(i, "pytest exited 1:")],
                        env,
                    ),
                    store,
                ),
            ]
        for label, where, make, store in cases:
            row = Row(label, where, target=5.0, watcher=store)
            sec.rows.append(self.measure(row, make, self.repeats))
        self.sections.append(sec)

    def imports(self, jsonl: Path) -> None:
        target = 15.0 * self.n / 100_000
        sec = Section(
            f"4. `lore import` of {self.n:,} records",
            f"The generated JSONL of mixed kinds (`lore export` shape, ids and timestamps "
            f"included) into an empty root. Target: under {target:g} s"
            + (" (15 s scaled to N)." if self.quick else "."),
        )
        row = Row(f"lore import <{self.n // 1000}k lines>", "empty root", target=target)
        row.absolute = True

        def make(i: int) -> tuple[list[str], dict[str, str]]:
            return [str(LORE), "import", str(jsonl)], self.env(self.fresh("import"))

        self.measure(row, make, self.import_repeats, warmup=0, paired=False)
        if row.times:
            row.note = _join(row.note, f"{self.n / row.median:,.0f} records/s")
        sec.rows.append(row)
        self.sections.append(sec)

    def reads(self, stores: list[Store]) -> None:
        recall, provisional = self.recall_argv()
        sec = Section(
            "5. Reading the stores: recall and resume",
            "Targets (issue 19), as multiples of bare Python start-up: `lore recall` with a "
            "warm index within 7×; `lore recall` right after a `lore capture` (untimed; the "
            "recall applies it to the index in memory) within 8×; `lore resume` within 6×. "
            "The cold index build (the first recall after the store was made; repeats "
            "delete the index first) is reported without a target. *No watcher* rows run "
            "with `LORE_WATCH=0`: each read then checks every document file (a stat each), "
            "the guarantee kept without a watcher, reported for the trade-off.",
        )
        for store in stores:
            env = store.env()
            index_dirs = lambda env=env: list(Path(env["LORE_CACHE_DIR"]).glob("*/index"))  # noqa: E731

            def cold(i: int, env: dict[str, str] = env, dirs: Any = index_dirs) -> Any:
                for path in dirs():
                    shutil.rmtree(path)
                return [*recall, QUESTION], env

            row = self.measure(
                Row(f'lore recall "{QUESTION}"', f"{store.name}, cold index"),
                cold,
                self.cold_repeats,
                warmup=0,
            )
            row.note = _join(row.note, "index build + query", provisional)
            sec.rows.append(row)
            bare = store.env(LORE_WATCH="0")
            after = self.after_capture(env, recall)
            warm: Make = lambda i, env=env: ([*recall, QUESTION], env)  # noqa: E731
            unwatched: Make = lambda i, env=bare: ([*recall, QUESTION], env)  # noqa: E731
            resume: Make = lambda i, env=env: ([str(LORE), "resume"], env)  # noqa: E731
            resume_bare: Make = lambda i, env=bare: ([str(LORE), "resume"], env)  # noqa: E731
            q = f'lore recall "{QUESTION}"'
            for label, where, make, target, watched in (
                (q, "warm index", warm, 7.0, True),
                (q, "right after a capture", after, 8.0, True),
                (q, "warm index, no watcher", unwatched, None, False),
                ("lore resume", "", resume, 6.0, True),
                ("lore resume", "no watcher", resume_bare, None, False),
            ):
                where = f"{store.name}, {where}" if where else store.name
                row = Row(label, where, target=target, watcher=store if watched else None)
                sec.rows.append(self.measure(row, make, self.repeats))
        self.sections.append(sec)
        self.recall = recall
        for store in stores:
            self.timeline(store)
        self.sections.append(self.timeline_section)

    def after_capture(self, env: dict[str, str], recall: list[str]) -> Make:
        """A capture (untimed, outside the pairing), then the recall that follows it."""

        def make(i: int) -> tuple[list[str], dict[str, str]]:
            subprocess.run(
                [str(LORE), "capture", self.text(i + 300, "Saw")],
                env=env,
                cwd=self.cwd,
                check=True,
                capture_output=True,
                stdin=subprocess.DEVNULL,
            )
            return [*recall, QUESTION], env

        return make

    def timeline(self, store: Store) -> None:
        """``lore timeline`` at every level, with its answer kept and (cold) without it."""
        env = store.env()
        if not hasattr(self, "timeline_section"):
            self.timeline_section = Section(
                "5b. The timeline",
                "`lore timeline` at each level on both stores. Target (issue 19): cold, any "
                "level, within 8× bare start-up (the kept answers are deleted before each "
                "run, so the counts and digests are computed from the index: what the first "
                "timeline after a capture pays). Warm: the answer kept beside the index by the "
                "run before (reported).",
            )
        sec = self.timeline_section
        periods = _timeline_periods(env)
        kept = lambda: list(Path(env["LORE_CACHE_DIR"]).glob("*/index/timeline.json"))  # noqa: E731
        for level, period in periods:
            argv = [str(LORE), "timeline", *([period] if period else [])]
            shown = " ".join(argv[1:])
            sec.rows.append(
                self.measure(
                    Row(f"lore {shown}", f"{store.name}, {level}, warm"),
                    lambda i, argv=argv: (argv, env),
                    min(self.repeats, 7),
                )
            )

            def cold(i: int, argv: list[str] = argv) -> tuple[list[str], dict[str, str]]:
                for path in kept():
                    path.unlink()
                return argv, env

            row = Row(f"lore {shown}", f"{store.name}, {level}, cold", target=8.0, watcher=store)
            sec.rows.append(self.measure(row, cold, min(self.repeats, 7)))

    def graph(self, big: Path) -> None:
        """The knowledge graph on the big store: rebuild, a read after one capture, --deep."""
        sec = Section(
            "7. The knowledge graph",
            "On the big store: `lore graph rebuild` (from nothing; the search index is warm) "
            "under 30 s and 1 GB of resident memory; `lore graph neighbors ID` right after one "
            "`lore remember` (untimed) whose decision names a file: an incremental refresh, "
            "under 2 s; `lore recall --deep`, under 3 s.",
        )
        env = self.env(big)
        subprocess.run(
            [str(LORE), "index", "rebuild"], env=env, cwd=self.cwd, check=True, capture_output=True
        )
        runs = min(self.repeats, 5)
        row = self.measure(
            Row("lore graph rebuild", f"{self.n:,} records", target=30.0, absolute=True),
            lambda i: ([str(LORE), "graph", "rebuild"], env),
            runs,
        )
        peak = peak_rss([str(LORE), "graph", "rebuild"], env, self.cwd)
        row.note = _join(row.note, f"peak RSS {peak / 1024:,.0f} MB (target < 1,024 MB)")
        if peak >= 1024 * 1024:
            row.error = f"peak RSS {peak / 1024:,.0f} MB is over 1 GB"
        sec.rows.append(row)

        def after_capture(i: int) -> tuple[list[str], dict[str, str]]:
            text = self.text(i + 200, "Keep") + f" in src/{RUN_WORDS[i % len(RUN_WORDS)]}{i}.py"
            done = subprocess.run(
                [str(LORE), "remember", text, "--json"],
                env=env,
                cwd=self.cwd,
                capture_output=True,
                check=True,
                stdin=subprocess.DEVNULL,
            )
            rid = json.loads(done.stdout)["id"]
            return [str(LORE), "graph", "neighbors", rid], env

        row = self.measure(
            Row("lore graph neighbors ID", "after one capture", target=2.0, absolute=True),
            after_capture,
            self.repeats,
        )
        row.note = _join(row.note, "the capture before each run is not timed")
        sec.rows.append(row)
        sec.rows.append(
            self.measure(
                Row(
                    f'lore recall --deep "{QUESTION}"',
                    f"{self.n:,} records",
                    target=3.0,
                    absolute=True,
                ),
                lambda i: ([str(LORE), "recall", "--deep", QUESTION], env),
                self.repeats,
            )
        )
        self.sections.append(sec)

    def modules(self, big: Path) -> None:
        """Which heavy modules each command imports, and its top imports by cost."""
        probe = (
            "import io, os, sys\n"
            "sys.argv = ['lore', *os.environ['BENCH_ARGV'].split('\\x1f')]\n"
            "if os.environ.get('BENCH_STDIN'):\n"
            "    sys.stdin = io.TextIOWrapper(io.BytesIO(os.environ['BENCH_STDIN'].encode()))\n"
            # The console script's own entry point: a hook call takes its fast path
            # (no click), every other command the CLI.
            "from lore.launch import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "mods = sorted(m for m in sys.modules if '.' not in m)\n"
            "with open(os.environ['BENCH_OUT'], 'w') as f:\n"
            "    f.write('\\n'.join(mods))\n"
        )
        cases = [
            (["--help"], None),
            (["--version"], None),
            (["capture", "Noticed the probe path"], None),
            (["remember", "Adopt the probe path for the heron"], big),
            (["fail", "NonZeroExit", "probe exited 1"], None),
            (["resume"], big),
            (["recall", QUESTION], big),
            (["hooks", "run", "user-prompt-submit"], big),
        ]
        prompt = json.dumps(
            {
                "session_id": "bench-probe",
                "prompt": QUESTION,
                "cwd": str(self.cwd),
                "hook_event_name": "UserPromptSubmit",
            }
        )
        lines = [
            "| Command | Store | networkx | rapidfuzz | rich | ruamel | Modules | "
            "Heaviest imports (cumulative ms, `-X importtime`) |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        self.help_heavy: list[str] = []
        trees: list[str] = []
        for args, store in cases:
            out = self.tmp / f"modules-{self.counter}.json"
            env = self.env(store or self.fresh("empty"))
            env.update(BENCH_ARGV="\x1f".join(args), BENCH_OUT=str(out))
            if args[:2] == ["hooks", "run"]:
                env["BENCH_STDIN"] = prompt
            proc = subprocess.run(
                [PY, "-X", "importtime", "-c", probe],
                capture_output=True,
                env=env,
                cwd=self.cwd,
                stdin=subprocess.DEVNULL,
            )
            loaded = set(out.read_text().split()) if out.is_file() else set()
            heavy = [m for m in HEAVY if m in loaded]
            if args == ["--help"]:
                self.help_heavy = heavy
            stderr = proc.stderr.decode(errors="replace")
            top = _top_imports(stderr)
            marks = " | ".join("**yes**" if m in heavy else "no" for m in HEAVY)
            shown = "lore " + " ".join(a if " " not in a else '"…"' for a in args)
            where = f"{self.n:,} records" if store else "empty root"
            lines.append(f"| `{shown}` | {where} | {marks} | {len(loaded)} | {top} |")
            trees.append(
                f"<details><summary><code>{shown}</code>: imports over {TREE_MS:g} ms "
                f"(cumulative, nested)</summary>\n\n```\n{_import_tree(stderr)}\n```\n"
                "</details>"
            )
        verdict = "PASS" if "networkx" not in self.help_heavy else "FAIL"
        self.sections.append(
            Section(
                "6. Heavy imports",
                "Each command run in-process (`from lore.cli import main`) under "
                "`python -X importtime`; *Modules* counts top-level modules in `sys.modules` "
                f"afterwards. Target: `lore --help` imports no networkx: **{verdict}**. "
                "`-X importtime` inflates import times (about 1.5×); compare them with each "
                "other, not with the wall-clock rows.",
                extra="\n".join(lines) + "\n\n" + "\n\n".join(trees),
            )
        )

    # -- profiles of failed targets -------------------------------------------------

    def profile(self, argv: list[str], env: dict[str, str], title: str) -> None:
        out = self.tmp / f"profile-{self.counter}.prof"
        self.counter += 1
        subprocess.run(
            [PY, "-m", "cProfile", "-o", str(out), *argv],
            capture_output=True,
            env=env,
            cwd=self.cwd,
            stdin=subprocess.DEVNULL,
        )
        if out.is_file():
            self.profiles.append((title, _profile_table(out)))


def _timeline_periods(env: dict[str, str]) -> list[tuple[str, str]]:
    """One period of each level that has records: the last year, its busiest month, that
    month's busiest week and that week's busiest day (chosen from the timeline itself)."""
    import json

    def ask(*args: str) -> dict:
        out = subprocess.run(
            [str(LORE), "timeline", *args, "--json"], capture_output=True, env=env, check=True
        )
        return json.loads(out.stdout)  # type: ignore[no-any-return]

    found = [("all years", "")]
    doc = ask()
    for level in ("year", "month", "week", "day"):
        parts = [p for p in doc.get("periods", []) if p["total"]]
        if not parts:
            break
        pick = parts[-1] if level == "year" else max(parts, key=lambda p: p["total"])
        found.append((level, pick["period"]))
        if level != "day":
            doc = ask(pick["period"])
    return found


def peak_rss(argv: list[str], env: dict[str, str], cwd: Path) -> int:
    """The peak resident set size (KB) of one run of ``argv`` (wait4: that process alone)."""
    proc = subprocess.Popen(
        argv,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return int(usage.ru_maxrss)


def splice(doc: Path, section: Section, bench: Bench) -> None:
    """Replace (or add) one section of an existing report: ``--only`` runs."""
    lines = _section_lines(section, bench)
    old = doc.read_text(encoding="utf-8").split("\n") if doc.is_file() else ["# Benchmarks", ""]
    head = f"## {section.title}"
    if head in old:
        start = old.index(head)
        end = next((i for i in range(start + 1, len(old)) if old[i].startswith("## ")), len(old))
    else:
        start = end = next(
            (i for i, line in enumerate(old) if line.startswith("## Profiles")), len(old)
        )
    doc.write_text("\n".join([*old[:start], *lines, *old[end:]]).rstrip() + "\n", "utf-8")


def _section_lines(sec: Section, bench: Bench) -> list[str]:
    out = [f"## {sec.title}", "", sec.intro, ""]
    if sec.rows:
        out += [
            "| Command | Store | Runs | Median ms | Min–max ms | CPU ms | py ms | ×py "
            "| ×py CPU | Target | Result |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
        ]
        for row in sec.rows:
            out.append(_row(row, bench))
        notes = [f"- {r.label} ({r.where}): {r.note}" for r in sec.rows if r.note]
        errors = [f"- {r.label} ({r.where}): `{r.error}`" for r in sec.rows if r.error]
        out += ["", *notes, *errors] if notes or errors else []
        out.append("")
    if sec.extra:
        out += [sec.extra, ""]
    return out


def served_log(argv: list[str], env: dict[str, str]) -> Path | None:
    """The command server's log when ``argv`` is a ``lore`` command it runs, else None."""
    from lore.cmdserver.client import command_of

    if not argv or Path(argv[0]) != LORE or env.get("LORE_COMMAND_SERVER", "1") == "0":
        return None
    log = env.get("LORE_COMMAND_SERVER_LOG")
    return Path(log) if log and command_of(argv[1:]) else None


def worker_cpu(log: Path, size: int) -> float:
    """CPU seconds of the worker the server logged after offset ``size`` (it logs a command
    once its client has ended: wait for it briefly); 0 when the console script ran it."""
    deadline = time.monotonic() + 1.0
    while True:
        with contextlib.suppress(OSError), open(log, "rb") as handle:
            handle.seek(size)
            line = handle.readline()
            if line.endswith(b"\n"):
                user, system = line.split()[-2:]
                return (float(user) + float(system)) / 1000
        if time.monotonic() > deadline:
            return 0.0  # not served (no server yet, or it refused): the client did it all
        time.sleep(0.005)


def server_pid(env: dict[str, str]) -> int | None:
    """The pid of a command server serving with ``env``'s cache folder (its lock names it)."""
    cache = env.get("LORE_CACHE_DIR")
    return locked_pid(Path(cache).glob("cmdserver/*.lock")) if cache else None


def stop_servers(tmp: Path) -> None:
    """Stop the command servers the runs started under ``tmp`` (one per cache folder; an
    empty root's runs each have their own): they would idle for 15 minutes otherwise."""
    import signal

    for lock in tmp.glob("**/cmdserver/*.lock"):
        pid = server_pid({"LORE_CACHE_DIR": str(lock.parent.parent)})
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def _top_imports(stderr: str, count: int = 4) -> str:
    """The costliest top-level imports from ``-X importtime`` output."""
    found: dict[str, int] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = line.split("|")
        name = parts[2]
        if not parts[1].strip().isdigit() or name.startswith("  "):
            continue  # the header, or a nested import
        name = name.strip()
        found[name] = found.get(name, 0) + int(parts[1])
    top = sorted(found.items(), key=lambda item: -item[1])[:count]
    return ", ".join(f"{name} {us / 1000:.0f}" for name, us in top)


def _import_tree(stderr: str, min_ms: float = 0.0, depth: int = 4) -> str:
    """The ``-X importtime`` tree cut to imports over ``min_ms`` (default TREE_MS)."""
    min_us = (min_ms or TREE_MS) * 1000
    out = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = line.split("|")
        if not parts[1].strip().isdigit():
            continue
        name = parts[2].rstrip()
        level = (len(name) - len(name.lstrip())) // 2
        if int(parts[1]) >= min_us and level < depth:
            out.append(f"{int(parts[1]) / 1000:7.1f} ms  {'  ' * level}{name.strip()}")
    return "\n".join(out)


def _short(path: str) -> str:
    for prefix in (str(REPO) + "/", "site-packages/"):
        if prefix in path:
            path = path.split(prefix, 1)[1]
    return path.replace(str(Path(sys.base_prefix)), "<py>")


def _profile_table(path: Path, count: int = 14) -> str:
    stats = pstats.Stats(str(path)).stats  # type: ignore[attr-defined]
    total = max(ct for (_, _, _, ct, _) in stats.values())
    skip = ("click/", "<frozen", "bin/lore", "lore/cli/__init__.py", "cProfile", "runpy")
    rows = []
    for (file, line, func), (_, calls, own, cum, _) in stats.items():
        if any(s in file for s in skip) or func == "<built-in method builtins.exec>":
            continue
        rows.append((cum, own, calls, f"{_short(file)}:{line}({func})"))
    rows.sort(reverse=True)
    lines = [f"total {total:.2f} s under cProfile", "   cum s   own s     calls  function"]
    for cum, own, calls, name in rows[:count]:
        lines.append(f"{cum:8.2f} {own:7.2f} {calls:9d}  {name}")
    by_own = sorted(rows, key=lambda r: -r[1])[:6]
    lines.append("top by own time:")
    for cum, own, calls, name in by_own:
        lines.append(f"{cum:8.2f} {own:7.2f} {calls:9d}  {name}")
    return "\n".join(lines)


def fsync_cost(directory: Path, count: int = 50) -> float:
    """Milliseconds to write, fsync and fsync the directory of one small file."""
    started = time.perf_counter()
    for i in range(count):
        with open(directory / f"f{i}", "wb") as handle:
            handle.write(b"x" * 400)
            handle.flush()
            os.fsync(handle.fileno())
        fd = os.open(directory, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
    return (time.perf_counter() - started) / count * 1000


def filesystem(path: Path) -> str:
    best = ("?", "")
    try:
        with open("/proc/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                parts = line.split()
                if str(path).startswith(parts[1]) and len(parts[1]) >= len(best[1]):
                    best = (parts[2], parts[1])
    except OSError:
        pass
    return best[0]


def machine_facts(bench: Bench) -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    with_model = Path("/proc/cpuinfo")
    if with_model.is_file():
        for line in with_model.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    pyver = subprocess.run(
        [PY, "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    version = subprocess.run(
        [str(LORE), "--version"], capture_output=True, text=True, stdin=subprocess.DEVNULL
    ).stdout.strip()
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return {
        "Date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "CPUs (os.cpu_count())": str(os.cpu_count()),
        "CPU": cpu,
        "OS": platform.platform(),
        "Python": f"{pyver} ({PY})",
        "lore": f"{version}, commit {commit or '?'}{' + uncommitted changes' if dirty else ''}",
        "Load average at start (1/5/15 min)": " / ".join(f"{x:.2f}" for x in os.getloadavg()),
        "Temp dir": f"{bench.tmp.parent} ({filesystem(bench.tmp)}); small file + dir fsync "
        f"{fsync_cost(bench.fresh('fsync')):.1f} ms",
    }


def render(bench: Bench, elapsed: float) -> str:
    base = bench.base
    out = [
        "# Benchmarks",
        "",
        "<!-- Generated by bench/run.py: edit that script, not this file. -->",
        "",
    ]
    if bench.quick:
        out += [
            "> **Quick smoke run** (`--quick`: 10k records, 5 repeats): not the reference "
            "numbers. Run `python bench/run.py` for those.",
            "",
        ]
    out += [
        "Reproduce: `python bench/run.py` (`--quick` for a smoke run); see `bench/README.md`.",
        f"The whole run took {elapsed / 60:.1f} min.",
        "",
        "| Machine | |",
        "| --- | --- |",
    ]
    out += [f"| {k} | {v} |" for k, v in bench.facts.items()]
    out.append("| Load average at end | " + " / ".join(f"{x:.2f}" for x in os.getloadavg()) + " |")
    out += [
        "",
        f"Times are wall-clock medians of separate processes (`lore` = `{LORE.relative_to(REPO)}`"
        f", stdin from /dev/null, NO_COLOR=1, fresh LORE_DATA_DIR/LORE_CACHE_DIR in a temp "
        f"dir, cwd outside any git repository). Start-up rows: {bench.repeats} runs after one "
        f"warm-up, each beside a run of `python -c pass`; *py ms* is the median of those and "
        f"×py = median / py ms. *CPU ms* is the median user+sys time of the process and ×py "
        f"CPU its ratio to the median CPU time of its baselines: the PASS/FAIL ratio, as it "
        f"barely moves when other work loads the machine (2 CPUs shared by several people; "
        f"wall time moves with their work). A row's watcher note is the CPU the root's "
        f"watcher daemon (a separate process, not in the row's CPU) spent per run. Baseline "
        f"alone: {bench.base_repeats} runs, median {base * 1000:.1f} ms.",
        f"Both {bench.n:,}-record stores ({bench.facts_store}): `gen_store` is written by "
        f"`bench/gen_store.py`, `gen_corpus` is the shared `gen_corpus.py` brought in with "
        f"`lore import` (about 12,000 pattern documents, long postings).",
        "",
    ]
    for sec in sorted(bench.sections, key=lambda s: s.title):
        out += _section_lines(sec, bench)
    if bench.profiles:
        out += [
            "## Profiles of the failed targets",
            "",
            "One run of each under `python -m cProfile` (profiling inflates Python-heavy code; "
            "compare shares, not absolute times). Lore code and libraries; click and the "
            "import machinery are left out.",
            "",
        ]
        for title, table in bench.profiles:
            out += [f"### {title}", "", "```", table, "```", ""]
    return "\n".join(out).rstrip() + "\n"


def _row(row: Row, bench: Bench) -> str:
    cmd = f"`{row.label}`"
    runs = len(row.times)
    if row.error:
        return f"| {cmd} | {row.where} | {runs} | — | — | — | — | — | — | — | **ERROR** |"
    med, lo, hi = (x * 1000 for x in (row.median, min(row.times), max(row.times)))
    cpu = statistics.median(row.cpu) * 1000
    py = f"{statistics.median(row.base) * 1000:.1f}" if row.base else "—"
    if row.absolute:
        target, ratio, cpu_ratio = f"< {row.target:g} s", "—", "—"
    else:
        target = f"≤ {row.target:g}×" if row.target else "—"
        ratio = f"{row.ratio(bench.base):.1f}"
        base_cpu = statistics.median(row.base_cpu or bench.base_row.cpu)
        cpu_ratio = f"{cpu / 1000 / base_cpu:.1f}"
    base_cpu = statistics.median(bench.base_row.cpu)
    verdict = {True: "PASS", False: "**FAIL**", None: "—"}[row.passed(bench.base, base_cpu)]
    return (
        f"| {cmd} | {row.where} | {runs} | {med:,.1f} | {lo:,.0f}–{hi:,.0f} | {cpu:,.1f} "
        f"| {py} | {ratio} | {cpu_ratio} | {target} | {verdict} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run lore's speed benchmarks.")
    parser.add_argument("--quick", action="store_true", help="smaller N, fewer repeats")
    parser.add_argument("--out", type=Path, default=DOC, help=f"report (default {DOC})")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    parser.add_argument("--no-profile", action="store_true", help="skip profiling failures")
    parser.add_argument(
        "--only",
        choices=["capture", "reads", "mcp", "fts5"],
        help="run one part alone on fresh stores and splice it into the report: capture "
        "(sections 1 and 3), reads (1, 5 and 5b: recall, resume, the timeline), mcp "
        "(section 8) or fts5 (section 12)",
    )
    args = parser.parse_args(argv)
    if not LORE.is_file():
        print(f"bench: {LORE} not found; run ./install.sh --dev first", file=sys.stderr)
        return 1
    started = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="lore-bench-"))
    bench = Bench(args.quick, tmp)
    stores: list[Store] = []
    try:
        bench.facts = machine_facts(bench)
        print(f"bench: {bench.n:,} records a store, temp dir {tmp}", file=sys.stderr)
        jsonl = tmp / "import.jsonl"
        stores = make_stores(bench, jsonl)
        if args.only == "mcp":
            build_indexes(bench, stores)
            mcp_section(bench, stores, args.out)
            summary.write(args.out)
            return 0
        if args.only == "fts5":
            build_indexes(bench, stores)
            fts5_section(bench, stores, args.out)
            return 0
        bench.baseline()
        small = tmp / "small"
        bench.generate(small, 100)
        if args.only:
            if args.only == "capture":
                build_indexes(bench, stores)
                bench.captures(small, stores)
            else:
                bench.reads(stores)
            for section in bench.sections:
                splice(args.out, section, bench)
                print(f"bench: spliced {section.title!r} into {args.out}", file=sys.stderr)
            summary.write(args.out)
            return 0
        bench.cli_basics()
        bench.reads(stores)  # first, so the first recall really is the cold build
        bench.captures(small, stores)
        bench.imports(jsonl)
        bench.graph(stores[0].root)
        bench.modules(stores[0].root)
        if not args.no_profile:
            profile_failures(bench, jsonl)
        elapsed = time.perf_counter() - started
        args.out.parent.mkdir(parents=True, exist_ok=True)
        report = render(bench, elapsed)
        old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        # bench/ui.py's, ingest.py's, hooks.py's and dynamics.py's sections are kept as
        # they were (mcp_section writes bench/mcp_server.py's below)
        for name in ("ui-bench", "ingest-bench", "hooks-bench", "dynamics-bench"):
            begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
            if begin in old and end in old:
                report += "\n" + old[old.index(begin) : old.index(end) + len(end)] + "\n"
        args.out.write_text(report, encoding="utf-8")
        mcp_section(bench, stores, args.out)
        fts5_section(bench, stores, args.out)
        summary.write(args.out)  # issue 19's table, from the rows just written
        elapsed = time.perf_counter() - started
        print(f"bench: wrote {args.out} in {elapsed / 60:.1f} min", file=sys.stderr)
    finally:
        for store in stores:
            store.stop_watcher()
        stop_servers(tmp)
        if args.keep:
            print(f"bench: kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


def make_stores(bench: Bench, jsonl: Path) -> list[Store]:
    """Both generated stores (gen_corpus only when the shared script is there)."""
    first = make_gen_store(bench.tmp, bench.n, jsonl, bench.cwd)
    print(f"  generated gen_store in {first.seconds:.1f} s", file=sys.stderr)
    stores = [first]
    second = make_gen_corpus(bench.tmp, bench.n, bench.cwd)
    if second is not None:
        print(f"  generated and imported gen_corpus in {second.seconds:.1f} s", file=sys.stderr)
        stores.append(second)
    bench.facts_store = ", ".join(f"{s.name} made in {s.seconds:.0f} s" for s in stores)
    return stores


def build_indexes(bench: Bench, stores: list[Store]) -> None:
    for store in stores:  # built once, outside every timed row
        subprocess.run([str(LORE), "index", "rebuild"], env=store.env(), cwd=bench.cwd,
                       check=True, capture_output=True, stdin=subprocess.DEVNULL)  # fmt: skip


def mcp_section(bench: Bench, stores: list[Store], out: Path) -> None:
    """Section 8: the MCP server on each store (bench/mcp_server.py's measurements)."""
    try:
        import mcp_server
    except ImportError as exc:  # the [mcp] extra is not installed
        print(f"bench: no MCP rows ({exc})", file=sys.stderr)
        return
    calls, starts = (10, 3) if bench.quick else (40, 5)
    load, before = os.getloadavg(), mcp_server.host_speed()
    tables = []
    for store in stores:
        found = mcp_server.measure(store.root, store.cache, bench.cwd, calls, starts)
        tables += mcp_server.rows(store.name, found)
        print(f"  mcp [{store.name}]: {tables[-3:]}", file=sys.stderr)
    text = mcp_server.section(tables, calls, load, (before, mcp_server.host_speed()))
    write_section(out, text, mcp_server.BEGIN, mcp_server.END)


def fts5_section(bench: Bench, stores: list[Store], out: Path) -> None:
    """Section 12: SQLite FTS5 as the candidate generator (bench/fts5.py)."""
    import fts5

    text = fts5.run([(s.name, s.root, s.cache) for s in stores], bench.tmp)
    write_section(out, text, fts5.BEGIN, fts5.END)


def _section(text: str, title: str) -> str:
    """The ``## title`` section of a report, up to the next ``## `` heading ("" if absent)."""
    start = text.find(f"## {title}\n")
    if start < 0:
        return ""
    end = text.find("\n## ", start + 1)
    return text[start : end + 1] if end >= 0 else text[start:]


def profile_failures(bench: Bench, jsonl: Path) -> None:
    """cProfile one more run of every command whose target failed."""
    for sec in bench.sections:
        for row in sec.rows:
            base_cpu = statistics.median(bench.base_row.cpu)
            if row.passed(bench.base, base_cpu) is not False or row.make is None:
                continue
            title = f"{row.label} ({row.where})"
            if row.absolute:  # the import: a tenth of the lines (same mix), fresh root
                sample = bench.tmp / "sample.jsonl"
                lines = jsonl.read_bytes().splitlines(keepends=True)[::10]
                sample.write_bytes(b"".join(lines))
                argv = [str(LORE), "import", str(sample)]
                env = bench.env(bench.fresh("import"))
                title = f"lore import of {len(lines):,} lines (every 10th line), empty root"
            else:
                argv, env = row.make(PROFILE_RUN)
            print(f"  profiling {title}", file=sys.stderr)
            bench.profile(argv, env, title)


if __name__ == "__main__":
    sys.exit(main())
