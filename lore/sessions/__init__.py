"""Sessions: what one agent session leaves for the next. ``resume`` (the bundle) and
``resume_text`` (its budgeted text), ``handoff`` (closing a session), ``review`` (closing
decisions with an outcome, promoting recurring failures), ``hooks`` (agent hook settings and
transcript-based automatic handoffs). Never prints; the faces render."""

from __future__ import annotations
