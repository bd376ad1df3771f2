"""lore.launch, the console script: the collector is tuned for the CLI only."""

from __future__ import annotations

import subprocess
import sys

PROBE = (
    "import gc, {module}; print(gc.isenabled(), gc.get_threshold()[0], gc.get_freeze_count() > 0)"
)


def probe(module: str) -> str:
    code = PROBE.format(module=module)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_the_console_script_freezes_start_up_objects_and_keeps_collecting() -> None:
    from lore.process import GEN0_THRESHOLD

    # what main() does before it runs a command itself (without the command server)
    assert probe("lore.launch; lore.launch._import(True)") == f"True {GEN0_THRESHOLD} True"
    assert probe("lore.launch; lore.launch._import(False)") == f"True {GEN0_THRESHOLD} True"


def test_importing_lore_as_a_library_leaves_the_collector_alone() -> None:
    default = subprocess.run(
        [sys.executable, "-c", "import gc; print(gc.get_threshold()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert probe("lore.api") == f"True {default} False"
    assert probe("lore.cli") == f"True {default} False"


def test_python_dash_m_lore_runs_the_same_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lore", "--version"], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout) == (0, "lore, version 0.1.0\n")
