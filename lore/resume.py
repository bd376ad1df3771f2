"""Resume: what the last session left, as one read-only bundle plus a budgeted text form.

Composes the transfer, journal, patterns, failures and intent components. Never
writes (``--fork`` is the CLI asking transfer to start a session afterwards).
"""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from lore import clock
from lore.components.journal import Decision
from lore.components.patterns import SEVERITY_RANK
from lore.components.transfer import Session, last_handoff
from lore.store import Store

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


class _View:
    """The index seen from one project: which records are in it, newest first.

    A record is in ``project`` when its project is that name, it carries the name as a
    tag, or it has no project (the same rule as ``lore recall --project``'s context).
    Records are read from disk only once chosen.
    """

    def __init__(self, store: Store, project: str | None) -> None:
        from lore.index import open_index

        self.store = store
        self.project = project
        self.index = open_index(store)
        self._mine: Any = None

    def docs(self, kind: str, *, flagged: bool = False, everywhere: bool = False) -> list[int]:
        """Shown records of ``kind`` (``flagged``: see ``lore.index.write._flag``) in the project
        (``everywhere``: in any project)."""
        found = self.index.docs(kind, flagged=flagged)
        if not self.project or everywhere:
            return found
        if self._mine is None:
            idx = self.index
            codes = {idx.project_code(self.project), idx.project_code(None), idx.project_code("")}
            self._mine = (codes - {-1}, idx.tagged(self.project))
        codes, tagged = self._mine
        proj = self.index.proj
        return [d for d in found if proj[d] in codes or d in tagged]

    def newest(self, docs: list[int], n: int) -> list[int]:
        ts = self.index.ts
        # Equal times: the later record first (nlargest keeps the input order of ties).
        return heapq.nlargest(n, reversed(docs), key=ts.__getitem__)

    def fact(self, doc: int) -> tuple[Any, ...]:
        return self.index.facts.get(doc, ())

    def read(self, doc: int) -> Any:
        return self.index.fetch(self.store, doc)


def resume(
    store: Store,
    *,
    project: str | None,
    session_id: str | None = None,
    threshold: int = 3,
    git: dict[str, Any] | None = None,
) -> ResumeBundle:
    """Gather the resume bundle (read-only, apart from refreshing the derived index)."""
    view = _View(store, project)
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
    ranked = rank_decisions(view, view.docs("decision"), RECENT_DECISIONS)
    bundle.recent_decisions = [_decision(view.read(d)) for d in ranked]
    if session is None:
        bundle.reconstructed = {
            "note": "no handoff yet: context rebuilt from recent records and git history",
            "git": git,
            "recent_observations": [
                {"id": o.id, "timestamp": o.timestamp, "content": o.content}
                for o in map(view.read, view.newest(view.docs("observation"), 5))
            ],
        }
    ts = view.index.ts
    patterns = sorted(
        view.docs("pattern"), key=lambda d: (*view.fact(d)[:2], ts[d], d), reverse=True
    )
    bundle.patterns = [
        {
            "id": p.id,
            "name": p.name,
            "solution": p.solution,
            "confidence": p.confidence,
            "validations": p.validations,
        }
        for p in map(view.read, patterns[:TOP_PATTERNS])
    ]
    pitfalls = sorted(view.docs("anti-pattern"), key=lambda d: (_severity(view.fact(d)), ts[d], d))
    bundle.pitfalls = [
        {"id": a.id, "name": a.name, "fix": a.fix, "severity": a.severity}
        for a in map(view.read, pitfalls[:TOP_PATTERNS])
    ]
    bundle.recurring_failures = _recurring(view, threshold)
    goals = view.docs("goal", flagged=True)
    goals.sort(key=lambda d: (SEVERITY_RANK.get(view.fact(d)[1], 9), ts[d], d))
    bundle.goals_count = len(goals)
    bundle.goals = [
        {
            "id": g.id,
            "title": g.title,
            "priority": g.priority,
            "criteria_met": g.criteria_met[0],
            "criteria_total": g.criteria_met[1],
            "completion": g.completion,
        }
        for g in map(view.read, goals[:MAX_GOALS])
    ]
    cutoff = (clock.parse_timestamp(clock.now()) - timedelta(days=REVIEW_AFTER_DAYS)).timestamp()
    pending = [d for d in view.docs("decision", flagged=True) if ts[d] <= cutoff]
    pending.sort(key=lambda d: (ts[d], d))
    bundle.pending_review_count = len(pending)
    bundle.pending_review = [_decision(view.read(d)) for d in pending[:MAX_PENDING]]
    return bundle


def rank_decisions(view: _View, docs: list[int], n: int) -> list[int]:
    """The ``n`` most important of ``docs`` (decisions), most important first.

    importance = decision_weight + W_RECENCY * recency + W_RECALLED * recalled, where
    ``lore.index.write.decision_weight`` weighs type, outcome (with a lesson's bonus) and
    spec_quality, and recency (a 30-day half-life) and recalled (how often recall
    returned it) are recall's. Ties: the newer first. From the index's columns alone;
    recall counts are looked up only for the decisions that could still make the cut.
    """
    from lore import search
    from lore.index.history import recall_counts

    if not docs:
        return []
    import math
    from operator import itemgetter

    idx = view.index
    pick = itemgetter(*docs) if len(docs) > 1 else lambda column: (column[docs[0]],)
    times: tuple[float, ...] = pick(idx.ts)
    # recency = 0.5 ** (age / half-life) = c * exp(k * time): one multiplication a record.
    # A record without a time (0) comes out at 0, as in recall.
    k = math.log(2.0) / (search.HALF_LIFE_DAYS * 86400.0)
    now = clock.now_datetime().timestamp()
    c = W_RECENCY * math.exp(-k * now)
    exp = math.exp
    # A record from the future (a clock ahead, a typo) counts as made now.
    aged = times if max(times) <= now else tuple(min(t, now) for t in times)
    base = [w + c * exp(k * t) for w, t in zip(pick(idx.dw), aged)]
    counts = recall_counts(view.store.root)
    if counts:
        cutoff = heapq.nlargest(n, base)[-1] - W_RECALLED if len(base) > n else -1.0
        base = [
            b + W_RECALLED * search.recalled(counts.get(idx.id_of(d), 0)) if b >= cutoff else b
            for b, d in zip(base, docs)
        ]
    # Ties: the newer first, then the later record.
    return [d for _, _, d in heapq.nlargest(n, zip(base, times, docs))]


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


def _severity(fact: tuple[Any, ...]) -> int:
    return SEVERITY_RANK.get(fact[0], 9) if fact else 9


def _decision(d: Decision) -> dict[str, Any]:
    return {
        "id": d.id,
        "timestamp": d.timestamp,
        "decision": d.decision,
        "rationale": d.rationale,
        "outcome": d.outcome,
        "type": d.type,
    }


def _recurring(view: _View, threshold: int) -> list[dict[str, Any]]:
    idx = view.index
    grp, ts = idx.grp, idx.ts
    failures = view.docs("failure")
    counts = Counter(map(grp.__getitem__, failures))
    due = [(group, n) for group, n in counts.most_common() if n >= threshold]
    if not due:
        return []
    latest: dict[int, int] = {}
    wanted = {group for group, _ in due}
    # Newest first; on equal times the later record wins, as in every other list.
    for d in sorted(reversed(failures), key=ts.__getitem__, reverse=True):
        if grp[d] in wanted and grp[d] not in latest:
            latest[grp[d]] = d
            if len(latest) == len(wanted):
                break
    pitfalls: dict[str, str] = {}
    for d in view.docs("anti-pattern", everywhere=True):
        name = view.fact(d)[1:2]
        if name and name[0].startswith("PITFALL: "):
            pitfalls[name[0]] = idx.id_of(d)
    out = []
    for group, count in due:
        last = view.read(latest[group])
        out.append(
            {
                "error_type": last.error_type,
                "count": count,
                "last_seen": last.timestamp,
                "last_message": last.error_message,
                "pitfall": pitfalls.get(f"PITFALL: {last.error_type}"),
            }
        )
    return out


def recurring_failures(
    store: Store, *, project: str | None = None, threshold: int = 3
) -> list[dict[str, Any]]:
    """Error types with ``threshold`` or more failures (the Rule of Three), most first."""
    return _recurring(_View(store, project), threshold)


# The text form lives in lore.resume_text; these names stay importable from here.
from lore.resume_text import estimate_tokens, render  # noqa: E402

__all__ = ["ResumeBundle", "estimate_tokens", "recurring_failures", "render", "resume"]
