"""The two generated 100,000-record stores every speed row runs on: ``bench/gen_store.py``'s
(written through lore.store, with its JSONL for the import row) and the shared corpus's
(``gen_corpus.py``: about 12,000 pattern documents and long postings, brought in with
``lore import``). A target holds only if it holds on both. Not part of the test suite.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LORE = REPO / ".venv" / "bin" / "lore"
GEN = REPO / "bench" / "gen_store.py"
# The shared folder sits beside the checkout (../shared), or beside a worktree's parent.
SHARED = next(
    (c for c in (REPO.parent / "shared", REPO.parent.parent / "shared") if c.is_dir()),
    REPO.parent / "shared",
)
CORPUS = SHARED / "bench" / "corpus" / "gen_corpus.py"
LOCOMO = SHARED / "bench" / "locomo"


@dataclass
class Store:
    """One generated store: ``name`` (gen_store, gen_corpus), how it was made, its root and
    its machine-local folder (``LORE_CACHE_DIR``)."""

    name: str
    label: str
    root: Path
    cache: Path
    seconds: float = 0.0

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LORE_", "PYTHON"))}
        env.update(LORE_DATA_DIR=str(self.root), LORE_CACHE_DIR=str(self.cache), NO_COLOR="1")
        # the command server's log (one line per command, with its worker's CPU: bench/run.py)
        env.update(LORE_COMMAND_SERVER_LOG=str(self.cache.parent / f"{self.name}.cmdserver.log"))
        env.update(extra)
        return env

    def watcher_pid(self) -> int | None:
        """The pid of the root's watcher daemon, if one runs (its lock file names it)."""
        return locked_pid(self.cache.glob("*/watch.lock"))

    def stop_watcher(self) -> None:
        pid = self.watcher_pid()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)


def locked_pid(locks: Iterable[Path]) -> int | None:
    """The pid written in the first of ``locks`` a running daemon holds (the watcher daemon
    and the command server each hold theirs for their whole life and write their pid in it)."""
    import fcntl

    for lock in locks:
        fd = os.open(lock, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            continue  # nobody holds it
        except BlockingIOError:
            text = lock.read_text().strip()
            return int(text) if text.isdigit() else None
        finally:
            os.close(fd)
    return None


def cpu_of(pid: int | None) -> float:
    """User + system CPU seconds a process has used so far (0 when unknown)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def make_gen_store(tmp: Path, n: int, jsonl: Path | None, cwd: Path) -> Store:
    store = Store("gen_store", "bench/gen_store.py", tmp / "gen_store", tmp / "gen_store.cache")
    argv = [sys.executable, str(GEN), str(store.root), "--n", str(n)]
    if jsonl is not None:
        argv += ["--jsonl", str(jsonl)]
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=cwd)
    store.seconds = time.perf_counter() - started
    return store


def make_gen_corpus(tmp: Path, n: int, cwd: Path) -> Store | None:
    """The shared corpus imported into a fresh root (None when gen_corpus.py is absent)."""
    if not CORPUS.is_file():
        return None
    store = Store(
        "gen_corpus", "shared gen_corpus.py, imported", tmp / "gen_corpus", tmp / "gen_corpus.cache"
    )
    jsonl = tmp / "corpus.jsonl"
    started = time.perf_counter()
    with open(jsonl, "wb") as out:
        subprocess.run([sys.executable, str(CORPUS), str(n)], check=True, stdout=out, cwd=cwd)
    subprocess.run(
        [str(LORE), "import", str(jsonl)],
        check=True,
        capture_output=True,
        env=store.env(),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )
    store.seconds = time.perf_counter() - started
    return store
