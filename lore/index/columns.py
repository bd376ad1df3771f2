"""The index's state (per-record columns, postings, tags) and everything that reads it.

Loaded from the file, the columns are read-only views into it until ``_thaw`` copies them.
"""

from __future__ import annotations

import contextlib
import marshal
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import Any

from lore import clock
from lore.index.aggregates import Aggregates
from lore.index.packed import Lazy, Packed
from lore.index.packed import unpack as _unpack
from lore.index.vocab import Merged, Vocab

SEARCH_KINDS = (
    "decision",
    "pattern",
    "anti-pattern",
    "failure",
    "observation",
    "evidence",
    "goal",
    "session",
    "concept",
)
DEDUPE_KINDS = ("decision", "pattern", "anti-pattern")  # as lore.capture checks them


def gather(column: Any, docs: Any) -> tuple[Any, ...]:
    """``column[d]`` for each of ``docs``, in C (``itemgetter``: about twice the speed of
    ``map`` with the column's ``__getitem__``)."""
    if len(docs) > 1:
        return itemgetter(*docs)(column)
    return tuple(map(column.__getitem__, docs))


# Per-record columns and their array typecodes: time (epoch seconds), project code,
# static importance, a decision's resume weight, weighted length, the creation line's
# byte offset and length (logs; -1 for documents), the failure group (error type) code,
# the session_id code and the context code (the session_id, else the record's tags;
# recall's neighbours share it), the two keys resume orders a kind by (``fa``,
# ``fb``: see ``write.rank_keys``), and lore.dynamics' inputs: citations by live records
# (``cit``), a decision's citations in its resume weight (``cw``), and where the record's
# file hashes sit in the index file (``ao`` offset, -1: none; ``al`` length).
_ARRAYS = {
    "ts": "d",
    "proj": "I",
    "imp": "f",
    "dw": "f",
    "dl": "I",
    "off": "q",
    "ln": "I",
    "grp": "I",
    "sess": "I",
    "ctx": "I",
    "fa": "d",
    "fb": "d",
    "cit": "I",
    "cw": "f",
    "ao": "q",
    "al": "I",
}
_NOT = bytes([1] + [0] * 255)  # translate table: 0 -> 1, anything else -> 0
BLANKET_MIN_RECORDS = 3  # as lore.index.tagwords counts a project's blanket tags


class Columns:
    """Per-record metadata in columns, and term -> (record, weighted count) postings.

    Read-only here: ``write.Writable`` adds records, ``refresh.Refreshable`` follows the
    files, and ``persist.Index`` (the class everyone uses) reads and writes the index file.
    """

    # Read from the file on first use (``_lazy`` holds their bytes until then).
    projects: list[str | None] = Lazy()  # type: ignore[assignment]
    groups: list[str] = Lazy()  # type: ignore[assignment]
    sessions: list[str | None] = Lazy()  # type: ignore[assignment]
    contexts: list[str | None] = Lazy()  # type: ignore[assignment]
    revs: dict[int, list[tuple[int, int]]] = Lazy()  # type: ignore[assignment]
    files: dict[int, str] = Lazy()  # type: ignore[assignment]  # file names not <id><suffix>
    replaced: dict[int, str] = Lazy()  # type: ignore[assignment]
    facts: dict[int, tuple[Any, ...]] = Lazy()  # type: ignore[assignment]  # for resume
    tags: dict[str, Any] = Lazy()  # type: ignore[assignment]
    dead: set[int] = Lazy()  # type: ignore[assignment]
    pins: set[int] = Lazy()  # type: ignore[assignment]  # pinned records (never decaying)
    cites: dict[int, tuple[str, ...]] = Lazy()  # type: ignore[assignment]  # ids each cites

    def __init__(self, root: str) -> None:
        self.root = root
        self._lazy: dict[str, Any] = {}
        self.sources: dict[str, dict[str, Any]] = {}
        # kind -> (its file or folder, a document's suffix, the folder's events log or "")
        self.layout: dict[str, tuple[str, str, str]] = {}
        self._ids = Packed()  # every record's id, by record number
        self._frozen = False  # columns are read-only views until _thaw
        self._titles = Packed()  # normalized titles of DEDUPE_KINDS, else ""
        self.kinds = bytearray()
        self.hidden = bytearray()
        self.flags = bytearray()  # 1: a pending decision, an active goal, a closed session,
        # a flagged pattern
        self.asks = bytearray()  # 1: the record's text asks something (holds a "?")
        # 1: the record before or after it has its kind, project and (non-empty) context,
        # so recall may pass scores between them (``lore.recall.signals.neighbour``)
        self.nb = bytearray()
        # lore.dynamics: 1 if the record carries file hashes of files inside a repository (bit 1)
        # or outside any (bit 2)
        self.anch = bytearray()
        self.ts = array("d")
        self.proj = array("I")
        self.imp = array("f")
        self.dw = array("f")  # a decision's resume weight (write.decision_weight), else 0
        self.dl = array("I")
        self.off = array("q")
        self.ln = array("I")
        self.grp = array("I")
        self.sess = array("I")
        self.ctx = array("I")
        self.fa = array("d")
        self.fb = array("d")
        # lore.dynamics: ``cit``: how many live records cite each record, worked out when
        # the index is written (valid while ``cit_valid``; after a change in memory,
        # ``cited_count`` counts afresh from ``cites``); ``cw``: a decision's citations in
        # its resume weight (W_DECISION_USE); ``ao``, ``al``: where each record's file
        # hashes start in the index file (-1: none) and their length.
        self.cit = array("I")
        self.cw = array("f")
        self.ao = array("q")
        self.al = array("I")
        # a new index counts them when it is written (``count_citations``): counting as
        # records come costs a lookup each, worth it only for a few added to a loaded index
        self.cit_valid = False
        self.cit_max = 0
        self._cited: dict[str, int] | None = None
        self.projects = [None]
        self.groups = [""]
        self.sessions = [None]
        self.contexts = [None]
        self.revs = {}
        self.files = {}
        self.replaced = {}
        self.facts = {}
        self.tags = {}
        self.pins = set()
        self.cites = {}
        # the file hashes a record was captured with ((path, blob, commit), ...), read
        # from the file (``_anchors_raw``) on first use
        self._anchors: dict[int, tuple[tuple[Any, ...], ...]] | None = {}
        self._anchors_raw: Any = b""
        self._entities: dict[str, Any] | None = {}  # entity -> records, like tags
        self._entities_raw: Any = None  # marshalled, read on first use (only the timeline)
        self._vocab = Vocab.empty()  # term -> where its postings sit in the blob
        self.blob: Any = b""
        self.fresh: dict[str, array] = {}  # postings that replace the blob's (a compaction)
        self.more: dict[str, array] = {}  # postings added since the blob was written
        self.dead = set()
        self._terms: Sequence[str] | None = None
        self._added: list[str] | None = None  # terms added since the file, sorted (vocabulary)
        self._codes: dict[str, dict[Any, int]] = {}
        self._by_id: dict[str, int] | None = None
        # Records by id and by time as the file holds them (``lore.index.orders``), for
        # the first ``_ordered`` records (the rest were added since the file was written).
        self._id_order: Any = None
        self._time_order: Any = None
        self._ordered = 0
        self._agg: Aggregates | None = None  # counts over the live records
        self._blanket: set[int] | None = None  # blanket_contexts() answer
        self._docs: dict[tuple[str, bool, bool], list[int]] = {}  # docs() answers
        self._hidden_docs: set[int] | None = None  # hidden_docs() answer
        self._kind_bytes: bytes | None = None  # the kinds column as bytes, for docs()
        self.memo: dict[Any, Any] = {}  # recall's answers per term (lore.recall.terms)
        # the near-duplicate check's kinds, their titles' words sorted (lore.index.dedup)
        self.dedup: dict[str, Any] = {}
        self.tagbits: dict[Any, int] | None = None  # each tag's records (lore.index.tagbits)
        self.changed = False  # anything to save (records, or only what was checked)
        self.edits = 0  # records added or killed since loading: what the index holds moved
        self.resynced = False  # the last refresh made a full check for a new watcher
        # Who numbered these records: a new index, or a compaction, draws a new one, so a
        # reader that remembers record numbers (the graph snapshot) knows they moved.
        self.build = clock.new_id("index")

    def _thaw(self) -> None:
        """Copy the memory-mapped columns into growable arrays, before the first change."""
        self._frozen = False
        self.kinds = bytearray(self.kinds)
        self.hidden = bytearray(self.hidden)
        self.flags = bytearray(self.flags)
        self.asks = bytearray(self.asks)
        self.nb = bytearray(self.nb)
        self.anch = bytearray(self.anch)
        for name, code in _ARRAYS.items():
            setattr(self, name, _unpack(getattr(self, name), code))

    # -- reading -----------------------------------------------------------------------

    @property
    def ids(self) -> list[str]:
        """Every record's id, by record number (split from one string on first use)."""
        return self._ids.strings()

    @ids.setter
    def ids(self, value: list[str]) -> None:
        self._ids = Packed.of(value)

    def id_of(self, doc: int) -> str:
        """One record's id, without splitting them all."""
        return self._ids[doc]

    def aggregates(self) -> Aggregates:
        """Counts over the live records (stored with the index, kept up to date)."""
        if self._agg is None:
            self._agg = Aggregates.count(self)
        return self._agg

    def blanket_contexts(self) -> set[int]:
        """Context codes (``ctx``) made of tags that every record of their project (at least
        BLANKET_MIN_RECORDS) carries: such tags name a project, not a thread, so records
        sharing only them are not each other's context."""
        if self._blanket is None:
            agg = self.aggregates()
            sizes = agg.sizes
            self._blanket = {
                c
                for (c, p), n in agg.pairs.items()
                if c and n == sizes.get(p) and n >= BLANKET_MIN_RECORDS
                and str(self.contexts[c]).startswith("t:")
            }  # fmt: skip
        return self._blanket

    def hidden_docs(self) -> set[int]:
        """The record numbers whose ``hidden`` byte is set (few: retracted, superseded)."""
        if self._hidden_docs is None:
            data = bytes(self.hidden)
            found = set()
            at = data.find(1)
            while at >= 0:
                found.add(at)
                at = data.find(1, at + 1)
            self._hidden_docs = found
        return self._hidden_docs

    def unflagged(self) -> bytes:
        """1 for every record whose flag is not set, by record number (a sort key)."""
        return bytes(self.flags).translate(_NOT)

    def group_count(self, group: int) -> int:
        """How many live failures share the group (error type) ``group``."""
        return self.aggregates().groups[group]

    def project_sizes(self) -> dict[int, int]:
        """How many live records each project code has."""
        return self.aggregates().sizes

    @property
    def anchors(self) -> dict[int, tuple[tuple[Any, ...], ...]]:
        """Record number -> its file hashes (every record's, read from the file at once)."""
        if self._anchors is None:
            ao, al, raw = self.ao, self.al, self._anchors_raw
            self._anchors = {
                d: marshal.loads(raw[ao[d] : ao[d] + al[d]])
                for d in range(len(self.anch))  # (a record being added has none yet)
                if self.anch[d] and ao[d] >= 0
            }
        return self._anchors

    @anchors.setter
    def anchors(self, value: dict[int, tuple[tuple[Any, ...], ...]]) -> None:
        self._anchors = value

    def anchors_of(self, doc: int) -> tuple[tuple[Any, ...], ...]:
        """One record's file hashes, read alone (``ao``, ``al``: where in the file)."""
        if self._anchors is not None:
            return self._anchors.get(doc, ())
        at = self.ao[doc]
        return marshal.loads(self._anchors_raw[at : at + self.al[doc]]) if at >= 0 else ()

    def packed_anchors(self) -> bytes:
        """The file hashes of every live record, one marshalled tuple after another, with
        the ``ao`` and ``al`` columns set to where each one is (before writing the index)."""
        anchors = self.anchors
        self.ao = array("q", [-1]) * len(self.kinds)
        self.al = array("I", bytes(4 * len(self.kinds)))
        chunks, at = [], 0
        for doc in sorted(anchors):
            if doc in self.dead:
                continue
            chunk = marshal.dumps(anchors[doc])
            self.ao[doc], self.al[doc] = at, len(chunk)
            chunks.append(chunk)
            at += len(chunk)
        return b"".join(chunks)

    def has_anchors(self) -> bool:
        """Whether any record carries file hashes, without reading them."""
        if self._anchors is None:
            return len(self._anchors_raw) > 0
        return bool(self._anchors)

    def anchored(self, doc: int, *, in_repo: bool = True) -> bool:
        """Whether the record ``doc`` carries file hashes (a byte: nothing is unmarshalled);
        ``in_repo`` False: only those of files outside any repository count."""
        return bool(self.anch[doc] & (3 if in_repo else 2))

    def cited_by_id(self) -> dict[str, int]:
        """How many live records cite each id, counted from ``cites``."""
        if self._cited is None:
            from itertools import chain

            dead = self.dead  # (each record's targets are distinct: ``write._cites``)
            live = (t for d, t in self.cites.items() if d not in dead)
            self._cited = dict(Counter(chain.from_iterable(live)))
        return self._cited

    def cited_count(self, doc: int) -> int:
        """How many live records cite the record ``doc``."""
        if self.cit_valid:
            return self.cit[doc]
        return self.cited_by_id().get(self.id_of(doc), 0)

    def cited_max(self) -> int:
        """The most citations any record has (a bound for ranking)."""
        if self.cit_valid:
            return self.cit_max
        return max(self.cited_by_id().values(), default=0)

    def count_citations(self) -> None:
        """Work out the ``cit`` column again (before the index is written), and each
        decision's citations in its resume weight: ``cw``, which ``dw`` includes (so resume
        reads one column, as before citations counted)."""
        from lore.index.weight import W_DECISION_USE, use_share

        if isinstance(self.dw, memoryview):  # still a read-only view of the file
            self._thaw()
        counts = self.cited_by_id()
        column = array("I", bytes(4 * len(self.kinds)))
        weights = array("f", bytes(4 * len(self.kinds)))
        if counts:
            by_id = self.by_id()
            decision = SEARCH_KINDS.index("decision")
            for rid, n in counts.items():
                doc = by_id.get(rid)
                if doc is not None:
                    column[doc] = n
                    if self.kinds[doc] == decision:
                        weights[doc] = W_DECISION_USE * use_share(0, n)
        dw, old = self.dw, self.cw
        for doc in {d for d, w in enumerate(old) if w} | {d for d, w in enumerate(weights) if w}:
            dw[doc] += weights[doc] - old[doc]
        self.cit, self.cw = column, weights
        self.cit_max = max(counts.values(), default=0)
        self.cit_valid = True

    @property
    def size(self) -> int:
        return len(self.kinds) - len(self.dead)

    def total_length(self) -> int:
        return self.aggregates().length

    @property
    def titles(self) -> list[str]:
        """Each record's title as the near-duplicate check compares it (``""`` for kinds
        it does not check), by record number; split from the file on first use."""
        return self._titles.strings()

    def title_of(self, doc: int) -> str:
        return self._titles[doc]

    @property
    def vocab(self) -> Vocab:
        """The stored terms and where their postings sit in the blob (``lore.index.vocab``;
        looked up by binary search: resume never reads it, recall a few terms)."""
        return self._vocab

    @vocab.setter
    def vocab(self, value: Vocab) -> None:
        self._vocab = value

    @property
    def entities(self) -> dict[str, Any]:
        """Entity (as written) -> its records, like ``tags`` (unmarshalled on first use)."""
        if self._entities is None:
            self._entities = marshal.loads(self._entities_raw)
        return self._entities

    @entities.setter
    def entities(self, value: dict[str, Any]) -> None:
        self._entities = value

    def vocabulary(self) -> Sequence[str]:
        """Every term, sorted: the stored ones as the file holds them, and those added
        since (``_added``, kept sorted by each addition) merged in."""
        if self._terms is None:
            vocab = self._vocab
            added = self._added
            if added is None:  # (then kept up to date by each addition: lore.index.write)
                extra = self.fresh.keys() | self.more.keys()
                added = sorted(term for term in extra if term not in vocab) if extra else []
                self._added = added
            # the words new since the file seen merged in (a new one costs a sort of
            # those alone, not of every term: a long-lived process adds many)
            self._terms = Merged(vocab.terms, added) if added else vocab.terms
        return self._terms

    def holding(self, terms: Iterable[str]) -> set[int]:
        """The records (dead ones too) whose indexed text holds every one of ``terms``.
        The rarest term's records are the candidates; each other term's (record numbers
        in order) is searched for them, never made into a set (a path's ``py`` is in
        tens of thousands of records)."""
        columns = []
        for term in dict.fromkeys(terms):
            postings = self.postings_of(term)
            if postings is None:
                return set()
            columns.append(postings[0::2])
        if not columns:
            return set()
        columns.sort(key=len)
        docs = set(columns[0])
        for column in columns[1:]:
            size = len(column)
            docs = {d for d in docs if (at := bisect_left(column, d)) < size and column[at] == d}
            if not docs:
                break
        return docs

    def postings_of(self, term: str) -> array | None:
        """``array('I')`` of alternating record number and weighted term count, by
        record number."""
        column = self.fresh.get(term)
        if column is None:
            where = self.vocab.get(term)
            if where is not None:
                column = _unpack(self.blob[where[0] : where[0] + where[1]])
        added = self.more.get(term)
        if added is None:
            return column
        return column + added if column is not None else array("I", added)

    def posting(self, table: str, name: str) -> array:
        """The records of one tag or entity (``table`` "tags" or "entities"), dead included."""
        value = getattr(self, table).get(name)
        if value is None:
            return array("I")
        return _unpack(value) if isinstance(value, (bytes, memoryview)) else value

    def tagged(self, tag: str) -> set[int]:
        value = self.tags.get(tag)
        if value is None:
            return set()
        return set(_unpack(value) if isinstance(value, bytes) else value) - self.dead

    def code(self, table: str, name: Any) -> int:
        """The code of ``name`` in ``projects`` or ``groups`` (-1 if absent)."""
        codes = self._codes.get(table)
        if codes is None:
            codes = self._codes[table] = {p: i for i, p in enumerate(getattr(self, table))}
        return codes.get(name, -1)

    def _intern(self, table: str, name: Any) -> int:
        found = self.code(table, name)
        if found < 0:
            values = getattr(self, table)
            found = len(values)
            values.append(name)
            self._codes[table][name] = found
        return found

    def project_code(self, name: str | None) -> int:
        return self.code("projects", name)

    def group_of(self, doc: int) -> str:
        return self.groups[self.grp[doc]]

    def by_id(self) -> dict[str, int]:
        if self._by_id is None:
            dead = self.dead
            self._by_id = {rid: i for i, rid in enumerate(self.ids) if i not in dead}
        return self._by_id

    def find_ids(self, wanted: set[str]) -> dict[str, int]:
        """The live record number of each id in ``wanted`` that the index holds.

        A few ids (the lines one capture appended) are searched for in the packed id
        text, or in the id list once it is split (``list.index`` runs at C speed);
        building the dictionary costs a hundred milliseconds and more on a big index.
        Many ids, or a dictionary already built, use the dictionary.
        """
        if self._by_id is None and self._id_order is not None and len(wanted) <= 256:
            from lore.index.orders import find

            return find(self, wanted)
        if self._by_id is not None or len(wanted) > 16:
            by_id = self.by_id()
            return {rid: by_id[rid] for rid in wanted if rid in by_id}
        if self._ids._list is not None:
            ids, dead = self._ids._list, self.dead
            hits: dict[str, int] = {}
            for rid in wanted:
                at = -1
                with contextlib.suppress(ValueError):
                    while True:
                        at = ids.index(rid, at + 1)
                        if at not in dead:
                            hits[rid] = at  # the last live one wins, as in by_id()
            return hits

        text = b"\n" + bytes(self._ids.text) + b"\n"  # id k sits after text[at[k]]
        starts, dead = self._ids.at, self.dead
        found: dict[str, int] = {}
        for rid in wanted:
            needle = b"\n" + rid.encode("utf-8") + b"\n"
            at = text.find(needle)
            while at >= 0:
                doc = bisect_left(starts, at)
                if doc < len(starts) and starts[doc] == at and doc not in dead:
                    found[rid] = doc  # the last live one wins, as in by_id()
                at = text.find(needle, at + 1)
        return found

    def kind_of(self, doc: int) -> str:
        return SEARCH_KINDS[self.kinds[doc]]

    def docs(self, kind: str, *, flagged: bool = False, hidden: bool = False) -> list[int]:
        """The live, shown records of ``kind``, in index order (``hidden``: hidden ones
        too); ``flagged``: only those whose flag is set (see ``_flag``). Byte masks keep
        this at C speed."""
        cached = self._docs.get((kind, flagged, hidden))
        if cached is not None:
            return list(cached)
        from itertools import compress

        kinds = self._kind_bytes
        if kinds is None:
            kinds = self._kind_bytes = bytes(self.kinds)
        code = SEARCH_KINDS.index(kind)
        # A kind's records sit mostly together (a log is indexed in one run): scan its span.
        lo, hi = kinds.find(code), kinds.rfind(code) + 1
        found: list[int] = []
        if lo >= 0:
            table = bytearray(256)
            table[code] = 1
            mask = int.from_bytes(kinds[lo:hi].translate(table), "little")
            if not hidden:
                mask &= int.from_bytes(bytes(self.hidden[lo:hi]).translate(_NOT), "little")
            if flagged:
                mask &= int.from_bytes(bytes(self.flags[lo:hi]), "little")
            found = list(compress(range(lo, hi), mask.to_bytes(hi - lo, "little")))
        if self.dead:
            dead = self.dead
            found = [d for d in found if d not in dead]
        self._docs[(kind, flagged, hidden)] = found
        return list(found)
