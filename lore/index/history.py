"""The recall history: how often each id was among recall's results on this machine
(``recall-counts.json`` in the machine-local directory).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import orjson

from lore.paths import DataRoot

COUNTS_FILE = "recall-counts.json"


def counts_path(root: DataRoot) -> Path:
    return root.local / COUNTS_FILE


def recall_counts(root: DataRoot) -> dict[str, int]:
    """How often each id was among recall's results on this machine."""
    try:
        data = orjson.loads(counts_path(root).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}


def note_recalled(root: DataRoot, ids: list[str]) -> bool:
    """Count ``ids`` as recalled once more; best effort, never raises.

    Replaced atomically (temp file and rename) but not fsynced: a crash can at worst lose
    some history, which reads back as empty.
    """
    if not ids:
        return True
    import tempfile

    path = counts_path(root)
    try:
        counts = recall_counts(root)
        for rid in ids:
            counts[rid] = counts.get(rid, 0) + 1
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(orjson.dumps(counts, option=orjson.OPT_SORT_KEYS))
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except Exception:  # history is a nicety: it must never fail a recall
        return False
    return True
