"""SQLite FTS5 (the standard library's sqlite3) as recall's candidate generator, beside lore's
own index: speed on both generated stores and LoCoMo development recall@5. Writes its section
of ``docs/benchmarks.md`` (between the ``fts5-bench`` markers); ``bench/run.py`` runs it on
its stores. Not part of the test suite.

    python bench/fts5.py STORE_ROOT [STORE_ROOT ...]   # stores made by bench/stores.py
    python bench/fts5.py --locomo-only

For each store an FTS5 table holds every record's index terms (lore's own analysis, so both
generators match the same words; a term written as often as its weighted count), built from
lore's index. A query asks FTS5 for its BM25 top K (``ORDER BY bm25 LIMIT K``, the query's
terms and their prefixes OR-ed), and lore's ranking then scores those records and their
neighbours (``lore.recall.core.rank(candidates=...)``). Measured beside ``rank`` on lore's
index (candidates proved by ``lore.recall.prune``): CPU per query, the cost of opening each
generator in a new process, whether the first ten agree with scoring every record, and LoCoMo
development recall@5.
"""

from __future__ import annotations

import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from report import write_section  # noqa: E402
from stores import LOCOMO, LORE  # noqa: E402

BEGIN, END = "<!-- fts5-bench:begin -->", "<!-- fts5-bench:end -->"
DOC = HERE.parent / "docs" / "benchmarks.md"
QUESTIONS = (
    "why did we choose Redis for the session store cache?",
    "retry flaky network calls",
    "deploy pipeline timeout",
    "postgres migration locking",
    "log shipper cold caches",
    "session",
    "needle-7",
)
KS = (20, 100)  # FTS5 candidates handed to lore's ranking
LIMIT = 10
REPEATS = 5
MAX_COUNT = 20  # a term written at most this often in a record's FTS5 text


def build_fts(idx: Any, path: Path) -> float:
    """An FTS5 table (rowid = lore's record number) of every live record's terms."""
    started = time.perf_counter()
    if path.exists():
        path.unlink()
    db = sqlite3.connect(path)
    db.execute("create virtual table t using fts5(body, prefix='2 3 4')")
    bags: list[list[str]] = [[] for _ in range(len(idx.kinds))]
    for term in idx.vocabulary():
        column = idx.postings_of(term)
        for i in range(0, len(column), 2):
            bags[column[i]].extend([term] * min(column[i + 1], MAX_COUNT))
    dead = idx.dead
    db.executemany(
        "insert into t(rowid, body) values (?, ?)",
        ((d, " ".join(words)) for d, words in enumerate(bags) if words and d not in dead),
    )
    db.execute("insert into t(t) values('optimize')")
    db.commit()
    db.close()
    return time.perf_counter() - started


def fts_query(terms: list[str]) -> str:
    """The query's terms, each also as a prefix (as recall matches a term's longer forms)."""
    parts = []
    for term in terms:
        quoted = '"' + term.replace('"', '""') + '"'
        parts.append(quoted)
        if len(term) >= 4:
            parts.append(quoted + "*")
    return " OR ".join(parts)


def candidates(db: sqlite3.Connection, terms: list[str], k: int) -> set[int]:
    if not terms:
        return set()
    rows = db.execute(
        "select rowid from t where t match ? order by bm25(t) limit ?", (fts_query(terms), k)
    ).fetchall()
    return {r[0] for r in rows}


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def speed(root: Path, cache: Path, fts: Path) -> dict[str, Any]:
    """Per query, CPU ms of lore's index (proved candidates) and of FTS5 candidates with
    lore's ranking, and whether each first ten equal scoring every record."""
    from lore import timeexpr
    from lore.index import analyze
    from lore.index.persist import open_index
    from lore.recall import core
    from lore.store.core import Store

    os.environ["LORE_DATA_DIR"], os.environ["LORE_CACHE_DIR"] = str(root), str(cache)
    store = Store(root)
    idx = open_index(store)
    db = sqlite3.connect(f"file:{fts}?mode=ro", uri=True)
    out: dict[str, Any] = {"lore": [], **{f"fts{k}": [] for k in KS}, "agree": {}}
    for question in QUESTIONS:
        full = core.rank(store, question, limit=0, index=idx)
        want = [r.doc for r in full.ranked[:LIMIT]]
        terms = analyze.query_terms(timeexpr.in_query(question)[1])
        times = []
        for _ in range(REPEATS):
            started = cpu()
            got = core.rank(store, question, limit=LIMIT, index=idx)
            times.append(cpu() - started)
        out["lore"].append(statistics.median(times))
        out["agree"].setdefault("lore", []).append([r.doc for r in got.ranked[:LIMIT]] == want)
        for k in KS:
            times = []
            for _ in range(REPEATS):
                started = cpu()
                found = candidates(db, terms, k)
                got = core.rank(store, question, limit=LIMIT, index=idx, candidates=found)
                times.append(cpu() - started)
            out[f"fts{k}"].append(statistics.median(times))
            same = [r.doc for r in got.ranked[:LIMIT]] == want
            out["agree"].setdefault(f"fts{k}", []).append(same)
    db.close()
    return out


def opening(root: Path, cache: Path, fts: Path) -> dict[str, float]:
    """CPU seconds of a new process that opens a generator and answers the first question
    (lore's index alone; lore's index with FTS5's top 100 as candidates, which still needs
    the index for the ranking's columns; FTS5's BM25 alone, no ranking), and of
    ``python -c pass`` beside them: medians of paired runs."""
    py = sys.executable
    setup = (
        "import os\n"
        "from lore.store.core import Store\n"
        "from lore.recall import core\n"
        "s = Store(os.environ['LORE_DATA_DIR'])\n"
    )
    lore_code = setup + f"core.rank(s, {QUESTIONS[0]!r}, limit=10)\n"
    query = '"redi" OR "redi"* OR "session" OR "session"* OR "store" OR "store"* OR "cach"'
    both_code = (
        setup
        + "import sqlite3\n"
        + f"db = sqlite3.connect('file:{fts}?mode=ro', uri=True)\n"
        + "found = {r[0] for r in db.execute('select rowid from t where t match ? "
        + f"order by bm25(t) limit 100', ({query!r},))}}\n"
        + f"core.rank(s, {QUESTIONS[0]!r}, limit=10, candidates=found)\n"
    )
    fts_code = (
        "import sqlite3\n"
        f"db = sqlite3.connect('file:{fts}?mode=ro', uri=True)\n"
        "db.execute('select rowid from t where t match ? order by bm25(t) limit 10', "
        f"({query!r},)).fetchall()\n"
    )
    env = {**os.environ, "LORE_DATA_DIR": str(root), "LORE_CACHE_DIR": str(cache)}
    env.pop("PYTHONPATH", None)
    runs: dict[str, list[float]] = {"pass": [], "lore": [], "both": [], "fts": []}
    for _ in range(REPEATS * 2):
        for name, code in (("pass", "pass"), ("lore", lore_code), ("both", both_code),
                           ("fts", fts_code)):  # fmt: skip
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([py, "-c", code], env=env, check=True, capture_output=True, cwd="/")
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            runs[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {name: statistics.median(values) for name, values in runs.items()}


def locomo(k_values: tuple[int, ...] = KS) -> dict[str, float]:
    """LoCoMo development recall@5: lore's index, FTS5 top K under lore's ranking, and FTS5
    BM25 alone (each conversation in a scratch root, as bench/recall_ablation.py does)."""
    import recall_ablation as ra

    from lore import timeexpr
    from lore.bulk.importer import import_records
    from lore.index import analyze
    from lore.index.persist import open_index
    from lore.recall import core
    from lore.store.core import Store

    turns, questions = ra.load_locomo(LOCOMO)
    found: dict[str, int] = {"lore": 0, "bm25": 0, **{f"fts{k}": 0 for k in k_values}}
    total = 0
    for conv in sorted({t["conv"] for t in turns}):
        with tempfile.TemporaryDirectory(prefix="lore-fts5-") as tmp:
            os.environ["LORE_DATA_DIR"] = str(Path(tmp) / "data")
            os.environ["LORE_CACHE_DIR"] = str(Path(tmp) / "cache")
            os.environ.pop("LORE_NOW", None)
            lines = [
                {"kind": "observation", "content": f"{t['speaker']}: {t['text']}",
                 "source": t["dia_id"], "tags": [conv, t["session"]],
                 **({"timestamp": t["timestamp"]} if t["timestamp"] else {})}
                for t in turns if t["conv"] == conv
            ]  # fmt: skip
            store = Store(Path(tmp) / "data")
            import_records(store, lines)
            idx = open_index(store)
            fts = Path(tmp) / "fts.db"
            build_fts(idx, fts)
            db = sqlite3.connect(fts)

            def sources(ranked: list[Any], idx: Any = idx, store: Any = store) -> set[Any]:
                return {idx.fetch(store, r.doc).to_dict().get("source") for r in ranked[:5]}

            for c, question, evidence in questions:
                if c != conv:
                    continue
                total += len(evidence)
                terms = analyze.query_terms(timeexpr.in_query(question)[1])
                tops = {"lore": sources(core.rank(store, question, limit=5, index=idx).ranked)}
                for k in k_values:
                    got = core.rank(
                        store, question, limit=5, index=idx, candidates=candidates(db, terms, k)
                    )
                    tops[f"fts{k}"] = sources(got.ranked)
                plain = candidates_ordered(db, terms, 5)
                tops["bm25"] = {idx.fetch(store, d).to_dict().get("source") for d in plain}
                for name, top in tops.items():
                    found[name] += sum(1 for e in evidence if e in top)
            db.close()
    return {name: n / total for name, n in found.items()}


def candidates_ordered(db: sqlite3.Connection, terms: list[str], k: int) -> list[int]:
    if not terms:
        return []
    rows = db.execute(
        "select rowid from t where t match ? order by bm25(t) limit ?", (fts_query(terms), k)
    ).fetchall()
    return [r[0] for r in rows]


def section(results: list[tuple[str, dict[str, Any], dict[str, float], float]],
            quality: dict[str, float]) -> str:  # fmt: skip
    lines = [
        BEGIN,
        "## 12. SQLite FTS5 as recall's candidate generator",
        "",
        "Measured by `bench/fts5.py`. FTS5 holds each record's index terms (lore's own "
        "analysis; a term written as often as its weighted count), and a query asks it "
        "for its BM25 top K with the query's terms and their prefixes; lore's ranking then "
        "scores those records and their neighbours. Beside it, lore's own index with the "
        "candidates `lore.recall.prune` proves enough. *CPU ms*: median CPU of one "
        f"in-process query (after opening; {len(QUESTIONS)} questions, {REPEATS} runs each, "
        "the median over questions). *Same first ten*: questions whose first ten equal "
        "scoring every record. *Open + one query*: a new Python process that opens the "
        "generator and answers the first question, its CPU time over `python -c pass`'s "
        "(paired runs); FTS5 under lore's ranking still needs lore's index (the ranking reads "
        "its columns), so it adds sqlite3 to lore's own cost, and FTS5 alone is what a "
        "BM25 query costs with no ranking at all.",
        "",
        "| Store | Generator | CPU ms per query | Same first ten | Open + one query (×py CPU) |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for where, sp, op, build in results:
        n = len(QUESTIONS)
        lore_ms = statistics.median(sp["lore"]) * 1000
        agree = sum(sp["agree"]["lore"])
        lines.append(
            f"| {where} | lore's index (proved candidates) | {lore_ms:,.1f} | {agree}/{n} "
            f"| {op['lore'] / op['pass']:.1f} |"
        )
        for k in KS:
            ms = statistics.median(sp[f"fts{k}"]) * 1000
            agree = sum(sp["agree"][f"fts{k}"])
            extra = f"{op['both'] / op['pass']:.1f}" if k == 100 else "—"
            lines.append(
                f"| {where} | FTS5 top {k} + lore's ranking | {ms:,.1f} | {agree}/{n} | {extra} |"
            )
        lines.append(
            f"| {where} | FTS5 BM25 alone (no ranking; table built in {build:.0f} s) | — | — "
            f"| {op['fts'] / op['pass']:.1f} |"
        )
    lines += [
        "",
        "LoCoMo development split, recall@5 (the share of evidence turns among the first "
        "five; each conversation in a scratch root, as `bench/recall_ablation.py`):",
        "",
        "| Generator | recall@5 |",
        "| --- | ---: |",
        f"| lore's index (proved candidates) | {quality['lore']:.3f} |",
        *(f"| FTS5 top {k} + lore's ranking | {quality[f'fts{k}']:.3f} |" for k in KS),
        f"| FTS5 BM25 alone | {quality['bm25']:.3f} |",
        "",
        'The choice: lore keeps its own index (see docs/explanation/recall.md, "Why not '
        'SQLite FTS5").',
        END,
    ]
    return "\n".join(lines) + "\n"


def run(stores: list[tuple[str, Path, Path]], tmp: Path) -> str:
    """The section for ``stores`` ((where, root, cache)), FTS5 tables built under ``tmp``."""
    from lore.index.persist import open_index
    from lore.store.core import Store

    results = []
    for where, root, cache in stores:
        os.environ["LORE_DATA_DIR"], os.environ["LORE_CACHE_DIR"] = str(root), str(cache)
        fts = tmp / f"{root.name}.fts.db"
        build = build_fts(open_index(Store(root)), fts)
        print(f"  fts5: {where}: table built in {build:.1f} s", file=sys.stderr)
        sp = speed(root, cache, fts)
        op = opening(root, cache, fts)
        results.append((where, sp, op, build))
    quality = locomo() if (LOCOMO / "data").is_dir() else {}
    print(f"  fts5: LoCoMo {quality}", file=sys.stderr)
    return section(results, quality)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not LORE.is_file():
        print(f"bench: {LORE} not found; run ./install.sh --dev first", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="lore-fts5-") as tmp:
        stores = [(Path(a).name, Path(a), Path(tmp) / f"{Path(a).name}.cache") for a in args]
        write_section(DOC, run(stores, Path(tmp)), BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
