"""Which records say the same thing (near-duplicates) and which say the opposite about the
same subject (contradictions), for ``lore consolidate``. Model-free: word stems, the files
and tags records share, and a short list of words that turn a choice around.

    text(a, b)  = Dice coefficient of the stems of their titles, polarity words left out:
                  2 |A ∩ B| / (|A| + |B|)
    body(a, b)  = Dice coefficient of the stems of the rest of their text (a decision's
                  rationale, a pattern's context, problem and solution, an anti-pattern's
                  symptom, risk and fix), when both have some
    files(a, b) = Jaccard index of the files they name, when both name some
    tags(a, b)  = Jaccard index of their tags besides the project's name, when both have some
    similarity  = (W_TEXT * text + W_BODY * body + W_FILES * files + W_TAGS * tags)
                  / (the weights used): body, files and tags count only when both
                  records have them

Near-duplicates: same kind, same project, the same polarity, text >= MIN_TEXT and
similarity >= DUPLICATE. Opposite choices: two decisions of one project, text >=
OPPOSITE_TEXT, one turned around by a polarity word (``not``, ``never``, ``avoid``,
``drop``, ...) and the other not; each turned-around decision is paired with its
closest opposite only. Clusters grow around the oldest record of each (a record
joins the first cluster whose first record it is close to; nothing chains).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

W_TEXT, W_BODY, W_FILES, W_TAGS = 0.8, 0.1, 0.1, 0.1
BODY_FIELDS = ("rationale", "context", "problem", "solution", "symptom", "risk", "fix")
MIN_TEXT = 0.6
DUPLICATE = 0.8
OPPOSITE_TEXT = 0.6
BLOCK_KEYS = 2  # the rarest stems of a title that pick the records it is compared with
MAX_BLOCK = 64  # a stem that many records share picks nothing (it is not rare)
EXACT_STEMS = 12  # titles of at most this many stems are also paired by equal stems,
NEIGHBOUR_STEMS = 5  # and of at most this many by stems that differ by one
# Words that turn a choice around ("Use Redis" / "Do not use Redis", "Drop Redis").
POLARITY = frozenset(
    (
        *("not", "no", "never", "don't", "dont", "doesn't", "avoid", "avoiding", "stop"),
        *("stopped", "drop", "dropped", "remove", "removed", "without", "against"),
        *("abandon", "abandoned", "ban", "banned", "disable", "disabled", "deprecate"),
        *("deprecated",),
    )
)


class Item(NamedTuple):
    """One record as consolidation compares it."""

    id: str
    kind: str
    project: str | None
    timestamp: str
    stems: frozenset[str]
    negated: bool
    files: frozenset[str]
    tags: frozenset[str]
    record: Any


_WORD: list[Any] = []  # letters, hyphenated words whole ("no-op" is not "no")


def negated(title: str) -> bool:
    """Whether ``title`` holds a polarity word (``n't`` counts as ``not``)."""
    if not _WORD:
        import re

        _WORD.append(re.compile(r"[a-z]+(?:-[a-z]+)*"))
    text = title.lower().replace("’", "'").replace("n't", " not")
    return not POLARITY.isdisjoint(_WORD[0].findall(text))


def item(record: Any, title: str) -> Item:
    from lore.index import analyze

    stems = frozenset(analyze.terms(title)) - _POLARITY_STEMS()
    files: set[str] = set()
    for name in ("files", "entities"):
        value = getattr(record, name, None)
        if isinstance(value, list):
            files.update(v for v in value if isinstance(v, str) and ("/" in v or "." in v))
    tags = (
        frozenset(t for t in record.tags if isinstance(t, str) and t != record.project)
        if isinstance(record.tags, list)
        else frozenset()
    )
    project = record.project if isinstance(record.project, str) else None
    return Item(
        record.id,
        record.kind,
        project,
        str(record.timestamp),
        stems,
        negated(title),
        frozenset(files),
        tags,
        record,
    )


_POLARITY_CACHE: list[frozenset[str]] = []


def _POLARITY_STEMS() -> frozenset[str]:
    if not _POLARITY_CACHE:
        from lore.index import analyze

        _POLARITY_CACHE.append(frozenset(t for w in POLARITY for t in analyze.terms(w)))
    return _POLARITY_CACHE[0]


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return 2 * len(a & b) / (len(a) + len(b))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def body(it: Item, cache: dict[str, frozenset[str]]) -> frozenset[str]:
    """The stems of ``it``'s text beyond its title (BODY_FIELDS), made on first use (only
    pairs whose titles are close enough need them) and kept in ``cache`` for one run."""
    found = cache.get(it.id)
    if found is None:
        from lore.index import analyze

        texts = [getattr(it.record, name, "") for name in BODY_FIELDS]
        words = " ".join(t for t in texts if isinstance(t, str) and t.strip())
        found = cache[it.id] = frozenset(analyze.terms(words)) if words else frozenset()
    return found


def similarity(
    a: Item, b: Item, bodies: dict[str, frozenset[str]] | None = None
) -> tuple[float, float]:
    """(similarity, text) of two items (``bodies``: a cache of their body stems)."""
    text = dice(a.stems, b.stems)
    total, weights = W_TEXT * text, W_TEXT
    cache = {} if bodies is None else bodies
    body_a, body_b = body(a, cache), body(b, cache)
    if body_a and body_b:
        total, weights = total + W_BODY * dice(body_a, body_b), weights + W_BODY
    if a.files and b.files:
        total, weights = total + W_FILES * jaccard(a.files, b.files), weights + W_FILES
    if a.tags and b.tags:
        total, weights = total + W_TAGS * jaccard(a.tags, b.tags), weights + W_TAGS
    return total / weights, text


def pairs(items: list[Item]) -> Iterable[tuple[Item, Item]]:
    """The pairs worth comparing, among items of one kind and project: those sharing one
    of their BLOCK_KEYS rarest stems (a stem more than MAX_BLOCK items hold picks no one),
    and those whose stems are the same (titles of at most EXACT_STEMS stems) or differ by
    one stem (at most NEIGHBOUR_STEMS): short titles of common words still find their
    restatements. Such a block bigger than MAX_BLOCK pairs its oldest item with each
    other one."""
    groups: dict[tuple[str, str | None], list[Item]] = defaultdict(list)
    for it in items:
        groups[(it.kind, it.project)].append(it)
    for group in groups.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda it: (it.timestamp, it.id))
        df: dict[str, int] = defaultdict(int)
        for it in group:
            for stem in it.stems:
                df[stem] += 1
        rare_blocks: dict[str, list[int]] = defaultdict(list)
        near_blocks: dict[frozenset[str], list[int]] = defaultdict(list)
        for i, it in enumerate(group):
            for stem in sorted(it.stems, key=lambda s: (df[s], s))[:BLOCK_KEYS]:
                if df[stem] <= MAX_BLOCK:
                    rare_blocks[stem].append(i)
            if len(it.stems) <= EXACT_STEMS:
                near_blocks[it.stems].append(i)
            if 1 < len(it.stems) <= NEIGHBOUR_STEMS:
                for stem in it.stems:
                    near_blocks[it.stems - {stem}].append(i)
        seen: set[tuple[int, int]] = set()
        for members in (*rare_blocks.values(), *near_blocks.values()):
            if len(members) < 2:
                continue
            if len(members) > MAX_BLOCK:  # a star around the oldest: nothing chains anyway
                chosen = ((members[0], j) for j in members[1:])
            else:
                chosen = ((i, j) for x, i in enumerate(members) for j in members[x + 1 :])
            for i, j in chosen:
                key = (i, j) if i < j else (j, i)
                if key not in seen:
                    seen.add(key)
                    yield group[key[0]], group[key[1]]


def clusters(items: list[Item]) -> list[tuple[list[Item], float]]:
    """Near-duplicate clusters (two or more items), each with its lowest similarity to the
    cluster's first (oldest) item; in the order of their first items."""
    close: dict[str, dict[str, float]] = defaultdict(dict)
    bodies: dict[str, frozenset[str]] = {}
    for a, b in pairs(items):
        if a.negated != b.negated:
            continue
        sa, sb = a.stems, b.stems
        if 2 * len(sa & sb) < MIN_TEXT * (len(sa) + len(sb)):
            continue  # text below MIN_TEXT: not a near-duplicate whatever else they share
        score, text = similarity(a, b, bodies)
        if text >= MIN_TEXT and score >= DUPLICATE:
            close[a.id][b.id] = close[b.id][a.id] = score
    if not close:
        return []
    order = sorted((it for it in items if it.id in close), key=lambda it: (it.timestamp, it.id))
    rank = {it.id: (n, it) for n, it in enumerate(order)}
    taken: set[str] = set()
    out = []
    for first in order:
        if first.id in taken:
            continue
        mine = [rank[i][1] for i in sorted(close[first.id], key=lambda i: rank[i][0])]
        mine = [it for it in mine if it.id not in taken]
        if not mine:
            continue
        taken.add(first.id)
        taken.update(it.id for it in mine)
        out.append(([first, *mine], min(close[first.id][it.id] for it in mine)))
    return out


def opposites(items: list[Item], keep: Callable[[Item], bool]) -> list[tuple[Item, Item, float]]:
    """Pairs of items (``keep``: decisions still standing) that make opposite choices on
    the same subject, the older first: each turned-around item with the one item of the
    other polarity closest to it (the highest ``text``, then the newest), so N wordings of
    one choice against M of its opposite make at most M proposals, not N x M (the
    wordings of one side are near-duplicates, merged on their own)."""
    best: dict[str, tuple[tuple[float, str, str], Item, Item]] = {}
    for a, b in pairs([it for it in items if keep(it)]):
        if a.negated == b.negated:
            continue
        text = dice(a.stems, b.stems)
        if text < OPPOSITE_TEXT:
            continue
        turned, plain = (a, b) if a.negated else (b, a)
        rank = (text, plain.timestamp, plain.id)
        if turned.id not in best or rank > best[turned.id][0]:
            best[turned.id] = (rank, turned, plain)
    out = []
    for (text, _, _), turned, plain in best.values():
        older, newer = sorted((turned, plain), key=lambda it: (it.timestamp, it.id))
        out.append((older, newer, text))
    return out
