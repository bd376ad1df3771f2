"""Helpers for the graph tests: records with any fields, written straight through the Store."""

from __future__ import annotations

from typing import Any

import pytest

from lore.model import kind_class
from lore.store.core import Store


@pytest.fixture
def put(store: Store) -> Any:
    """put("decision", id="dec-a1", decision="...", **fields): store one record as given."""
    counter = iter(range(1, 10_000))

    def add(kind: str, **fields: Any) -> dict[str, Any]:
        cls = kind_class(kind)
        data = {"timestamp": f"2026-01-01T10:{next(counter) % 60:02d}:00Z", **fields}
        store.add([cls.from_dict(data)])
        return data

    return add


@pytest.fixture
def edges(store: Store) -> Any:
    """The graph's edges as sorted (from, to, relation) triples, refreshed from the files."""

    def get() -> list[tuple[str, str, str]]:
        from lore.graph.snapshot import open_graph

        return sorted(open_graph(Store(store.path)).graph.edges(keys=True))

    return get
