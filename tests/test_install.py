"""install.sh and .ci/run: usage, early checks, uninstall and (opt-in) a real install.

Everything but the end-to-end test runs offline in well under a second: each case stops
before the venv step. Set LORE_TEST_INSTALL=1 to also run install.sh for real (twice) in a
copy of the checkout; it needs the package index and takes 20-60 s.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lore.paths import COMPONENTS

ROOT = Path(__file__).resolve().parents[1]
INSTALL = ROOT / "install.sh"
CI_RUN = ROOT / ".ci" / "run"
BASH = shutil.which("bash") or "/bin/bash"
# Enough for the script's own tools (grep, readlink, ...) and nothing like /usr/local/bin,
# so no test can ever pick or touch a real bin directory.
SYSTEM_PATH = "/usr/bin:/bin"


def scratch_checkout(tmp_path: Path) -> Path:
    """The files install.sh reads before its venv step, in a throwaway checkout."""
    top = tmp_path / "checkout"
    (top / "lore").mkdir(parents=True)
    shutil.copy2(INSTALL, top / "install.sh")
    shutil.copy2(ROOT / "pyproject.toml", top / "pyproject.toml")
    shutil.copy2(ROOT / "lore" / "__init__.py", top / "lore" / "__init__.py")
    return top


def environ(tmp_path: Path, **overrides: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LORE_", "XDG_"))}
    env.pop("VIRTUAL_ENV", None)
    env.update(
        HOME=str(tmp_path / "home"),
        PATH=SYSTEM_PATH,
        PYTHON=sys.executable,
        LORE_BIN_DIR=str(tmp_path / "bin"),
        LORE_DATA_DIR=str(tmp_path / "data"),
    )
    for key, value in overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def run_install(
    script: Path, *args: str, env: dict[str, str], timeout: float = 30
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BASH, str(script), *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_help_prints_usage_on_stdout() -> None:
    result = subprocess.run(
        [BASH, str(INSTALL), "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        "Usage: ./install.sh [--mcp] [--test | --dev] [--quiet] [--force]\n"
    )
    for option in ("--mcp", "--test", "--dev", "--quiet", "--force", "--uninstall", "--help"):
        assert f"  {option}" in result.stdout or f", {option}" in result.stdout, option
    for variable in ("PYTHON", "LORE_BIN_DIR", "LORE_DATA_DIR"):
        assert f"\n  {variable} " in result.stdout, variable
    assert result.stderr == ""


@pytest.mark.parametrize("script", [INSTALL, CI_RUN], ids=["install.sh", ".ci/run"])
def test_scripts_parse_and_are_executable(script: Path) -> None:
    result = subprocess.run([BASH, "-n", str(script)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert script.read_text(encoding="utf-8").startswith("#!/usr/bin/env bash\n")
    assert "\nset -euo pipefail\n" in script.read_text(encoding="utf-8")
    if script == INSTALL:  # README runs it as ./install.sh
        assert os.access(script, os.X_OK)


def test_unknown_option_is_a_usage_error(tmp_path: Path) -> None:
    result = run_install(INSTALL, "--bogus", env=environ(tmp_path))
    assert result.returncode == 2
    assert result.stderr == "install.sh: error: unknown option: --bogus (see ./install.sh --help)\n"
    assert result.stdout == ""


@pytest.mark.skipif(shutil.which("dash") is None, reason="needs dash as a non-bash sh")
def test_refuses_to_run_under_plain_sh(tmp_path: Path) -> None:
    result = subprocess.run(
        ["dash", str(INSTALL), "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert "run it with bash" in result.stderr
    assert result.stdout == ""


def test_rejects_python_older_than_3_10(tmp_path: Path) -> None:
    top = scratch_checkout(tmp_path)
    fake = tmp_path / "python3.8"
    fake.write_text("#!/bin/sh\necho 3.8.10\n", encoding="utf-8")
    fake.chmod(0o755)
    result = run_install(top / "install.sh", env=environ(tmp_path, PYTHON=str(fake)))
    assert result.returncode == 1
    assert f"lore needs Python 3.10 or newer, but {fake} is Python 3.8.10" in result.stderr
    assert not (top / ".venv").exists()
    assert not (tmp_path / "bin").exists()


def test_missing_python_is_named(tmp_path: Path) -> None:
    top = scratch_checkout(tmp_path)
    missing = str(tmp_path / "no-such-python")
    result = run_install(top / "install.sh", env=environ(tmp_path, PYTHON=missing))
    assert result.returncode == 1
    assert result.stderr.startswith(f"install.sh: error: {missing} not found:")
    assert not (top / ".venv").exists()


def test_refuses_a_checkout_without_lore_pyproject(tmp_path: Path) -> None:
    top = scratch_checkout(tmp_path)
    (top / "pyproject.toml").write_text('[project]\nname = "other"\n', encoding="utf-8")
    result = run_install(top / "install.sh", env=environ(tmp_path))
    assert result.returncode == 1
    assert "does not look like a lore checkout" in result.stderr
    assert not (top / ".venv").exists()


@pytest.mark.parametrize("existing", ["file", "foreign-link"])
def test_never_overwrites_a_lore_it_did_not_install(tmp_path: Path, existing: str) -> None:
    top = scratch_checkout(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    lore = bin_dir / "lore"
    mine = tmp_path / "my-lore"
    mine.write_text("#!/bin/sh\necho mine\n", encoding="utf-8")
    if existing == "file":
        shutil.copy2(mine, lore)
        what = "a file"
    else:
        lore.symlink_to(mine)
        what = f"a link to {mine}"
    result = run_install(top / "install.sh", "--test", env=environ(tmp_path))
    assert result.returncode == 1
    assert result.stderr == (
        f"install.sh: error: {lore} already exists and was not installed by install.sh"
        f" (it is {what}).\n"
        "  Remove it, set LORE_BIN_DIR to another directory, or rerun with --force to"
        " replace it.\n"
    )
    # It failed before any slow step, and left the file as it was.
    assert not (top / ".venv").exists()
    assert lore.is_symlink() == (existing == "foreign-link")
    assert lore.read_text(encoding="utf-8") == "#!/bin/sh\necho mine\n"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("{home}/.local/bin:" + SYSTEM_PATH, "{home}/.local/bin"),
        ("{home}/bin:" + SYSTEM_PATH, "{home}/bin"),
        ("{home}/bin/:{home}/.local/bin/:" + SYSTEM_PATH, "{home}/.local/bin"),
        (SYSTEM_PATH, "{home}/.local/bin"),
    ],
    ids=["local-bin-on-path", "home-bin-on-path", "local-bin-first-choice", "fallback"],
)
def test_bin_dir_choice_without_lore_bin_dir(tmp_path: Path, path: str, expected: str) -> None:
    # The refusal message names the chosen directory, which shows the choice offline.
    top = scratch_checkout(tmp_path)
    home = tmp_path / "home"
    chosen = Path(expected.format(home=home))
    for directory in (home / "bin", home / ".local" / "bin"):
        directory.mkdir(parents=True)
        (directory / "lore").write_text("not ours\n", encoding="utf-8")
    env = environ(tmp_path, LORE_BIN_DIR=None, PATH=path.format(home=home))
    result = run_install(top / "install.sh", env=env)
    assert result.returncode == 1
    assert f"error: {chosen / 'lore'} already exists" in result.stderr


def fake_venv(top: Path) -> Path:
    venv = top / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (venv / "bin" / "lore").write_text("not executable\n", encoding="utf-8")
    return venv


def test_uninstall_removes_only_its_link_and_venv(tmp_path: Path) -> None:
    top = scratch_checkout(tmp_path)
    venv = fake_venv(top)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "lore").symlink_to(venv / "bin" / "lore")
    home_bin = tmp_path / "home" / ".local" / "bin"
    home_bin.mkdir(parents=True)
    other = tmp_path / "other" / ".venv" / "bin" / "lore"
    (home_bin / "lore").symlink_to(other)  # another checkout's install: not ours to remove
    record = tmp_path / "data" / "journal" / "data" / "decisions.jsonl"
    record.parent.mkdir(parents=True)
    record.write_bytes(b'{"id": "dec-0123456789ab"}\n')

    result = run_install(top / "install.sh", "--uninstall", env=environ(tmp_path))

    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"install.sh: removed {bin_dir / 'lore'}",
        f"install.sh: removed {venv}",
        "install.sh: data was not touched",
    ]
    assert not (bin_dir / "lore").is_symlink()
    assert not venv.exists()
    assert os.readlink(home_bin / "lore") == str(other)
    assert record.read_bytes() == b'{"id": "dec-0123456789ab"}\n'

    again = run_install(top / "install.sh", "--uninstall", env=environ(tmp_path))
    assert again.returncode == 0, again.stderr
    assert f"install.sh: no venv at {venv}\n" in again.stderr


def test_uninstall_leaves_a_non_venv_alone(tmp_path: Path) -> None:
    top = scratch_checkout(tmp_path)
    (top / ".venv").mkdir()
    (top / ".venv" / "keep.txt").write_text("mine\n", encoding="utf-8")
    result = run_install(top / "install.sh", "--uninstall", env=environ(tmp_path))
    assert result.returncode == 1
    assert f"error: {top / '.venv'} is not a virtual environment; left alone" in result.stderr
    assert (top / ".venv" / "keep.txt").read_text(encoding="utf-8") == "mine\n"


# ---------------------------------------------------------------- opt-in: a real install


def copy_checkout(dest: Path) -> Path:
    """Tracked and untracked-but-not-ignored files (what a clone plus local edits holds)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # tracked files deleted in the work tree are skipped
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.mark.skipif(
    os.environ.get("LORE_TEST_INSTALL") != "1",
    reason="set LORE_TEST_INSTALL=1 to run install.sh for real (needs the package index)",
)
def test_install_end_to_end_twice(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("needs git to list the checkout's files")
    src = copy_checkout(tmp_path / "src")
    home, bin_dir, data = tmp_path / "home", tmp_path / "bin", tmp_path / "data"
    target = src / ".venv" / "bin" / "lore"
    env = environ(tmp_path)
    # HOME is a scratch dir, so point pip at the real cache: same downloads, much faster.
    env.setdefault("PIP_CACHE_DIR", str(Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "pip"))
    init_py = (src / "lore" / "__init__.py").read_text(encoding="utf-8")
    version = re.search(r'__version__ = "([^"]+)"', init_py)
    assert version
    record = data / "journal" / "data" / "decisions.jsonl"
    record.parent.mkdir(parents=True)
    record.write_text(
        '{"id":"dec-0123456789ab","timestamp":"2026-01-01T00:00:00.000000Z",'
        '"decision":"Keep installs idempotent","v":1}\n',
        encoding="utf-8",
    )
    before = snapshot(data)[str(record.relative_to(data))]

    first = run_install(src / "install.sh", env=env, timeout=600)
    assert first.returncode == 0, first.stderr
    assert f"install.sh: creating venv {src / '.venv'}" in first.stderr
    assert f"install.sh: linked {bin_dir / 'lore'} -> {target}" in first.stderr
    assert f'    export PATH="{bin_dir}:$PATH"\n' in first.stderr  # bin_dir is not on PATH
    assert first.stdout == ""
    stamp = (src / ".venv" / ".lore-install-stamp").stat()
    assert [p.name for p in bin_dir.iterdir()] == ["lore"]
    assert os.readlink(bin_dir / "lore") == str(target)
    for component in COMPONENTS:
        assert (data / component / "data").is_dir(), component
    after_first = snapshot(data)
    assert after_first[str(record.relative_to(data))] == before

    second = run_install(src / "install.sh", env=env, timeout=120)
    assert second.returncode == 0, second.stderr
    assert f"install.sh: reusing venv {src / '.venv'}" in second.stderr
    assert f"install.sh: lore is already installed from {src}: skipping pip" in second.stderr
    assert f"install.sh: {bin_dir / 'lore'} already points to {target}" in second.stderr
    assert (src / ".venv" / ".lore-install-stamp").stat().st_mtime_ns == stamp.st_mtime_ns
    assert [p.name for p in bin_dir.iterdir()] == ["lore"]
    assert [p.name for p in src.iterdir() if p.name.startswith(".venv")] == [".venv"]
    assert snapshot(data) == after_first  # a re-run writes nothing in the data root
    # install.sh never edits shell profiles: it only prints the line to add.
    assert not [n for n in (".bashrc", ".profile", ".zshrc") if (home / n).exists()]

    # The link works from a PATH that knows nothing of the venv.
    plain = {**env, "PATH": f"{bin_dir}:{SYSTEM_PATH}"}
    shown = subprocess.run(["lore", "--version"], env=plain, capture_output=True, text=True)
    assert (shown.returncode, shown.stdout) == (0, f"lore, version {version.group(1)}\n")
    paths = subprocess.run(["lore", "paths", "--json"], env=plain, capture_output=True, text=True)
    assert paths.returncode == 0, paths.stderr
    assert (json.loads(paths.stdout)["root"], json.loads(paths.stdout)["source"]) == (
        str(data),
        "env",
    )
    show = subprocess.run(
        ["lore", "show", "dec-0123456789ab", "--json"], env=plain, capture_output=True, text=True
    )
    assert show.returncode == 0, show.stderr
    assert json.loads(show.stdout)["decision"] == "Keep installs idempotent"

    # Without LORE_BIN_DIR and with nothing usable on PATH: ~/.local/bin plus the hint.
    fallback = run_install(src / "install.sh", env={**env, "LORE_BIN_DIR": ""}, timeout=120)
    assert fallback.returncode == 0, fallback.stderr
    assert os.readlink(home / ".local" / "bin" / "lore") == str(target)
    assert f"install.sh: warning: {home}/.local/bin is not on your PATH." in fallback.stderr
    assert '\n    export PATH="$HOME/.local/bin:$PATH"\n' in fallback.stderr

    removed = run_install(src / "install.sh", "--uninstall", env=env, timeout=60)
    assert removed.returncode == 0, removed.stderr
    assert not (bin_dir / "lore").is_symlink()
    assert not (home / ".local" / "bin" / "lore").is_symlink()
    assert not (src / ".venv").exists()
    assert f"install.sh: data was not touched: it stays in {data}\n" in removed.stderr
    assert snapshot(data) == after_first


def offline_install(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A checkout whose venv already holds lore, so install.sh skips pip (no network).

    The venv borrows this interpreter's packages (pip, click, ...) through a .pth file
    and imports lore from the scratch checkout; the stamp says it is installed there.
    """
    top = tmp_path / name
    top.mkdir()
    shutil.copy2(INSTALL, top / "install.sh")
    shutil.copy2(ROOT / "pyproject.toml", top / "pyproject.toml")
    shutil.copytree(ROOT / "lore", top / "lore", ignore=shutil.ignore_patterns("__pycache__"))
    venv = top / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    borrowed = [p for p in sys.path if p.endswith("site-packages")]
    (site / "borrowed.pth").write_text("\n".join([str(top), *borrowed]) + "\n", encoding="utf-8")
    lore = venv / "bin" / "lore"
    lore.write_text(
        f"#!{venv}/bin/python\nfrom lore.launch import main\nmain()\n", encoding="utf-8"
    )
    lore.chmod(0o755)
    digest = subprocess.run(
        [
            sys.executable,
            "-c",
            "import hashlib, pathlib, sys\n"
            "top = pathlib.Path(sys.argv[1])\n"
            "d = hashlib.sha256((top / 'pyproject.toml').read_bytes())\n"
            "for line in (top / 'lore' / '__init__.py').read_text().splitlines():\n"
            "    if line.startswith('__version__'):\n"
            "        d.update(line.encode())\n"
            "print(d.hexdigest())",
            str(top),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (venv / ".lore-install-stamp").write_text(
        f"checkout={top}\nkey={digest}\nextras=\n", encoding="utf-8"
    )
    return top, lore


def test_never_repoints_another_checkouts_link_without_force(tmp_path: Path) -> None:
    first, first_lore = offline_install(tmp_path, "first")
    second, second_lore = offline_install(tmp_path, "second")
    env = environ(tmp_path)
    link = tmp_path / "bin" / "lore"
    made = run_install(first / "install.sh", env=env)
    assert made.returncode == 0, made.stderr
    assert os.readlink(link) == str(first_lore)

    kept = run_install(second / "install.sh", env=env)
    assert kept.returncode == 0, kept.stderr
    assert os.readlink(link) == str(first_lore)  # the other checkout's link is untouched
    assert (
        f"install.sh: warning: {link} belongs to another checkout ({first_lore}): left as it"
        " is (--force repoints it).\n"
        "install.sh: warning: To use this checkout's lore, add this line to your shell"
        " profile, then open a new shell:\n"
        f'    export PATH="{second / ".venv" / "bin"}:$PATH"\n'
    ) in kept.stderr
    assert "done in" in kept.stderr and f"at {second_lore}\n" in kept.stderr

    forced = run_install(second / "install.sh", "--force", env=env)
    assert forced.returncode == 0, forced.stderr
    assert os.readlink(link) == str(second_lore)
    assert "replacing" in forced.stderr


def test_repoints_a_link_whose_checkout_is_gone(tmp_path: Path) -> None:
    top, lore = offline_install(tmp_path, "live")
    gone = tmp_path / "gone" / ".venv" / "bin" / "lore"
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "lore").symlink_to(gone)
    result = run_install(top / "install.sh", env=environ(tmp_path))
    assert result.returncode == 0, result.stderr
    assert os.readlink(tmp_path / "bin" / "lore") == str(lore)
    assert f"replacing {tmp_path / 'bin' / 'lore'} (it linked to another lore venv: {gone})" in (
        result.stderr
    )


def offline_checkout(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """An offline install that also looks like a real checkout (components/, the contract),
    so the lore it runs knows it runs from a checkout."""
    top, lore = offline_install(tmp_path, name)
    shutil.copy2(ROOT / "LORE_CONTRACT.md", top / "LORE_CONTRACT.md")
    for component in COMPONENTS:
        (top / "components" / component / "data").mkdir(parents=True)
        (top / "components" / component / "data" / ".gitkeep").touch()
    return top, lore


def checkout_files(top: Path) -> list[str]:
    return sorted(str(p.relative_to(top)) for p in (top / "components").rglob("*") if p.is_file())


def test_install_puts_the_data_root_in_the_user_data_home_not_the_checkout(
    tmp_path: Path,
) -> None:
    top, _lore = offline_checkout(tmp_path, "src")
    before = checkout_files(top)
    env = environ(tmp_path, LORE_DATA_DIR=None)
    done = run_install(top / "install.sh", env=env)
    assert done.returncode == 0, done.stderr
    home_root = tmp_path / "home" / ".local" / "share" / "lore"
    for component in COMPONENTS:
        assert (home_root / component / "data").is_dir(), component
    assert f"root: {home_root}  (xdg)" in done.stderr
    assert "warning: the data root" not in done.stderr
    assert checkout_files(top) == before  # nothing was written into the checkout


def test_uninstall_refuses_while_the_data_is_inside_the_checkout_then_moves(
    tmp_path: Path,
) -> None:
    top, lore = offline_checkout(tmp_path, "src")
    log = top / "components" / "journal" / "data" / "decisions.jsonl"
    line = b'{"id":"dec-0123456789ab","timestamp":"2026-01-01T00:00:00.000000Z","decision":"x"}\n'
    log.write_bytes(line)
    env = environ(tmp_path, LORE_DATA_DIR=None)
    home_root = tmp_path / "home" / ".local" / "share" / "lore"

    installed = run_install(top / "install.sh", env=env)
    assert installed.returncode == 0, installed.stderr
    assert (
        f"lore: warning: the data root {top / 'components'} is inside lore's source checkout"
    ) in installed.stderr
    assert not home_root.exists()  # the legacy root keeps working until it is moved

    refused = run_install(top / "install.sh", "--uninstall", env=env)
    assert refused.returncode == 1
    assert refused.stderr.startswith(
        f"install.sh: error: the data root {top / 'components'} is inside this checkout"
    )
    assert f"  Move it first: {lore} paths --move-to ~/.local/share/lore\n" in refused.stderr
    assert lore.exists() and log.read_bytes() == line

    moved = subprocess.run(
        [str(lore), "paths", "--move-to", str(home_root)], env=env, capture_output=True, text=True
    )
    assert moved.returncode == 0, moved.stderr
    assert (home_root / "journal" / "data" / "decisions.jsonl").read_bytes() == line

    removed = run_install(top / "install.sh", "--uninstall", env=env)
    assert removed.returncode == 0, removed.stderr
    assert f"install.sh: data was not touched: it stays in {home_root}\n" in removed.stderr
