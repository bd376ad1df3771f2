"""Time the secrets gate: a record's scan, and real text of 4 KB and 100 KB.

Runs on every capture, so changes to lore/secrets/ should be measured before and after:

    python bench/secrets_gate.py                    # this checkout
    python bench/secrets_gate.py --against main     # and a git ref, side by side

Each version runs in its own processes (CPU time, the best of several runs), alternating,
so load on the machine hits both alike. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDS = {
    "a record of prose": {
        "title": "Retry the payment webhook with backoff",
        "rationale": "The provider times out under load; three retries with jitter cleared "
        "every failure in staging. We keep the dead-letter queue for the rest.",
        "tags": ["payments"],
        "project": "shop",
    },
    "a record with a path, a URL and a hash": {
        "title": "Use SQLite for the local cache instead of Postgres",
        "rationale": "Zero setup for contributors; see src/cache/store.py and "
        "https://sqlite.org/wal.html; commit 3f9a0c1b2d4e5f60718293a4b5c6d7e8f9012345.",
        "alternatives": ["Postgres", "flat files"],
        "tags": ["db", "cache"],
        "files": ["src/cache/store.py"],
        "project": "shop",
    },
}


def texts() -> dict[str, str]:
    code = (Path(sysconfig.get_paths()["stdlib"]) / "argparse.py").read_text()[:100_000]
    docs = "".join(p.read_text() for p in sorted((ROOT / "docs" / "how-to").glob("*.md")))
    docs = (docs * (100_000 // max(1, len(docs)) + 1))[:100_000]
    return {
        "4 KB of Python": code[20_000:24_000],
        "4 KB of documentation": docs[10_000:14_000],
        "100 KB of Python": code,
        "100 KB of documentation": docs,
    }


def worker() -> None:
    """Measure the lore importable here; print one JSON object."""
    import collections.abc  # noqa: F401 - loaded before the clock starts, as in a capture
    import importlib
    import re  # noqa: F401
    import typing  # noqa: F401

    import lore  # noqa: F401

    start = time.perf_counter()
    try:
        gate = importlib.import_module("lore.secrets.gate")
    except ModuleNotFoundError:  # before the regrouping: one module
        gate = importlib.import_module("lore.secrets")
    imported = time.perf_counter() - start
    out = {"import (ms)": imported * 1e3, "rules": len(gate.RULES)}

    def best(fn, n: int) -> float:  # type: ignore[no-untyped-def]
        result = float("inf")
        for _ in range(5):
            t = time.process_time()
            for _ in range(n):
                fn()
            result = min(result, (time.process_time() - t) / n)
        return result * 1e6

    for label, record in RECORDS.items():
        out[label] = best(lambda r=record: gate.scan_fields(r), 2000)
    for label, text in texts().items():
        out[label] = best(lambda t=text: gate.scan_text(t), 300 if "4 KB" in label else 10)
    print(json.dumps(out))


def run(tree: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, __file__, "--worker"], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="a git ref to compare with (its lore/ is extracted)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    trees = {"this checkout": ROOT}
    with tempfile.TemporaryDirectory() as tmp:
        if args.against:
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", args.against, "lore"],
                capture_output=True,
                check=True,
            ).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            trees = {args.against: Path(tmp), **trees}
        best: dict[str, dict[str, float]] = {name: {} for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                for key, value in run(tree).items():
                    best[name][key] = min(best[name].get(key, value), value)
    names = list(trees)
    print("| measure | " + " | ".join(names) + " |")
    print("| --- |" + " ---: |" * len(names))
    for key in best[names[0]]:
        unit = "" if key in ("rules", "import (ms)") else " µs"
        cells = [
            f"{best[n][key]:,.1f}{unit}" if key != "rules" else f"{best[n][key]:.0f}" for n in names
        ]
        print(f"| {key} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
