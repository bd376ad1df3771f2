"""Capture: one new record from text and flags. Routing and building (``build``), the
checks every new record passes (``checks``: schema, the secrets gate, near-duplicates), the
failure rules (``failure_rules``: error types, the Rule of Three) and the contradiction check
(``contradictions``); ``core`` is the capture itself. Never prints; never renders text."""

from __future__ import annotations
