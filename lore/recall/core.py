"""Recall: ranked search over every searchable kind, with its filters. Returns data; never
prints. The ranking formula is in ``lore.recall.ranking``; the derived index in ``lore.index``; the
modes (failures, triggers, context, brief) in ``lore.recall.modes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lore import clock, timeexpr
from lore.errors import UsageError
from lore.index import analyze, weight
from lore.index.columns import SEARCH_KINDS
from lore.index.history import note_recalled, recall_counts
from lore.index.persist import Index, open_index
from lore.model import Record, kind_class
from lore.recall import intent, ranking, signals
from lore.store.core import Store
from lore.timeexpr import Window

DEFAULT_LIMIT = 10


@dataclass
class Hit:
    record: Record
    score: float
    parts: dict[str, float] = field(default_factory=dict)
    snippet: str = ""
    title: str = ""  # the title as text output shows it (paths relative to the repository)

    def to_dict(self, *, explain: bool = False) -> dict[str, Any]:
        out = result_dict(self.record, self.score)
        if explain:
            out["explain"] = {k: round(v, 4) for k, v in self.parts.items()}
        return out


def result_dict(record: Record, score: float | None = None) -> dict[str, Any]:
    """A record as recall prints it: ``id``, ``type`` (the KIND), ``score``, then every stored
    field. A stored field named ``type`` (a decision's own type) becomes ``<kind>_type``
    (``decision_type``); a stored ``score`` or ``explain`` becomes ``record_score``/..."""
    out: dict[str, Any] = {"id": record.id, "type": record.kind}
    if score is not None:
        out["score"] = round(score, 4)
    for key, value in record.to_dict().items():
        if key == "id":
            continue
        if key == "type":
            key = f"{record.kind.replace('-', '_')}_type"
        elif key in ("score", "explain"):
            key = f"record_{key}"
        out[key] = value
    return out


def parse_since(text: str | None) -> float | None:
    """``--since``: epoch seconds where a time expression (``lore.timeexpr``) starts."""
    return timeexpr.since(text)


def query_window(query: str) -> Window | None:
    """The time window a query names ("last week", "in May 2026"), which recall boosts."""
    return timeexpr.in_query(query)[0]


def parse_until(text: str | None) -> float | None:
    """``--until``: epoch seconds where a time expression (``lore.timeexpr``) ends (a date:
    through its end; an age or a date-time: that moment)."""
    return timeexpr.until(text)


def searchable_kinds(
    names: tuple[str, ...] | list[str], *, refused: str = "recall does not search"
) -> list[str]:
    """The kinds ``names`` name, each once; UsageError (``refused``...) for another kind."""
    out = []
    for name in names:
        kind = kind_class(name).KIND.name
        if kind not in SEARCH_KINDS:
            verb = refused.split()[-1]
            raise UsageError(f"{refused} {kind}s; it {verb}s {', '.join(SEARCH_KINDS)}")
        if kind not in out:
            out.append(kind)
    return out


# --- ranking ------------------------------------------------------------------------------


@dataclass
class Ranked:
    doc: int
    score: float
    parts: dict[str, float]


@dataclass
class Ranking:
    index: Index
    ranked: list[Ranked]  # best first; exact for the first ``limit`` (all when limit is 0)
    total: int | None  # how many records match (None: not counted, see ``rank``)
    matched: set[str]  # the index terms that matched (for snippets)
    window: Window | None = None  # the time window the query named, if any
    named: list[str] = field(default_factory=list)  # the kinds the query named, if any


@dataclass
class Asked:
    """What a query asked beyond its words (filled by ``recall`` when given): the time
    window it names and the kinds of record it names (``lore.recall.intent``)."""

    window: Window | None = None
    kinds: list[str] = field(default_factory=list)


def rank(
    store: Store,
    query: str,
    *,
    kinds: tuple[str, ...] | list[str] = (),
    project: str | None = None,
    tags: tuple[str, ...] | list[str] = (),
    since: str | None = None,
    show_hidden: bool = False,
    here: str | None = None,
    limit: int = 0,
    index: Index | None = None,
    until: str | None = None,
    count: bool = False,
    candidates: set[int] | None = None,
) -> Ranking:
    """Every matching record, best first, without reading a single record.

    A time expression inside ``query`` ("last week", "in May 2026") is not matched as
    text: records inside the window it names weigh more (``lore.recall.signals.WINDOW_BOOST``).
    A kind the query names ("what failed", "decisions", ``lore.recall.intent``; among
    ``kinds`` when given) is not matched as text either: its records weigh more
    (``signals.KIND_BOOST``), and a query that names kinds and holds no other word lists
    those kinds' records (inside its time window, if it names one), ranked as any result
    with full relevance. With a ``limit``, records that cannot reach the top ``limit``
    (their relevance plus the largest possible other components is below the
    ``limit``-th score) are not scored (``lore.recall.prune`` proves which), and not
    counted either (``total`` None) unless ``count``. ``candidates``: score only these
    records and their neighbours, unproved (how ``bench/fts5.py`` puts another candidate
    generator under this ranking).
    """
    wanted = {SEARCH_KINDS.index(k) for k in searchable_kinds(list(kinds))}
    since_epoch = timeexpr.since(since)
    until_epoch = timeexpr.until(until)
    window, words = timeexpr.in_query(query)
    idx = index or open_index(store)
    # Kind words count when the store holds such records (and --kind, if given, keeps them).
    named, words = intent.kinds_in(
        words,
        lambda kind: (not wanted or SEARCH_KINDS.index(kind) in wanted) and bool(idx.docs(kind)),
    )
    terms = analyze.query_terms(words)
    n = idx.size
    if n == 0 or not (terms or named):
        return Ranking(idx, [], 0, set(), window, named)
    boost = {SEARCH_KINDS.index(k) for k in named}

    def finish(
        text: dict[int, float], exact: dict[int, float], fuzzy: dict[int, float]
    ) -> tuple[list[Ranked], dict[int, float]]:
        """Filters, then the blend: the ranked records and the text scores that passed."""
        hidden = idx.hidden_docs() if not show_hidden else set()
        for d in idx.dead | hidden:
            text.pop(d, None)
        member = _membership(idx, project) if project else None
        tagged = None
        for tag in tags:
            tagged = idx.tagged(tag) if tagged is None else tagged & idx.tagged(tag)
        timed = since_epoch is not None or until_epoch is not None
        if wanted or timed or member is not None or tagged is not None:
            kinds_col, ts = idx.kinds, idx.ts
            low = since_epoch if since_epoch is not None else float("-inf")
            high = until_epoch if until_epoch is not None else float("inf")
            text = {
                d: v
                for d, v in text.items()
                if not (
                    (wanted and kinds_col[d] not in wanted)
                    or (timed and not low <= ts[d] < high)
                    or (member is not None and not member(d))
                    or (tagged is not None and d not in tagged)
                )
            }
        if not text:
            return [], text
        scored = _score(store, idx, text, exact, fuzzy, project or here, limit, show_hidden)
        return scored, text

    if not terms:  # only kinds (and a time): those records, inside the window
        text = {
            d: 1.0
            for kind in named
            for d in idx.docs(kind, hidden=show_hidden)
            if window is None or window.contains(idx.ts[d])
        }
        ranked, text = finish(text, {}, {})
        matched: set[str] = set()
        total: int | None = len(text)
    else:
        planned = signals.plan(idx, terms, store)
        found = None
        if candidates is not None:  # another generator's candidates (bench/fts5.py)
            from lore.recall.prune import with_neighbours

            only = with_neighbours(idx, list(candidates))
            text, exact, fuzzy, matched = signals.relevance(
                idx, terms, window, store, boost, planned=planned, only=only
            )
            found = (*finish(text, exact, fuzzy), matched)
        elif limit > 0 and not show_hidden and count is False:
            found = _pruned(store, idx, terms, planned, window, boost, limit, finish)
        if found is not None:
            ranked, text, matched = found
            total = None  # only the records that could make the first ``limit`` were scored
        else:
            text, exact, fuzzy, matched = signals.relevance(
                idx, terms, window, store, boost, planned=planned
            )
            ranked, text = finish(text, exact, fuzzy)
            total = len(text)
    if not ranked:
        return Ranking(idx, [], 0 if total is not None else None, matched, window, named)
    if window is not None:
        for r in ranked:
            r.parts["window"] = 1.0 if window.contains(idx.ts[r.doc]) else 0.0
    if boost:
        for r in ranked:
            r.parts["kind"] = 1.0 if idx.kinds[r.doc] in boost else 0.0
    return Ranking(idx, ranked, total, matched, window, named)


def _pruned(
    store: Store,
    idx: Index,
    terms: list[str],
    planned: signals.Plan,
    window: Window | None,
    boost: set[int],
    limit: int,
    finish: Any,
) -> tuple[list[Ranked], dict[int, float], set[str]] | None:
    """``rank``'s answer from the records that can still make the first ``limit``
    (``lore.recall.prune``), or None when that set cannot be proved enough."""
    from lore.recall import prune

    factor = 1.0
    if window is not None:
        factor *= 1.0 + signals.WINDOW_BOOST
    if boost:
        factor *= 1.0 + signals.KIND_BOOST
    times = recall_counts(store.root)
    others = ranking.W_RECENCY + ranking.W_IMPORTANCE + ranking.W_PROJECT
    others += ranking.W_RECALLED * ranking.recalled(max(times.values(), default=0))
    matched: set[str] = set()

    def evaluate(only: set[int]) -> tuple[list[Ranked], dict[int, float]]:
        text, exact, fuzzy, seen = signals.relevance(
            idx, terms, window, store, boost, planned=planned, only=only
        )
        matched.update(seen)
        return finish(text, exact, fuzzy)

    levels = prune.Levels(idx, terms, planned)
    found = prune.search(idx, levels, limit, factor, others, evaluate)
    if found is None:
        return None
    return found[0], found[1], matched


def _score(
    store: Store,
    idx: Index,
    text: dict[int, float],
    exact: dict[int, float],
    fuzzy: dict[int, float],
    here: str | None,
    limit: int,
    show_hidden: bool,
) -> list[Ranked]:
    """Blend the components (``lore.recall.ranking``) for the records that can make the top.

    Pruning is exact. Every component but relevance adds at most its weight, so once the
    best ``limit`` records by text have a score, a record whose relevance plus the other
    weights is below the ``limit``-th of those cannot make the top; likewise the recall
    history (the only part that needs a record's id) is looked up only for records close
    enough to the top to be moved by it. With --all nothing is pruned: demoting
    superseded records below their replacements can reorder the top.
    """
    top_text = max(text.values())
    now = clock.parse_timestamp(clock.now()).timestamp()
    times = recall_counts(store.root)
    failure = SEARCH_KINDS.index("failure")
    kinds, imp, ts, grp, proj = idx.kinds, idx.imp, idx.ts, idx.grp, idx.proj
    code = idx.project_code(here) if here else -1
    tagged = idx.tagged(here) if here else set()
    without_history = ranking.without_history

    def components(d: int) -> tuple[float, float, float, bool]:
        own = weight.failure_importance(idx.group_count(grp[d])) if kinds[d] == failure else imp[d]
        age = (now - ts[d]) / 86400.0 if ts[d] else 1e6
        return text[d] / top_text, age, own, proj[d] == code or d in tagged

    def base(d: int) -> float:
        own = weight.failure_importance(idx.group_count(grp[d])) if kinds[d] == failure else imp[d]
        age = (now - ts[d]) / 86400.0 if ts[d] else 1e6
        return without_history(text[d] / top_text, age, own, proj[d] == code or d in tagged)

    history = ranking.W_RECALLED * ranking.recalled(max(times.values(), default=0))
    prune = limit > 0 and not show_hidden and len(text) > limit
    pool: list[int] = list(text)
    if prune:
        kth_text = sorted(text.values(), reverse=True)[limit - 1]
        firsts = sorted((base(d) for d, v in text.items() if v >= kth_text), reverse=True)
        others = ranking.W_RECENCY + ranking.W_IMPORTANCE + ranking.W_PROJECT
        floor = (firsts[limit - 1] - others - history) / ranking.W_TEXT * top_text
        pool = [d for d, v in text.items() if v >= floor]
    scores = {d: base(d) for d in pool}
    if prune:
        bar = sorted(scores.values(), reverse=True)[limit - 1] - history
        pool = [d for d, s in scores.items() if s >= bar]
    totals = {}
    for d in pool:
        total = scores[d] + ranking.W_RECALLED * ranking.recalled(times.get(idx.id_of(d), 0))
        totals[d] = total * ranking.HIDDEN_FACTOR if idx.hidden[d] else total
    if prune:  # the top ``limit``, and anything tied with the last of them
        last = sorted(((s, ts[d]) for d, s in totals.items()), reverse=True)[limit - 1]
        pool = [d for d, s in totals.items() if (s, ts[d]) >= last]
        pool += _replacements_of(idx, pool, text)
    ranked = []
    for d in pool:
        relevance, age, own, mine = components(d)
        parts = {"bm25": exact.get(d, 0.0), "fuzzy": fuzzy.get(d, 0.0)}
        parts.update(ranking.blend(relevance, age, own, mine, times.get(idx.id_of(d), 0)))
        if idx.hidden[d]:
            parts["hidden_factor"] = ranking.HIDDEN_FACTOR
            parts["score"] *= ranking.HIDDEN_FACTOR
        ranked.append(Ranked(d, parts["score"], parts))
    _below_replacements(idx, ranked)
    ranked.sort(key=lambda r: (-r.score, -ts[r.doc], idx.id_of(r.doc)))
    return ranked


def _membership(idx: Index, project: str) -> Any:
    """A test for "record of ``project``": its own project, or tagged with its name."""
    code = idx.project_code(project)
    tagged = idx.tagged(project)
    proj = idx.proj
    return lambda doc: proj[doc] == code or doc in tagged


def _replacements_of(idx: Index, pool: list[int], text: dict[int, float]) -> list[int]:
    """The matching records that replaced records of ``pool`` but were pruned from it (a
    promoted observation's target): they are scored too, so it can rank below them."""
    wanted = {idx.replaced[d] for d in pool if d in idx.replaced}
    if not wanted:
        return []
    have = set(pool)
    return [d for d in idx.find_ids(wanted).values() if d in text and d not in have]


def _below_replacements(idx: Index, ranked: list[Ranked]) -> None:
    """A record never outranks the record that replaced it: a superseded one (shown with
    --all) its successor, a promoted observation the record it was promoted to."""
    by_id = {idx.id_of(r.doc): r for r in ranked}
    pairs = [
        (r, by_id[target])
        for r in ranked
        if (target := idx.replaced.get(r.doc)) in by_id and by_id[target] is not r
    ]
    for _ in range(len(pairs)):  # a chain A -> B -> C settles in at most len(pairs) passes
        moved = False
        for old, new in pairs:
            if old.score >= new.score:
                old.score = old.parts["score"] = new.score * 0.999
                moved = True
        if not moved:
            break


def hits(store: Store, idx: Index, ranked: list[Ranked], matched: set[str]) -> list[Hit]:
    """Read the records behind ``ranked`` and pick each one's best snippet (paths under
    the repository around the working directory shown relative to it)."""
    from lore.git.info import find_repo

    repo = find_repo()
    prefix = str(repo.top).rstrip("/") + "/" if repo is not None else None
    out = []
    for r in ranked:
        record = idx.fetch(store, r.doc)
        kind = record.KIND
        values: list[str] = []
        title = getattr(record, kind.title, None)
        shown = " ".join(title.split()) if isinstance(title, str) else ""
        for name in kind.search:
            if name in (kind.title, "tags"):  # the title is on the first line already
                continue
            value = getattr(record, name, None)
            if isinstance(value, str):
                # A session's message starts with its summary (the title): show the rest.
                flat = " ".join(value.split())
                if shown and flat.startswith(shown):
                    value = flat[len(shown) :].strip()
                values.append(value)
            elif isinstance(value, list):
                values.extend(v for v in value if isinstance(v, str))
        if prefix:
            values = [v.replace(prefix, "") for v in values]
            shown = shown.replace(prefix, "")
        snippet = ranking.best_snippet(values, matched)
        out.append(Hit(record, r.score, r.parts, snippet, shown))
    return out


def recall(
    store: Store,
    query: str,
    *,
    kinds: tuple[str, ...] | list[str] = (),
    project: str | None = None,
    tags: tuple[str, ...] | list[str] = (),
    since: str | None = None,
    limit: int = DEFAULT_LIMIT,
    show_hidden: bool = False,
    here: str | None = None,
    remember: bool = True,
    until: str | None = None,
    asked: Asked | None = None,
) -> list[Hit]:
    """The ``limit`` best records for ``query`` (0: all), best first.

    ``project`` filters; ``here`` (the current project) only raises affinity;
    ``since``/``until`` are time expressions (``lore.timeexpr``) that filter. With
    ``remember``, the returned ids count as recalled once more (local history).
    ``asked``, when given, receives the window and kinds the query named.
    """
    result = rank(
        store,
        query,
        kinds=kinds,
        project=project,
        tags=tags,
        since=since,
        until=until,
        show_hidden=show_hidden,
        here=here,
        limit=limit,
    )
    if asked is not None:
        asked.window, asked.kinds = result.window, list(result.named)
    chosen = result.ranked[:limit] if limit else result.ranked
    found = hits(store, result.index, chosen, result.matched)
    if remember:
        note_recalled(store.root, [h.record.id for h in found])
    return found
