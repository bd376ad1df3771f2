"""The derived search index (build, load, refresh, rebuild) and the recall history.

Both live in the machine-local folder ``store.root.local`` (never in the data root, never
committed). The index is fingerprinted against every source file, so a change is visible
to the next query; deleting it, or a corrupt or old-format file, just means a rebuild.

The package, each layer a subclass of the one before: ``columns`` (the per-record columns,
read), ``write`` (adding and killing records), ``refresh`` (following the files),
``persist`` (the ``Index`` class and its file); ``history`` holds the recall counts.
"""

from __future__ import annotations

from lore.index.columns import DEDUPE_KINDS, SEARCH_KINDS
from lore.index.history import COUNTS_FILE, counts_path, note_recalled, recall_counts
from lore.index.persist import (
    INDEX_SCHEMA,
    MAGIC,
    Index,
    _header,
    current,
    index_path,
    load,
    open_index,
    rebuild,
    save,
    save_kept,
    status,
)
from lore.index.refresh import SETTLE_NS, _Listing, _settled

# The tuning knobs (COMPACT_MIN_DEAD, TAIL_BYTES, ...) are not re-exported: patching a copy
# here would change nothing, so a test patches them in the module that reads them.

__all__ = [
    "COUNTS_FILE",
    "DEDUPE_KINDS",
    "INDEX_SCHEMA",
    "MAGIC",
    "SEARCH_KINDS",
    "SETTLE_NS",
    "Index",
    "_Listing",
    "_header",
    "_settled",
    "counts_path",
    "current",
    "index_path",
    "load",
    "note_recalled",
    "open_index",
    "rebuild",
    "recall_counts",
    "save",
    "save_kept",
    "status",
]
