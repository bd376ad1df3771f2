"""The derived search index (build, load, refresh, rebuild) and the recall history.

Both live in the machine-local folder ``store.root.local`` (never in the data root, never
committed). The index is fingerprinted against every source file, so a change is visible
to the next query; deleting it, or a corrupt or old-format file, just means a rebuild.

The package, each layer a subclass of the one before: ``columns`` (the per-record columns,
read), ``write`` (adding and killing records), ``refresh`` (following the files),
``persist`` (the ``Index`` class and its file, ``open_index``); ``history`` holds the recall
counts; ``analyze`` (words, stems, terms) and ``weight`` (a record's importance) are what
the index is built from; ``view`` is the index seen from one project. It never imports a
capability (capture, recall, ...): they import it.
"""

from __future__ import annotations
