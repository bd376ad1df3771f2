"""journal: why did we choose this? Decisions, in ``journal/data/decisions.jsonl``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from lore.model import Kind, Log, Record, ref, register, text, texts

OUTCOMES = ("pending", "successful", "revised", "abandoned")
TYPES = (
    "architecture",
    "implementation",
    "naming",
    "tooling",
    "process",
    "bugfix",
    "refactor",
    "other",
)
STATUSES = ("active", "retracted", "superseded", "archived")


@register
@dataclass(kw_only=True, eq=False, repr=False)  # Record defines both, once
class Decision(Record):
    KIND = Kind(
        "decision",
        "dec",
        "journal",
        Log("decisions.jsonl"),
        title="decision",
        search=("decision", "rationale", "alternatives", "lesson_learned", "entities", "tags"),
    )
    DIVERGENT = ("outcome", "status", "type", "pinned")

    decision: str = text(required=True)
    rationale: str = ""
    alternatives: list[str] = texts()
    outcome: str = text("pending", choices=OUTCOMES)
    type: str = text("other", choices=TYPES)
    entities: list[str] = texts()
    files: list[str] = texts()
    lesson_learned: str = ""
    related_decisions: list[str] = texts(ref="decision")
    git_commit: str | None = None
    status: str = text("active", choices=STATUSES)
    superseded_by: str | None = ref("decision")
    spec_quality: float = 0.0
    supersedes: list[str] = texts(ref="decision")
    contradicts: list[str] = texts(ref="decision")
    derived_from: str | None = ref("observation")


# A decision's completeness: what a later reader needs to trust and reuse it.
SPEC_QUALITY_WEIGHTS = {
    "rationale": 0.30,  # why it was chosen
    "alternatives": 0.20,  # what else was considered
    "entities": 0.15,  # what it touches (files, components, terms)
    "type": 0.10,  # classified (anything but "other")
    "tags": 0.10,  # tagged beyond the project name
    "detail": 0.15,  # the decision itself is a full sentence (>= 6 words)
}


def spec_quality(decision: Decision) -> float:
    """A 0-1 completeness score; weights in ``SPEC_QUALITY_WEIGHTS`` (documented)."""
    w = SPEC_QUALITY_WEIGHTS
    score = 0.0
    if decision.rationale.strip():
        score += w["rationale"]
    if decision.alternatives:
        score += w["alternatives"]
    if decision.entities:
        score += w["entities"]
    if decision.type != "other":
        score += w["type"]
    if [t for t in decision.tags if t != decision.project]:
        score += w["tags"]
    if len(decision.decision.split()) >= 6:
        score += w["detail"]
    return round(score, 2)


# A marker's value may hold bracketed words itself ("[because: p99 [ms] matters]").
_BRACKETED = re.compile(
    r"[ \t]*\[\s*(because|vs)\s*:\s*((?:[^\[\]]|\[[^\[\]]*\])*)\][ \t]*", re.IGNORECASE
)


def parse_inline(sentence: str) -> tuple[str, str, list[str]]:
    """Split ``"X because: why vs: a, b"`` into (decision, rationale, alternatives).

    Either marker may be absent and they may come in either order; each may also be
    bracketed (``X [because: why] [vs: a, b]``), mixed with the bare form in any order.
    """
    found: dict[str, str] = {}

    def take(match: re.Match[str]) -> str:
        found.setdefault(match.group(1).lower(), match.group(2).strip())
        return " "

    rest = _BRACKETED.sub(take, sentence)
    if found:  # where two bracketed markers stood side by side
        rest = re.sub(r"[ \t]{2,}", " ", rest)
    parts = re.split(r"\s*\b(because|vs):\s*", rest, flags=re.IGNORECASE)
    decision = parts[0]
    for marker, value in zip(parts[1::2], parts[2::2]):
        found.setdefault(marker.lower(), value.strip())
    rationale = found.get("because", "")
    alternatives = [a.strip() for a in found.get("vs", "").split(",") if a.strip()]
    return decision.strip(), rationale, alternatives


_BACKTICKED = re.compile(r"`([^`\n]{1,200})`")
_EXTENSIONS = (
    "py|pyi|js|jsx|ts|tsx|mjs|cjs|json|jsonl|yaml|yml|toml|ini|cfg|md|rst|txt|sh|bash|zsh|"
    "rs|go|c|h|cc|cpp|hpp|java|kt|rb|php|cs|swift|sql|html|css|scss|lock|env|conf|xml|proto"
)
_PATH_PATTERN = (
    r"(?<![\w/.:@-])"  # not inside a word, URL or e-mail
    r"((?:\.{1,2}/|~/)(?:[\w.-]+/)*[\w.-]+/?"  # ./x, ../x, ~/y: even one name is a path
    r"|/?(?:[\w.-]+/)+[\w.-]+/?"  # or something/with/slashes (not "[/red]")
    rf"|[\w-][\w.-]*\.(?:{_EXTENSIONS}))"  # or a bare file name with a known extension
    r"(?![\w/])"
)


def compile_patterns() -> None:
    """Compile the patterns compiled on first use (for ``lore.cmdserver``, once for all)."""
    _path_re()


@lru_cache(maxsize=1)
def _path_re() -> re.Pattern[str]:
    # Compiled on first use: only capturing a decision needs it, and compiling it costs
    # about a millisecond on every command that merely reads decisions.
    return re.compile(_PATH_PATTERN)


def extract_entities(sentence: str) -> list[str]:
    """File paths and `backticked` terms mentioned in a decision, in order, de-duplicated."""
    found: list[str] = []
    for match in _BACKTICKED.finditer(sentence):
        found.append(match.group(1).strip())
    without_ticks = _BACKTICKED.sub(" ", sentence)
    for match in _path_re().finditer(without_ticks):
        candidate = match.group(1).rstrip(".,;:)")
        if "://" in candidate or (candidate.count("/") == 0 and "." not in candidate):
            continue
        if re.fullmatch(r"[\d./-]+", candidate):  # dates, versions, fractions
            continue
        found.append(candidate)
    return unique([f for f in found if f])


def unique(items: list[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


# --- the rules of a decision's life (journal commands; lore.journal applies them) -------

CONTRADICTION_MIN_SHARED = 2  # entities a new decision must share with an active one


def shared_entities(a: list[str], b: list[str]) -> list[str]:
    """The entities of ``a`` that ``b`` also names (case-insensitive), in ``a``'s order."""
    theirs = {e.lower() for e in b if isinstance(e, str)}
    return unique([e for e in a if isinstance(e, str) and e.lower() in theirs])


def check_choice(name: str, value: str | None, allowed: tuple[str, ...]) -> str | None:
    """``value`` normalized (stripped, lower-case) if it is one of ``allowed``; else refused."""
    if value is None:
        return None
    from lore.errors import InvalidInputError

    cleaned = value.strip().lower()
    if cleaned not in allowed:
        raise InvalidInputError(
            f"decision {name} must be one of {', '.join(allowed)} (got {value!r})", field=name
        )
    return cleaned


def update_changes(
    state: dict[str, object],
    *,
    outcome: str | None = None,
    rationale: str | None = None,
    lesson: str | None = None,
    tags: list[str] | None = None,
    type: str | None = None,
    files: list[str] | None = None,
    add_files: list[str] | None = None,
) -> dict[str, object]:
    """The fields an update changes (only those that differ from ``state``). ``files``
    replaces the files and ``add_files`` adds to them; every file given also joins the
    entities, as at capture (an update never removes an entity)."""
    wanted: dict[str, object] = {}
    if outcome is not None:
        wanted["outcome"] = check_choice("outcome", outcome, OUTCOMES)
    if type is not None:
        wanted["type"] = check_choice("type", type, TYPES)
    if rationale is not None:
        wanted["rationale"] = rationale.strip()
    if lesson is not None:
        wanted["lesson_learned"] = lesson.strip()
    if tags is not None:
        wanted["tags"] = tags
    if files is not None or add_files:
        base = files if files is not None else _strings(state.get("files"))
        wanted["files"] = unique([*base, *(add_files or [])])
        given = [*(files or []), *(add_files or [])]
        wanted["entities"] = unique([*_strings(state.get("entities")), *given])
    return {k: v for k, v in wanted.items() if state.get(k) != v}


def _strings(value: object) -> list[str]:
    """The strings of a stored list (a hand edit may have left anything there)."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def with_link(ids: object, other: str) -> list[str] | None:
    """``ids`` plus ``other``, or None when it is already there (linking is idempotent)."""
    current = [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
    return None if other in current else [*current, other]
