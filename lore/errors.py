"""Typed errors and their exit codes: the only way the core reports failure.

The core raises these and never prints or exits; ``lore.cli`` renders them and
turns ``exit_code`` into the process exit status documented in LORE_CONTRACT.md.
"""

from __future__ import annotations

from typing import Any

# Exit codes (documented in LORE_CONTRACT.md; pinned by tests/contract tests).
EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_INVALID = 4
EXIT_LOCK_TIMEOUT = 5
EXIT_DUPLICATE = 6
EXIT_SECRET = 7
EXIT_CONFLICT = 8
EXIT_INTERRUPTED = 130


class LoreError(Exception):
    """Base class: a message for people plus a stable ``code`` for machines."""

    exit_code = EXIT_ERROR
    code = "error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        return {"ok": False, "error": self.message, "code": self.code, **self.details}


class UsageError(LoreError):
    """The request itself is wrong (missing text, conflicting flags)."""

    exit_code = EXIT_USAGE
    code = "usage"


class NotFoundError(LoreError):
    exit_code = EXIT_NOT_FOUND
    code = "not_found"


class InvalidInputError(LoreError):
    """Input or stored data that does not fit the schema; names the file/line/field."""

    exit_code = EXIT_INVALID
    code = "invalid"


class DataError(InvalidInputError):
    """A data file on disk cannot be read or updated safely (parse error, conflict markers)."""

    code = "data"


class LockTimeoutError(LoreError):
    exit_code = EXIT_LOCK_TIMEOUT
    code = "lock_timeout"


class DuplicateError(LoreError):
    """A near-duplicate of an existing record; ``existing_id`` names it."""

    exit_code = EXIT_DUPLICATE
    code = "duplicate"


class SecretError(LoreError):
    """The text holds something that looks like a credential."""

    exit_code = EXIT_SECRET
    code = "secret"


class ConflictError(LoreError):
    """git cannot merge by itself (``lore sync``); ``files`` names what needs a person."""

    exit_code = EXIT_CONFLICT
    code = "conflict"
