"""What a command server holds and how it knows it is still right: the modules imported
before the first request, the patterns compiled once for every worker, and the look at
lore's code on disk that tells when it changed (then nothing old may run)."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

from lore.cmdserver.client import COMMANDS

# Modules every command below needs, imported once before the first request.
PRELOAD = (
    "lore.cli",
    "lore.cli._app",
    "lore.cli._output",
    "lore.cli._options",
    "lore.usecases.core",
    "lore.store.core",
    "lore.index.persist",
    "lore.index.columns",
    "lore.index.refresh",
    "lore.index.view",
    "lore.index.watch",
    "lore.recall.core",
    "lore.sessions.resume",
    "lore.capture.core",
    "lore.secrets.gate",
    # imported inside the commands, when they first need them:
    "lore.storage.fastyaml",
    "lore.git.info",
    "lore.index.held",
    "lore.index.tagwords",
    "lore.recall.prune",
    "lore.recall.terms",
    "lore.index.bitset",
    "lore.recall.modes",
    "lore.sessions.resume_text",
    "lore.dynamics.conflicts",
    "lore.dynamics.tally",
    "lore.timeline.core",
    "lore.usecases.records",
    "lore.usecases.patterns",
    "lore.usecases.journal",
    "lore.usecases.goals",
)


# Caches that depend on nothing but the code, filled before the first request.
WARM = (
    ("lore.secrets.policy", "compile_all"),
    ("lore.components.journal", "compile_patterns"),
    ("lore.timeexpr", "compile_all"),
    ("lore.index.analyze", "stemmer"),
    ("lore.storage.yamlio", "warm"),
)


def preload() -> set[str]:
    """Import the CLI, the commands the server runs and what they need; build the record
    kinds (a class each, costly to make). The modules held from then on."""
    from importlib import import_module

    import lore.cli

    names = list(PRELOAD)
    for command in sorted(COMMANDS):
        entry = lore.cli.LAZY_COMMANDS.get(command)
        if entry is not None:
            names.append("lore.cli." + entry[0].split(":")[0])
    for name in names:
        with contextlib.suppress(Exception):
            import_module(name)
    with contextlib.suppress(Exception):
        from lore.model import kinds

        kinds()
    # Patterns compiled on first use (to spare a lone command what it does not need):
    # compiled here once, every worker has them.
    for name, function in WARM:
        with contextlib.suppress(Exception):
            getattr(import_module(name), function)()
    return set(sys.modules)


def _lore_folders() -> list[str]:
    """lore's package folder and every folder of code below it."""
    import lore

    out = []
    stack = [os.path.dirname(lore.__file__)]
    while stack:
        folder = stack.pop()
        out.append(folder)
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            stack += [e.path for e in entries if e.name != "__pycache__" and e.is_dir()]
    return out


def code_folders() -> list[str]:
    """lore's package folders and the import folders: where a change of code shows."""
    return _lore_folders() + [f for f in sys.path if f and os.path.isdir(f)]


def fingerprint() -> tuple[Any, ...]:
    """What lore's code and its dependencies look like on disk: every module file of lore
    (time, size, inode) and each import folder's own time (an install or removal there)."""
    seen: list[Any] = []
    for folder in _lore_folders():
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(".py"):
                    st = entry.stat()
                    seen.append((entry.path, st.st_mtime_ns, st.st_size, st.st_ino))
    for folder in sys.path:
        with contextlib.suppress(OSError):
            seen.append((folder, os.stat(folder or ".").st_mtime_ns))
    seen.sort()
    return tuple(seen)
