"""The agent hook events lore answers: their names as Claude Code spells them
(``SessionStart``) and as lore's commands do (``session-start``), the names Codex CLI and
Gemini CLI give the same moments, and the tool matcher each is installed with. Names are
normalized here and nowhere else. Also how long a hook may take (``hook_seconds``)."""

from __future__ import annotations

import os
from typing import NamedTuple

HOOK_SECONDS = 0.9  # a hook's deadline, unless LORE_HOOK_SECONDS says otherwise


def hook_seconds() -> float:
    """How long a hook may run before it gives up (fails open): ``LORE_HOOK_SECONDS`` when
    it is a positive number of seconds, else HOOK_SECONDS."""
    try:
        seconds = float(os.environ.get("LORE_HOOK_SECONDS") or HOOK_SECONDS)
    except ValueError:
        return HOOK_SECONDS
    return seconds if 0 < seconds < float("inf") else HOOK_SECONDS


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


class AgentHooks(NamedTuple):
    """How one agent takes hooks: its settings file's events (agent's name, lore's event,
    tool matcher) and the unit of its ``timeout``."""

    events: tuple[tuple[str, str, str | None], ...]
    timeout: int  # lore's hooks answer within about a second; this is the agent's limit
    named: bool  # hook entries carry a "name" (Gemini CLI: /hooks enable|disable NAME)


# Codex CLI: developers.openai.com/codex/hooks (Claude Code's wire format; no SessionEnd,
# no PostToolUseFailure: PostToolUse carries a failed command's result). Gemini CLI:
# geminicli.com/docs/hooks (its own names, timeouts in milliseconds, shell tool
# run_shell_command).
AGENTS: dict[str, AgentHooks] = {
    "claude": AgentHooks(tuple((e.claude, e.name, e.matcher) for e in EVENTS), 10, False),
    "codex": AgentHooks(
        (
            ("SessionStart", "session-start", None),
            ("UserPromptSubmit", "user-prompt-submit", None),
            ("PostToolUse", "post-tool-use", "Bash"),
            ("PreCompact", "pre-compact", None),
            ("Stop", "stop", None),
        ),
        10,
        False,
    ),
    "gemini": AgentHooks(
        (
            ("SessionStart", "session-start", None),
            ("BeforeAgent", "user-prompt-submit", None),
            ("AfterTool", "post-tool-use", "run_shell_command"),
            ("PreCompress", "pre-compact", None),
            ("AfterAgent", "stop", None),
            ("SessionEnd", "session-end", None),
        ),
        10_000,
        True,
    ),
}


def _squash(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


_SQUASHED = {_squash(e.name): e for e in EVENTS}
for _agent in AGENTS.values():
    for _theirs, _ours, _ in _agent.events:
        _SQUASHED.setdefault(_squash(_theirs), BY_NAME[_ours])


def normalize(name: str | None) -> HookEvent | None:
    """The event ``name`` means, written any way (``SessionStart``, ``session-start``;
    Codex's names, Gemini CLI's ``BeforeAgent``, ``AfterTool``...; letter case, ``-`` and
    ``_`` do not matter), or None for an event lore does not answer."""
    if not isinstance(name, str):
        return None
    return _SQUASHED.get(_squash(name))
