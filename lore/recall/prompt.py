"""What an agent's prompt should bring back (the UserPromptSubmit hook): the few records
relevant enough to inject, found in the warm index and checked against their own text.
Every threshold is a constant below, documented in LORE_CONTRACT.md (lore hooks); the
prompt is only read, never stored.

A record of KINDS is relevant when one of these holds:

- **named**: the prompt names a file or a `backticked` name (``extract_entities``) that
  the record names too (a path matches a path ending in it at a ``/``);
- **error type**: the prompt names an error type that failures have (``Timeout``,
  ``TestFailure``, any letter case): the ``PITFALL: <type>`` anti-pattern, and the newest
  failure of that type from the last FAILURE_DAYS days;
- **topic**: the prompt holds at least COVERAGE of the record's title terms, weighted by
  their rarity (idf), and at least MIN_SHARED of them (all of them when the title has
  fewer).

Only live records: not retracted or superseded, active goals only, failures from the
last FAILURE_DAYS days and not from this very session (the agent saw them), patterns
without a harmful, incorrect or obsolete flag; records of the current project or of none.
At most MAX_RECORDS, best first: named, then error type, then topic (by coverage, x
STALE_FACTOR for advice whose files changed since it was captured: ``lore.dynamics``), a
PITFALL or pattern before a decision, goal or failure on a tie, then the higher activation
(``lore.dynamics.activation``); one failure per error type.
"""

from __future__ import annotations

import math
from itertools import islice
from typing import Any, NamedTuple

from lore import clock
from lore.dynamics.activation import STALE_FACTOR
from lore.index import analyze
from lore.index.columns import SEARCH_KINDS
from lore.index.persist import Index, current, open_index
from lore.store.core import Store

KINDS = ("anti-pattern", "pattern", "decision", "goal", "failure")
MAX_RECORDS = 3  # injected per prompt at most
COVERAGE = 0.6  # share (idf-weighted) of a record's title terms the prompt must hold
MIN_SHARED = 2  # distinct title terms the prompt must hold (fewer only for shorter titles)
FAILURE_DAYS = 14  # failures older than this are not "recent"
MAX_TERMS = 24  # the prompt's rarest terms looked up in the index
COMMON_SHARE = 0.2  # a term in more than this share of records finds no candidates alone
MAX_CANDIDATES = 60  # records whose titles are compared with the prompt
MAX_PROMPT = 20_000  # characters of a prompt read (a pasted log says little more)
ORDER = {"anti-pattern": 0, "pattern": 1, "decision": 2, "goal": 3, "failure": 4}
REASONS = ("named", "error type", "topic")


class Relevant(NamedTuple):
    id: str
    kind: str
    record: Any  # the Record
    reason: str  # one of REASONS
    detail: str  # the name, the error type or the shared terms
    score: float
    stale: tuple[str, ...] = ()  # its files that changed since it was captured


def relevant(
    store: Store,
    prompt: str,
    *,
    project: str | None = None,
    exclude: set[str] | frozenset[str] = frozenset(),
    session: str | None = None,
    index: Index | None = None,
    limit: int = MAX_RECORDS,
) -> list[Relevant]:
    """The records ``prompt`` should bring back, best first (at most ``limit``), leaving
    out the ids in ``exclude`` and failures recorded in the lore ``session``."""
    from lore.components.journal import extract_entities

    prompt = prompt[:MAX_PROMPT]
    # The stored index brought up to date in memory for the kinds injected: a hook never
    # rewrites the whole index file for a record or two captured since it was saved.
    idx = index or current(store, KINDS) or open_index(store)
    if idx.size == 0:
        return []
    allowed = _Allowed(idx, project, session)
    terms = analyze.query_terms(prompt)
    idf = {t: _idf(idx, t) for t in terms}
    found: dict[int, tuple[int, float, str, str]] = {}  # doc -> (rank, -score, why, what)

    def offer(doc: int, rank: int, score: float, reason: str, detail: str) -> None:
        if doc not in found or (rank, -score) < found[doc][:2]:
            found[doc] = (rank, -score, reason, detail)

    for name in extract_entities(prompt):
        for doc in _naming(store, idx, allowed, name):
            offer(doc, 0, 1.0, "named", name)
    for doc, error_type in _error_types(idx, allowed, prompt):
        offer(doc, 1, 1.0, "error type", error_type)
    for doc, coverage, shared in _topics(store, idx, allowed, terms, idf):
        offer(doc, 2, coverage, "topic", ", ".join(shared))
    stale, alive = _tended(store, idx, project, list(found))
    ranked = sorted(
        found.items(),
        key=lambda item: (
            item[1][0],
            item[1][1] * (STALE_FACTOR if stale.get(item[0]) else 1.0),
            ORDER[idx.kind_of(item[0])],
            -alive[item[0]],
            -idx.ts[item[0]],
        ),
    )
    out: list[Relevant] = []
    failure, types = SEARCH_KINDS.index("failure"), set()
    for doc, (_, negative, reason, detail) in ranked:
        rid = idx.id_of(doc)
        if rid in exclude or (idx.kinds[doc] == failure and idx.grp[doc] in types):
            continue  # one failure of a type says what the others would
        if idx.kinds[doc] == failure:
            types.add(idx.grp[doc])
        record = idx.fetch(store, doc)
        if _flagged(record):
            continue
        paths = tuple(stale.get(doc, ()))
        out.append(Relevant(rid, record.KIND.name, record, reason, detail, -negative, paths))
        if len(out) >= limit:
            break
    return out


def _tended(
    store: Store, idx: Index, project: str | None, docs: list[int]
) -> tuple[dict[int, list[str]], dict[int, float]]:
    """The stale files of the anchored ``docs`` (``lore.dynamics.fresh``, no git) and every
    doc's activation (``lore.dynamics.activation``): the same model recall ranks by."""
    from lore.dynamics.scores import of_docs

    stale: dict[int, list[str]] = {}
    anchored = [d for d in docs if idx.anchored(d)]
    if anchored:
        from lore.dynamics.fresh import Checker

        checker = Checker(store.root.local, project=project)
        for d in anchored:
            if checker.applies(idx.projects[idx.proj[d]]):
                stale[d] = checker.changed(idx.anchors_of(d))
        checker.save()
    return stale, {d: a.value for d, a in of_docs(store, idx, docs).items()}


def _idf(idx: Index, term: str) -> float:
    postings = idx.postings_of(term)
    df = len(postings) // 2 if postings is not None else 0
    n = max(idx.size, 1)
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


class _Allowed:
    """Which records may be injected: kind and liveness for every record at C speed
    (``mask``); project, active goals and recent failures checked for the few that match
    (``__getitem__``, remembered)."""

    def __init__(self, idx: Index, project: str | None, session: str | None) -> None:
        table = bytearray(256)
        for kind in KINDS:
            table[SEARCH_KINDS.index(kind)] = 1
        mask = int.from_bytes(bytes(idx.kinds).translate(table), "little")
        mask &= int.from_bytes(bytes(idx.hidden).translate(bytes([1] + [0] * 255)), "little")
        self.mask = mask.to_bytes(len(idx.kinds), "little")
        self.idx = idx
        self.goal, self.failure = SEARCH_KINDS.index("goal"), SEARCH_KINDS.index("failure")
        self.recent = clock.now_datetime().timestamp() - FAILURE_DAYS * 86400.0  # LORE_NOW
        self.project = project
        self.mine = idx.project_code(project) if project else -1
        self.none = idx.project_code(None)
        self.tagged = idx.tagged(project) if project else set()
        self.session = idx.code("sessions", session) if session else -1
        self.known: dict[int, bool] = {}

    def __getitem__(self, doc: int) -> bool:
        if not self.mask[doc]:
            return False
        known = self.known.get(doc)
        if known is None:
            known = self.known[doc] = self._check(doc)
        return known

    def _check(self, d: int) -> bool:
        idx = self.idx
        if d in idx.dead:
            return False
        kind = idx.kinds[d]
        if kind == self.goal and not idx.flags[d]:
            return False  # not an active goal
        if kind == self.failure and (
            idx.ts[d] < self.recent or (self.session >= 0 and idx.sess[d] == self.session)
        ):
            return False
        if self.project and idx.proj[d] not in (self.mine, self.none):
            return d in self.tagged
        return True


def _flagged(record: Any) -> bool:
    flags = getattr(record, "flags", None) if record.KIND.name == "pattern" else None
    return bool(flags)


def _naming(store: Store, idx: Index, allowed: _Allowed, name: str) -> list[int]:
    """Records naming ``name``: decisions whose entities name it (the index's entity
    table, exact at any size), then the newest MAX_CANDIDATES records holding every index
    term of it whose own text names it (patterns, PITFALLs, goals, failures)."""
    found = [d for d in _by_entity(idx, name) if allowed[d]]
    terms = analyze.query_terms(name)
    if not terms:
        return found
    postings = [p for p in map(idx.postings_of, terms) if p is not None]
    if len(postings) < len(terms):  # a term no record holds
        return found
    docs: set[int] | None = None
    for posting in sorted(postings, key=len):  # the rarest first; sets made at C speed
        holding = set(posting[0::2])
        docs = holding if docs is None else docs & holding
        if not docs:
            return found
    mask = allowed.mask
    docs = {d for d in docs or () if mask[d]}
    seen = set(found)
    # Newest first (ties in the set's order: the sort is stable); only as many as needed
    # are checked against ``allowed``.
    newest = sorted(docs or (), key=idx.ts.__getitem__, reverse=True)
    chosen = list(islice((d for d in newest if d not in seen and allowed[d]), MAX_CANDIDATES))
    return found + [d for d in chosen if _names(idx.fetch(store, d), name)]


def _by_entity(idx: Index, name: str) -> list[int]:
    """The records whose entities are ``name``, end in it at a ``/`` or are its tail.

    Tens of thousands of entities: they are searched as one lowercased text for the name
    and its tails (C speed), and only the entities holding one are tested (``_entity_is``)."""
    wanted = name.lower().strip("./")
    if len(wanted) < 3:
        return []
    names = list(idx.entities)
    text = "\n".join(names).lower()
    if text.count("\n") != max(len(names) - 1, 0):  # an entity with a line break in it
        held = [n for n in names if _entity_is(n, wanted)]
    else:
        # Every entity that matches holds ``wanted`` (it is ``wanted``, or ends in it) or
        # the tail of ``wanted`` it is; its line of ``text`` is its own lowercase.
        needles = {wanted} | {wanted[i + 1 :] for i, c in enumerate(wanted) if c == "/"}
        lines: set[int] = set()
        for needle in needles - {""}:
            line, last, at = 0, 0, text.find(needle)
            while at >= 0:
                line += text.count("\n", last, at)
                lines.add(line)
                last = text.find("\n", at)
                if last < 0:
                    break
                at = text.find(needle, last)
        held = [names[n] for n in sorted(lines) if _entity_is(names[n], wanted)]
    out: list[int] = []
    for entity in held:
        out.extend(d for d in idx.posting("entities", entity) if d not in idx.dead)
    return sorted(set(out), key=lambda d: -idx.ts[d])


def _entity_is(entity: str, wanted: str) -> bool:
    """Whether ``entity`` is ``wanted`` (lowercase, without leading or trailing ``./``),
    ends in it at a ``/``, or is the tail of it after a ``/``."""
    held = entity.lower().strip("./")
    return held == wanted or held.endswith("/" + wanted) or wanted.endswith("/" + held)


def _names(record: Any, name: str) -> bool:
    """Whether ``record``'s text names ``name`` (a path also by its tail or head at a
    ``/``: ``session.py`` names ``src/auth/session.py``, and the other way round)."""
    wanted = name.lower().strip("./")
    texts: list[str] = []
    for field in (record.KIND.title, *record.KIND.search, "files"):
        value = getattr(record, field, None)
        values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        texts.extend(v.lower() for v in values if isinstance(v, str))
    for text in texts:
        at = text.find(wanted)
        while at >= 0:
            before = text[at - 1] if at else " "
            end = at + len(wanted)
            after = text[end] if end < len(text) else " "
            if not (before.isalnum() or before in "_-") and not (after.isalnum() or after in "_"):
                return True
            at = text.find(wanted, at + 1)
    return False


def _error_types(idx: Index, allowed: _Allowed, prompt: str) -> list[tuple[int, str]]:
    """The PITFALL and the newest recent failure of each error type the prompt names."""
    said = {w.lower() for w in analyze.WORD.findall(prompt)}
    types = [g for g in idx.groups if g and g.lower() in said]
    if not types:
        return []
    out: list[tuple[int, str]] = []
    titles = idx.titles
    anti = SEARCH_KINDS.index("anti-pattern")
    failure = SEARCH_KINDS.index("failure")
    for error_type in types:
        name = analyze.normalize(f"PITFALL: {error_type}")
        for d in idx.docs("anti-pattern"):
            if titles[d] == name and idx.kinds[d] == anti and allowed[d]:
                out.append((d, error_type))
        group, grp = idx.code("groups", error_type), idx.grp
        newest = [d for d in idx.docs("failure") if grp[d] == group and allowed[d]]
        if newest and idx.kinds[newest[0]] == failure:
            out.append((max(newest, key=lambda d: (idx.ts[d], d)), error_type))
    return out


def _topics(
    store: Store, idx: Index, allowed: _Allowed, terms: list[str], idf: dict[str, float]
) -> list[tuple[int, float, list[str]]]:
    """Records whose title the prompt covers (COVERAGE, MIN_SHARED), best first.

    Candidates are the records holding the prompt's rarest terms, a term counting more
    where it sits in the title (its weighted count in the index reaches TITLE_WEIGHT);
    only the best MAX_CANDIDATES of them have their titles compared."""
    if not terms:
        return []
    import heapq

    n = max(idx.size, 1)
    looked = sorted(terms, key=lambda t: -idf[t])[:MAX_TERMS]
    hits: dict[int, float] = {}
    get = hits.get
    mask, full = allowed.mask, analyze.TITLE_WEIGHT
    for term in looked:
        postings = idx.postings_of(term)
        if postings is None or (n >= 100 and len(postings) // 2 > COMMON_SHARE * n):
            continue
        weight = idf[term] / full
        top = weight * full  # weight * min(count, full), without a call per record
        for d, count in zip(postings[0::2], postings[1::2]):
            if mask[d]:
                hits[d] = get(d, 0.0) + (top if count >= full else weight * count)
    held = set(terms)
    titles = idx.titles
    rarity = dict(idf)
    out = []
    wanted, ts = 4 * MAX_CANDIDATES, idx.ts
    if len(hits) > wanted:  # only records scoring at least the wanted-th best can be in it
        floor = heapq.nlargest(wanted, hits.values())[-1]
        hits = {d: score for d, score in hits.items() if score >= floor}
    best = heapq.nlargest(wanted, hits, key=lambda d: (hits[d], ts[d]))
    for d in [d for d in best if allowed[d]][:MAX_CANDIDATES]:
        title = titles[d] if d < len(titles) and titles[d] else _title(store, idx, d)
        own = analyze.query_terms(title)
        shared = [t for t in own if t in held]
        if not own or len(shared) < min(MIN_SHARED, len(own)):
            continue
        for t in own:
            if t not in rarity:
                rarity[t] = _idf(idx, t)
        total = sum(rarity[t] for t in own)
        coverage = sum(rarity[t] for t in shared) / total if total else 0.0
        if coverage >= COVERAGE:
            said = [w for w in dict.fromkeys(analyze.words(title)) if _term(w) in shared]
            out.append((d, coverage, said or shared))
    return out


def _term(word: str) -> str:
    found = analyze.terms(word)
    return found[0] if found else ""


def _title(store: Store, idx: Index, doc: int) -> str:
    record = idx.fetch(store, doc)
    value = getattr(record, record.KIND.title, "")
    return value if isinstance(value, str) else ""
