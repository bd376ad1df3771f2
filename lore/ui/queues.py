"""The queues of ``lore ui``: records waiting for a person, each with the actions its CLI
command offers, run through that command's use case (no rule lives here).

Adding a queue (stale records, consolidation proposals, ...) is one ``Queue`` in
``QUEUES``: ``available`` says whether its use cases exist in this lore (the page shows
only the queues that are), ``listing`` returns the command's ``--json`` document and
``items`` names the list inside it; the front end draws any queue from this spec alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lore.errors import UsageError
from lore.store.core import Store

Doc = Any  # a command's --json document: an object, or an array for a listing


@dataclass(frozen=True)
class Field:
    """One input of an action: ``kind`` is ``choice`` (one of ``choices``), ``text`` or
    ``flag`` (true or false)."""

    name: str
    label: str
    kind: str = "text"
    choices: tuple[str, ...] = ()
    required: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "type": self.kind,
            "choices": list(self.choices),
            "required": self.required,
        }


@dataclass(frozen=True)
class Action:
    name: str
    label: str
    run: Callable[[Store, str, dict[str, Any]], Doc]  # (store, record id, inputs)
    fields: tuple[Field, ...] = ()
    command: str = ""  # the CLI command that does the same, shown beside the button

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "command": self.command,
            "fields": [f.to_dict() for f in self.fields],
        }

    def inputs(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The record id and the inputs of a request body; UsageError for anything else."""
        record_id = body.get("id")
        if not isinstance(record_id, str) or not record_id.strip():
            raise UsageError(f'{self.name}: give the record\'s id as "id"')
        known = {f.name: f for f in self.fields}
        unknown = sorted(set(body) - {"id", *known})
        if unknown:
            raise UsageError(f"{self.name}: unknown field {', '.join(map(repr, unknown))}")
        out: dict[str, Any] = {}
        for name, spec in known.items():
            value = body.get(name)
            wanted = bool if spec.kind == "flag" else str
            if value is not None and not isinstance(value, wanted):
                raise UsageError(f"{self.name}: {name!r} must be a {wanted.__name__}")
            if spec.required and (value is None or (isinstance(value, str) and not value.strip())):
                raise UsageError(f"{self.name}: {name!r} is required")
            out[name] = value
        return record_id.strip(), out


@dataclass(frozen=True)
class Queue:
    name: str
    title: str
    about: str
    listing: Callable[[Store, int], Doc]  # (store, days) -> the command's --json document
    items: str | None  # the key of the list in the document (None: the document is it)
    actions: tuple[Action, ...] = field(default=())
    command: str = ""
    available: Callable[[], bool] = lambda: True
    on_demand: bool = False  # slow on a big store: listed when asked, not with every queue

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "about": self.about,
            "items": self.items,
            "command": self.command,
            "on_demand": self.on_demand,
            "actions": [a.to_dict() for a in self.actions],
        }

    def action(self, name: str) -> Action:
        for action in self.actions:
            if action.name == name:
                return action
        raise UsageError(f"queue {self.name} has no action {name!r}")


# --- inbox: raw observations ---------------------------------------------------------


def _inbox(store: Store, days: int) -> Doc:
    from lore.usecases.inbox import list_observations

    return list_observations(store, status="raw")


def _promote(store: Store, record_id: str, inputs: dict[str, Any]) -> Doc:
    from lore.usecases.inbox import promote

    return promote(
        store,
        record_id,
        inputs.get("to") or "",
        text=inputs.get("text"),
        source="ui",
        force=bool(inputs.get("force")),
    )


def _discard(store: Store, record_id: str, inputs: dict[str, Any]) -> Doc:
    from lore.usecases.inbox import discard

    return discard(store, record_id, reason=inputs.get("reason") or "")


# --- review: decisions pending review ------------------------------------------------


def _pending(store: Store, days: int) -> Doc:
    from lore.usecases.core import review

    return review(store, days=days)


def _resolve(store: Store, record_id: str, inputs: dict[str, Any]) -> Doc:
    from lore.usecases.core import review

    return review(
        store,
        resolve_id=record_id,
        outcome=inputs.get("outcome") or None,
        lesson=inputs.get("lesson") or None,
        force=bool(inputs.get("force")),
    )


# --- stale: advice whose files changed since it was captured ---------------------------


def _stale(store: Store, days: int) -> Doc:
    from lore.usecases.dynamics import stale

    doc = stale(store)
    for item in doc.get("stale", []):  # one line a person reads, as `lore stale` prints it
        item["staleness"] = "; ".join(_file_note(f) for f in item.get("files", []))
    return doc


def _file_note(item: dict[str, Any]) -> str:
    where = f" to {item['moved_to']}" if item.get("moved_to") else ""
    stat = f" ({item['diffstat']})" if item.get("diffstat") else ""
    return f"{item.get('path')} {item.get('state')}{where}{stat}"


def _reconfirm(store: Store, record_id: str, inputs: dict[str, Any]) -> Doc:
    from lore.usecases.dynamics import reconfirm

    return {"id": record_id, **reconfirm(store, [record_id])}


def _supersede(store: Store, record_id: str, inputs: dict[str, Any]) -> Doc:
    from lore.usecases.dynamics import supersede

    doc = supersede(store, record_id, inputs.get("text") or "")
    return {"id": doc.get("new", record_id), **doc}


def _retract(store: Store, record_id: str, inputs: dict[str, Any]) -> Doc:
    from lore.usecases.core import retract

    return retract(store, record_id, reason=inputs.get("reason") or None)


# --- consolidation proposals -------------------------------------------------------------


def _proposals(store: Store, days: int) -> Doc:
    from lore.usecases.dynamics import consolidate

    return consolidate(store)


def _apply(store: Store, proposal_id: str, inputs: dict[str, Any]) -> Doc:
    from lore.usecases.dynamics import apply_proposals

    choice = inputs.get("choice")
    doc = apply_proposals(store, [f"{proposal_id}:{choice}" if choice else proposal_id])
    [applied] = doc["applied"]
    changed = [c.get("id") for c in applied.get("changes", []) if c.get("id")]
    return {**doc, "id": applied.get("created") or (changed[0] if changed else proposal_id)}


FORCE = Field("force", "even if a near-duplicate exists (--force)", "flag")

QUEUES: tuple[Queue, ...] = (
    Queue(
        "inbox",
        "Inbox",
        "Raw observations to promote into a decision, pattern or evidence, or to discard.",
        _inbox,
        None,
        (
            Action(
                "promote",
                "Promote",
                _promote,
                (
                    Field("to", "to", "choice", ("decision", "pattern", "evidence"), True),
                    Field("text", "text (default: the observation's)"),
                    FORCE,
                ),
                "lore inbox promote ID --to KIND",
            ),
            Action(
                "discard",
                "Discard",
                _discard,
                (Field("reason", "reason", required=True),),
                "lore inbox discard ID --reason R",
            ),
        ),
        "lore inbox",
    ),
    Queue(
        "review",
        "Decisions pending review",
        "Active decisions whose outcome is still pending: say how they turned out.",
        _pending,
        "pending",
        (
            Action(
                "resolve",
                "Resolve",
                _resolve,
                (
                    Field(
                        "outcome", "outcome", "choice", ("successful", "revised", "abandoned"), True
                    ),
                    Field("lesson", "lesson learned"),
                    Field("force", "even if not active or not pending (--force)", "flag"),
                ),
                "lore review --resolve ID --outcome O",
            ),
        ),
        "lore review",
    ),
    Queue(
        "stale",
        "Stale advice",
        "Records whose files changed, moved or vanished since they were captured: reconfirm "
        "them, supersede them with what holds now, or retract them.",
        _stale,
        "stale",
        (
            Action("reconfirm", "Reconfirm", _reconfirm, (), "lore review --stale --reconfirm ID"),
            Action(
                "supersede",
                "Supersede",
                _supersede,
                (Field("text", "what holds now", required=True),),
                "lore review --stale (supersede)",
            ),
            Action("retract", "Retract", _retract, (Field("reason", "reason"),), "lore retract ID"),
        ),
        "lore stale",
    ),
    Queue(
        "consolidate",
        "Consolidation proposals",
        "Near-duplicates to merge, contradictions and merge conflicts to settle, old "
        "observations to archive, patterns and failures to review. Nothing is applied until "
        "you apply it; every change is an appended revision.",
        _proposals,
        "proposals",
        (
            Action(
                "apply",
                "Apply",
                _apply,
                (Field("choice", "keep (a settlement; default: the proposal's)", "choice"),),
                "lore consolidate --apply ID[:CHOICE]",
            ),
        ),
        "lore consolidate",
        on_demand=True,
    ),
)


def available() -> list[Queue]:
    """The queues whose use cases this lore has."""
    return [q for q in QUEUES if q.available()]


def queue(name: str) -> Queue:
    from lore.errors import NotFoundError

    for q in available():
        if q.name == name:
            return q
    raise NotFoundError(f"no queue named {name!r}", id=name)
