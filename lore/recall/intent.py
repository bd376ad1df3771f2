"""What a question asks for beyond its words: the kinds of record it names ("what failed",
"decisions in november", "which patterns"). Pure: the caller says which kinds the store
holds. The time words of a question are ``lore.timeexpr``'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# A word of a question -> the kind it asks for. Plural nouns and verbs that only a kind of
# record answers; singular nouns that are also everyday words ("session", "pattern",
# "goal", "evidence") are left out, so "how do we store the session" stays a search.
KIND_WORDS = {
    "decision": "decision",
    "decisions": "decision",
    "decide": "decision",
    "decided": "decision",
    "failure": "failure",
    "failures": "failure",
    "fail": "failure",
    "fails": "failure",
    "failed": "failure",
    "failing": "failure",
    "broke": "failure",
    "broken": "failure",
    "crash": "failure",
    "crashed": "failure",
    "crashes": "failure",
    "patterns": "pattern",
    "anti-patterns": "anti-pattern",
    "antipatterns": "anti-pattern",
    "pitfalls": "anti-pattern",
    "observations": "observation",
    "goals": "goal",
    "sessions": "session",
    "handoffs": "session",
    "concepts": "concept",
}
_WORD = re.compile(r"(?<![\w-])([A-Za-z][A-Za-z-]*[A-Za-z])(?![\w-])")


def kinds_in(query: str, holds: Callable[[str], bool]) -> tuple[list[str], str]:
    """The kinds ``query`` names (``KIND_WORDS``), in the order it names them, and the query
    without those words. A word naming a kind the store does not hold (``holds(kind)``
    false: no live record of it) stays an ordinary word: "why did she decide to move"
    asked of a store of observations searches for "decide"."""
    kinds: list[str] = []
    spans: list[tuple[int, int]] = []
    for match in _WORD.finditer(query):
        kind = KIND_WORDS.get(match.group(1).lower())
        if kind is None or not holds(kind):
            continue
        spans.append(match.span())
        if kind not in kinds:
            kinds.append(kind)
    if not spans:
        return [], query
    rest, at = [], 0
    for start, end in spans:
        rest.append(query[at:start])
        at = end
    rest.append(query[at:])
    return kinds, " ".join("".join(rest).split())


def plural(kind: str) -> str:
    """A kind as a question names it: ``failures``, ``evidence``."""
    return kind if kind == "evidence" else f"{kind}s"
