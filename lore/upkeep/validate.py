"""``lore validate``'s core: check every data file under a root; never writes anything.
The checks are in ``lore.upkeep.validate_files`` (per file) and
``lore.upkeep.validate_records`` (records, references); the report in ``lore.upkeep.report``.
"""

from __future__ import annotations

from lore.store.core import Store
from lore.upkeep.report import Report


def validate(store: Store | None = None) -> Report:
    """Check every data file under ``store``'s root (default: the resolved root)."""
    from lore.upkeep.validate_files import Checker

    checker = Checker(store if store is not None else Store())
    checker.run()
    issues = sorted(checker.issues, key=lambda i: (i.file, i.line or 0))
    return Report(str(checker.root), issues, checker.counts, checker.checked)
