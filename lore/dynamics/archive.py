"""``lore archive``, ``lore unarchive``, ``lore pin`` and ``lore unpin``: settled records out
of the default views and back, and records that never decay. Each is an appended revision
(``status: archived``, the status it had kept in ``archived_from``; ``pinned: true``):
nothing is deleted, an archived record stays in its file, in exports, in ``--all`` recall
and in the graph's history.
"""

from __future__ import annotations

from typing import Any

from lore import clock, timeexpr
from lore.errors import InvalidInputError, UsageError
from lore.model import ARCHIVED, Record, kind_class
from lore.store.core import Store

KINDS = ("decision", "pattern", "anti-pattern", "failure", "observation", "evidence")
# The status a record gets back when it was archived before it had one (failures and
# evidence have no status field: theirs lives among their extra keys).
DEFAULT_STATUS = {"observation": "raw"}


def _status(record: Record) -> Any:
    return getattr(record, "status", record.extra.get("status"))


def check_kinds(names: list[str] | tuple[str, ...]) -> list[str]:
    out = []
    for name in names:
        kind = kind_class(name).KIND.name
        if kind not in KINDS:
            raise UsageError(f"{kind}s are not archived; archive works on {', '.join(KINDS)}")
        if kind not in out:
            out.append(kind)
    return out


def select(
    store: Store,
    *,
    older_than: str | None = None,
    kinds: list[str] | tuple[str, ...] = (),
    below: float | None = None,
) -> list[tuple[Record, float]]:
    """The settled records ``lore archive`` would take, oldest first, with their
    activation: shown (not hidden), not pinned, not a decision still pending, created
    before ``older_than`` (a time expression: 1y, 2025-06, ...), of ``kinds``, with an
    activation below ``below``."""
    from lore.dynamics.scores import of_docs
    from lore.index.persist import open_index

    if older_than is None and below is None:
        raise UsageError("say which records: IDS, --older-than AGE or --below SCORE")
    if below is not None and not 0 <= below <= 1:
        raise UsageError(f"--below must be between 0 and 1 (got {below})")
    cutoff = timeexpr.since(older_than, flag="--older-than") if older_than else None
    idx = open_index(store)
    docs: list[int] = []
    for kind in check_kinds(list(kinds)) if kinds else KINDS:
        found = idx.docs(kind)
        if kind == "decision":  # a decision still pending is not settled
            pending = set(idx.docs(kind, flagged=True))
            found = [d for d in found if d not in pending]
        docs.extend(d for d in found if d not in idx.pins)
    if cutoff is not None:
        docs = [d for d in docs if idx.ts[d] < cutoff]
    scores = of_docs(store, idx, docs)
    if below is not None:
        docs = [d for d in docs if scores[d].value < below]
    docs.sort(key=lambda d: (idx.ts[d], idx.id_of(d)))
    return [(idx.fetch(store, d), scores[d].value) for d in docs]


def archive(store: Store, records: list[Record], *, reason: str | None = None) -> list[Record]:
    """Archive ``records`` (each checked first: nothing is written when one cannot be)."""
    for record in records:
        if record.kind not in KINDS:
            raise InvalidInputError(
                f"{record.id} is {_a(record.kind)}; archive works on {', '.join(KINDS)}",
                id=record.id,
            )
        if record.extra.get("pinned") is True:
            raise InvalidInputError(f"{record.id} is pinned; lore unpin it first", id=record.id)
        if record.hidden and not record.archived:
            raise InvalidInputError(
                f"{record.id} is {_status(record) or 'retracted'}: only live records are archived",
                id=record.id,
            )
    done = []
    when = clock.now()
    for record in records:
        if record.archived:
            done.append(record)
            continue
        changes = {"status": ARCHIVED, "archived_at": when, "archived_from": _status(record)}
        done.append(store.revise(record.id, changes, reason=reason or "archived"))
    return done


def unarchive(store: Store, ids: list[str]) -> list[Record]:
    """Put archived records back in the default views, with the status they had."""
    records = [store.get(rid) for rid in dict.fromkeys(ids)]
    for record in records:
        if not record.archived:
            raise InvalidInputError(f"{record.id} is not archived", id=record.id)
    out = []
    for record in records:
        back = record.extra.get("archived_from")
        if not isinstance(back, str) or back == ARCHIVED:
            back = DEFAULT_STATUS.get(record.kind, "active")
        out.append(store.revise(record.id, {"status": back}, reason="unarchived"))
    return out


def pin(store: Store, ids: list[str], *, pinned: bool = True) -> list[Record]:
    """Pin records (their activation never decays) or unpin them; a record already so is
    left as it is."""
    records = [store.get(rid) for rid in dict.fromkeys(ids)]
    out = []
    for record in records:
        if (record.extra.get("pinned") is True) == pinned:
            out.append(record)
            continue
        out.append(
            store.revise(record.id, {"pinned": pinned}, reason="pinned" if pinned else "unpinned")
        )
    return out


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"
