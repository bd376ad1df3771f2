"""The tools as an agent sees them, and a whole session through them (one server)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

pytest.importorskip("mcp", reason="the MCP SDK (the [mcp] extra) is not installed")
from mcp import MCPError

TOOLS = {
    # name: (read-only, required arguments, every argument)
    "resume": (True, [], ["project", "session_id", "budget"]),
    "recall": (
        True,
        [],
        [
            "query",
            "kinds",
            "project",
            "tags",
            "since",
            "until",
            "limit",
            "mode",
            "error_type",
            "threshold",
            "show_all",
            "explain",
            "deep",
            "graph_depth",
            "compact",
        ],
    ),
    "remember": (
        False,
        ["text"],
        [
            "text",
            "rationale",
            "alternatives",
            "type",
            "files",
            "entities",
            "supersedes",
            "tags",
            "project",
            "force",
            "allow_secret",
        ],
    ),
    "learn": (
        False,
        ["text"],
        [
            "text",
            "solution",
            "problem",
            "context",
            "category",
            "confidence",
            "examples",
            "tags",
            "project",
            "force",
            "allow_secret",
        ],
    ),
    "fail": (
        False,
        ["error_type", "message"],
        ["error_type", "message", "tool", "step", "tags", "project", "allow_secret"],
    ),
    "observe": (False, ["text"], ["text", "tags", "project", "allow_secret"]),
    "capture": (
        False,
        ["text"],
        ["text", "kind", "fields", "tags", "project", "source", "force", "allow_secret"],
    ),
    "handoff": (
        False,
        ["message"],
        [
            "message",
            "next",
            "blockers",
            "questions",
            "threads",
            "replace",
            "project",
            "allow_secret",
        ],
    ),
    "show": (True, ["id"], ["id", "history", "source"]),
    "list": (True, ["kind"], ["kind", "tags", "project", "limit", "show_all"]),
    "review": (False, [], ["id", "outcome", "lesson", "days", "force"]),
    "journal_update": (
        False,
        ["id"],
        ["id", "outcome", "rationale", "lesson", "tags", "type", "allow_secret"],
    ),
    "goal_update": (
        False,
        ["id"],
        [
            "id",
            "status",
            "priority",
            "deadline",
            "add_criteria",
            "met",
            "depends_on",
            "allow_secret",
        ],
    ),
    "graph_neighbors": (True, ["id"], ["id", "relation", "direction"]),
    "inbox": (
        False,
        [],
        [
            "action",
            "id",
            "to",
            "text",
            "fields",
            "reason",
            "status",
            "tags",
            "limit",
            "force",
            "allow_secret",
        ],
    ),
    "timeline": (True, [], ["period", "project", "kinds", "limit"]),
    "ingest": (False, [], ["paths", "agent", "since", "dry_run", "all"]),
    "stale": (False, [], ["reconfirm", "repo"]),
    "consolidate": (False, [], ["apply", "kinds", "since", "dry_run"]),
    "archive": (False, ["ids"], ["ids", "unarchive"]),
    "pin": (False, ["ids"], ["ids", "unpin"]),
}


def test_tools_are_listed_with_schemas_and_descriptions(server: Any) -> None:
    listed = {t.name: t for t in server.request("list_tools").tools}
    assert set(listed) == set(TOOLS)
    for name, (read_only, required, arguments) in TOOLS.items():
        tool = listed[name]
        schema = tool.input_schema
        assert schema["type"] == "object"
        assert list(schema["properties"]) == arguments, name
        assert sorted(schema.get("required", [])) == sorted(required), name
        assert tool.annotations.read_only_hint is read_only, name
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert len(tool.description) > 80, name  # written for the agent that reads it
        for prop in schema["properties"].values():
            assert prop.get("description"), (name, prop)
    recall = listed["recall"].input_schema["properties"]
    assert set(recall["mode"]["anyOf"][0]["enum"]) == {"patterns", "failures", "triggers", "brief"}
    assert recall["limit"]["type"] == "integer" and recall["limit"]["default"] == 10
    assert listed["list"].output_schema["properties"]["result"]["type"] == "array"
    assert "resume" in server.init.instructions


def test_a_whole_session_through_the_tools(server: Any) -> None:
    start = server.call("resume")
    assert not start.is_error
    assert "No handoff yet" in start.content[0].text  # the text to read comes first
    assert orjson.loads(start.content[1].text)["session"] is None

    dec = server.ok(
        "remember",
        text="Use Postgres for the ledger because: transactions vs: MongoDB",
        files=["db/schema.sql"],
        tags=["storage"],
    )
    assert dec["ok"] is True and dec["type"] == "decision" and dec["id"].startswith("dec-")
    record = dec["record"]
    assert (record["decision"], record["rationale"], record["alternatives"]) == (
        "Use Postgres for the ledger",
        "transactions",
        ["MongoDB"],
    )
    assert record["files"] == ["db/schema.sql"] and record["source"] == "mcp"
    assert record["tags"] == ["storage"] and record["project"] is None

    pat = server.ok("learn", text="Retry flaky uploads", solution="three tries", confidence=0.7)
    assert pat["type"] == "pattern" and pat["record"]["solution"] == "three tries"
    assert pat["record"]["confidence"] == 0.7
    obs = server.ok("observe", text="The upload bucket throttles at noon")
    assert obs["type"] == "observation"
    fails = [
        server.ok("fail", error_type="Timeout", message=f"upload hung {n}", tool="curl")
        for n in range(3)
    ]
    assert [("rule_of_three" in f) for f in fails] == [False, False, True]
    assert fails[2]["rule_of_three"] == {
        "error_type": "Timeout",
        "count": 3,
        "pitfall": None,
        "pattern": None,
    }
    anti = server.ok(
        "capture", text="Polling the bucket", kind="anti-pattern", fields={"fix": "use events"}
    )
    assert anti["type"] == "anti-pattern" and anti["record"]["fix"] == "use events"
    evi = server.ok("capture", text="Bucket docs say 10 req/s", fields={"provenance": "docs"})
    assert evi["type"] == "evidence"  # routed by its field, as the CLI routes flags
    con = server.ok("capture", text="Ledger", kind="concept", fields={"aliases": ["books"]})
    assert con["record"]["aliases"] == ["books"]
    assert len(server.call("observe", text="no warnings here").content) == 1
    wrong = server.error("capture", text="Ledger sizes", kind="concept", fields={"fix": "x"})
    assert wrong["code"] == "usage" and wrong["error"].startswith("not a flag of a concept: --fix")

    found = server.ok("recall", query="ledger postgres")
    assert found["query"] == "ledger postgres"
    assert found["results"][0]["id"] == dec["id"]
    assert found["results"][0]["decision_type"] == "other"
    for query, wanted in (
        ("flaky uploads", pat["id"]),
        ("bucket throttles", obs["id"]),
        ("upload hung", fails[0]["id"]),
        ("polling bucket", anti["id"]),
        ("req docs", evi["id"]),
        ("books", con["id"]),
    ):
        assert wanted in [r["id"] for r in server.ok("recall", query=query)["results"]], query
    deep = server.ok("recall", query="ledger postgres", deep=True, explain=True)
    assert (
        set(deep) == {"query", "window", "kinds", "results"}
        and deep["results"][0]["id"] == dec["id"]
    )
    assert server.ok("recall", query="ledger postgres", until="2000-01-01")["results"] == []
    assert server.ok("recall", query="ledger postgres", since="1h")["results"][0]["id"] == dec["id"]
    only = server.ok("recall", query="upload", kinds=["failures"], limit=2)
    assert [r["type"] for r in only["results"]] == ["failure", "failure"]
    modes = server.ok("recall", mode="triggers")
    assert modes["threshold"] == 3 and modes["triggers"][0]["error_type"] == "Timeout"
    assert server.ok("recall", mode="failures", error_type="Timeout")["counts"] == {"Timeout": 3}
    assert server.ok("recall", query="uploads", mode="patterns")["patterns"][0]["id"] == pat["id"]
    assert set(server.ok("recall", query="bucket", mode="brief")) == {
        "topic",
        "decisions",
        "patterns",
        "failures",
        "contradictions",
    }

    assert server.ok("show", id=dec["id"]) == record
    shown = server.ok("show", id=dec["id"], history=True)
    assert shown["record"] == record and len(shown["history"]) == 1
    listed = server.call("list", kind="failures", limit=2)
    assert listed.structured_content == {"result": orjson.loads(listed.content[0].text)}
    assert [f["id"] for f in listed.structured_content["result"]] == [
        fails[2]["id"],
        fails[1]["id"],
    ]
    assert server.ok("review", days=0)["pending"][0]["id"] == dec["id"]
    resolved = server.ok("review", id=dec["id"], outcome="successful", lesson="it held")
    assert (resolved["id"], resolved["outcome"], resolved["failure_id"]) == (
        dec["id"],
        "successful",
        None,
    )
    assert resolved["record"]["lesson_learned"] == "it held"

    hand = server.ok(
        "handoff",
        message="Ledger moved to Postgres. Uploads still flaky.",
        next=["add retries"],
        blockers=["bucket quota"],
        questions=["events or polling?"],
        threads=["upload retries"],
    )
    assert hand["type"] == "session" and hand["ok"] is True
    assert hand["open_items"]["how"] in ("new", "settled")
    session = hand["record"]
    assert session["status"] == "closed" and session["summary"] == "Ledger moved to Postgres."
    assert (session["next_steps"], session["blockers"], session["questions"]) == (
        ["add retries"],
        ["bucket quota"],
        ["events or polling?"],
    )
    assert dec["id"] in session["captured"]["decision"]
    assert sorted(session["captured"]["failure"]) == sorted(f["id"] for f in fails)

    again = server.call("resume")
    text, doc = again.content[0].text, orjson.loads(again.content[1].text)
    assert "Ledger moved to Postgres. Uploads still flaky." in text and "add retries" in text
    assert doc["session"]["id"] == hand["id"]
    assert doc["session"]["next_steps"] == ["add retries"]
    assert again.structured_content == doc


def test_warnings_come_before_the_document(server: Any) -> None:
    server.ok("fail", error_type="DiskQuota", message="the scratch disk filled up")
    warned = server.call("fail", error_type="DiskQuote", message="the scratch disk again")
    assert warned.content[0].text.startswith(
        "lore: warning: new error type DiskQuote is close to DiskQuota (1 failure)"
    )
    assert warned.structured_content == orjson.loads(warned.content[1].text)
    assert warned.structured_content["record"]["error_type"] == "DiskQuote"


def test_resources_and_prompt(server: Any) -> None:
    dec = server.ok("remember", text="Name the queue worker 'courier'", force=True)
    resource = server.request("read_resource", "lore://resume")
    assert resource.contents[0].mime_type == "text/plain"
    assert resource.contents[0].text.startswith("lore resume")
    record = server.request("read_resource", f"lore://record/{dec['id']}")
    assert orjson.loads(record.contents[0].text) == dec["record"]
    with pytest.raises(MCPError) as missing:
        server.request("read_resource", "lore://record/dec-0123456789ab")
    assert missing.value.error.message == "no record with id 'dec-0123456789ab' (code not_found)"
    templates = server.request("list_resource_templates").resource_templates
    assert [t.uri_template for t in templates] == ["lore://record/{id}"]
    prompts = {p.name for p in server.request("list_prompts").prompts}
    assert prompts == {"start-session"}
    prompt = server.request("get_prompt", "start-session", {})
    text = prompt.messages[0].content.text
    assert text.startswith("Here is what lore remembers") and "lore resume" in text


def test_component_tools_return_what_the_cli_returns(server: Any, run: Any) -> None:
    import json

    cli_run = run

    def run(*args: str) -> Any:  # the CLI on the server's own data root
        return cli_run("--data-dir", str(server.root), *args)

    old = server.ok("remember", text="Cache sessions in memcached because: simple")["id"]
    new = server.ok("remember", text="Cache sessions in Redis because: replication")["id"]
    updated = server.ok("journal_update", id=old, outcome="revised", lesson="memcached lost data")
    assert (updated["ok"], updated["id"]) == (True, old)
    assert sorted(updated["changed"]) == ["lesson_learned", "outcome"]
    assert updated["record"]["outcome"] == "revised"
    cli = json.loads(run("show", old, "--json").stdout)
    assert cli == updated["record"]  # the file the CLI reads holds the tool's change
    bad = server.error("journal_update", id="dec-000000000000", outcome="revised")
    assert bad["code"] == "not_found"

    goal = json.loads(
        run(
            "goal",
            "create",
            "Sessions survive a restart",
            "--criterion",
            "replicated",
            "--criterion",
            "tested",
            "--json",
        ).stdout
    )
    moved = server.ok("goal_update", id=goal["id"], met=["sc-1"], status="active")
    assert moved["completion"] == "1/2"
    assert json.loads(run("goal", "show", goal["id"], "--json").stdout)["completion"] == "1/2"
    assert server.error("goal_update", id=goal["id"], met=["sc-9"])["code"] == "not_found"
    cycle = server.error("goal_update", id=goal["id"], depends_on=[goal["id"]])
    assert cycle["code"] == "invalid"

    assert json.loads(run("journal", "supersede", old, "--by", new, "--json").stdout)["ok"]
    near = server.ok("graph_neighbors", id=new, relation="supersedes", direction="out")
    assert [n["id"] for n in near["neighbors"]] == [old]
    cli_near = run(
        "graph", "neighbors", new, "--relation", "supersedes", "--direction", "out", "--json"
    )
    assert json.loads(cli_near.stdout) == near
    assert server.error("graph_neighbors", id="dec-000000000000")["code"] == "not_found"

    years = server.ok("timeline")
    assert years == json.loads(run("timeline", "--json").stdout)
    assert (
        years["total"] >= 2
        and years["level"] == json.loads(run("timeline", "--json").stdout)["level"]
    )
    decisions = server.ok("timeline", kinds=["decision"])
    assert decisions == json.loads(run("timeline", "--kind", "decision", "--json").stdout)
    assert server.error("timeline", period="the day after the meeting")["code"] == "usage"


def test_timeline_of_a_day_returns_what_the_cli_returns(server: Any, run: Any) -> None:
    import json

    server.ok("remember", text="Shard the orders table by tenant because: size")
    today = server.ok("timeline", period="today")
    assert today["level"] == "day" and today["total"] >= 1
    cli = run("--data-dir", str(server.root), "timeline", "today", "--json")
    assert json.loads(cli.stdout) == today
    assert server.error("timeline", period="7d")["code"] == "usage"  # an age, not a period


def test_lore_mcp_help_lists_what_the_server_offers(server: Any) -> None:
    """`lore mcp --help` is written from lore.mcp's static lists (it must not import the
    SDK): they hold exactly what the running server registers, in its order."""
    from lore.mcp import PROMPTS, RESOURCES, TOOL_NAMES

    assert [t.name for t in server.request("list_tools").tools] == list(TOOL_NAMES)
    resources = [str(r.uri) for r in server.request("list_resources").resources]
    templates = [
        t.uri_template for t in server.request("list_resource_templates").resource_templates
    ]
    assert sorted(resources + templates) == sorted(RESOURCES)
    assert [p.name for p in server.request("list_prompts").prompts] == list(PROMPTS)


def test_tending_tools_return_what_the_cli_returns(server: Any, run: Any) -> None:
    """Issue 18: stale, consolidate, archive and pin through the tools, as the CLI has them."""
    import json

    def cli(*args: str) -> Any:
        result = run("--data-dir", str(server.root), *args, "--json")
        assert result.exit_code == 0, result.stderr
        return json.loads(result.stdout)

    first = server.ok("remember", text="Use JSONL files for the audit storage")["id"]
    second = server.ok("remember", text="use jsonl for the audit storage.", force=True)["id"]
    listed = server.ok("consolidate", kinds=["duplicate"])
    assert listed == cli("consolidate", "--kind", "duplicate")
    [proposal] = listed["proposals"]
    assert {r["id"] for r in proposal["records"]} == {first, second}
    preview = server.ok("consolidate", apply=[proposal["id"]], dry_run=True)
    assert preview == cli("consolidate", "--apply", proposal["id"], "--dry-run")
    assert cli("show", first)["status"] == "active"  # a dry run writes nothing
    applied = server.ok("consolidate", apply=[proposal["id"]])["applied"][0]
    merged = applied["created"]
    assert cli("show", first)["superseded_by"] == merged
    assert server.ok("pin", ids=[merged])["records"][0]["id"] == merged
    assert cli("show", merged)["pinned"] is True
    assert server.error("archive", ids=[merged])["code"] == "invalid"  # pinned
    server.ok("pin", ids=[merged], unpin=True)
    assert server.ok("archive", ids=[merged])["archived"][0]["status"] == "archived"
    assert server.ok("archive", ids=[merged], unarchive=True)["unarchived"][0]["status"] == (
        "active"
    )
    checked = server.ok("stale")
    assert set(checked) == {"repo", "head", "anchored", "checked", "skipped", "stale"}
    assert server.error("stale", reconfirm=[first])["code"] == "invalid"  # no file hashes
