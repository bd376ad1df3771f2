"""The object every command receives: the chosen data root and a lazily opened store."""

from __future__ import annotations

import os
import sys
from functools import cached_property
from pathlib import Path

from lore.paths import DataRoot, resolve_root
from lore.store.core import Store


class App:
    def __init__(self, data_dir: str | None) -> None:
        self.data_dir = data_dir

    @cached_property
    def root(self) -> DataRoot:
        return resolve_root(self.data_dir)

    @cached_property
    def store(self) -> Store:
        return Store(self.root)

    @property
    def chosen_root(self) -> str | None:
        """The data root as an absolute path when chosen by ``--data-dir`` or
        ``LORE_DATA_DIR``, for commands that write lore into an agent's configuration
        (hooks, MCP): the agent then runs lore on this root, not on the default."""
        return str(self.root.path) if self.root.source in ("option", "env") else None


def this_lore() -> str:
    """The absolute path of the lore being run, for commands that write it into an
    agent's configuration (hooks, MCP): not the first `lore` on PATH, which may be
    another install. The script being run, else the one beside this Python, else PATH's."""
    import shutil

    running = Path(sys.argv[0])
    if running.name in ("lore", "lore.exe") and running.is_file():
        return os.path.abspath(running)
    beside = Path(sys.executable).with_name("lore")
    if beside.is_file():
        return str(beside)
    found = shutil.which("lore")
    return os.path.abspath(found) if found else os.path.abspath(sys.argv[0])
