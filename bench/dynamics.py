"""Benchmark of memory that tends itself (issue 18): ``lore stale`` on 5,000 records naming
files against a 10,000-commit repository, inside a 100,000-record store; ``lore
consolidate`` on both generated 100,000-record stores (``bench/gen_store.py`` and
``../shared/bench/corpus/gen_corpus.py``); and ``lore resume`` paired, a ref's lore (default:
``main``) against this checkout's, run alternately on the same store. Writes its section
of ``docs/benchmarks.md`` (between the ``dynamics-bench`` markers, which ``bench/run.py``
keeps). Not part of the test suite.

    python bench/dynamics.py [--before main] [--runs 9] [--pairs 40]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from report import write_section  # noqa: E402

PYTHON = REPO / ".venv" / "bin" / "python"
LORE = REPO / ".venv" / "bin" / "lore"
DOC = REPO / "docs" / "benchmarks.md"
BEGIN, END = "<!-- dynamics-bench:begin -->", "<!-- dynamics-bench:end -->"
COMMITS, FILES, ANCHORED, RECORDS = 10_000, 2_000, 5_000, 100_000
STALE_TARGET = 2.0


def environ(data: Path, cache: Path, **more: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("LORE_", "PYTHON", "GIT_"))}
    return {
        **keep,
        "LORE_DATA_DIR": str(data),
        "LORE_CACHE_DIR": str(cache),
        "NO_COLOR": "1",
        "GIT_CONFIG_NOSYSTEM": "1",
        **more,
    }


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """Wall seconds of one run (its CPU seconds, user + sys, are appended to ``CPU``)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        argv,
        env=env,
        cwd=cwd,
        check=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


CPU: list[float] = []


def make_repo(top: Path, seed: int = 7) -> tuple[list[tuple[int, str, str]], dict[str, str]]:
    """A repository of COMMITS commits over FILES files (3 files changed a commit, now and
    then one renamed or deleted), written with git fast-import; returns ANCHORED random
    (commit mark, path, blob id of the path at that commit) and the marks' commit ids."""
    from lore.capture.anchors import blob_id

    rnd = random.Random(seed)
    subprocess.run(["git", "init", "-q", "-b", "main", str(top)], check=True)
    proc = subprocess.Popen(
        [
            "git",
            "-C",
            str(top),
            "fast-import",
            "--quiet",
            f"--export-marks={top / '.git' / 'marks'}",
        ],
        stdin=subprocess.PIPE,
    )
    assert proc.stdin is not None
    write = proc.stdin.write
    files = {
        f"src/pkg{i // 40}/mod{i}.py": f"# module {i}\n" + "x = 1\n" * rnd.randint(5, 60)
        for i in range(FILES)
    }
    names = list(files)
    picks = sorted(rnd.sample(range(1, COMMITS), ANCHORED))
    anchors: list[tuple[int, str, str]] = []
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    for c in range(COMMITS):
        when = int((start + timedelta(minutes=30 * c)).timestamp())
        write(
            f"commit refs/heads/main\nmark :{c + 1}\ncommitter T <t@example.com> {when} "
            f"+0000\n".encode()
        )
        message = f"Change {c}".encode()
        write(b"data %d\n%s\n" % (len(message), message))
        touched = names if c == 0 else rnd.sample(names, 3)
        for path in list(touched):
            roll = rnd.random() if c else 1.0
            if roll < 0.01:  # a rename
                new = path.replace("/mod", f"/moved{c}_")
                files[new] = files.pop(path)
                names[names.index(path)] = new
                write(f"D {path}\n".encode())
                path = new
            elif roll < 0.015 and len(names) > FILES // 2:  # a deletion
                del files[path]
                names.remove(path)
                write(f"D {path}\n".encode())
                continue
            else:
                files[path] += f"y{c} = {c}\n"
            data = files[path].encode()
            write(f"M 100644 inline {path}\n".encode() + b"data %d\n" % len(data) + data + b"\n")
        write(b"\n")
        while picks and picks[0] == c:
            picks.pop(0)
            path = rnd.choice(names)
            anchors.append((c + 1, path, blob_id(files[path].encode())))
    proc.stdin.close()
    assert proc.wait() == 0
    subprocess.run(["git", "-C", str(top), "checkout", "-q", "main"], check=True)
    marks = dict(line.split() for line in (top / ".git" / "marks").read_text().splitlines())
    return anchors, marks


def add_anchored(
    root: Path, anchors: list[tuple[int, str, str]], marks: dict[str, str], project: str
) -> None:
    """ANCHORED decisions naming one file each, with the file's hash at a past commit."""
    from lore import clock
    from lore.components.journal import Decision
    from lore.store.core import Store

    store = Store(root)
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    records = []
    for n, path, blob in anchors:
        when = start + timedelta(minutes=30 * n + 1)
        record = Decision(
            id=clock.new_id("dec"),
            timestamp=when.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            decision=f"Keep the parser of {path} strict",
            files=[path],
            entities=[path],
            project=project,
            tags=[project],
        )
        record.extra["file_hashes"] = [{"path": path, "blob": blob, "commit": marks[f":{n}"]}]
        records.append(record)
    store.add(records)


class Paired(NamedTuple):
    old: list[float]  # wall seconds
    new: list[float]
    old_cpu: list[float]  # CPU seconds (user + sys)
    new_cpu: list[float]


def paired(
    old: list[str],
    new: list[str],
    env_old: dict[str, str],
    env_new: dict[str, str],
    cwd: Path,
    pairs: int,
) -> Paired:
    """``pairs`` runs of each, alternating which goes first, after a warm-up of each."""
    timed(old, env_old, cwd)
    timed(new, env_new, cwd)
    out = Paired([], [], [], [])
    for i in range(pairs):
        order = ((new, env_new, out.new, out.new_cpu), (old, env_old, out.old, out.old_cpu))
        for argv, env, walls, cpus in order if i % 2 else reversed(order):
            walls.append(timed(argv, env, cwd))
            cpus.append(CPU[-1])
    return out


def delta(a: list[float], b: list[float]) -> str:
    """The median of the per-pair differences (b minus a, ms) and their interquartile range."""
    diffs = sorted((y - x) * 1000 for x, y in zip(a, b, strict=True))
    q1, q3 = diffs[len(diffs) // 4], diffs[3 * len(diffs) // 4]
    return f"{statistics.median(diffs):+.1f} (IQR {q1:+.1f} to {q3:+.1f})"


def instructions(argv: list[str], env: dict[str, str], cwd: Path) -> int | None:
    """Instructions one run executes (valgrind's callgrind; None without valgrind): unlike
    time, this count does not depend on what else the machine is doing."""
    if shutil.which("valgrind") is None:
        return None
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    for line in done.stderr.splitlines():
        if "refs:" in line:
            return int(line.split("refs:")[1].strip().replace(",", ""))
    return None


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:,.1f}"


def spread(values: list[float]) -> str:
    return f"{min(values) * 1000:,.0f}–{max(values) * 1000:,.0f}"


def make_stores(tmp: Path, big: Path, corpus: Path, repo: Path, started: float) -> None:
    """The two 100,000-record stores and the repository, then a ``ready`` mark (so that
    ``--reuse`` finds them made)."""
    subprocess.run(
        [
            str(PYTHON),
            str(REPO / "bench" / "gen_store.py"),
            str(big),
            "--n",
            str(RECORDS - ANCHORED),
        ],
        check=True,
        capture_output=True,
    )
    t0 = time.perf_counter()
    anchors, marks = make_repo(repo)
    repo_seconds = time.perf_counter() - t0
    add_anchored(big, anchors, marks, repo.name)
    gen = REPO.parent.parent / "shared" / "bench" / "corpus" / "gen_corpus.py"
    if not gen.is_file():
        gen = Path("/work/shared/bench/corpus/gen_corpus.py")
    lines = subprocess.run(
        [sys.executable, str(gen), str(RECORDS)], check=True, capture_output=True
    ).stdout
    (tmp / "corpus.jsonl").write_bytes(lines)
    subprocess.run(
        [str(LORE), "import", str(tmp / "corpus.jsonl")],
        env=environ(corpus, tmp / "c-cache"),
        check=True,
        capture_output=True,
    )
    print(
        f"bench: stores and repository ready in {time.perf_counter() - started:.0f} s "
        f"(repository {repo_seconds:.0f} s)",
        file=sys.stderr,
    )
    (tmp / "ready").write_text("made by bench/dynamics.py\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark lore stale, consolidate, resume.")
    parser.add_argument("--before", default="main", help="the git ref to compare resume with")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--out", type=Path, default=DOC)
    parser.add_argument("--keep", action="store_true", help="keep the stores and repository")
    parser.add_argument(
        "--reuse",
        type=Path,
        metavar="DIR",
        help="a directory --keep kept: its stores and repository are used as they are",
    )
    args = parser.parse_args(argv)
    if args.reuse is not None:
        args.keep = True
    tmp = args.reuse or Path(tempfile.mkdtemp(prefix="lore-dynamics-bench-"))
    git_env = {
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    os.environ.update(git_env)
    try:
        load_start = os.getloadavg()
        started = time.perf_counter()
        # The stores and the repository.
        big, corpus, repo = tmp / "big", tmp / "corpus", tmp / "webshop"
        if not (tmp / "ready").is_file():
            make_stores(tmp, big, corpus, repo, started)
        cache = tmp / "cache"
        env = environ(big, cache)
        subprocess.run([str(LORE), "index", "rebuild"], env=env, check=True, capture_output=True)
        at_start = int(
            subprocess.run(
                ["git", "-C", str(repo), "rev-list", "--count", "HEAD"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )  # COMMITS, and the News commits of earlier runs on a --reuse'd repository
        # lore stale: cold (no cache), again (cached per HEAD), after a new commit.
        cold, warm, moved = [], [], []
        cold_cpu, warm_cpu, moved_cpu = [], [], []
        for n in range(args.runs):
            for path in cache.glob("*/dynamics"):
                shutil.rmtree(path)
            cold.append(timed([str(LORE), "stale"], env, repo))
            cold_cpu.append(CPU[-1])
            warm.append(timed([str(LORE), "stale"], env, repo))
            warm_cpu.append(CPU[-1])
            (repo / "NEWS.md").write_text(f"release {n} ({time.time_ns()})\n")  # new on a reuse too
            subprocess.run(["git", "-C", str(repo), "add", "NEWS.md"], check=True)
            subprocess.run(["git", "-C", str(repo), "commit", "-qm", f"News {n}"], check=True)
            moved.append(timed([str(LORE), "stale"], env, repo))
            moved_cpu.append(CPU[-1])
        report = subprocess.run(
            [str(LORE), "stale", "--json"], env=env, cwd=repo, check=True, capture_output=True
        ).stdout
        import orjson

        doc = orjson.loads(report)
        stale_records = len(doc["stale"])
        states: dict[str, int] = {}
        for item in doc["stale"]:
            for f in item["files"]:
                states[f["state"]] = states.get(f["state"], 0) + 1
        # lore consolidate on both stores.
        cons_big, cons_big_cpu = [], []
        for _ in range(args.runs):
            cons_big.append(timed([str(LORE), "consolidate"], env, tmp))
            cons_big_cpu.append(CPU[-1])
        env_c = environ(corpus, tmp / "c-cache")
        cons_corpus, cons_corpus_cpu = [], []
        for _ in range(args.runs):
            cons_corpus.append(timed([str(LORE), "consolidate"], env_c, tmp))
            cons_corpus_cpu.append(CPU[-1])
        counts_big = orjson.loads(
            subprocess.run(
                [str(LORE), "consolidate", "--json"], env=env, check=True, capture_output=True
            ).stdout
        )["counts"]
        counts_corpus = orjson.loads(
            subprocess.run(
                [str(LORE), "consolidate", "--json"], env=env_c, check=True, capture_output=True
            ).stdout
        )["counts"]
        # lore resume, paired: the ref's lore against this checkout's, same store, own caches.
        before = tmp / "before"
        shutil.rmtree(before, ignore_errors=True)
        before.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", args.before], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
        old = [
            str(PYTHON),
            "-c",
            "import sys; sys.argv[0] = 'lore'; from lore.launch import main; sys.exit(main())",
            "resume",
        ]
        new = [str(LORE), "resume"]
        env_old = {**environ(big, tmp / "old-cache"), "PYTHONPATH": str(before)}
        env_new = environ(big, tmp / "new-cache")
        for e in (env_old, env_new):  # each lore its own index (their formats differ)
            subprocess.run(
                [*old[:-1], "index", "rebuild"]
                if e is env_old
                else [str(LORE), "index", "rebuild"],
                env=e,
                check=True,
                capture_output=True,
            )
        outside = tmp / "outside"
        outside.mkdir(exist_ok=True)
        outside_run = paired(old, new, env_old, env_new, outside, args.pairs)
        inside_old = {**env_old, "LORE_PROJECT": repo.name}
        inside_new = {**env_new, "LORE_PROJECT": repo.name}
        inside_run = paired(old, new, inside_old, inside_new, repo, args.pairs)
        counted = [
            (
                instructions(old, e_old, where),
                instructions(new, e_new, where),
            )
            for e_old, e_new, where in (
                (env_old, env_new, outside),
                (inside_old, inside_new, repo),
            )
        ]
        load_end = os.getloadavg()
        when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

        # The target is wall time on an idle machine; with others' work on the 2 CPUs, the
        # process's own CPU time is what says whether it holds.
        verdict = "PASS" if statistics.median(cold_cpu) < STALE_TARGET else "**FAIL**"
        out = [
            BEGIN,
            "## 13. Memory that tends itself (`lore stale`, `lore consolidate`, resume)",
            "",
            f"Measured by `bench/dynamics.py`, {when}, on {os.cpu_count()} CPUs; load average "
            f"{load_start[0]:.2f} / {load_start[1]:.2f} / {load_start[2]:.2f} at start, "
            f"{load_end[0]:.2f} / {load_end[1]:.2f} / {load_end[2]:.2f} at the end (other "
            "work shared the machine). Each row runs `.venv/bin/lore` as a new process. The "
            f"store: {RECORDS - ANCHORED:,} records of `bench/gen_store.py` plus "
            f"{ANCHORED:,} decisions naming one file each, with the file's blob id at a random "
            f"past commit of a repository of {COMMITS:,} commits over {FILES:,} files "
            "(3 files changed a commit, about 1 in 100 changes a rename and 1 in 200 a "
            f"deletion; written with git fast-import). On it `lore stale` found "
            f"{stale_records:,} stale records ("
            + ", ".join(f"{n:,} files {s}" for s, n in sorted(states.items()))
            + "). The second store is `../shared/bench/corpus/gen_corpus.py 100000` through "
            "`lore import`. *CPU ms*: user + sys time of the process and of the git "
            "processes it ran; the target's verdict is taken on it, because wall time on "
            "this shared machine measures the other work as much as lore.",
            "",
            "| Command | Store | Runs | Median ms | Min–max ms | CPU ms | Target | Result |",
            "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |",
            f"| `lore stale` (no cache) | 100,000 records, {ANCHORED:,} naming files, "
            f"{at_start:,} commits | {len(cold)} | {ms(cold)} | {spread(cold)} | "
            f"{ms(cold_cpu)} | < 2 s | {verdict} |",
            f"| `lore stale` (again, same HEAD) | the same | {len(warm)} | {ms(warm)} | "
            f"{spread(warm)} | {ms(warm_cpu)} | — | — |",
            f"| `lore stale` (after a new commit) | the same | {len(moved)} | {ms(moved)} | "
            f"{spread(moved)} | {ms(moved_cpu)} | — | — |",
            f"| `lore consolidate` | `gen_store.py` 100,000 records | {len(cons_big)} | "
            f"{ms(cons_big)} | {spread(cons_big)} | {ms(cons_big_cpu)} | — | — |",
            f"| `lore consolidate` | `gen_corpus.py` 100,000 records | {len(cons_corpus)} | "
            f"{ms(cons_corpus)} | {spread(cons_corpus)} | {ms(cons_corpus_cpu)} | — | — |",
            "",
            "Proposals found: `gen_store.py` store "
            + ", ".join(f"{n:,} {k}" for k, n in counts_big.items())
            + "; `gen_corpus.py` store "
            + ", ".join(f"{n:,} {k}" for k, n in counts_corpus.items())
            + ".",
            "",
            f"`lore resume` before and after this work, paired: `{args.before}`'s lore "
            f"(`git archive {args.before}`, run with this checkout's Python) and this "
            f"checkout's, {args.pairs} runs each, alternating which goes first, each with its "
            "own index (their formats differ) on the same 100,000-record store. Outside any "
            f"repository (the usual row of section 5), and inside the {COMMITS:,}-commit "
            f"repository as its project (`LORE_PROJECT={repo.name}`), where resume checks "
            "the files of the decisions it shows. Wall and CPU (user + sys) medians; the "
            "differences are the medians of the per-pair differences (after minus before) "
            "with their interquartile range: CPU time moves much less than wall time when "
            "other work shares the machine. Instructions: one run of each under valgrind's "
            "callgrind, a count that does not depend on the machine's load (at the CPU "
            "medians above, 1 ms is about "
            + (
                f"{counted[0][0] / (statistics.median(outside_run.old_cpu) * 1000) / 1e6:.1f}"
                if counted[0][0]
                else "?"
            )
            + " million instructions).",
            "",
            "| `lore resume` | Before ms | After ms | Difference ms | Before CPU ms | "
            "After CPU ms | CPU difference ms | Instructions before → after |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
            *(
                f"| {label} | {ms(r.old)} | {ms(r.new)} | {delta(r.old, r.new)} | "
                f"{ms(r.old_cpu)} | {ms(r.new_cpu)} | {delta(r.old_cpu, r.new_cpu)} | "
                + (
                    f"{count[0] / 1e6:,.1f} M → {count[1] / 1e6:,.1f} M "
                    f"({(count[1] - count[0]) / count[0]:+.1%}) |"
                    if count[0] and count[1]
                    else "— |"
                )
                for label, r, count in (
                    ("outside a repository", outside_run, counted[0]),
                    ("in the repository", inside_run, counted[1]),
                )
            ),
            END,
        ]
        section = "\n".join(out) + "\n"
        print(section, file=sys.stderr)
        write_section(args.out, section, BEGIN, END)
    finally:
        if args.keep:
            print(f"bench: kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
