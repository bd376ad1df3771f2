"""What the secrets detectors share: the placeholder policy (what is clearly not a
credential), the detector shape (a literal-prefixed pattern plus a judge), and the token
format row (``Token``) with the builder that turns rows into detectors.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

# --- placeholder policy -----------------------------------------------------------------


class Lazy:
    """A regex compiled on first use: most captures never trip most rules, and compiling
    every rule at import would cost each ``lore capture`` several milliseconds."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
        return getattr(compiled, name)


_MADE: list[Lazy] = []  # every lazy pattern made, for compile_all


def lazy(pattern: str, flags: int = 0) -> Any:
    made = Lazy(pattern, flags)
    _MADE.append(made)
    return made


def compile_all() -> None:
    """Compile every lazy pattern made so far: for a long-lived process that forks the
    commands it runs (``lore.cmdserver``), where compiling once serves every command."""
    for made in _MADE:
        made.search  # noqa: B018 - the attribute compiles it


_MIN_VALUE_LEN = 6
_MIN_LOOSE_LEN = 8  # unquoted after "key:", where prose is common
_TRAILING_PUNCT = ".,:;!?"
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
_LETTER = lazy(r"[^\W\d_]")
_DIGIT_OR_SYMBOL = lazy(r"[\d!@#$%^&*+=~?|\\]")
_MASK_CHARS = frozenset("*xX#._-•· ")

# Whole values (lowercased, only letters and digits kept) that are words, not credentials.
_PLACEHOLDER_WORDS = frozenset(
    """
    changeme changeit example placeholder password passwd passphrase secret secrets token
    apikey apitoken accesstoken authtoken secretkey clientsecret privatekey credentials
    dummy redacted hidden masked none null nil undefined true false empty blank default
    string required optional notset unset sample test testing foobar todo tbd fixme
    mypassword mysecret mytoken myapikey secretpassword
    """.split()  # noqa: SIM905 - a word list reads better as words
)
# Fragments that mark a value as a documentation stand-in.
_PLACEHOLDER_PARTS = ("changeme", "example", "placeholder", "redacted", "dummy", "replaceme")
# ...and a fixed-format token (AKIAIOSFODNN7EXAMPLE, T00000000/B00000000/XXXXXXXX).
_FAKE_TOKEN_PARTS = (*_PLACEHOLDER_PARTS, "xxxxx", "00000")
# An identifier holding one of these names a credential rather than being one.
_CREDENTIAL_WORDS = ("pass", "pwd", "pw", "secret", "token", "key", "cred", "auth")

_TEMPLATE = lazy(r"\$\{|\$\(|\{\{|\{%|%\(|#\{")  # ${VAR} $(cmd) {{ var }} %(x)s #{x}
# A value that refers to a credential kept elsewhere, or stands in for one.
_REFERENCE = lazy(
    r"""
      [A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*[ \t]*[(\[]   # a call or index: getenv(  ENV[
    | [a-z_]+(?:\.[A-Za-z_$][\w$]*)+\Z                    # settings.X  process.env.X
    | [A-Za-z][A-Za-z0-9+.\-]*://                         # a URL (see url-credentials)
    | (?:~|\.{1,2})?/[\w.\-/]+\Z                          # a file path: /run/secrets/db
    | [*&!][\w.-]+\Z                                       # YAML *alias &anchor !vault
    | (?:<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\}|%[A-Za-z_]\w*%|\$[A-Za-z_]\w*|%[sd])\Z
                                  # <your-key>  [REDACTED]  {name}  %VAR%  $VAR  %s
    """,
    re.VERBOSE,
)
_IDENTIFIER = lazy(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = lazy(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")  # Config.DB_PASSWORD, ASLLexer.PASS
_KEBAB = lazy(r"[a-z]+(?:-[a-z]+)+")
_VARIABLE = lazy(r"[a-z]+(?:_[a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+")  # user_input  newPassword
_NON_ALNUM = lazy(r"[\W_]+")
_SPACE = lazy(r"\s")


def fake_token(token: str) -> bool:
    """A fixed-format token that is a documented stand-in, not a live credential."""
    low = token.lower()
    return any(part in low for part in _FAKE_TOKEN_PARTS)


def is_placeholder(value: str, *, bare: bool = False, loose: bool = False) -> bool:
    """True when an assigned ``value`` is not a real credential.

    ``bare``: the value was unquoted, so a plain variable name (``user_input``,
    ``newPassword``) is code, not a literal. ``loose``: unquoted after ``key:``, where
    prose is common ("password: changed monthly"), so it must also look like a
    credential: 8+ characters, a letter, and a digit or symbol.
    """
    if len(value) < _MIN_VALUE_LEN or _REFERENCE.match(value) or _TEMPLATE.search(value):
        return True
    if bare and (_VARIABLE.fullmatch(value) or _DOTTED.fullmatch(value) or value[0] in "([{"):
        return True  # user_input, ASLLexer.PASS, (client_id, ...): code, not a literal
    chars = set(value)
    if chars <= _MASK_CHARS or len(chars) == 1:
        return True  # ******  xxxxxxxx  aaaaaaaa
    low = value.lower()
    if "_" in value and _IDENTIFIER.fullmatch(value) and any(w in low for w in _CREDENTIAL_WORDS):
        return True  # a variable or environment variable name: new_password, GITHUB_TOKEN
    word = _NON_ALNUM.sub("", low) if len(low) <= 64 else low  # placeholders are short
    if word in _PLACEHOLDER_WORDS or word.startswith("your"):
        return True
    if any(part in word for part in _PLACEHOLDER_PARTS):
        return True
    if _KEBAB.fullmatch(value):
        return True  # "no-password-required": words, not a secret
    if _SPACE.search(value):
        words = value.split()
        if sum(w.isalpha() for w in words) * 2 > len(words):
            return True  # mostly words: "GitHub token", "rotated by the deploy job"
    # Prose after a colon: "password: self-service reset", "token: SHA-256".
    return loose and (
        len(value) < _MIN_LOOSE_LEN
        or not _LETTER.search(value)
        or not _DIGIT_OR_SYMBOL.search(value)
    )


# --- detectors --------------------------------------------------------------------------

ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
ALNUM_CLASS = "[A-Za-z0-9]"
WORD_CLASS = "[A-Za-z0-9_]"
TOKEN_CLASS = "[A-Za-z0-9_-]"
TRIGGER_LIMIT = 4096  # longer texts skip the substring pre-check (see _hits)
DENSE_RUN = 16  # the shortest token a dense detector finds

Hit = tuple[int, int, str]  # (start, end, rule id) of the secret itself
Accept = Callable[[re.Match[str], str], Hit | None]


class Detector:
    """A kind of credential's patterns, the substrings any match needs, and its judge.

    (A plain class, not a NamedTuple: making a NamedTuple class costs every capture a
    quarter of a millisecond at start-up.)
    """

    __slots__ = ("accept", "context", "dense", "lower", "patterns", "triggers")

    def __init__(
        self,
        patterns: tuple[re.Pattern[str], ...],
        triggers: tuple[str, ...],
        accept: Accept,
        *,
        lower: bool = False,
        context: tuple[str, ...] = (),
        dense: bool = False,
    ) -> None:
        self.patterns = patterns  # most start with a literal: fast to search
        self.triggers = triggers  # no pattern can match unless one of these is in the text
        self.accept = accept  # the secret in a match, or None for a placeholder
        self.lower = lower  # patterns and triggers run on the lowercased text
        # Words (lower case) one of which the text must hold, however long it is: for
        # shapes too plain to tell apart alone ("key-<hex>" is a Mailgun key only near
        # "mailgun").
        self.context = context
        # Every match (and so every trigger) lies inside a run of DENSE_RUN or more
        # characters without whitespace: a token, a URL. Prose has few such runs, so
        # the triggers of dense detectors are looked for in those runs only.
        self.dense = dense


# --- token formats ----------------------------------------------------------------------


class Token:
    """One token format: ``prefix`` (a literal, searched for fast) then ``rest``.

    A ``before`` character may not precede the token and an ``end`` character may not
    follow it. ``back`` is a fixed-width pattern (``back_width`` characters) the token
    starts with *before* the literal, for formats whose constant part sits in the middle
    (``<14>.atlasv1.<64>``). ``triggers``: the substrings whose absence rules the row out
    (default: the prefix). ``judge``: a last look at the whole token (False: not a
    credential). ``context``: see ``Detector.context``.
    """

    __slots__ = (
        "back",
        "back_width",
        "before",
        "context",
        "end",
        "judge",
        "prefix",
        "rest",
        "rule",
        "triggers",
    )

    def __init__(
        self,
        rule: str,
        prefix: str,
        rest: str,
        before: str = TOKEN_CLASS,
        end: str = TOKEN_CLASS,
        back: str = "",
        back_width: int = 0,
        triggers: tuple[str, ...] = (),
        judge: Callable[[str], bool] | None = None,
        context: tuple[str, ...] = (),
    ) -> None:
        self.rule, self.prefix, self.rest, self.before, self.end = rule, prefix, rest, before, end
        self.back, self.back_width, self.triggers = back, back_width, triggers
        self.judge, self.context = judge, context


def _pattern(row: Token) -> re.Pattern[str]:
    """The row as one regex that starts with its literal prefix (fast for sre to find).

    The ``before`` check sits right after the literal, so a prefix repeated inside a
    token ("sk-sk-sk-...") fails at once instead of rescanning the token's body.
    """
    literal = re.escape(row.prefix)
    if row.back:
        guard = f"(?<=(?<!{row.before}){row.back}{literal})"
    else:
        guard = f"(?<!{row.before}{literal})"
    return lazy(f"{literal}{guard}{row.rest}(?!{row.end})")


def _accept(rows: list[Token], *, url: bool = False) -> Accept:
    width = {row.prefix: row.back_width for row in rows}
    judges = {row.prefix: row.judge for row in rows if row.judge}
    rule = rows[0].rule
    longest_first = sorted(width, key=len, reverse=True)  # "NRAL" before "NR"

    def accept(m: re.Match[str], text: str) -> Hit | None:
        token = m.group()
        start = m.start()
        prefix = _prefix_of(token, longest_first)
        start -= width.get(prefix, 0)
        whole = text[start : m.end()]
        if fake_token(whole):
            return None
        judge = judges.get(prefix)
        if judge is not None and not judge(whole):
            return None
        if url:
            start = _url_start(text, start)
        return start, m.end(), rule

    return accept


def _prefix_of(token: str, prefixes: Iterable[str]) -> str:
    for prefix in prefixes:
        if token.startswith(prefix):
            return prefix
    return ""


def _url_start(text: str, start: int) -> int:
    """Back over the host name before ``start`` and the ``https://`` before it."""
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in ".-"):
        start -= 1
    for scheme in ("https://", "http://"):
        if text.startswith(scheme, start - len(scheme)):
            return start - len(scheme)
    return start


def detectors(rows: tuple[Token, ...], *, url: bool = False) -> tuple[Detector, ...]:
    """One detector per rule (and context), in the order the rules first appear in ``rows``."""
    by_rule: dict[tuple[str, tuple[str, ...]], list[Token]] = {}
    for row in rows:
        by_rule.setdefault((row.rule, row.context), []).append(row)
    return tuple(
        Detector(
            tuple(_pattern(row) for row in group),
            tuple(t for row in group for t in (row.triggers or (row.prefix,))),
            _accept(group, url=url),
            context=context,
            dense=True,
        )
        for (_rule, context), group in by_rule.items()
    )
