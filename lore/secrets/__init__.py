"""The one secrets gate: ``gate`` (``gate()``, which every write of user text calls, plus
detection and redaction for ``lore scan``) and the rules it runs: ``rules`` (every kind of
credential, most specific first) built from ``tokens`` (fixed formats), ``forms`` (shapes
judged in context), ``keys`` (named assignments) and ``policy`` (what is clearly not a
credential). Pure: imports nothing of lore but its errors."""

from __future__ import annotations
