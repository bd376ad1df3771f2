"""Counts over the index's live records that reads need at once (failures per error type,
records per project and per (context, project), the total length), stored with the index
and kept up to date record by record, so a read after a capture counts nothing again.
"""

from __future__ import annotations

from collections import Counter
from typing import Any


class Aggregates:
    """``groups[g]``: live failures of group code g; ``pairs[(c, p)]``: live records with
    context code c and project code p; ``sizes[p]``: live records of project code p;
    ``length``: the weighted length of every live record."""

    __slots__ = ("groups", "length", "pairs", "sizes")

    def __init__(
        self, groups: list[int], pairs: dict[Any, int], sizes: dict[int, int], length: int
    ) -> None:
        self.groups, self.pairs, self.sizes, self.length = groups, pairs, sizes, length

    @classmethod
    def count(cls, idx: Any) -> Aggregates:
        """Counted from the columns (live records only)."""
        dead = idx.dead
        live = [d for d in range(len(idx.kinds)) if d not in dead] if dead else None
        grp = idx.grp if live is None else [idx.grp[d] for d in live]
        ctx = idx.ctx if live is None else [idx.ctx[d] for d in live]
        proj = idx.proj if live is None else [idx.proj[d] for d in live]
        groups = [0] * len(idx.groups)
        for group, n in Counter(grp).items():
            groups[group] = n
        length = sum(idx.dl) - sum(idx.dl[d] for d in dead)
        return cls(groups, dict(Counter(zip(ctx, proj))), dict(Counter(proj)), length)

    def add(self, idx: Any, doc: int, step: int) -> None:
        """Count record ``doc`` in (``step`` 1) or out (-1)."""
        group = idx.grp[doc]
        if group >= len(self.groups):
            self.groups.extend([0] * (group + 1 - len(self.groups)))
        self.groups[group] += step
        pair = (idx.ctx[doc], idx.proj[doc])
        self.pairs[pair] = self.pairs.get(pair, 0) + step
        project = idx.proj[doc]
        self.sizes[project] = self.sizes.get(project, 0) + step
        self.length += step * idx.dl[doc]

    def state(self) -> tuple[Any, ...]:
        pairs = {k: v for k, v in self.pairs.items() if v}
        return (self.groups, pairs, {k: v for k, v in self.sizes.items() if v}, self.length)

    @classmethod
    def from_state(cls, state: Any) -> Aggregates:
        groups, pairs, sizes, length = state
        return cls(list(groups), dict(pairs), dict(sizes), int(length))
