"""The server and other processes: what one writes the other sees at once, several
writers at a time lose nothing, and the session model carries over."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("mcp", reason="the MCP SDK (the [mcp] extra) is not installed")

LORE = str(Path(sys.executable).with_name("lore"))


def lore(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [LORE, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_cli_and_server_see_each_other(start_server: Callable[..., Any], data_dir: Path) -> None:
    server = start_server()
    assert server.ok("recall", query="tarball")["results"] == []  # the index is now warm
    by_cli = orjson.loads(lore("remember", "Ship the tarball from CI", "--json").stdout)
    found = server.ok("recall", query="tarball")["results"]
    assert [r["id"] for r in found] == [by_cli["id"]]
    assert server.ok("show", id=by_cli["id"]) == by_cli["record"]

    by_server = server.ok("learn", text="Pin the CI image digest", solution="sha256 pins")
    shown = orjson.loads(lore("show", by_server["id"], "--json").stdout)
    assert shown == by_server["record"]
    recalled = orjson.loads(lore("recall", "digest", "--json").stdout)["results"]
    assert [r["id"] for r in recalled] == [by_server["id"]]

    # A revision by the CLI (a log line) and a hand edit in place (a document whose
    # folder does not change) are both seen by the next call.
    lore("retract", by_cli["id"])
    assert server.ok("show", id=by_cli["id"])["status"] == "retracted"
    assert server.ok("recall", query="tarball")["results"] == []
    pattern = data_dir / "patterns/data/patterns" / f"{by_server['id']}.yaml"
    text = pattern.read_text()
    with open(pattern, "r+", encoding="utf-8") as handle:  # same inode, same folder
        handle.write(text.replace("Pin the CI image digest", "Pin the CI image hashes"))
        handle.truncate()
    assert server.ok("show", id=by_server["id"])["name"] == "Pin the CI image hashes"
    found = server.ok("recall", query="hashes")["results"]
    assert [r["id"] for r in found] == [by_server["id"]]


def test_two_servers_and_a_cli_write_at_once_without_loss(
    start_server: Callable[..., Any], data_dir: Path
) -> None:
    first, second = start_server(), start_server()
    per_writer = 10
    ids: list[str] = []
    errors: list[BaseException] = []

    def write(server: Any, name: str) -> None:
        try:
            for n in range(per_writer):
                ids.append(server.ok("observe", text=f"{name} note {n}")["id"])
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=write, args=(first, "first")),
        threading.Thread(target=write, args=(second, "second")),
    ]
    for thread in threads:
        thread.start()
    cli_ids = [lore("observe", f"cli note {n}", "-q").stdout.strip() for n in range(per_writer)]
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    ids += cli_ids
    assert len(ids) == len(set(ids)) == 3 * per_writer
    lines = (data_dir / "inbox/data/observations.jsonl").read_text().splitlines()
    assert sorted(orjson.loads(line)["id"] for line in lines) == sorted(ids)
    assert lore("validate").returncode == 0
    for server in (first, second):
        listed = server.ok("list", kind="observation", limit=0)
        assert len(listed) == 3 * per_writer
        assert len(server.ok("recall", query="note", limit=0)["results"]) == 3 * per_writer


def test_records_get_the_open_session(start_server: Callable[..., Any], data_dir: Path) -> None:
    server = start_server()
    forked = orjson.loads(lore("resume", "--fork", "--json").stdout)["fork"]
    made = server.ok("observe", text="seen during the forked session")
    assert made["record"]["session_id"] == forked["id"]
    hand = server.ok("handoff", message="Forked session done.")
    assert hand["id"] == forked["id"]
    assert made["id"] in hand["record"]["captured"]["observation"]
    after = server.ok("observe", text="seen after the handoff")
    assert after["record"]["session_id"] is None


def test_lore_session_id_in_the_environment_wins(
    start_server: Callable[..., Any], data_dir: Path
) -> None:
    lore("resume", "--fork", "--json")  # an open session this machine points at
    server = start_server(LORE_SESSION_ID="session-00112233445566778899aabbccddeeff")
    made = server.ok("remember", text="Use the env session")
    assert made["record"]["session_id"] == "session-00112233445566778899aabbccddeeff"
    bad = start_server(LORE_SESSION_ID="not a session id")
    assert bad.error("observe", text="x")["code"] == "usage"
