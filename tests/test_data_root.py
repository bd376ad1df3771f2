"""Issue 15, data at risk: the default data root is the user data home, never lore's own
checkout; a checkout that still holds data is named on every command until it is moved
with `lore paths --move-to`, which copies, verifies, then switches and loses nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

import lore.paths as lore_paths
from lore.errors import LoreError
from lore.store.core import Store

Run = Callable[..., Result]
LORE = Path(sys.executable).parent / "lore"


def tree(root: Path) -> dict[str, bytes]:
    """Every data file under ``root`` (lock sidecars and markers left out)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "/data/" in f"/{p.relative_to(root)}" and not p.name.startswith(".")
    }


@pytest.fixture
def legacy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A checkout whose components/ holds data written before the default changed."""
    fake = tmp_path / "checkout" / "components"
    for name in lore_paths.COMPONENTS:
        (fake / name / "data").mkdir(parents=True)
        (fake / name / "data" / ".gitkeep").touch()
        (fake / name / "README.md").write_text(f"# {name}\n")
    monkeypatch.setattr(lore_paths, "checkout_components", lambda: fake)
    monkeypatch.delenv("LORE_DATA_DIR")
    store = Store(fake)
    from lore.capture.core import capture

    capture(store, "Use SQLite because: one file", kind="decision")
    capture(store, "Retry with backoff", kind="pattern", fields={"solution": "sleep 2^n"})
    return fake


@pytest.mark.skipif(not LORE.exists(), reason="needs the installed lore (.venv/bin/lore)")
def test_installed_lore_writes_to_the_user_data_home_by_default(tmp_path: Path) -> None:
    checkout = lore_paths.checkout_components()
    if checkout is not None and lore_paths.holds_data(checkout):
        pytest.skip("this checkout holds legacy data, so it is (rightly) still the root")
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LORE_", "XDG_"))}
    env["HOME"] = str(home)
    done = subprocess.run(
        [str(LORE), "paths", "--json"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["root"], data["source"]) == (str(home / ".local/share/lore"), "xdg")
    assert done.stderr == ""
    wrote = subprocess.run(
        [str(LORE), "observe", "first note", "-q"], env=env, capture_output=True, text=True
    )
    assert wrote.returncode == 0, wrote.stderr
    log = home / ".local/share/lore/inbox/data/observations.jsonl"
    assert [json.loads(line)["content"] for line in log.read_text().splitlines()] == ["first note"]


def test_a_checkout_holding_data_is_named_on_every_command(run: Run, legacy: Path) -> None:
    shown = run("paths", "--json")
    assert shown.exit_code == 0
    assert (json.loads(shown.stdout)["root"], json.loads(shown.stdout)["source"]) == (
        str(legacy),
        "checkout",
    )
    home = Path.home() / ".local/share/lore"
    warning = (
        f"lore: warning: the data root {legacy} is inside lore's source checkout, which git "
        "ignores (git clean -xdf, or deleting or re-cloning the checkout, erases it); move it "
        f"with: lore paths --move-to {home}\n"
    )
    assert shown.stderr == warning
    listed = run("list", "decisions")
    assert listed.exit_code == 0
    assert listed.stderr == warning
    assert "Use SQLite" in listed.stdout


def test_move_to_the_data_home_loses_nothing_and_switches(run: Run, legacy: Path) -> None:
    before = tree(legacy)
    home = Path.home() / ".local/share/lore"
    moved = run("paths", "--move-to", str(home), "--json")
    assert moved.exit_code == 0, moved.stderr
    data = json.loads(moved.stdout)
    assert data == {
        "ok": True,
        "from": str(legacy),
        "to": str(home),
        "files": 11,  # the two records and the nine .gitkeep files
        "bytes": sum(len(b) for b in before.values()),
        "removed": [],
    }
    assert tree(home) == before
    assert tree(legacy) == before  # the old copy is kept
    assert sorted(p.name for p in home.iterdir()) == sorted(lore_paths.COMPONENTS)
    assert not (home / "journal" / "README.md").exists()  # the checkout's own files stay
    after = run("paths", "--json")
    assert (json.loads(after.stdout)["root"], json.loads(after.stdout)["source"]) == (
        str(home),
        "xdg",
    )
    assert after.stderr == ""
    assert "Use SQLite" in run("list", "decisions").stdout
    assert [p.name for p in home.parent.iterdir() if "moving" in p.name] == []


def test_move_to_another_directory_is_followed_from_the_old_path(
    run: Run, tmp_path: Path, data_dir: Path
) -> None:
    assert run("remember", "Use uv because: fast", "-q").exit_code == 0
    before = tree(data_dir)
    target = tmp_path / "elsewhere" / "lore"
    moved = run("paths", "--move-to", str(target))
    assert moved.exit_code == 0, moved.stderr
    assert moved.stdout == f"moved 1 files from {data_dir} to {target}\n"
    assert tree(target) == before
    assert (data_dir / ".lore-moved").read_text() == f"{target}\n"
    # LORE_DATA_DIR still names the old root: lore follows the move and says so.
    again = run("remember", "Use ruff because: one tool", "-q")
    assert again.exit_code == 0
    assert again.stderr == (
        f"lore: warning: the data root {data_dir} was moved to {target} (lore paths "
        f"--move-to): using {target}; point LORE_DATA_DIR at it to stop this warning\n"
    )
    assert len((target / "journal/data/decisions.jsonl").read_text().splitlines()) == 2
    assert tree(data_dir) == before  # nothing more was written to the old root


def test_move_refuses_a_non_empty_target(run: Run, tmp_path: Path, data_dir: Path) -> None:
    assert run("observe", "keep me", "-q").exit_code == 0
    before = tree(data_dir)
    target = tmp_path / "full"
    target.mkdir()
    (target / "mine.txt").write_text("mine\n")
    refused = run("paths", "--move-to", str(target))
    assert refused.exit_code == 4
    assert refused.stderr == (
        f"lore: error: {target} is not an empty directory; move the data root to a new or "
        "empty one\n"
    )
    assert tree(data_dir) == before
    assert not (data_dir / ".lore-moved").exists()
    assert sorted(p.name for p in target.iterdir()) == ["mine.txt"]


def test_an_interrupted_move_leaves_the_source_as_it_was(
    run: Run, tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run("remember", "Use uv because: fast", "-q").exit_code == 0
    assert run("observe", "a note", "-q").exit_code == 0
    before = tree(data_dir)
    import lore.storage.tree as tree_mod

    real = tree_mod._copy_file
    calls = []

    def dies_on_the_second_file(source: Path, target: Path) -> None:
        calls.append(source)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the user pressed Ctrl-C mid-copy
        real(source, target)

    monkeypatch.setattr(tree_mod, "_copy_file", dies_on_the_second_file)
    target = tmp_path / "new"
    result = run("paths", "--move-to", str(target))
    assert result.exit_code != 0  # (the installed lore exits 130; click's runner says 1)
    assert tree(data_dir) == before
    assert not target.exists()
    assert [p.name for p in tmp_path.iterdir() if "moving" in p.name] == []
    assert not (data_dir / ".lore-moved").exists()
    assert json.loads(run("paths", "--json").stdout)["root"] == str(data_dir)


def test_a_move_removes_the_partial_copy_a_killed_move_left(
    run: Run, tmp_path: Path, data_dir: Path
) -> None:
    # SIGKILL mid-copy runs no cleanup: the partial copy stays beside the target, hidden,
    # as big as the root. The next move to that target removes it.
    assert run("observe", "a note", "-q").exit_code == 0
    left = tmp_path / ".new.lore-moving-0badc0de"
    (left / "inbox" / "data").mkdir(parents=True)
    (left / "inbox" / "data" / "observations.jsonl").write_text('{"id": "obs-half')
    other = tmp_path / ".newer.lore-moving-0badc0de"  # another target's: not ours to remove
    other.mkdir()
    target = tmp_path / "new"
    moved = run("paths", "--move-to", str(target))
    assert moved.exit_code == 0, moved.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if "moving" in p.name) == [other.name]
    assert f"lore: removed {left}, the partial copy an interrupted move left\n" in moved.stderr
    assert tree(target) == tree(data_dir)


def test_a_copy_that_differs_is_never_switched_to(
    run: Run, tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run("observe", "a note", "-q").exit_code == 0
    import lore.storage.tree as tree_mod

    real = tree_mod._copy_file

    def flips_a_byte(source: Path, target: Path) -> None:
        real(source, target)
        data = bytearray(target.read_bytes())
        data[0] ^= 1
        target.write_bytes(bytes(data))

    monkeypatch.setattr(tree_mod, "_copy_file", flips_a_byte)
    target = tmp_path / "new"
    result = run("paths", "--move-to", str(target))
    assert result.exit_code == 1
    log = data_dir / "inbox/data/observations.jsonl"
    assert result.stderr == (
        f"lore: error: the copy of {log} differs from the original; nothing was moved "
        "(the data root is unchanged)\n"
    )
    assert not target.exists()
    assert not (data_dir / ".lore-moved").exists()


def test_a_writer_that_waited_for_a_move_writes_nothing_into_the_old_root(
    tmp_path: Path, data_dir: Path
) -> None:
    store = Store(data_dir)  # opened before the move, as a writer that waited would be
    from lore.capture.core import capture

    capture(store, "before the move", kind="observation")
    from lore.usecases.admin import move_root

    move_root(Store(data_dir), tmp_path / "new")
    before = tree(data_dir)
    with pytest.raises(LoreError) as caught:
        capture(store, "after the move", kind="observation")
    assert caught.value.message == (
        f"the data root {data_dir} was moved to {tmp_path / 'new'} (lore paths --move-to) "
        f"while this command ran; nothing was written: run it again (it uses {tmp_path / 'new'})"
    )
    assert tree(data_dir) == before


# --- a data root that does not exist --------------------------------------------------


MISSING = "does not exist: nothing was read from it; check the path, or create it with: lore init"


def test_a_read_from_a_mistyped_data_root_says_so_on_stderr_only(
    run: Run, tmp_path: Path, data_dir: Path
) -> None:
    run("observe", "kept in the real root")
    typo = tmp_path / "dtaa"
    result = run("--data-dir", str(typo), "recall", "real", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["results"] == []
    assert result.stderr == f"lore: warning: the data root {typo} (--data-dir) {MISSING}\n"
    result = run("list", "decisions", env={"LORE_DATA_DIR": str(typo)})
    assert result.exit_code == 0
    assert result.stderr.endswith(f"the data root {typo} (LORE_DATA_DIR) {MISSING}\n")
    assert not typo.exists()


def test_a_write_creates_a_missing_root_without_the_warning(run: Run, tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    result = run("--data-dir", str(fresh), "observe", "first words")
    assert result.exit_code == 0
    assert "does not exist" not in result.stderr
    assert (fresh / "inbox" / "data").is_dir()


@pytest.mark.parametrize(
    "args",
    [("paths",), ("doctor",), ("recall", "--help"), ("bogus",), ("show", "dec-000000000001")],
)
def test_commands_that_report_it_or_never_ran_do_not_warn(
    run: Run, tmp_path: Path, args: tuple[str, ...]
) -> None:
    result = run("--data-dir", str(tmp_path / "nowhere"), *args)
    assert "nothing was read from it" not in result.stderr
