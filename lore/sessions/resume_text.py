"""Resume's text form: the bundle as lines with priorities, cut to a token budget.

Each section is one function in ``SECTIONS`` that adds its lines; a new section is
one more function there. The budget drops the least useful lines first and says so.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from lore.components.patterns import flag_text

MAX_UNCOMMITTED = 10  # uncommitted files listed when rebuilding context from git
REVIEW_LISTED = 5  # decisions pending review listed (besides those under Recent decisions)
_ONE_LINE = re.compile(r"[ \t]*(?:\r?\n[ \t]*)+")  # line breaks inside a list item

# Priorities: 0 the handoff itself (and the open items an automatic one carried over),
# 1 its open items, 2 the most important decisions and
# recurring failures, 3 patterns, pitfalls and goals, 4 the rest.
Add = Callable[[int, str, str], None]

# How a budget note names each section: "cut 2 lines of recent decisions".
SECTION_NAMES = {
    "next_steps": "next steps",
    "blockers": "blockers",
    "questions": "questions",
    "threads": "open threads",
    "carried": "carried-over note",
    "git": "git",
    "observations": "observations",
    "decisions": "recent decisions",
    "patterns": "patterns",
    "pitfalls": "pitfalls",
    "failures": "recurring failures",
    "goals": "open goals",
    "review": "decisions pending review",
    "tending": "tending",
}


def estimate_tokens(text: str) -> int:
    """Roughly 4 characters a token (the usual rule of thumb for English and code)."""
    return (len(text) + 3) // 4


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    return f"{n} {noun if n == 1 else (nouns or noun + 's')}"


def _handoff(bundle: Any, add: Add) -> None:
    session = bundle.session
    if session:
        when = (session.get("ended_at") or "")[:16].replace("T", " ")
        add(0, "handoff", f"## Last handoff ({session['id']}, {when} UTC)")
        add(0, "handoff", session.get("message") or "(no message)")
        items = False
        # An automatic handoff's digest must not push out the next steps, blockers and
        # questions it carried over from a manual one: under a budget they rank with it.
        carried = 0 if session.get("carried_from") else 1
        # Its own threads (the transcript's requests) come after the note that names
        # where the carried items came from: the note is about the items above it.
        own = set(getattr(bundle, "own_threads", None) or ())
        threads = [t for t in session.get("threads") or [] if isinstance(t, str)]
        later = [t for t in threads if t in own] if session.get("carried_from") else []
        for label, key, values in (
            ("Next", "next_steps", session.get("next_steps")),
            ("Blocker", "blockers", session.get("blockers")),
            ("Question", "questions", session.get("questions")),
            ("Open thread", "threads", [t for t in threads if t not in later]),
        ):
            for item in values or []:
                add(1 if key == "threads" else carried, key, f"- {label}: {item}")
                items = True
        if items and session.get("carried_from"):
            add(1, "carried", f"  (open items carried over from {session['carried_from']})")
        for item in later:
            add(1, "threads", f"- Open thread: {item}")
        git = session.get("git") or {}
        if git:
            head = (git.get("head") or "")[:10] or "(no commits yet)"
            dirty = len(git.get("uncommitted") or [])
            add(
                3,
                "git",
                f"- Git at handoff: {git.get('branch') or 'detached'} {head}"
                f"{', ' + plural(dirty, 'uncommitted file') if dirty else ''}",
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
        more = len(uncommitted) - MAX_UNCOMMITTED
        if more > 0:
            add(4, "git", f"- … and {plural(more, 'more uncommitted file')}")
        for obs in bundle.reconstructed.get("recent_observations") or []:
            add(3, "observations", f"- noticed: {obs['content']} ({obs['id']}{_stale(obs)})")


def _decisions(bundle: Any, add: Add) -> None:
    if bundle.recent_decisions:
        add(2, "decisions", "## Recent decisions")
        for i, d in enumerate(bundle.recent_decisions):
            why = f" — because {d['rationale']}" if d.get("rationale") else ""
            due = ", review due" if d.get("review_due") else ""
            add(
                2 if i < 3 else 4,
                "decisions",
                f"- {d['decision']}{why} ({d['id']}, {d['outcome']}{due}{_stale(d)})",
            )


def _patterns(bundle: Any, add: Add) -> None:
    if bundle.patterns:
        add(3, "patterns", "## Patterns")
        for p in bundle.patterns:
            sol = f": {p['solution']}" if p.get("solution") else ""
            flag = f"; {flag_text(p['flagged'])}" if p.get("flagged") else ""
            add(
                3,
                "patterns",
                f"- {p['name']}{sol} ({p['id']}, confidence {p['confidence']:g}{flag}{_stale(p)})",
            )


def _pitfalls(bundle: Any, add: Add) -> None:
    if bundle.pitfalls:
        add(3, "pitfalls", "## Pitfalls")
        for a in bundle.pitfalls:
            fix = f" — fix: {a['fix']}" if a.get("fix") else ""
            add(3, "pitfalls", f"- {a['name']}{fix} ({a['id']}, {a['severity']}{_stale(a)})")


def _stale(item: dict[str, Any]) -> str:
    """``, stale: src/db.py changed`` for advice whose files changed since it was captured."""
    paths = item.get("stale")
    return f", stale: {', '.join(paths)} changed" if paths else ""


def _tending(bundle: Any, add: Add) -> None:
    """One line each: conflicts a merge left, proposals the last consolidate found."""
    tend = getattr(bundle, "tending", None) or {}
    lines = []
    conflicts = tend.get("conflicts") or 0
    if conflicts:
        lines.append(
            f"- {plural(conflicts, 'conflict')} after a merge: a field two clones set "
            "differently (lore validate names it, lore consolidate settles it)"
        )
    proposals = tend.get("proposals") or {}
    if proposals.get("count"):
        when = "" if proposals.get("current") else f" as of {str(proposals.get('at'))[:10]}"
        lines.append(
            f"- {plural(proposals['count'], 'consolidation proposal')}{when} (lore consolidate)"
        )
    if lines:
        add(3, "tending", "## Tending")
        for line in lines:
            add(3, "tending", line)


def _failures(bundle: Any, add: Add) -> None:
    if bundle.recurring_failures:
        add(2, "failures", "## Recurring failures (Rule of Three)")
        for f in bundle.recurring_failures:
            named = ", ".join(x for x in (f.get("pitfall"), f.get("pattern")) if x)
            pit = f", see {named}" if named else ""
            add(
                2, "failures", f'- {f["error_type"]} x{f["count"]}: last "{f["last_message"]}"{pit}'
            )


def _goals(bundle: Any, add: Add) -> None:
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
            add(4, "goals", f"- … and {plural(more, 'more active goal')} (lore list goal)")


def _review(bundle: Any, add: Add) -> None:
    """The true count; the decisions Recent decisions already shows (marked "review due")
    are counted, not listed again; the rest up to REVIEW_LISTED, then how many more."""
    if bundle.pending_review:
        count = max(bundle.pending_review_count, len(bundle.pending_review))
        add(4, "review", f"## Decisions pending review ({count})")
        above = {d["id"] for d in bundle.recent_decisions if d.get("review_due")}
        if len(above) >= count:
            where = "listed" if count == 1 else f"all {count} are listed"
            add(4, "review", f"- {where} under Recent decisions (review due)")
            return
        listed = [d for d in bundle.pending_review if d["id"] not in above][:REVIEW_LISTED]
        for d in listed:
            add(4, "review", f"- {d['decision']} ({d['id']}, since {d['timestamp'][:10]})")
        rest = count - len(above) - len(listed)
        if rest > 0:
            add(4, "review", f"- … and {rest} more (lore review lists them all)")
        if above:
            add(4, "review", f"- {len(above)} more listed under Recent decisions (review due)")


def _fork(bundle: Any, add: Add) -> None:
    if bundle.fork:
        add(
            0, "fork", f"Started session {bundle.fork['id']} (forked from {bundle.fork['parent']})."
        )


SECTIONS: tuple[Callable[[Any, Add], None], ...] = (
    _handoff,
    _decisions,
    _patterns,
    _pitfalls,
    _failures,
    _goals,
    _review,
    _tending,
    _fork,
)


def render(bundle: Any, *, budget: int | None = None) -> tuple[str, list[str]]:
    """The bundle as plain text, most useful first, cut to ``budget`` tokens if given."""
    lines: list[tuple[int, str, str]] = []  # (priority, section, text)

    def add(priority: int, section: str, text: str) -> None:
        if text.startswith("- ") and "\n" in text:  # one item, one line
            text = _ONE_LINE.sub(" ", text)
        lines.append((priority, section, text))

    title = f"lore resume — {bundle.project}" if bundle.project else "lore resume"
    add(0, "header", title)
    for section in SECTIONS:
        section(bundle, add)
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

    # Within a section the last line goes first, except open threads: they run oldest to
    # newest (the last request last), so the oldest thread goes first.
    threads = [i for i, line in enumerate(lines) if line[1] == "threads"]
    order = dict(zip(threads, reversed(threads), strict=True))
    if budget is not None and budget > 0:
        while size() > budget:
            victims = [i for i in kept if lines[i][0] > 0 and not is_heading(i)]
            if not victims:
                break
            victim = max(victims, key=lambda i: (lines[i][0], order.get(i, i)))
            kept.remove(victim)
            cut[lines[victim][1]] += 1
            live = {lines[i][1] for i in kept if not is_heading(i)}
            kept = [i for i in kept if not is_heading(i) or lines[i][1] in live]
    text = "\n".join(lines[i][2] for i in kept)
    notes = [
        f"{plural(n, 'line')} of {SECTION_NAMES.get(section, section)}"
        for section, n in cut.items()
    ]
    parts = [f"cut {', '.join(notes)}"] if notes else []
    if budget is not None and budget > 0 and estimate_tokens(text) > budget:
        parts.append("the handoff itself is longer and was kept whole")
    if parts:
        text += f"\n[budget {budget} tokens: {'; '.join(parts)}]"
    return text, notes
