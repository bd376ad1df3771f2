"""``SessionState``: one session's events added up, the one summariser behind both the
session digest ``lore ingest`` writes and the hooks' automatic handoff. Failures are
grouped by command (a repeat counts, it is not a new failure), resolved when the same
command later succeeds (the files edited in between are the likely fix); edits, commits,
test runs, requests and open items are kept. The state is plain JSON: a watermark keeps
it between runs, so a grown transcript continues where the last run stopped.
"""

from __future__ import annotations

from typing import Any

from lore.ingest import rules, shell
from lore.ingest.clean import masked, safe
from lore.ingest.events import CANCELLED, DENIED, EDIT, OK, SHELL, Event
from lore.ingest.extract import (
    candidates_of,
    failure_of,
    is_acknowledgement,
    is_substantive,
    next_steps,
    sentences,
)

MAX_KEPT = 200  # files, commits and deferrals kept per session (the digest names fewer)
MAX_REQUESTS = 3


class SessionState:
    """What a session did so far; ``add`` one event at a time, ``to_json`` to keep it."""

    def __init__(self, data: dict[str, Any] | None = None) -> None:
        data = data or {}
        self.failures: dict[str, dict[str, Any]] = dict(data.get("failures") or {})
        self.edits: list[str] = list(data.get("edits") or [])
        self.commits: list[list[str]] = list(data.get("commits") or [])
        self.tests: dict[str, dict[str, Any]] = dict(data.get("tests") or {})
        self.first_request: list[Any] | None = data.get("first_request")
        self.requests: list[str] = list(data.get("requests") or [])
        self.last_request_at: str | None = data.get("last_request_at")
        self.unanswered: list[Any] | None = data.get("unanswered")
        self.deferred: list[str] = list(data.get("deferred") or [])
        self.steps: list[str] = list(data.get("steps") or [])
        self.counts: dict[str, int] = dict(data.get("counts") or {})
        self.start: str | None = data.get("start")
        self.end: str | None = data.get("end")
        self.touched: set[str] = set()  # failure keys changed since this object was made

    def to_json(self) -> dict[str, Any]:
        return {
            "failures": self.failures,
            "edits": self.edits[-MAX_KEPT:],
            "commits": self.commits[-MAX_KEPT:],
            "tests": self.tests,
            "first_request": self.first_request,
            "requests": self.requests,
            "last_request_at": self.last_request_at,
            "unanswered": self.unanswered,
            "deferred": self.deferred[-MAX_KEPT:],
            "steps": self.steps,
            "counts": self.counts,
            "start": self.start,
            "end": self.end,
        }

    def add(self, event: Event) -> list[tuple[str, str]]:
        """Take one event in; returns the candidate sentences it holds ``(tag, sentence)``."""
        if event.time:
            self.start = self.start or event.time
            self.end = event.time
        self.counts[event.kind] = self.counts.get(event.kind, 0) + 1
        if event.kind == "prompt":
            self._prompt(event)
        elif event.kind == "reply":
            self.unanswered = None
            steps = next_steps(masked(event.text))
            if steps:
                self.steps = [safe(step, 300) for step in steps[:5]]
        elif event.kind == "call":
            self.unanswered = None
            self._call(event)
        return candidates_of(event)

    def _prompt(self, event: Event) -> None:
        # Masked as it comes in (then cut): the state is kept in the machine-local watermark.
        text = safe(event.text, 500)
        if is_acknowledgement(text):
            return
        self.requests = [*self.requests, text][-MAX_REQUESTS:]
        self.last_request_at = event.time
        if self.first_request is None and is_substantive(text):
            self.first_request = [text, event.lines[0], event.lines[1]]
        self.unanswered = [text, event.lines[0], event.lines[1]]
        for sentence in sentences(masked(event.text)):
            deferring = rules.DEFERRAL.search(sentence) and not sentence.endswith("?")
            said = safe(sentence, 300)
            if deferring and not is_acknowledgement(sentence) and said not in self.deferred:
                self.deferred.append(said)

    def _call(self, event: Event) -> None:
        if event.action == EDIT and event.status == OK:
            for name in map(masked, event.files):
                if name in self.edits:
                    self.edits.remove(name)
                self.edits.append(name)
                for entry in self.failures.values():
                    if not entry.get("resolved") and name not in entry["since"]:
                        entry["since"].append(name)
            return
        if event.action != SHELL or not event.command.strip() or event.status == CANCELLED:
            return
        failed = failure_of(event)
        key = failed.key if failed else shell.key(masked(event.command))
        ran = event.status == OK or (failed is not None and event.status != DENIED)
        if ran and shell.family(event.command, rules.TEST_COMMANDS):
            run = self.tests.setdefault(key, {"command": key[:300], "runs": 0, "failed": 0})
            run["runs"] += 1
            run["failed"] += 1 if failed else 0
            run["last"] = "failed" if failed else "passed"
        if failed is not None:
            found = self.failures.get(key)
            if found is None:
                self.failures[key] = {
                    "command": failed.command,
                    "error_type": failed.error_type,
                    "message": failed.message,
                    "exit_code": failed.exit_code,
                    "step": failed.step,
                    "lines": list(event.lines),
                    "time": event.time,
                    "count": 0,
                    "since": [],
                    "resolved": None,
                }
            entry = found if found is not None else self.failures[key]
            entry["count"] += 1
            entry["since"] = []
            entry["resolved"] = None
            entry["last"] = list(event.lines)
            self.touched.add(key)
        elif event.status == OK:
            for done in [key, *self._covered(event.command)]:
                known = self.failures.get(done)
                if known is not None and not known.get("resolved"):
                    known["resolved"] = {
                        "at": event.time,
                        "lines": list(event.lines),
                        "likely_fix": list(known["since"]),
                    }
                    self.touched.add(done)
            for match in rules.COMMIT_LINE.finditer(event.text):
                commit = [match.group(2), safe(match.group(3), 200)]
                if commit not in self.commits:
                    self.commits.append(commit)

    def _covered(self, command: str) -> list[str]:
        """Failed test or lint runs that a passing ``command`` runs again (the same tool over
        the same or more paths: ``pytest`` after ``pytest tests/test_a.py``)."""
        found = []
        for pattern, kind in (
            (rules.TEST_COMMANDS, "TestFailure"),
            (rules.LINT_COMMANDS, "LintError"),
        ):
            run = shell.run_of(command, pattern)
            if run is None:
                continue
            for key, entry in self.failures.items():
                if entry["error_type"] != kind or entry.get("resolved"):
                    continue
                failed = shell.run_of(key, pattern)
                if failed and failed[0] == run[0] and shell.covers(run[1], failed[1]):
                    found.append(key)
        return found

    def open_items(self) -> list[str]:
        """What the session leaves open: a last request nothing answered, the user's own
        deferrals ("later", "still need to"), tests still failing at the end, and the
        next steps the agent's last reply listed. Never a short acknowledgement."""
        items: list[str] = []
        if self.unanswered is not None:
            items.append(f"unanswered: {self.unanswered[0]}")
        items.extend(self.deferred[-3:])
        for run in self.tests.values():
            entry = self.failures.get(run["command"])
            if run.get("last") == "failed" and entry is not None and not entry.get("resolved"):
                items.append(f"`{run['command']}` still fails: {entry['message']}")
        items.extend(self.steps)
        out: list[str] = []
        for item in items:
            item = " ".join(item.split())[:300]
            if item and item not in out and not is_acknowledgement(item):
                out.append(item)
        return out[:8]
