"""The nine components; importing this package registers every record kind.

One module per component (``lore/components/journal.py`` owns
``components/journal/data/``). Modules here hold models and domain rules only.
"""

from __future__ import annotations

from lore.components import (  # noqa: F401  (import registers the kinds)
    evidence,
    failures,
    graph,
    inbox,
    intent,
    journal,
    patterns,
    registry,
    transfer,
)
