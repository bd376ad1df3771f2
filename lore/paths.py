"""Where the data lives: data-root resolution and the per-component layout.

One function decides the root, in the documented order: ``--data-dir``,
``LORE_DATA_DIR``, then the user data home (XDG). A source checkout's ``components/``
is used only when chosen explicitly, or (``legacy``) while it still holds data from
before the user data home was the default and that home does not exist yet.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

COMPONENTS = (
    "journal",
    "patterns",
    "failures",
    "inbox",
    "intent",
    "transfer",
    "registry",
    "evidence",
    "graph",
)


# Left in a root by `lore paths --move-to`: the absolute path its data moved to.
MOVED_MARKER = ".lore-moved"


class DataRoot(NamedTuple):  # not a frozen dataclass: those cost start-up time
    path: Path
    source: str  # "option", "env", "xdg" or "checkout" (legacy data): how it was chosen
    moved_from: Path | None = None  # the root that was asked for, when it was moved here

    def component_dir(self, component: str) -> Path:
        return self.path / component / "data"

    @property
    def local(self) -> Path:
        return local_dir(self.path)

    @property
    def index_file(self) -> Path:
        """The derived search index (``lore.index``), in the local directory."""
        return self.local / "index" / "index.bin"


def checkout_components() -> Path | None:
    """``components/`` of the source checkout this package runs from, if any."""
    top = Path(__file__).resolve().parent.parent
    if (top / "LORE_CONTRACT.md").is_file() and (top / "components").is_dir():
        return top / "components"
    return None


def holds_data(root: Path) -> bool:
    """Whether any component's ``data/`` under ``root`` holds a file lore could have
    written (dot files, a ``.gitkeep`` or a lock, do not count)."""
    for name in COMPONENTS:
        try:
            with os.scandir(root / name / "data") as entries:
                for entry in entries:
                    if entry.name.startswith("."):
                        continue
                    if not entry.is_dir(follow_symlinks=False):
                        return True
                    with os.scandir(entry.path) as inner:
                        if any(not e.name.startswith(".") for e in inner):
                            return True
        except OSError:  # missing, or not a directory
            continue
    return False


def default_root() -> Path:
    """The user data home: ``$XDG_DATA_HOME/lore``, default ``~/.local/share/lore``."""
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg).expanduser().absolute() / "lore"


def moved_to(root: Path) -> Path | None:
    """Where ``root``'s data was moved (``lore paths --move-to``), if it was."""
    try:
        text = (root / MOVED_MARKER).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return Path(text) if text and os.path.isabs(text) else None


def resolve_root(option: str | os.PathLike[str] | None = None) -> DataRoot:
    if option:
        chosen = DataRoot(Path(option).expanduser().absolute(), "option")
    elif os.environ.get("LORE_DATA_DIR"):
        chosen = DataRoot(Path(os.environ["LORE_DATA_DIR"]).expanduser().absolute(), "env")
    else:
        home = default_root()
        chosen = DataRoot(home, "xdg")
        if not home.exists():
            # Before the user data home was the default, a checkout's lore wrote into
            # the checkout. Such data keeps being used (with a warning on every
            # command: the checkout ignores it, so `git clean -xdf` would erase it)
            # until it is moved.
            checkout = checkout_components()
            if checkout is not None and holds_data(checkout):
                chosen = DataRoot(checkout, "checkout")
    # A root that was moved away is followed to its new place (one hop), so a hook or a
    # profile still naming the old path keeps writing where the data now lives.
    target = moved_to(chosen.path)
    if target is not None:
        return DataRoot(target, chosen.source, chosen.path)
    return chosen


def local_dir(root: Path) -> Path:
    """Machine-local, derived and disposable files for ``root`` (index, open session).

    Kept outside the data root (``$LORE_CACHE_DIR`` or ``$XDG_CACHE_HOME/lore``,
    default ``~/.cache/lore``), one folder per root, so nothing lore derives or
    remembers about this machine can ever show up in the data root's git status.
    """
    environ = os.environ
    # (asked for many times a call in a long-lived process: kept per root and setting,
    # and per working folder, which a relative setting depends on)
    try:
        here: str | None = os.getcwd()
    except OSError:  # a working folder that is gone: worked out (and refused) below
        here = None
    key = (root, environ.get("LORE_CACHE_DIR"), environ.get("XDG_CACHE_HOME"),
           environ.get("HOME"), here)  # fmt: skip
    found = _LOCAL.get(key)
    if found is not None:
        return found
    try:
        # The C module behind hashlib.sha1: hashlib itself loads OpenSSL, which costs
        # a capture (the open-session pointer lives here) several milliseconds.
        from _sha1 import sha1
    except ImportError:  # an interpreter without it
        from hashlib import sha1

    base = environ.get("LORE_CACHE_DIR")
    if not base:
        xdg = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        base = str(Path(xdg) / "lore")
    digest = sha1(str(root).encode("utf-8")).hexdigest()[:12]
    found = Path(base).expanduser().absolute() / f"{root.name or 'root'}-{digest}"
    if here is not None:
        if len(_LOCAL) > 64:
            _LOCAL.clear()
        _LOCAL[key] = found
    return found


_LOCAL: dict[tuple[Any, ...], Path] = {}  # local_dir's answers
