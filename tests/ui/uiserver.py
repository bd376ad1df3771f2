"""``lore ui`` for the tests: a small store with every kind of page to draw (a revised
decision with evidence and a session, a pending decision, raw observations, an ingested
record with its provenance, a hostile record) and the server running on it as a real
process (``python -m lore ui --port 0``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lore.model import kind_class
from lore.store.core import Store

HOSTILE = (
    '<script>window.pwned=1</script><img src=x onerror="window.pwned=2"> '
    "[click me](javascript:window.pwned=3) \u202egnp.exe"
)
RECORDS: list[tuple[str, dict[str, Any]]] = [
    ("decision", {
        "id": "dec-ui-redis", "timestamp": "2025-03-10T09:00:00Z",
        "decision": "Use Redis for the session cache", "rationale": "sub-millisecond reads",
        "alternatives": ["memcached"], "files": ["src/cache.py"], "type": "architecture",
        "session_id": "session-ui-one", "project": "shop", "tags": ["shop"],
    }),
    ("failure", {
        "id": "fail-ui-timeout", "timestamp": "2025-03-10T11:30:00Z", "error_type": "Timeout",
        "error_message": "redis timed out under load", "session_id": "session-ui-one",
        "project": "shop", "tags": ["shop"],
    }),
    ("evidence", {
        "id": "evi-ui-bench", "timestamp": "2025-03-11T08:00:00Z",
        "content": "Measured p99 of 0.4 ms for cache reads", "confidence": "confirmed",
        "provenance": "https://example.com/bench", "supports": ["dec-ui-redis"],
    }),
    ("decision", {
        "id": "dec-ui-celery", "timestamp": "2025-03-12T10:00:00Z",
        "decision": "Queue background jobs with Celery", "rationale": "the team knows it",
        "project": "shop", "tags": ["shop"],
    }),
    ("observation", {
        "id": "obs-ui-hitrate", "timestamp": "2025-11-05T14:00:00Z",
        "content": "The cache hit rate drops right after every deploy", "status": "raw",
        "project": "shop", "tags": ["shop"],
    }),
    ("observation", {
        "id": "obs-ui-flaky", "timestamp": "2025-11-06T14:00:00Z",
        "content": "The checkout test is flaky on Mondays", "status": "raw",
    }),
    ("observation", {
        "id": "obs-ui-ingested", "timestamp": "2025-11-07T09:15:00Z",
        "content": "Agent noticed that the deploy script skips migrations", "status": "raw",
        "source": "ingest",
        "provenance": {"transcript": "~/.claude/projects/shop/4f2a.jsonl", "session": "4f2a",
                       "lines": [12, 14]},
    }),
    ("decision", {
        "id": "dec-ui-evil", "timestamp": "2025-11-08T09:00:00Z", "decision": HOSTILE,
        "rationale": "javascript:window.pwned=4", "files": ["<b>bold</b>.py"],
    }),
    ("pattern", {
        "id": "pat-ui-warm", "timestamp": "2026-01-20T10:00:00Z",
        "name": "Warm the cache on deploy", "solution": "replay the top keys",
        "project": "shop", "tags": ["shop"],
    }),
    ("session", {
        "id": "session-ui-one", "timestamp": "2025-03-10T08:30:00Z", "status": "closed",
        "started_at": "2025-03-10T08:30:00Z", "ended_at": "2025-03-10T18:00:00Z",
        "message": "Cache work done. Next: metrics.", "summary": "Cache work done.",
        "next_steps": ["add cache metrics"],
        "git": {"repo": "shop", "branch": "main", "head": "0123456789abcdef",
                "uncommitted": ["src/cache.py"], "last_commits": []},
        "captured": {"decision": ["dec-ui-redis"], "failure": ["fail-ui-timeout"]},
        "project": "shop", "tags": ["shop"],
    }),
]  # fmt: skip


TRANSCRIPT = [
    {"type": "user", "message": {"role": "user", "content": f"step {n}"}} for n in range(1, 12)
] + [
    {"type": "user", "message": {"role": "user", "content": "Why do the migrations not run?"}},
    {"type": "assistant", "message": {"role": "assistant",
                                      "content": "The deploy script skips migrations."}},
    {"type": "user", "message": {"role": "user", "content": "Write that down."}},
]  # fmt: skip


def build_store(root: Path) -> None:
    """The records above in ``root``; the ingested one's transcript beside it."""
    store = Store(root)
    transcript = root.parent / "transcript-4f2a.jsonl"
    transcript.parent.mkdir(parents=True, exist_ok=True)
    transcript.write_text("".join(json.dumps(line) + "\n" for line in TRANSCRIPT))
    for kind, fields in RECORDS:
        if "provenance" in fields and isinstance(fields["provenance"], dict):
            fields = {
                **fields,
                "provenance": {**fields["provenance"], "transcript": str(transcript)},
            }
        store.add([kind_class(kind).from_dict(dict(fields))])
    store.revise("dec-ui-redis", {"outcome": "successful"}, reason="held up under load")


@dataclass
class Served:
    url: str
    root: Path
    env: dict[str, str]
    proc: subprocess.Popen[str]
    shots: Path

    def lore(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run the CLI on the same root (and local directory) as the server."""
        return subprocess.run(
            [sys.executable, "-m", "lore", "--data-dir", str(self.root), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )


def start_ui(tmp: Path, *extra: str) -> Served:
    root = tmp / "data"
    if not root.exists():
        build_store(root)
    # No LORE_* variable from the test process (an earlier in-process `lore hooks run`
    # leaves LORE_SESSION_ID behind, say): the server sees only this root and this cache.
    env = {k: v for k, v in os.environ.items() if not k.startswith("LORE_")}
    env.update(LORE_CACHE_DIR=str(tmp / "cache"), HOME=str(tmp / "home"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "lore", "--data-dir", str(root), "ui", "--port", "0", *extra],
        env=env,
        cwd=tmp,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), (url, proc.stderr.read() if proc.stderr else "")
    return Served(url, root, env, proc, tmp / "screenshots")


def stop_ui(served: Served) -> tuple[int, str]:
    served.proc.send_signal(signal.SIGTERM)
    try:
        _, err = served.proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        served.proc.kill()
        _, err = served.proc.communicate()
    return served.proc.returncode, err
