"""failures: what went wrong? Failures in ``failures/data/failures.jsonl``.

Error types are free identifiers; ``RECOMMENDED_TYPES`` is the documented vocabulary.
Three or more failures of one type is the Rule of Three: a pattern worth naming.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lore.components.provenance import provenance_field
from lore.model import Kind, Log, Record, register, text

RECOMMENDED_TYPES = {
    "UserDeny": "the user declined a proposed action",
    "HardDeny": "a policy or sandbox blocked the action outright",
    "NonZeroExit": "a command exited with a non-zero status",
    "Timeout": "an operation ran out of time",
    "ToolError": "a tool or API call itself failed",
    "LogicError": "the approach was wrong (an abandoned decision, a wrong assumption)",
    "PermissionError": "missing file, network or account permissions",
    "EnvironmentError": "the environment was missing something (package, variable, service)",
    "UserError": "the request or input was wrong",
    # The classification `lore ingest` gives failed shell commands (lore.ingest.rules).
    "Interrupted": "the user stopped the command while it ran",
    "CommandNotFound": "the program is not installed or not on PATH",
    "NetworkError": "a host could not be reached",
    "UsageError": "the command was called wrongly (unknown flag, bad argument)",
    "TestFailure": "tests ran and some failed (or did not run)",
    "LintError": "a linter, formatter check or type checker found problems",
    "BuildError": "a build, compilation or dependency install failed",
    "GitError": "git (or gh) refused or failed",
    "MissingFile": "a file or directory the command needed was not there",
    "RuntimeError": "a program raised an uncaught exception or crashed",
}
RULE_OF_THREE = 3
ERROR_TYPE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]{0,79}$")


@register
@dataclass(kw_only=True, eq=False, repr=False)  # Record defines both, once
class Failure(Record):
    KIND = Kind(
        "failure",
        "fail",
        "failures",
        Log("failures.jsonl"),
        title="error_message",
        search=("error_type", "error_message", "tool", "step", "tags"),
    )

    error_type: str = text(required=True)
    error_message: str = text(required=True)
    tool: str = ""
    step: str = ""
    provenance: dict[str, Any] | None = provenance_field()

    def problems(self) -> list[tuple[str, str]]:
        found = super().problems()
        if (
            isinstance(self.error_type, str)
            and self.error_type
            and not ERROR_TYPE_RE.match(self.error_type)
        ):
            found.append(
                (
                    "error_type",
                    "must be an identifier: a letter, then letters, digits or _ . : - "
                    f"(at most 80 characters; got {self.error_type!r})",
                )
            )
        return found


_VOCABULARY = {name.lower(): name for name in RECOMMENDED_TYPES}


def canonical_type(name: str) -> str:
    """``name`` in the vocabulary's spelling when it is a recommended type in any case
    (``nonzeroexit`` -> ``NonZeroExit``); otherwise ``name`` as given."""
    return _VOCABULARY.get(name.lower(), name) if isinstance(name, str) else name


def near_types(name: str, known: Iterable[str]) -> list[str]:
    """The known error types within an edit or two of ``name`` (letter case ignored),
    closest first: one edit for names under 6 characters, two from 6, none under 3."""
    if name in known or len(name) < 3:
        return []
    limit = 1 if len(name) < 6 else 2
    lowered = name.lower()
    found = []
    for other in set(known):
        if other == name or not other:
            continue
        distance = _distance(lowered, other.lower(), limit)
        if distance <= limit:
            found.append((distance, other))
    return [other for _, other in sorted(found)]


def _distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of ``a`` and ``b``, or ``limit + 1`` once it must exceed it
    (types are short and few: plain Python, no rapidfuzz import on the capture path)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]
