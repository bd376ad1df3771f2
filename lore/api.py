"""The Python API: what the CLI does, callable in-process by hooks and other tools.

Functions here compose the store, capture, bulk and validate modules and return
data; they never print. ``import lore`` re-exports them lazily. The ``*_doc`` use cases
return a command's ``--json`` document: the CLI and the MCP server (``lore.mcp``) both call them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lore.model import Record
from lore.store.core import Store
from lore.usecases.admin import init as init
from lore.usecases.admin import paths as paths
from lore.usecases.records import list_records as list_records
from lore.usecases.records import record_history as record_history
from lore.usecases.records import retract as retract


def open_store(data_dir: str | Path | None = None) -> Store:
    """A store on the resolved data root (same rules as the CLI)."""
    return Store(data_dir)


def capture(text: str, *, store: Store | None = None, **options: Any) -> Record:
    """Record ``text``; keyword options as :func:`lore.capture.capture` takes them."""
    from lore.capture.core import capture as _capture

    return _capture(store or open_store(), text, **options).record


def get(record_id: str, *, store: Store | None = None) -> Record:
    return (store or open_store()).get(record_id)


def __getattr__(name: str) -> Any:
    # Bulk and validation live in their own packages; re-exported lazily.
    if name == "import_records":
        from lore.bulk.importer import import_records

        return import_records
    if name == "export_records":
        from lore.bulk.export import export_records

        return export_records
    if name == "validate":
        from lore.upkeep.validate import validate

        return validate
    raise AttributeError(name)
