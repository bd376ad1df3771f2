"""``lore consolidate``: what would tend the memory, as proposals that are never applied by
themselves (``lore.dynamics.apply`` writes the one asked for). Five kinds:

- ``duplicate``: near-duplicates (``lore.dynamics.similar``) of a decision, pattern,
  anti-pattern, raw observation or evidence -> one merged record superseding them;
- ``contradiction``: two standing decisions of one project making opposite choices on the
  same subject (or linked by ``contradicts`` at capture) -> keep one (default: the newer);
- ``conflict``: a field two clones set differently (``lore.dynamics.conflicts``) -> keep
  one value (default: the one the merge kept);
- ``archive``: raw observations (ingested candidates included) older than the age
  (``--archive-after``, default ARCHIVE_AFTER), per project -> archive them;
- ``review``: patterns never validated past that age and flagged patterns (-> archive
  them), failure types past the Rule of Three without a pattern (-> promote-failure).

A proposal's id is its kind's prefix and a hash of what it is about (the records, the
field), so the same proposal keeps its id from one run to the next.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lore import clock, timeexpr
from lore.errors import UsageError
from lore.model import Record, kind_class
from lore.store.core import Store

KINDS = ("duplicate", "contradiction", "conflict", "archive", "review")
PREFIX = {
    "duplicate": "dup",
    "contradiction": "ctr",
    "conflict": "cfl",
    "archive": "arc",
    "review": "rev",
}
DUPLICATE_KINDS = ("decision", "pattern", "anti-pattern", "observation", "evidence")
ARCHIVE_AFTER = "30d"


@dataclass
class Proposal:
    id: str
    kind: str  # one of KINDS
    action: str  # merge | settle | archive | promote
    summary: str
    records: list[Record]
    choices: list[Any] = field(default_factory=list)  # settle: what can be kept
    default: Any = None  # settle: what --apply keeps without a choice
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "action": self.action,
            "summary": self.summary,
            "records": [brief(r) for r in self.records],
            "choices": self.choices,
            "default": self.default,
            "detail": self.detail,
        }


def brief(record: Record) -> dict[str, Any]:
    return {
        "id": record.id,
        "type": record.kind,
        "title": " ".join(record.title.split()),
        "timestamp": record.timestamp,
        "status": getattr(record, "status", record.extra.get("status")),
    }


def proposal_id(kind: str, *parts: str) -> str:
    try:
        from _sha1 import sha1
    except ImportError:  # an interpreter without it
        from hashlib import sha1
    digest = sha1("\0".join((kind, *parts)).encode("utf-8")).hexdigest()[:10]
    return f"{PREFIX[kind]}-{digest}"


def check_kinds(names: list[str] | tuple[str, ...]) -> tuple[set[str], set[str]]:
    """``--kind`` values: proposal kinds (duplicate, ..., review; plurals too) and record
    kinds (decision, observation, ...); returns (proposal kinds, record kinds)."""
    mine, records = set(), set()
    for name in names:
        word = name.strip().lower()
        single = word[:-1] if word.endswith("s") and word[:-1] in KINDS else word
        if single in KINDS:
            mine.add(single)
            continue
        try:
            records.add(kind_class(word).KIND.name)
        except UsageError:
            raise UsageError(
                f"unknown kind {name!r}: a proposal kind ({', '.join(KINDS)}) or a record kind"
            ) from None
    return mine, records


def gather(
    store: Store,
    *,
    kinds: list[str] | tuple[str, ...] = (),
    since: str | None = None,
    archive_after: str = ARCHIVE_AFTER,
) -> list[Proposal]:
    """Every proposal, in the order of KINDS (each kind oldest first)."""
    wanted, record_kinds = check_kinds(list(kinds))
    since_epoch = timeexpr.since(since)
    cutoff = timeexpr.since(archive_after, flag="--archive-after")
    assert cutoff is not None
    out: list[Proposal] = []

    def on(kind: str) -> bool:
        return not wanted or kind in wanted

    live = {k: store.records(k) for k in DUPLICATE_KINDS if not record_kinds or k in record_kinds}
    items: dict[str, list[Any]] = {}  # each record as similarity compares it, made once
    if on("duplicate"):
        out.extend(_duplicates(live, items))
    if on("contradiction") and "decision" in live:
        out.extend(_contradictions(store, live["decision"], items))
    if on("conflict"):
        out.extend(_conflicts(store, record_kinds))
    if on("archive") and "observation" in live:
        out.extend(_archive(live["observation"], cutoff, archive_after))
    if on("review"):
        out.extend(_review(store, live, cutoff, archive_after, record_kinds))
    if since_epoch is not None:
        out = [p for p in out if any(clock.epoch(r.timestamp) >= since_epoch for r in p.records)]
    return out


# --- duplicates and contradictions ------------------------------------------------------


def _items(kind: str, records: list[Record], cache: dict[str, list[Any]]) -> list[Any]:
    from lore.dynamics import similar

    if kind not in cache:
        cache[kind] = [similar.item(r, r.title) for r in records if r.title.strip()]
    return cache[kind]


def _duplicates(live: dict[str, list[Record]], cache: dict[str, list[Any]]) -> list[Proposal]:
    from lore.dynamics import similar

    out = []
    for kind, records in live.items():
        items = _items(kind, records, cache)
        if kind == "observation":
            items = [it for it in items if getattr(it.record, "status", "") == "raw"]
        for members, score in similar.clusters(items):
            ids = sorted(m.id for m in members)
            first = members[0].record
            out.append(
                Proposal(
                    proposal_id("duplicate", *ids),
                    "duplicate",
                    "merge",
                    f"merge {len(members)} {kind}s into one: {_short(first.title)}",
                    [m.record for m in members],
                    detail={"similarity": round(score, 4), "kind": kind},
                )
            )
    return out


def _contradictions(
    store: Store, decisions: list[Record], cache: dict[str, list[Any]]
) -> list[Proposal]:
    from lore.dynamics import similar

    standing = [d for d in decisions if getattr(d, "status", "") == "active"]
    by_id = {d.id: d for d in standing}
    found: dict[tuple[str, str], tuple[Record, Record, str]] = {}
    for d in standing:  # linked at capture: both name the same files
        for other in getattr(d, "contradicts", []) or []:
            if other in by_id:
                older, newer = sorted((d, by_id[other]), key=lambda r: (r.timestamp, r.id))
                found[(older.id, newer.id)] = (older, newer, "they name the same files")
    items = _items("decision", decisions, cache)
    for a, b, _ in similar.opposites(items, lambda it: it.id in by_id):
        found.setdefault((a.id, b.id), (a.record, b.record, "opposite choices on one subject"))
    out = []
    for (old_id, new_id), (older, newer, why) in sorted(found.items()):
        out.append(
            Proposal(
                proposal_id("contradiction", old_id, new_id),
                "contradiction",
                "settle",
                f"{why}: keep one of {old_id} or {new_id} (default: the newer, {new_id})",
                [older, newer],
                choices=[old_id, new_id],
                default=new_id,
                detail={"reason": why},
            )
        )
    return out


# --- conflicts after a merge -------------------------------------------------------------


def _conflicts(store: Store, record_kinds: set[str]) -> list[Proposal]:
    from lore.dynamics.conflicts import from_index
    from lore.index.persist import open_index

    out = []
    found_all = sorted(
        from_index(store, open_index(store)), key=lambda d: (d.second.timestamp, d.id, d.field)
    )
    for found in found_all:
        if record_kinds and found.kind not in record_kinds:
            continue
        record = store.find(found.id)
        if record is None:
            continue
        values = [found.first.value, found.second.value]
        out.append(
            Proposal(
                proposal_id("conflict", found.id, found.field, *map(str, values)),
                "conflict",
                "settle",
                f"{found.id} {found.field} was set to {values[0]!r} and {values[1]!r} on two "
                f"clones: keep one (default: {values[1]!r}, the one the merge kept)",
                [record],
                choices=values,
                default=found.second.value,
                detail={"field": found.field, **found.to_dict()},
            )
        )
    return out


# --- archive and review ------------------------------------------------------------------


def _by_project(records: list[Record]) -> dict[str | None, list[Record]]:
    groups: dict[str | None, list[Record]] = {}
    for r in sorted(records, key=lambda r: (r.timestamp, r.id)):
        groups.setdefault(r.project if isinstance(r.project, str) else None, []).append(r)
    return groups


def _old(record: Record, cutoff: float) -> bool:
    return clock.epoch(record.timestamp) < cutoff and record.extra.get("pinned") is not True


def _archive(observations: list[Record], cutoff: float, age: str) -> list[Proposal]:
    out = []
    raw = [o for o in observations if getattr(o, "status", "") == "raw" and _old(o, cutoff)]
    for candidates in (False, True):
        chosen = [o for o in raw if ("candidate" in o.tags) == candidates]
        what = "unconfirmed ingested candidates" if candidates else "raw observations"
        for project, records in _by_project(chosen).items():
            ids = [r.id for r in records]
            where = f" of {project}" if project else ""
            out.append(
                Proposal(
                    proposal_id("archive", what, *ids),
                    "archive",
                    "archive",
                    f"archive {_n(len(ids), what)}{where} older than {age}",
                    records,
                    detail={"reason": what, "project": project, "older_than": age},
                )
            )
    return out


def _review(
    store: Store,
    live: dict[str, list[Record]],
    cutoff: float,
    age: str,
    record_kinds: set[str],
) -> list[Proposal]:
    out = []
    patterns = live.get("pattern", [])
    never = [p for p in patterns if not getattr(p, "validations", 0) and _old(p, cutoff)]
    flagged = [p for p in patterns if getattr(p, "flags", None)]
    for what, chosen in (("never validated", never), ("flagged", flagged)):
        for project, records in _by_project(chosen).items():
            ids = [r.id for r in records]
            where = f" of {project}" if project else ""
            when = f" in {age}" if what == "never validated" else ""
            out.append(
                Proposal(
                    proposal_id("review", what, *ids),
                    "review",
                    "archive",
                    f"review {_n(len(ids), 'patterns')}{where} {what}{when}: archive "
                    f"{'it' if len(ids) == 1 else 'them'}",
                    records,
                    detail={"reason": f"patterns {what}", "project": project},
                )
            )
    if not record_kinds or "failure" in record_kinds:
        out.extend(_unnamed_failures(store))
    return out


def _unnamed_failures(store: Store) -> list[Proposal]:
    """Failure types past the Rule of Three that no PITFALL and no pattern tagged with the
    type names yet."""
    from lore.capture.failure_rules import recurring_failures
    from lore.components.failures import RULE_OF_THREE

    named = {
        t
        for kind in ("pattern", "anti-pattern")
        for r in store.records(kind)
        for t in r.tags
        if isinstance(t, str)
    }
    out = []
    due_types = [
        due
        for due in recurring_failures(store, threshold=RULE_OF_THREE)
        if not due["pitfall"] and due["error_type"] not in named
    ]
    by_type: dict[str, list[Record]] = {}
    if due_types:
        for f in store.records("failure"):  # read once, for every type due
            by_type.setdefault(str(getattr(f, "error_type", "")), []).append(f)
    for due in due_types:
        error_type = due["error_type"]
        failures = sorted(by_type.get(error_type, []), key=lambda f: (f.timestamp, f.id))
        out.append(
            Proposal(
                proposal_id("review", "rule of three", error_type),
                "review",
                "promote",
                f"review {due['count']} {error_type} failures with no pattern: "
                f"promote them to a PITFALL (lore promote-failure {error_type})",
                failures,
                detail={
                    "reason": "rule of three",
                    "error_type": error_type,
                    "count": due["count"],
                },
            )
        )
    return out


def _short(title: str) -> str:
    return " ".join(title.split())[:80]


def _n(count: int, words: str) -> str:
    """``1 raw observation``, ``2 raw observations`` (``words`` given in the plural)."""
    if count == 1:
        words = words.replace("candidates", "candidate").replace("observations", "observation")
        words = words.replace("patterns", "pattern")
    return f"{count} {words}"
