"""The watcher: which names changed in which folders since a token (Linux inotify)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from lore.storage import watch as watch_mod
from lore.storage.watch import Watcher

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify: Linux")


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "one.yaml").write_text("name: one\n")
    return a, b


def test_no_token_is_answered_with_unknown_then_every_kind_of_change_is_named(
    folders: tuple[Path, Path],
) -> None:
    a, b = folders
    watcher = Watcher([str(a), str(b)])
    assert watcher.available
    token, news = watcher.since(None)
    assert token and news is None  # nothing to compare with: check everything
    assert watcher.since(token)[1] == {}

    with open(a / "one.yaml", "r+", encoding="utf-8") as handle:  # in place, same size
        handle.write("name: two\n")
    (b / "new.yaml").write_text("x\n")
    token2, news = watcher.since(token)
    assert news == {str(a): frozenset({"one.yaml"}), str(b): frozenset({"new.yaml"})}
    assert watcher.since(token2)[1] == {}
    assert watcher.since(token)[1] == news  # an older token still gets everything since

    os.replace(b / "new.yaml", b / "moved.yaml")
    (a / "one.yaml").unlink()
    (a / ".one.yaml.lock").write_text("")  # a lock sidecar: never a record, not kept
    _, news = watcher.since(token2)
    assert news == {str(a): frozenset({"one.yaml"}), str(b): frozenset({"new.yaml", "moved.yaml"})}
    watcher.close()


def test_a_replaced_or_created_folder_is_named_whole(tmp_path: Path) -> None:
    a, later = tmp_path / "a", tmp_path / "later"
    a.mkdir()
    watcher = Watcher([str(a), str(later)])
    token, _ = watcher.since(None)
    later.mkdir()
    (later / "x.yaml").write_text("x\n")  # before the folder could be watched
    token, news = watcher.since(token)
    assert news == {str(later): None}
    shutil.rmtree(a)
    a.mkdir()  # a new folder at the same path: the old watch followed the old one
    (a / "y.yaml").write_text("y\n")
    token, news = watcher.since(token)
    assert news == {str(a): None}
    (a / "z.yaml").write_text("z\n")  # and the new folder is watched from then on
    assert watcher.since(token)[1] == {str(a): frozenset({"z.yaml"})}
    watcher.close()


def test_a_foreign_or_forgotten_token_is_unknown(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _ = folders
    one, two = Watcher([str(a)]), Watcher([str(a)])
    token, _ = one.since(None)
    assert two.since(token)[1] is None  # another watcher's token
    assert one.since("garbage")[1] is None
    monkeypatch.setattr(watch_mod, "JOURNAL_LIMIT", 2)
    for n in range(3):
        (a / f"f{n}.yaml").write_text("x\n")
    assert one.since(token)[1] is None  # too many names: the journal started over
    one.close()
    two.close()


def test_without_inotify_every_answer_is_unknown(folders: tuple[Path, Path]) -> None:
    watcher = Watcher([str(folders[0])])
    watcher.close()
    assert not watcher.available
    assert watcher.since(None) == ("", None)
