"""Which tag words recall must not count as matched text: a project's own name, and
any tag that every record of a project carries. They filter and boost, never match.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from lore.index import analyze

# A tag on every record of a project counts as that project's blanket tag only when the
# project has at least this many records (with fewer, every tag of a lone record would be).
BLANKET_MIN_RECORDS = 3


def muted(idx: Any, wanted: set[str]) -> dict[str, dict[int, int]]:
    """For each term in ``wanted``, the records where some of its occurrences come from
    a tag that names a project (on every record that carries it) or a tag that every
    record of a project carries (on that project's records), and how many occurrences:
    recall subtracts them from the term's count in those records."""
    candidates: dict[str, dict[str, int]] = {}
    for tag in idx.tags:
        if not isinstance(tag, str):
            continue
        found = Counter(t for t in analyze.terms(tag) if t in wanted)
        if found:
            candidates[tag] = dict(found)
    if not candidates:
        return {}
    projects = {p for p in idx.projects if p}
    sizes: Counter[int] | None = None
    out: dict[str, dict[int, int]] = {}
    for tag, counts in candidates.items():
        docs = idx.tagged(tag)
        if tag not in projects:
            if sizes is None:
                sizes = _project_sizes(idx)
            proj = idx.proj
            covered = Counter(proj[d] for d in docs)
            blanket = {
                code
                for code, n in covered.items()
                if idx.projects[code] and n >= BLANKET_MIN_RECORDS and n == sizes[code]
            }
            if not blanket:
                continue
            docs = {d for d in docs if proj[d] in blanket}
        for term, count in counts.items():
            column = out.setdefault(term, {})
            for d in docs:
                column[d] = column.get(d, 0) + count
    return out


def _project_sizes(idx: Any) -> Counter[int]:
    """How many live records each project code has."""
    sizes = Counter(idx.proj)
    for d in idx.dead:
        sizes[idx.proj[d]] -= 1
    return sizes
