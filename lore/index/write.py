"""Changing the index in memory: adding a record, killing one, compacting the dead.

Also what a record contributes beyond its terms: its flag and the facts resume sorts by.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from typing import Any

from lore import clock
from lore.index import analyze, dedup, tagbits, weight
from lore.index.columns import _ARRAYS, DEDUPE_KINDS, SEARCH_KINDS, Columns, _unpack
from lore.index.fetch import Readable
from lore.index.keep import listed_with, memo_with
from lore.index.packed import Packed
from lore.index.vocab import Vocab
from lore.model import Record

_DECISION = SEARCH_KINDS.index("decision")


class Writable(Readable):
    """The columns, and the changes ``refresh`` makes to them."""

    def _add(self, record: Record, span: tuple[int, int], revs: list[tuple[int, int]]) -> int:
        if not isinstance(record.id, str) or not record.id or "\n" in record.id:
            return -1  # the store skips it too, or validate reports it
        if self._frozen:
            self._thaw()
        agg = self.aggregates()  # counted before the record joins, then kept up to date
        doc = len(self.kinds)
        kind = record.KIND
        counts: dict[str, int] = defaultdict(int)
        length = 0
        asks = 0
        for name in (kind.title, *(f for f in kind.search if f != kind.title)):
            value = getattr(record, name, None)
            times = analyze.TITLE_WEIGHT if name == kind.title else 1
            texts = [value] if isinstance(value, str) else value if isinstance(value, list) else ()
            for text in texts:
                if isinstance(text, str):
                    if "?" in text:
                        asks = 1
                    for term in analyze.terms(text):
                        counts[term] += times
                        length += times
        legacy = record.extra.get("legacy_id")  # an imported record's original id
        if isinstance(legacy, str):
            for term in analyze.terms(legacy):
                counts[term] += 1
                length += 1
        more = self.more
        for term, count in counts.items():
            column = more.get(term)
            if column is None:
                column = more[term] = array("I")
                known = self._terms is not None or self._added is not None
                if known and term not in self.vocab and term not in self.fresh:
                    self._terms = None  # a new term: the sorted vocabulary is made again
                    if self._added is not None:  # with it among the terms added
                        self._added = sorted([*self._added, term])
            column.extend((doc, count))
        entities = getattr(record, "entities", None)
        for table, names in (("tags", record.tags), ("entities", entities)):
            if not names:
                continue  # (the table is not even unmarshalled)
            postings = getattr(self, table)
            for name in dict.fromkeys(names) if isinstance(names, list) else ():
                if isinstance(name, str):
                    column = postings.get(name)
                    if column is None or isinstance(column, bytes):
                        column = postings[name] = _unpack(column or b"")
                    column.append(doc)
        self._ids.append(record.id)
        title = getattr(record, kind.title, "") if kind.name in DEDUPE_KINDS else ""
        self._titles.append(analyze.normalize(title) if isinstance(title, str) else "")
        self.kinds.append(SEARCH_KINDS.index(kind.name))
        self.hidden.append(1 if record.hidden else 0)
        self.flags.append(_flag(record))
        self.asks.append(asks)
        self.ts.append(clock.epoch(record.timestamp))
        project = record.project if isinstance(record.project, str) else None
        self.proj.append(self._intern("projects", project))
        self.imp.append(weight.importance(kind.name, record.__dict__))
        self.dw.append(decision_weight(record.__dict__) if kind.name == "decision" else 0.0)
        self.dl.append(length)
        self.cit.append(0)
        self.cw.append(0.0)
        self.ao.append(-1)  # where its file hashes are in the file: set when it is written
        self.al.append(0)
        self.off.append(span[0])
        self.ln.append(span[1])
        group = getattr(record, "error_type", "") if kind.name == "failure" else ""
        self.grp.append(self._intern("groups", str(group)))
        session_id = record.session_id if isinstance(record.session_id, str) else None
        self.sess.append(self._intern("sessions", session_id))
        self.ctx.append(self._intern("contexts", _context(record, session_id)))
        context = self.ctx[doc]
        before = doc - 1
        linked = (
            context != 0
            and before >= 0
            and self.ctx[before] == context
            and self.kinds[before] == self.kinds[doc]
            and self.proj[before] == self.proj[doc]
        )
        if linked:
            self.nb[before] = 1
        self.nb.append(1 if linked else 0)
        first, second = rank_keys(record)
        self.fa.append(first)
        self.fb.append(second)
        if revs:
            self.revs[doc] = revs
        replaced_by = _replacement(record)
        if replaced_by:
            self.replaced[doc] = replaced_by
        facts = _facts(record)
        if facts is not None:
            self.facts[doc] = facts
        extra = record.extra
        anchors = _anchors(extra.get("file_hashes")) if extra else ()
        if extra and extra.get("pinned") is True:
            self.pins.add(doc)
        if anchors:
            self.anchors[doc] = anchors
        # 1: a file inside a repository (a relative path), 2: one outside any (absolute)
        self.anch.append(
            (1 if any(not a[0].startswith("/") for a in anchors) else 0)
            | (2 if any(a[0].startswith("/") for a in anchors) else 0)
        )
        cites = _cites(record)
        if self._by_id is not None:
            self._by_id[record.id] = doc
        if self.cit_valid:  # the new record's citers, and what it cites, counted now
            self._set_citations(doc, self._citers(record.id))
        if cites:
            self.cites[doc] = cites
            self._recount(cites, 1)
        agg.add(self, doc, 1)
        listed, memo, views, bits = self._docs, self.memo, self.dedup, self.tagbits
        self._forget()
        self._docs = listed_with(self, listed, doc)
        self.memo = memo_with(memo, counts, record.tags)
        self.dedup = dedup.added(self, views, doc)
        self.tagbits = tagbits.added(bits, record.tags, doc)
        self.changed = True
        self.edits += 1
        return doc

    def _forget(self) -> None:
        """Drop the answers derived from the records (they moved on)."""
        self._blanket = None
        self._docs = {}
        self._hidden_docs = None
        self._kind_bytes = None
        self.memo = {}
        self.dedup = {}
        self.tagbits = None

    def _kill(self, doc: int) -> None:
        if doc < 0 or doc in self.dead:
            return
        agg = self.aggregates()
        self.dead.add(doc)
        agg.add(self, doc, -1)
        cites = self.cites.get(doc) if self.cit_valid or self._cited is not None else None
        if cites:
            self._recount(cites, -1)
        views = self.dedup
        self._forget()
        self.dedup = dedup.killed(self, views, doc)
        if self._by_id is not None and self._by_id.get(self.id_of(doc)) == doc:
            del self._by_id[self.id_of(doc)]
        self.changed = True
        self.edits += 1

    # -- citations, kept counted record by record (``cit``, ``cw`` and ``dw``) -------------

    def _citers(self, rid: str) -> int:
        """How many live records cite ``rid`` (before the record being added is counted)."""
        raw = self._lazy.get("cites") if self._cited is None else None
        if raw is not None:
            if not isinstance(raw, bytes):  # a view into the file: copied once to search it
                raw = self._lazy["cites"] = bytes(raw)
            if rid.encode("utf-8") not in raw:
                # ``cites`` is still the file's bytes (a record added since loading would
                # have read them), and they do not hold the id: no record cites it
                return 0
        return self.cited_by_id().get(rid, 0)  # counted once, then kept up to date

    def _recount(self, targets: tuple[str, ...], step: int) -> None:
        """A record citing ``targets`` came (``step`` 1) or went (-1): the counts by id,
        if made, and (while valid) the ``cit`` column of the live records of ``targets``."""
        cited = self._cited
        if cited is not None:
            for rid in targets:
                left = cited.get(rid, 0) + step
                if left > 0:
                    cited[rid] = left
                else:
                    cited.pop(rid, None)
        if self.cit_valid:
            for doc in self.find_ids(set(targets)).values():
                self._set_citations(doc, max(0, self.cit[doc] + step))

    def _set_citations(self, doc: int, count: int) -> None:
        """``doc`` is cited ``count`` times: its ``cit``, and a decision's resume weight."""
        from lore.index.weight import W_DECISION_USE, use_share

        if self._frozen:  # (a kill before any record was added)
            self._thaw()
        self.cit[doc] = count
        if count > self.cit_max:
            self.cit_max = count  # (a bound: a count going down leaves it, see dumps)
        if self.kinds[doc] == _DECISION:
            share = W_DECISION_USE * use_share(0, count) if count else 0.0
            self.dw[doc] += share - self.cw[doc]
            self.cw[doc] = share

    def _kill_kind(self, kind: str) -> None:
        code = SEARCH_KINDS.index(kind)
        for doc, value in enumerate(self.kinds):
            if value == code:
                self._kill(doc)

    def compact(self) -> None:
        """Drop dead records and renumber the rest (no data file is re-read)."""
        keep = [d for d in range(len(self.kinds)) if d not in self.dead]
        remap = array("i", [-1]) * len(self.kinds)
        for new, old in enumerate(keep):
            remap[old] = new
        self.ids = [self.ids[d] for d in keep]
        self._titles = Packed.of([self.titles[d] for d in keep])
        self.kinds = bytearray(self.kinds[d] for d in keep)
        self.hidden = bytearray(self.hidden[d] for d in keep)
        self.flags = bytearray(self.flags[d] for d in keep)
        self.asks = bytearray(self.asks[d] for d in keep)
        self.anch = bytearray(self.anch[d] for d in keep)
        for name, code in _ARRAYS.items():
            column = getattr(self, name)
            setattr(self, name, array(code, (column[d] for d in keep)))
        self.nb = linked_neighbours(self)  # new neighbours, once the dead are gone
        for name in ("revs", "files", "replaced", "facts", "cites", "anchors"):
            mapping = getattr(self, name)
            setattr(self, name, {remap[d]: v for d, v in mapping.items() if remap[d] >= 0})
        self.pins = {remap[d] for d in self.pins if remap[d] >= 0}
        self._cited = None
        fresh: dict[str, array] = {}
        for term in self.vocabulary():
            column = self.postings_of(term)
            assert column is not None
            kept = array("I")
            for i in range(0, len(column), 2):
                if remap[column[i]] >= 0:
                    kept.append(remap[column[i]])
                    kept.append(column[i + 1])
            if kept:
                fresh[term] = kept
        self.fresh, self.more, self.blob = fresh, {}, b""
        self.vocab = Vocab.empty()
        for table in ("tags", "entities"):
            kept_table: dict[str, Any] = {}
            for name, value in getattr(self, table).items():
                column = _unpack(value) if isinstance(value, bytes) else value
                kept = array("I", (remap[d] for d in column if remap[d] >= 0))
                if kept:
                    kept_table[name] = kept
            setattr(self, table, kept_table)
        for source in self.sources.values():
            if "docs" in source:
                docs = _unpack(source["docs"], "i")
                source["docs"] = array("i", (remap[d] if d >= 0 else -1 for d in docs)).tobytes()
        self.dead = set()
        self.build = clock.new_id("index")
        self._terms = self._added = None
        self._by_id = None
        self._id_order = self._time_order = None  # record numbers moved: sorted again
        self._ordered = 0
        self._agg = None
        self._forget()
        self.changed = True


# What lore resume ranks decisions by, besides recency and recall (see lore.sessions.resume).
DECISION_TYPE_WEIGHT = {
    "architecture": 1.0,
    "implementation": 0.6,
    "process": 0.6,
    "tooling": 0.5,
    "refactor": 0.5,
    "bugfix": 0.5,
    "naming": 0.3,
    "other": 0.3,
}
W_DECISION_TYPE, W_DECISION_OUTCOME, W_DECISION_SPEC = 0.25, 0.25, 0.20
# The importance part of resume's activation term (lore.sessions.resume: 0.5 x the
# activation model's 0.4), static like the rest: kept here so resume adds it for nothing.
W_DECISION_VALUE = 0.20


def decision_weight(state: dict[str, Any]) -> float:
    """The part of a decision's resume rank its own fields decide (kept in the index):
    W_DECISION_TYPE * type weight + (W_DECISION_OUTCOME + W_DECISION_VALUE) * importance
    (outcome, lesson) + W_DECISION_SPEC * spec_quality."""
    kind = DECISION_TYPE_WEIGHT.get(str(state.get("type")), DECISION_TYPE_WEIGHT["other"])
    spec = max(0.0, min(1.0, weight.number(state.get("spec_quality"), 0.0)))
    return (
        W_DECISION_TYPE * kind
        + (W_DECISION_OUTCOME + W_DECISION_VALUE) * weight.importance("decision", state)
        + W_DECISION_SPEC * spec
    )


def _flag(record: Record) -> int:
    """1 for what resume looks for among many: a pending decision, an active goal, a
    closed session, a flagged pattern."""
    kind, state = record.KIND.name, record.__dict__
    if kind == "decision":
        return 1 if state.get("outcome") == "pending" else 0
    if kind == "goal":
        return 1 if state.get("status") == "active" else 0
    if kind == "session":
        return 1 if state.get("status") == "closed" else 0
    if kind == "pattern":  # flagged advice: resume and suggest list it after the rest
        flags = state.get("flags")
        return 1 if isinstance(flags, list) and any(isinstance(f, dict) for f in flags) else 0
    return 0


def linked_neighbours(idx: Columns) -> bytearray:
    """The ``nb`` column counted afresh (after a compaction renumbered the records)."""
    kinds, proj, ctx = idx.kinds, idx.proj, idx.ctx
    out = bytearray(len(kinds))
    for doc in range(1, len(kinds)):
        before = doc - 1
        same = kinds[before] == kinds[doc] and proj[before] == proj[doc]
        if ctx[doc] and ctx[before] == ctx[doc] and same:
            out[before] = out[doc] = 1
    return out


def rank_keys(record: Record) -> tuple[float, float]:
    """The two numbers resume orders a kind by (the ``fa`` and ``fb`` columns): a
    pattern's confidence and validations; an anti-pattern's severity rank and a goal's
    priority rank (``SEVERITY_RANK``: 0 is the most severe or urgent, 9 unknown); a
    session's end (epoch seconds of ended_at, else of its timestamp); else zeros."""
    kind = record.KIND.name
    state = record.__dict__
    if kind == "pattern":
        return (
            weight.number(state.get("confidence"), 0.0),
            weight.number(state.get("validations"), 0.0),
        )
    if kind in ("anti-pattern", "goal"):
        from lore.components.patterns import SEVERITY_RANK

        value = state.get("severity" if kind == "anti-pattern" else "priority")
        return (float(SEVERITY_RANK.get(value, 9) if isinstance(value, str) else 9), 0.0)
    if kind == "session":
        ended = _text(state.get("ended_at")) or _text(state.get("timestamp"))
        return (clock.epoch(ended), 0.0)
    return (0.0, 0.0)


# Reference fields that are not citations: a replacement or a contradiction does not make
# the record it names more alive.
NOT_CITATIONS = frozenset({"supersedes", "superseded_by", "contradicts", "inverted_to"})
_REF_FIELDS: dict[type, tuple[str, ...]] = {}


def _cites(record: Record) -> tuple[str, ...]:
    """The ids ``record`` cites (its reference fields but NOT_CITATIONS), once each."""
    cls = type(record)
    names = _REF_FIELDS.get(cls)
    if names is None:
        import dataclasses

        names = _REF_FIELDS[cls] = tuple(
            f.name
            for f in dataclasses.fields(cls)
            if f.metadata.get("ref") and f.name not in NOT_CITATIONS
        )
    found: dict[str, None] = {}
    for name in names:
        value = getattr(record, name, None)
        if isinstance(value, str) and value:
            found[value] = None
        elif isinstance(value, list):
            found.update((v, None) for v in value if isinstance(v, str) and v)
    found.pop(record.id, None)
    return tuple(found)


def _anchors(value: Any) -> tuple[tuple[Any, ...], ...]:
    """A record's ``file_hashes`` as ``((path, blob, commit), ...)`` (marshal-safe)."""
    if not isinstance(value, list):
        return ()
    out = []
    for item in value:
        if isinstance(item, dict) and isinstance(item.get("path"), str) and item["path"]:
            blob, commit = item.get("blob"), item.get("commit")
            out.append(
                (
                    item["path"],
                    blob if isinstance(blob, str) else None,
                    commit if isinstance(commit, str) else None,
                )
            )
    return tuple(out)


def _replacement(record: Record) -> str | None:
    """The record whose content now stands for this one, which recall never lets it
    outrank: a hidden record's ``superseded_by``, a promoted observation's ``promoted_to``."""
    if record.KIND.name == "observation":
        target = getattr(record, "promoted_to", None)
        promoted = getattr(record, "status", None) == "promoted"
        return target if promoted and isinstance(target, str) and target else None
    target = getattr(record, "superseded_by", None)
    return target if record.hidden and isinstance(target, str) and target else None


def _context(record: Record, session_id: str | None) -> str | None:
    """What a record's neighbours must share with it to be its context: its session, or
    for a record without one its tags besides its project's name (records imported from
    one thread carry the same); None (no context) for a record with neither."""
    if session_id:
        return "s:" + session_id
    tags = record.tags if isinstance(record.tags, list) else []
    own = record.project  # capture tags a record with its project: that names no thread
    named = sorted({t for t in tags if isinstance(t, str) and t != own})
    return "t:" + "\x1f".join(named) if named else None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _facts(record: Record) -> tuple[Any, ...] | None:
    """The few fields ``lore resume`` chooses by, so it reads only the records it shows.

    session: (status, ended_at or timestamp, project or None);
    pattern: (confidence, validations, 1 if it holds a flag else 0);
    anti-pattern: (severity, name); goal: (status, priority). Only marshal-safe plain values.
    """
    kind = record.KIND.name
    state = record.__dict__
    if kind == "session":
        project = state.get("project")
        ended = _text(state.get("ended_at")) or _text(state.get("timestamp"))
        return (_text(state.get("status")), ended, project if isinstance(project, str) else None)
    if kind == "pattern":
        flags = state.get("flags")
        flagged = isinstance(flags, list) and any(isinstance(f, dict) for f in flags)
        return (
            weight.number(state.get("confidence"), 0.0),
            weight.number(state.get("validations"), 0.0),
            1 if flagged else 0,
        )
    if kind == "anti-pattern":
        return (_text(state.get("severity")), _text(state.get("name")))
    if kind == "goal":
        return (_text(state.get("status")), _text(state.get("priority")))
    return None
