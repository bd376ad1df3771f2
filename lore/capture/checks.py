"""Capture's checks, run before any new record is written: schema, the secrets gate,
references, and the near-duplicate search (on the warm index when there is one).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lore.errors import InvalidInputError
from lore.model import Record
from lore.store.core import Store

DEDUPE_KINDS = ("decision", "pattern", "anti-pattern")
# Kinds checked for near-duplicates by their own commands, not by capture (no index titles).
OTHER_DEDUPE_KINDS = ("goal",)
SIMILARITY_THRESHOLD = 92.0  # rapidfuzz token_sort_ratio, 0-100


def check(record: Record, *, allow_secret: bool = False) -> None:
    """Schema and secrets checks every new record passes before it is written."""
    problems = record.problems()
    if problems:
        name, message = problems[0]
        raise InvalidInputError(f"{record.kind} {name} {message}", field=name, kind=record.kind)
    if not allow_secret:
        data = record.to_dict()
        # Every string is scanned, ids and git_commit too (an import line sets them), and
        # every key name; only the validated timestamp and the version number are not.
        data.pop("timestamp", None)
        data.pop("v", None)
        gate(data)


def gate(data: dict[str, Any], *, allow_secret: bool = False) -> None:
    """The secrets gate (``lore.secrets.gate``, the one implementation): refuse ``data``
    (field -> text) if a value looks like a credential, exit 7.

    Every path that writes new text calls it (through :func:`check` for new records).
    """
    from lore.secrets.gate import gate as refuse

    refuse(data, allow_secret=allow_secret)


def check_references(store: Store, record: Record) -> None:
    """Every id a new record points at must exist (and be of the right kind)."""
    for name, target, kind in record.references():
        found = store.find(target)
        if found is None:
            raise InvalidInputError(
                f"{record.kind} {name}: no record with id {target!r}", field=name, id=target
            )
        if kind != "any" and found.kind != kind:
            raise InvalidInputError(
                f"{record.kind} {name}: {target} is {'an' if found.kind[0] in 'aeiou' else 'a'} "
                f"{found.kind}, not a {kind}",
                field=name,
                id=target,
            )


def find_duplicate(store: Store, record: Record, *, ignore: Iterable[str] = ()) -> Record | None:
    """An active record of the same kind whose title is the same or nearly the same.

    ``ignore``: ids that do not count (the decision a new one supersedes).
    """
    if record.kind not in DEDUPE_KINDS and record.kind not in OTHER_DEDUPE_KINDS:
        return None
    target = normalize(record.title)
    if not target:
        return None
    skip = set(ignore)
    index = warm_index(store, record.kind) if record.kind in DEDUPE_KINDS else None
    if index is not None:  # a warm index holds every title: no log to read
        return _duplicate_in_index(store, index, record.kind, target, skip)
    title_field = record.KIND.title

    def may_match(state: dict[str, Any]) -> bool:
        title = state.get(title_field)
        # Not a string (or absent): the record's title says; it is checked below.
        return not isinstance(title, str) or _within_reach(target, normalize(title))

    existing = [
        r for r in store.matching(record.kind, may_match) if not r.hidden and r.id not in skip
    ]
    found = closest(target, [normalize(r.title) for r in existing])
    return None if found is None else existing[found]


def closest(target: str, titles: list[str], *, reached: bool = False) -> int | None:
    """The position of the first title equal to ``target``, else of the first best one
    scoring at least SIMILARITY_THRESHOLD, else None (``reached``: every title is known
    to be within reach of ``target`` already)."""
    try:
        return titles.index(target)
    except ValueError:
        pass
    # Only titles that can reach the threshold go to rapidfuzz (in their order, so the
    # first of equally good matches still wins); often none do, and it is not imported.
    # Reach depends on the length alone: compare lengths (a store has 20,000 titles).
    lo, hi = _reach(len(target))
    near = (
        list(range(len(titles)))
        if reached
        else [i for i, n in enumerate(map(len, titles)) if lo <= n <= hi]
    )
    if not near:
        return None
    from rapidfuzz import fuzz, process

    match = process.extractOne(
        target,
        [titles[i] for i in near],
        scorer=fuzz.token_sort_ratio,
        score_cutoff=SIMILARITY_THRESHOLD,
    )
    return near[match[2]] if match else None


def normalize(text: str) -> str:
    """A title as the near-duplicate check compares it (``lore.recall.ranking.normalize``, which
    the index uses too; imported on first use, off the plain capture path)."""
    from lore.index.analyze import normalize as normalized

    return normalized(text)


def warm_index(store: Store, kind: str) -> Any:
    """The search index with ``kind`` up to date (in memory), or None when this machine
    has none yet: then the caller reads the files, and ``lore.index`` is not imported.

    One process asks several times (a decision: duplicates, then contradictions; a failure:
    its type, the Rule of Three; a hook: the id, then capture's own check): the index is
    loaded once and only brought up to date again, and a log that did not move since is
    not even looked at."""
    index_file = store.root.index_file
    if not index_file.is_file():
        return None
    from lore.index.persist import current
    from lore.model import Log, kind_class
    from lore.storage.stamp import stamp as _stamp

    stamp = _stamp(index_file)
    location = store.location(kind)
    moved = _stamp(location) if isinstance(kind_class(kind).KIND.storage, Log) else None
    if _WARM and _WARM[0] is store and _WARM[1] == stamp:
        index, seen = _WARM[2], _WARM[3]
        if moved is None or seen.get(kind) != moved:
            if index.refresh(store, (kind,)) and store.kept is not None:
                store.kept["dirty"] = True
            seen[kind] = moved
        return index
    index = current(store, (kind,))
    if index is not None:
        _WARM[:] = [store, stamp, index, {kind: moved}]
    return index


_WARM: list[Any] = []  # [store, index file stamp, index, {kind: its log stamp, refreshed}]


def exists(store: Store, kind: str, record_id: str) -> bool:
    """Whether a record of ``kind`` with ``record_id`` exists, retracted ones included,
    without folding the kind's whole log (a stable id given to capture, a hook's failure):
    the index when this process has it warm already (an ingestion writing many records),
    else a log's lines holding the id (loading the index would cost a one-off question,
    such as a hook's, more than the search), else the store."""
    from lore.model import Log, kind_class

    if isinstance(kind_class(kind).KIND.storage, Log) and not (_WARM and _WARM[0] is store):
        from lore.storage.jsonl import lines_with_id
        from lore.store.fold import REVISE

        found = lines_with_id(store.location(kind), record_id)
        return any(obj.get("_op") != REVISE for _, obj in found)
    index = warm_index(store, kind)
    if index is not None:
        return bool(index.find_ids({record_id}))
    return store.find(record_id) is not None


def _duplicate_in_index(
    store: Store, index: Any, kind: str, target: str, skip: set[str]
) -> Record | None:
    """``find_duplicate`` on the index's titles, in the order the store lists records
    (a log's by creation line, documents by time), so the same record is reported."""
    from lore.index import dedup
    from lore.process import one_shot

    # Sorting every title's words pays off in a process that keeps its index between
    # calls (``lore mcp``, ``lore ui``); the command server's held indexes have it made.
    view = dedup.view(index, kind, make=store.kept is not None and not one_shot())
    if view is not None:  # its titles' words are sorted already
        return _duplicate_in_view(store, index, kind, target, skip, view)
    titles, ts, off = index.titles, index.ts, index.off
    # Only titles that could match are put in the store's order (sorting 20,000 decisions
    # for every capture would cost more than the whole check).
    lo, hi = _reach(len(target))
    docs = index.docs(kind)
    docs = [d for d, n in zip(docs, map(len, map(titles.__getitem__, docs))) if lo <= n <= hi]
    if kind == "decision":
        docs.sort(key=off.__getitem__)
    else:
        docs.sort(key=lambda d: (ts[d], index.id_of(d)))
    if skip:
        docs = [d for d in docs if index.id_of(d) not in skip]
    found = closest(target, [titles[d] for d in docs], reached=True)
    return None if found is None else index.fetch(store, docs[found])


def _duplicate_in_view(
    store: Store, index: Any, kind: str, target: str, skip: set[str], view: Any
) -> Record | None:
    """``_duplicate_in_index`` through ``lore.index.dedup``'s view: the kind's titles
    within reach of the target's length scored at once (rapidfuzz's ``ratio`` of the
    sorted words is ``token_sort_ratio``), then, of those reaching the threshold, the first
    in the store's order of the equal ones, else of the best ones, as ``closest`` would
    have found them in that order."""
    from rapidfuzz import fuzz, process

    from lore.index.dedup import words_sorted

    docs, sorts = view.within(*_reach(len(target)))
    matches = process.extract(
        words_sorted(target),
        sorts,
        scorer=fuzz.ratio,
        score_cutoff=SIMILARITY_THRESHOLD,
        limit=None,
    )
    found = [(docs[at], score) for _, score, at in matches]
    if skip:
        found = [(d, score) for d, score in found if index.id_of(d) not in skip]
    if not found:
        return None
    titles = index.titles
    pool = [d for d, _ in found if titles[d] == target]
    if not pool:
        best = max(score for _, score in found)
        pool = [d for d, score in found if score == best]
    if kind == "decision":
        first = min(pool, key=lambda d: (index.off[d], d))
    else:
        first = min(pool, key=lambda d: (index.ts[d], index.id_of(d), d))
    return index.fetch(store, first)


def _reach(a: int) -> tuple[int, int]:
    """The lengths a title needs to be within reach of a target of length ``a``."""
    lo = int(SIMILARITY_THRESHOLD * a / (200 - SIMILARITY_THRESHOLD))
    hi = int((200 - SIMILARITY_THRESHOLD) * a / SIMILARITY_THRESHOLD) + 1
    # The float bounds are close; settle them on the exact test.
    while lo > 0 and _within_reach("x" * a, "x" * (lo - 1)):
        lo -= 1
    while not _within_reach("x" * a, "x" * lo):
        lo += 1
    while not _within_reach("x" * a, "x" * hi):
        hi -= 1
    return lo, hi


def _within_reach(target: str, title: str) -> bool:
    """Whether ``title`` can score ``SIMILARITY_THRESHOLD`` against ``target`` at all.

    token_sort_ratio is 200 * common / (a + b) for lengths a and b (normalized text is
    single-spaced, so sorting its words keeps its length), and the common part is at
    most the shorter: titles much longer or shorter than the target never match.
    """
    a, b = len(target), len(title)
    return 200 * min(a, b) >= SIMILARITY_THRESHOLD * (a + b)
