"""Bulk import and export: ``importer`` (``lore import``: every line checked before
anything is written), ``lines`` (one line to one record, built and checked like a capture),
``write`` (the interruptible batch writer), ``export`` (every record as one JSONL line)."""

from __future__ import annotations
