"""One bash-lore entry to one lore import line: its kind's fields mapped, its id kept when
it fits lore's id rules (else a stable derived id and ``legacy_id``), its links resolved,
and whatever lore has no field for kept (unknown keys as they are, clashing or unmappable
values under ``legacy``). Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, TypeGuard

from lore.bulk.bashlore_read import Item
from lore.components.journal import OUTCOMES, TYPES

SOURCE = "bash-lore"  # the `source` of an imported record that names none of its own
# After the prefix, as `lore import` keeps an id (lore.bulk_lines._ID_TAIL).
_ID_TAIL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,79}")
_SESSION_ID = re.compile(r"session-[0-9a-z][0-9a-z-]{3,63}")
_ERROR_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,79}")
# Keys every kind's mapping takes care of (lore.model.Record's common fields).
_MAPPED = frozenset({"kind", "id", "timestamp", "session_id", "project", "source", "tags"})
DECISION_TYPES = TYPES
LEVELS = ("low", "medium", "high", "critical")
CONFIDENCE = ("preliminary", "confirmed", "contested", "superseded")
DEPRECATED = "[DEPRECATED] "


class Odd(Exception):
    """An entry that cannot be mapped; its message is the reason it is skipped."""


def prefix(kind: str) -> str:
    from lore.model import kind_class

    return kind_class(kind).KIND.prefix or kind


def fits(kind: str, original: str) -> bool:
    """Whether a bash-lore id can stay the lore id of a record of ``kind``."""
    if kind == "session":
        return bool(_SESSION_ID.fullmatch(original))
    head = prefix(kind) + "-"
    return original.startswith(head) and bool(_ID_TAIL.fullmatch(original[len(head) :]))


def derived_id(kind: str, original: str) -> str:
    """The stable lore id of a record whose bash-lore id does not fit: the same original
    always gives the same id, so a second import finds it stored."""
    digest = hashlib.sha256(f"bash-lore\0{kind}\0{original}".encode()).hexdigest()
    return f"{prefix(kind)}-{digest[:12]}"


def edge_id(src: str, relation: str, dst: str) -> str:
    return derived_id("edge", f"{src}\0{relation}\0{dst}")


class Mapper:
    """Maps entries of one import; knows every id it assigned and every id already stored."""

    def __init__(self, stored: set[str]) -> None:
        self.ids: dict[str, str] = {}  # bash-lore id -> lore id
        self.stored = stored
        self.notes: list[dict[str, Any]] = []

    def assign(self, kind: str, original: str) -> str:
        known = self.ids.get(original)
        if known is None:
            known = self.ids[original] = (
                original if fits(kind, original) else derived_id(kind, original)
            )
        return known

    def resolve(self, original: Any) -> str | None:
        if not isinstance(original, str) or not original:
            return None
        found = self.ids.get(original)
        if found is not None:
            return found
        return original if original in self.stored else None

    def note(self, item: Item, message: str) -> None:
        self.notes.append({"file": item.file, "line": item.line, "note": message})

    # -- helpers -------------------------------------------------------------------

    def start(self, kind: str, item: Item, original: Any, time: Any) -> dict[str, Any]:
        if not isinstance(original, str) or not original.strip():
            raise Odd(f"a {kind} without an id")
        data = item.data
        out: dict[str, Any] = {"kind": kind, "id": self.assign(kind, original)}
        if out["id"] != original:
            out["legacy_id"] = original
        out["timestamp"] = time if isinstance(time, str) and time.strip() else None
        if out["timestamp"] is None:
            self.note(item, f"{out['id']}: no time of its own; it gets the import's")
        session = data.get("session_id")
        out["session_id"] = session if isinstance(session, str) and session else None
        out["project"] = data["project"] if isinstance(data.get("project"), str) else None
        out["tags"] = strings(data.get("tags"))
        source = data.get("source")
        out["source"] = source if isinstance(source, str) and source.strip() else SOURCE
        return out

    def refs(
        self, item: Item, out: dict[str, Any], legacy: dict[str, Any], name: str, values: Any
    ) -> list[str]:
        found, missing = [], []
        for value in strings(values):
            target = self.resolve(value)
            if target is None:
                missing.append(value)
            elif target not in found and target != out["id"]:
                found.append(target)
        if missing:
            legacy[name] = missing
            self.note(
                item, f"{out['id']} {name}: {', '.join(missing)} not in the root; kept under legacy"
            )
        return found

    def ref(
        self, item: Item, out: dict[str, Any], legacy: dict[str, Any], name: str, value: Any
    ) -> str | None:
        found = self.refs(item, out, legacy, name, [value] if value else [])
        if name in legacy:
            legacy[name] = legacy[name][0]
        return found[0] if found else None

    @staticmethod
    def finish(
        kind: str, out: dict[str, Any], data: dict[str, Any], used: set[str], legacy: dict[str, Any]
    ) -> dict[str, Any]:
        """Keys the mapping did not use: unknown ones kept as they are, ones that clash
        with a lore field (or are called ``legacy``) under ``legacy``."""
        from lore.model import kind_class

        own = {*kind_class(kind).field_names(), "legacy", "legacy_id", "extra"}
        for key, value in data.items():
            if key in used or key in out or key in _MAPPED:
                continue  # mapped (under its own name or another)
            if key in own:
                legacy.setdefault(key, value)
            else:
                out[key] = value
        if legacy:
            out["legacy"] = legacy
        return out

    # -- kinds ---------------------------------------------------------------------

    def decision(self, item: Item) -> dict[str, Any] | str:
        d = item.data
        text = d.get("decision")
        if not isinstance(text, str) or not text.strip():
            return "a decision without decision text"
        legacy: dict[str, Any] = {}
        out = self.start("decision", item, d.get("id"), d.get("timestamp"))
        out["decision"] = text
        out["rationale"] = text_of(d.get("rationale"))
        out["alternatives"] = strings(d.get("alternatives"))
        out["outcome"] = choice(d.get("outcome"), OUTCOMES, "pending", "outcome", legacy)
        out["type"] = choice(d.get("type"), DECISION_TYPES, "other", "type", legacy)
        entities = unique(strings(d.get("entities")))
        out["entities"] = entities
        # --files paths went into entities; lore keeps them in files as well.
        out["files"] = unique(strings(d.get("files")) + [e for e in entities if _is_path(e)])
        out["lesson_learned"] = text_of(d.get("lesson_learned"))
        out["related_decisions"] = self.refs(
            item, out, legacy, "related_decisions", d.get("related_decisions")
        )
        commit = d.get("git_commit")
        out["git_commit"] = commit if isinstance(commit, str) and commit else None
        status = d.get("status") or "active"
        out["status"] = choice(
            status, ("active", "retracted", "superseded"), "active", "status", legacy
        )
        out["superseded_by"] = self.ref(item, out, legacy, "superseded_by", d.get("superseded_by"))
        out["supersedes"] = self.refs(item, out, legacy, "supersedes", d.get("supersedes"))
        quality = d.get("spec_quality")
        if number(quality) and 0 <= quality <= 1:
            out["spec_quality"] = float(quality)
        elif quality is not None:
            legacy["spec_quality"] = quality
        used = {"spec_quality"}  # out of range: kept under legacy
        if out["status"] == "retracted":
            out["retracted_at"] = (
                d.get("status_changed_at") or d.get("retracted_at") or out["timestamp"]
            )
            reason = d.get("retracted_reason") or d.get("retraction_reason")
            if isinstance(reason, str) and reason:
                out["retraction_reason"] = reason
            used |= {"status_changed_at", "retracted_at", "retracted_reason", "retraction_reason"}
        return self.finish("decision", out, d, used, legacy)

    def entry_decision(self, item: Item) -> dict[str, Any] | str:
        """A journal entry (Markdown) that no decision line mirrors, as a decision."""
        d = item.data
        title = d.get("title")
        if not isinstance(title, str) or not title.strip():
            return "a journal entry without a title"
        data = {
            "decision": title,
            "rationale": d.get("body"),
            "type": d.get("type"),
            "tags": d.get("tags"),
            "project": d.get("project"),
            "timestamp": d.get("created"),
        }
        data["id"] = item.file
        mapped = self.decision(Item(item.file, item.line, data))
        if isinstance(mapped, dict):
            extra = {
                k: v
                for k, v in d.items()
                if k not in ("title", "body", "type", "tags", "project", "created")
            }
            mapped.update({k: v for k, v in extra.items() if k not in mapped})
        return mapped

    def pattern(self, item: Item) -> dict[str, Any] | str:
        d = item.data
        name = d.get("name")
        if not isinstance(name, str) or not name.strip():
            return "a pattern without a name"
        legacy: dict[str, Any] = {}
        out = self.start("pattern", item, d.get("id"), d.get("created_at") or d.get("timestamp"))
        deprecated = name.startswith(DEPRECATED) or d.get("deprecated") is True
        out["name"] = name[len(DEPRECATED) :] if name.startswith(DEPRECATED) else name
        if out["name"] != name:  # awk marked it in the name; lore has a status for that
            legacy["name"] = name
        for key in ("context", "problem", "solution", "category", "origin"):
            out[key] = text_of(d.get(key))
        confidence = d.get("confidence")
        if number(confidence) and 0 <= confidence <= 1:
            out["confidence"] = float(confidence)
        elif confidence is not None:
            legacy["confidence"] = confidence
        validations = d.get("validations")
        if isinstance(validations, int) and not isinstance(validations, bool) and validations >= 0:
            out["validations"] = validations
        elif validations is not None:
            legacy["validations"] = validations
        out["examples"] = _examples(d.get("examples"))
        status = "deprecated" if deprecated else d.get("status") or "active"
        out["status"] = choice(
            status, ("active", "retracted", "superseded", "deprecated"), "active", "status", legacy
        )
        used = {"created_at", "deprecated", "confidence", "validations"}
        return self.finish("pattern", out, d, used, legacy)

    def anti_pattern(self, item: Item) -> dict[str, Any] | str:
        # awk wrote these double-quoted with quotes escaped twice: \" is what it meant by ".
        d = {k: v.replace('\\"', '"') if isinstance(v, str) else v for k, v in item.data.items()}
        name = d.get("name")
        if not isinstance(name, str) or not name.strip():
            return "an anti-pattern without a name"
        legacy: dict[str, Any] = {}
        time = d.get("created_at") or d.get("timestamp")
        out = self.start("anti-pattern", item, d.get("id"), time)
        out["name"] = name
        for key in ("symptom", "risk", "fix", "category"):
            out[key] = text_of(d.get(key))
        out["severity"] = choice(d.get("severity"), LEVELS, "medium", "severity", legacy)
        out["status"] = choice(
            d.get("status") or "active",
            ("active", "retracted", "superseded"),
            "active",
            "status",
            legacy,
        )
        used = {"created_at"}
        return self.finish("anti-pattern", out, d, used, legacy)

    def failure(self, item: Item) -> dict[str, Any] | str:
        d = item.data
        error_type = d.get("error_type")
        if not isinstance(error_type, str) or not _ERROR_TYPE.fullmatch(error_type):
            return f"error_type {error_type!r} is not an error type lore reads"
        message = d.get("error_message") or d.get("message")
        if not isinstance(message, str) or not message.strip():
            return "a failure without an error message"
        legacy: dict[str, Any] = {}
        out = self.start("failure", item, d.get("id"), d.get("timestamp"))
        out["error_type"] = error_type
        out["error_message"] = message
        for key in ("tool", "step"):  # omitted when not given; step is a number when numeric
            value = d.get(key)
            out[key] = "" if value is None else str(value) if number(value) else text_of(value)
            if value is not None and not isinstance(value, (str, int, float)):
                legacy[key] = value
        used = {"message"}
        return self.finish("failure", out, d, used, legacy)

    def observation(self, item: Item) -> dict[str, Any] | str:
        d = item.data
        content = d.get("content")
        if not isinstance(content, str) or not content.strip():
            return "an observation without content"
        legacy: dict[str, Any] = {}
        out = self.start("observation", item, d.get("id"), d.get("timestamp"))
        out["content"] = content
        out["status"] = choice(
            d.get("status") or "raw", ("raw", "promoted", "discarded"), "raw", "status", legacy
        )
        # A signal names the promoted record's kind in promoted_to and its id in
        # promoted_target; an old observation may name the id in promoted_to.
        target = d.get("promoted_target")
        kind_word = d.get("promoted_to")
        if not target and isinstance(kind_word, str) and self.resolve(kind_word):
            target, kind_word = kind_word, None
        out["promoted_to"] = self.ref(item, out, legacy, "promoted_target", target)
        if kind_word is not None:
            legacy["promoted_to"] = kind_word
        out["discard_reason"] = text_of(d.get("discard_reason"))
        used = {"promoted_to", "promoted_target"}
        return self.finish("observation", out, d, used, legacy)

    def evidence(self, item: Item) -> dict[str, Any] | str:
        d = item.data
        content = d.get("content")
        if not isinstance(content, str) or not content.strip():
            return "evidence without content"
        legacy: dict[str, Any] = {}
        out = self.start("evidence", item, d.get("id"), d.get("timestamp"))
        out["content"] = content
        out["provenance"] = text_of(d.get("provenance"))
        out["confidence"] = choice(
            d.get("confidence"), CONFIDENCE, "preliminary", "confidence", legacy
        )
        # cited_by lists the records that cite the evidence: the records it supports.
        backed = strings(d.get("supports")) + strings(d.get("cited_by"))
        out["supports"] = self.refs(item, out, legacy, "supports", backed)
        used = {"cited_by"}
        return self.finish("evidence", out, d, used, legacy)


# --- values -------------------------------------------------------------------------------


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else ""


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v]
    return []


def mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_path(value: str) -> bool:
    return value.startswith(("/", "~/"))


def choice(
    value: Any, allowed: tuple[str, ...], default: str, name: str, legacy: dict[str, Any]
) -> str:
    """``value`` when lore allows it; else ``default``, the original kept under legacy."""
    if isinstance(value, str) and value in allowed:
        return value
    if value is not None:
        legacy[name] = value
    return default


def _examples(value: Any) -> list[str]:
    """yq wrote examples as one-key maps (``- bad: ...``, ``- good: |-``); lore keeps strings."""
    out = []
    for entry in value if isinstance(value, list) else []:
        if isinstance(entry, str):
            out.append(entry)
        elif isinstance(entry, dict):
            out.extend(f"{k}: {v}" for k, v in entry.items() if isinstance(v, str))
    return out
