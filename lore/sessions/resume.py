"""Resume: what the last session left, as one read-only bundle plus a budgeted text form.

Composes the transfer, journal, patterns, failures and intent components. Never
writes (``--fork`` is the CLI asking transfer to start a session afterwards).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import islice
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
W_RECENCY, W_RECALLED = 0.20, 0.10
TOP_PATTERNS = 5
MAX_GOALS = 10  # goals listed (by priority); goals_count has them all
MAX_PENDING = 10  # decisions pending review listed (oldest first); pending_review_count all
REVIEW_AFTER_DAYS = 3


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
    ranked = rank_decisions(view, view.docs("decision"), RECENT_DECISIONS)
    bundle.recent_decisions = [{**_decision(view.read(d)), "review_due": d in due} for d in ranked]
    if session is None:
        bundle.reconstructed = {
            "note": "no handoff yet: context rebuilt from recent records and git history",
            "git": git,
            "recent_observations": [
                {"id": o.id, "timestamp": o.timestamp, "content": o.content}
                for o in map(view.read, islice(view.newest_of("observation"), 5))
            ],
        }
    idx = view.index
    rank_a, rank_b = idx.fa, idx.fb  # what each kind is ordered by (``rank_keys``)
    # Flagged advice (lore patterns flag) after every unflagged pattern, then most trusted
    # (confidence, validations), then newest.
    unflagged = idx.unflagged()
    patterns = top(
        view.docs("pattern"), TOP_PATTERNS, (unflagged, rank_a, rank_b, ts), largest=True
    )
    bundle.patterns = [
        {
            "id": p.id,
            "name": p.name,
            "solution": p.solution,
            "confidence": p.confidence,
            "validations": p.validations,
            "flagged": flag_summary(p.flags),
        }
        for p in map(view.read, patterns)
    ]
    # Pitfalls by severity, goals by priority (ranks: the most severe first), then oldest.
    pitfalls = top(view.docs("anti-pattern"), TOP_PATTERNS, (rank_a, ts), largest=False)
    bundle.pitfalls = [
        {"id": a.id, "name": a.name, "fix": a.fix, "severity": a.severity}
        for a in map(view.read, pitfalls)
    ]
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
    return bundle


def rank_decisions(view: ProjectView, docs: list[int], n: int) -> list[int]:
    """The ``n`` most important of ``docs`` (decisions), most important first.

    importance = decision_weight + W_RECENCY * recency + W_RECALLED * recalled, where
    ``lore.index.write.decision_weight`` weighs type, outcome (with a lesson's bonus) and
    spec_quality, and recency (a 30-day half-life) and recalled (how often recall
    returned it) are recall's. Ties: the newer first, then the later record. From the
    index's columns alone, and only for the decisions that can still make the cut.
    """
    from lore.index.history import recall_counts
    from lore.recall import ranking

    if not docs:
        return []

    idx = view.index
    # recency = 0.5 ** (age / half-life) = c * exp(k * time): one multiplication a record.
    # A record without a time (0) comes out at 0, as in recall; one from the future (a
    # clock ahead, a typo) counts as made now.
    k = math.log(2.0) / (ranking.HALF_LIFE_DAYS * 86400.0)
    now = clock.now_datetime().timestamp()
    c = W_RECENCY * math.exp(-k * now)
    exp, dw, ts = math.exp, idx.dw, idx.ts
    counts = recall_counts(view.store.root)
    # Recall adds to the few decisions it returned before (their record numbers, found by
    # id in the index's order: no dictionary of every id is built).
    bonus: dict[int, float] = {}
    if counts:
        for rid, doc in idx.find_ids(set(counts)).items():
            bonus[doc] = W_RECALLED * ranking.recalled(counts[rid])

    def importance(d: int) -> float:
        base = dw[d] + c * exp(k * min(ts[d], now))
        if d in bonus:
            base += bonus[d]
        return base

    if len(docs) > n:
        docs = _contenders(view, docs, n, importance, set(bonus), c, k, now)
    # Ties: the newer first, then the later record.
    return [d for _, _, d in heapq.nlargest(n, ((importance(d), ts[d], d) for d in docs))]


def _contenders(
    view: ProjectView,
    docs: list[int],
    n: int,
    importance: Any,
    recalled: set[int],
    c: float,
    k: float,
    now: float,
) -> list[int]:
    """The decisions among ``docs`` (the view's) that can still be among the ``n`` most
    important, found without scoring them all.

    The heaviest decisions (the n-th weight and above), the n newest and those recall
    returned are scored: the n-th best of them (``floor``) is reached by the n best
    overall. Any other decision scores its weight plus its recency, so it counts only if
    its weight alone reaches ``floor``, or if it is recent enough: the scan from the
    newest stops where even the heaviest weight plus that recency falls short.
    """
    from collections import Counter
    from itertools import compress
    from operator import itemgetter

    idx = view.index
    dw, ts, exp = idx.dw, idx.ts, math.exp
    weights = itemgetter(*docs)(dw)
    levels = sorted(Counter(weights).items(), reverse=True)
    heaviest, seen, nth = levels[0][0], 0, levels[-1][0]
    for weight, count in levels:  # the n-th largest weight
        seen += count
        if seen >= n:
            nth = weight
            break
    seed = set(compress(docs, map(nth.__le__, weights))) | (recalled & set(docs))
    newest = view.newest_of("decision")
    seed.update(d for d, _ in zip(newest, range(n)))
    floor = heapq.nlargest(n, map(importance, seed))[-1] - 1e-9
    kept = seed | set(compress(docs, map(floor.__le__, weights)))
    for d in view.newest_of("decision"):
        recency = c * exp(k * min(ts[d], now))
        if heaviest + recency < floor:
            break  # older decisions have less recency still
        if dw[d] + recency >= floor:
            kept.add(d)
    return sorted(kept)


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
