"""Recall: ranked search over every searchable kind, with its filters. Returns data; never
prints. The ranking formula is in ``lore.recall.ranking``; the derived index in ``lore.index``; the
modes (failures, triggers, context, brief) in ``lore.recall.modes``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lore import clock, timeexpr
from lore.errors import UsageError
from lore.index import analyze, weight
from lore.index.columns import SEARCH_KINDS
from lore.index.history import most_used, note_recalled, usage
from lore.index.persist import Index, open_index
from lore.model import Record, kind_class
from lore.recall import intent, ranking, signals
from lore.store.core import Store
from lore.timeexpr import Window

DEFAULT_LIMIT = 10
_MARGIN = 1e-9  # what pruning allows for rounding (scores are sums of a few floats)


@dataclass
class Hit:
    """A record found, its score and the parts of it; ``title`` and ``snippet``, what text
    output shows, are worked out on first use (a JSON answer never needs them)."""

    record: Record
    score: float
    parts: dict[str, float] = field(default_factory=dict)
    stale: list[str] = field(default_factory=list)  # its files that changed since capture
    # The terms a snippet marks (None: no snippet, no title) and the repository's path to
    # cut from paths (None: not inside one), looked up once for all the hits of a search.
    matched: set[str] | None = field(default=None, repr=False, compare=False)
    prefix: Callable[[], str | None] = field(default=lambda: None, repr=False, compare=False)

    @property
    def title(self) -> str:
        """The title as text output shows it (paths relative to the repository)."""
        return self._shown[0]

    @property
    def snippet(self) -> str:
        """The value that matches the most of the query's terms, marked and cut."""
        return self._shown[1]

    @functools.cached_property
    def _shown(self) -> tuple[str, str]:
        if self.matched is None:
            return "", ""
        return _shown(self.record, self.matched, self.prefix())

    def to_dict(self, *, explain: bool = False) -> dict[str, Any]:
        out = result_dict(self.record, self.score)
        if self.stale:
            out["stale"] = self.stale
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
    stale: list[str] = field(default_factory=list)


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


@dataclass
class Uses:
    """This machine's use of records (``lore.index.history``): each id's, and the most."""

    table: dict[str, Any]
    top: int

    @classmethod
    def of(cls, store: Store) -> Uses:
        table = usage(store.root)
        return cls(table, most_used(store.root, table))


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
    mine = project or here  # the project whose records score its part
    uses = functools.cache(functools.partial(Uses.of, store))  # read once (four files)

    def finish(
        text: dict[int, float], exact: dict[int, float], fuzzy: dict[int, float]
    ) -> tuple[list[Ranked], dict[int, float]]:
        """Filters, then the blend: the ranked records and the text scores that passed."""
        hidden = idx.hidden_docs() if not show_hidden else set()
        for d in text.keys() & (idx.dead | hidden if idx.dead else hidden):  # (the fewer)
            text.pop(d)
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
        scored = _score(store, idx, text, exact, fuzzy, mine, limit, show_hidden, uses())
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
            found = _pruned(store, idx, terms, planned, window, boost, limit, finish, mine, uses())
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
    here: str | None,
    uses: Uses | None = None,
) -> tuple[list[Ranked], dict[int, float], set[str]] | None:
    """``rank``'s answer from the records that can still make the first ``limit``
    (``lore.recall.prune``), or None when that set cannot be proved enough. ``here``: the
    project whose records score its part."""
    from lore.recall import prune

    factor = 1.0
    if window is not None:
        factor *= 1.0 + signals.WINDOW_BOOST
    if boost:
        factor *= 1.0 + signals.KIND_BOOST
    others = besides_text(store, idx, here, uses)
    matched: set[str] = set()
    known = signals.Known()  # each round scores more records: only those are new

    def evaluate(only: set[int]) -> tuple[list[Ranked], dict[int, float]]:
        known.grow(only)
        text, exact, fuzzy, seen = signals.relevance(
            idx, terms, window, store, boost, planned=planned, only=only, known=known
        )
        matched.update(seen)
        return finish(text, exact, fuzzy)

    levels = prune.Levels(idx, terms, planned)
    found = prune.search(idx, levels, limit, factor, others, evaluate)
    if found is None:
        return None
    return found[0], found[1], matched


def besides_text(
    store: Store, idx: Index, here: str | None = None, uses: Uses | None = None
) -> float:
    """The most any record's score can hold besides its text (``lore.recall.ranking``):
    W_ACTIVATION x the largest activation a record of this store can have (freshness and
    importance at most 1 each; use at most the share of the most used id here and the most
    cited record) + W_PROJECT when some record can get it (``project_part``). Staleness and
    hiding only multiply a score by less than 1, and keeping a record below its replacement
    only lowers it, so no score is above its text part plus this."""
    from lore.dynamics import activation as model

    top_use = (uses or Uses.of(store)).top
    share = model.use_share(top_use, idx.cited_max())
    most = model.W_FRESH * 1.0 + model.W_USE * share + model.W_VALUE * 1.0
    return ranking.W_ACTIVATION * most + project_part(idx, here)


def project_part(idx: Index, here: str | None) -> float:
    """The project's part a record can get: W_PROJECT if ``here`` is a project some record
    belongs to or a tag some record carries, else nothing (no record gets it)."""
    if here and (idx.project_code(here) >= 0 or idx.tags.get(here)):
        return ranking.W_PROJECT
    return 0.0


def _score(
    store: Store,
    idx: Index,
    text: dict[int, float],
    exact: dict[int, float],
    fuzzy: dict[int, float],
    here: str | None,
    limit: int,
    show_hidden: bool,
    uses: Uses,
) -> list[Ranked]:
    """Blend the components (``lore.recall.ranking``) for the records that can make the top.

    Pruning is exact. The ``limit`` best records by text get their full score first; the
    ``limit``-th of those is a floor no pruned record could have passed, because every
    other component adds at most its weight (activation at most 1) and staleness only
    lowers a score. The parts of activation that need a record's id (its use on this
    machine, the records citing it) are looked up only for records whose score without
    them, plus the most they could add, still reaches that floor. With --all nothing is
    pruned: demoting superseded records below their replacements can reorder the top.
    """
    from lore.dynamics import activation as model

    top_text = max(text.values())
    now = clock.parse_timestamp(clock.now()).timestamp()
    used = uses.table
    failure = SEARCH_KINDS.index("failure")
    kinds, imp, ts, grp, proj = idx.kinds, idx.imp, idx.ts, idx.grp, idx.proj
    pins = idx.pins
    code = idx.project_code(here) if here else -1
    tagged = idx.tagged(here) if here else set()
    halves = [model.half_life(kind) * model.DAY for kind in SEARCH_KINDS]
    w_act, w_fresh, w_value = ranking.W_ACTIVATION, model.W_FRESH, model.W_VALUE
    checker = _Stale(store, idx, here) if idx.has_anchors() else None

    def own(d: int) -> float:
        return weight.failure_importance(idx.group_count(grp[d])) if kinds[d] == failure else imp[d]

    def recency(d: int) -> float:
        return 0.5 ** (max(now - ts[d], 0.0) / halves[kinds[d]]) if ts[d] else 0.0

    def activation(d: int) -> model.Activation:
        rid = idx.id_of(d)
        use = used.get(rid)
        return model.score(
            SEARCH_KINDS[kinds[d]],
            created=ts[d],
            now=now,
            last_used=use.last if use else 0.0,
            uses=use.total if use else 0,
            cited=idx.cited_count(d),
            importance=own(d),
            pinned=d in pins,
        )

    def parts(d: int) -> dict[str, float]:
        mine = proj[d] == code or d in tagged
        stale = checker is not None and bool(checker.stale(d))
        found = ranking.blend(text[d] / top_text, activation(d), mine, stale)
        if idx.hidden[d]:
            found["hidden_factor"] = ranking.HIDDEN_FACTOR
            found["score"] *= ranking.HIDDEN_FACTOR
        return found

    totals: dict[int, dict[str, float]] = {}

    def total(d: int) -> float:
        found = totals.get(d)
        if found is None:
            found = totals[d] = parts(d)
        return found["score"]

    prune = limit > 0 and not show_hidden and len(text) > limit
    pool: list[int] = list(text)
    if prune:
        kth_text = sorted(text.values(), reverse=True)[limit - 1]
        firsts = sorted((total(d) for d, v in text.items() if v >= kth_text), reverse=True)
        # The limit-th best score is at least ``bar``; the comparisons below allow for
        # rounding (a record can reach the bound exactly), so they keep a hair more.
        bar = firsts[limit - 1] - _MARGIN
        # Without a project here (no records of it, none tagged with it) no record gets
        # the project's part, so it is not counted in what the others may add.
        project = project_part(idx, here)
        floor = (bar - w_act - project) / ranking.W_TEXT * top_text
        pool = [d for d, v in text.items() if v >= floor or d in totals]
        top_use = uses.top
        top_cited = idx.cited_max()
        # What use can add: its share, and (a last use raising freshness) the rest of it.
        gain = w_act * model.W_USE * model.use_share(top_use, top_cited)
        fresher = w_act * w_fresh if used else 0.0
        # A record never used here gains from citations alone (and no fresher last use).
        unused_gain = w_act * model.W_USE * model.use_share(0, top_cited)
        # Freshness adds at most w_act * w_fresh, whatever a record's age (a fresher last
        # use only brings it up to that): a record below the bar with that much is out
        # before its age is worked out.
        most_fresh = w_act * w_fresh + gain
        scale = ranking.W_TEXT / top_text

        def may_reach(d: int) -> bool:
            if d in totals:
                return True
            own_part = scale * text[d] + w_act * w_value * own(d)
            if project and (proj[d] == code or d in tagged):
                own_part += project
            if own_part + most_fresh < bar:
                return False
            if d in pins:
                own_part += w_act * w_fresh
                if own_part + gain < bar:
                    return False
            else:
                fresh = recency(d)
                own_part += w_act * w_fresh * fresh
                if own_part + gain + fresher * (1.0 - fresh) < bar:
                    return False
            # its id is looked up only when use is what could lift it to the bar
            return own_part + unused_gain >= bar or idx.id_of(d) in used

        pool = list(filter(may_reach, pool))

    scores = {d: total(d) for d in pool}
    if prune:  # the top ``limit``, and anything tied with the last of them
        last = sorted(((s, ts[d]) for d, s in scores.items()), reverse=True)[limit - 1]
        pool = [d for d, s in scores.items() if (s, ts[d]) >= last]
        extra = _replacements_of(idx, pool, text)  # scored too: never above what replaced them
        for d in extra:
            total(d)
        pool += extra
    ranked = []
    for d in pool:
        found = {"bm25": exact.get(d, 0.0), "fuzzy": fuzzy.get(d, 0.0), **totals[d]}
        paths = checker.stale(d) if checker is not None else []
        ranked.append(Ranked(d, found["score"], found, paths))
    if checker is not None:
        checker.save()
    _below_replacements(idx, ranked)
    ranked.sort(key=lambda r: (-r.score, -ts[r.doc], idx.id_of(r.doc)))
    return ranked


class _Stale:
    """Whether an indexed record's advice is stale in this checkout (``lore.dynamics.fresh``),
    asked only for records that carry file hashes."""

    def __init__(self, store: Store, idx: Index, here: str | None) -> None:
        from lore.dynamics.fresh import Checker

        self.idx = idx
        self.checker = Checker(store.root.local, project=here)
        self.known: dict[int, list[str]] = {}

    def stale(self, doc: int) -> list[str]:
        """The record's files that changed since it was captured (empty: fresh)."""
        found = self.known.get(doc)
        if found is None:
            anchors = self.idx.anchors_of(doc) if self.idx.anchored(doc) else None
            project = self.idx.projects[self.idx.proj[doc]]
            found = []
            if anchors and self.checker.applies(project):
                found = self.checker.changed(anchors)
            self.known[doc] = found
        return found

    def save(self) -> None:
        self.checker.save()


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
    """Read the records behind ``ranked``; each hit's best snippet is picked when it is
    first asked for (paths under the repository around the working directory shown
    relative to it)."""
    prefix = functools.cache(_repo_prefix)
    records = idx.fetch_many(store, [r.doc for r in ranked])
    return [
        Hit(record, r.score, r.parts, r.stale, matched, prefix)
        for r, record in zip(ranked, records, strict=True)
    ]


def _repo_prefix() -> str | None:
    from lore.git.info import find_repo

    repo = find_repo()
    return str(repo.top).rstrip("/") + "/" if repo is not None else None


def _shown(record: Record, matched: set[str], prefix: str | None) -> tuple[str, str]:
    """``record``'s title as text output shows it, and its best snippet for ``matched``."""
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
    return shown, ranking.best_snippet(values, matched)


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
