"""failures: what went wrong? Failures in ``failures/data/failures.jsonl``.

Error types are free identifiers; ``RECOMMENDED_TYPES`` is the documented vocabulary.
Three or more failures of one type is the Rule of Three: a pattern worth naming.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
