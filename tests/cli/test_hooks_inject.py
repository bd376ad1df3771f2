"""UserPromptSubmit: the memories relevant to a prompt, injected with their ids, once per
agent session, never when nothing is relevant enough, never while paused; the prompt is
never stored. Event names are accepted as Claude Code and as lore spell them."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import Result
from hypothesis import given
from hypothesis import strategies as st

from lore.recall import prompt as prompt_rules

Run = Callable[..., Result]
SESSION = "0f4c2a1e-9b8d-4c7e-a6f5-3d2c1b0a9e8f"
HEADER = "lore: memories that may matter for this prompt (`lore show ID` reads one):"
FIXTURES = Path(__file__).parent.parent / "fixtures" / "hooks"


@pytest.fixture(autouse=True)
def hook_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_SESSION_ID", "")
    monkeypatch.delenv("LORE_HOOKS_PAUSE", raising=False)


def captured(result: Result) -> str:
    assert result.exit_code == 0, result.stderr
    return str(json.loads(result.stdout)["id"])


def ask(run: Run, prompt: str, session: str = SESSION, event: str = "user-prompt-submit") -> Any:
    """The hook's context for ``prompt`` (None when it printed nothing)."""
    payload = {"session_id": session, "prompt": prompt, "cwd": os.getcwd()}
    result = run("hooks", "run", event, input=json.dumps(payload))
    assert (result.exit_code, result.stderr) == (0, "")
    if not result.stdout:
        return None
    out = json.loads(result.stdout)
    assert list(out) == ["hookSpecificOutput"]
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    return out["hookSpecificOutput"]["additionalContext"]


@pytest.fixture
def seeded(run: Run) -> dict[str, str]:
    return {
        "pitfall": captured(
            run(
                "capture",
                "PITFALL: stale fixtures",
                "--anti-pattern",
                "--symptom",
                "tests/test_cache.py fails after a schema change",
                "--fix",
                "run pytest with --cache-clear",
                "--json",
            )
        ),
        "decision": captured(
            run(
                "remember",
                "Keep sessions in Redis because: restarts must not log users out",
                "--files",
                "src/auth/session.py",
                "--json",
            )
        ),
        "pattern": captured(
            run(
                "learn",
                "Retry network calls with backoff",
                "--solution",
                "exponential backoff with jitter",
                "--json",
            )
        ),
    }


def test_a_prompt_naming_a_file_gets_the_records_that_name_it_once(
    run: Run, seeded: dict[str, str]
) -> None:
    context = ask(run, "Please fix the flaky tests/test_cache.py before lunch")
    assert context == (
        f"{HEADER}\n- {seeded['pitfall']} PITFALL: stale fixtures. Fix: run pytest with "
        "--cache-clear [names tests/test_cache.py]"
    )
    decision = ask(run, "why does src/auth/session.py keep a Redis client?")
    assert decision == (
        f"{HEADER}\n- {seeded['decision']} decision (pending): Keep sessions in Redis; because "
        "restarts must not log users out [names src/auth/session.py]"
    )
    # Later in the same session: never the same record again.
    assert ask(run, "tests/test_cache.py fails again, and src/auth/session.py too") is None
    # Another session is told again (its agent has not seen it).
    assert seeded["pitfall"] in ask(run, "look at tests/test_cache.py", session="other-session")


def test_a_file_name_alone_finds_the_path(run: Run, seeded: dict[str, str]) -> None:
    context = ask(run, "open session.py and read it")
    assert seeded["decision"] in context and "[names session.py]" in context


def test_a_topic_is_injected_only_above_the_threshold(run: Run, seeded: dict[str, str]) -> None:
    assert ask(run, "add a timeout to the network client") is None  # 1 of 4 title words
    context = ask(run, "do we retry network calls with some backoff?")
    assert context == (
        f'{HEADER}\n- {seeded["pattern"]} pattern "Retry network calls with backoff": '
        "exponential backoff with jitter [about retry, network, calls, backoff]"
    )


def test_nothing_relevant_prints_nothing(run: Run, seeded: dict[str, str]) -> None:
    for prompt in ("hello", "thanks, that works", "what is the certainty principle?", ""):
        assert ask(run, prompt) is None


def test_error_types_bring_their_pitfall_and_newest_recent_failure(run: Run) -> None:
    for n in (1, 2):
        run("fail", "Timeout", f"pytest hung after 30 s ({n})", "--tool", "pytest")
    promoted = run("promote-failure", "Timeout", "--threshold", "1", "--fix", "pass -x", "--json")
    assert promoted.exit_code == 0, promoted.stderr
    newest = captured(run("fail", "Timeout", "pytest hung again", "--json"))
    context = ask(run, "the timeout is back, look into it")
    lines = context.splitlines()
    assert lines[0] == HEADER
    assert lines[1].startswith("- anti-") and "PITFALL: Timeout" in lines[1]
    assert lines[1].endswith("[error type Timeout]")
    # One failure per type: the newest.
    assert lines[2:] == [
        f"- {newest} Timeout failure on {lines[2].split(' on ')[1][:10]}: pytest hung again "
        "[error type Timeout]"
    ]


def test_recent_failures_are_counted_from_lore_now(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LORE_NOW freezes "now" (contract §2): the 14 days are counted back from it, not
    # from the machine's clock.
    monkeypatch.setenv("LORE_NOW", "2026-01-01T10:00:00Z")
    failed = captured(run("fail", "Timeout", "pytest hung on the sync test", "--json"))
    monkeypatch.setenv("LORE_NOW", "2026-01-03T10:00:00Z")
    context = ask(run, "the Timeout again")
    assert context.splitlines()[1:] == [
        f"- {failed} Timeout failure on 2026-01-01: pytest hung on the sync test "
        "[error type Timeout]"
    ]


def test_a_failure_its_session_fixed_says_so(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    # claude-medgemma.jsonl: `uv run ruff check .` fails, an Edit of ordinal_resolve.py,
    # then it passes: ingestion marks the failure resolved with the likely fix.
    transcript = Path(__file__).parent.parent / "ingest" / "fixtures" / "claude-medgemma.jsonl"
    assert run("ingest", str(transcript), "--json").exit_code == 0
    monkeypatch.setenv("LORE_NOW", "2026-02-20T10:00:00Z")
    monkeypatch.setenv("LORE_PROJECT", "protocol-processor-service")
    (line,) = ask(run, "ruff reports a LintError again").splitlines()[1:]
    assert line.startswith("- fail-")
    assert line.split(" ", 2)[2] == (
        "LintError failure on 2026-02-19, fixed then (likely by editing "
        "src/protocol_processor/nodes/ordinal_resolve.py): Found 2 errors. "
        "(`uv run ruff check . 2>&1`) [error type LintError]"
    )


def test_failures_of_this_session_old_ones_and_retracted_records_are_not_injected(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    lore_session = "session-" + SESSION.replace("-", "")
    monkeypatch.setenv("LORE_SESSION_ID", lore_session)
    run("fail", "LintError", "ruff: src/app.py E501", "--tool", "ruff check")
    monkeypatch.setenv("LORE_SESSION_ID", "")
    assert ask(run, "src/app.py has lint errors") is None  # the agent saw it happen
    monkeypatch.setenv("LORE_NOW", "2026-01-01T00:00:00Z")
    run("fail", "LintError", "ruff: src/old.py E501")
    monkeypatch.delenv("LORE_NOW")
    assert ask(run, "src/old.py has lint errors") is None  # older than FAILURE_DAYS
    gone = captured(run("remember", "Vendor src/vendor.py as is", "--json"))
    assert run("retract", gone, "--reason", "wrong").exit_code == 0
    assert ask(run, "change src/vendor.py") is None


def test_flagged_patterns_and_other_projects_are_left_out(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    flagged = captured(run("learn", "Cache every query result", "--solution", "lru", "--json"))
    assert (
        run("patterns", "flag", flagged, "--type", "incorrect", "--reason", "stale").exit_code == 0
    )
    assert ask(run, "should we cache every query result?") is None
    run("remember", "Use Kafka for billing events", "--project", "billing")
    monkeypatch.setenv("LORE_PROJECT", "shop")
    assert ask(run, "do billing events go through Kafka?") is None  # another project's
    monkeypatch.setenv("LORE_PROJECT", "billing")
    assert "Use Kafka for billing events" in ask(run, "do billing events go through Kafka?")


def test_pause_and_the_environment_turn_injection_off(
    run: Run, seeded: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run("hooks", "pause").exit_code == 3  # no session seen yet
    ask(run, "hello")  # the hooks now know this session
    paused = run("hooks", "pause", "--json")
    assert json.loads(paused.stdout) == {
        "ok": True,
        "session": SESSION,
        "paused": True,
        "changed": True,
    }
    assert ask(run, "fix tests/test_cache.py") is None
    assert run("hooks", "unpause").stdout == f"injection resumed for session {SESSION}\n"
    monkeypatch.setenv("LORE_HOOKS_PAUSE", "1")
    assert ask(run, "fix tests/test_cache.py") is None
    monkeypatch.setenv("LORE_HOOKS_PAUSE", "0")
    assert seeded["pitfall"] in ask(run, "fix tests/test_cache.py")


@pytest.mark.parametrize("event", ["UserPromptSubmit", "user-prompt-submit", "user_prompt_submit"])
def test_event_names_either_way(run: Run, seeded: dict[str, str], event: str) -> None:
    assert seeded["pitfall"] in ask(run, "tests/test_cache.py", event=event)


def test_without_event_the_payload_names_it(run: Run, seeded: dict[str, str]) -> None:
    payload = {
        "session_id": SESSION,
        "prompt": "tests/test_cache.py",
        "hook_event_name": "UserPromptSubmit",
    }
    result = run("hooks", "run", input=json.dumps(payload))
    assert seeded["pitfall"] in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


def test_the_prompt_is_never_stored(run: Run, seeded: dict[str, str], data_dir: Path) -> None:
    secret_words = "zanzibar quokka tests/test_cache.py"
    assert seeded["pitfall"] in ask(run, secret_words)
    cache = Path(os.environ["LORE_CACHE_DIR"]) if os.environ.get("LORE_CACHE_DIR") else None
    places = [data_dir, *([cache] if cache else []), Path.home()]
    for place in places:
        for path in place.rglob("*"):
            if path.is_file():
                assert b"zanzibar" not in path.read_bytes(), path
    state = next(Path.home().rglob(f"hooks/sessions/{SESSION}.json"), None) or next(
        (cache or Path.home()).rglob(f"{SESSION}.json")
    )
    assert orjson.loads(state.read_bytes()) == {"injected": [seeded["pitfall"]]}


def test_private_text_is_not_matched(run: Run, seeded: dict[str, str]) -> None:
    assert ask(run, "<private>tests/test_cache.py</private> anything") is None


def test_real_prompts_from_claude_code(run: Run, seeded: dict[str, str]) -> None:
    """Payloads Claude Code passed to a UserPromptSubmit hook (tests/fixtures/hooks)."""
    for line in (FIXTURES / "claude-payloads.jsonl").read_text().splitlines():
        payload = json.loads(line)
        if payload["hook_event_name"] != "UserPromptSubmit":
            continue
        result = run("hooks", "run", "UserPromptSubmit", input=line)
        assert (result.exit_code, result.stderr, result.stdout) == (0, "", "")


def test_the_documented_thresholds() -> None:
    """LORE_CONTRACT.md states these numbers; change both together."""
    text = (Path(__file__).parents[2] / "LORE_CONTRACT.md").read_text()
    assert (prompt_rules.MAX_RECORDS, prompt_rules.COVERAGE, prompt_rules.MIN_SHARED) == (3, 0.6, 2)
    assert prompt_rules.FAILURE_DAYS == 14
    for needle in (
        "At most 3 records",
        "0.6 of the record",
        "the last 14\n  days",
        "LORE_HOOKS_PAUSE",
    ):
        assert needle in text, needle


class _Entities:
    """What ``_by_entity`` reads of an index: the entity table, postings, times, the dead."""

    def __init__(self, names: list[str]) -> None:
        self.entities = {name: [n, n + len(names)] for n, name in enumerate(names)}
        self.ts = [float(n % 7) for n in range(2 * len(names))]
        self.dead = {1}

    def posting(self, table: str, name: str) -> list[int]:
        assert table == "entities"
        return self.entities[name]


def _by_entity_one_by_one(idx: Any, name: str) -> list[int]:
    """The rule as first written: every entity compared in turn."""
    wanted = name.lower().strip("./")
    if len(wanted) < 3:
        return []
    out: list[int] = []
    for entity in idx.entities:
        held = entity.lower().strip("./")
        if held == wanted or held.endswith("/" + wanted) or wanted.endswith("/" + held):
            out.extend(d for d in idx.posting("entities", entity) if d not in idx.dead)
    return sorted(set(out), key=lambda d: -idx.ts[d])


ENTITIES = [
    "src/auth/session.py", "./src/auth/session.py", "Session.py", "auth/session.py/",
    "session.py", "src/auth/session.pyc", "mysession.py", "tests/test_cache.py",
    "test_cache.py", "cache.py", "CACHE.PY", "src/a.b/c", "a", "..", "/", "", "x\\ny",
    "src/auth", "ΣΊΣΥΦΟΣ.md", "σίσυφος.md", "İstanbul.txt", "kelvin\\u212a",
]  # fmt: skip


@pytest.mark.parametrize(
    "name",
    ["session.py", "src/auth/session.py", "auth/session.py", "tests/test_cache.py", "cache.py",
     "./Session.py", "src/auth", "a", "c", "ΣΊΣΥΦΟΣ.md", "istanbul.txt", "nothing.py", "b/c"],
)  # fmt: skip
def test_entities_are_matched_as_one_by_one(name: str) -> None:
    idx = _Entities(ENTITIES)
    assert prompt_rules._by_entity(idx, name) == _by_entity_one_by_one(idx, name)  # type: ignore[arg-type]


def test_an_entity_with_a_line_break_is_still_matched() -> None:
    idx = _Entities(["notes\nsession.py", "session.py"])
    assert prompt_rules._by_entity(idx, "session.py") == _by_entity_one_by_one(idx, "session.py")  # type: ignore[arg-type]


@given(
    st.lists(st.text(alphabet="aAbB./_ΣσςİI\n", max_size=8), max_size=12),
    st.text(alphabet="aAbB./_Σσİ", max_size=8),
)
def test_entity_matching_is_the_one_by_one_rule(names: list[str], name: str) -> None:
    idx = _Entities(names)
    assert prompt_rules._by_entity(idx, name) == _by_entity_one_by_one(idx, name)  # type: ignore[arg-type]
