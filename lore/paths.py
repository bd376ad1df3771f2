"""Where the data lives: data-root resolution and the per-component layout.

One function decides the root, in the documented order: ``--data-dir``,
``LORE_DATA_DIR``, the source checkout's ``components/``, then XDG.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

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


class DataRoot(NamedTuple):  # not a frozen dataclass: those cost start-up time
    path: Path
    source: str  # "option", "env", "checkout" or "xdg": how it was chosen

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


def resolve_root(option: str | os.PathLike[str] | None = None) -> DataRoot:
    if option:
        return DataRoot(Path(option).expanduser().absolute(), "option")
    env = os.environ.get("LORE_DATA_DIR")
    if env:
        return DataRoot(Path(env).expanduser().absolute(), "env")
    checkout = checkout_components()
    if checkout is not None:
        return DataRoot(checkout, "checkout")
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return DataRoot(Path(xdg).expanduser().absolute() / "lore", "xdg")


def local_dir(root: Path) -> Path:
    """Machine-local, derived and disposable files for ``root`` (index, open session).

    Kept outside the data root (``$LORE_CACHE_DIR`` or ``$XDG_CACHE_HOME/lore``,
    default ``~/.cache/lore``), one folder per root, so nothing lore derives or
    remembers about this machine can ever show up in the data root's git status.
    """
    try:
        # The C module behind hashlib.sha1: hashlib itself loads OpenSSL, which costs
        # a capture (the open-session pointer lives here) several milliseconds.
        from _sha1 import sha1
    except ImportError:  # an interpreter without it
        from hashlib import sha1

    base = os.environ.get("LORE_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        base = str(Path(xdg) / "lore")
    digest = sha1(str(root).encode("utf-8")).hexdigest()[:12]
    return Path(base).expanduser().absolute() / f"{root.name or 'root'}-{digest}"
