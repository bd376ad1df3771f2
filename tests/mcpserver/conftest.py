"""Fixtures for the MCP server's tests: real ``lore mcp`` processes driven by the SDK's own
client (``stdio_client`` + ``ClientSession``) in a thread of their own, so tests call tools
without being async and one server (start-up costs about a second) serves a whole module.
Each test module skips itself when the SDK (the ``[mcp]`` extra) is not installed.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import orjson
import pytest

LORE = str(Path(sys.executable).with_name("lore"))
PASSED_ENV = ("HOME", "PATH", "NO_COLOR", "GIT_CEILING_DIRECTORIES", "LORE_LOCK_TIMEOUT")
# A raw client's session opening, for the tests that write JSON-RPC lines themselves.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Server:
    """``Server(root)`` starts ``lore mcp`` on ``root``; ``call`` runs one tool."""

    def __init__(self, root: Path, *, env: dict[str, str] | None = None, cwd: Path | None = None):
        self.root = root
        self.env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
        self.env["LORE_DATA_DIR"] = str(root)
        self.env.update(env or {})
        self.cwd = cwd or Path.cwd()
        self.jobs: queue.Queue[tuple[str, tuple[Any, ...], Future[Any]] | None] = queue.Queue()
        self.ready: Future[Any] = Future()
        self.thread = threading.Thread(target=self._main, daemon=True)
        self.thread.start()
        self.init = self.ready.result(timeout=60)

    def _main(self) -> None:
        import anyio

        anyio.run(self._serve)

    async def _serve(self) -> None:
        import anyio
        from mcp import ClientSession, StdioServerParameters, stdio_client

        params = StdioServerParameters(command=LORE, args=["mcp"], env=self.env, cwd=self.cwd)
        try:
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                self.ready.set_result(await s.initialize())
                while True:
                    job = await anyio.to_thread.run_sync(self.jobs.get)
                    if job is None:
                        return
                    name, args, future = job
                    try:
                        future.set_result(await getattr(s, name)(*args))
                    except Exception as exc:  # handed to the test that asked
                        future.set_exception(exc)
        except Exception as exc:
            if not self.ready.done():
                self.ready.set_exception(exc)
            raise

    def request(self, name: str, *args: Any) -> Any:
        future: Future[Any] = Future()
        self.jobs.put((name, args, future))
        return future.result(timeout=60)

    def call(self, _name: str, /, **arguments: Any) -> Any:
        """The raw ``CallToolResult``."""
        return self.request("call_tool", _name, arguments)

    def ok(self, _name: str, /, **arguments: Any) -> Any:
        """A successful call's document (its last text block, which is the JSON)."""
        result = self.call(_name, **arguments)
        assert not result.is_error, result.content[0].text
        return orjson.loads(result.content[-1].text)

    def error(self, _name: str, /, **arguments: Any) -> dict[str, Any]:
        """A failed call's error document, checked to match its structured content."""
        result = self.call(_name, **arguments)
        assert result.is_error, result.content[-1].text
        doc = orjson.loads(result.content[-1].text)
        assert result.structured_content == doc
        return doc

    def close(self) -> None:
        self.jobs.put(None)
        self.thread.join(timeout=30)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server per test module, on a data root of its own (``server.root``)."""
    base = tmp_path_factory.mktemp("mcp")
    (base / "home").mkdir()
    (base / "work").mkdir()
    handle = Server(
        base / "data",
        env={"HOME": str(base / "home"), "GIT_CEILING_DIRECTORIES": str(base)},
        cwd=base / "work",
    )
    yield handle
    handle.close()


@pytest.fixture
def start_server(data_dir: Path) -> Iterator[Callable[..., Server]]:
    """Start servers on this test's data root (closed when the test ends)."""
    started: list[Server] = []

    def start(**env: str) -> Server:
        started.append(Server(data_dir, env=env))
        return started[-1]

    yield start
    for handle in started:
        handle.close()
