"""Recall: ranked search over every searchable kind (``core``), its modes (``modes``:
failures, patterns, context, brief), the ranking formula (``ranking``), the text signals beyond
BM25 (``signals``) and term associations (``associate``). Reads the derived index
(``lore.index``); never writes a record (only the machine-local recall counts)."""

from __future__ import annotations
