"""Each tag's records as a bit set (``lore.index.bitset``), for an index that lives long
(``lore mcp``, ``lore ui``) or is held by the command server for its workers: the
timeline then counts a tag's records in each period with an AND and a bit count, instead
of looking up the period of every record the tag holds (200,000 postings on a 100,000
record store). Made whole once (``build``), kept through additions (``added``), dropped
by a kill or a compaction (``Columns._forget``); None where never made.
"""

from __future__ import annotations

from typing import Any

from lore.index import bitset


def build(idx: Any) -> dict[Any, int]:
    """Every tag's records (dead ones too, as in its postings), kept on the index."""
    size = len(idx.kinds)
    idx.tagbits = {name: bitset.of([idx.posting("tags", name)], size) for name in idx.tags}
    return idx.tagbits


def added(bits: dict[Any, int] | None, tags: Any, doc: int) -> dict[Any, int] | None:
    """``bits`` with record ``doc`` in its tags (``tags``: the record's, as the index
    stores them); None stays None."""
    if bits is None:
        return None
    for name in dict.fromkeys(tags) if isinstance(tags, list) else ():
        if isinstance(name, str):
            bits[name] = bits.get(name, 0) | 1 << doc
    return bits
