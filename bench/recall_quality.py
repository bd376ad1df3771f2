"""Retrieval quality of ``lore recall`` against a plain keyword baseline, on a fixed corpus.

    python bench/recall_quality.py [--show-misses] [--out FILE]

Imports ``bench/recall_corpus.jsonl`` (152 records of a fictional invoicing project,
``lore import`` format, explicit ids) into a throwaway data root, asks every question in
``bench/recall_questions.json`` (each lists the ids a good answer contains) of both
rankers, and prints a markdown table of recall@5 (share of a question's relevant ids in
the top 5, averaged), MRR@10 (1 / rank of the first relevant id in the top 10, 0 if none)
and hit@1, and writes the same report, with every miss, to ``docs/recall-quality.md``
(``--out`` chooses another file; ``bench/run.py`` owns ``docs/benchmarks.md``). The clock
is frozen at the file's ``now`` so recency is reproducible, and the recall history is not
used (every question is asked of a fresh history).

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
DOC = HERE.parent / "docs" / "recall-quality.md"
CORPUS = HERE / "recall_corpus.jsonl"
QUESTIONS = HERE / "recall_questions.json"
ABLATION = HERE / "recall_ablation.md"  # written by bench/recall_ablation.py
K = 5
DEPTH = 10

Ranker = Callable[[str], list[str]]


def load_store(root: Path) -> object:
    from lore.store.core import Store

    store = Store(root)
    try:
        from lore.bulk.importer import import_records
    except ImportError:  # before `lore import` existed: build each line like a capture
        import_records = None
    if import_records is not None:
        result = import_records(store, str(CORPUS))
        assert result.imported == sum(1 for line in CORPUS.open() if line.strip()), result
        return store
    from lore.capture.build import TEXT_FIELD, build

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
    from lore.recall.core import recall

    def ask(question: str) -> list[str]:
        hits = recall(store, question, limit=DEPTH, remember=False)  # type: ignore[arg-type]
        return [hit.record.id for hit in hits]

    return ask


def keyword_ranker(store: object) -> Ranker:
    from lore.index.analyze import STOP_WORDS, words
    from lore.index.columns import SEARCH_KINDS

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


def render(questions: int, records: int, rows: list[tuple[str, dict[str, object]]]) -> str:
    out = [
        "# Recall quality",
        "",
        "<!-- Generated by bench/recall_quality.py: edit that script, not this file. -->",
        "",
        "Reproduce: `.venv/bin/python bench/recall_quality.py`; see `bench/README.md`.",
        "",
        f"{questions} questions (mostly natural-language; a few keyword phrases, two with "
        "typos; the last 21 harder: decisions asked about in other words, failures asked "
        "about by their symptom, answers that span two records) over "
        f"{records} records of a fictional "
        "invoicing project (`bench/recall_questions.json`, `bench/recall_corpus.jsonl`); "
        "each question lists the ids a good answer contains. Both rankers search the same "
        "imported store: `lore recall` through `lore.recall.recall` (what the CLI runs, "
        "without recall history or project affinity, the clock frozen at the file's "
        "`now`), and a keyword baseline that counts the query's words (the same stop words "
        "dropped) found as substrings of a record's searchable text, newest first on ties.",
        "",
        f"recall@{K}: the share of a question's relevant ids in the top {K}, averaged. "
        f"MRR@{DEPTH}: 1 / rank of the first relevant id in the top {DEPTH} (0 if none), "
        "averaged. hit@1: the share of questions whose first result is relevant.",
        "",
        *table(rows),
        *ablation(),
    ]
    for name, result in rows:
        misses = result["misses"]
        out += ["", f"## {name}: no relevant id in the top {K}", ""]
        out += [
            f"- {question!r}: want {', '.join(relevant)}; got {', '.join(got) or 'nothing'}"
            for question, relevant, got in misses  # type: ignore[union-attr]
        ] or ["(none)"]
    return "\n".join(out) + "\n"


def ablation() -> list[str]:
    """The LoCoMo section: its method, and the table ``bench/recall_ablation.py`` wrote."""
    if not ABLATION.is_file():
        return []
    return [
        "",
        "## A conversational benchmark: LoCoMo, and the ablation",
        "",
        "LoCoMo (Maharana et al., ACL 2024) holds long multi-session conversations whose "
        "questions are labelled with the turns that answer them. The development split (5 of "
        "its 10 conversations, 2,760 turns, 760 questions of the multi-hop, temporal, "
        "open-domain and single-hop kinds) lives outside the repository "
        "(`../shared/bench/locomo/`); the other five are kept apart for the final "
        "measurement. Each turn is imported as an observation (source = the turn's id, tags = "
        "conversation and session, timestamp = the session's date) and each question is "
        f"asked of `lore recall`; recall@{K} is the share of the answering turns in the top "
        f"{K}. Through the CLI (`locomo_recall.py --by-category`), lore now finds 0.556 "
        "(multi-hop 0.325, temporal 0.766, open-domain 0.235, single-hop 0.755) against "
        "0.405 for SQLite FTS5/BM25 on the same data, and 0.448 before this work.",
        "",
        "Each step below was tried, measured and kept, in this order (`bench/recall_ablation.py`"
        ", in-process; each row adds its step to the ones above). Labelled columns: recall@5 "
        "/ MRR@10 / hit@1 on the first 63 questions (the eval before it grew) and on all of "
        'them. Coverage alone costs the grown eval one question ("a customer paid twice for '
        'one invoice": the failure that says "charged twice" holds 2 of its 5 terms, two '
        "decisions hold 3, so its first hit drops from rank 1 to 3); term associations lift "
        "it to rank 2 and, over the whole eval, raise 12 questions and lower 3: a record "
        "holding a rare query word's companions counts as holding the word (at 0.3 of its "
        "weight), for its score and for coverage.",
        "",
        *ABLATION.read_text(encoding="utf-8").splitlines(),
        "",
        "Tried and dropped (each measured against the steps kept before it): pseudo-relevance "
        "feedback (the best 5 records' strongest 3 to 20 terms added at weight 0.2 to 0.4: "
        "+0.006 before the asking step, +0.000 after it, and slower), a proximity bonus for "
        "query word pairs close together in a record (-0.013), reciprocal-rank fusion of a "
        "record's own and its window's ranking instead of adding context (-0.024), keeping "
        "neighbours out of each other's top 5 (-0.01 to -0.07), BM25 length normalisation "
        "b = 0.3 or 0.5 and k1 = 0.8 to 2.0 (within +-0.005), and more question words as stop "
        "words (kind, type, likely, would: +-0.002). Field weights (BM25F): LoCoMo's "
        "observations have one field, so only the labelled eval tells; the title counted 1, "
        "2, 3, 4 or 5 times gives recall@5 0.903, 0.909, 0.921, 0.921 and 0.917 on all its "
        "questions, so it stays at 3. Coverage reworked instead of bridged (against the "
        "steps before associations): each term weighted by its idf (0.921 -> 0.925 recall@5 "
        "on the labelled eval but MRR 0.882, dev -0.005 to -0.007), terms in more than 10 "
        "to 30% of the records not counted (dev -0.011 to -0.015), the power from 0.3 to "
        "1.0 (no setting keeps both). Term associations, tuned: companions over a session "
        "window of 1 instead of the record (-0.006), kept at an association of 0.4 (-0.002) "
        "or 0.6 (labelled recall@5 0.931), for words in up to 5% or 20% of the records "
        "(labelled 0.938 / 0.894, dev -0.001 to -0.002); weight 0.2 to 0.5 changes "
        "nothing. Names matched as units (a query's multi-word capitalised name counted "
        "for coverage only when all its words are held, or the records holding part of it "
        "scaled by 0.7): 32 of the 760 questions name one, +0.001 (one turn), not kept. "
        "Coverage that also counts the query words a record's session neighbours hold (at "
        "0.25, 0.5 or 1 each: +0.002, -0.006, -0.012 on the development split), not kept.",
        "",
        "Questions that name kinds and times (issue 15), measured before and after: a kind "
        'word ("decisions", "what failed", "what broke") is what the question asks for, '
        "boosting that kind 3 times or, alone, listing it; relative phrases (`2 days ago`, "
        "weekdays, `this morning`, `last night`) are times. A kind word acts only in a store "
        "that holds that kind (LoCoMo's holds observations, so its questions' \"decide\" "
        'and "goals" stay words), and a dated time in a question wins over a relative '
        'one beside it ("last friday, on 23 January 2025"). LoCoMo development '
        "recall@5: 0.556 before, 0.556 after (multi-hop 0.325, temporal 0.766, open-domain "
        "0.235, single-hop 0.755, each unchanged); without the dated-time rule three "
        "questions took a relative phrase for their window and it fell to 0.555 "
        "(single-hop 0.752). The labelled eval: 0.940 / 0.912 / 0.869 before and after.",
    ]


def table(rows: list[tuple[str, dict[str, object]]]) -> list[str]:
    out = [f"| Ranker | recall@{K} | MRR@{DEPTH} | hit@1 |", "| --- | --- | --- | --- |"]
    for name, r in rows:
        out.append(f"| {name} | {r['recall']:.3f} | {r['mrr']:.3f} | {r['hit1']:.3f} |")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show-misses", action="store_true", help="List questions missed.")
    parser.add_argument("--out", type=Path, default=DOC, help=f"report (default {DOC})")
    args = parser.parse_args()
    spec = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    questions = spec["questions"]
    with tempfile.TemporaryDirectory(prefix="lore-quality-") as tmp:
        os.environ["LORE_DATA_DIR"] = str(Path(tmp) / "data")
        os.environ["LORE_CACHE_DIR"] = str(Path(tmp) / "cache")
        os.environ["LORE_NOW"] = spec["now"]
        os.environ.pop("LORE_PROJECT", None)
        cwd = os.getcwd()
        os.chdir(tmp)  # not inside a git repository: no project affinity for anyone
        store = load_store(Path(tmp) / "data")
        rows = [
            ("`lore recall`", evaluate(lore_ranker(store), questions)),
            ("keyword baseline", evaluate(keyword_ranker(store), questions)),
        ]
        os.chdir(cwd)
    records = sum(1 for line in CORPUS.open() if line.strip())
    print(f"{len(questions)} questions over {records} records (bench/recall_corpus.jsonl)\n")
    print("\n".join(table(rows)))
    if args.show_misses:
        for name, result in rows:
            print(f"\n{name}: relevant id not in the top {K}")
            for question, relevant, got in result["misses"]:  # type: ignore[union-attr]
                print(f"- {question!r}: want {relevant}, got {got}")
    out = args.out if args.out.is_absolute() else Path(cwd) / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(len(questions), records, rows), encoding="utf-8")
    print(f"\nwrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
