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
MAX_UNCOMMITTED = 10  # uncommitted files listed when rebuilding context from git
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
    recent = view.newest(view.docs("decision"), RECENT_DECISIONS)
    bundle.recent_decisions = [_decision(view.read(d)) for d in recent]
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


# --- text form ---------------------------------------------------------------------
#
# Each line carries a priority; a budget drops the least useful lines first and says
# what it cut. Priorities: 0 the handoff itself, 1 next steps and blockers, 2 the
# newest decisions and recurring failures, 3 patterns, pitfalls and goals, 4 the rest.


def estimate_tokens(text: str) -> int:
    """Roughly 4 characters a token (the usual rule of thumb for English and code)."""
    return (len(text) + 3) // 4


def render(bundle: ResumeBundle, *, budget: int | None = None) -> tuple[str, list[str]]:
    """The bundle as plain text, most useful first, cut to ``budget`` tokens if given."""
    lines: list[tuple[int, str, str]] = []  # (priority, section, text)

    def add(priority: int, section: str, text: str) -> None:
        lines.append((priority, section, text))

    title = f"lore resume — {bundle.project}" if bundle.project else "lore resume"
    add(0, "header", title)
    session = bundle.session
    if session:
        when = (session.get("ended_at") or "")[:16].replace("T", " ")
        add(0, "handoff", f"## Last handoff ({session['id']}, {when} UTC)")
        add(0, "handoff", session.get("message") or "(no message)")
        for label, key, priority in (
            ("Next", "next_steps", 1),
            ("Blocker", "blockers", 1),
            ("Question", "questions", 1),
            ("Open thread", "threads", 1),
        ):
            for item in session.get(key) or []:
                add(priority, key, f"- {label}: {item}")
        git = session.get("git") or {}
        if git:
            head = (git.get("head") or "")[:10]
            dirty = len(git.get("uncommitted") or [])
            add(
                3,
                "git",
                f"- Git at handoff: {git.get('branch') or 'detached'} {head}"
                f"{f', {dirty} uncommitted files' if dirty else ''}",
            )
    elif bundle.reconstructed:
        add(0, "handoff", "## No handoff yet")
        add(0, "handoff", "Context rebuilt from recent records and git history.")
        git = bundle.reconstructed.get("git") or {}
        for commit in git.get("last_commits") or []:
            add(2, "git", f"- commit {commit['sha']} {commit['subject']}")
        uncommitted = git.get("uncommitted") or []
        for item in uncommitted[:MAX_UNCOMMITTED]:
            add(4, "git", f"- uncommitted: {item}")
        if len(uncommitted) > MAX_UNCOMMITTED:
            add(4, "git", f"- … and {len(uncommitted) - MAX_UNCOMMITTED} more uncommitted files")
        for obs in bundle.reconstructed.get("recent_observations") or []:
            add(3, "observations", f"- noticed: {obs['content']} ({obs['id']})")
    if bundle.recent_decisions:
        add(2, "decisions", "## Recent decisions")
        for i, d in enumerate(bundle.recent_decisions):
            why = f" — because {d['rationale']}" if d.get("rationale") else ""
            add(
                2 if i < 3 else 4,
                "decisions",
                f"- {d['decision']}{why} ({d['id']}, {d['outcome']})",
            )
    if bundle.patterns:
        add(3, "patterns", "## Patterns")
        for p in bundle.patterns:
            sol = f": {p['solution']}" if p.get("solution") else ""
            add(3, "patterns", f"- {p['name']}{sol} ({p['id']}, confidence {p['confidence']:g})")
    if bundle.pitfalls:
        add(3, "pitfalls", "## Pitfalls")
        for a in bundle.pitfalls:
            fix = f" — fix: {a['fix']}" if a.get("fix") else ""
            add(3, "pitfalls", f"- {a['name']}{fix} ({a['id']}, {a['severity']})")
    if bundle.recurring_failures:
        add(2, "failures", "## Recurring failures (Rule of Three)")
        for f in bundle.recurring_failures:
            pit = f", see {f['pitfall']}" if f.get("pitfall") else ""
            add(
                2, "failures", f'- {f["error_type"]} x{f["count"]}: last "{f["last_message"]}"{pit}'
            )
    if bundle.goals:
        add(3, "goals", "## Open goals")
        for g in bundle.goals:
            add(
                3,
                "goals",
                f"- {g['title']} [{g['criteria_met']}/{g['criteria_total']} criteria] ({g['id']})",
            )
        more = bundle.goals_count - len(bundle.goals)
        if more > 0:
            add(4, "goals", f"- … and {more} more active goals (lore list goal)")
    if bundle.pending_review:
        count = max(bundle.pending_review_count, len(bundle.pending_review))
        add(4, "review", f"## Decisions pending review ({count})")
        for d in bundle.pending_review[:5]:
            add(4, "review", f"- {d['decision']} ({d['id']}, since {d['timestamp'][:10]})")
    if bundle.fork:
        add(
            0, "fork", f"Started session {bundle.fork['id']} (forked from {bundle.fork['parent']})."
        )
    return _fit(lines, budget)


def _fit(lines: list[tuple[int, str, str]], budget: int | None) -> tuple[str, list[str]]:
    """Drop the least useful lines (highest priority number, latest first) until the text
    fits ``budget`` tokens; a heading goes with the last line of its section. Priority-0
    lines (the handoff itself) are never dropped nor truncated: the next session must
    see the whole message, so a budget smaller than the handoff is exceeded (and says so)."""
    kept = list(range(len(lines)))
    cut: Counter[str] = Counter()

    def is_heading(i: int) -> bool:
        return lines[i][2].startswith("## ")

    def size() -> int:
        return estimate_tokens("\n".join(lines[i][2] for i in kept))

    if budget is not None and budget > 0:
        while size() > budget:
            victims = [i for i in kept if lines[i][0] > 0 and not is_heading(i)]
            if not victims:
                break
            victim = max(victims, key=lambda i: (lines[i][0], i))
            kept.remove(victim)
            cut[lines[victim][1]] += 1
            live = {lines[i][1] for i in kept if not is_heading(i)}
            kept = [i for i in kept if not is_heading(i) or lines[i][1] in live]
    text = "\n".join(lines[i][2] for i in kept)
    notes = [f"{n} {section} line{'s' if n != 1 else ''}" for section, n in cut.items()]
    parts = [f"cut {', '.join(notes)}"] if notes else []
    if budget is not None and budget > 0 and estimate_tokens(text) > budget:
        parts.append("the handoff itself is longer and was kept whole")
    if parts:
        text += f"\n[budget {budget} tokens: {'; '.join(parts)}]"
    return text, notes
