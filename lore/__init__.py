"""lore: durable, git-native memory for AI coding agents and shell scripts.

The public Python API is :mod:`lore.api` (``from lore import api``); a few entry
points are re-exported here lazily so that ``import lore`` (and every CLI start-up)
stays cheap. ``capture`` and ``recall`` are not re-exported: those names are packages
of lore (``lore.capture``, ``lore.recall``) and would be shadowed once imported.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (True for type checkers; importing typing costs the console script 5 ms)

if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

__all__ = [
    "LoreError",
    "Store",
    "__version__",
    "export_records",
    "get",
    "import_records",
    "list_records",
    "open_store",
]


def __getattr__(name: str) -> Any:
    if name == "LoreError":
        from lore.errors import LoreError

        return LoreError
    if name == "Store":
        from lore.store.core import Store

        return Store
    if name in __all__:
        from lore import api

        return getattr(api, name)
    raise AttributeError(f"module 'lore' has no attribute {name!r}")
