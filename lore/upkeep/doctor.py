"""``lore doctor``: validate's report plus the derived data, temporary files, held locks
and quarantine files around it; ``repair`` quarantines unreadable log lines (never a
record), removes stale temporary files and rebuilds the index and the graph snapshot."""

from __future__ import annotations

import base64
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.model import Log, kinds
from lore.paths import COMPONENTS
from lore.storage.links import inside
from lore.store.core import Store
from lore.upkeep.report import Report
from lore.upkeep.validate import validate

QUARANTINE_SUFFIX = ".quarantine"
STALE_TEMP_SECONDS = 60.0  # an atomic write's temporary file lives milliseconds


@dataclass
class Finding:
    """Something doctor found beside validate's issues."""

    severity: str  # "error", "warning" or "info"
    # stale-index, corrupt-index, corrupt-graph, temp-file, lock-held, quarantine-file,
    # link-outside-root, not-a-file, agent-root, agent-hooks-twice, stale-advice
    code: str
    path: str
    message: str
    fixable: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "path": self.path,
            "message": self.message,
            "fixable": self.fixable,
        }


@dataclass
class Diagnosis:
    report: Report
    findings: list[Finding] = field(default_factory=list)
    repaired: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.report.ok and not any(f.severity == "error" for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        data = self.report.to_dict()
        return {
            "ok": self.ok,
            "root": data["root"],
            "errors": data["errors"] + sum(f.severity == "error" for f in self.findings),
            "warnings": data["warnings"] + sum(f.severity == "warning" for f in self.findings),
            "issues": data["issues"],
            "findings": [f.to_dict() for f in self.findings],
            "repaired": self.repaired,
            "counts": data["counts"],
        }


def diagnose(store: Store) -> Diagnosis:
    """Validate's report plus doctor's own findings; changes nothing."""
    diagnosis = Diagnosis(validate(store))
    diagnosis.findings.extend(_index_findings(store))
    diagnosis.findings.extend(_graph_findings(store))
    diagnosis.findings.extend(_file_findings(store))
    diagnosis.findings.extend(_agent_findings(store))
    diagnosis.findings.extend(_link_findings(store))
    diagnosis.findings.extend(_stale_findings(store))
    return diagnosis


def repair(store: Store) -> Diagnosis:
    """Fix what can be fixed without a person, then diagnose again."""
    before = diagnose(store)
    repaired: list[dict[str, Any]] = []
    for cls in kinds().values():
        path = store.location(cls)
        if not isinstance(cls.KIND.storage, Log) or not path.is_file():
            continue
        if not inside(path, store.path):
            continue  # a link out of the root: flagged, never written through
        rel = path.relative_to(store.path).as_posix()
        moved = quarantine_lines(path, rel, within=store.path)
        if moved:
            repaired.append(
                {
                    "action": "quarantined",
                    "file": rel,
                    "lines": moved,
                    "to": rel + QUARANTINE_SUFFIX,
                }
            )
    for finding in before.findings:
        if finding.code == "temp-file" and finding.fixable:
            try:
                os.unlink(store.path / finding.path)
            except OSError:
                continue
            repaired.append({"action": "removed", "file": finding.path, "lines": []})
    from lore.index.persist import rebuild

    try:
        rebuild(store)
        repaired.append({"action": "rebuilt", "file": "index", "lines": []})
    except OSError:
        pass  # a read-only cache: lore still works, only slower
    from lore.graph.snapshot import rebuild as rebuild_graph
    from lore.graph.snapshot import snapshot_path

    if snapshot_path(store.root).is_file():  # only a graph someone uses: it costs seconds
        try:
            rebuild_graph(store)
            repaired.append({"action": "rebuilt", "file": "graph", "lines": []})
        except OSError:
            pass
    after = diagnose(store)
    after.repaired = repaired
    return after


def quarantine_lines(path: Path, rel: str, *, within: Path | None = None) -> list[int]:
    """Move the lines of the log at ``path`` that are not records into its quarantine file.

    Under the log's lock, so the lines are judged as they are (an append in progress
    holds the same lock): the quarantine file gets one JSON line per moved line (its
    origin, the reason, the text, the exact bytes), then the log is replaced atomically
    by its other lines, byte for byte. Returns the line numbers moved.
    """
    from contextlib import nullcontext

    from lore import clock
    from lore.storage import jsonl
    from lore.storage.atomic import atomic_write
    from lore.storage.lock import locked
    from lore.store.guard import writing

    # ``within``: the data root (its lock is held shared, as by every write)
    with writing(within) if within is not None else nullcontext(), locked(path):
        raw = path.read_bytes()
        _rows, issues = jsonl.parse(raw, rel)
        lines = {i.line: (i.code, i.message) for i in issues}
        parts = raw.split(b"\n")
        if parts and parts[-1] == b"":
            parts.pop()
        moved = sorted(n for n in lines if 1 <= n <= len(parts))
        if not moved:
            return []
        now = clock.now()
        entries = [
            {
                "file": rel,
                "line": n,
                "code": lines[n][0],
                "reason": lines[n][1],
                "quarantined_at": now,
                "text": parts[n - 1].decode("utf-8", "replace"),
                "bytes_base64": base64.b64encode(parts[n - 1]).decode("ascii"),
            }
            for n in moved
        ]
        quarantine = path.with_name(path.name + QUARANTINE_SUFFIX)
        # first: a crash now leaves a copy, never a loss
        jsonl.append(quarantine, entries, within=within)
        skip = set(moved)
        kept = [line for n, line in enumerate(parts, 1) if n not in skip]
        data = b"\n".join(kept) + (b"\n" if kept else b"")
        atomic_write(path, data, within=within)
    return moved


def _index_findings(store: Store) -> list[Finding]:
    from lore.index.persist import status

    try:
        state = status(store)
    except Exception as exc:  # a broken derived file must never stop the diagnosis
        return [Finding("warning", "corrupt-index", "index", f"cannot read: {exc}", True)]
    if not state["exists"]:
        return []
    if not state["readable"]:
        message = f"{state['path']}: unreadable or of another format; rebuilt on use"
        return [Finding("warning", "corrupt-index", state["path"], message, True)]
    if not state["fresh"]:
        message = f"{state['path']}: older than the data files; refreshed on use"
        return [Finding("info", "stale-index", state["path"], message, True)]
    return []


def _graph_findings(store: Store) -> list[Finding]:
    from lore.graph.snapshot import load, snapshot_path

    path = snapshot_path(store.root)
    if not path.is_file() or load(store.root) is not None:
        return []
    message = f"{path}: unreadable or of another format; rebuilt on use"
    return [Finding("warning", "corrupt-graph", str(path), message, True)]


def _file_findings(store: Store) -> list[Finding]:
    """Temporary, lock and quarantine files under the components' data directories."""
    found: list[Finding] = []
    now = time.time()
    for component in COMPONENTS:
        base = store.data_dir(component)
        if not base.is_dir():
            continue
        for dirpath, _dirs, names in os.walk(base):
            for name in sorted(names):
                path = Path(dirpath) / name
                rel = path.relative_to(store.path).as_posix()
                if name.endswith(".tmp"):
                    try:
                        age = now - path.stat().st_mtime
                    except OSError:
                        continue
                    stale = age >= STALE_TEMP_SECONDS
                    what = "left by an interrupted write" if stale else "a write in progress?"
                    found.append(Finding("warning", "temp-file", rel, what, stale))
                elif name.endswith(".lock") and _held(path):
                    # An unheld lock file is normal (flock dies with its process); a held
                    # one names the process every writer of that file is waiting for.
                    message = (
                        "held by a running process: writers of this file wait for it "
                        "(up to LORE_LOCK_TIMEOUT seconds)"
                    )
                    found.append(Finding("warning", "lock-held", rel, message))
                elif name.endswith(QUARANTINE_SUFFIX):
                    message = "lines moved aside by `lore doctor --repair`: read, fix, re-import"
                    found.append(Finding("warning", "quarantine-file", rel, message))
    return found


def _agent_findings(store: Store) -> list[Finding]:
    """An agent integration (hooks, an MCP entry, the plugin) that runs lore on another
    root than this command: memory would split between the two (``agent-root``)."""
    from lore.git.info import find_repo
    from lore.paths import resolve_root
    from lore.sessions.agents import integrations

    repo = find_repo()
    project = Path(repo.top) if repo is not None else Path.cwd()
    try:
        found = integrations(project, resolve_root(None).path)
    except Exception:  # an agent's odd file must never stop the diagnosis
        return []
    here = os.path.realpath(store.path)
    out = []
    for item in found:
        if os.path.realpath(item.root) == here:
            continue
        how = "named there" if item.named else "the default: it names no root"
        verb = "run" if item.what.startswith("hooks ") else "runs"
        message = (
            f"{item.what} {verb} lore on {item.root} ({how}), not on {store.path}: memory "
            "would split between the two roots; point it at this root: "
            + item.redo.format(root=store.path)
        )
        out.append(Finding("warning", "agent-root", str(item.file), message))
    hooks = [i for i in found if i.what.startswith("hooks ")]
    plugins = [i for i in found if i.what.startswith("plugin ")]
    if hooks and plugins:
        message = (
            f"lore's hooks are installed here and by the {plugins[0].what} "
            f"({plugins[0].file}): every event runs lore twice (a failed command counts "
            "twice); keep one (lore hooks uninstall, or claude plugin uninstall)"
        )
        out.append(Finding("warning", "agent-hooks-twice", str(hooks[0].file), message))
    return out


def _link_findings(store: Store) -> list[Finding]:
    """Symlinks under the components' data directories (or standing for one) that lead out
    of the data root, and FIFOs, devices or sockets there: lore refuses to write through
    or to them, so each is an error a person must resolve."""
    from lore.storage.links import what

    found: list[Finding] = []
    root = store.path
    for component in COMPONENTS:
        base = store.data_dir(component)
        entries = [base] if os.path.lexists(base) else []
        if base.is_dir() and not base.is_symlink():
            for dirpath, dirs, names in os.walk(base):
                entries.extend(Path(dirpath) / n for n in sorted(dirs) + sorted(names))
        for path in entries:
            rel = path.relative_to(root).as_posix()
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode):
                target = os.path.realpath(path)
                if not inside(path, root):
                    message = (
                        f"a symbolic link to {target}, outside the data root: lore refuses to "
                        "write through it; replace the link with the file (or folder) itself"
                    )
                    found.append(Finding("error", "link-outside-root", rel, message))
            elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                message = f"{what(mode)} where a data file belongs: lore refuses to write to it"
                found.append(Finding("error", "not-a-file", rel, message))
    return found


def _stale_findings(store: Store) -> list[Finding]:
    """Advice whose files changed since it was captured, in the git repository around the
    working directory (``lore.dynamics.stale``): one warning with the count. Nothing
    outside a repository, or when git cannot answer (doctor never fails on it)."""
    from lore.errors import LoreError
    from lore.git.info import find_repo

    try:
        if find_repo() is None:
            return []
        from lore.dynamics.stale import check

        report = check(store)
    except (LoreError, OSError):
        return []
    if not report.stale or report.repo is None:
        return []
    count, checked = len(report.stale), report.checked
    ids = ", ".join(s.id for s in report.stale[:3]) + (", ..." if count > 3 else "")
    message = (
        f"{count} of {checked} records that name files here are stale: their files changed, "
        f"moved or vanished since they were captured ({ids}); lore stale lists them, "
        "lore review --stale walks them (reconfirm, supersede, retract)"
    )
    return [Finding("warning", "stale-advice", report.repo, message)]


def _held(path: Path) -> bool:
    import fcntl

    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing releases a lock just taken
    return False
