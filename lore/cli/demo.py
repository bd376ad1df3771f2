"""``lore demo``: the whole loop on a throwaway data root, each command shown before its output."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import click

from lore.cli._output import echo, style

STEPS: list[tuple[str, list[str]]] = [
    ("A new session starts: nothing is known yet.", ["resume"]),
    (
        "Record a decision with its reason and the options not taken.",
        [
            "remember",
            "Use SQLite for the response cache because: zero setup, one file vs: redis, postgres",
            "--type",
            "architecture",
            "-t",
            "cache",
        ],
    ),
    (
        "Record a lesson as a pattern.",
        [
            "learn",
            "Retry flaky network calls",
            "--solution",
            "3 tries with exponential backoff",
            "--context",
            "HTTP clients talking to rate-limited APIs",
            "-t",
            "http",
        ],
    ),
    ("Jot down an observation for later.", ["observe", "The test suite takes 40 s on CI"]),
    ("A failure...", ["fail", "Timeout", "pytest timed out after 600 s", "--tool", "pytest"]),
    ("...again...", ["fail", "Timeout", "integration tests timed out", "--tool", "pytest"]),
    (
        "...and a third time: the Rule of Three says it is a pattern now.",
        ["fail", "Timeout", "pytest -x timed out in test_sync", "--tool", "pytest"],
    ),
    ("Search everything with a plain question.", ["recall", "how do we cache responses?"]),
    ("Which failures keep coming back?", ["triggers"]),
    (
        "Name the recurring failure as a pitfall.",
        ["promote-failure", "Timeout", "--fix", "run the slow tests with -n 2"],
    ),
    (
        "End the session with a handoff for the next one.",
        [
            "handoff",
            "Cache layer done; retries next.",
            "--next",
            "add retries to the HTTP client",
            "--blocker",
            "CI runners are slow",
        ],
    ),
    ("The next session starts where this one stopped.", ["resume"]),
]


@click.command(name="demo")
@click.option(
    "--keep",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Use DIR as the demo's data root and keep it afterwards.",
)
def demo_cmd(keep: Path | None) -> None:
    """Play the whole loop on a throwaway data root, showing each command.

    Runs resume, captures of each kind, recall, a failure reaching the Rule of
    Three, a handoff and the next resume, as real `lore` commands on a temporary
    data root (your own data is never touched).
    """
    from lore.cli import LAZY_COMMANDS

    workdir = Path(tempfile.mkdtemp(prefix="lore-demo-"))
    # Absolute: the steps run in workdir, so a relative DIR would land (and vanish) there.
    root = keep.expanduser().absolute() if keep is not None else workdir / "data"
    env = {
        **os.environ,
        "LORE_DATA_DIR": str(root),
        "LORE_PROJECT": "demo",
        "LORE_CACHE_DIR": str(workdir / "cache"),
        "NO_COLOR": os.environ.get("NO_COLOR", ""),
    }
    env.pop("LORE_SESSION_ID", None)
    try:
        for caption, args in STEPS:
            if args[0] not in LAZY_COMMANDS:
                continue  # a command this version does not have yet
            echo(style(f"# {caption}", fg="cyan"))
            echo(style("$ lore " + " ".join(shlex.quote(a) for a in args), bold=True))
            done = subprocess.run(
                [sys.executable, "-m", "lore", *args],
                env=env,
                cwd=workdir,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                check=False,
            )
            if done.stdout:
                echo(done.stdout.rstrip("\n"))
            if done.stderr:
                echo(done.stderr.rstrip("\n"))
            echo()
    finally:
        import shutil

        # Always: with --keep only DIR is kept (workdir holds the disposable cache).
        shutil.rmtree(workdir, ignore_errors=True)
    where = f"kept in {root}" if keep is not None else "removed"
    echo(f"Demo data {where}. {_next_step()}")


def _next_step() -> str:
    """What to run for real: `lore init` only when the user's own root is not set up yet
    (install.sh runs it, so a fresh install is told to resume, not to init again)."""
    from lore.paths import COMPONENTS, resolve_root

    app = click.get_current_context().obj
    root = app.root if app is not None else resolve_root()
    if all(root.component_dir(c).is_dir() for c in COMPONENTS):
        return f"Your data root ({root.path}) is ready: start for real with: lore resume"
    return "Start for real with: lore init && lore resume"
