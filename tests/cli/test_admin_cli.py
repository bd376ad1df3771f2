"""``lore init`` and ``lore paths``, and how the data root is chosen."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from lore import paths as lore_paths
from lore.paths import COMPONENTS, resolve_root

Run = Callable[..., Result]
NINE = [
    "journal",
    "patterns",
    "failures",
    "inbox",
    "intent",
    "transfer",
    "registry",
    "evidence",
    "graph",
]


def tree(root: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every path under root: its bytes (None for a directory) and mtime."""
    return {
        p.relative_to(root).as_posix(): (
            None if p.is_dir() else p.read_bytes(),
            p.stat().st_mtime_ns,
        )
        for p in sorted(root.rglob("*"))
    }


# --- init ----------------------------------------------------------------------------


def test_components_are_the_nine() -> None:
    assert list(COMPONENTS) == NINE


def test_init_creates_the_nine_data_dirs(run: Run, data_dir: Path) -> None:
    result = run("init", "--json")
    assert result.exit_code == 0
    created = [str(data_dir / name / "data") for name in NINE]
    assert json.loads(result.stdout) == {
        "ok": True,
        "root": str(data_dir),
        "created": created,
        "git": None,
    }
    assert sorted(p.relative_to(data_dir).as_posix() for p in data_dir.rglob("*")) == sorted(
        [*NINE, *(f"{n}/data" for n in NINE)]
    )
    assert not (data_dir / ".git").exists()


def test_init_twice_creates_and_changes_nothing(run: Run, data_dir: Path) -> None:
    first = run("init")
    assert first.exit_code == 0
    assert first.stdout == "".join(
        [f"data root: {data_dir}\n", *(f"  created {data_dir / n / 'data'}\n" for n in NINE)]
    )
    assert run("remember", "Use X", "-q", "--allow-secret").exit_code == 0
    before = tree(data_dir)
    again = run("init")
    assert again.exit_code == 0
    assert again.stdout == f"data root: {data_dir}\n  nothing to create: already initialised\n"
    assert json.loads(run("init", "--json").stdout)["created"] == []
    assert tree(data_dir) == before


def test_init_recreates_only_what_is_missing(run: Run, data_dir: Path) -> None:
    run("init")
    (data_dir / "graph" / "data").rmdir()
    data = json.loads(run("init", "--json").stdout)
    assert data["created"] == [str(data_dir / "graph" / "data")]


GITATTRIBUTES = (
    "# lore: append-only logs merge by union; lore de-duplicates identical lines on read\n"
    "*.jsonl merge=union\n"
    "# lore: lore sync merges the registry by project (a plain git pull merges it as text)\n"
    "registry/data/projects.yaml merge=lore-map\n"
    "# lore: lore sync merges a goal by field and criterion (a plain git pull: as text)\n"
    "intent/data/goals/*.yaml merge=lore-doc\n"
)
GITIGNORE = (
    "# lore: derived and machine-local files (never the truth, never committed)\n*.lock\n*.tmp\n"
)


@pytest.fixture
def git() -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")


@pytest.mark.usefixtures("git")
def test_init_git(run: Run, data_dir: Path) -> None:
    result = run("init", "--git", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data == {
        "ok": True,
        "root": str(data_dir),
        "created": [
            *(str(data_dir / n / "data") for n in NINE),
            str(data_dir / ".gitattributes"),
            str(data_dir / ".gitignore"),
        ],
        "git": {"initialized": True, "updated": [".gitattributes", ".gitignore"]},
    }
    assert (data_dir / ".git").is_dir()
    top = subprocess.run(
        ["git", "-C", str(data_dir), "rev-parse", "--show-toplevel"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(top).resolve() == data_dir.resolve()
    assert (data_dir / ".gitattributes").read_text() == GITATTRIBUTES
    assert (data_dir / ".gitignore").read_text() == GITIGNORE
    for name in NINE:
        assert (data_dir / name / "data" / ".gitkeep").read_bytes() == b""
    # the lock sidecars lore writes are ignored by git
    ignored = subprocess.run(
        ["git", "-C", str(data_dir), "check-ignore", "journal/data/.decisions.jsonl.lock"],
        capture_output=True,
        text=True,
    )
    assert ignored.returncode == 0


@pytest.mark.usefixtures("git")
def test_init_git_again_changes_nothing(run: Run, data_dir: Path) -> None:
    assert run("init", "--git").exit_code == 0
    before = tree(data_dir)
    result = run("init", "--git", "--json")
    assert json.loads(result.stdout) == {
        "ok": True,
        "root": str(data_dir),
        "created": [],
        "git": {"initialized": False, "updated": []},
    }
    assert tree(data_dir) == before


@pytest.mark.usefixtures("git")
def test_init_git_appends_only_missing_lines(run: Run, data_dir: Path) -> None:
    data_dir.mkdir()
    subprocess.run(["git", "init", "-q", str(data_dir)], check=True)
    (data_dir / ".gitattributes").write_text("*.png binary\n  *.jsonl merge=union  \n")
    (data_dir / ".gitignore").write_text("*.lock\nnotes/")  # no final newline
    result = run("init", "--git", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["git"] == {
        "initialized": False,
        "updated": [".gitattributes", ".gitignore"],
    }
    assert (data_dir / ".gitattributes").read_text() == (
        "*.png binary\n  *.jsonl merge=union  \n"
        "# lore: append-only logs merge by union; lore de-duplicates identical lines on read\n"
        "# lore: lore sync merges the registry by project (a plain git pull merges it as text)\n"
        "registry/data/projects.yaml merge=lore-map\n"
        "# lore: lore sync merges a goal by field and criterion (a plain git pull: as text)\n"
        "intent/data/goals/*.yaml merge=lore-doc\n"
    )
    assert (data_dir / ".gitignore").read_text() == (
        "*.lock\nnotes/\n"
        "# lore: derived and machine-local files (never the truth, never committed)\n*.tmp\n"
    )
    before = tree(data_dir)
    assert json.loads(run("init", "--git", "--json").stdout)["git"]["updated"] == []
    assert tree(data_dir) == before


def test_init_git_without_git(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    result = run("init", "--git", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "ok": False,
        "error": "git is not installed; cannot run `lore init --git`",
        "code": "error",
    }


# --- paths ---------------------------------------------------------------------------

FILES = {
    "decision": "journal/data/decisions.jsonl",
    "pattern": "patterns/data/patterns/<id>.yaml",
    "anti-pattern": "patterns/data/anti-patterns/<id>.yaml",
    "failure": "failures/data/failures.jsonl",
    "observation": "inbox/data/observations.jsonl",
    "goal": "intent/data/goals/<id>.yaml",
    "session": "transfer/data/sessions/<id>.json",
    "project": "registry/data/projects.yaml",
    "evidence": "evidence/data/evidence.jsonl",
    "concept": "graph/data/concepts.jsonl",
    "edge": "graph/data/edges.jsonl",
}


def test_paths_json(run: Run, data_dir: Path) -> None:
    result = run("paths", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert list(data) == ["root", "source", "local", "components", "files"]
    assert (data["root"], data["source"]) == (str(data_dir), "env")
    assert data["components"] == {name: str(data_dir / name / "data") for name in NINE}
    assert list(data["components"]) == NINE
    assert data["files"] == {kind: str(data_dir / path) for kind, path in FILES.items()}
    local = Path(data["local"])
    assert local.parent == Path.home() / ".cache" / "lore"
    assert local.name.startswith("data-") and len(local.name) == len("data-") + 12
    assert not data_dir.exists()  # paths only looks


def test_paths_human(run: Run, data_dir: Path) -> None:
    result = run("paths")
    assert result.exit_code == 0
    assert result.stdout == "".join(
        [f"root: {data_dir}  (env)\n", *(f"  {n:<9} {data_dir / n / 'data'}\n" for n in NINE)]
    )


def test_data_dir_option_beats_env(run: Run, tmp_path: Path) -> None:
    result = run("--data-dir", "elsewhere", "paths", "--json")
    data = json.loads(result.stdout)
    assert (data["root"], data["source"]) == (str(Path.cwd() / "elsewhere"), "option")
    # and writes go there
    assert run("--data-dir", str(tmp_path / "opt"), "observe", "x", "-q").exit_code == 0
    assert (tmp_path / "opt" / "inbox/data/observations.jsonl").is_file()
    assert not (tmp_path / "data").exists()


def test_resolve_root_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(lore_paths, "checkout_components", lambda: None)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("LORE_DATA_DIR", str(tmp_path / "env"))
    option = resolve_root(str(tmp_path / "opt"))
    assert (option.path, option.source) == (tmp_path / "opt", "option")
    env = resolve_root()
    assert (env.path, env.source) == (tmp_path / "env", "env")
    monkeypatch.delenv("LORE_DATA_DIR")
    xdg = resolve_root()
    assert (xdg.path, xdg.source) == (tmp_path / "xdg" / "lore", "xdg")
    monkeypatch.delenv("XDG_DATA_HOME")
    default = resolve_root()
    assert (default.path, default.source) == (Path.home() / ".local/share/lore", "xdg")
    monkeypatch.setenv("LORE_DATA_DIR", "~/mine")
    assert resolve_root().path == Path.home() / "mine"


def test_a_checkout_without_data_is_never_the_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = tmp_path / "checkout" / "components"
    (fake / "journal" / "data").mkdir(parents=True)
    (fake / "journal" / "data" / ".gitkeep").touch()
    monkeypatch.setattr(lore_paths, "checkout_components", lambda: fake)
    monkeypatch.delenv("LORE_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    root = resolve_root()
    assert (root.path, root.source) == (tmp_path / "xdg" / "lore", "xdg")


def test_a_checkout_holding_data_stays_the_root_until_the_data_home_exists(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = tmp_path / "checkout" / "components"
    (fake / "intent" / "data" / "goals").mkdir(parents=True)
    (fake / "intent" / "data" / "goals" / "goal-0123456789ab.yaml").write_text("title: x\n")
    monkeypatch.setattr(lore_paths, "checkout_components", lambda: fake)
    monkeypatch.delenv("LORE_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    root = resolve_root()
    assert (root.path, root.source) == (fake, "checkout")
    monkeypatch.setenv("LORE_DATA_DIR", str(tmp_path / "env"))
    assert resolve_root().source == "env"
    monkeypatch.delenv("LORE_DATA_DIR")
    (tmp_path / "xdg" / "lore").mkdir(parents=True)
    assert resolve_root() == (tmp_path / "xdg" / "lore", "xdg", None)
