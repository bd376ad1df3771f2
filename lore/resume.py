"""Resume: what the last session left, as one read-only bundle plus a budgeted text form.

Composes the transfer, journal, patterns, failures and intent components. Never
writes (``--fork`` is the CLI asking transfer to start a session afterwards).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from lore import clock
from lore.components.failures import Failure
from lore.components.inbox import Observation
from lore.components.intent import Goal
from lore.components.journal import Decision
from lore.components.patterns import AntiPattern, Pattern
from lore.components.transfer import Session, last_handoff
from lore.store import Store

RECENT_DECISIONS = 10
MAX_UNCOMMITTED = 10  # uncommitted files listed when rebuilding context from git
TOP_PATTERNS = 5
REVIEW_AFTER_DAYS = 3
SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3}


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
            "pending_review": self.pending_review,
            "fork": self.fork,
        }


def _in_project(record: Any, project: str | None) -> bool:
    if not project:
        return True
    return record.project == project or project in record.tags or not record.project


def resume(
    store: Store,
    *,
    project: str | None,
    session_id: str | None = None,
    threshold: int = 3,
    git: dict[str, Any] | None = None,
) -> ResumeBundle:
    """Gather the resume bundle (read-only)."""
    if session_id:
        found = store.get(session_id)
        if not isinstance(found, Session):
            from lore.errors import UsageError

            article = "an" if found.kind[0] in "aeiou" else "a"
            raise UsageError(f"{session_id} is {article} {found.kind}, not a session")
        session: Session | None = found
    else:
        session = last_handoff(store, project)
    bundle = ResumeBundle(project=project, session=None, reconstructed=None)
    if session is not None:
        bundle.session = {
            key: value
            for key, value in session.to_dict().items()
            if key
            in (
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
        }
    decisions = [d for d in store.of(Decision) if _in_project(d, project)]
    decisions.sort(key=lambda d: d.timestamp, reverse=True)
    bundle.recent_decisions = [_decision(d) for d in decisions[:RECENT_DECISIONS]]
    if session is None:
        observations = [o for o in store.of(Observation) if _in_project(o, project)]
        observations.sort(key=lambda o: o.timestamp, reverse=True)
        bundle.reconstructed = {
            "note": "no handoff yet: context rebuilt from recent records and git history",
            "git": git,
            "recent_observations": [
                {"id": o.id, "timestamp": o.timestamp, "content": o.content}
                for o in observations[:5]
            ],
        }
    patterns = [p for p in store.of(Pattern) if _in_project(p, project)]
    patterns.sort(
        key=lambda p: (p.confidence, p.validations, p.timestamp),
        reverse=True,
    )
    bundle.patterns = [
        {
            "id": p.id,
            "name": p.name,
            "solution": p.solution,
            "confidence": p.confidence,
            "validations": p.validations,
        }
        for p in patterns[:TOP_PATTERNS]
    ]
    pitfalls = [a for a in store.of(AntiPattern) if _in_project(a, project)]
    pitfalls.sort(key=lambda a: (SEVERITY_RANK.get(a.severity, 9), a.timestamp))
    bundle.pitfalls = [
        {
            "id": a.id,
            "name": a.name,
            "fix": a.fix,
            "severity": a.severity,
        }
        for a in pitfalls[:TOP_PATTERNS]
    ]
    bundle.recurring_failures = recurring_failures(store, project=project, threshold=threshold)
    goals = [g for g in store.of(Goal) if g.status == "active" and _in_project(g, project)]
    goals.sort(key=lambda g: (SEVERITY_RANK.get(g.priority, 9), g.timestamp))
    bundle.goals = [
        {
            "id": g.id,
            "title": g.title,
            "priority": g.priority,
            "criteria_met": g.criteria_met[0],
            "criteria_total": g.criteria_met[1],
        }
        for g in goals
    ]
    cutoff = (clock.parse_timestamp(clock.now()) - timedelta(days=REVIEW_AFTER_DAYS)).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ"
    )
    pending = [d for d in decisions if d.outcome == "pending" and d.timestamp <= cutoff]
    pending.sort(key=lambda d: d.timestamp)
    bundle.pending_review = [_decision(d) for d in pending]
    return bundle


def _decision(d: Decision) -> dict[str, Any]:
    return {
        "id": d.id,
        "timestamp": d.timestamp,
        "decision": d.decision,
        "rationale": d.rationale,
        "outcome": d.outcome,
        "type": d.type,
    }


def recurring_failures(
    store: Store, *, project: str | None = None, threshold: int = 3
) -> list[dict[str, Any]]:
    """Error types with ``threshold`` or more failures (the Rule of Three), most first."""
    failures = [f for f in store.of(Failure) if _in_project(f, project)]
    counts = Counter(f.error_type for f in failures)
    latest: dict[str, Any] = {}
    for f in failures:
        current = latest.get(f.error_type)
        if current is None or f.timestamp > current.timestamp:
            latest[f.error_type] = f
    pitfalls = {a.name: a.id for a in store.of(AntiPattern) if a.name.startswith("PITFALL: ")}
    out = []
    for error_type, count in counts.most_common():
        if count < threshold:
            continue
        last = latest[error_type]
        out.append(
            {
                "error_type": error_type,
                "count": count,
                "last_seen": last.timestamp,
                "last_message": last.error_message,
                "pitfall": pitfalls.get(f"PITFALL: {error_type}"),
            }
        )
    return out


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
    if bundle.pending_review:
        add(4, "review", f"## Decisions pending review ({len(bundle.pending_review)})")
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
