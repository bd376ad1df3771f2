"""lore.storage.atomic: whole-file replacement that never leaves a torn file or a temp behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from lore.storage.atomic import atomic_write


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "docs"
    path.mkdir()
    return path


def test_creates_parents_and_writes_exact_bytes(folder: Path) -> None:
    target = folder / "a" / "b" / "doc.yaml"

    atomic_write(target, b"name: x\n\xf0\x9f\x9a\x80\n")

    assert target.read_bytes() == b"name: x\n\xf0\x9f\x9a\x80\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert sorted(p.name for p in target.parent.iterdir()) == ["doc.yaml"]


def test_content_is_replaced_with_a_new_inode(folder: Path) -> None:
    target = folder / "doc.yaml"
    target.write_bytes(b"old content that is longer than the new one\n")
    before = target.stat().st_ino

    atomic_write(target, b"new\n")

    assert target.read_bytes() == b"new\n"
    assert target.stat().st_ino != before
    assert [p.name for p in folder.iterdir()] == ["doc.yaml"]


def test_exclusive_creates_a_new_file(folder: Path) -> None:
    target = folder / "pat-000000000001.yaml"

    atomic_write(target, b"id: pat-000000000001\n", exclusive=True)

    assert target.read_bytes() == b"id: pat-000000000001\n"
    assert [p.name for p in folder.iterdir()] == ["pat-000000000001.yaml"]


def test_exclusive_refuses_an_existing_file_and_leaves_it_untouched(folder: Path) -> None:
    target = folder / "pat-000000000001.yaml"
    target.write_bytes(b"hand written\n")
    before = target.stat()

    with pytest.raises(FileExistsError):
        atomic_write(target, b"replacement\n", exclusive=True)

    assert target.read_bytes() == b"hand written\n"
    assert target.stat().st_ino == before.st_ino
    assert target.stat().st_mtime_ns == before.st_mtime_ns
    assert [p.name for p in folder.iterdir()] == ["pat-000000000001.yaml"]


def test_failed_replace_leaves_original_and_no_temp_files(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = folder / "doc.yaml"
    target.write_bytes(b"original\n")

    def fail(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space left"):
        atomic_write(target, b"half of the new conte")

    assert target.read_bytes() == b"original\n"
    assert [p.name for p in folder.iterdir()] == ["doc.yaml"]


def test_failed_write_of_a_new_file_leaves_nothing(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = folder / "doc.yaml"

    def fail(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError, match="Input/output error"):
        atomic_write(target, b"content\n")

    assert list(folder.iterdir()) == []


def test_interrupt_mid_write_cleans_up_too(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = folder / "doc.yaml"
    target.write_bytes(b"original\n")

    def interrupted(src: object, dst: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, b"new\n")

    assert target.read_bytes() == b"original\n"
    assert [p.name for p in folder.iterdir()] == ["doc.yaml"]


def test_new_files_follow_the_umask_like_any_file(folder: Path) -> None:
    old = os.umask(0o077)
    try:
        atomic_write(folder / "private.yaml", b"x: 1\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((folder / "private.yaml").stat().st_mode) == 0o600


def test_the_directory_sync_can_be_left_to_the_caller(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lore.storage import atomic

    synced: list[Path] = []
    monkeypatch.setattr(atomic, "fsync_dir", synced.append)
    atomic_write(folder / "a.yaml", b"a: 1\n", sync_dir=False)
    assert synced == []
    atomic_write(folder / "b.yaml", b"b: 1\n")
    assert synced == [folder]


def test_state_cheap_to_lose_is_written_without_an_fsync(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lore.storage import atomic

    synced: list[Any] = []
    monkeypatch.setattr(atomic, "fsync_dir", synced.append)
    monkeypatch.setattr(os, "fsync", synced.append)
    atomic_write(folder / "state.json", b"{}", durable=False)
    assert (folder / "state.json").read_bytes() == b"{}"
    assert synced == []
    assert [p.name for p in folder.iterdir()] == ["state.json"]
    atomic_write(folder / "state.json", b"[]")
    assert len(synced) == 2  # the file, then its folder


def test_a_batch_of_documents_syncs_each_folder_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lore.store.core
    from lore.capture.build import build
    from lore.store.core import Store

    store = Store(tmp_path / "root")
    synced: list[Path] = []
    monkeypatch.setattr(lore.store.core, "fsync_dir", synced.append)
    records = [build("pattern", f"Lesson number {n}", {}).record for n in range(5)]
    records.append(build("anti-pattern", "Big bang rewrites", {}).record)
    store.add(records)
    assert sorted(synced) == sorted({store.location("pattern"), store.location("anti-pattern")})
    assert len(list(store.location("pattern").glob("*.yaml"))) == 5
