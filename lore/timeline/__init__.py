"""The timeline: ``core`` counts records per kind by year, month, ISO week and day with
a digest per period, from the derived index; ``cache`` keeps answers while the index is
unchanged (machine-local). Never writes a record."""

from __future__ import annotations
