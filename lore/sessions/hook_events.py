"""The agent hook events lore answers: their names as Claude Code spells them
(``SessionStart``) and as lore's commands do (``session-start``), and the tool matcher
each is installed with. Names are normalized here and nowhere else."""

from __future__ import annotations

from typing import NamedTuple


class HookEvent(NamedTuple):
    claude: str  # Claude Code's name for the event (hooks settings key, hookEventName)
    name: str  # lore's name: ``lore hooks run <name>``
    matcher: str | None  # the tools a tool event is installed for (None: no matcher)
    does: str  # what lore does on it (``lore hooks install --help``, the docs)


# In the order a session meets them; ``lore hooks install`` writes them in this order.
EVENTS: tuple[HookEvent, ...] = (
    HookEvent("SessionStart", "session-start", None, "injects `lore resume` as context"),
    HookEvent(
        "UserPromptSubmit",
        "user-prompt-submit",
        None,
        "injects the memories relevant to the prompt (ids, once per session)",
    ),
    HookEvent(
        "PostToolUse",
        "post-tool-use",
        "Bash",
        "records a shell command's failure when the result carries one",
    ),
    HookEvent(
        "PostToolUseFailure",
        "post-tool-use-failure",
        "Bash",
        "records the failed command; at a type's third failure, the Rule of Three",
    ),
    HookEvent(
        "PreCompact",
        "pre-compact",
        None,
        "writes an automatic handoff and ingests the transcript from its watermark",
    ),
    HookEvent("Stop", "stop", None, "ingests the transcript from its watermark"),
    HookEvent(
        "SessionEnd",
        "session-end",
        None,
        "writes an automatic handoff and ingests the transcript from its watermark",
    ),
)
BY_NAME = {e.name: e for e in EVENTS}
NAMES = tuple(e.name for e in EVENTS)


def _squash(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


_SQUASHED = {_squash(e.name): e for e in EVENTS}


def normalize(name: str | None) -> HookEvent | None:
    """The event ``name`` means, written either way (``SessionStart``, ``session-start``;
    letter case, ``-`` and ``_`` do not matter), or None for an event lore does not answer."""
    if not isinstance(name, str):
        return None
    return _SQUASHED.get(_squash(name))
