"""What kind of process this is: the ``lore`` console script (or a command server's worker,
which stands in for it), which ends after one command, or a long-lived caller (``lore mcp``,
``lore ui``, tests, a program using lore as a library). A one-shot process may skip work
that only pays off later in the same process, and may start lore's background daemons.
"""

from __future__ import annotations

_ONE_SHOT: list[bool] = []


def mark_one_shot() -> None:
    """Called by the console script (``lore.launch``) and a command server's worker."""
    if not _ONE_SHOT:
        _ONE_SHOT.append(True)


def one_shot() -> bool:
    """True in a process that ends after this one command."""
    return bool(_ONE_SHOT)
