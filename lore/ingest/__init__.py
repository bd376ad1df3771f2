"""Ingestion of agent session transcripts (Claude Code, Codex, Gemini CLI) into records.

One reader module per agent (``claude``, ``codex``, ``gemini``) turns its files into one
event stream (``events``); ``rules`` holds every extraction rule as a table, ``extract``
and ``session`` apply them, ``digest`` sums a session up, ``watermark`` remembers how far
each file was read, ``write`` stores the records, and ``usecase.ingest`` is the command.
``extract.hook_failure(payload)`` gives a hook the same verdict on one tool call.
"""

from __future__ import annotations
