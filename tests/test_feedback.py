"""lore.sessions.review: pending decisions, linked patterns, resolve, promote."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.capture import core as capture_mod
from lore.components.graph import Edge
from lore.components.journal import Decision
from lore.components.patterns import AntiPattern, Pattern
from lore.errors import InvalidInputError, UsageError
from lore.sessions.review import linked_patterns, pending, promote_failures, resolve
from lore.store.core import Store
from lore.store.documents import read_document

NOW = "2026-03-10T12:00:00.000000Z"


def dec(n: int, **kw) -> Decision:
    kw.setdefault("timestamp", f"2026-03-0{n}T00:00:00.000000Z")
    return Decision(id=f"dec-{n:012x}", decision=f"decision {n}", **kw)


def pat(n: int, **kw) -> Pattern:
    kw.setdefault("timestamp", "2026-03-01T00:00:00.000000Z")
    kw.setdefault("name", f"pattern {n}")
    return Pattern(id=f"pat-{n:012x}", **kw)


def fail(store: Store, error_type: str, message: str, **kw) -> str:
    fields = {"error_type": error_type, **kw.pop("fields", {})}
    return capture_mod.capture(store, message, kind="failure", fields=fields, **kw).record.id


# --- pending ------------------------------------------------------------------------


def test_pending_by_age(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    store.add(
        [
            dec(1),
            dec(7, timestamp="2026-03-07T12:00:00.000000Z"),  # exactly 3 days old
            dec(8),
            dec(2, outcome="revised"),
            dec(3, status="retracted"),
        ]
    )
    assert [d.id for d in pending(store)] == [dec(1).id, dec(7).id]
    assert [d.id for d in pending(store, days=0)] == [dec(1).id, dec(7).id, dec(8).id]
    assert [d.id for d in pending(store, days=9)] == [dec(1).id]


# --- linked patterns ----------------------------------------------------------------


def test_linked_patterns_are_cited_or_of_the_same_session(store: Store) -> None:
    decision = dec(
        1,
        project="proj",
        tags=["cache", "proj"],
        entities=["client.py", "`Store`"],
        rationale=f"as {pat(2).id} says",
        session_id="session-00000000000a",
    )
    store.add([decision])
    store.add(
        [
            pat(1, tags=["cache"]),  # a shared tag alone: not a link (issue 7)
            pat(2),  # cited by id in the rationale
            pat(3, name="Use `store` for state"),  # a shared entity alone: not a link
            pat(4),  # graph edge
            pat(5, session_id="session-00000000000a"),  # learned in the decision's session
            pat(6, session_id="session-00000000000b"),  # another session
            pat(7, session_id="session-00000000000a", status="retracted"),  # hidden
        ]
    )
    store.add([Edge(id="edge-000000000001", timestamp=NOW, src=pat(4).id, dst=decision.id)])
    store.add([Edge(id="edge-000000000002", timestamp=NOW, src=pat(6).id, dst="dec-ffffffffffff")])
    assert [p.id for p in linked_patterns(store, decision)] == [pat(n).id for n in (2, 4, 5)]


def test_a_decision_without_a_session_links_no_session_less_pattern(store: Store) -> None:
    decision = dec(1, tags=["t"])
    store.add([decision])
    store.add([pat(1, tags=["t"])])
    assert linked_patterns(store, decision) == []


# --- resolve ------------------------------------------------------------------------


def test_successful_raises_confidence_by_exactly_a_tenth(store: Store) -> None:
    session = "session-00000000000a"
    decision = dec(1, tags=["t"], session_id=session)
    store.add([decision])
    store.add(
        [
            pat(1, session_id=session, confidence=0.333, validations=2),
            pat(2, session_id=session, confidence=0.95),
            pat(3, session_id=session, confidence=1.0),
            pat(4, session_id=session, confidence=0.7),
        ]
    )
    result = resolve(store, decision.id, outcome="successful")
    assert result.raised == [
        {"id": pat(1).id, "from": 0.333, "to": 0.433},
        {"id": pat(2).id, "from": 0.95, "to": 1.0},
        {"id": pat(3).id, "from": 1.0, "to": 1.0},
        {"id": pat(4).id, "from": 0.7, "to": 0.8},  # not 0.7999999999999999
    ]
    assert [(p.confidence, p.validations) for p in store.of(Pattern)] == [
        (0.433, 3),
        (1.0, 1),
        (1.0, 1),
        (0.8, 1),
    ]
    assert result.failure is None


def test_resolve_refusals(store: Store) -> None:
    store.add([dec(1, status="retracted"), dec(2, outcome="successful"), dec(3)])
    with pytest.raises(InvalidInputError, match="is retracted; pass --force"):
        resolve(store, dec(1).id, outcome="revised")
    with pytest.raises(InvalidInputError, match=r"already resolved \(successful\)"):
        resolve(store, dec(2).id, outcome="revised")
    with pytest.raises(UsageError, match="--outcome must be one of"):
        resolve(store, dec(3).id, outcome="pending")
    assert [d.outcome for d in store.of(Decision, hidden=True)] == [
        "pending",
        "successful",
        "pending",
    ]
    assert resolve(store, dec(1).id, outcome="revised", force=True).decision.outcome == "revised"


def test_abandoned_records_a_logic_error(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    store.add([dec(1, project="proj", tags=["proj", "cache"])])
    result = resolve(store, dec(1).id, outcome="abandoned", lesson="too slow")
    failure = result.failure
    assert failure is not None
    assert store.get(failure.id).to_dict() == {
        "id": failure.id,
        "timestamp": NOW,
        "error_type": "LogicError",
        "error_message": "Decision abandoned: decision 1 (lesson: too slow)",
        "tool": "",
        "step": "review",
        "session_id": None,
        "project": "proj",
        "source": "review",
        "tags": ["cache", dec(1).id, "proj"],
        "v": 1,
    }


# --- promote ------------------------------------------------------------------------


def test_promote_creates_then_updates_one_pitfall_keeping_comments(
    store: Store, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = []
    for n in range(3):
        monkeypatch.setenv("LORE_NOW", f"2026-03-0{n + 1}T00:00:00.000000Z")
        ids.append(fail(store, "Timeout", f"run {n} timed out\nmore", fields={"tool": "pytest"}))
    fail(store, "NonZeroExit", "exit 1")
    monkeypatch.setenv("LORE_NOW", NOW)
    (first,) = promote_failures(store, fix="use -n 2")
    anti = first.anti_pattern
    assert (first.error_type, first.count, first.created) == ("Timeout", 3, True)
    file = data_dir / "patterns" / "data" / "anti-patterns" / f"{anti.id}.yaml"
    assert read_document(file) == {
        "id": anti.id,
        "timestamp": NOW,
        "name": "PITFALL: Timeout",
        "symptom": "run 2 timed out; run 1 timed out; run 0 timed out",
        "risk": "3 failures of type Timeout (tools: pytest)",
        "fix": "use -n 2",
        "severity": "medium",
        "category": "failure",
        "status": "active",
        "inverted_from": None,
        "session_id": None,
        "project": None,
        "source": "promote-failure",
        "tags": ["Timeout"],
        "v": 1,
        "failure_count": 3,
        "failure_ids": ids[::-1],
    }
    file.write_text("# written by hand: keep me\n" + file.read_text())
    fail(store, "Timeout", "run 3 timed out")
    fail(store, "Timeout", "run 4 timed out")
    (again,) = promote_failures(store)
    assert (again.count, again.created, again.anti_pattern.id) == (5, False, anti.id)
    assert [p.name for p in store.of(AntiPattern)] == ["PITFALL: Timeout"]
    assert file.read_text().startswith("# written by hand: keep me\n")
    data = read_document(file)
    assert (data["fix"], data["severity"], data["failure_count"]) == ("use -n 2", "high", 5)
    assert data["risk"] == "5 failures of type Timeout (tools: pytest)"
    # Unchanged since the last run: nothing written.
    before = file.read_bytes()
    assert promote_failures(store, "Timeout")[0].created is False
    assert file.read_bytes() == before


def test_promote_a_type_below_the_threshold_is_refused(store: Store) -> None:
    fail(store, "Timeout", "once")
    with pytest.raises(InvalidInputError) as info:
        promote_failures(store, "Timeout")
    assert info.value.message == (
        "Timeout has 1 failure, fewer than the threshold of 3; lower it with --threshold"
    )
    assert store.of(AntiPattern) == []
    assert promote_failures(store, "Timeout", threshold=1)[0].count == 1


def test_promote_revives_a_retracted_pitfall(store: Store) -> None:
    for n in range(3):
        fail(store, "Timeout", f"t{n}")
    (first,) = promote_failures(store)
    store.revise(first.anti_pattern.id, {"status": "retracted"})
    (again,) = promote_failures(store)
    assert again.anti_pattern.id == first.anti_pattern.id
    assert again.anti_pattern.status == "active"
