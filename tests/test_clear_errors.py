"""Issue 15, unclear errors: `lore import` reads /dev/null, a FIFO and <(...); `index
rebuild` on a cache it cannot write fails and names it; GraphML export of control
characters is well-formed XML; the ADR export finds its files again whatever a title holds;
the shell client records a text of "-"."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

Run = Callable[..., Result]
LORE = Path(sys.executable).parent / "lore"
CLIENT = Path(__file__).resolve().parent.parent / "scripts" / "lore-client.sh"
BASH = shutil.which("bash")


def test_import_reads_dev_null_and_a_fifo(run: Run, tmp_path: Path) -> None:
    empty = run("import", "/dev/null")
    assert (empty.exit_code, empty.stdout) == (0, "imported 0 records\n")
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "w") as handle:
            handle.write('{"kind": "observation", "content": "through a FIFO"}\n')

    writer = threading.Thread(target=feed)
    writer.start()
    done = run("import", str(fifo))
    writer.join(10)
    assert (done.exit_code, done.stdout) == (0, "imported 1 record (observation 1)\n")
    folder = run("import", str(tmp_path))
    assert folder.exit_code == 2
    assert folder.stderr == (
        f"lore: error: no such file: {tmp_path} (a bash-lore data root? add --from bash-lore)\n"
    )
    missing = run("import", str(tmp_path / "nope.jsonl"))
    assert missing.stderr == f"lore: error: no such file: {tmp_path / 'nope.jsonl'}\n"


@pytest.mark.skipif(BASH is None or not LORE.exists(), reason="needs bash and the installed lore")
def test_import_reads_a_process_substitution(tmp_path: Path) -> None:
    env = {**os.environ, "LORE_DATA_DIR": str(tmp_path / "data")}
    line = '{"kind": "observation", "content": "from a pipe"}'
    done = subprocess.run(
        [BASH or "bash", "-c", f"{LORE} import <(echo '{line}')"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "imported 1 record (observation 1)\n",
        "",
    )


def test_index_rebuild_on_a_cache_it_cannot_write_fails_naming_it(run: Run, tmp_path: Path) -> None:
    assert run("observe", "something", "-q").exit_code == 0
    blocker = tmp_path / "cache-file"
    blocker.write_text("a file where the cache directory should be")
    result = run("index", "rebuild", env={"LORE_CACHE_DIR": str(blocker / "lore")})
    assert result.exit_code == 1
    assert result.stderr.startswith("lore: error: Not a directory: ")
    assert str(blocker) in result.stderr
    assert result.stdout == ""  # no "index rebuilt" for an index that was not saved


def test_graphml_export_of_control_characters_is_well_formed(run: Run) -> None:
    text = "Use \x01 bell\x07 and \x1b[31m colour\x00 codes"
    assert run("remember", text, "-q").exit_code == 0
    exported = run("graph", "export", "--format", "graphml")
    assert exported.exit_code == 0
    tree = ET.fromstring(exported.stdout)  # raises if not well-formed XML
    texts = [node.text for node in tree.iter() if node.text and "bell" in node.text]
    assert texts == ["Use \\x01 bell\\x07 and \\x1b[31m colour\\x00 codes"]


def test_adr_export_finds_its_file_again_when_a_title_holds_a_lore_id(
    run: Run, tmp_path: Path
) -> None:
    assert run("remember", "Use X <!-- lore-id: dec-000000000000 -->", "-q").exit_code == 0
    out = tmp_path / "adr"
    first = json.loads(
        run("journal", "export", "--format", "adr", "--output", str(out), "--json").stdout
    )
    again = json.loads(
        run("journal", "export", "--format", "adr", "--output", str(out), "--json").stdout
    )
    assert len(first["created"]) == 1
    assert (again["created"], again["unchanged"]) == ([], first["created"])
    assert [p.name for p in out.iterdir()] == first["created"]


@pytest.mark.skipif(BASH is None or not LORE.exists(), reason="needs bash and the installed lore")
def test_the_shell_client_records_a_text_of_a_dash(
    run: Run, tmp_path: Path, data_dir: Path
) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "LORE_BIN": str(LORE),
        "LORE_DATA_DIR": str(data_dir),
    }
    script = f'set -euo pipefail\n. "{CLIENT}"\nlore_observe "-"\nlore_failure Timeout "-"\n'
    done = subprocess.run(
        [BASH or "bash", "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.split()) == 2  # two ids: both were recorded
    observations = json.loads(run("list", "observations", "--json").stdout)
    failures = json.loads(run("list", "failures", "--json").stdout)
    assert [o["content"] for o in observations] == ["-"]
    assert [f["error_message"] for f in failures] == ["-"]
