"""Writes through links (issue 15): an export or any atomic replace never turns a symlink,
a FIFO or a device into a regular file; an export streams into a FIFO or a device;
appends and document writes refuse a data file that links out of the data root, and
`lore doctor` flags such a link.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from lore.errors import DataError
from lore.storage import jsonl
from lore.storage.atomic import atomic_write, write_output

Run = Callable[..., Result]
LORE = str(Path(sys.executable).with_name("lore"))


@pytest.fixture
def one_record(run: Run) -> str:
    result = run("observe", "the CI cache is cold on Mondays", "-q")
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def exported(run: Run) -> bytes:
    result = run("export")
    assert result.exit_code == 0
    return result.stdout_bytes


# --- exports --------------------------------------------------------------------------------


def test_export_into_a_symlink_writes_the_file_it_names(
    run: Run, one_record: str, tmp_path: Path
) -> None:
    target = tmp_path / "backups" / "lore.jsonl"
    target.parent.mkdir()
    target.write_text("old\n")
    link = tmp_path / "latest.jsonl"
    link.symlink_to(target)
    result = run("export", "-o", str(link))
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == exported(run)


def test_export_into_a_dangling_symlink_creates_its_target(
    run: Run, one_record: str, tmp_path: Path
) -> None:
    link = tmp_path / "latest.jsonl"
    link.symlink_to(tmp_path / "new.jsonl")
    assert run("export", "-o", str(link)).exit_code == 0
    assert link.is_symlink()
    assert (tmp_path / "new.jsonl").read_bytes() == exported(run)


def test_export_streams_into_a_fifo(run: Run, one_record: str, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = run("export", "-o", str(fifo))
    reader.join(timeout=10)
    assert result.exit_code == 0, result.output
    assert received == [exported(run)]
    assert fifo.is_fifo()


def test_export_streams_into_a_device(run: Run, one_record: str, tmp_path: Path) -> None:
    # Through a link of our own: a test must never risk replacing the real /dev/null.
    link = tmp_path / "null"
    link.symlink_to(os.devnull)
    result = run("export", "-o", str(link))
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and Path(os.devnull).is_char_device()


@pytest.mark.skipif(not Path("/proc/self/fd/1").exists(), reason="needs /proc")
def test_export_to_a_link_to_stdout_streams_through_it(tmp_path: Path) -> None:
    """What `-o /dev/stdout` is: a link to the process's own descriptor (a pipe here)."""
    env = {**os.environ, "LORE_DATA_DIR": str(tmp_path / "data")}
    subprocess.run([LORE, "observe", "the CI cache is cold"], env=env, check=True)
    out = tmp_path / "stdout"
    out.symlink_to("/proc/self/fd/1")
    done = subprocess.run(
        [LORE, "export", "-o", str(out)], env=env, capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"] == "the CI cache is cold"
    assert out.is_symlink() and os.readlink(out) == "/proc/self/fd/1"


def test_write_output_refuses_a_socket(tmp_path: Path) -> None:
    import socket

    path = tmp_path / "s"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    try:
        with pytest.raises(DataError, match="is a socket"):
            write_output(path, b"x")
    finally:
        server.close()


# --- atomic replace -------------------------------------------------------------------------


def test_atomic_write_follows_a_symlink_and_keeps_it(tmp_path: Path) -> None:
    target = tmp_path / "real.yaml"
    target.write_text("old\n")
    link = tmp_path / "doc.yaml"
    link.symlink_to(target)
    atomic_write(link, b"new\n")
    assert link.is_symlink()
    assert target.read_bytes() == b"new\n"


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_atomic_write_never_replaces_a_special_file(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "doc.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path.symlink_to(os.devnull)
    with pytest.raises(DataError, match="not a regular file: refusing to replace it"):
        atomic_write(path, b"x\n")
    assert path.is_fifo() or path.is_dir() or Path(os.devnull).is_char_device()


def test_atomic_write_refuses_a_link_out_of_the_root(tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text("keep\n")
    root = tmp_path / "root"
    root.mkdir()
    link = root / "doc.yaml"
    link.symlink_to(outside)
    with pytest.raises(DataError, match="outside the data root"):
        atomic_write(link, b"x\n", within=root)
    assert outside.read_text() == "keep\n" and link.is_symlink()


# --- appends and the store ------------------------------------------------------------------


def test_append_refuses_a_log_that_links_out_of_the_root(tmp_path: Path) -> None:
    outside = tmp_path / "bashrc"
    outside.write_text("export PATH=/usr/bin\n")
    root = tmp_path / "root"
    log = root / "inbox" / "data" / "observations.jsonl"
    log.parent.mkdir(parents=True)
    log.symlink_to(outside)
    with pytest.raises(DataError, match="outside the data root"):
        jsonl.append(log, [{"id": "obs-1"}], within=root)
    assert outside.read_text() == "export PATH=/usr/bin\n"


def test_append_follows_a_link_inside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "elsewhere").mkdir(parents=True)
    real = root / "elsewhere" / "log.jsonl"
    link = root / "log.jsonl"
    link.symlink_to(real)
    jsonl.append(link, [{"id": "a"}], within=root)
    assert real.read_text() == '{"id":"a"}\n' and link.is_symlink()


def test_append_refuses_a_fifo(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    os.mkfifo(log)
    with pytest.raises(DataError, match="is a FIFO, not a regular file: refusing to append"):
        jsonl.append(log, [{"id": "a"}])


def test_capture_refuses_a_log_linked_out_of_the_root(
    run: Run, data_dir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "bashrc"
    outside.write_text("export PATH=/usr/bin\n")
    log = data_dir / "inbox" / "data" / "observations.jsonl"
    log.parent.mkdir(parents=True)
    log.symlink_to(outside)
    result = run("observe", "the CI cache is cold", "--json")
    assert result.exit_code == 4, result.output
    reply = json.loads(result.stdout)
    assert reply["code"] == "data"
    assert "outside the data root" in reply["error"]
    assert outside.read_text() == "export PATH=/usr/bin\n"


def test_doctor_flags_links_out_of_the_root_and_special_files(
    run: Run, data_dir: Path, tmp_path: Path, one_record: str
) -> None:
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text("")
    decisions = data_dir / "journal" / "data" / "decisions.jsonl"
    decisions.parent.mkdir(parents=True, exist_ok=True)
    decisions.symlink_to(outside)
    os.mkfifo(data_dir / "inbox" / "data" / "stray")
    result = run("doctor", "--json")
    assert result.exit_code == 4, result.output
    findings = {f["code"]: f for f in json.loads(result.stdout)["findings"]}
    link = findings["link-outside-root"]
    assert (link["severity"], link["path"]) == ("error", "journal/data/decisions.jsonl")
    assert str(outside) in link["message"]
    special = findings["not-a-file"]
    assert (special["severity"], special["path"]) == ("error", "inbox/data/stray")
    assert "a FIFO" in special["message"]
    repaired = run("doctor", "--repair", "--json")  # leaves the link alone, writes nothing
    assert repaired.exit_code == 4
    assert decisions.is_symlink() and outside.read_text() == ""


def test_a_path_under_a_file_is_an_os_error_not_a_data_error(tmp_path: Path) -> None:
    """Callers that tolerate an unwritable cache catch OSError: the link checks keep it."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(OSError):
        atomic_write(blocker / "cache" / "index.bin", b"x")
    with pytest.raises(OSError):
        write_output(blocker / "out.jsonl", b"x")
