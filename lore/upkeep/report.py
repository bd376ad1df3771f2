"""``lore validate``'s report: ``Issue``, ``Report``, the severities and ``CODES`` (the
checks that produce them are in ``lore.upkeep.validate_files`` and
``lore.upkeep.validate_records``; ``lore.upkeep.validate`` runs them).

Reads raw bytes (no locks, no caches), so a half-finished append shows as a torn
line rather than blocking. Each problem becomes an :class:`Issue` with one of ``CODES``:

- ``parse`` (error): a JSONL line, YAML or JSON document that does not parse, or the wrong shape
- ``conflict-marker`` (error): a git conflict marker line (``<<<<<<<``, ``=======``, ``>>>>>>>``)
- ``torn-line`` (warning): an unterminated, unparseable last JSONL line (an interrupted write)
- ``not-utf8`` (error): bytes that are not UTF-8 text (or NUL bytes: a binary file)
- ``unreadable`` (error): the file exists but cannot be read (permissions)
- ``schema`` (error): a field breaks the kind's rules (``Record.problems()``), or a malformed
  revision line (one without a valid timestamp is only a warning); a retracted record's
  fields and references are not checked, only its id
- ``bad-id`` (error): an id that is missing, not a string, or lacks the kind's prefix
- ``duplicate-id`` (error): two different records with one id (in one log, or across files)
- ``id-mismatch`` (error): a document whose file name (or a project whose key) is not its id
- ``dangling-reference`` (error): a field pointing at an id no record has
- ``reference-kind`` (error): a field pointing at a record of the wrong kind
- ``dangling-revision`` (error): a revision line for an id with no creation line in its log
- ``duplicate-line`` (warning): a line identical to an earlier one (a union merge; read once)
- ``unknown-file`` (warning): a file in a component's data dir that lore does not read
- ``unknown-relation`` (warning): a curated edge whose relation is not in the graph's
  vocabulary (``lore.graph.rules``): the graph leaves it out
- ``divergent-value`` (warning): two revisions of one record set a field two clones may set
  at once (a kind's ``DIVERGENT`` fields: outcome, status, confidence, pinned) to different
  values without either having seen the other (two clones merged): both values are named,
  the later is kept until a revision settles it (``lore consolidate`` proposes one)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

ERROR = "error"
WARNING = "warning"

# code -> meaning, read from the list above so the two cannot drift.
CODES: dict[str, str] = {
    code: " ".join(meaning.split())
    for code, meaning in re.findall(
        r"^- ``([a-z0-9-]+)`` \((?:error|warning)\): (.+(?:\n  .+)*)", __doc__ or "", re.MULTILINE
    )
}

IGNORED_DIRS = frozenset({".lore-cache"})
IGNORED_NAMES = frozenset({".gitkeep"})
# Sidecar locks, atomic-write leftovers and `lore doctor --repair`'s quarantine files
# (`lore doctor` reports those three itself).
IGNORED_SUFFIXES = (".lock", ".tmp", ".quarantine")


@dataclass(frozen=True)
class Issue:
    severity: str  # "error" or "warning"
    code: str  # one of CODES
    file: str  # relative to the data root, with "/"
    line: int | None
    message: str
    id: str | None = None
    field: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "file": self.file,
            "line": self.line,
            "id": self.id,
            "field": self.field,
            "message": self.message,
        }

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.severity}: {self.message} [{self.code}]"


@dataclass
class Report:
    root: str
    issues: list[Issue]
    counts: dict[str, int]  # records per kind (hidden ones included)
    checked: int  # data files read

    @property
    def errors(self) -> int:
        return sum(1 for i in self.issues if i.severity == ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for i in self.issues if i.severity == WARNING)

    @property
    def ok(self) -> bool:
        return self.errors == 0

    @property
    def records(self) -> int:
        return sum(self.counts.values())

    def summary(self) -> str:
        """``N errors, M warnings in K files (X records)``."""
        files = len({i.file for i in self.issues})
        return (
            f"{_plural(self.errors, 'error')}, {_plural(self.warnings, 'warning')} "
            f"in {_plural(files, 'file')} ({_plural(self.records, 'record')})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "root": self.root,
            "errors": self.errors,
            "warnings": self.warnings,
            "issues": [i.to_dict() for i in self.issues],
            "counts": dict(self.counts),
        }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
