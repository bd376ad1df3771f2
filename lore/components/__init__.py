"""The nine components. One module per component (``lore/components/journal.py`` owns
``components/journal/data/``); modules hold models and domain rules only.

Importing this package imports no component: ``lore.model`` loads a kind's module on
first use (``kinds()`` loads them all), so the capture path imports only what it needs.
"""

from __future__ import annotations
