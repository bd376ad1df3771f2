"""The object every command receives: the chosen data root and a lazily opened store."""

from __future__ import annotations

from functools import cached_property

from lore.paths import DataRoot, resolve_root
from lore.store import Store


class App:
    def __init__(self, data_dir: str | None) -> None:
        self.data_dir = data_dir

    @cached_property
    def root(self) -> DataRoot:
        return resolve_root(self.data_dir)

    @cached_property
    def store(self) -> Store:
        return Store(self.root)
