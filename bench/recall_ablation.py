"""The ablation behind ``docs/recall-quality.md``: recall's ranking steps switched on one at a
time, each measured on the LoCoMo development split and on the labelled eval.

    python bench/recall_ablation.py [LOCOMO_DIR]   # default: ../shared/bench/locomo

Writes ``bench/recall_ablation.md`` (a markdown table), which ``bench/recall_quality.py``
puts into ``docs/recall-quality.md``. Runs in-process (about a minute): each LoCoMo
conversation's turns are imported as observations into a scratch root (source = the turn's
id, tags = conversation and session, timestamp = the session's date), exactly as
``locomo_recall.py`` does through the CLI, and each question is asked of ``recall``. The
data is read from where it lies, never copied into the repository. A step is switched off by
setting its constants in ``lore.recall.signals`` (and ``lore.index.analyze``'s stemmer)
to neutral values.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import recall_quality as rq  # noqa: E402

from lore import timeexpr  # noqa: E402
from lore.index import analyze  # noqa: E402
from lore.recall import core as recall_module  # noqa: E402
from lore.recall import signals  # noqa: E402

OUT = HERE / "recall_ablation.md"
K = 5
STEPS: list[tuple[str, dict[str, bool]]] = [
    ("plain BM25, light stemmer (as before this work)", {"light": True}),
    ("+ Snowball stemmer (PyStemmer)", {}),
    ("+ session context: 0.3 of the record before and after", {"context": True}),
    ("+ coverage of the query's terms (power 0.6)", {"context": True, "coverage": True}),
    (
        "+ time window named in the query (its words not matched; boost x3)",
        {"context": True, "coverage": True, "window": True},
    ),
    (
        "+ a record that asks: 0.7 to the record after it, keeps 0.8",
        {"context": True, "coverage": True, "window": True, "asks": True},
    ),
    (
        "+ term associations: a rare word's 3 strongest companions at 0.3 (all on: lore now)",
        {"context": True, "coverage": True, "window": True, "asks": True, "assoc": True},
    ),
    (
        "lore now without PyStemmer (the light stemmer fallback)",
        {"light": True, "context": True, "coverage": True, "window": True, "asks": True,
         "assoc": True},
    ),
]  # fmt: skip
_IN_QUERY = timeexpr.in_query


def configure(light: bool = False, context: bool = False, coverage: bool = False,
              window: bool = False, asks: bool = False, assoc: bool = False) -> None:  # fmt: skip
    analyze._snowball = False if light else None
    analyze._stem_cache.clear()
    analyze._term_cache.clear()
    signals.CONTEXT_NEXT = signals.CONTEXT_PREV = 0.3 if context else 0.0
    signals.ASK_NEXT = 0.7 if asks else signals.CONTEXT_NEXT
    signals.ASK_SELF = 0.8 if asks else 1.0
    signals.COVERAGE_POWER = 0.6 if coverage else 0.0
    signals.WINDOW_BOOST = 2.0 if window else 0.0
    signals.ASSOCIATE = assoc
    recall_module.timeexpr.in_query = _IN_QUERY if window else (lambda q, now=None: (None, q))  # type: ignore[assignment,misc]


def load_locomo(folder: Path) -> tuple[list[dict[str, Any]], list[tuple[str, str, list[str]]]]:
    spec = importlib.util.spec_from_file_location("locomo_recall", folder / "locomo_recall.py")
    assert spec and spec.loader
    lm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lm)
    turns: list[dict[str, Any]] = []
    questions: list[tuple[str, str, list[str]]] = []
    for name, data in lm.load(str(folder / "data")):
        for turn in lm.turns(data.get("conversation", data)):
            turn["conv"] = name
            turns.append(turn)
        for q in data["qa"]:
            if q.get("category") in (1, 2, 3, 4) and q.get("evidence"):
                evidence = [e.strip() for e in q["evidence"] if isinstance(e, str)]
                questions.append((name, q["question"], evidence))
    return turns, questions


def locomo_recall(
    turns: list[dict[str, Any]], questions: list[tuple[str, str, list[str]]]
) -> float:
    from lore.bulk.importer import import_records
    from lore.recall.core import recall
    from lore.store.core import Store

    found = total = 0
    for conv in sorted({t["conv"] for t in turns}):
        with tempfile.TemporaryDirectory(prefix="lore-ablation-") as tmp:
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
            for c, question, evidence in questions:
                if c == conv:
                    top = {
                        h.record.to_dict().get("source") for h in recall(store, question, limit=K)
                    }
                    found += sum(1 for e in evidence if e in top)
                    total += len(evidence)
    return found / total


def labelled() -> tuple[str, str]:
    spec = json.loads(rq.QUESTIONS.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="lore-ablation-") as tmp:
        os.environ["LORE_DATA_DIR"] = str(Path(tmp) / "data")
        os.environ["LORE_CACHE_DIR"] = str(Path(tmp) / "cache")
        os.environ["LORE_NOW"] = spec["now"]
        cwd = os.getcwd()
        os.chdir(tmp)
        store = rq.load_store(Path(tmp) / "data")
        out = []
        for questions in (spec["questions"][:63], spec["questions"]):
            r = rq.evaluate(rq.lore_ranker(store), questions)
            out.append(f"{r['recall']:.3f} / {r['mrr']:.3f} / {r['hit1']:.3f}")
        os.chdir(cwd)
    os.environ.pop("LORE_NOW", None)
    return out[0], out[1]


def main() -> None:
    default = HERE.parent.parent / "shared" / "bench" / "locomo"
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    turns, questions = load_locomo(folder)
    spec = json.loads(rq.QUESTIONS.read_text(encoding="utf-8"))
    rows = [
        f"| Step | LoCoMo dev recall@{K} | labelled, first 63: recall@5 / MRR@10 / hit@1 "
        f"| labelled, all {len(spec['questions'])} |",
        "| --- | --- | --- | --- |",
    ]
    for name, options in STEPS:
        configure(**options)
        first, everything = labelled()
        score = locomo_recall(turns, questions)
        rows.append(f"| {name} | {score:.3f} | {first} | {everything} |")
        print(rows[-1], flush=True)
    configure(context=True, coverage=True, window=True, asks=True, assoc=True)
    OUT.write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(questions)} LoCoMo questions)", file=sys.stderr)


if __name__ == "__main__":
    main()
