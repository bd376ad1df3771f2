"""Bridges to other memory stores, optional and fail-soft: ``engram`` (the database and its
shadows), ``engram_sync`` (``lore engram sync``), ``engram_promote`` (``lore engram
promote``) and ``routed`` (``lore recall --routed``). sqlite3 from the standard library."""

from __future__ import annotations
