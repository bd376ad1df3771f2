"""``lore scan``: find credentials already stored in a data root, and mask them on request.

Reads every data file raw (each log line, each document, the quarantine files ``lore
doctor --repair`` leaves), every string and every key name in it, reports each secret with
its file, line, record id and field, and, with ``redact``, replaces it through the store:
an appended revision for a logged record, an atomic rewrite for a document or quarantine.
"""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lore.model import Dir, Log, Map, kinds
from lore.store.core import Store

REDACT_REASON = "lore scan --redact"
PURGE_HINT = (
    "the original text stays in the append-only logs' history lines and in git history: "
    "rotate these credentials, then purge the history of every clone, e.g. with "
    "`git filter-repo --replace-text <file listing the secrets>` "
    "(see docs/how-to/secrets.md)"
)


@dataclass
class Finding:
    """One secret: where it is, what it is, and whether the record's current state holds it."""

    file: str  # relative to the root
    line: int | None
    id: str | None
    field: str
    rule: str
    kind: str
    secret: str  # masked
    current: bool  # False: only an older line holds it (a later revision replaced it)
    # The record's id as stored, for --redact: ``id`` is masked when the id itself holds
    # a secret (an old import), so the report never prints one.
    record: str | None = dataclasses.field(default=None, repr=False, compare=False)
    # False where a revision cannot mask it: the record's id, a top-level key's name, the
    # name a map entry is keyed by.
    redactable: bool = dataclasses.field(default=True, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["record"], data["redactable"]
        return data


@dataclass
class ScanResult:
    root: str
    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    redacted: list[str] = field(default_factory=list)  # record ids revised by --redact

    @property
    def current(self) -> list[Finding]:
        return [f for f in self.findings if f.current]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": not self.current,
            "root": self.root,
            "files": self.files,
            "found": len(self.current),
            "in_history": len(self.findings) - len(self.current),
            "findings": [f.to_dict() for f in self.findings],
            "redacted": self.redacted,
        }


def mask(secret: str) -> str:
    """Enough of a secret to recognise it, never enough to use it: ``AKIA…(20 chars)``."""
    keep = 4 if len(secret) >= 16 else 2 if len(secret) >= 8 else 0
    return f"{secret[:keep]}…({len(secret)} chars)"


def scan(store: Store, *, redact: bool = False) -> ScanResult:
    """Every secret in the root; with ``redact``, mask each one the current state holds."""
    result = ScanResult(root=str(store.path))
    for cls in kinds().values():
        storage = cls.KIND.storage
        location = store.location(cls)
        if isinstance(storage, Log):
            if location.is_file():
                result.files += 1
                _scan_log(store, location, result)
        elif isinstance(storage, Dir):
            if location.is_dir():
                for file in sorted(location.glob(f"*{storage.suffix}")):
                    result.files += 1
                    _scan_document(store, file, file.name[: -len(storage.suffix)], result)
        elif isinstance(storage, Map) and location.is_file():
            result.files += 1
            _scan_map(store, location, storage, result)
    for file in _quarantine_files(store):
        result.files += 1
        _scan_quarantine(store, file, result)
    if redact:
        from lore.upkeep.doctor import QUARANTINE_SUFFIX

        result.redacted = _redact(store, result.current)
        done = set(result.redacted)
        for finding in result.findings:
            if finding.record in done and finding.redactable:
                finding.current = False
        for moved in {f.file for f in result.current if f.file.endswith(QUARANTINE_SUFFIX)}:
            _redact_quarantine(store.path / moved, store.path)
            for finding in result.findings:
                if finding.file == moved:
                    finding.current = False
    return result


def _relative(store: Store, file: Path) -> str:
    try:
        return str(file.relative_to(store.path))
    except ValueError:
        return str(file)


def _finding(
    file: str,
    line: int | None,
    record_id: str | None,
    path: str,
    rule: str,
    secret: str,
    *,
    current: bool = True,
    redactable: bool = True,
) -> Finding:
    from lore.secrets.gate import RULES, redact

    shown = redact(record_id) if record_id else record_id
    redactable = redactable and path != "id" and not path.startswith("<key ")
    return Finding(
        file,
        line,
        shown,
        path,
        rule,
        RULES[rule],
        mask(secret),
        current,
        record=record_id,
        redactable=redactable,
    )


def _scan_log(store: Store, file: Path, result: ScanResult) -> None:
    from lore.secrets.gate import locate, scan_text
    from lore.storage import jsonl

    name = _relative(store, file)
    raw = file.read_bytes()
    rows, issues = jsonl.parse(raw, name)
    lines = raw.split(b"\n")
    for issue in issues:  # a line that does not parse may still hold a secret
        text = lines[issue.line - 1].decode("utf-8", "replace") if issue.line else ""
        for found in scan_text(text):
            result.findings.append(
                Finding(name, issue.line, None, "", found.rule, found.kind, "…", True)
            )
    for number, obj in rows:
        record_id = obj.get("id") if isinstance(obj.get("id"), str) else None
        revision = obj.get("_op") is not None
        fields = obj.get("set") if revision else obj
        if isinstance(fields, dict):
            for path, rule, secret in locate(fields):
                current = _still_holds(store, record_id, path, secret)
                result.findings.append(
                    _finding(name, number, record_id, path, rule, secret, current=current)
                )
        if revision:  # the line's own texts (a reason): history, no revision can mask them
            own = {k: v for k, v in obj.items() if k not in ("_op", "id", "timestamp", "set")}
            for path, rule, secret in locate(own):
                result.findings.append(
                    _finding(name, number, record_id, path, rule, secret, current=False)
                )


def _still_holds(store: Store, record_id: str | None, path: str, secret: str) -> bool:
    """Whether the record's latest state still holds ``secret`` in ``path``'s top field."""
    if record_id is None:
        return True
    record = store.find(record_id)
    if record is None:
        return True  # a dangling line: nothing folds it away
    state = record.to_dict()
    if path.startswith("<key "):  # a top-level key name
        return any(secret in key for key in state)
    top = path.split(".", 1)[0].split("[", 1)[0]
    return _contains(state.get(top), secret)


def _contains(value: Any, secret: str) -> bool:
    if isinstance(value, str):
        return secret in value
    if isinstance(value, dict):
        return any(
            (isinstance(k, str) and secret in k) or _contains(v, secret) for k, v in value.items()
        )
    if isinstance(value, (list, tuple)):
        return any(_contains(v, secret) for v in value)
    return False


def _line_of(text: str, secret: str) -> int:
    """The line of ``text`` where ``secret`` starts (its first line, for a PEM block)."""
    first = secret.splitlines()[0] if secret else ""
    at = text.find(first) if first else -1
    if at < 0:  # escaped in JSON ("\n" as two characters), folded in YAML: not findable
        return 1
    return text.count("\n", 0, at) + 1


def _scan_document(store: Store, file: Path, record_id: str, result: ScanResult) -> None:
    from lore.errors import DataError
    from lore.secrets.gate import locate, scan_text
    from lore.store.documents import read_document

    name = _relative(store, file)
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    try:
        data = read_document(file)
    except (OSError, DataError):  # unreadable as a record: still look at its text
        for found in scan_text(text):
            result.findings.append(Finding(name, 1, None, "", found.rule, found.kind, "…", True))
        return
    stored = data.get("id")
    if isinstance(stored, str):
        record_id = stored
    for path, rule, secret in locate(data):
        result.findings.append(
            _finding(name, _line_of(text, secret), record_id, path, rule, secret)
        )


def _scan_map(store: Store, file: Path, storage: Map, result: ScanResult) -> None:
    from lore.errors import DataError
    from lore.secrets.gate import locate, scan_text
    from lore.storage import yamlio

    name = _relative(store, file)
    text = file.read_text(encoding="utf-8", errors="replace")
    try:
        doc = yamlio.to_plain(yamlio.load(file))
    except (OSError, DataError):  # unreadable as a map: still look at its text
        for found in scan_text(text):
            result.findings.append(Finding(name, 1, None, "", found.rule, found.kind, "…", True))
        return
    entries = doc.get(storage.key) if isinstance(doc, dict) else None
    if not isinstance(entries, dict):
        return
    for key, entry in entries.items():
        # The key is the entry's name (a project's): scanned as its "name", which only an
        # edit of the file renames.
        for path, rule, secret in locate({"name": str(key)}):
            line = _line_of(text, secret)
            result.findings.append(
                _finding(name, line, str(key), path, rule, secret, redactable=False)
            )
        for path, rule, secret in locate(entry if isinstance(entry, dict) else {}):
            result.findings.append(
                _finding(name, _line_of(text, secret), str(key), path, rule, secret)
            )


def _quarantine_files(store: Store) -> list[Path]:
    """The ``*.quarantine`` files beside the logs: lines ``lore doctor --repair`` moved."""
    from lore.upkeep.doctor import QUARANTINE_SUFFIX

    found: list[Path] = []
    for cls in kinds().values():
        if isinstance(cls.KIND.storage, Log):
            path = store.location(cls)
            quarantine = path.with_name(path.name + QUARANTINE_SUFFIX)
            if quarantine.is_file() and quarantine not in found:
                found.append(quarantine)
    return found


def _scan_quarantine(store: Store, file: Path, result: ScanResult) -> None:
    """Each moved line's text (and anything else in the entry), as it stands."""
    from lore.secrets.gate import locate, scan_text
    from lore.storage import jsonl

    name = _relative(store, file)
    raw = file.read_bytes()
    rows, issues = jsonl.parse(raw, name)
    lines = raw.split(b"\n")
    for issue in issues:
        text = lines[issue.line - 1].decode("utf-8", "replace") if issue.line else ""
        for found in scan_text(text):
            result.findings.append(
                Finding(name, issue.line, None, "", found.rule, found.kind, "…", True)
            )
    for number, obj in rows:
        entry = {k: v for k, v in obj.items() if k != "bytes_base64"}  # the text, encoded
        for path, rule, secret in locate(entry):
            result.findings.append(_finding(name, number, None, path, rule, secret))


def _redact_quarantine(path: Path, within: Path) -> None:
    """Mask each entry's text (and its bytes) in a quarantine file, atomically, under its
    lock: a moved line keeps its place and reason, not its credential."""
    import base64

    import orjson

    from lore.secrets.gate import redact_value
    from lore.storage.atomic import atomic_write
    from lore.storage.lock import locked

    with locked(path):
        raw = path.read_bytes()
        out: list[bytes] = []
        for line in raw.split(b"\n"):
            try:
                obj = orjson.loads(line) if line.strip() else None
            except orjson.JSONDecodeError:
                obj = None
            if not isinstance(obj, dict):
                out.append(line)
                continue
            masked = redact_value({k: v for k, v in obj.items() if k != "bytes_base64"})
            if masked != {k: v for k, v in obj.items() if k != "bytes_base64"}:
                if isinstance(masked.get("text"), str):
                    masked["bytes_base64"] = base64.b64encode(
                        masked["text"].encode("utf-8")
                    ).decode("ascii")
                masked["redacted"] = REDACT_REASON
                out.append(orjson.dumps(masked))
            else:
                out.append(line)
        atomic_write(path, b"\n".join(out), within=within)


def _redact(store: Store, findings: list[Finding]) -> list[str]:
    """Mask every current finding: one change per record, touching only its own fields."""
    from lore.secrets.gate import redact_value

    fields: dict[str, set[str]] = {}
    for finding in findings:
        if finding.record is None or not finding.redactable:
            continue  # a line that does not parse: `lore doctor --repair` quarantines it
        top = finding.field.split(".", 1)[0].split("[", 1)[0]
        fields.setdefault(finding.record, set()).add(top)
    done = []
    for record_id, names in fields.items():

        def change(state: dict[str, Any], names: set[str] = names) -> dict[str, Any]:
            return {n: redact_value(state[n], n) for n in sorted(names) if n in state}

        store.update(record_id, change, reason=REDACT_REASON)
        done.append(record_id)
    return done
