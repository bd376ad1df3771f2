"""Pure ranking for ``lore recall``: tokenizing, stemming, scoring and snippets (no I/O).

Ranking formula; every capitalised name is a constant below. Text is split into words
(letters and digits; a camelCase word also yields its parts), lower-cased; words of one
letter and STOP_WORDS (English stop words plus question boilerplate such as "use",
"choose", "decide") are dropped, and each word is reduced by ``stem`` (Snowball through
PyStemmer, else ``light_stem``; caching, cached, caches, cache -> cach). A query's terms
are its distinct stemmed words, once a time expression in it is taken out
(``lore.timeexpr``). A record's searched fields are its kind's ``search`` fields
plus its title field. For a record d among the N indexed records (hidden ones included):

    tf(t, d)    = TITLE_WEIGHT * (occurrences of t in the title field)
                  + (occurrences of t in the other searched fields)
                  - (occurrences of t in d's muted tags; ``lore.index.tagwords``): a tag
                    that names a project, and a tag every record of a project carries
                    (projects of BLANKET_MIN_RECORDS or more), are not matched text:
                    they filter (--project, --tag) and boost (project), never match
    len(d)      = TITLE_WEIGHT * (terms in the title) + (terms in the other fields)
    avglen      = mean of len(d) over the N records
    idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))        df: records containing t
    bm25(t, d)  = idf(t) * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len(d) / avglen))
    match(t, d) = max(bm25(t, d),
                      max over close index terms v of FUZZY_WEIGHT * sim(t, v) * bm25(v, d))
                  close terms, only for t of MIN_FUZZY_LEN or more letters: terms that
                  start with t (sim = PREFIX_SIM; the first PREFIX_LIMIT in sorted order)
                  and, only when t itself is not in the index (a typo), the FUZZY_LIMIT
                  best terms with rapidfuzz ratio(t, v) >= FUZZY_CUTOFF (sim = ratio / 100)
                  and t's companions (``lore.recall.associate``: terms sharing most of the
                  records of a rare t), matched at ASSOC_WEIGHT * association instead
                  of FUZZY_WEIGHT * sim
    bm(d)       = sum over the query's terms t of match(t, d)  (any matching term counts)
    text(d)     = lore.recall.signals: bm(d) x (share of the query's terms d holds) ** 0.6,
                  x 0.8 if d asks (holds a "?"), plus a share of its neighbours' scores
                  (session context), x 3 inside the time window the query names
    relevance   = text(d) / (the largest text(d) among the records that pass the filters)
    activation  = lore.dynamics.activation (LORE_CONTRACT.md §7.13), 0..1: recency of
                  creation and of last use (each kind its own half-life; a pinned record
                  never decays), use (recalls and injections on this machine, citations by
                  later records) and importance:
                  decision      OUTCOME_IMPORTANCE[outcome] (+ LESSON_BONUS if it has a
                                lesson_learned), at most 1
                  pattern       PATTERN_CONFIDENCE_SHARE * confidence
                                + (1 - PATTERN_CONFIDENCE_SHARE)
                                  * min(1, ln(1 + validations) / ln(1 + VALIDATIONS_SATURATION))
                  anti-pattern  SEVERITY_IMPORTANCE[severity]
                  failure       FAILURE_BASE + (1 - FAILURE_BASE)
                                  * min(1, ln(n) / ln(FAILURE_SATURATION)),
                                n = failures of the same error type (FAILURE_BASE if n = 1)
                  evidence      EVIDENCE_IMPORTANCE[confidence]
                  goal          PRIORITY_IMPORTANCE[priority]
                  other kinds (and unknown values) NEUTRAL_IMPORTANCE
    project     = 1 if the record belongs to the current project (``--project``, else
                  the one capture detects: LORE_PROJECT or the git repository's name):
                  its project field is that name or its tags include it; else 0

    score = W_TEXT * relevance + W_ACTIVATION * activation + W_PROJECT * project
            (x STALE_FACTOR when a file the record names changed, moved or vanished
            since it was captured: ``lore.dynamics.fresh``)

Only records with text(d) > 0 (own words or context) are results, best score first (ties:
newest, then id).
Retracted, superseded and archived records (a kind's ``hidden``) are left out; with ``--all`` their
score is multiplied by HIDDEN_FACTOR and, if still not below the record that superseded
them, set just below it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from lore.dynamics.activation import STALE_FACTOR, Activation
from lore.index.analyze import WORD, stem, stems

# --- weights and parameters (documented in the module docstring) --------------------------

K1 = 1.2
B = 0.75
FUZZY_WEIGHT = 0.5
FUZZY_CUTOFF = 80.0
PREFIX_SIM = 0.8
MIN_FUZZY_LEN = 4
FUZZY_LIMIT = 5  # close index terms considered per query term
PREFIX_LIMIT = 10

W_TEXT = 1.0
W_ACTIVATION = 0.25
W_PROJECT = 0.10
HIDDEN_FACTOR = 0.5


# --- scoring ------------------------------------------------------------------------------


def idf(n_docs: int, df: int) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def bm25(tf: float, length: float, avglen: float, term_idf: float) -> float:
    norm = K1 * (1.0 - B + B * length / avglen) if avglen > 0 else K1
    return term_idf * tf * (K1 + 1.0) / (tf + norm)


def close_terms(term: str, vocabulary: Sequence[str]) -> dict[str, float]:
    """Index terms near ``term`` mapped to a similarity in (0, 1]: longer forms (terms it
    starts) and, when ``term`` itself is not in the index, likely typo fixes."""
    if len(term) < MIN_FUZZY_LEN:
        return {}
    from bisect import bisect_left

    found: dict[str, float] = {}
    start = bisect_left(vocabulary, term)
    known = start < len(vocabulary) and vocabulary[start] == term
    for candidate in vocabulary[start : start + PREFIX_LIMIT + 1]:
        if not candidate.startswith(term):
            break
        if candidate != term:
            found[candidate] = PREFIX_SIM
    if known:  # a word the index has is taken as meant (and rapidfuzz is not even loaded)
        return found
    from rapidfuzz import fuzz, process

    for candidate, ratio, _ in process.extract(
        term, vocabulary, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF, limit=FUZZY_LIMIT
    ):
        found[candidate] = max(found.get(candidate, 0.0), ratio / 100.0)
    return found


def blend(
    relevance: float, act: Activation, in_project: bool, stale: bool = False
) -> dict[str, float]:
    """Every score component of one record, and the total under ``"score"``."""
    parts = {"relevance": relevance, **act.parts(), "project": 1.0 if in_project else 0.0}
    score = W_TEXT * relevance + W_ACTIVATION * act.value + W_PROJECT * parts["project"]
    parts["stale"] = 1.0 if stale else 0.0
    parts["score"] = score * STALE_FACTOR if stale else score
    return parts


# --- snippets -----------------------------------------------------------------------------

SNIPPET_CHARS = 160
MARK_OPEN, MARK_CLOSE = "»", "«"
# A file path: words joined by at least one "/" (a leading "/", "~/" or "./" included).
_PATH = re.compile(r"(?:~|\.{1,2})?/?(?:[\w.+-]+/)+[\w.+-]+")


def marked(text: str, matched: Iterable[str]) -> tuple[int, str]:
    """``text`` with matching words wrapped in »«, cut to SNIPPET_CHARS around the first
    match; returns (number of distinct matched terms, snippet)."""
    wanted = set(matched)
    flat = " ".join(text.split())
    spans: list[tuple[int, int]] = []
    hits: set[str] = set()
    if not wanted.isdisjoint(stems(map(str.lower, WORD.findall(flat)))):  # (most hold none)
        # In a file path, a match marks its whole component (``src/»test_orders.py«``), once.
        components = {}
        for path in _PATH.finditer(flat):
            at = path.start()
            for part in path.group().split("/"):
                for i in range(at, at + len(part)):
                    components[i] = (at, at + len(part))
                at += len(part) + 1
        for match in WORD.finditer(flat):
            term = stem(match.group().lower())
            if term in wanted:
                span = components.get(match.start(), (match.start(), match.end()))
                if not spans or spans[-1] != span:
                    spans.append(span)
                hits.add(term)
    start, end = 0, len(flat)
    if len(flat) > SNIPPET_CHARS:
        first = spans[0][0] if spans else 0
        start = max(0, first - SNIPPET_CHARS // 4)
        if start:
            space = flat.find(" ", start)
            start = space + 1 if 0 <= space < first else start
        end = min(len(flat), start + SNIPPET_CHARS)
        if end < len(flat):  # end on a word boundary when one is near
            space = flat.rfind(" ", start, end)
            end = space if space > start + SNIPPET_CHARS // 2 else end
    out, pos = [], start
    for s, e in spans:
        if s < start or e > end:
            continue
        out.append(flat[pos:s] + MARK_OPEN + flat[s:e] + MARK_CLOSE)
        pos = e
    out.append(flat[pos:end])
    snippet = "".join(out)
    return len(hits), ("…" if start else "") + snippet + ("…" if end < len(flat) else "")


def best_snippet(values: Sequence[str], matched: Iterable[str]) -> str:
    """The value that matches the most terms (the first one on a tie), marked and cut."""
    wanted = set(matched)
    best: tuple[int, str] = (-1, "")
    for value in values:
        if value.strip():
            candidate = marked(value, wanted)
            if candidate[0] > best[0]:
                best = candidate
    return best[1]
