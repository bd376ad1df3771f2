"""``lore scan``: find credentials already stored in a data root, and mask them on request.

Reads every data file raw (each log line, each document), reports each secret with its
file, line, record id and field, and, with ``redact``, replaces it through the store:
an appended revision for a logged record, an atomic rewrite for a document.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lore.model import Dir, Log, Map, kinds
from lore.store.core import Store

SKIPPED_KEYS = ("id", "timestamp", "v", "git_commit")
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
            "findings": [asdict(f) for f in self.findings],
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
    if redact:
        result.redacted = _redact(store, result.current)
        done = set(result.redacted)
        for finding in result.findings:
            if finding.id in done:
                finding.current = False
    return result


def _relative(store: Store, file: Path) -> str:
    try:
        return str(file.relative_to(store.path))
    except ValueError:
        return str(file)


def _fields(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in SKIPPED_KEYS}


def _scan_log(store: Store, file: Path, result: ScanResult) -> None:
    from lore.secrets.gate import RULES, locate, scan_text
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
        fields = obj.get("set") if revision else _fields(obj)
        if not isinstance(fields, dict):
            continue
        for path, rule, secret in locate(fields):
            current = _still_holds(store, record_id, path, secret)
            result.findings.append(
                Finding(name, number, record_id, path, rule, RULES[rule], mask(secret), current)
            )


def _still_holds(store: Store, record_id: str | None, path: str, secret: str) -> bool:
    """Whether the record's latest state still holds ``secret`` in ``path``'s top field."""
    if record_id is None:
        return True
    record = store.find(record_id)
    if record is None:
        return True  # a dangling line: nothing folds it away
    top = path.split(".", 1)[0].split("[", 1)[0]
    value = record.to_dict().get(top)
    return _contains(value, secret)


def _contains(value: Any, secret: str) -> bool:
    if isinstance(value, str):
        return secret in value
    if isinstance(value, dict):
        return any(_contains(v, secret) for v in value.values())
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
    from lore.secrets.gate import RULES, locate, scan_text
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
    for path, rule, secret in locate(_fields(data)):
        result.findings.append(
            Finding(
                name, _line_of(text, secret), record_id, path, rule, RULES[rule], mask(secret), True
            )
        )


def _scan_map(store: Store, file: Path, storage: Map, result: ScanResult) -> None:
    from lore.errors import DataError
    from lore.secrets.gate import RULES, locate
    from lore.storage import yamlio

    name = _relative(store, file)
    text = file.read_text(encoding="utf-8", errors="replace")
    try:
        doc = yamlio.to_plain(yamlio.load(file))
    except (OSError, DataError):
        return
    entries = doc.get(storage.key) if isinstance(doc, dict) else None
    if not isinstance(entries, dict):
        return
    for key, entry in entries.items():
        if not isinstance(entry, dict):
            continue
        for path, rule, secret in locate(_fields(entry)):
            result.findings.append(
                Finding(
                    name,
                    _line_of(text, secret),
                    str(key),
                    path,
                    rule,
                    RULES[rule],
                    mask(secret),
                    True,
                )
            )


def _redact(store: Store, findings: list[Finding]) -> list[str]:
    """Mask every current finding: one change per record, touching only its own fields."""
    from lore.secrets.gate import redact_value

    fields: dict[str, set[str]] = {}
    for finding in findings:
        if finding.id is None:
            continue  # a line that does not parse: `lore doctor --repair` quarantines it
        top = finding.field.split(".", 1)[0].split("[", 1)[0]
        fields.setdefault(finding.id, set()).add(top)
    done = []
    for record_id, names in fields.items():

        def change(state: dict[str, Any], names: set[str] = names) -> dict[str, Any]:
            return {n: redact_value(state[n], n) for n in sorted(names) if n in state}

        store.update(record_id, change, reason=REDACT_REASON)
        done.append(record_id)
    return done
