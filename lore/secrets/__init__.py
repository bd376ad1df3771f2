"""The one secrets gate: ``gate`` (``gate()``, which every write of user text calls,
plus detection and redaction for ``lore scan``) and ``rules`` (the placeholder policy and one
detector per kind of credential). Pure: imports nothing of lore but its errors."""

from __future__ import annotations
