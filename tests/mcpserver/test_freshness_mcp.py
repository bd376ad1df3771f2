"""The freshness guarantee through one long-lived ``lore mcp`` server: a YAML edited in
place, a JSONL log appended to by hand and a goal checked out by git are each seen by the
very next recall, resume, timeline and graph call (the server's own watcher)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.freshness_scene import DAY, NOW, PROJECT, Scene
from tests.test_freshness import age

pytest.importorskip("mcp", reason="the MCP SDK (the [mcp] extra) is not installed")


def test_one_server_sees_each_change_at_its_next_call(
    start_server: Callable[..., Any], data_dir: Path, run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    monkeypatch.setenv("LORE_PROJECT", PROJECT)

    def cli(*args: str) -> Any:
        result = run(*args, "--json")
        assert result.exit_code == 0, result.output
        return orjson.loads(result.stdout)

    scene = Scene(data_dir, cli)
    scene.setup()
    server = start_server(LORE_NOW=NOW, LORE_PROJECT=PROJECT)
    calls: list[tuple[Callable[[], Any], Callable[[Any], None]]] = [
        (lambda: server.ok("recall", query=scene.word), scene.check_recall),
        (lambda: server.ok("resume"), scene.check_resume),
        (lambda: server.ok("timeline", period=DAY), scene.check_timeline),
        (
            lambda: (
                server.ok("graph_neighbors", id=scene.goal),
                server.ok("graph_neighbors", id=scene.pattern),
            ),
            lambda docs: scene.check_neighbors(*docs),
        ),
    ]
    for call, _ in calls:  # warm: the index, the kept answers and the graph in memory
        call()
    for call, check in calls:
        age(scene.root)
        call()
        scene.change()
        check(call())
