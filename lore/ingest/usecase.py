"""``lore ingest``, the use case: find the transcripts (the PATHs given, or the agents' own
folders for this repository), read each from its watermark, add its events up, and write
what they show: failures, candidate observations and the session's digest. Returns the
``--json`` document (LORE_CONTRACT.md §8). A PATH that is not a transcript is refused
(exit 4) before anything is written."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any, NamedTuple

from lore import clock
from lore.errors import InvalidInputError, UsageError
from lore.ingest import locate, watermark
from lore.store.core import Store

# A run over unchanged files only stats them and reads their watermarks: the readers, the
# rules (many compiled patterns) and the write path are imported when a file has news.

AGENTS = ("claude", "codex", "gemini")
SKIPPED_SHOWN = 20  # line numbers of skipped lines listed per file
FOREIGN: dict[str, Any] = {}  # _one's answer for another repository's session


class Target(NamedTuple):
    path: Path
    agent: str | None  # the folder's agent, or --agent
    checked: bool  # known to belong to the repository (else its cwd is checked)
    explicit: bool  # named on the command line: refused when it is not a transcript


def ingest(
    store: Store,
    paths: list[str] | tuple[str, ...] = (),
    *,
    agent: str | None = None,
    since: str | None = None,
    dry_run: bool = False,
    everything: bool = False,
    new_session: bool = True,
) -> dict[str, Any]:
    """Ingest transcripts; the report says per file what was read and written.
    ``new_session=False`` (the agent hooks, whose automatic handoff is the session's
    record) updates a session's record when there is one but never makes one, so it
    never buries the agent's own handoff."""
    if agent is not None and agent not in AGENTS:
        raise UsageError(f"unknown agent {agent!r}: use one of {', '.join(AGENTS)}")
    if paths and everything:
        raise UsageError("--all goes without PATH: it reads every project's session folders")
    start = None
    if since:
        from lore.timeexpr import since as parse_since

        start = parse_since(since)
    top = None if everything or paths else _repository()
    targets = _explicit(paths, agent) if paths else _folders(agent, top)
    local = Path(store.root.local)
    sniffed = {t.path: _check(t, agent, local) for t in targets if t.explicit}  # refuse first
    files: list[dict[str, Any]] = []
    rules: dict[str, dict[str, Any]] = {}
    foreign = 0
    for target in targets:
        report = _one(
            store, target, local, top, start, dry_run, sniffed.get(target.path),
            new_session=new_session,
        )  # fmt: skip
        if report is FOREIGN:
            foreign += 1
        if not report:
            continue
        for rule in report.pop("rule_of_three", []):
            rules[rule["error_type"]] = rule
        files.append(report)
    return {
        "dry_run": dry_run,
        "repository": str(top) if top else None,
        "files": files,
        "totals": _totals(files, foreign),
        "rule_of_three": list(rules.values()),
    }


def _repository() -> Path:
    from lore.git.info import find_repo

    repo = find_repo()
    return repo.top if repo else Path.cwd().resolve()


def _explicit(paths: list[str] | tuple[str, ...], agent: str | None) -> list[Target]:
    targets: list[Target] = []
    for given in paths:
        path = Path(given).expanduser().absolute()
        if path.is_dir():
            found = sorted(
                p for p in path.rglob("*") if p.suffix in (".jsonl", ".json") and p.is_file()
            )
            targets.extend(Target(p, agent, True, False) for p in found)
        elif path.is_file():
            targets.append(Target(path, agent, True, True))
        else:
            raise UsageError(f"no such file or directory: {given}", file=given)
    return targets


def _folders(agent: str | None, top: Path | None) -> list[Target]:
    return [
        Target(path, who, checked, False) for path, who, checked in locate.transcripts(agent, top)
    ]


def _check(target: Target, agent: str | None, local: Path) -> tuple[str, bool] | None:
    """The format of a PATH given on the command line (``(agent, whole document)``, None
    for an empty file); refused (exit 4) when it is none, or not ``--agent``'s."""
    from lore.ingest import transcript

    mark = watermark.load(watermark.location(local, target.path))
    with contextlib.suppress(OSError):
        if watermark.unchanged(mark, target.path.stat()) and mark:
            return str(mark.get("agent") or ""), bool(mark.get("whole"))
    found = transcript.sniff(target.path)
    if found is None:
        return None
    if agent is not None and found[0] != agent:
        raise InvalidInputError(
            f"{target.path}: a {transcript.NAMES[found[0]]}, not a {transcript.NAMES[agent]} "
            f"(--agent {agent})",
            file=str(target.path),
        )
    return found


def _one(
    store: Store,
    target: Target,
    local: Path,
    top: Path | None,
    start: float | None,
    dry_run: bool,
    known: tuple[str, bool] | None,
    *,
    new_session: bool = True,
) -> dict[str, Any] | None:
    """Read one transcript and write what it shows; None when it is not this repository's
    (or not a transcript, in a folder)."""
    path = target.path
    mark_file = watermark.location(local, path)
    mark = watermark.load(mark_file)
    try:
        stat = path.stat()
    except OSError:
        return None
    if not target.checked and top is not None:
        # A session file's working directory never changes: the watermark remembers it.
        known_cwd = mark is not None and mark.get("ino") == stat.st_ino and "cwd" in mark
        cwd = mark["cwd"] if known_cwd and mark else locate.first_cwd(path)
        if not locate.inside(cwd, top):
            if not dry_run and not known_cwd:
                watermark.save(mark_file, {**watermark.identity(stat), "foreign": True, "cwd": cwd})
            return FOREIGN
    if mark and not mark.get("foreign") and watermark.unchanged(mark, stat):
        return _report(path, mark.get("agent"), mark.get("session"), "unchanged")
    from lore.ingest import transcript

    try:
        found = known if known is not None else transcript.sniff(path)
    except InvalidInputError:
        return None  # a file in an agent's folder that is not a session: not ours to read
    if found is None or (target.agent and found[0] != target.agent):
        return None
    agent = found[0]
    whole = found[1] or (agent == "gemini" and path.suffix == ".json")
    if dry_run:
        return _read(
            store, path, agent, whole, mark, stat, start, dry_run, mark_file,
            new_session=new_session,
        )  # fmt: skip
    from lore.storage.lock import locked

    with locked(mark_file):
        mark = watermark.load(mark_file)
        return _read(
            store, path, agent, whole, mark, stat, start, dry_run, mark_file,
            new_session=new_session,
        )  # fmt: skip


def _read(
    store: Store,
    path: Path,
    agent: str,
    whole: bool,
    mark: dict[str, Any] | None,
    stat: os.stat_result,
    start: float | None,
    dry_run: bool,
    mark_file: Path,
    *,
    new_session: bool = True,
) -> dict[str, Any]:
    from lore.ingest import transcript
    from lore.ingest.digest import digest_of
    from lore.ingest.session import SessionState
    from lore.ingest.write import write_candidates, write_failures, write_session

    go_on = not whole and watermark.continues(
        mark, stat, lambda a, b: transcript.line_hash(path, a, b)
    )
    how = "grown" if go_on else ("from start" if mark and not mark.get("foreign") else "new")
    state = SessionState(mark.get("state") if go_on and mark else None)
    reader = transcript.READERS[agent](mark.get("reader") if go_on and mark else None)
    offset = int(mark.get("offset") or 0) if go_on and mark else 0
    line = int(mark.get("line") or 0) if go_on and mark else 0
    read = transcript.read(path, reader, offset=offset, line=line, whole=whole)
    found: list[tuple[str, str, Any]] = []
    for event in read.events:
        if start is not None and event.time and clock.epoch(event.time) < start:
            continue
        found.extend((tag, sentence, event) for tag, sentence in state.add(event))
    session = reader.session()
    ctx = _context(path, session, dry_run)
    failures = write_failures(store, state, ctx)
    candidates, withheld = write_candidates(store, found, ctx)
    ids = {key: entry["id"] for key, entry in state.failures.items() if "id" in entry}
    digest = digest_of(state, agent, base=ctx.base, cwd=session.cwd, ids=ids)
    record = None
    known = new_session or (ctx.lore_session is not None and store.peek(ctx.lore_session))
    if not session.side and known:
        captured = {"failure": list(ids.values()), "observation": candidates}
        record = write_session(store, digest, ctx, captured, read.line)
    if not dry_run:
        watermark.save(
            mark_file,
            {
                **watermark.identity(stat),
                "size": read.offset,
                "offset": read.offset,
                "line": read.line,
                # No complete line read (only one still being written): the last line
                # read is still the one the watermark named.
                "last": read.last or ((mark or {}).get("last") if go_on else []),
                "whole": whole,
                "agent": agent,
                "session": session.id,
                "cwd": session.cwd,
                "reader": reader.state(),
                "state": state.to_json(),
                "skipped": int((mark or {}).get("skipped") or 0) * go_on + len(read.skipped),
            },
        )
    report = _report(path, agent, session.id, how)
    report.update(
        lines=[line + 1, read.line] if read.line > line else None,
        skipped_lines=len(read.skipped),
        skipped=read.skipped[:SKIPPED_SHOWN],
        failures={"new": failures.failures_new, "updated": failures.failures_updated},
        resolved=failures.resolved,
        candidates=candidates,
        withheld=[*failures.withheld, *withheld],
        session_record=record,
        rule_of_three=failures.rule_of_three,
    )
    return report


def _context(path: Path, session: Any, dry_run: bool) -> Any:
    from lore.ingest.ids import session_record_id
    from lore.ingest.write import Context

    scope = f"{session.agent}:{session.id or path}" + (f":{path.stem}" if session.side else "")
    return Context(
        transcript=str(path),
        agent=session.agent,
        session=session.id,
        scope=scope,
        lore_session=session_record_id(session.id, str(path)),
        project=_project(session.cwd),
        base=_base(session.cwd),
        dry_run=dry_run,
        cwd=session.cwd,
    )


def _project(cwd: str | None) -> str | None:
    """LORE_PROJECT; else the repository (or folder) the session ran in, when it is on this
    machine; else this repository; else the last part of the session's folder."""
    from lore.capture.build import detect_project
    from lore.git.info import find_repo

    if os.environ.get("LORE_PROJECT", "").strip():
        return detect_project(None)
    if cwd and Path(cwd).is_dir():
        repo = find_repo(Path(cwd))
        return repo.name if repo else Path(cwd).name
    return detect_project(None) or (Path(cwd).name if cwd else None)


def _base(cwd: str | None) -> Path | None:
    from lore.git.info import find_repo

    if not cwd:
        return None
    if Path(cwd).is_dir():
        repo = find_repo(Path(cwd))
        return repo.top if repo else Path(cwd)
    return Path(cwd)


def _report(path: Path, agent: Any, session: Any, how: str) -> dict[str, Any]:
    return {"transcript": str(path), "agent": agent, "session": session, "read": how}


def _totals(files: list[dict[str, Any]], foreign: int) -> dict[str, int]:
    def total(key: str, sub: str | None = None) -> int:
        return sum(len(f[key][sub] if sub else f[key]) for f in files if f.get(key) is not None)

    return {
        "files": len(files),
        "unchanged": sum(1 for f in files if f["read"] == "unchanged"),
        "skipped_lines": sum(f.get("skipped_lines", 0) for f in files),
        "failures_new": total("failures", "new"),
        "failures_updated": total("failures", "updated"),
        "resolved": total("resolved"),
        "candidates": total("candidates"),
        "sessions": sum(1 for f in files if f.get("session_record")),
        "withheld": total("withheld"),
        "other_projects": foreign,
    }
