"""Indexes a long-lived parent holds for the processes it forks (the command server,
``lore.cmdserver``): read from their file and made growable once in the parent, so that a
forked worker which brings one up to date copies nothing. A worker takes a held index
only while the file on disk is still that very file (an index is only ever replaced
whole), and the holder itself never takes one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from lore.index import dedup, tagbits
from lore.index.columns import SEARCH_KINDS
from lore.index.packed import unpack

HOLD_MAX = 256 << 20  # bytes of index files held at most, all together
HELD: dict[str, tuple[tuple[int, int, int], Any]] = {}  # index file -> (its identity, index)
HOLDER: list[int] = []  # the pid of the process that holds them
LOADED: list[tuple[str, str]] = []  # (index file, data root) this process loaded
TAKEN: list[tuple[str, Any, Any]] = []  # (file, held index this forked child took, its mark)


def identity(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def take(path: str) -> Any:
    """The index held for ``path``, for this forked child alone (its copy of the holder's
    memory), if the file is unchanged; else None."""
    held = HELD.get(path)
    if held is None or not HOLDER or HOLDER[0] == os.getpid():
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    if identity(st) != held[0]:
        return None
    del HELD[path]  # taken: what this process does to it is its own
    # ... and it is never freed here: freeing it would write to every one of its pages
    # (thousands of copy-on-write faults as the command ends); the worker ends with
    # os._exit, which frees nothing.
    TAKEN.append((path, held[1], _mark(held[1])))
    return held[1]


def _mark(index: Any) -> Any:
    """What a refresh that changes ``index`` moves: its edits, and each kind's file stamp,
    watcher token and folder stamp."""
    sources = sorted(index.sources.items())
    return index.edits, [(k, s.get("fp"), s.get("token"), s.get("dir")) for k, s in sources]


def report(path: str, root: str) -> str:
    """The line a forked child reports for an index it loaded: whether it changed the one
    it took (``moved``), the index file, its data root."""
    return f"index:{int(moved(path))}\t{path}\t{root}"


def reported(line: str) -> tuple[str, str, bool] | None:
    """``(index file, data root, moved)`` from a ``report`` line (None: not one)."""
    if not line.startswith("index:"):
        return None
    parts = line[len("index:") :].split("\t", 2)
    if len(parts) != 3 or parts[0] not in ("0", "1"):
        return None
    return parts[1], parts[2], parts[0] == "1"


def moved(path: str) -> bool:
    """Whether this forked child changed the index of ``path`` it took (brought it up to
    date with something); True when it took none (it read the file itself)."""
    for taken, index, mark in TAKEN:
        if taken == path:
            return bool(_mark(index) != mark)
    return True


def hold(path: str, root: str, loads: Callable[[Any, str], Any]) -> bool:
    """Read the index file ``path`` (of the data root ``root``) with ``loads``
    (``lore.index.persist.Index.loads``) and hold it, made growable, unless it is held as
    it is already or would pass HOLD_MAX; whether it is held now."""
    try:
        with open(path, "rb") as handle:
            key = identity(os.fstat(handle.fileno()))
            held = HELD.get(path)
            if held is not None and held[0] == key:
                return True
            HELD.pop(path, None)
            if key[1] + sum(h[0][1] for h in HELD.values()) > HOLD_MAX:
                return False
            data = handle.read()
    except OSError:
        return False
    index = loads(data, root) if len(data) == key[1] else None
    if index is None:
        return False
    index._thaw()  # the columns, as growable arrays
    for packed in (index._ids, index._titles):
        packed.text = bytearray(packed.text)
        packed.at = unpack(packed.at)
    index._titles.strings()  # split once here, not in every near-duplicate check
    dedup.build(index)  # and their words sorted (lore.index.dedup)
    tagbits.build(index)  # each tag's records as a bit set, for the timeline
    for kind in SEARCH_KINDS:  # each kind's shown records (resume lists several)
        for flagged in (False, True):
            index.docs(kind, flagged=flagged)
    index.entities  # noqa: B018 - unmarshalled once here: a capture naming a file adds to it
    HELD[path] = (key, index)
    HOLDER[:] = [os.getpid()]
    return True


def refresh(path: str, root: str) -> None:
    """Bring the index held for ``path`` up to date with the data root ``root``: what its
    logs and documents gained since the index file was written (a file is rewritten only
    after SAVE_AFTER changes). The holder does it between requests, once, so the workers
    it forks next take an index with nothing left to apply, instead of each applying the
    same changes again. (They still check the files: this only saves them the work.)"""
    held = HELD.get(path)
    if held is None:
        return
    from lore.store.core import Store

    held[1].refresh(Store(root))
