"""``python -m lore.cli``."""

from __future__ import annotations

from lore.cli import main

main()
