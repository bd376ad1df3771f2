"""Applying a consolidation proposal (``lore consolidate --apply``): appended revisions and
new records only, each change listed. A merge keeps every member's links (reference
fields, the evidence supporting it, curated edges) and its history (the members stay,
superseded, and the merged record names them in ``merged_from``).
"""

from __future__ import annotations

from typing import Any

from lore import clock
from lore.dynamics.proposals import Proposal
from lore.errors import InvalidInputError
from lore.model import Record, kind_class
from lore.store.core import Store

MERGE_REASON = "merged into {new} (lore consolidate {proposal})"
SEVERITY_ORDER = ("low", "medium", "high", "critical")
EVIDENCE_ORDER = ("superseded", "contested", "preliminary", "confirmed")


def apply(store: Store, proposal: Proposal, choice: str | None = None) -> dict[str, Any]:
    """Apply one proposal (``choice``: what a settle keeps); returns what changed:
    {"id", "kind", "action", "created", "changes": [{"id", "change"}]}."""
    if choice is not None and proposal.action != "settle":
        raise InvalidInputError(f"{proposal.id} is not a settlement: it takes no choice")
    if proposal.action == "merge":
        created, changes = merge(store, proposal)
    elif proposal.action == "settle":
        created, changes = None, settle(store, proposal, choice)
    elif proposal.action == "archive":
        from lore.dynamics.archive import archive

        current = [store.get(r.id) for r in proposal.records]
        done = archive(store, current, reason=f"archived (lore consolidate {proposal.id})")
        created, changes = None, [{"id": r.id, "change": "archived"} for r in done]
    else:
        raise InvalidInputError(f"{proposal.id}: {proposal.action} is applied by its use case")
    return {
        "id": proposal.id,
        "kind": proposal.kind,
        "action": proposal.action,
        "created": created,
        "changes": changes,
    }


def preview(store: Store, proposal: Proposal, choice: str | None = None) -> dict[str, Any]:
    """What ``apply`` would change, in its shape, writing nothing (``--apply --dry-run``):
    ``created`` is null and a merged record is named ``(the merged record)``."""
    chosen = proposal.default if choice is None else choice
    merged = "(the merged record)"
    changes: list[dict[str, Any]] = []
    if proposal.action == "merge":
        ids = [r.id for r in proposal.records]
        changes.append({"id": merged, "change": f"created, merging {', '.join(ids)}"})
        changes.extend({"id": i, "change": f"superseded by {merged}"} for i in ids)
    elif proposal.action == "settle" and proposal.kind == "contradiction":
        loser = next(str(c) for c in proposal.choices if str(c) != str(chosen))
        changes.append({"id": loser, "change": f"superseded by {chosen}"})
        changes.append({"id": str(chosen), "change": f"kept; supersedes {loser}"})
    elif proposal.action == "settle":
        name = proposal.detail["field"]
        value = next((c for c in proposal.choices if str(c) == str(chosen)), chosen)
        changes.append({"id": proposal.records[0].id, "change": f"{name} settled on {value!r}"})
    elif proposal.action == "archive":
        current = [store.get(r.id) for r in proposal.records]
        changes.extend({"id": r.id, "change": "archived"} for r in current if not r.archived)
    else:  # promote: lore promote-failure's own work
        error_type = proposal.detail.get("error_type")
        changes.append(
            {"id": f"PITFALL: {error_type}", "change": f"created or updated from "
             f"{len(proposal.records)} failures (lore promote-failure {error_type})"}
        )  # fmt: skip
    return {
        "id": proposal.id,
        "kind": proposal.kind,
        "action": proposal.action,
        "created": None,
        "changes": changes,
    }


# --- merge -------------------------------------------------------------------------------


def _text(values: list[Any]) -> str:
    """The first non-empty text of ``values``."""
    return next((v for v in values if isinstance(v, str) and v.strip()), "")


def _union(lists: list[Any], drop: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    out: dict[str, None] = {}
    for value in lists:
        if isinstance(value, list):
            out.update((v, None) for v in value if isinstance(v, str) and v not in drop)
    return list(out)


def _keeper(members: list[Record]) -> Record:
    """The member whose content the merged record takes: the most important
    (``lore.index.weight.importance``), then the most complete (a decision's spec_quality,
    then the most distinct words in its title), then the oldest (the one the others
    restated)."""
    from lore.index import analyze
    from lore.index.weight import importance

    def rank(r: Record) -> tuple[Any, ...]:
        spec = getattr(r, "spec_quality", 0.0)
        complete = spec if isinstance(spec, (int, float)) else 0.0
        words = len(set(analyze.terms(r.title)))
        return (-importance(r.kind, r.__dict__), -complete, -words, r.timestamp, r.id)

    return min(members, key=rank)


def merged_fields(members: list[Record]) -> dict[str, Any]:
    """The merged record's fields: the keeper's content, every member's lists and links."""
    keeper = _keeper(members)
    order = [keeper, *[m for m in members if m is not keeper]]
    ids = {m.id for m in members}

    def first(name: str) -> str:
        return _text([getattr(m, name, "") for m in order])

    def union(name: str) -> list[str]:
        return _union([getattr(m, name, None) for m in order], ids)

    kind = keeper.kind
    data: dict[str, Any] = {
        "project": keeper.project,
        "tags": _union([m.tags for m in order]),
        "source": "consolidate",
    }
    if kind == "decision":
        lessons = [getattr(m, "lesson_learned", "") for m in order]
        data.update(
            decision=keeper.title,
            rationale=first("rationale"),
            alternatives=union("alternatives"),
            outcome=keeper.outcome,  # type: ignore[attr-defined]
            type=keeper.type,  # type: ignore[attr-defined]
            entities=union("entities"),
            files=union("files"),
            lesson_learned="; ".join(dict.fromkeys(x.strip() for x in lessons if x.strip())),
            related_decisions=union("related_decisions"),
            contradicts=union("contradicts"),
            git_commit=keeper.git_commit,  # type: ignore[attr-defined]
            supersedes=[m.id for m in members],
            derived_from=keeper.derived_from,  # type: ignore[attr-defined]
        )
    elif kind == "pattern":
        data.update(
            name=keeper.title,
            context=first("context"),
            problem=first("problem"),
            solution=first("solution"),
            category=first("category"),
            origin=first("origin"),
            confidence=max(float(getattr(m, "confidence", 0.5)) for m in members),
            validations=sum(int(getattr(m, "validations", 0)) for m in members),
            examples=union("examples"),
            flags=[f for m in order for f in getattr(m, "flags", [])],
        )
    elif kind == "anti-pattern":
        rank = {s: i for i, s in enumerate(SEVERITY_ORDER)}
        data.update(
            name=keeper.title,
            symptom=first("symptom"),
            risk=first("risk"),
            fix=first("fix"),
            category=first("category"),
            severity=max(
                (getattr(m, "severity", "medium") for m in members), key=lambda s: rank.get(s, 1)
            ),
        )
    elif kind == "observation":
        data.update(content=keeper.title)
    elif kind == "evidence":
        rank = {s: i for i, s in enumerate(EVIDENCE_ORDER)}
        data.update(
            content=keeper.title,
            provenance=first("provenance"),
            confidence=max(
                (getattr(m, "confidence", "preliminary") for m in members),
                key=lambda s: rank.get(s, 0),
            ),
            supports=union("supports"),
            derived_from=keeper.derived_from,  # type: ignore[attr-defined]
        )
    else:
        raise InvalidInputError(f"{kind}s are not merged")
    hashes: dict[str, Any] = {}
    for m in order:
        for entry in m.extra.get("file_hashes") or []:
            path = entry.get("path") if isinstance(entry, dict) else None
            if isinstance(path, str) and path not in hashes:
                hashes[path] = entry
    data["merged_from"] = [m.id for m in members]
    if hashes:
        data["file_hashes"] = list(hashes.values())
    return data


def merge(store: Store, proposal: Proposal) -> tuple[str, list[dict[str, Any]]]:
    """Write the merged record, then supersede each member and carry its links over."""
    from lore.capture.checks import check

    members = [store.get(r.id) for r in proposal.records]
    standing = [m for m in members if not m.hidden]
    if len(standing) < 2:
        raise InvalidInputError(
            f"{proposal.id}: its records changed since it was proposed; run lore consolidate again"
        )
    kind = members[0].kind
    cls = kind_class(kind)
    fields = merged_fields(members)
    now = clock.now()
    new = cls.from_dict({"id": clock.new_id(cls.KIND.prefix or kind), "timestamp": now, **fields})
    if kind == "decision":
        from lore.components.journal import spec_quality

        new.spec_quality = spec_quality(new)  # type: ignore[arg-type,attr-defined]
    check(new)
    store.add([new])
    reason = MERGE_REASON.format(new=new.id, proposal=proposal.id)
    changes = [{"id": new.id, "change": f"created, merging {', '.join(fields['merged_from'])}"}]
    for member in members:
        if kind == "observation":
            replaced = {"status": "promoted", "promoted_to": new.id}
        elif kind == "evidence":
            replaced = {"confidence": "superseded", "superseded_by": new.id}
        else:
            replaced = {"status": "superseded", "superseded_by": new.id}
        store.revise(member.id, replaced, reason=reason)
        changes.append({"id": member.id, "change": f"superseded by {new.id}"})
    changes.extend(_carry_links(store, {m.id for m in members}, new.id, reason))
    return new.id, changes


def _carry_links(store: Store, ids: set[str], new: str, reason: str) -> list[dict[str, Any]]:
    """Evidence supporting a member supports the merged record too; a curated edge to or
    from a member gets its twin on the merged record."""
    from lore.components.evidence import Evidence
    from lore.components.graph import Edge

    out = []
    for evidence in store.of(Evidence):
        if ids & set(evidence.supports) and new not in evidence.supports:
            store.revise(evidence.id, {"supports": [*evidence.supports, new]}, reason=reason)
            out.append({"id": evidence.id, "change": f"now also supports {new}"})
    edges = store.of(Edge)
    have = {(e.src, e.dst, e.relation) for e in edges}
    twins = []
    for edge in edges:
        if edge.src not in ids and edge.dst not in ids:
            continue
        src = new if edge.src in ids else edge.src
        dst = new if edge.dst in ids else edge.dst
        if src == dst or (src, dst, edge.relation) in have:
            continue
        have.add((src, dst, edge.relation))
        twins.append(
            Edge(
                id=clock.new_id("edge"),
                timestamp=clock.now(),
                src=src,
                dst=dst,
                relation=edge.relation,
                project=edge.project,
                source="consolidate",
            )
        )
    if twins:
        store.add(twins)
        out.extend({"id": e.id, "change": f"{e.src} {e.relation} {e.dst}"} for e in twins)
    return out


# --- settle ------------------------------------------------------------------------------


def settle(store: Store, proposal: Proposal, choice: str | None) -> list[dict[str, Any]]:
    """Keep one side: a contradiction's decision (the other is superseded by it), or a
    conflict's value (a revision in turn, which settles it)."""
    chosen = proposal.default
    if choice is not None:
        matches = [c for c in proposal.choices if str(c) == choice]
        if not matches:
            options = ", ".join(str(c) for c in proposal.choices)
            raise InvalidInputError(f"{proposal.id}: choose one of {options} (got {choice!r})")
        chosen = matches[0]
    if proposal.kind == "contradiction":
        loser = next(c for c in proposal.choices if c != chosen)
        reason = f"settled: {chosen} kept (lore consolidate {proposal.id})"
        store.revise(loser, {"status": "superseded", "superseded_by": chosen}, reason=reason)
        kept = store.get(str(chosen))
        before = list(getattr(kept, "supersedes", []) or [])
        if loser not in before:
            store.revise(str(chosen), {"supersedes": [*before, loser]}, reason=reason)
        return [
            {"id": loser, "change": f"superseded by {chosen}"},
            {"id": str(chosen), "change": f"kept; supersedes {loser}"},
        ]
    record = proposal.records[0]
    name = proposal.detail["field"]
    values = " and ".join(repr(v) for v in proposal.choices)
    reason = f"settles {name}, set to {values} on two clones (lore consolidate {proposal.id})"
    store.revise(record.id, {name: chosen}, reason=reason)
    return [{"id": record.id, "change": f"{name} settled on {chosen!r}"}]
