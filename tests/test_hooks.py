"""lore.sessions.hooks: Claude Code settings edited safely; transcripts digested without a model."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import orjson
import pytest

from lore.components.transfer import Session
from lore.errors import InvalidInputError
from lore.sessions.hooks import (
    Digest,
    agent_handed_off,
    digest_transcript,
    hook_command,
    install,
    uninstall,
)

LORE = "/opt/lore env/bin/lore"  # a space: the command must quote it
NOW = "2026-03-04T05:06:07.000000Z"
ORIGINAL: dict[str, Any] = {
    "model": "opus",
    "env": {"ANTHROPIC_API_KEY": "not-a-real-key"},
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}
        ],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
        "Stop": [],
        "SessionEnd": [{"matcher": "other", "hooks": []}],
    },
}


ALL = [
    "SessionStart",
    "UserPromptSubmit",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "Stop",
    "SessionEnd",
]


def ours(event: str, lore: str = LORE, data_dir: str | None = None) -> dict[str, Any]:
    command = hook_command(lore, event, data_dir)
    group: dict[str, Any] = {"matcher": "Bash"} if event.startswith("post-tool-use") else {}
    group["hooks"] = [{"type": "command", "command": command, "timeout": 10}]
    return group


def everything(lore: str = LORE, data_dir: str | None = None) -> dict[str, Any]:
    """The hooks install writes into an empty settings file."""
    names = [
        "session-start",
        "user-prompt-submit",
        "post-tool-use",
        "post-tool-use-failure",
        "pre-compact",
        "stop",
        "session-end",
    ]
    return {claude: [ours(name, lore, data_dir)] for claude, name in zip(ALL, names)}


def backups(settings: Path) -> list[Path]:
    return sorted(settings.parent.glob(f"{settings.name}.lore-backup-*"))


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LORE_NOW", NOW)  # every backup in "the same second"
    path = tmp_path / "claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(ORIGINAL, indent=4))  # not lore's own formatting
    path.chmod(0o600)
    return path


def test_hook_command_quotes_the_binary() -> None:
    assert hook_command(LORE, "pre-compact") == "'/opt/lore env/bin/lore' hooks run pre-compact"
    assert (
        hook_command(LORE, "stop", "/data/my lore")
        == "'/opt/lore env/bin/lore' --data-dir '/data/my lore' hooks run stop"
    )


def test_install_adds_our_hooks_and_keeps_everything_else(settings: Path) -> None:
    original = settings.read_bytes()
    result = install(settings, LORE)
    (backup,) = backups(settings)
    assert result == {
        "settings": str(settings),
        "added": ALL,
        "updated": [],
        "backup": str(backup),
    }
    assert backup.name == "settings.json.lore-backup-20260304T050607"
    assert backup.read_bytes() == original
    data = orjson.loads(settings.read_bytes())
    assert data == {
        **ORIGINAL,
        "hooks": {
            "SessionStart": [*ORIGINAL["hooks"]["SessionStart"], ours("session-start")],
            "PreToolUse": ORIGINAL["hooks"]["PreToolUse"],
            "Stop": [ours("stop")],
            "SessionEnd": [*ORIGINAL["hooks"]["SessionEnd"], ours("session-end")],
            "UserPromptSubmit": [ours("user-prompt-submit")],
            "PostToolUse": [ours("post-tool-use")],
            "PostToolUseFailure": [ours("post-tool-use-failure")],
            "PreCompact": [ours("pre-compact")],
        },
    }
    assert list(data) == list(ORIGINAL)
    # The settings may hold tokens: neither the file nor its backup becomes world-readable.
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600


def test_install_twice_changes_nothing(settings: Path) -> None:
    install(settings, LORE)
    installed = settings.read_bytes()
    assert install(settings, LORE) == {
        "settings": str(settings),
        "added": [],
        "updated": [],
        "backup": None,
    }
    assert settings.read_bytes() == installed
    assert len(backups(settings)) == 1


def test_install_keeps_the_data_root_and_replaces_an_older_entry(settings: Path) -> None:
    install(settings, "/old/lore")
    result = install(settings, LORE, "/data/root")
    assert (result["added"], result["updated"]) == ([], ALL)
    data = orjson.loads(settings.read_bytes())
    # One lore entry per event, running this lore on that root; the user's own stay first.
    assert data["hooks"]["SessionStart"] == [
        *ORIGINAL["hooks"]["SessionStart"],
        ours("session-start", LORE, "/data/root"),
    ]
    assert data["hooks"]["PostToolUseFailure"] == [
        ours("post-tool-use-failure", LORE, "/data/root")
    ]
    assert install(settings, LORE, "/data/root")["updated"] == []
    uninstall(settings)
    assert orjson.loads(settings.read_bytes()) == {
        **ORIGINAL,
        "hooks": {k: v for k, v in ORIGINAL["hooks"].items() if k != "Stop"},
    }


def test_install_moves_a_lore_entry_out_of_a_shared_group(settings: Path) -> None:
    data = orjson.loads(settings.read_bytes())
    old = {"type": "command", "command": hook_command("/old/lore", "post-tool-use")}
    mine = {"type": "command", "command": "audit.sh"}
    data["hooks"]["PostToolUse"] = [{"matcher": "*", "hooks": [mine, old]}]
    settings.write_bytes(orjson.dumps(data))
    install(settings, LORE)
    after = orjson.loads(settings.read_bytes())["hooks"]["PostToolUse"]
    assert after == [{"matcher": "*", "hooks": [mine]}, ours("post-tool-use")]


def test_uninstall_removes_exactly_what_install_added(settings: Path) -> None:
    install(settings, LORE)
    installed = settings.read_bytes()
    result = uninstall(settings)
    # Same second as the install's backup: a second file, the first one kept intact.
    first, second = backups(settings)
    assert result == {"settings": str(settings), "removed": ALL, "backup": str(second)}
    assert second.name == "settings.json.lore-backup-20260304T050607-1"
    assert orjson.loads(first.read_bytes()) == ORIGINAL
    assert second.read_bytes() == installed
    # Left as they were: the empty "other" group is not ours. The "Stop" list that was
    # empty before install held only lore's group: emptied again, it goes.
    assert orjson.loads(settings.read_bytes()) == {
        **ORIGINAL,
        "hooks": {k: v for k, v in ORIGINAL["hooks"].items() if k != "Stop"},
    }
    assert uninstall(settings) == {"settings": str(settings), "removed": [], "backup": None}
    assert len(backups(settings)) == 2


def test_uninstall_finds_our_hooks_whatever_the_lore_path(settings: Path) -> None:
    install(settings, "/somewhere/else/lore", "/some/root")
    uninstall(settings)
    assert orjson.loads(settings.read_bytes())["hooks"] == {
        k: v for k, v in ORIGINAL["hooks"].items() if k != "Stop"
    }


def test_uninstall_drops_only_the_structures_it_emptied(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    assert install(settings, LORE)["backup"] is None  # no file yet: nothing to back up
    assert orjson.loads(settings.read_bytes()) == {"hooks": everything()}
    data = orjson.loads(settings.read_bytes())
    data["hooks"]["PreCompact"][0]["hooks"].append({"type": "command", "command": "mine.sh"})
    settings.write_bytes(orjson.dumps(data))
    uninstall(settings)
    assert orjson.loads(settings.read_bytes()) == {
        "hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "mine.sh"}]}]}
    }


def test_uninstall_without_hooks_leaves_the_file_alone(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text('{"hooks": {}, "x": 1}')
    assert uninstall(settings)["removed"] == []
    assert settings.read_text() == '{"hooks": {}, "x": 1}'
    assert backups(settings) == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"hooks": {', "not valid JSON"),
        ("[1, 2]", "expected a JSON object at the top level"),
        ('{"hooks": []}', "'hooks' is not an object"),
        ('{"hooks": {"PreCompact": {}}}', "hooks.PreCompact is not a list"),
    ],
)
def test_install_refuses_malformed_settings(tmp_path: Path, content: str, message: str) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(content)
    with pytest.raises(InvalidInputError, match=message):
        install(settings, LORE)
    assert settings.read_text() == content
    assert backups(settings) == []


def test_a_symlinked_settings_file_stays_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "claude-settings.json"
    real.parent.mkdir()
    real.write_text('{"model": "opus"}')
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    install(link, LORE)
    assert link.is_symlink()
    assert orjson.loads(real.read_bytes())["hooks"]["PreCompact"] == [ours("pre-compact")]
    (backup,) = backups(link)
    assert backup.read_text() == '{"model": "opus"}'


# --- transcripts ----------------------------------------------------------------------


def line(kind: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "message": {"role": kind, "content": content}, **extra}


def tool_use(tool_id: str, name: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def tool_result(tool_id: str, content: str, *, error: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
    if error:
        block["is_error"] = True
    return block


TRANSCRIPT = [
    {"type": "summary", "summary": "earlier work", "leafUuid": "x"},
    line("user", "Add retries to the   HTTP client", timestamp="2026-03-04T05:00:00.000Z"),
    line(
        "assistant",
        [
            {"type": "text", "text": "Sure."},
            tool_use(
                "toolu_01", "Edit", file_path="/repo/client.py", old_string="a", new_string="b"
            ),
        ],
    ),
    line("user", [tool_result("toolu_01", "ok")]),
    line("assistant", [tool_use("toolu_02", "Bash", command="pytest -x   tests/test_client.py")]),
    line("user", [tool_result("toolu_02", "1 failed", error=True)]),
    line("assistant", [tool_use("toolu_03", "Write", file_path="/repo/tests/test_client.py")]),
    line("user", [tool_result("toolu_03", "ok")]),
    line("assistant", [tool_use("toolu_04", "Bash", command="ls")]),
    line("user", [tool_result("toolu_04", "a b")]),
    line("assistant", [tool_use("toolu_05", "Edit", file_path="/repo/README.md")]),
    line("user", [tool_result("toolu_05", "old_string not found", error=True)]),  # not edited
    line("assistant", [tool_use("toolu_06", "Read", file_path="/repo/README.md")]),
    line("user", "<command-name>/compact</command-name>"),
    line(
        "user",
        [{"type": "text", "text": "Now make the backoff exponential"}],
        timestamp="2026-03-04T05:10:00.000Z",
    ),
    line("assistant", [tool_use("toolu_07", "Bash", command="make lint")]),
    line("user", [tool_result("toolu_07", "E501", error=True)]),
]


def write_transcript(path: Path, entries: list[Any], *, garbage: bool = True) -> Path:
    lines = [orjson.dumps(e) for e in entries]
    if garbage:
        lines.insert(3, b"{not json")
        lines.insert(5, b"[1, 2]")
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_digest_of_a_transcript(tmp_path: Path) -> None:
    path = write_transcript(tmp_path / "t.jsonl", TRANSCRIPT)
    digest = digest_transcript(path)
    assert (digest.agent, digest.first_request, digest.last_request_at) == (
        "claude",
        "Add retries to the HTTP client",
        "2026-03-04T05:10:00.000Z",
    )
    assert digest.requests == ["Add retries to the HTTP client", "Now make the backoff exponential"]
    # Only edits that happened: the Edit whose result is an error changed nothing.
    assert digest.files == ["/repo/client.py", "/repo/tests/test_client.py"]
    assert digest.failed == ["pytest -x tests/test_client.py", "make lint"]
    assert digest.failures == [
        {
            "command": "pytest -x tests/test_client.py",
            "error_type": "TestFailure",
            "count": 1,
            "fixed": False,
        },
        {"command": "make lint", "error_type": "LintError", "count": 1, "fixed": False},
    ]
    assert digest.message("Automatic handoff (PreCompact).") == (
        'Automatic handoff (PreCompact). First request: "Add retries to the HTTP client". '
        'Last request: "Now make the backoff exponential". '
        "Edited 2 files: /repo/client.py, /repo/tests/test_client.py. "
        "Tests: `pytest -x tests/test_client.py` failed (1 run, 1 failed). "
        "2 commands failed (0 fixed): `pytest -x tests/test_client.py` (TestFailure); "
        "`make lint` (LintError). "
        "Open: `pytest -x tests/test_client.py` still fails: 1 failed."
    )
    assert digest.summary("PreCompact", last=True) == (
        'PreCompact: "Now make the backoff exponential" (2 files edited, 2 commands failed)'
    )
    relative = digest_transcript(path, base=Path("/repo"))
    assert relative.files == ["client.py", "tests/test_client.py"]
    one = Digest(
        files=["/elsewhere/a.py"],
        files_total=1,
        failures=[{"command": "make", "error_type": "BuildError", "count": 2, "fixed": True}],
    )
    assert one.message("Automatic handoff (SessionEnd).") == (
        "Automatic handoff (SessionEnd). Edited 1 file: /elsewhere/a.py. "
        "1 command failed (1 fixed): `make` (BuildError, fixed)."
    )
    assert one.summary("SessionEnd") == "SessionEnd: 1 file edited, 1 command failed"


def test_digest_keeps_only_the_last_few(tmp_path: Path) -> None:
    entries: list[Any] = []
    for n in range(30):
        entries.append(line("user", f"request number {n}"))
        entries.append(line("assistant", [tool_use(f"t{n}", "Write", file_path=f"/f{n}")]))
        entries.append(line("user", [tool_result(f"t{n}", "ok")]))
        entries.append(line("assistant", [tool_use(f"b{n}", "Bash", command=f"cmd {n}")]))
        entries.append(line("user", [tool_result(f"b{n}", "no", error=True)]))
    digest = digest_transcript(write_transcript(tmp_path / "t.jsonl", entries, garbage=False))
    assert digest.requests == ["request number 27", "request number 28", "request number 29"]
    assert (digest.files, digest.files_total) == ([f"/f{n}" for n in range(10, 30)], 30)
    assert digest.failed == [f"cmd {n}" for n in range(30)]
    assert "30 commands failed (0 fixed): `cmd 0` (NonZeroExit);" in digest.message("x")
    assert digest.last_request_at is None


def test_digest_reads_only_the_tail_of_a_big_transcript(tmp_path: Path) -> None:
    path = write_transcript(tmp_path / "t.jsonl", TRANSCRIPT, garbage=False)
    size = len(path.read_bytes())
    tail = digest_transcript(path, max_bytes=size - 120)  # cuts into the first request line
    assert tail.requests == ["Now make the backoff exponential"]


def test_digest_of_a_missing_or_empty_transcript(tmp_path: Path) -> None:
    assert digest_transcript(tmp_path / "missing.jsonl") == Digest()
    (tmp_path / "empty.jsonl").write_bytes(b"")
    assert digest_transcript(tmp_path / "empty.jsonl") == Digest()
    assert Digest().message("Automatic handoff (SessionEnd).") == "Automatic handoff (SessionEnd)."


def session(ended: str, **extra: Any) -> Session:
    s = Session(id="session-0001", timestamp=ended, status="closed", ended_at=ended)
    s.extra = extra
    return s


def test_agent_handed_off_after_the_last_request() -> None:
    digest = Digest(requests=["x"], last_request_at="2026-03-04T05:10:00.000Z")
    assert agent_handed_off(session("2026-03-04T05:12:00.000000Z"), digest) is True
    assert agent_handed_off(session("2026-03-04T05:09:00.000000Z"), digest) is False
    # An automatic handoff is not the agent's own: a newer one replaces it.
    assert agent_handed_off(session("2026-03-04T05:12:00.000000Z", auto={}), digest) is False
    assert agent_handed_off(None, digest) is False
    assert agent_handed_off(session("2026-03-04T05:12:00.000000Z"), Digest()) is False
    odd = Digest(last_request_at="yesterday")
    assert agent_handed_off(session("2026-03-04T05:12:00.000000Z"), odd) is False
