"""The extraction rules (lore.ingest.rules) on real command outputs and real sentences from
the development transcripts: the error-type classification, the key error line, what is
noise, and which sentences are candidates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lore.components.failures import RECOMMENDED_TYPES
from lore.ingest import rules, shell
from lore.ingest.events import Event
from lore.ingest.extract import (
    candidates_of,
    failure_of,
    hook_agent,
    hook_failure,
    is_acknowledgement,
)

HOOKS = Path("/work/shared/bench/transcripts/hooks")


def failed(
    command: str, output: str, code: int | None = 1, status: str = "error"
) -> tuple[str, str] | None:
    event = Event("call", (1, 2), None, output, "Bash", "shell", command, (), status, code)
    found = failure_of(event)
    return (found.error_type, found.message) if found else None


@pytest.mark.parametrize(
    ("command", "output", "code", "expected"),
    [  # outputs as the development transcripts hold them (Claude Code's "Exit code N" first)
        (
            'set -a && source ../../.env && set +a && psql "$DATABASE_URL" -c "\\dt" 2>&1',
            "Exit code 127\n(eval):1: command not found: psql\n\n(eval):1: command not found: psql",
            127,
            ("CommandNotFound", "(eval):1: command not found: psql"),
        ),
        (
            "golangci-lint run --new=false ./x.go 2>&1 | wc -l",
            "Exit code 126\n(eval):1: permission denied: \n\n     194",
            126,
            ("PermissionError", "(eval):1: permission denied:"),
        ),
        (
            "golangci-lint run --new-from-rev=main --enable=staticcheck --disable-all "
            "./cmd/... 2>&1",
            "Exit code 3\nError: unknown flag: --disable-all\nThe command is terminated due to an "
            "error: unknown flag: --disable-all",
            3,
            ("UsageError", "Error: unknown flag: --disable-all"),
        ),
        (
            "uv run pytest tests/test_ordinal_resolve.py -v 2>&1",
            "Exit code 1\n====== test session starts ======\nFAILED tests/test_ordinal_resolve.py::"
            "TestOrdinalResolveNodeE2E::test_mixed_batch\n"
            "========================= 1 failed, 13 passed in 3.18s =========================",
            1,
            ("TestFailure", "1 failed, 13 passed in 3.18s"),
        ),
        (
            "cd /home/USER/projects/spotter-worktrees/spotter-fum && mix test test/x_test.exs 2>&1",
            "Exit code 2\nRunning ExUnit with seed: 624694, max_cases: 32\n\n  1) test fixture "
            "integration\nFinished in 1.0 seconds (1.0s async, 0.00s sync)\n58 tests, 1 failure",
            2,
            ("TestFailure", "58 tests, 1 failure"),
        ),
        (
            "uv run mypy src/ 2>&1",
            "Exit code 1\nsrc/protocol_processor/state.py:48: error: Missing type parameters "
            "for generic "
            'type "dict"  [type-arg]\nFound 62 errors in 18 files (checked 33 source files)',
            1,
            ("LintError", "Found 62 errors in 18 files (checked 33 source files)"),
        ),
        (
            "node assets/build.js 2>&1",
            'Exit code 1\n✘ [ERROR] Could not resolve "js/app.js"\n\n1 error\n'
            "Error: Build failed with 1 error:",
            1,
            ("BuildError", '✘ [ERROR] Could not resolve "js/app.js"'),
        ),
        (
            "git push 2>&1",
            "Exit code 128\nfatal: The current branch spotter-fum has no upstream branch.\nTo push "
            "the current branch and set the remote as upstream, use",
            128,
            ("GitError", "fatal: The current branch spotter-fum has no upstream branch."),
        ),
        (
            'uv run python -c "from api_service.storage import engine"',
            "Exit code 1\nTraceback (most recent call last):\n"
            '  File "<string>", line 2, in <module>\n'
            "ValueError: DATABASE_URL environment variable is required but not set.",
            1,
            (
                "EnvironmentError",
                "ValueError: DATABASE_URL environment variable is required but not set.",
            ),
        ),
        (
            "head -5 tests/test_phase3b_unknown_scales.py tests/test_phase3b_e2e.py 2>&1",
            "Exit code 1\nhead: tests/test_phase3b_unknown_scales.py: No such file or directory\n"
            '==> tests/test_phase3b_e2e.py <==\n"""Phase 3b E2E',
            1,
            (
                "MissingFile",
                "head: tests/test_phase3b_unknown_scales.py: No such file or directory",
            ),
        ),
        (
            'head -c 500 fixture.jsonl | python3 -c "import sys, json"',
            "Exit code 1\nTraceback (most recent call last):\n"
            '  File "<string>", line 6, in <module>\n'
            "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 256",
            1,
            (
                "RuntimeError",
                "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 256",
            ),
        ),
        (
            "doppler run -- bun run deploy",
            "Exit code 1\nUnable to fetch secrets from the Doppler API\n"
            "\x1b[31mDoppler Error:\x1b[0m "
            "You must specify a project\nReading secrets from fallback file\n\x1b[31mDoppler "
            "Error:\x1b[0m The fallback file does not exist",
            1,
            ("NonZeroExit", "Doppler Error: You must specify a project"),
        ),
    ],
)
def test_classification_and_key_line(
    command: str, output: str, code: int, expected: tuple[str, str]
) -> None:
    assert failed(command, output, code) == expected


def test_status_rows_come_first() -> None:
    assert failed("sleep 999", "Command timed out after 2m 0.0s", None, "timeout") == (
        "Timeout",
        "Command timed out after 2m 0.0s",
    )
    assert failed("npm test", "", None, "interrupted") == ("Interrupted", "interrupted by the user")
    refused = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
        "was a file edit, the new_string was NOT written to the file). To tell you how to proceed, "
        "the user said:\nwhat does lint say now?"
    )
    assert failed("git push", refused, None, "denied") == (
        "UserDeny",
        "refused by the user: what does lint say now?",
    )


@pytest.mark.parametrize(
    ("command", "output", "code"),
    [  # search and listing commands that found nothing (real outputs)
        (
            "pwd && ls -la scripts/",
            "Exit code 1\nls: scripts/: No such file or directory\n\n"
            "/Users/alex/workspace/cli/.worktrees/4",
            1,
        ),
        (
            "ls -la /Users/alex/workspace/cli/.worktrees/4/scripts/",
            "Exit code 1\nls: /Users/alex/workspace/cli/.worktrees/4/scripts/: "
            "No such file or directory",
            1,
        ),
        (
            "git ls-files --error-unmatch tests/test_phase3b_unknown_scales.py 2>&1",
            "Exit code 1\nerror: pathspec 'tests/test_phase3b_unknown_scales.py' did not match "
            "any file(s) known to git\nDid you forget to 'git add'?",
            1,
        ),
        ("grep -rn 'TranscriptRenderer' lib/", "Exit code 1", 1),
        (
            "find .github/workflows -name '*.yml'",
            "find: ‘.github/workflows’: No such file or directory",
            1,
        ),
        ("test -f .env", "", 1),
    ],
)
def test_no_match_of_a_search_or_listing_is_not_a_failure(
    command: str, output: str, code: int
) -> None:
    assert failed(command, output, code) is None


def test_a_search_that_errors_is_still_a_failure() -> None:
    assert failed("grep -rn '(' src", "grep: Unmatched ( or \\(", 2) == (
        "NonZeroExit",
        "grep: Unmatched ( or \\(",
    )


def test_sibling_cancelled_and_non_shell_calls_are_not_failures() -> None:
    sibling = Event(
        "call",
        (1, 2),
        None,
        "<tool_use_error>Sibling tool call errored</tool_use_error>",
        "Bash",
        "shell",
        "uv run mypy src/",
        (),
        "cancelled",
    )
    assert failure_of(sibling) is None
    read = Event("call", (1, 2), None, "File does not exist.", "Read", "read", "", (), "error")
    assert failure_of(read) is None


def test_every_error_type_is_in_the_documented_vocabulary() -> None:
    assert {row.name for row in rules.ERROR_TYPES} <= set(RECOMMENDED_TYPES)


def test_the_same_command_key() -> None:
    assert (
        shell.key("cd /repo && uv run pytest tests/ -x 2>&1 | tail -20")
        == "uv run pytest tests/ -x"
    )
    assert shell.key("uv run  pytest tests/ -x") == "uv run pytest tests/ -x"
    assert shell.programs('FOO=1 npx vitest run && echo "a && b"') == ["vitest run"]


@pytest.mark.parametrize(
    ("who", "text", "expected"),
    [
        (
            "prompt",
            "No no, no mocking. Let's test for real. With our medgemma node and access to "
            "tooluniverse and OMOP, let's see if it works.",
            [("preference", "No no, no mocking. Let's test for real.")],
        ),
        (
            "prompt",
            "From now on, run ruff before every commit.",
            [("preference", "From now on, run ruff before every commit.")],
        ),
        (
            "prompt",
            "Never push to main directly, open a PR.",
            [("preference", "Never push to main directly, open a PR.")],
        ),
        (
            "prompt",
            "Let's go with SQLite because the data fits on one machine.",
            [("decision", "Let's go with SQLite because the data fits on one machine.")],
        ),
        (
            "reply",
            "We decided to keep the migration script idempotent.",
            [("decision", "We decided to keep the migration script idempotent.")],
        ),
        (
            "reply",
            "In this repo, we keep one module per command.",
            [("pattern", "In this repo, we keep one module per command.")],
        ),
        # an agent's "let's use" without a reason is narration, not a decision
        ("reply", "Let's use grep to find the callers.", []),
        # the user's "always"/"never" in a statement about the past is no instruction
        ("prompt", "I think I saw it merge just now", []),
        # questions and acknowledgements (real prompts) are never candidates
        ("prompt", "so the gh secret in the org skogai will not work is what you are saying?", []),
        ("prompt", "should we dry-run by default? what should we name the inverse flag?", []),
        ("prompt", "ok, let's go", []),
        ("prompt", "sorry please continue ", []),
        ("prompt", "yes please", []),
        # reassurance starts like a correction ("no,", "don't", "never") but asks nothing
        ("prompt", "Don't worry about it.", []),
        ("prompt", "Never mind, I found the config file myself.", []),
        ("prompt", "No, that's fine, keep going with the plan.", []),
        ("prompt", "No worries, take your time with the refactor.", []),
        (
            "prompt",
            "No, don't worry about the docs. Don't mock the database in these tests.",
            [("preference", "Don't mock the database in these tests.")],
        ),
        (
            "summary",
            "Never push to main. This session is being continued from a previous conversation.",
            [],
        ),
    ],
)
def test_candidate_sentences(who: str, text: str, expected: list[tuple[str, str]]) -> None:
    assert candidates_of(Event(who, (1, 1), None, text)) == expected


def test_acknowledgements() -> None:
    for text in (
        "ok, let's go",
        "yes please",
        "commit this",
        "Oops sorry continue ",
        "👍",
        "thanks!",
    ):
        assert is_acknowledgement(text), text
    for text in ("run pytest", "update wrangler and retry", "commit and push the fix"):
        assert not is_acknowledgement(text), text


def test_a_hook_payload_gets_the_same_verdict() -> None:
    payload = {
        "session_id": "abc123",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "npm test", "description": "Run test suite"},
        "tool_use_id": "toolu_01ABC",
        "error": "Exit code 1\nTests: 1 failed, 12 passed",
        "is_interrupt": False,
    }
    found = hook_failure(payload)
    assert found is not None
    assert (found.key, found.error_type, found.message, found.exit_code, found.step) == (
        "npm test",
        "TestFailure",
        "Tests: 1 failed, 12 passed",
        1,
        "Run test suite",
    )
    assert hook_failure({**payload, "is_interrupt": True}).error_type == "Interrupted"  # type: ignore[union-attr]
    assert hook_failure({**payload, "tool_name": "Read", "tool_input": {"file_path": "/x"}}) is None


@pytest.mark.skipif(not HOOKS.is_dir(), reason="the shared development transcripts are not here")
def test_logged_post_tool_use_payloads_are_no_failures() -> None:
    """PostToolUse fires for calls that succeeded: none of the logged ones is a failure."""
    payloads = json.loads((HOOKS / "skogai-post_tool_use.json").read_text())
    assert [p for p in payloads if hook_failure(p) is not None] == []


@pytest.mark.parametrize(
    ("payload", "agent"),
    [
        ({"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "error": "x"}, "claude"),
        (  # Claude Code's Bash result is an object, whatever else the payload carries
            {"hook_event_name": "PostToolUse", "turn_id": "t1", "tool_response": {"stdout": ""}},
            "claude",
        ),
        ({"hook_event_name": "PostToolUse", "tool_response": "Exit code: 1\nOutput:\n"}, "codex"),
        ({"hook_event_name": "Stop", "turn_id": "t1", "model": "gpt-5"}, "codex"),
        (
            {"hook_event_name": "Stop", "transcript_path": "/h/.codex/sessions/rollout-1-a.jsonl"},
            "codex",
        ),
        ({"hook_event_name": "AfterTool", "tool_name": "run_shell_command"}, "gemini"),
        ({"hook_event_name": "BeforeAgent", "prompt": "hi"}, "gemini"),
        ({"hook_event_name": "SessionStart", "transcript_path": "/h/.claude/p/a.jsonl"}, "claude"),
    ],
)
def test_the_agent_a_hook_payload_comes_from(payload: dict, agent: str) -> None:  # type: ignore[type-arg]
    # The agent names the scope of a hook's failure ids: the one `lore ingest` derives
    # from that agent's session file.
    assert hook_agent(payload) == agent
