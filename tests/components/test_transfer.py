"""transfer: sessions on disk, the open-session pointer, LORE_SESSION_ID, handoff and prune."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from lore.capture import core as capture_mod
from lore.components import transfer
from lore.components.transfer import Session
from lore.errors import UsageError
from lore.sessions import handoff as handoff_mod
from lore.store.core import Store

NOW = "2026-03-04T05:06:07.000000Z"


def session_file(data_dir: Path, session_id: str) -> Path:
    return data_dir / "transfer" / "data" / "sessions" / f"{session_id}.json"


def on_disk(data_dir: Path, session_id: str) -> dict:
    return orjson.loads(session_file(data_dir, session_id).read_bytes())


def pointer(store: Store, project: str | None) -> Path:
    slug = project or "_"
    return Path(store.root.local) / "state" / f"open-session.{slug}"


def capture(store: Store, text: str, **kw) -> str:
    return capture_mod.capture(store, text, **kw).record.id


# --- summary ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "summary"),
    [
        ("Parser done; tests green. Next: wire the CLI.", "Parser done; tests green."),
        ("Done!  Then more", "Done!"),
        ("Is it fixed? Maybe.", "Is it fixed?"),
        ("  No full stop at all  ", "No full stop at all"),
        ("First line\nsecond line. Third.", "First line"),
        ("Version 1.2.3 shipped. Yes.", "Version 1.2.3 shipped."),
        ("x" * 250, "x" * 199 + "…"),
    ],
)
def test_summary_is_the_first_sentence(message: str, summary: str) -> None:
    assert transfer.summarize(message) == summary


# --- LORE_SESSION_ID ----------------------------------------------------------------


@pytest.mark.parametrize("value", ["session-abcd", "session-0123456789abcdef", "session-a-b-c-d"])
def test_env_session_id_accepts_session_ids(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_SESSION_ID", f"  {value} ")
    assert transfer.env_session_id() == value


@pytest.mark.parametrize(
    "value", ["abc", "session-", "session-ABCD", "session-a b", "dec-0123456789ab", "session-x/y"]
)
def test_env_session_id_refuses_other_values(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_SESSION_ID", value)
    with pytest.raises(UsageError) as info:
        transfer.env_session_id()
    assert info.value.exit_code == 2
    assert info.value.message.startswith(f"LORE_SESSION_ID={value!r} is not a session id")


def test_empty_env_session_id_means_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_SESSION_ID", "  ")
    assert transfer.env_session_id() is None


# --- start and the pointer ----------------------------------------------------------


def test_start_writes_the_session_and_a_local_pointer(
    store: Store, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    session = transfer.start(store, project="proj")
    assert on_disk(data_dir, session.id) == {
        "id": session.id,
        "timestamp": NOW,
        "status": "open",
        "started_at": NOW,
        "ended_at": None,
        "message": "",
        "summary": "",
        "next_steps": [],
        "blockers": [],
        "questions": [],
        "threads": [],
        "git": None,
        "captured": {},
        "parent": None,
        "session_id": None,
        "project": "proj",
        "source": "manual",
        "tags": ["proj"],
        "v": 1,
    }
    # The pointer is machine-local state: outside the data root, under HOME's cache.
    assert pointer(store, "proj").read_text() == session.id + "\n"
    assert not pointer(store, "proj").resolve().is_relative_to(data_dir.resolve())
    assert transfer.current_session_id(store, "proj") == session.id
    assert transfer.current_session_id(store, "other") is None


def test_pointer_to_a_closed_or_bogus_session_is_ignored(store: Store) -> None:
    session = transfer.start(store, project="proj")
    store.revise(session.id, {"status": "closed"})
    assert transfer.current_session_id(store, "proj") is None
    pointer(store, "proj").write_text("not a session id\n")
    assert transfer.current_session_id(store, "proj") is None
    pointer(store, "proj").write_text("session-000000000000\n")  # no such session
    assert transfer.current_session_id(store, "proj") is None


def test_env_session_id_wins_over_the_pointer(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    transfer.start(store, project="proj")
    monkeypatch.setenv("LORE_SESSION_ID", "session-agent1")
    assert transfer.current_session_id(store, "proj") == "session-agent1"


def test_start_under_lore_session_id_takes_that_id_and_leaves_the_pointer(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_SESSION_ID", "session-agent1")
    parent = Session(
        id="session-parent00", timestamp=NOW, status="closed", next_steps=["n"], threads=["t"]
    )
    store.add([parent])
    child = transfer.start(store, project="proj", parent=parent)
    assert child.id == "session-agent1"
    assert (child.parent, child.next_steps, child.threads) == ("session-parent00", ["n"], ["t"])
    assert not pointer(store, "proj").exists()
    # A second start under the same id would orphan one of them: refused, nothing written.
    with pytest.raises(UsageError, match="LORE_SESSION_ID=session-agent1 already names a session"):
        transfer.start(store, project="proj", parent=parent)
    assert [s.id for s in store.records("session")] == ["session-parent00", "session-agent1"]


# --- handoff ------------------------------------------------------------------------


def test_handoff_needs_a_message(store: Store) -> None:
    with pytest.raises(UsageError, match="a handoff needs a message"):
        handoff_mod.handoff(store, "  \n", project=None)
    assert store.records("session") == []


def test_handoff_without_a_session_starts_at_the_first_record_since_the_last_handoff(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_PROJECT", "proj")
    old = capture(store, "two days old", timestamp="2026-03-02T05:06:06.000000Z")
    monkeypatch.setenv("LORE_NOW", NOW)
    recent = capture(store, "recent", timestamp="2026-03-03T05:06:08.000000Z")
    now_obs = capture(store, "now")
    other = capture(store, "elsewhere", project="other", timestamp="2026-03-01T00:00:00Z")
    first = handoff_mod.handoff(store, "One.", project="proj")
    # The first handoff covers all of the project's work, however old (not just a day).
    assert first.started_at == "2026-03-02T05:06:06.000000Z"
    assert first.ended_at == NOW
    assert first.captured == {"observation": [old, recent, now_obs]}
    assert other  # not in this project
    later = "2026-03-04T06:00:00.000000Z"
    monkeypatch.setenv("LORE_NOW", "2026-03-04T05:30:00.000000Z")
    fresh = capture(store, "fresh")
    monkeypatch.setenv("LORE_NOW", later)
    second = handoff_mod.handoff(store, "Two.", project="proj")
    assert second.started_at == "2026-03-04T05:30:00.000000Z"  # its first record
    assert second.captured == {"observation": [fresh]}
    assert handoff_mod.last_handoff(store, "proj").id == second.id
    monkeypatch.setenv("LORE_NOW", "2026-03-04T07:00:00.000000Z")
    empty = handoff_mod.handoff(store, "Nothing done.", project="proj")
    assert (empty.started_at, empty.captured) == ("2026-03-04T07:00:00.000000Z", {})


def test_a_manual_handoff_settles_the_previous_open_items(store: Store) -> None:
    report: dict = {}
    handoff_mod.handoff(store, "One.", project="p", next_steps=["a"], report=report)
    assert report == {"how": "new", "from": None, "inherited": 0, "added": 1}
    first = handoff_mod.last_handoff(store, "p")
    second = handoff_mod.handoff(
        store, "Two.", project="p", next_steps=[" b ", "", "b"], blockers=["x"], report=report
    )
    assert (second.next_steps, second.blockers) == (["b"], ["x"])
    assert report == {"how": "settled", "from": first.id, "inherited": 1, "added": 2}


def test_an_automatic_handoff_carries_the_open_items_over(store: Store, data_dir: Path) -> None:
    manual = handoff_mod.handoff(
        store,
        "Idempotency done.",
        project="p",
        next_steps=["finish middleware"],
        blockers=["unclear key TTL"],
        questions=["q"],
        threads=["t"],
    )
    report: dict = {}
    auto = handoff_mod.handoff(
        store,
        "Automatic handoff (SessionEnd).",
        project="p",
        threads=["the request"],
        source="hook",
        carry=True,
        extra={"auto": {"requests": ["the request"]}},
        report=report,
    )
    assert report == {"how": "carried", "from": manual.id, "inherited": 4, "added": 1}
    assert (auto.next_steps, auto.blockers, auto.questions) == (
        ["finish middleware"],
        ["unclear key TTL"],
        ["q"],
    )
    assert auto.threads == ["t", "the request"]
    assert on_disk(data_dir, auto.id)["auto"] == {
        "requests": ["the request"],
        "carried_from": manual.id,
    }
    assert on_disk(data_dir, auto.id)["source"] == "hook"
    # A second automatic handoff carries them on, without the first one's own requests.
    again = handoff_mod.handoff(
        store,
        "Automatic handoff (PreCompact).",
        project="p",
        threads=["later"],
        source="hook",
        carry=True,
        extra={"auto": {"requests": ["later"]}},
    )
    assert (again.next_steps, again.threads) == (["finish middleware"], ["t", "later"])
    assert again.extra["auto"]["carried_from"] == auto.id
    # Until a manual handoff settles them.
    settled = handoff_mod.handoff(store, "Middleware done.", project="p", next_steps=["deploy"])
    assert (settled.next_steps, settled.blockers, settled.threads) == (["deploy"], [], [])


def test_a_forked_sessions_handoff_merges_or_replaces(store: Store) -> None:
    parent = handoff_mod.handoff(store, "One.", project="p", next_steps=["a", "b"], blockers=["x"])
    child = transfer.start(store, project="p", parent=parent)
    report: dict = {}
    merged = handoff_mod.handoff(store, "Two.", project="p", next_steps=["c", "a"], report=report)
    assert merged.id == child.id
    assert (merged.next_steps, merged.blockers) == (["a", "b", "c"], ["x"])
    assert report == {"how": "merged", "from": parent.id, "inherited": 3, "added": 2}
    transfer.start(store, project="p", parent=merged)
    replaced = handoff_mod.handoff(
        store, "Three.", project="p", next_steps=["d"], replace=True, report=report
    )
    assert (replaced.next_steps, replaced.blockers) == (["d"], [])
    assert report == {"how": "replaced", "from": merged.id, "inherited": 4, "added": 1}


def test_handoff_closes_the_open_session_and_clears_the_pointer(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    session = transfer.start(store, project="proj")
    obs = capture(store, "Deploys use rsync", project="proj")
    assert store.get(obs).session_id == session.id
    closed = handoff_mod.handoff(store, "Done.", project="proj", next_steps=["n1"])
    assert closed.id == session.id
    assert (closed.status, closed.started_at, closed.next_steps) == ("closed", NOW, ["n1"])
    assert closed.captured == {"observation": [obs]}
    assert not pointer(store, "proj").exists()
    assert transfer.current_session_id(store, "proj") is None


def test_handoff_extra_fields_are_stored(store: Store, data_dir: Path) -> None:
    closed = handoff_mod.handoff(store, "Auto.", project=None, extra={"auto": {"event": "X"}})
    assert on_disk(data_dir, closed.id)["auto"] == {"event": "X"}
    assert closed.extra == {"auto": {"event": "X"}}


def test_last_handoff_never_borrows_another_projects_session(store: Store) -> None:
    def closed(sid: str, project: str | None, ended: str) -> Session:
        return Session(id=sid, timestamp=ended, status="closed", ended_at=ended, project=project)

    store.add(
        [
            closed("session-a000", "a", "2026-01-01T00:00:00.000000Z"),
            closed("session-b000", "b", "2026-01-03T00:00:00.000000Z"),
            closed("session-none", None, "2026-01-02T00:00:00.000000Z"),
            Session(id="session-open", timestamp="2026-01-04T00:00:00.000000Z", project="a"),
        ]
    )
    assert handoff_mod.last_handoff(store, "a").id == "session-a000"
    assert handoff_mod.last_handoff(store, "c").id == "session-none"  # no own: project-less
    assert handoff_mod.last_handoff(store, None).id == "session-b000"


# --- prune --------------------------------------------------------------------------


def test_prune_archives_only_old_empty_closed_sessions(
    store: Store, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = "2026-01-01T00:00:00.000000Z"
    store.add(
        [
            Session(id="session-empty", timestamp=old, status="closed", ended_at=old),
            Session(id="session-said1", timestamp=old, status="closed", ended_at=old, message="m"),
            Session(
                id="session-kept1",
                timestamp=old,
                status="closed",
                ended_at=old,
                captured={"decision": ["dec-000000000001"]},
            ),
            Session(id="session-open1", timestamp=old, status="open"),
            Session(
                id="session-young",
                timestamp="2026-03-01T00:00:00.000000Z",
                status="closed",
                ended_at="2026-03-01T00:00:00.000000Z",
            ),
        ]
    )
    # LORE_NOW decides what "old" means (31 days after `old`, 3 days after the young one).
    monkeypatch.setenv("LORE_NOW", "2026-03-04T00:00:00.000000Z")
    before = session_file(data_dir, "session-empty").read_bytes()
    assert [s.id for s in transfer.prune(store, days=30, dry_run=True)] == ["session-empty"]
    assert session_file(data_dir, "session-empty").read_bytes() == before
    assert [s.id for s in transfer.prune(store, days=30)] == ["session-empty"]
    assert on_disk(data_dir, "session-empty")["status"] == "archived"
    assert sorted(s.id for s in store.records("session")) == [
        "session-kept1",
        "session-open1",
        "session-said1",
        "session-young",
    ]
    assert [s.id for s in transfer.prune(store, days=2)] == ["session-young"]
