"""Resume: what the last session left, as one read-only bundle plus a budgeted text form.

Composes the transfer, journal, patterns, failures and intent components. Never
writes (``--fork`` is the CLI asking transfer to start a session afterwards).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import compress
from typing import Any

from lore import clock
from lore.capture.failure_rules import recurring
from lore.components.journal import Decision
from lore.components.patterns import flag_summary
from lore.components.transfer import Session
from lore.index.view import ProjectView, top
from lore.sessions.handoff import last_handoff
from lore.store.core import Store

RECENT_DECISIONS = 10
# Which decisions resume shows: the most important, by a weighted sum (see
# ``rank_decisions``; its static part is ``lore.index.write.decision_weight``).
W_ACTIVATION = 0.5  # its importance share (x W_VALUE) is lore.index.write.W_DECISION_VALUE
TOP_PATTERNS = 5
MAX_GOALS = 10  # goals listed (by priority); goals_count has them all
MAX_PENDING = 10  # decisions pending review listed (oldest first); pending_review_count all
REVIEW_AFTER_DAYS = 3
_ROUNDING = 1e-6  # how far a decision's base may be from its exact value (32-bit columns)


@dataclass
class ResumeBundle:
    project: str | None
    session: dict[str, Any] | None
    reconstructed: dict[str, Any] | None
    recent_decisions: list[dict[str, Any]] = field(default_factory=list)
    patterns: list[dict[str, Any]] = field(default_factory=list)
    pitfalls: list[dict[str, Any]] = field(default_factory=list)
    recurring_failures: list[dict[str, Any]] = field(default_factory=list)
    goals: list[dict[str, Any]] = field(default_factory=list)
    pending_review: list[dict[str, Any]] = field(default_factory=list)
    fork: dict[str, Any] | None = None
    goals_count: int = 0
    pending_review_count: int = 0
    # An automatic handoff's own threads (its transcript's requests), which the text
    # lists after the items it carried over; not part of the JSON document.
    own_threads: list[str] = field(default_factory=list)
    # lore.dynamics: conflicts a merge left, and what the last `lore consolidate` proposed.
    tending: dict[str, Any] = field(default_factory=lambda: {"conflicts": 0, "proposals": None})

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "session": self.session,
            "reconstructed": self.reconstructed,
            "recent_decisions": self.recent_decisions,
            "patterns": self.patterns,
            "pitfalls": self.pitfalls,
            "recurring_failures": self.recurring_failures,
            "goals": self.goals,
            "goals_count": max(self.goals_count, len(self.goals)),
            "pending_review": self.pending_review,
            "pending_review_count": max(self.pending_review_count, len(self.pending_review)),
            "fork": self.fork,
            "tending": self.tending,
        }


def resume(
    store: Store,
    *,
    project: str | None,
    session_id: str | None = None,
    threshold: int = 3,
    git: dict[str, Any] | None = None,
) -> ResumeBundle:
    """Gather the resume bundle (read-only, apart from refreshing the derived index)."""
    view = ProjectView(store, project)
    session: Any
    if session_id:
        session = store.get(session_id)
        if not isinstance(session, Session):
            from lore.errors import UsageError

            article = "an" if session.kind[0] in "aeiou" else "a"
            raise UsageError(f"{session_id} is {article} {session.kind}, not a session")
    else:
        session = last_handoff(store, project, view.index)
    bundle = ResumeBundle(project=project, session=None, reconstructed=None)
    if session is not None:
        bundle.session = {
            key: value for key, value in session.to_dict().items() if key in SESSION_KEYS
        }
        auto = session.extra.get("auto")
        carried = auto.get("carried_from") if isinstance(auto, dict) else None
        bundle.session["carried_from"] = carried if isinstance(carried, str) else None
        # The handoff's own open items ("threads"; older automatic handoffs: their requests).
        own = (auto.get("threads", auto.get("requests"))) if isinstance(auto, dict) else None
        bundle.own_threads = [t for t in own if isinstance(t, str)] if isinstance(own, list) else []
    ts = view.index.ts
    cutoff = (clock.parse_timestamp(clock.now()) - timedelta(days=REVIEW_AFTER_DAYS)).timestamp()
    pending = [d for d in view.docs("decision", flagged=True) if ts[d] <= cutoff]
    due = set(pending)
    marks = StaleMarks(view)
    ranked = rank_decisions(view, view.docs("decision"), RECENT_DECISIONS, marks)
    bundle.recent_decisions = [
        _marked({**_decision(view.read(d)), "review_due": d in due}, marks, d) for d in ranked
    ]
    if session is None:
        bundle.reconstructed = {
            "note": "no handoff yet: context rebuilt from recent records and git history",
            "git": git,
            "recent_observations": _noticed(view, marks),
        }
    idx = view.index
    rank_a, rank_b = idx.fa, idx.fb  # what each kind is ordered by (``rank_keys``)
    # Flagged advice (lore patterns flag) after every unflagged pattern, then most trusted
    # (confidence, validations), then newest.
    unflagged = idx.unflagged()
    patterns = _advice(view.docs("pattern"), (unflagged, rank_a, rank_b, ts), True, marks)
    bundle.patterns = [
        _marked(
            {
                "id": p.id,
                "name": p.name,
                "solution": p.solution,
                "confidence": p.confidence,
                "validations": p.validations,
                "flagged": flag_summary(p.flags),
            },
            marks,
            d,
        )
        for d, p in ((d, view.read(d)) for d in patterns)
    ]
    # Pitfalls by severity, goals by priority (ranks: the most severe first), then oldest.
    pitfalls = _advice(view.docs("anti-pattern"), (rank_a, ts), False, marks)
    bundle.pitfalls = [
        _marked({"id": a.id, "name": a.name, "fix": a.fix, "severity": a.severity}, marks, d)
        for d, a in ((d, view.read(d)) for d in pitfalls)
    ]
    marks.save()
    bundle.recurring_failures = recurring(view, threshold)
    goals = view.docs("goal", flagged=True)
    bundle.goals_count = len(goals)
    goals = top(goals, MAX_GOALS, (rank_a, ts), largest=False)
    bundle.goals = [
        {
            "id": g.id,
            "title": g.title,
            "priority": g.priority,
            "criteria_met": g.criteria_met[0],
            "criteria_total": g.criteria_met[1],
            "completion": g.completion,
        }
        for g in map(view.read, goals)
    ]
    bundle.pending_review_count = len(pending)
    pending = top(pending, MAX_PENDING, (ts,), largest=False)
    bundle.pending_review = [_decision(view.read(d)) for d in pending]
    bundle.tending = tending(store, view.index)
    return bundle


def tending(store: Store, idx: Any) -> dict[str, Any]:
    """``{"conflicts": n, "proposals": {"count", "at", "current"} or None}``: the open
    conflicts a merge left (``lore.dynamics.conflicts``, cached by the logs' stamps) and
    the count the last ``lore consolidate`` found (``current``: nothing changed since)."""
    from lore.dynamics.tally import conflict_count, remembered, state_key

    last = remembered(store)
    proposals = None
    if last is not None and isinstance(last.get("count"), int):
        current = last.get("key") == state_key(idx)
        proposals = {"count": last["count"], "at": last.get("at"), "current": current}
    return {"conflicts": conflict_count(store, idx), "proposals": proposals}


def rank_decisions(
    view: ProjectView, docs: list[int], n: int, stale: StaleMarks | None = None
) -> list[int]:
    """The ``n`` most important of ``docs`` (decisions), most important first.

    importance = (decision_weight + W_ACTIVATION * activation) x (STALE_FACTOR if stale),
    where ``lore.index.write.decision_weight`` weighs type, outcome (with a lesson's bonus)
    and spec_quality, and activation is ``lore.dynamics.activation`` (recency with the
    decisions' half-life, use on this machine, citations, importance; a pinned decision
    never decays). Its importance part is static, so the index's ``dw`` column holds it
    already (``W_DECISION_VALUE``). Ties: the newer first. From the index's columns alone:
    the parts that need a record's id (use here) and the staleness of its files are looked
    up only for the decisions that could still make the cut.
    """
    from lore.dynamics import activation as model
    from lore.index.history import most_used, usage

    if not docs:
        return []
    from operator import add, itemgetter

    idx = view.index
    pick = itemgetter(*docs) if len(docs) > 1 else lambda column: (column[docs[0]],)
    times: tuple[float, ...] = pick(idx.ts)
    now = clock.now_datetime().timestamp()
    # A record from the future (a clock ahead, a typo) counts as made now.
    aged = times if max(times) <= now else tuple(min(t, now) for t in times)
    # recency = 0.5 ** (age / half-life) = c * exp(k * time): one multiplication a record.
    # A record without a time (0) comes out at 0, as in recall.
    k = math.log(2.0) / (model.half_life("decision") * model.DAY)
    w_fresh = W_ACTIVATION * model.W_FRESH
    c = w_fresh * math.exp(-k * now)
    exp = math.exp
    w_use = W_ACTIVATION * model.W_USE
    cit_known = idx.cit_valid  # ``dw`` holds each decision's citations' share (``cw``)
    # w + c * exp(k * t) for each, the same operations in the same order, in C
    base = list(map(add, pick(idx.dw), map(c.__mul__, map(exp, map(k.__mul__, aged)))))
    pins = idx.pins
    if pins:  # a pinned decision is as fresh as a new one
        base = [
            b + (w_fresh - c * exp(k * t) if d in pins else 0.0)
            for b, t, d in zip(base, aged, docs, strict=True)
        ]
    used = usage(view.store.root)
    top_use = most_used(view.store.root)
    # What the parts that need an id can still add: use here (a last use can also make an
    # old decision fresh again) and, when the column is out of date, citations.
    bound = 0.0
    if used:
        bound = w_use * model.use_share(top_use, idx.cited_max()) + w_fresh
    elif not cit_known:
        bound = w_use * model.use_share(0, idx.cited_max())
    anchored = stale is not None and idx.has_anchors()
    if len(base) <= n or not (bound or anchored):
        return [d for _, _, d in heapq.nlargest(n, zip(base, times, docs, strict=True))]

    def exact(d: int) -> float:
        rid = idx.id_of(d)
        use = used.get(rid)
        last = use.last if use else 0.0
        created = model.decay("decision", (now - min(idx.ts[d], now)) / model.DAY)
        fresh = (
            1.0
            if d in pins
            else max(
                created if idx.ts[d] else 0.0,
                model.decay("decision", (now - last) / model.DAY) if last else 0.0,
            )
        )
        share = model.use_share(use.total if use else 0, idx.cited_count(d))
        return idx.dw[d] - idx.cw[d] + w_fresh * fresh + w_use * share

    key, reach = base, bound
    mine: set[int] = set()  # the decisions used here
    if used:
        # Only the decisions used here gain from use: theirs is worked out now, and any
        # other's is its base (but for rounding, ``dw`` being 32-bit, and for citations
        # while ``cw`` is out of date), so the walk below need not look up every id.
        key = list(base)
        mine = set(idx.find_ids(set(used)).values())
        for j in compress(range(len(docs)), map(mine.__contains__, docs)):  # (found in C)
            key[j] = exact(docs[j])
        reach = _ROUNDING + (0.0 if cit_known else w_use * model.use_share(0, idx.cited_max()))
    # Walk down from the best by ``key``: a decision below the walked ones has at most its
    # key plus ``reach``, so once that is under the n-th value found, the walk can stop.
    final: dict[int, float] = {}  # position in docs -> its value (exact, staleness applied)

    def settle(j: int) -> float:
        d = docs[j]
        value = exact(d) if bound else key[j]
        if anchored and idx.anchored(d) and stale is not None and stale.check(d):
            value *= model.STALE_FACTOR  # stale advice ranks lower
        final[j] = value
        return value

    top = heapq.nlargest(2 * n, zip(key, times, range(len(docs))))
    for _, _, j in top:
        settle(j)
    best = heapq.nlargest(n, final.values())
    if len(top) < len(docs) and not (len(best) == n and top[-1][0] + reach < best[-1]):
        # Keys within ``reach`` of each other (decisions made within the same second, as
        # an import makes them): the n-th value found so far only rises, so a decision
        # whose key plus ``reach`` is under it now never makes the cut. One pass keeps
        # the others; they are walked down from the best, each ending the walk as above.
        floor = best[-1] - reach if len(best) == n else -math.inf
        reached = compress(range(len(key)), map(floor.__le__, key))  # key >= floor, in C
        rest = [j for j in reached if j not in final]
        if len(rest) > n:
            rest = _newest_alike(idx, rest, docs, times, n, mine, anchored)
        rest.sort(key=key.__getitem__, reverse=True)
        heapq.heapify(best)  # the n best values found: the n-th is best[0]
        for j in rest:
            if len(best) == n and key[j] + reach < best[0]:
                break
            value = settle(j)
            if len(best) < n:
                heapq.heappush(best, value)
            elif value > best[0]:
                heapq.heapreplace(best, value)
    # Ties: the newer first, then the later record.
    chosen = heapq.nlargest(n, ((v, times[j], docs[j]) for j, v in final.items()))
    return [d for _, _, d in chosen]


def _newest_alike(
    idx: Any,
    rest: list[int],
    docs: list[int],
    times: Any,
    n: int,
    used: set[int],
    anchored: bool,
) -> list[int]:
    """``rest`` (positions in ``docs``) less the decisions that cannot make the first
    ``n``: among decisions alike in every column their exact value reads (weight,
    citations, dated or not; none used here (``used``: those that are), pinned or naming
    files), a newer one is worth at least as much (recency only falls with age) and comes
    first on a tie, so only each group's ``n`` newest can."""
    pins = idx.pins
    kept: list[int] = []
    groups: dict[tuple[Any, ...], list[int]] = {}
    for j in rest:
        d = docs[j]
        if d in pins or (anchored and idx.anchored(d)) or d in used:
            kept.append(j)
            continue
        alike = (idx.dw[d], idx.cw[d], idx.cited_count(d), idx.ts[d] > 0)
        groups.setdefault(alike, []).append(j)
    for members in groups.values():
        if len(members) > n:
            members = heapq.nlargest(n, members, key=lambda j: (times[j], docs[j]))
        kept += members
    return kept


class StaleMarks:
    """Which of the records resume shows name files that changed since they were captured
    (``lore.dynamics.fresh``, in the checkout around the working directory)."""

    def __init__(self, view: ProjectView) -> None:
        self.view = view
        self._checker: Any = None
        self._repo: Any = False  # the repository around the working directory (looked up once)
        self.found: dict[int, list[str]] = {}

    def check(self, doc: int) -> list[str]:
        """The stale paths of the record ``doc`` (empty: fresh, or nothing to check)."""
        if doc in self.found:
            return self.found[doc]
        idx = self.view.index
        if self._repo is False:
            from lore.git.info import find_repo

            self._repo = find_repo()
        # Outside a repository, only files outside any can be checked.
        in_repo = self._repo is not None
        anchors = idx.anchors_of(doc) if idx.anchored(doc, in_repo=in_repo) else None
        paths: list[str] = []
        if not in_repo and anchors:
            anchors = tuple(a for a in anchors if a[0].startswith("/"))
        if anchors and doc not in idx.dead:
            if self._checker is None:
                from lore.dynamics.fresh import Checker

                self._checker = Checker(
                    self.view.store.root.local, project=self.view.project, repo=self._repo
                )
            if self._checker.applies(idx.projects[idx.proj[doc]]):
                paths = self._checker.changed(anchors)
        self.found[doc] = paths
        return paths

    def save(self) -> None:
        if self._checker is not None:
            self._checker.save()


def _advice(docs: list[int], keys: tuple[Any, ...], largest: bool, marks: StaleMarks) -> list[int]:
    """The first TOP_PATTERNS of ``docs`` in the order ``keys`` give (``top``), stale ones
    after the fresh (``fresh_first``): only when one of the first is stale is the whole
    order needed."""
    first = top(docs, TOP_PATTERNS, keys, largest=largest)
    if not any(marks.check(d) for d in first):
        return first
    return fresh_first(top(docs, len(docs), keys, largest=largest), TOP_PATTERNS, marks)


def fresh_first(docs: list[int], n: int, marks: StaleMarks) -> list[int]:
    """The first ``n`` of ``docs`` (already in order), those whose files are stale moved
    after the fresh ones (advice that may no longer hold ranks lower)."""
    fresh: list[int] = []
    stale: list[int] = []
    for d in docs:
        (stale if marks.check(d) else fresh).append(d)
        if len(fresh) == n:
            break
    return (fresh + stale)[:n]


def _noticed(view: ProjectView, marks: StaleMarks, n: int = 5) -> list[dict[str, Any]]:
    """The newest ``n`` observations still raw (a promoted one is its target's business, a
    discarded or archived one no advice), each marked stale when its files changed."""
    out: list[dict[str, Any]] = []
    docs = view.docs("observation")
    for d in view.newest(docs, min(len(docs), 8 * n)):
        o = view.read(d)
        if getattr(o, "status", "raw") == "raw":
            out.append(
                _marked({"id": o.id, "timestamp": o.timestamp, "content": o.content}, marks, d)
            )
            if len(out) >= n:
                break
    return out


def _marked(item: dict[str, Any], marks: StaleMarks, doc: int) -> dict[str, Any]:
    """``item`` with ``stale``: the files that changed since the record was captured (only
    when there are any)."""
    paths = marks.check(doc)
    if paths:
        item["stale"] = paths
    return item


SESSION_KEYS = (
    "id",
    "project",
    "status",
    "started_at",
    "ended_at",
    "message",
    "summary",
    "next_steps",
    "blockers",
    "questions",
    "threads",
    "git",
    "parent",
    "source",
)


def _decision(d: Decision) -> dict[str, Any]:
    return {
        "id": d.id,
        "timestamp": d.timestamp,
        "decision": d.decision,
        "rationale": d.rationale,
        "outcome": d.outcome,
        "type": d.type,
    }
