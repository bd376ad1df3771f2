"""lore.sessions.resume: what the bundle holds, in which order, and how a budget cuts the text."""

from __future__ import annotations

import pytest

from lore.capture import core as capture_mod
from lore.capture.failure_rules import recurring_failures
from lore.components.intent import Goal
from lore.components.journal import Decision
from lore.components.patterns import AntiPattern, Pattern
from lore.components.transfer import Session
from lore.sessions.resume import ResumeBundle, resume
from lore.sessions.resume_text import estimate_tokens, render
from lore.store.core import Store

NOW = "2026-03-10T12:00:00.000000Z"


def ts(day: int, hour: int = 0) -> str:
    return f"2026-03-{day:02d}T{hour:02d}:00:00.000000Z"


def decision(n: int, *, project: str | None = "proj", **kw) -> Decision:
    return Decision(
        id=f"dec-{n:012x}",
        timestamp=kw.pop("timestamp", ts(1, n)),
        decision=f"decision {n}",
        project=project,
        **kw,
    )


# --- the bundle ---------------------------------------------------------------------


def test_recent_decisions_are_the_last_ten_of_the_project_newest_first(store: Store) -> None:
    store.add([decision(n) for n in range(12)])
    store.add(
        [
            decision(20, project="other", timestamp=ts(9)),
            decision(21, project=None, timestamp=ts(8)),  # project-less: relevant everywhere
            decision(22, status="retracted", timestamp=ts(9, 1)),
            decision(23, status="superseded", timestamp=ts(9, 2)),
        ]
    )
    bundle = resume(store, project="proj")
    assert [d["id"] for d in bundle.recent_decisions] == [f"dec-{21:012x}"] + [
        f"dec-{n:012x}" for n in range(11, 2, -1)
    ]
    assert bundle.recent_decisions[1] == {
        "id": f"dec-{11:012x}",
        "timestamp": ts(1, 11),
        "decision": "decision 11",
        "rationale": "",
        "outcome": "pending",
        "type": "other",
        "review_due": True,
    }
    everything = resume(store, project=None)
    assert everything.recent_decisions[0]["id"] == f"dec-{20:012x}"


def test_patterns_most_trusted_first_top_five(store: Store) -> None:
    specs = [(0.5, 0), (0.9, 1), (0.9, 4), (0.2, 0), (0.7, 0), (0.6, 0), (1.0, 0)]
    store.add(
        [
            Pattern(
                id=f"pat-{n:012x}",
                timestamp=ts(1, n),
                name=f"p{n}",
                confidence=c,
                validations=v,
                project="proj",
            )
            for n, (c, v) in enumerate(specs)
        ]
        + [Pattern(id="pat-0000000000ff", timestamp=ts(2), name="other", project="x")]
    )
    bundle = resume(store, project="proj")
    assert [p["name"] for p in bundle.patterns] == ["p6", "p2", "p1", "p4", "p5"]
    assert bundle.patterns[1] == {
        "id": f"pat-{2:012x}",
        "name": "p2",
        "solution": "",
        "confidence": 0.9,
        "validations": 4,
        "flagged": None,
    }


def test_pitfalls_by_severity(store: Store) -> None:
    store.add(
        [
            AntiPattern(id="anti-000000000001", timestamp=ts(1), name="low one", severity="low"),
            AntiPattern(
                id="anti-000000000002", timestamp=ts(2), name="bad", severity="critical", fix="f"
            ),
            AntiPattern(id="anti-000000000003", timestamp=ts(3), name="gone", status="retracted"),
        ]
    )
    assert resume(store, project="proj").pitfalls == [
        {"id": "anti-000000000002", "name": "bad", "fix": "f", "severity": "critical"},
        {"id": "anti-000000000001", "name": "low one", "fix": "", "severity": "low"},
    ]


def test_recurring_failures_follow_the_rule_of_three(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(4):
        monkeypatch.setenv("LORE_NOW", ts(2, n))
        capture_mod.capture(
            store, f"timed out {n}", kind="failure", fields={"error_type": "Timeout"}
        )
    for n in range(2):
        capture_mod.capture(
            store, f"exit {n}", kind="failure", fields={"error_type": "NonZeroExit"}
        )
    assert recurring_failures(store) == [
        {
            "error_type": "Timeout",
            "count": 4,
            "last_seen": ts(2, 3),
            "last_message": "timed out 3",
            "pitfall": None,
            "pattern": None,
        }
    ]
    assert [f["error_type"] for f in recurring_failures(store, threshold=2)] == [
        "Timeout",
        "NonZeroExit",
    ]
    store.add([AntiPattern(id="anti-0000000000aa", timestamp=ts(3), name="PITFALL: Timeout")])
    assert recurring_failures(store)[0]["pitfall"] == "anti-0000000000aa"


def test_goals_active_by_priority_with_criteria(store: Store) -> None:
    store.add(
        [
            Goal(id="goal-000000000001", timestamp=ts(1), title="Later", priority="low"),
            Goal(
                id="goal-000000000002",
                timestamp=ts(2),
                title="Now",
                priority="critical",
                criteria=[{"text": "a", "met": True}, {"text": "b", "met": True}, {"text": "c"}],
            ),
            # Written before goal commands: "achieved" reads as "completed", not open.
            Goal(id="goal-000000000003", timestamp=ts(3), title="Done", status="achieved"),
        ]
    )
    assert resume(store, project=None).goals == [
        {
            "id": "goal-000000000002",
            "title": "Now",
            "priority": "critical",
            "criteria_met": 2,
            "criteria_total": 3,
            "completion": "2/3",
        },
        {
            "id": "goal-000000000001",
            "title": "Later",
            "priority": "low",
            "criteria_met": 0,
            "criteria_total": 0,
            "completion": "0/0",
        },
    ]


def test_pending_review_is_older_than_three_days_oldest_first(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    store.add(
        [
            decision(1, timestamp=ts(7, 12)),  # exactly three days: due
            decision(2, timestamp=ts(7, 13)),  # not yet
            decision(3, timestamp=ts(2)),
            decision(4, timestamp=ts(1), outcome="successful"),
        ]
    )
    assert [d["id"] for d in resume(store, project="proj").pending_review] == [
        f"dec-{3:012x}",
        f"dec-{1:012x}",
    ]


def test_no_session_means_a_reconstruction(store: Store) -> None:
    capture_mod.capture(store, "seen", project="proj")
    bundle = resume(store, project="proj", git={"last_commits": [], "uncommitted": ["x"]})
    assert bundle.session is None
    assert bundle.reconstructed is not None
    assert bundle.reconstructed["git"] == {"last_commits": [], "uncommitted": ["x"]}
    assert [o["content"] for o in bundle.reconstructed["recent_observations"]] == ["seen"]


def test_with_a_session_there_is_no_reconstruction(store: Store) -> None:
    store.add([Session(id="session-0001", timestamp=ts(1), status="closed", ended_at=ts(1))])
    bundle = resume(store, project=None)
    assert bundle.reconstructed is None
    assert bundle.session is not None and bundle.session["id"] == "session-0001"


def test_the_open_session_is_not_the_last_handoff(store: Store) -> None:
    store.add(
        [
            Session(id="session-0001", timestamp=ts(1), status="closed", ended_at=ts(1)),
            Session(id="session-0002", timestamp=ts(2), status="open"),
        ]
    )
    assert resume(store, project=None).session["id"] == "session-0001"  # type: ignore[index]


# --- the text and its budget -----------------------------------------------------------


def bundle_with_everything() -> ResumeBundle:
    return ResumeBundle(
        project="proj",
        session={
            "id": "session-0001",
            "ended_at": "2026-03-09T18:30:00.000000Z",
            "message": "Cache layer done; the retry logic is half written in client.py.",
            "next_steps": ["add retries"],
            "blockers": ["CI slow"],
            "questions": [],
            "threads": ["flaky test"],
            "git": {"branch": "main", "head": "0123456789abcdef", "uncommitted": ["a", "b"]},
        },
        reconstructed=None,
        recent_decisions=[
            {"id": f"dec-{n}", "decision": f"decision {n}", "rationale": "", "outcome": "pending"}
            for n in range(5)
        ],
        patterns=[
            {"id": "pat-1", "name": "Retry", "solution": "backoff", "confidence": 0.75},
        ],
        recurring_failures=[
            {"error_type": "Timeout", "count": 3, "last_message": "slow", "pitfall": None}
        ],
        goals=[
            {
                "id": "goal-1",
                "title": "Ship",
                "priority": "high",
                "criteria_met": 1,
                "criteria_total": 2,
            }
        ],
        pending_review=[
            {"id": "dec-0", "decision": "decision 0", "timestamp": "2026-03-01T00:00:00Z"}
        ],
    )


FULL = [
    "lore resume — proj",
    "## Last handoff (session-0001, 2026-03-09 18:30 UTC)",
    "Cache layer done; the retry logic is half written in client.py.",
    "- Next: add retries",
    "- Blocker: CI slow",
    "- Open thread: flaky test",
    "- Git at handoff: main 0123456789, 2 uncommitted files",
    "## Recent decisions",
    "- decision 0 (dec-0, pending)",
    "- decision 1 (dec-1, pending)",
    "- decision 2 (dec-2, pending)",
    "- decision 3 (dec-3, pending)",
    "- decision 4 (dec-4, pending)",
    "## Patterns",
    "- Retry: backoff (pat-1, confidence 0.75)",
    "## Recurring failures (Rule of Three)",
    '- Timeout x3: last "slow"',
    "## Open goals",
    "- Ship [1/2 criteria] (goal-1)",
    "## Decisions pending review (1)",
    "- decision 0 (dec-0, since 2026-03-01)",
]


def test_render_without_budget_keeps_everything() -> None:
    text, cut = render(bundle_with_everything())
    assert text.splitlines() == FULL
    assert cut == []
    assert render(bundle_with_everything(), budget=10_000) == (text, [])


def test_a_multi_line_value_stays_on_its_item_line() -> None:
    """A rationale, next step or pattern written over several lines (an import from
    bash-lore, a pasted paragraph) is one list item: its later lines do not start a line
    of their own that reads as another section's text."""
    bundle = bundle_with_everything()
    bundle.recent_decisions[0]["rationale"] = "rows skip.\nKeyset is stable."
    bundle.session["next_steps"] = ["add retries\n  with backoff"]
    bundle.patterns[0]["solution"] = "backoff:\n\n- 3 tries"
    lines = render(bundle)[0].splitlines()
    assert "- decision 0 — because rows skip. Keyset is stable. (dec-0, pending)" in lines
    assert "- Next: add retries with backoff" in lines
    assert "- Retry: backoff: - 3 tries (pat-1, confidence 0.75)" in lines
    assert len(lines) == len(FULL)


def test_budget_drops_the_least_useful_lines_first() -> None:
    full = "\n".join(FULL)
    # Just under everything: the pending-review section (least useful) goes first.
    budget = estimate_tokens("\n".join(FULL[:-2])) + 1
    assert budget < estimate_tokens(full)
    text, cut = render(bundle_with_everything(), budget=budget)
    assert cut == ["1 line of decisions pending review"]
    assert text.splitlines() == [
        *FULL[:-2],
        f"[budget {budget} tokens: cut 1 line of decisions pending review]",
    ]
    # Tighter: older decisions (priority 4) go next, newest kept, then git, goals, patterns.
    text, cut = render(bundle_with_everything(), budget=80)
    lines = text.splitlines()
    assert lines[:6] == FULL[:6]
    assert "- decision 4 (dec-4, pending)" not in lines
    assert "- decision 0 (dec-0, pending)" in lines
    assert cut[0] == "1 line of decisions pending review"
    assert lines[-1] == f"[budget 80 tokens: cut {', '.join(cut)}]"
    assert estimate_tokens("\n".join(lines[:-1])) <= 80


def test_budget_removes_a_heading_with_its_last_line() -> None:
    text, cut = render(bundle_with_everything(), budget=100)
    assert cut == [
        "1 line of decisions pending review",
        "2 lines of recent decisions",
        "1 line of open goals",
        "1 line of patterns",
        "1 line of git",
    ]
    assert text.splitlines() == [
        *FULL[:6],
        "## Recent decisions",
        "- decision 0 (dec-0, pending)",
        "- decision 1 (dec-1, pending)",
        "- decision 2 (dec-2, pending)",
        "## Recurring failures (Rule of Three)",
        '- Timeout x3: last "slow"',
        f"[budget 100 tokens: cut {', '.join(cut)}]",
    ]


@pytest.mark.parametrize("budget", [1, 5, 20])
def test_the_handoff_message_always_survives(budget: int) -> None:
    text, cut = render(bundle_with_everything(), budget=budget)
    lines = text.splitlines()
    assert lines[:3] == FULL[:3]  # title, heading and the whole message
    assert "- Next: add retries" not in lines
    assert lines[-1] == (
        f"[budget {budget} tokens: cut {', '.join(cut)}; "
        "the handoff itself is longer and was kept whole]"
    )
    assert len(lines) == 4


# --- read through the derived index -------------------------------------------------


def test_goals_and_pending_review_are_capped_with_full_counts(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    store.add(
        [
            Goal(id=f"goal-{n:012x}", timestamp=ts(1, n), title=f"goal {n}", priority="low")
            for n in range(12)
        ]
        + [Goal(id="goal-0000000000ff", timestamp=ts(2), title="urgent", priority="critical")]
    )
    store.add([decision(n, timestamp=ts(1, n)) for n in range(14)])
    bundle = resume(store, project="proj")
    assert [g["title"] for g in bundle.goals] == ["urgent"] + [f"goal {n}" for n in range(9)]
    assert bundle.goals_count == 13
    assert [d["id"] for d in bundle.pending_review] == [f"dec-{n:012x}" for n in range(10)]
    assert bundle.pending_review_count == 14
    data = bundle.to_dict()
    assert (data["goals_count"], data["pending_review_count"]) == (13, 14)
    text, _ = render(bundle)
    assert "## Decisions pending review (14)" in text
    assert "- … and 3 more active goals (lore list goal)" in text


def test_resume_sees_revisions_and_hand_edits_at_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    store.add([decision(1, timestamp=ts(1)), decision(2, timestamp=ts(2))])
    store.add([Pattern(id="pat-000000000001", timestamp=ts(1), name="low", confidence=0.2)])
    store.add([Pattern(id="pat-000000000002", timestamp=ts(1), name="high", confidence=0.9)])
    first = resume(store, project="proj")  # builds the index
    assert [p["name"] for p in first.patterns] == ["high", "low"]
    assert [d["id"] for d in first.pending_review] == [f"dec-{1:012x}", f"dec-{2:012x}"]
    store.revise(f"dec-{1:012x}", {"outcome": "successful"})
    pattern_file = store.root.path / "patterns" / "data" / "patterns" / "pat-000000000001.yaml"
    text = pattern_file.read_text(encoding="utf-8")
    # An in-place edit (no rename), as an editor might make it; a longer value changes
    # the size, so the fingerprint moves even within one mtime tick.
    pattern_file.write_text(text.replace("confidence: 0.2", "confidence: 0.95"), "utf-8")
    second = resume(store, project="proj")
    assert [p["name"] for p in second.patterns] == ["low", "high"]
    assert second.patterns[0]["confidence"] == 0.95
    assert [d["id"] for d in second.pending_review] == [f"dec-{2:012x}"]
    # Now successful, the older decision outranks the newer pending one.
    assert second.recent_decisions[0]["id"] == f"dec-{1:012x}"
    assert second.recent_decisions[0]["outcome"] == "successful"


def test_a_deleted_index_is_rebuilt_and_gives_the_same_bundle(store: Store) -> None:
    from lore.index.persist import index_path

    store.add([decision(n) for n in range(3)])
    store.add([AntiPattern(id="anti-000000000001", timestamp=ts(1), name="x", severity="high")])
    before = resume(store, project="proj").to_dict()
    index_path(store.root).unlink()
    assert resume(store, project="proj").to_dict() == before
    index_path(store.root).write_bytes(b"garbage")
    assert resume(store, project="proj").to_dict() == before


def test_recent_decisions_rank_by_importance_not_age(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lore.index.history import note_recalled

    monkeypatch.setenv("LORE_NOW", "2026-03-20T00:00:00Z")

    def made(n: int, when: str, **fields: object) -> str:
        rid = f"dec-{n:012x}"
        store.add([Decision(id=rid, timestamp=when, decision=f"decision {n}", **fields)])
        return rid

    key = made(1, "2026-03-01T00:00:00Z", type="architecture", spec_quality=0.85)
    newest = [made(n, f"2026-03-{n:02d}T00:00:00Z") for n in range(2, 13)]
    abandoned = made(13, "2026-03-19T00:00:00Z", outcome="abandoned")
    future = made(14, "2999-01-01T00:00:00Z", type="naming")
    timeless = made(15, "2026-03-18T00:00:00Z")
    ids = [d["id"] for d in resume(store, project=None).recent_decisions]
    assert ids[0] == key  # the oldest, but the most important
    assert abandoned not in ids
    assert future in ids  # counted as made now, not an error
    # Equal weights: the newer first; the two oldest plain ones drop out.
    plain = [i for i in ids if i in (*newest, timeless)]
    assert plain == [timeless, *reversed(newest)][: len(plain)]
    assert len(ids) == 10
    # Often recalled, an old plain decision climbs back in.
    note_recalled(store.root, [newest[0]] * 100)
    again = [d["id"] for d in resume(store, project=None).recent_decisions]
    assert newest[0] in again and again.index(newest[0]) < again.index(newest[-1])


@pytest.mark.parametrize(
    ("seed", "one_time", "alike"),
    [(1, False, False), (2, False, False), (3, False, False), (4, True, False), (5, True, True)],
)
def test_the_first_decisions_are_those_of_valuing_every_decision(
    store: Store, monkeypatch: pytest.MonkeyPatch, seed: int, one_time: bool, alike: bool
) -> None:
    """rank_decisions looks up use and staleness only for the decisions that can still
    make the cut; the first n are those of working out every decision's value (the
    activation model's: use here, old or recent, citations, pins; stale advice lower).
    ``one_time``: every decision made in the same second, as an import makes them (keys
    within rounding of each other: the long walk); ``alike``: most of them alike in every
    column but their time (microseconds apart), so only each group's newest are worked
    out."""
    import random

    from lore.capture.anchors import blob_id
    from lore.dynamics import activation as model
    from lore.index.history import note_recalled, usage
    from lore.index.view import ProjectView
    from lore.sessions.resume import W_ACTIVATION, StaleMarks, rank_decisions

    rng = random.Random(seed)
    kept = store.root.path.parent / "kept.py"
    kept.write_text("KEPT = 1\n")
    made = []
    for n in range(300):
        fields: dict = {
            "outcome": rng.choice(["pending", "successful", "revised", "abandoned"]),
            "type": rng.choice(["architecture", "implementation", "naming", "other"]),
            "spec_quality": rng.choice([0.0, 0.4, 0.9]),
        }
        same = alike and rng.random() < 0.8  # alike in every column but the time
        if same:
            fields = {"outcome": "successful", "type": "architecture", "spec_quality": 0.9}
        if made and rng.random() < 0.3 and not same:
            fields["related_decisions"] = [rng.choice(made[:5] + made)]
        month, day = (6, 1) if one_time else (1 + n % 12, 1 + n % 28)
        micro = f".{rng.randrange(1000):06d}" if alike else ""  # (some at the same time)
        record = decision(n, project=None, timestamp=f"2025-{month:02d}-{day:02d}T00:00:00{micro}Z")
        for name, value in fields.items():
            setattr(record, name, value)
        if rng.random() < 0.05 and not same:
            record.extra["pinned"] = True
        if rng.random() < 0.3 and not same:
            blob = rng.choice([blob_id(b"KEPT = 1\n"), blob_id(b"KEPT = 0\n")])
            record.extra["file_hashes"] = [{"path": str(kept), "blob": blob, "commit": None}]
        made.append(record.id)
        store.add([record])
    for day in ("2024-01-01", "2025-06-01", "2026-03-19"):  # old decisions used lately too
        monkeypatch.setenv("LORE_NOW", f"{day}T00:00:00Z")
        for _ in range(1 if alike else rng.randint(1, 8)):  # (alike: used a little)
            note_recalled(store.root, rng.sample(made, 2 if alike else 6))
    monkeypatch.setenv("LORE_NOW", "2026-03-20T00:00:00Z")
    view = ProjectView(store, None)
    idx, docs = view.index, view.docs("decision")
    used, now = usage(store.root), 1_773_964_800.0  # 2026-03-20
    marks = StaleMarks(view)

    def value(d: int) -> float:
        use = used.get(idx.id_of(d))
        last = use.last if use else 0.0
        fresh = (
            1.0
            if d in idx.pins
            else max(
                model.decay("decision", (now - idx.ts[d]) / model.DAY),
                model.decay("decision", (now - last) / model.DAY) if last else 0.0,
            )
        )
        share = model.use_share(use.total if use else 0, idx.cited_count(d))
        act = model.W_FRESH * fresh + model.W_USE * share
        own = idx.dw[d] - idx.cw[d] + W_ACTIVATION * act
        return own * model.STALE_FACTOR if marks.check(d) else own

    every = sorted(docs, key=lambda d: (value(d), idx.ts[d], d), reverse=True)
    plain = sorted(
        docs, key=lambda d: value(d) / (model.STALE_FACTOR if marks.check(d) else 1), reverse=True
    )
    assert alike or any(marks.check(d) for d in plain[:40])
    assert idx.pins and idx.cited_max() >= 2
    for n in (1, 5, 10, 40):
        assert rank_decisions(view, docs, n, StaleMarks(view)) == every[:n], n
