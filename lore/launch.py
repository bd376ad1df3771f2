"""The ``lore`` console script: the CLI, started with the garbage collector tuned for a
short-lived process.

Start-up creates tens of thousands of objects that live as long as the process (click,
typing, the record kinds). Collecting while they are made frees nothing, and every later
full collection would scan them again: a few milliseconds on each command that agents
run in hooks. So collection is off while the CLI is imported, those objects are then
frozen out of the collector's sight, and the youngest generation is collected less
often. Cyclic garbage is still collected; only ``lore`` processes are affected, never a
program that imports ``lore`` as a library.
"""

from __future__ import annotations

import gc

GEN0_THRESHOLD = 50_000  # allocations between young collections (CPython's default: 700)

gc.disable()
try:
    from lore.cli import main as _cli_main
finally:
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, 50, 100)
    gc.enable()


def main() -> None:
    """Run the ``lore`` command line (``sys.argv``)."""
    _cli_main()
