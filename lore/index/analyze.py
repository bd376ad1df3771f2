"""Text analysis shared by the index and everything that compares text: words (camelCase
split), stop words, stemming (Snowball through PyStemmer, else ``light_stem``), index terms
and the normalized form the near-duplicate check compares. Pure; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

TITLE_WEIGHT = 3  # an integer: weighted term counts stay integers in the index

# English stop words, plus question boilerplate ("which X do we use?", "why did we choose
# X?", "what did we decide about X?"): words that say nothing about the topic.
_STOP_WORDS_TEXT = """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing done down during each few
    for from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just me more most my myself no nor not now of off on once only
    or other our ours ourselves out over own same she should so some such than that the
    their theirs them themselves then there these they this those through to too under
    until up very was we were what when where which while who whom why will with would you
    your yours yourself yourselves also ever get got let may might must shall us via vs
    use uses used using choose chose chosen choosing pick picked decide decided deciding
"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())

WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_VOWELS = frozenset("aeiouy")

# (suffix, replacement), longest first; applied once, after the plural step.
_SUFFIXES = (
    ("ational", "ate"),
    ("ization", "ize"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("iveness", "ive"),
    ("ation", "ate"),
    ("ingly", ""),
    ("ness", ""),
    ("ment", ""),
    ("edly", ""),
    ("ily", "y"),
    ("ing", ""),
    ("ied", "y"),
    ("ly", ""),
    ("ed", ""),
)

_stem_cache: dict[str, str] = {}

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def normalize(text: str) -> str:
    """A title as the near-duplicate check compares it: case-folded words, one space
    apart (punctuation and underscores are spaces)."""
    return _NON_WORD.sub(" ", text.casefold()).strip()


def _has_vowel(text: str) -> bool:
    return any(c in _VOWELS for c in text)


_snowball: Any = None  # Snowball's English stemmer (PyStemmer), once looked for; False: absent


def stemmer() -> str:
    """Which stemmer ``stem`` uses: ``"snowball"`` (PyStemmer installed) or ``"light"``
    (the pure-Python fallback). The index records it: a change means a rebuild."""
    global _snowball
    if _snowball is None:
        try:
            import Stemmer  # type: ignore[import-not-found,unused-ignore]

            _snowball = Stemmer.Stemmer("english").stemWord
        except ImportError:
            _snowball = False
    return "snowball" if _snowball else "light"


def stem(word: str) -> str:
    """A word's stem: Snowball's English stemmer when PyStemmer is installed, else
    ``light_stem``. Words of three letters or fewer, and anything with digits, stay."""
    cached = _stem_cache.get(word)
    if cached is not None:
        return cached
    if _snowball is None:
        stemmer()
    if _snowball and len(word) > 3 and word.isalpha():
        w = _snowball(word)
        if w.endswith("s") and not w.endswith("ss") and not _has_vowel(w[:-1]):
            w = w[:-1]  # an acronym's plural (JWTs, SDKs), which Snowball keeps
    else:
        w = light_stem(word)
    if len(_stem_cache) < 200_000:
        _stem_cache[word] = w
    return w


def stems(words: Iterable[str]) -> list[str]:
    """``stem`` of each of ``words``, in order (the ones stemmed before looked up in C)."""
    words = list(words)
    found = list(map(_stem_cache.get, words))
    if None in found:
        found = [s if s is not None else stem(w) for s, w in zip(found, words, strict=True)]
    return found  # type: ignore[return-value]


def light_stem(word: str) -> str:
    """A light Porter-like stemmer: plurals, -ing/-ed/-ly/-ation/-ness/-ment, final -e.

    ``caching``, ``cached``, ``caches`` and ``cache`` all become ``cach``; words of three
    letters or fewer, and anything with digits, are left alone.
    """
    w = word
    if len(w) > 3 and w.isalpha():
        if w.endswith("ies") and len(w) > 4:
            w = w[:-3] + "y"
        elif w.endswith("sses"):
            w = w[:-2]
        elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        for suffix, replacement in _SUFFIXES:
            if w.endswith(suffix):
                base = w[: -len(suffix)]
                if len(base) >= 3 and _has_vowel(base):
                    w = base + replacement
                    if suffix in ("ing", "ed", "edly", "ingly") and _undouble(w):
                        w = w[:-1]
                break
        if w.endswith("e") and len(w) > 3:
            w = w[:-1]
    return w


def _undouble(w: str) -> bool:
    """``running`` -> ``runn`` -> ``run``; but ``stall``, ``pass``, ``buzz`` keep theirs."""
    return len(w) >= 3 and w[-1] == w[-2] and w[-1] not in "lsz" and w[-1] not in _VOWELS


def words(text: str) -> list[str]:
    """Lower-cased words; a camelCase identifier also yields its parts."""
    out: list[str] = []
    for token in WORD.findall(text):
        lower = token.lower()
        out.append(lower)
        if lower != token and not token[1:].islower() and token != token.upper():
            parts = _CAMEL.findall(token)
            if len(parts) > 1:
                out.extend(p.lower() for p in parts)
    return out


_term_cache: dict[str, str] = {}


def terms(text: str) -> list[str]:
    """Index terms of ``text``: words minus stop words, stemmed (repeats kept)."""
    out = []
    cache = _term_cache
    for word in words(text):
        term = cache.get(word)
        if term is None:
            term = "" if len(word) < 2 or word in STOP_WORDS else stem(word)
            if len(cache) < 200_000:
                cache[word] = term
        if term:
            out.append(term)
    return out


def query_terms(query: str) -> list[str]:
    """The distinct terms of a query, in order."""
    seen: dict[str, None] = {}
    for term in terms(query):
        seen.setdefault(term, None)
    return list(seen)
