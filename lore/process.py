"""What kind of process this is: the ``lore`` console script (or a command server's worker,
which stands in for it), which ends after one command, or a long-lived caller (``lore mcp``,
``lore ui``, tests, a program using lore as a library). A one-shot process may skip work
that only pays off later in the same process, and may start lore's background daemons
(``spawn_detached``). ``LongLived`` keeps the collector out of a start-up's way.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # (True for type checkers; importing typing costs the console script 5 ms)

if TYPE_CHECKING:
    from typing import Any

GEN0_THRESHOLD = 50_000  # allocations between young collections (CPython's default: 700)
_ONE_SHOT: list[bool] = []


def mark_one_shot() -> None:
    """Called by the console script (``lore.launch``) and a command server's worker."""
    if not _ONE_SHOT:
        _ONE_SHOT.append(True)


def mark_long_lived() -> None:
    """Called by the servers the console script runs (``lore mcp``, ``lore ui``): this
    process answers many calls, so work that pays off later in it is worth doing."""
    _ONE_SHOT.clear()


def one_shot() -> bool:
    """True in a process that ends after this one command."""
    return bool(_ONE_SHOT)


class LongLived:
    """``with LongLived():`` the block makes objects that live as long as the process (the
    modules a command imports, what a server holds). Collecting while they are made frees
    nothing, and every later full collection would scan them again: the collector is off
    during the block, its objects are then frozen out of its sight (``gc.freeze``), and it
    collects the youngest generation every GEN0_THRESHOLD allocations. Cyclic garbage is
    still collected."""

    def __enter__(self) -> None:
        import gc

        gc.disable()

    def __exit__(self, *exc: Any) -> None:
        import gc

        gc.freeze()
        gc.set_threshold(GEN0_THRESHOLD, 50, 100)
        gc.enable()


def spawn_detached(argv: list[str]) -> bool:
    """Start ``argv`` in the background with this environment: a new session, no terminal,
    its standard streams on /dev/null. False when it could not be started."""
    null = os.devnull
    try:
        os.posix_spawn(
            argv[0],
            argv,
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0),
            ],
            setsid=True,
        )
    except (OSError, AttributeError, NotImplementedError):
        return False
    return True
