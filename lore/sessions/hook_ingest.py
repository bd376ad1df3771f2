"""The ingestion hooks' use case (PreCompact, Stop, SessionEnd): the session's transcript
read from its watermark by ``lore ingest`` itself, so hooks and ``lore ingest`` never
count a line twice. A transcript grown by more than DETACH_BYTES since its watermark is
left to a detached ``lore ingest`` process: the agent never waits for it."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path
from typing import Any

from lore.store.core import Store

DETACH_BYTES = 128 * 1024  # more new transcript than this: ingested by a detached process


def ingest_transcript(store: Store, payload: dict[str, Any]) -> tuple[bool, str]:
    """Ingest the payload's ``transcript_path`` (or start a detached ingestion): whether
    anything was read or started, and what happened (for LORE_DEBUG)."""
    from lore.ingest import watermark
    from lore.ingest.usecase import ingest

    given = payload.get("transcript_path")
    if not isinstance(given, str) or not given.strip():
        return False, "no ingestion: the payload names no transcript_path"
    path = Path(given)
    try:
        size = path.stat().st_size
    except OSError:
        return False, f"no ingestion: no transcript at {given}"
    mark = watermark.load(watermark.location(Path(store.root.local), path.absolute()))
    done = int(mark.get("offset") or 0) if mark else 0
    new = size - done if size >= done else size  # truncated or replaced: read from the start
    if new > DETACH_BYTES:
        detach(store, path)
        return True, f"ingesting {given} in a detached process ({new:,} new bytes)"
    # The automatic handoff of PreCompact and SessionEnd is the session's record: ingestion
    # from a hook updates it when there is one and never makes one, so it never buries
    # the agent's own handoff.
    from lore.errors import LoreError

    try:
        report = ingest(store, [str(path)], new_session=False)
    except LoreError as exc:  # not a transcript lore reads: the handoff may still say why
        return False, f"no ingestion: {exc.message}"
    totals = report["totals"]
    return True, (
        f"ingested {given}: {totals['failures_new']} new failure(s), "
        f"{totals['candidates']} candidate(s)"
    )


def detach(store: Store, path: Path) -> None:
    """``lore --data-dir ROOT ingest PATH`` in its own session, outliving the hook."""
    with contextlib.suppress(OSError):
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lore",
                "--data-dir",
                str(store.root.path),
                "ingest",
                "--no-new-session",
                str(path),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
