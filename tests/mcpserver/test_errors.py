"""Bad input comes back as a tool error with lore's message and code; the server serves on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.mcpserver.conftest import INITIALIZE, INITIALIZED

pytest.importorskip("mcp", reason="the MCP SDK (the [mcp] extra) is not installed")

FAKE_KEY = "AKIA" + "Z7Q4M2XKP9LW3RTB"  # shaped like an AWS key id (split so scanners pass)


def test_unknown_id(server: Any) -> None:
    doc = server.error("show", id="dec-0123456789ab")
    assert doc == {
        "ok": False,
        "error": "no record with id 'dec-0123456789ab'",
        "code": "not_found",
        "id": "dec-0123456789ab",
    }
    assert server.error("review", id="dec-0123456789ab", outcome="revised")["code"] == "not_found"


def test_bad_enum_and_wrong_types(server: Any) -> None:
    bad_mode = server.error("recall", query="x", mode="everything")
    assert bad_mode["code"] == "usage" and bad_mode["tool"] == "recall"
    assert bad_mode["error"].startswith("recall: mode: Input should be ")
    assert server.error("review", id="dec-0123456789ab", outcome="great")["code"] == "usage"
    wrong = server.error("recall", query="x", limit="ten")
    assert wrong["error"].startswith("recall: limit: Input should be a valid integer")
    assert server.error("recall", query="x", limit=-1)["code"] == "usage"
    assert server.error("remember", text=["a", "list"])["code"] == "usage"
    missing = server.error("fail", error_type="Timeout")
    assert missing == {
        "ok": False,
        "error": "fail: message: Field required",
        "code": "usage",
        "tool": "fail",
    }
    assert server.error("capture", text="x", kind="goal")["code"] == "usage"
    assert server.error("list", kind="unicorns")["code"] == "usage"
    assert server.error("no_such_tool") == {
        "ok": False,
        "error": "no tool named 'no_such_tool'",
        "code": "usage",
        "tool": "no_such_tool",
    }


def test_an_unknown_argument_is_refused_not_dropped(server: Any) -> None:
    """A misspelt argument would silently lose what it carried (as an unknown flag is
    refused by the CLI): nothing is written."""
    before = server.ok("list", kind="decision", limit=0)
    typo = server.error("remember", text="Use tox for the test matrix", rational="one config")
    assert typo == {
        "ok": False,
        "error": "remember: unknown argument 'rational' (did you mean 'rationale'?)",
        "code": "usage",
        "tool": "remember",
    }
    assert server.error("observe", text="x", tag=["a"], colour=1)["error"] == (
        "observe: unknown arguments 'colour', 'tag' (did you mean 'tags'?)"
    )
    assert server.ok("list", kind="decision", limit=0) == before


def test_lore_rules_apply(server: Any) -> None:
    empty = server.error("observe", text="   ")
    assert empty == {"ok": False, "error": "nothing to capture: the text is empty", "code": "usage"}
    assert server.error("handoff", message="")["error"] == "a handoff needs a message"
    assert server.error("recall")["code"] == "usage"  # no query and no mode
    assert server.error("recall", mode="brief")["error"].startswith("--brief needs a topic")
    assert server.error("recall", query="x", error_type="Timeout")["code"] == "usage"
    assert server.error("recall", query="x", mode="brief", deep=True)["error"] == (
        "--deep and --graph-depth go with a plain QUERY, not a mode"
    )
    assert server.error("recall", query="x", graph_depth=4)["code"] == "usage"
    assert server.error("recall", query="x", since="last sprint")["code"] == "usage"
    assert server.error("learn", text="x", confidence=2)["code"] == "usage"
    bad_field = server.error("capture", text="x", kind="pattern", fields={"confidence": "high"})
    assert bad_field["code"] == "invalid" and bad_field["field"] == "confidence"
    first = server.ok("remember", text="Deploy with blue-green switches on the load balancer")
    dup = server.error("remember", text="Deploy with blue-green switches on the load balancer.")
    assert dup["code"] == "duplicate" and dup["existing_id"] == first["id"]
    assert server.ok(
        "remember", text="Deploy with blue-green switches on the load balancer.", force=True
    )


def test_secrets_are_refused_unless_allowed(server: Any) -> None:
    text = f"the deploy key is {FAKE_KEY}"
    refused = server.error("observe", text=text)
    assert refused["code"] == "secret" and refused["field"] == "content"
    assert refused["findings"][0]["field"] == "content"
    assert server.error("fail", error_type="ToolError", message=text)["code"] == "secret"
    assert server.error("handoff", message=f"done; {text}")["code"] == "secret"
    project = server.error("handoff", message="done for today", project=f"shop-{FAKE_KEY}")
    assert (project["code"], project["field"]) == ("secret", "project")
    allowed = server.ok("observe", text=text, allow_secret=True)
    assert allowed["record"]["content"] == text


def test_oversized_text(server: Any) -> None:
    doc = server.error("observe", text="x" * 100_001)
    assert doc == {
        "ok": False,
        "error": "text is too long: 100,001 characters (at most 100,000 through MCP); "
        "record a summary and point at the file",
        "code": "invalid",
        "field": "text",
    }
    assert server.error("handoff", message="m", next=["y" * 100_001])["field"] == "next"
    assert server.ok("observe", text="y" * 100_000)["type"] == "observation"


def test_the_server_still_answers_after_all_that(server: Any) -> None:
    # (run alone, or on another worker than the tests above: the module's root is new)
    server.ok("remember", text="Balance the load with blue-green switches", force=True)
    assert server.ok("recall", query="load balancer")["results"]


def test_a_malformed_request_leaves_the_server_serving(tmp_path: Path) -> None:
    """Raw JSON-RPC: garbage, a request with a bad shape, then a normal session."""
    lore = str(Path(sys.executable).with_name("lore"))
    requests = [
        "this is not json",
        json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": "nope"}),
        json.dumps(INITIALIZE),
        json.dumps(INITIALIZED),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": 5}}),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "observe", "arguments": {"text": "still here"}},
            }
        ),
    ]
    env = {**os.environ, "LORE_DATA_DIR": str(tmp_path / "data")}
    answers: dict[int, Any] = {}
    with subprocess.Popen(
        [lore, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for request in requests:
            proc.stdin.write(request + "\n")
        proc.stdin.flush()
        while 3 not in answers:  # stdin stays open until the last answer is in
            line = proc.stdout.readline()
            assert line, "the server stopped"
            message = json.loads(line)
            if "id" in message:
                answers[message["id"]] = message
        proc.stdin.close()
        proc.wait(timeout=30)
    assert proc.returncode == 0
    assert 7 not in answers  # a request before initialize is dropped, not fatal
    assert answers[1]["result"]["serverInfo"]["name"] == "lore"
    assert answers[2]["error"]["code"] == -32602  # a bad shape: a protocol error
    result = answers[3]["result"]
    assert result.get("isError") is not True
    assert result["structuredContent"]["record"]["content"] == "still here"
    assert (tmp_path / "data/inbox/data/observations.jsonl").read_text().count("\n") == 1


@pytest.mark.parametrize(
    "name", ["resume", "recall", "show", "list", "graph_neighbors", "timeline"]
)
def test_read_only_tools_write_nothing(server: Any, name: str) -> None:
    if not server.ok("list", kind="decision", limit=1):  # run alone: the module's root is new
        server.ok("remember", text="Deploy on Fridays only with a rollback plan")
    (decision,) = server.ok("list", kind="decision", limit=1)  # a node with neighbours
    before = sorted(p for p in server.root.rglob("*") if p.is_file())
    sizes = [p.stat().st_size for p in before]
    args = {
        "recall": {"query": "deploy"},
        "show": {"id": "dec-0123456789ab"},
        "list": {"kind": "decision"},
        "graph_neighbors": {"id": decision["id"]},
    }
    assert not server.call(name, **args.get(name, {})).is_error or name == "show"
    after = sorted(p for p in server.root.rglob("*") if p.is_file())
    assert after == before and [p.stat().st_size for p in after] == sizes


def test_every_request_gets_an_answer_even_a_batch_bad_bytes_or_deep_nesting(
    tmp_path: Path,
) -> None:
    """Issue 15: lines the SDK dropped in silence (the client waited for ever) get a
    JSON-RPC error with their id; the server serves on."""
    lore = str(Path(sys.executable).with_name("lore"))
    ping = {"jsonrpc": "2.0", "method": "ping"}
    deep = "[" * 20_000 + "]" * 20_000
    lines = [
        json.dumps([{**ping, "id": 10}, {**ping, "id": 11}, {"jsonrpc": "2.0", "method": "n"}]),
        b'{"jsonrpc": "2.0", "id": 12, "method": "ping", "params": {"x": "\xff\xfe"}}',
        '{"jsonrpc": "2.0", "id": 13, "method": "ping", "params": {"x": ' + deep + "}}",
        '{"jsonrpc": "2.0", "id": 14, "method": "ping", "params": {"x": '
        + "[" * 80
        + "]" * 80
        + "}}",
        "this is not json",
        json.dumps(INITIALIZE),
        json.dumps(INITIALIZED),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "observe", "arguments": {"text": "null"}},
            }
        ),
    ]
    env = {**os.environ, "LORE_DATA_DIR": str(tmp_path / "data")}
    answers: dict[Any, Any] = {}
    with subprocess.Popen(
        [lore, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for line in lines:
            proc.stdin.write((line if isinstance(line, bytes) else line.encode()) + b"\n")
        proc.stdin.flush()
        while not {3, 10, 11, 12, 13, 14, None} <= answers.keys():  # in any order
            raw = proc.stdout.readline()
            assert raw, "the server stopped"
            message = json.loads(raw)
            answers[message.get("id")] = message
        proc.stdin.close()
        proc.wait(timeout=30)
    assert proc.returncode == 0
    for rid in (10, 11):
        assert answers[rid]["error"] == {
            "code": -32600,
            "message": "batch requests are not supported: send one JSON-RPC message per line",
        }
    assert answers[12]["error"]["code"] == -32700
    assert answers[12]["error"]["message"].startswith("not UTF-8 text (byte ")
    assert answers[13]["error"]["code"] == -32700  # too deep for any JSON parser
    assert answers[14]["error"] == {"code": -32600, "message": "nested more than 64 levels deep"}
    assert answers[None]["error"]["code"] == -32700  # "this is not json": no id to answer
    record = answers[3]["result"]["structuredContent"]["record"]
    assert record["content"] == "null"  # the text as sent, not JSON's null


def test_text_arguments_stay_the_text_sent(server: Any) -> None:
    """Issue 15: an optional text ("null", JSON-looking text) is not parsed as JSON."""
    decision = server.ok("remember", text="Use null objects", rationale="null")
    assert decision["record"]["rationale"] == "null"
    pattern = server.ok("learn", text="Pass config as JSON", solution='{"retries": 3}')
    assert pattern["record"]["solution"] == '{"retries": 3}'
    listed = server.ok("remember", text="Keep lists", alternatives='["a", "b"]')
    assert listed["record"]["alternatives"] == ["a", "b"]  # a list argument is still parsed


def test_a_field_of_the_wrong_type_is_refused_not_a_crash(server: Any) -> None:
    refused = server.error("capture", text="x", kind="decision", fields={"rationale": {"a": 1}})
    assert refused == {
        "ok": False,
        "error": "decision rationale must be a string (got dict)",
        "code": "invalid",
        "field": "rationale",
        "kind": "decision",
    }
    assert (
        server.error("capture", text="x", kind="pattern", fields={"examples": {"a": 1}})["code"]
        == "invalid"
    )
