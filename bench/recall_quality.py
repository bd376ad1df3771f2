"""Retrieval quality of ``lore recall`` against a plain keyword baseline, on a fixed corpus.

    python bench/recall_quality.py [--show-misses]

Imports ``bench/recall_corpus.jsonl`` (152 records of a fictional invoicing project,
``lore import`` format, explicit ids) into a throwaway data root, asks every question in
``bench/recall_questions.json`` (each lists the ids a good answer contains) of both
rankers, and prints a markdown table of recall@5 (share of a question's relevant ids in
the top 5, averaged), MRR@10 (1 / rank of the first relevant id in the top 10, 0 if none)
and hit@1. The clock is frozen at the file's ``now`` so recency is reproducible, and the
recall history is not used (every question is asked of a fresh history).

The baseline is what a grep-style search does: the query's words (lower-cased, the same
English stop words dropped) each count once if they occur as a substring anywhere in a
record's searchable text; records with at least one match rank by that count, newest
first on ties.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "recall_corpus.jsonl"
QUESTIONS = HERE / "recall_questions.json"
K = 5
DEPTH = 10

Ranker = Callable[[str], list[str]]


def load_store(root: Path) -> object:
    from lore.store import Store

    store = Store(root)
    try:
        from lore.bulk import import_records
    except ImportError:  # before `lore import` existed: build each line like a capture
        import_records = None
    if import_records is not None:
        result = import_records(store, str(CORPUS))
        assert result.imported == sum(1 for line in CORPUS.open() if line.strip()), result
        return store
    from lore.capture import TEXT_FIELD, build

    records = []
    for line in CORPUS.open(encoding="utf-8"):
        obj = json.loads(line)
        kind = obj.pop("kind")
        text = obj.pop(TEXT_FIELD[kind])
        meta = {k: obj.pop(k) for k in ("id", "timestamp", "tags", "project") if k in obj}
        records.append(
            build(
                kind,
                text,
                obj,
                tags=meta.get("tags", ()),
                project=meta.get("project"),
                timestamp=meta.get("timestamp"),
                record_id=meta.get("id"),
            ).record
        )
    store.add(records)  # type: ignore[attr-defined]
    return store


def lore_ranker(store: object) -> Ranker:
    from lore.recall import recall

    def ask(question: str) -> list[str]:
        hits = recall(store, question, limit=DEPTH, remember=False)  # type: ignore[arg-type]
        return [hit.record.id for hit in hits]

    return ask


def keyword_ranker(store: object) -> Ranker:
    from lore.index import SEARCH_KINDS
    from lore.search import STOP_WORDS, words

    docs = []
    for kind in SEARCH_KINDS:
        for record in store.records(kind):  # type: ignore[attr-defined]
            text = f"{record.title}\n{record.search_text()}".lower()
            docs.append((record.id, record.timestamp, text))

    def ask(question: str) -> list[str]:
        terms = {w for w in words(question) if w not in STOP_WORDS}
        scored = []
        for rid, timestamp, text in docs:
            count = sum(1 for t in terms if t in text)
            if count:
                scored.append((-count, _negated(timestamp), rid))
        scored.sort()
        return [rid for _, _, rid in scored[:DEPTH]]

    return ask


def _negated(timestamp: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in timestamp)  # newest first on ties


def evaluate(ask: Ranker, questions: list[dict[str, object]]) -> dict[str, object]:
    recall_sum = mrr_sum = hit1 = 0.0
    misses = []
    for item in questions:
        relevant = set(item["relevant"])  # type: ignore[arg-type]
        ranked = ask(str(item["question"]))
        recall_sum += len(relevant & set(ranked[:K])) / len(relevant)
        rank = next((i for i, rid in enumerate(ranked, 1) if rid in relevant), None)
        mrr_sum += 1.0 / rank if rank else 0.0
        hit1 += 1.0 if rank == 1 else 0.0
        if not rank or rank > K:
            misses.append((item["question"], sorted(relevant), ranked[:K]))
    n = len(questions)
    return {
        "recall": recall_sum / n,
        "mrr": mrr_sum / n,
        "hit1": hit1 / n,
        "misses": misses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show-misses", action="store_true", help="List questions missed.")
    args = parser.parse_args()
    spec = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    questions = spec["questions"]
    with tempfile.TemporaryDirectory(prefix="lore-quality-") as tmp:
        os.environ["LORE_DATA_DIR"] = str(Path(tmp) / "data")
        os.environ["LORE_CACHE_DIR"] = str(Path(tmp) / "cache")
        os.environ["LORE_NOW"] = spec["now"]
        os.environ.pop("LORE_PROJECT", None)
        os.chdir(tmp)  # not inside a git repository: no project affinity for anyone
        store = load_store(Path(tmp) / "data")
        rows = [
            ("`lore recall`", evaluate(lore_ranker(store), questions)),
            ("keyword baseline", evaluate(keyword_ranker(store), questions)),
        ]
    records = sum(1 for line in CORPUS.open() if line.strip())
    print(f"{len(questions)} questions over {records} records (bench/recall_corpus.jsonl)\n")
    print(f"| Ranker | recall@{K} | MRR@{DEPTH} | hit@1 |")
    print("| --- | --- | --- | --- |")
    for name, result in rows:
        print(f"| {name} | {result['recall']:.3f} | {result['mrr']:.3f} | {result['hit1']:.3f} |")
    if args.show_misses:
        for name, result in rows:
            print(f"\n{name}: relevant id not in the top {K}")
            for question, relevant, got in result["misses"]:  # type: ignore[union-attr]
                print(f"- {question!r}: want {relevant}, got {got}")


if __name__ == "__main__":
    main()
