"""Recall's shortcut on a big store: only the records that can still be among the first
``limit`` are scored, and the others are proved unable to reach them, from a bound on the
text score of a record that holds h of the query's terms (each term's largest count and
shortest record, in the index's vocabulary) and on what it can inherit from a neighbour.
The ranking itself is ``lore.recall.core``'s, unchanged: when the proof fails for one set
of records, the next (larger) set is scored, down to every matching record.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import chain, compress
from typing import Any

from lore.index import bitset
from lore.recall import ranking, signals
from lore.recall import terms as per_term

# A record inherits at most this share of a neighbour's text score (the larger share).
INHERIT = max(signals.ASK_NEXT, signals.CONTEXT_NEXT, signals.CONTEXT_PREV)
FIRST_POOL = 16  # records scored at first, at least: those holding the most terms
FEW_MORE = 64  # the next level's linked records, at most, taken into the first round
MARGIN = 1e-9

Evaluate = Callable[[set[int]], tuple[list[Any], dict[int, float]]]


class Levels:
    """How many of the query's terms each record holds (an upper bound: a record counts
    once for a term and once more for its variants), and the largest text score a record
    holding ``h`` of them can have before boosts and inheritance (``bound(h)``).

    Counted one of two ways, with the same answers. In a process that ends after this
    command, only the records in two sets or more are counted (few: picked out by set
    intersections in C); every other record of a set holds one. In a long-lived one
    (``lore mcp``, ``lore ui``), each term's records are kept as an int
    (``lore.index.bitset``) and counted bit-sliced over the whole store at once, for a
    few microseconds a query once a term has been seen. ``bits`` chooses (None: by
    the process, ``lore.process.one_shot``)."""

    def __init__(
        self, idx: Any, terms: list[str], planned: signals.Plan, *, bits: bool | None = None
    ) -> None:
        k1, b = ranking.K1, ranking.B
        n = idx.size
        base, scale = k1 * (1.0 - b), k1 * b * n / max(idx.total_length(), 1)
        groups: list[list[str]] = []  # per term: itself, and its variants (each a set)
        bests: list[float] = []
        for term, variants in planned.every:
            best = 0.0
            near: list[str] = []
            for variant, factor in variants:
                docs, tfs, df = planned.lists[variant]
                if not df:
                    continue
                weight = factor * ranking.idf(n, df) * (k1 + 1.0)
                most, shortest = per_term.extremes(idx, variant, docs, tfs)
                best = max(best, weight * most / (most + base + scale * shortest))
                if variant == term:
                    groups.append([variant])
                else:
                    near.append(variant)
            if near:
                groups.append(near)
            bests.append(best)
        bests.sort(reverse=True)
        self.sums = [sum(bests[: i + 1]) for i in range(len(bests))]
        self.q = len(terms)
        if bits is None:
            from lore.process import one_shot

            bits = not one_shot()
        lists = planned.lists
        if bits:
            self.counts: _Bits | _Sets = _Bits([per_term.mask(idx, g, lists) for g in groups], idx)
        else:
            self.counts = _Sets([per_term.records(idx, g, lists) for g in groups], idx.nb)
        self.levels = self.counts.levels  # the counts some record has, largest first

    def docs(self, level: int, *, linked: bool | None = None) -> list[int]:
        """The records holding ``level`` (in no set: none); with ``linked`` True only
        those with a neighbour they could pass scores to (the index's ``nb``), False only
        those without one."""
        return self.counts.docs(level, linked)

    def bound(self, h: int) -> float:
        """The largest own text score (coverage included) of a record holding ``h``."""
        if h <= 0 or not self.sums:
            return 0.0
        total = self.sums[min(h, self.q, len(self.sums)) - 1]
        return total * (h / self.q) ** signals.COVERAGE_POWER if self.q > 1 else total


class _Sets:
    """``Levels``' counts from sets of ints: only the records in two sets or more."""

    def __init__(self, sets: list[Any], nb: Any) -> None:
        self.sets, self.nb = sets, nb
        many: set[int] = set()  # the records in two sets or more
        for i, first in enumerate(sets):
            for second in sets[i + 1 :]:
                many |= first & second
        inside = [s & many for s in sets]
        self.held: Counter[int] = Counter(chain.from_iterable(inside))
        ladder = set(self.held.values())
        if any(len(s) > len(i) for s, i in zip(sets, inside, strict=True)):  # one holding 1
            ladder.add(1)
        self.levels = sorted(ladder, reverse=True)
        self.found: dict[int, list[int]] = {}

    def docs(self, level: int, linked: bool | None) -> list[int]:
        docs = self.found.get(level)
        if docs is None:
            if level == 1:
                docs = list(set().union(*self.sets) - self.held.keys())
            else:
                held = self.held
                docs = list(compress(held, map(level.__eq__, held.values())))
            self.found[level] = docs
        if linked is None:
            return docs
        nb = self.nb
        if linked:
            return list(compress(docs, map(nb.__getitem__, docs)))
        return [d for d in docs if not nb[d]]


class _Bits:
    """``Levels``' counts from sets kept as ints, every record counted at once."""

    def __init__(self, sets: list[int], idx: Any) -> None:
        self.idx = idx
        planes = bitset.counted(sets)
        anywhere = 0
        for one in sets:
            anywhere |= one
        self.at: dict[int, int] = {}  # count -> the records holding it
        for count in range(len(sets), 0, -1):
            found = bitset.exactly(planes, count, anywhere)
            if found:
                self.at[count] = found
        self.levels = list(self.at)

    def docs(self, level: int, linked: bool | None) -> list[int]:
        found = self.at.get(level, 0)
        if linked is not None:
            linking = per_term.linking(self.idx)
            found = found & linking if linked else found & ~linking
        return bitset.members(found) if found else []


def search(
    idx: Any,
    levels: Levels,
    limit: int,
    boost: float,
    others: float,
    evaluate: Evaluate,
) -> tuple[list[Any], dict[int, float]] | None:
    """The first ``limit`` records as scoring every matching record would give them
    (``evaluate(records)`` scores those and ranks them), or None when no smaller set of
    records is proved enough. ``boost``: the largest factor the query's time window and
    kinds can give a text score; ``others``: the most the other components (activation,
    project: ``lore.recall.core.besides_text``) add to a score.

    Scored: every record holding at least ``ladder[wide]`` terms, and among those holding
    fewer but at least ``ladder[linked]``, the ones with a neighbour they could pass
    scores to (the index's ``nb``); with their neighbours. A record left out holds fewer
    terms: its own text score is at most ``bound`` of its level, and it inherits only if
    it has such a neighbour, itself left out (and so below ``ladder[linked]``).
    """
    ladder = levels.levels
    if not ladder:
        return None
    wide = linked = 0  # levels taken whole; levels whose linked records are taken
    pool: list[int] = []
    while wide < len(ladder) and len(pool) < FIRST_POOL:
        pool.extend(levels.docs(ladder[wide]))
        wide += 1
    linked = wide
    if linked < len(ladder):
        # The next level's records with a neighbour: what a second round most often adds
        # (the scores they could pass on are what keeps the first from being proved
        # enough); taken now when they are few, so that one round does.
        more = levels.docs(ladder[linked], linked=True)
        if len(more) <= FEW_MORE:
            pool.extend(more)
            linked += 1
    scored = -1  # how many records of ``pool`` the last evaluation had
    while True:
        below = levels.bound(ladder[wide]) if wide < len(ladder) else 0.0
        linked_below = levels.bound(ladder[linked]) if linked < len(ladder) else 0.0
        if len(pool) != scored:  # (a step that added no record leaves the answer as it was)
            ranked, text = evaluate(with_neighbours(idx, pool))
            scored = len(pool)
        if wide >= len(ladder):
            return ranked, text  # every matching record was scored
        alone, passed = boost * below, boost * (1.0 + INHERIT) * linked_below
        outside = max(alone, passed)
        if len(ranked) >= limit and text:
            top = max(text.values())
            bar = ranked[limit - 1].score
            if outside < top and ranking.W_TEXT * outside / top + others < bar - MARGIN:
                return ranked, text
        if passed >= alone and linked < len(ladder):
            pool.extend(levels.docs(ladder[linked], linked=True))
            linked += 1
        else:
            # (its linked records are in already when wide < linked)
            pool.extend(levels.docs(ladder[wide], linked=False if wide < linked else None))
            wide += 1
            linked = max(linked, wide)


def with_neighbours(idx: Any, pool: list[int]) -> set[int]:
    """``pool``, the records ``pool``'s records replaced or were promoted to (recall keeps
    a record below its replacement, so both must be scored), and the neighbours of every
    one that may pass scores to them (``nb``), and theirs (so the first ones' own scores,
    what they pass on, are exact)."""
    out = set(pool)
    replaced = idx.replaced
    if replaced:
        targets = {replaced[d] for d in pool if d in replaced}
        if targets:
            out.update(idx.find_ids(targets).values())
    nb, last = idx.nb, len(idx.kinds) - 1
    ring = {n for d in out if nb[d] for n in (d - 1, d + 1) if 0 <= n <= last}
    out |= ring
    out.update(n for d in ring for n in (d - 1, d + 1) if 0 <= n <= last)
    return out
