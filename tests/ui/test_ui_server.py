"""``lore ui``'s server without a browser: it listens on loopback only, refuses foreign Host
headers, writes without the page's token and every write when read-only, and answers with
the CLI's own ``--json`` documents, errors included."""

from __future__ import annotations

import http.client
import json
import re
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from uiserver import build_store

from lore.store.core import Store
from lore.ui.server import HOST, UIServer

Run = Callable[..., Result]


class Client:
    def __init__(self, server: UIServer) -> None:
        self.server = server
        self.host = f"{HOST}:{server.port}"

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        *,
        host: str | None = "",
        token: bool = False,
    ) -> tuple[int, dict[str, str], Any]:
        conn = http.client.HTTPConnection(HOST, self.server.port, timeout=30)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            sent = {"Host": self.host if host == "" else host, **(headers or {})}
            data = b""
            if body is not None:
                data = json.dumps(body).encode()
                sent.setdefault("Content-Type", "application/json")
            if token:
                sent["X-Lore-Token"] = self.server.token
            if sent["Host"] is None:
                del sent["Host"]
            for name, value in sent.items():
                conn.putheader(name, value)
            if "Content-Length" not in sent:
                conn.putheader("Content-Length", str(len(data)))
            conn.endheaders(data)
            reply = conn.getresponse()
            raw = reply.read()
            kind = reply.getheader("Content-Type", "")
            parsed = json.loads(raw) if kind.startswith("application/json") else raw
            return reply.status, dict(reply.getheaders()), parsed
        finally:
            conn.close()

    def get(self, path: str, **kw: Any) -> tuple[int, dict[str, str], Any]:
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any, **kw: Any) -> tuple[int, dict[str, str], Any]:
        return self.request("POST", path, body, **kw)


def _serve(data_dir: Path, *, read_only: bool = False) -> Iterator[Client]:
    if not data_dir.exists():
        build_store(data_dir)
    server = UIServer(Store(data_dir), port=0, read_only=read_only)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield Client(server)
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


@pytest.fixture
def ui(data_dir: Path) -> Iterator[Client]:
    yield from _serve(data_dir)


@pytest.fixture
def ui_read_only(data_dir: Path) -> Iterator[Client]:
    yield from _serve(data_dir, read_only=True)


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def cli_json(run: Run, *args: str) -> Any:
    result = run(*args, "--json")
    return json.loads(result.stdout)


# --- where it listens -----------------------------------------------------------------


def _addresses() -> set[str]:
    """This machine's IPv4 addresses other than loopback (none on an isolated box)."""
    found = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.add(str(info[4][0]))
    except OSError:
        pass
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a source address
        found.add(probe.getsockname()[0])
    except OSError:
        pass
    finally:
        probe.close()
    return {a for a in found if not a.startswith("127.") and a != "0.0.0.0"}


def test_it_listens_on_loopback_only(ui: Client) -> None:
    assert ui.server.server_address[0] == "127.0.0.1"
    assert ui.server.socket.family == socket.AF_INET
    for address in _addresses():
        with pytest.raises(OSError), socket.create_connection((address, ui.server.port), 2):
            pass
    status, _, _ = ui.get("/api/info")
    assert status == 200


def test_the_command_has_no_way_to_choose_another_address(run: Run) -> None:
    from lore.cli.ui import ui_cmd

    assert sorted(p.name for p in ui_cmd.params) == ["open_browser", "port", "read_only"]
    help_text = run("ui", "--help").stdout
    assert "127.0.0.1" in help_text and "--host" not in help_text and "--bind" not in help_text


# --- Host, token, read-only --------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    ["evil.example:{port}", "localhost.evil.example:{port}", "127.0.0.1:1", "127.0.0.1", None],
)
def test_a_foreign_host_is_refused(ui: Client, host: str | None) -> None:
    sent = host.format(port=ui.server.port) if host else None
    for method, path in (("GET", "/"), ("GET", "/api/info"), ("GET", "/static/ui.css")):
        status, _, doc = ui.request(method, path, host=sent)
        assert status == 403, (method, path)
        assert doc["ok"] is False and doc["code"] == "forbidden"
        assert "is not this server's address" in doc["error"]
    status, _, doc = ui.post(
        "/api/queue/inbox/discard", {"id": "obs-ui-flaky", "reason": "x"}, host=sent, token=True
    )
    assert (status, doc["code"]) == (403, "forbidden")


def test_localhost_and_the_served_address_are_welcome(ui: Client) -> None:
    for host in (f"127.0.0.1:{ui.server.port}", f"localhost:{ui.server.port}"):
        status, _, page = ui.get("/", host=host)
        assert status == 200
        assert f'<meta name="lore-token" content="{ui.server.token}">'.encode() in page


def test_a_write_needs_this_runs_token(ui: Client, data_dir: Path) -> None:
    body = {"id": "obs-ui-flaky", "reason": "not reproducible"}
    before = files(data_dir)
    refused = [
        ui.post("/api/queue/inbox/discard", body),  # no token
        ui.post("/api/queue/inbox/discard", body, headers={"X-Lore-Token": "guess"}),
        ui.post(
            "/api/queue/inbox/discard", body, token=True, headers={"Origin": "http://evil.example"}
        ),
        ui.post(
            "/api/queue/inbox/discard", body, token=True, headers={"Sec-Fetch-Site": "cross-site"}
        ),
        ui.post(
            "/api/queue/inbox/discard", body, token=True, headers={"Content-Type": "text/plain"}
        ),
    ]
    for status, _, doc in refused:
        assert (status, doc["ok"], doc["code"]) == (403, False, "forbidden"), doc
    assert files(data_dir) == before
    # the page the server serves carries the token; with it the write goes through
    _, _, page = ui.get("/")
    token = re.search(rb'name="lore-token" content="([^"]+)"', page)
    assert token is not None and token.group(1).decode() == ui.server.token
    status, _, doc = ui.post(
        "/api/queue/inbox/discard",
        body,
        headers={"X-Lore-Token": token.group(1).decode(), "Origin": ui.server.url.rstrip("/")},
    )
    assert status == 200 and doc["ok"] is True and doc["id"] == "obs-ui-flaky"
    assert doc["record"]["status"] == "discarded"
    assert files(data_dir) != before


def test_each_run_has_its_own_token(data_dir: Path) -> None:
    build_store(data_dir)
    first = UIServer(Store(data_dir), port=0)
    second = UIServer(Store(data_dir), port=0)
    try:
        assert first.token != second.token and len(first.token) >= 40
    finally:
        first.server_close()
        second.server_close()


def test_read_only_refuses_every_write(ui_read_only: Client, data_dir: Path, run: Run) -> None:
    ui = ui_read_only
    before = files(data_dir)
    _, _, info = ui.get("/api/info")
    assert info["read_only"] is True
    bodies = {
        ("inbox", "promote"): {"id": "obs-ui-flaky", "to": "decision"},
        ("inbox", "discard"): {"id": "obs-ui-flaky", "reason": "noise"},
        ("review", "resolve"): {"id": "dec-ui-celery", "outcome": "successful"},
        ("stale", "reconfirm"): {"id": "dec-ui-celery"},
        ("stale", "supersede"): {"id": "dec-ui-celery", "text": "Use RQ"},
        ("stale", "retract"): {"id": "dec-ui-celery", "reason": "moot"},
        ("consolidate", "apply"): {"id": "dup-0123456789"},
    }
    actions = {(q["name"], a["name"]) for q in info["queues"] for a in q["actions"]}
    assert actions == set(bodies)  # every write the UI can make is tried here
    for (queue, action), body in bodies.items():
        status, _, doc = ui.post(f"/api/queue/{queue}/{action}", body, token=True)
        assert (status, doc["code"]) == (403, "read_only")
        assert doc["error"] == "refused: lore ui runs --read-only; writes are off"
    assert files(data_dir) == before
    assert ui.get("/api/queue/inbox")[0] == 200
    _, _, page = ui.get("/")
    assert b'<meta name="lore-read-only" content="1">' in page


def test_every_reply_forbids_other_origins_scripts_and_frames(ui: Client) -> None:
    for path in ("/", "/static/js/app.js", "/api/info", "/api/show?id=dec-nope", "/nope"):
        _, headers, _ = ui.get(path)
        assert headers["Content-Security-Policy"].startswith(
            "default-src 'none'; script-src 'self'"
        )
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "DENY"
    assert ui.get("/api/info")[1]["Cache-Control"] == "no-store"


def test_methods_and_paths_it_does_not_serve(ui: Client) -> None:
    assert ui.request("PUT", "/api/info")[0] == 405
    assert ui.request("DELETE", "/api/queue/inbox")[0] == 405
    for path in ("/static/../lore/ui/server.py", "/static/index.html", "/etc/passwd", "/api/nope"):
        status, _, doc = ui.get(path)
        assert (status, doc["code"]) == (404, "not_found"), path
    assert ui.get("/api/queue/inbox/promote")[0] == 404  # an action is a POST
    status, _, doc = ui.post("/api/queue/nope/promote", {"id": "x"}, token=True)
    assert (status, doc["code"]) == (404, "not_found")


# --- the API speaks the CLI's JSON ------------------------------------------------------


def test_reads_answer_with_the_cli_json(ui: Client, run: Run) -> None:
    same = {
        "/api/show?id=dec-ui-redis": ("show", "dec-ui-redis", "--history"),
        "/api/timeline": ("timeline",),
        "/api/timeline?period=2025-03&kind=decision": ("timeline", "2025-03", "--kind", "decision"),
        "/api/graph/neighbors?id=session-ui-one": ("graph", "neighbors", "session-ui-one"),
        "/api/graph/show?id=dec-ui-redis": ("graph", "show", "dec-ui-redis"),
        "/api/graph/concepts": ("graph", "concepts"),
        "/api/queue/inbox": ("inbox",),
        "/api/queue/review?days=0": ("review", "--days", "0"),
        "/api/sessions": ("sessions", "list"),
    }
    for path, args in same.items():
        status, _, doc = ui.get(path)
        assert status == 200, (path, doc)
        assert doc == cli_json(run, *args), path
    assert ui.get("/api/queue/inbox")[1]["X-Total-Count"] == "3"
    # recall: each call counts its hits as recalled, which the next call's ranking weighs
    _, _, found = ui.get("/api/recall?q=redis+cache&limit=5")
    cli = cli_json(run, "recall", "redis", "cache", "--limit", "5", "--explain")

    def unscored(doc: dict[str, Any]) -> dict[str, Any]:
        rows = [
            {k: v for k, v in r.items() if k not in ("score", "explain")} for r in doc["results"]
        ]
        return {**doc, "results": rows}

    assert unscored(found) == unscored(cli) and len(found["results"]) == 5
    assert [sorted(r["explain"]) for r in found["results"]] == [
        sorted(r["explain"]) for r in cli["results"]
    ]


def test_a_listing_is_cut_to_its_limit_with_the_total_in_a_header(ui: Client, run: Run) -> None:
    status, headers, doc = ui.get("/api/queue/inbox?limit=1&offset=1")
    assert status == 200 and headers["X-Total-Count"] == "3"
    assert doc == cli_json(run, "inbox")[1:2]
    _, headers, doc = ui.get("/api/queue/review?days=0&limit=1")
    assert headers["X-Total-Count"] == "2"
    assert doc == {"days": 0, "pending": cli_json(run, "review", "--days", "0")["pending"][:1]}


def test_errors_are_the_cli_error_documents(ui: Client, run: Run) -> None:
    status, _, doc = ui.get("/api/show?id=dec-nope")
    assert status == 404
    assert doc == json.loads(run("show", "dec-nope", "--json").stdout)
    status, _, doc = ui.get("/api/timeline?period=someday")
    assert status == 400
    assert doc == json.loads(run("timeline", "someday", "--json").stdout)
    status, _, doc = ui.get("/api/recall?q=x&limit=lots")
    assert (status, doc["code"]) == (400, "usage")
    assert doc["error"] == "limit must be a whole number (got 'lots')"
    assert ui.get("/api/show")[2]["error"] == "give id"


def test_the_server_sees_what_other_processes_write(ui: Client, run: Run) -> None:
    assert ui.get("/api/timeline?period=2026-01")[2]["total"] == 1
    assert (
        run(
            "learn", "Pin the cache client version", "-q", env={"LORE_NOW": "2026-01-21T10:00:00Z"}
        ).exit_code
        == 0
    )
    assert ui.get("/api/timeline?period=2026-01")[2]["total"] == 2
    hits = ui.get("/api/recall?q=pin+cache+client")[2]["results"]
    assert hits[0]["name"] == "Pin the cache client version"


def test_with_its_watcher_the_server_sees_an_edit_in_place_and_a_deletion(
    data_dir: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``lore ui`` watches the root itself (no stat per document between requests): a
    pattern file edited in place with the same size, then deleted, is seen by the next
    request."""
    monkeypatch.setenv("LORE_WATCH", "1")
    learned = cli_json(run, "learn", "Pin the cache client version")["id"]
    file = data_dir / "patterns" / "data" / "patterns" / f"{learned}.yaml"
    for ui in _serve(data_dir):
        watcher = ui.server.routes.store.kept["watch"]
        assert watcher is not None and watcher.available
        hits = ui.get("/api/recall?q=pin+cache+client")[2]["results"]
        assert hits[0]["id"] == learned
        text = file.read_text(encoding="utf-8")
        edited = text.replace("Pin the cache client", "Pin the yaml parsers")
        assert len(edited) == len(text) and edited != text
        with open(file, "r+", encoding="utf-8") as handle:  # in place: the same inode
            handle.write(edited)
        hits = ui.get("/api/recall?q=yaml+parsers")[2]["results"]
        assert [h["name"] for h in hits if h["id"] == learned] == ["Pin the yaml parsers version"]
        file.unlink()
        hits = ui.get("/api/recall?q=yaml+parsers")[2]["results"]
        assert learned not in [h["id"] for h in hits]


def test_writes_run_the_cli_use_cases(ui: Client, run: Run, data_dir: Path) -> None:
    status, _, doc = ui.post(
        "/api/queue/inbox/promote", {"id": "obs-ui-hitrate", "to": "pattern"}, token=True
    )
    assert status == 200
    assert sorted(doc) == ["id", "observation", "ok", "promoted_to", "target", "warnings"]
    assert doc["target"]["derived_from"] == "obs-ui-hitrate" and doc["target"]["source"] == "ui"
    assert cli_json(run, "show", doc["promoted_to"])["name"] == doc["target"]["name"]
    # the same refusals as the CLI: promoted already (exit 4), a near-duplicate (exit 6)
    status, _, again = ui.post(
        "/api/queue/inbox/promote", {"id": "obs-ui-hitrate", "to": "pattern"}, token=True
    )
    assert (status, again["code"], again["promoted_to"]) == (422, "invalid", doc["promoted_to"])
    run("observe", "The cache hit rate drops right after every deploy!", "-q")
    twin = cli_json(run, "inbox")[0]["id"]
    status, _, dup = ui.post("/api/queue/inbox/promote", {"id": twin, "to": "pattern"}, token=True)
    assert (status, dup["code"], dup["existing_id"]) == (409, "duplicate", doc["promoted_to"])
    status, _, forced = ui.post(
        "/api/queue/inbox/promote", {"id": twin, "to": "pattern", "force": True}, token=True
    )
    assert status == 200 and forced["promoted_to"] != doc["promoted_to"]
    # a reason that looks like a credential is refused by the secrets gate, nothing written
    before = files(data_dir)
    status, _, secret = ui.post(
        "/api/queue/inbox/discard",
        {"id": "obs-ui-flaky", "reason": "token ghp_0123456789abcdefghijABCDEFGHIJ012345"},
        token=True,
    )
    assert (status, secret["code"]) == (422, "secret")
    # the page has no --allow-secret: the message does not send a person looking for one
    assert secret["error"] == (
        "refusing to write: discard_reason looks like it holds a secret (GitHub token); remove it "
        "(the web app never stores a credential)"
    )
    assert files(data_dir) == before
    status, _, resolved = ui.post(
        "/api/queue/review/resolve",
        {"id": "dec-ui-celery", "outcome": "successful", "lesson": "Celery was fine"},
        token=True,
    )
    assert status == 200
    assert resolved == {**resolved, "ok": True, "id": "dec-ui-celery", "outcome": "successful"}
    assert cli_json(run, "show", "dec-ui-celery")["lesson_learned"] == "Celery was fine"


def test_a_bad_write_request_is_a_usage_error(ui: Client) -> None:
    cases = [
        ({"reason": "x"}, 'discard: give the record\'s id as "id"'),
        ({"id": "obs-ui-flaky"}, "discard: 'reason' is required"),
        ({"id": "obs-ui-flaky", "reason": 3}, "discard: 'reason' must be a str"),
        (
            {"id": "obs-ui-flaky", "reason": "x", "allow_secret": True},
            "discard: unknown field 'allow_secret'",
        ),
    ]
    for body, message in cases:
        status, _, doc = ui.post("/api/queue/inbox/discard", body, token=True)
        assert (status, doc["code"], doc["error"]) == (400, "usage", message)
    status, _, doc = ui.request(
        "POST", "/api/queue/inbox/discard", headers={"Content-Type": "application/json"}, token=True
    )
    assert (status, doc["code"]) == (400, "usage")


def test_a_body_of_a_strange_size_is_refused(ui: Client) -> None:
    for length in ("-1", "abc", str(2 << 20)):
        status, _, doc = ui.request(
            "POST", "/api/queue/inbox/discard", token=True,
            headers={"Content-Type": "application/json", "Content-Length": length},
        )  # fmt: skip
        assert (status, doc["code"]) == (403, "forbidden"), length
        assert doc["error"] == f"refused: a body of {length} bytes (0 to {1 << 20})"


def test_the_port_taken_is_a_clear_error(run: Run) -> None:
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        port = busy.getsockname()[1]
        result = run("ui", "--port", str(port))
        assert result.exit_code == 1
        assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
        assert "--port 0 for any free port" in result.stderr
    finally:
        busy.close()


def test_the_front_end_is_small_and_needs_no_network() -> None:
    from lore.ui.server import static_files

    served = static_files()
    assert sum(len(data) for data in served.values()) < 120_000
    for path, data in served.items():
        text = data.decode("utf-8")
        assert not re.search(r"""(src|href|import|from)\s*=?\s*["']https?:""", text), path
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", ""), path
        if path.endswith(".js"):
            assert "innerHTML" not in text and "insertAdjacentHTML" not in text, path
            assert "eval(" not in text and "new Function" not in text, path


# --- the tending queues (issue 18): stale advice, consolidation proposals ---------------


@pytest.fixture
def tended(run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Client]:
    """A repository in the working directory with a decision on a file changed since, and
    two near-duplicate decisions, written before the server starts."""
    from tests.dynamics.conftest import Repo
    from tests.gitteam import isolate_git

    isolate_git(monkeypatch, data_dir.parent)
    repo = Repo(Path.cwd())
    repo.write("src/db.py", "import sqlite3\n")
    repo.commit("init")
    run("remember", "Use SQLite in src/db.py because: simple", "-q")
    run("remember", "Use JSONL files for storage", "-q")
    run("remember", "use jsonl for the storage.", "--force", "-q")
    repo.write("src/db.py", "import sqlite3\nimport os\n")
    repo.commit("db: more")
    yield from _serve(data_dir)


def test_the_stale_and_consolidation_queues_act_through_the_cli_use_cases(
    tended: Client, run: Run
) -> None:
    ui = tended
    _, _, info = ui.get("/api/info")
    on_demand = {q["name"]: q["on_demand"] for q in info["queues"]}
    assert on_demand == {"inbox": False, "review": False, "stale": False, "consolidate": True}
    status, _, doc = ui.get("/api/queue/stale")
    assert status == 200
    [item] = doc["stale"]
    assert item["title"] == "Use SQLite in src/db.py"
    assert item["staleness"] == "src/db.py changed (+1 -0 in 1 commit)"
    status, _, done = ui.post("/api/queue/stale/reconfirm", {"id": item["id"]}, token=True)
    assert (status, done["id"], done["ok"]) == (200, item["id"], True)
    assert ui.get("/api/queue/stale")[2]["stale"] == []
    assert cli_json(run, "stale")["stale"] == []
    status, _, doc = ui.get("/api/queue/consolidate")
    [proposal] = doc["proposals"]
    assert proposal["kind"] == "duplicate" and len(proposal["records"]) == 2
    status, _, applied = ui.post("/api/queue/consolidate/apply", {"id": proposal["id"]}, token=True)
    assert status == 200
    merged = cli_json(run, "show", applied["id"])
    assert merged["decision"] == "Use JSONL files for storage"
    for member in proposal["records"]:
        assert cli_json(run, "show", member["id"])["superseded_by"] == applied["id"]
    assert ui.get("/api/queue/consolidate")[2]["proposals"] == []
