"""lore: durable, git-native memory for AI coding agents and shell scripts.

The public Python API is re-exported lazily from :mod:`lore.api` so that
``import lore`` (and therefore every CLI start-up) stays cheap.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = [
    "LoreError",
    "Store",
    "__version__",
    "capture",
    "export_records",
    "get",
    "import_records",
    "list_records",
    "open_store",
    "validate",
]


def __getattr__(name: str) -> Any:
    if name == "LoreError":
        from lore.errors import LoreError

        return LoreError
    if name == "Store":
        from lore.store import Store

        return Store
    if name in __all__:
        from lore import api

        return getattr(api, name)
    raise AttributeError(f"module 'lore' has no attribute {name!r}")
