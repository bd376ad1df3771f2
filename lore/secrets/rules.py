"""The secrets gate's rules: the placeholder policy (what is clearly not a credential)
and one detector per kind of credential, each a literal-prefixed pattern plus a judge.

``lore.secrets`` runs them (its engine and public API); nothing else imports this module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

# --- placeholder policy -----------------------------------------------------------------


class _Lazy:
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


def _lazy(pattern: str, flags: int = 0) -> Any:
    return _Lazy(pattern, flags)


_MIN_VALUE_LEN = 6
_MIN_LOOSE_LEN = 8  # unquoted after "key:", where prose is common
_TRAILING_PUNCT = ".,:;!?"
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
_LETTER = _lazy(r"[^\W\d_]")
_DIGIT_OR_SYMBOL = _lazy(r"[\d!@#$%^&*+=~?|\\]")
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

_TEMPLATE = _lazy(r"\$\{|\$\(|\{\{|\{%|%\(|#\{")  # ${VAR} $(cmd) {{ var }} %(x)s #{x}
# A value that refers to a credential kept elsewhere, or stands in for one.
_REFERENCE = _lazy(
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
_IDENTIFIER = _lazy(r"[A-Za-z_][A-Za-z0-9_]*")
_VARIABLE = _lazy(r"[a-z]+(?:_[a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+")  # user_input  newPassword
_NON_ALNUM = _lazy(r"[\W_]+")
_SPACE = _lazy(r"\s")


def _fake_token(token: str) -> bool:
    """A fixed-format token that is a documented stand-in, not a live credential."""
    low = token.lower()
    return any(part in low for part in _FAKE_TOKEN_PARTS)


def _is_placeholder(value: str, *, bare: bool = False, loose: bool = False) -> bool:
    """True when an assigned ``value`` is not a real credential.

    ``bare``: the value was unquoted, so a plain variable name (``user_input``,
    ``newPassword``) is code, not a literal. ``loose``: unquoted after ``key:``, where
    prose is common ("password: changed monthly"), so it must also look like a
    credential: 8+ characters, a letter, and a digit or symbol.
    """
    if len(value) < _MIN_VALUE_LEN or _REFERENCE.match(value) or _TEMPLATE.search(value):
        return True
    if bare and _VARIABLE.fullmatch(value):
        return True
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

_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_ALNUM_CLASS = "[A-Za-z0-9]"
_WORD_CLASS = "[A-Za-z0-9_]"
_TOKEN_CLASS = "[A-Za-z0-9_-]"
_TRIGGER_LIMIT = 4096  # longer texts skip the substring pre-check (see _hits)

_Hit = tuple[int, int, str]  # (start, end, rule id) of the secret itself
_Accept = Callable[[re.Match[str], str], _Hit | None]


class _Detector(NamedTuple):
    patterns: tuple[re.Pattern[str], ...]  # each starts with a literal: fast to search
    triggers: tuple[str, ...]  # no pattern can match unless one of these is in the text
    accept: _Accept  # the secret in a match, or None for a placeholder
    lower: bool = False  # patterns and triggers run on the lowercased text


def _token_pattern(prefix: str, before: str, rest: str) -> re.Pattern[str]:
    """``prefix`` + ``rest``, where ``prefix`` must not follow a ``before`` character.

    The check sits right after the literal prefix, so sre still finds candidates with a
    fast substring search, and a prefix repeated inside a token ("sk-sk-sk-...") fails
    at once instead of rescanning the token's body.
    """
    literal = re.escape(prefix)
    return _lazy(f"{literal}(?<!{before}{literal}){rest}")


def _token(rule: str) -> _Accept:
    def accept(m: re.Match[str], text: str) -> _Hit | None:
        return None if _fake_token(m.group()) else (m.start(), m.end(), rule)

    return accept


def _private_key(m: re.Match[str], text: str) -> _Hit | None:
    """A PEM header counts only when key material follows; the span runs to the footer."""
    body = m.start("body")
    if not _B64_RUN.search(text, body, min(m.end("body"), body + 400)):
        return None  # a bare header, quoted in prose or docs
    if m.group("footer"):
        return m.start(), m.end(), "private-key"
    lines = _PEM_LINES.match(text, body)  # no footer: the base64 lines that follow
    return m.start(), lines.end() if lines else body, "private-key"


def _stripe(m: re.Match[str], text: str) -> _Hit | None:
    return None if _fake_token(m.group()) else (m.start() - 1, m.end(), "stripe-key")


def _openai_or_anthropic(m: re.Match[str], text: str) -> _Hit | None:
    if _fake_token(m.group()):
        return None
    return m.start(), m.end(), "anthropic-key" if m.group("ant") else "openai-key"


def _slack_webhook(m: re.Match[str], text: str) -> _Hit | None:
    if _fake_token(m.group()):
        return None
    start = m.start()
    for scheme in ("https://", "http://"):
        if text.startswith(scheme, start - len(scheme)):
            return start - len(scheme), m.end(), "slack-webhook"
    return start, m.end(), "slack-webhook"


def _azure(m: re.Match[str], text: str) -> _Hit | None:
    value = m.group("v")
    if _fake_token(value) or _is_placeholder(value):
        return None
    return m.start("v"), m.end("v"), "azure-key"


def _url_password(m: re.Match[str], text: str) -> _Hit | None:
    user, password = m.group(1), m.group(2)
    if password == user or _is_placeholder(password):
        return None  # postgres:postgres@  user:password@  :${PASS}@
    return m.start(2), m.end(2), "url-credentials"


def _key_starts_word(text: str, start: int) -> bool:
    """A key name starts at ``start``: after a non-letter or a camelCase hump, not "$"."""
    if start == 0:
        return True
    before = text[start - 1]
    if before not in _ALNUM:
        return before != "$"  # $PWD is the shell's working directory
    return (before.islower() or before.isdigit()) and text[start].isupper()  # dbPassword


def _judge(
    key: str, aws: bool, text: str, start: int, end: int, *, bare: bool = False, loose: bool = False
) -> _Hit | None:
    """The secret assigned to ``key`` (lowercase) in ``text[start:end]``, if it is real."""
    if key == "authorization":
        auth = _AUTH_VALUE.match(text, start, end)
        if not auth:
            return None
        value = auth.group("v")
        if _fake_token(value) or _is_placeholder(value):
            return None
        return auth.start("v"), auth.end("v"), "authorization-header"
    value = text[start:end]
    if aws and _AWS_SECRET_VALUE.fullmatch(value):
        return None if _fake_token(value) else (start, end, "aws-secret-key")
    if _is_placeholder(value, bare=bare, loose=loose):
        return None
    rule = "password-assignment" if key.startswith(("pass", "pwd")) else "secret-assignment"
    return start, end, rule


def _is_aws_key(key: str, text: str, key_start: int) -> bool:
    """secret_access_key, or secret_key right after "aws" (aws_secret_key, AWS.SecretKey)."""
    before = text[max(0, key_start - 4) : key_start].lower().rstrip("_.-")
    return "access" in key or before.endswith("aws")


def _strip_trailing_punctuation(text: str, start: int, end: int) -> int:
    """The end of ``text[start:end]`` without sentence punctuation or unbalanced closers.

    In "(password=value)" the value ends before ")"; "{api_key}" and "getenv(X)" stay whole.
    """
    while end > start:
        last = text[end - 1]
        opener = _CLOSERS.get(last)
        if last in _TRAILING_PUNCT or (
            opener and text.count(opener, start, end) < text.count(last, start, end)
        ):
            end -= 1
        else:
            break
    return end


def _assignment(m: re.Match[str], text: str) -> _Hit | None:
    key_start = m.start("key")
    if not _key_starts_word(text, key_start):
        return None  # mypassword=  $PWD:
    key = m.group("key")  # lowercase: these patterns run on text.lower()
    aws = key.startswith("secret") and _is_aws_key(key, text, key_start)
    for group in ("dq", "sq", "bq"):
        if m.start(group) >= 0:
            return _judge(key, aws, text, m.start(group), m.end(group))
    start, end = m.span("bare")
    if key == "authorization":  # "Bearer <token>" continues past the first space
        return _judge(key, aws, text, start, min(len(text), start + 4200))
    end = _strip_trailing_punctuation(text, start, end)
    return _judge(key, aws, text, start, end, bare=True, loose=m.group("sep") == ":")


_B64_RUN = _lazy(r"[A-Za-z0-9+/]{40}")
_PEM_LINES = _lazy(r"(?:(?:\r?\n|\\r?\\n)[A-Za-z0-9+/=]{1,128})+")
_AWS_SECRET_VALUE = _lazy(r"[A-Za-z0-9/+=]{40}")
_AUTH_VALUE = _lazy(r"(?i:bearer|token|basic)[ \t]+(?P<v>[A-Za-z0-9._~+/=-]{16,4096})")

# Credential key names, lowercase. One pattern per literal start: sre finds a literal
# prefix with a fast substring search, where an alternation would be tried at every
# character. They run on text.lower(), so "PASSWORD", "Password" and "dbPassword" match.
_KEY_NAMES = (  # (literal start, pattern)
    ("pass", r"pass(?:word|wd|phrase)"),
    ("pwd", r"pwd"),
    ("secret", r"secret(?:[_.-]?access[_.-]?key|[_.-]?key)?"),
    ("api", r"api[_.-]?key"),
    ("access", r"access[_.-]?key"),
    ("account", r"account[_.-]?key"),
    ("private", r"private[_.-]?key"),
    ("token", r"token"),
    ("authorization", r"authorization"),
)


def _assignment_pattern(name: str, shortest: int) -> re.Pattern[str]:
    """Key ``name``, a separator, then a quoted or bare value of ``shortest``+ characters.

    Values too short to be real never match, so prose such as "token= is parsed" is
    rejected inside the regex engine rather than in Python.
    """
    n = shortest
    return _lazy(
        f"(?P<key>{name})"
        r"[\"']?[ \t]{0,4}(?P<sep>:=|=>|==|=|:)[ \t]{0,4}"
        rf"""(?:"(?P<dq>[^"\r\n]{{{n},1024}})"|'(?P<sq>[^'\r\n]{{{n},1024}})'"""
        rf"""|`(?P<bq>[^`\r\n]{{{n},1024}})`"""
        rf"""|["'`]?(?P<bare>[^\s"'`,;&]{{{n},256}}))"""  # bare: also an unclosed quote
    )


_KEY_NAME = _lazy("(?:" + "|".join(p for _, p in _KEY_NAMES) + r")\Z", re.IGNORECASE)

# Most specific first: a later detector never reports a span an earlier one claimed, so
# "token=ghp_..." is a GitHub token rather than a generic assignment.
_DETECTORS: tuple[_Detector, ...] = (
    _Detector(
        # The body stops at the next "-----" (the footer, or another header), so every
        # header scans only its own block: linear however many headers the text holds.
        (
            _lazy(
                r"-----BEGIN (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----"
                r"(?P<body>(?:[^-]|-(?!----)){0,65536})(?P<footer>-----END [A-Z0-9 ]{1,60}-----)?"
            ),
        ),
        ("-----BEGIN ",),
        _private_key,
    ),
    _Detector(
        (_token_pattern("A", _ALNUM_CLASS, r"(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}(?![A-Za-z0-9])"),),
        ("AKIA", "ASIA", "ABIA", "ACCA"),
        _token("aws-access-key"),
    ),
    _Detector(
        (
            _token_pattern("gh", _WORD_CLASS, r"[pousr]_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])"),
            _token_pattern("github_pat_", _WORD_CLASS, r"[A-Za-z0-9_]{22,242}(?![A-Za-z0-9_])"),
        ),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        _token("github-token"),
    ),
    _Detector(
        (
            _token_pattern(
                "gl",
                _TOKEN_CLASS,
                r"(?:pat|dt|rt|ptt|soat|cbt)-[A-Za-z0-9_-]{20,250}(?![A-Za-z0-9_-])",
            ),
        ),
        ("glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "glcbt-"),
        _token("gitlab-token"),
    ),
    _Detector(
        (
            _token_pattern(
                "xox", _TOKEN_CLASS, r"[abeoprs]-[0-9]{1,20}-[A-Za-z0-9-]{8,250}(?![A-Za-z0-9-])"
            ),
        ),
        ("xox",),
        _token("slack-token"),
    ),
    _Detector(
        (_lazy(r"hooks\.slack\.com/(?:services|workflows|triggers)/[\w/+-]{20,400}"),),
        ("hooks.slack.com/",),
        _slack_webhook,
    ),
    _Detector(
        # Starts at "k_live_" (a literal); the key itself at the "s" or "r" before it.
        (
            _lazy(
                r"k_live_(?<=[rs]k_live_)(?<![A-Za-z0-9_][rs]k_live_)"
                r"[A-Za-z0-9]{20,247}(?![A-Za-z0-9])"
            ),
        ),
        ("k_live_",),
        _stripe,
    ),
    _Detector(
        (
            _token_pattern(
                "sk-",
                _TOKEN_CLASS,
                r"(?:(?P<ant>ant-[A-Za-z0-9_-]{20,250})"
                r"|(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,300}"
                r"|[A-Za-z0-9]{20}[A-Za-z0-9_-]{0,300})(?![A-Za-z0-9_-])",
            ),
        ),
        ("sk-",),
        _openai_or_anthropic,
    ),
    _Detector(
        (_token_pattern("AIza", _TOKEN_CLASS, r"[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"),),
        ("AIza",),
        _token("google-api-key"),
    ),
    _Detector(
        (_token_pattern("npm_", _WORD_CLASS, r"[A-Za-z0-9]{36}(?![A-Za-z0-9_])"),),
        ("npm_",),
        _token("npm-token"),
    ),
    _Detector(
        (_token_pattern("pypi-AgE", _TOKEN_CLASS, r"[A-Za-z0-9_-]{50,1000}(?![A-Za-z0-9_-])"),),
        ("pypi-AgE",),
        _token("pypi-token"),
    ),
    _Detector(
        (_token_pattern("SK", _ALNUM_CLASS, r"[0-9a-f]{32}(?![A-Za-z0-9])"),),
        ("SK",),
        _token("twilio-key"),
    ),
    _Detector(
        (
            _token_pattern(
                "SG.", _TOKEN_CLASS, r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"
            ),
        ),
        ("SG.",),
        _token("sendgrid-key"),
    ),
    _Detector(
        # Connection strings: "...;AccountKey=<base64>;..." (storage), SharedAccessKey (bus).
        (_lazy(r"(?:Account|SharedAccess)Key=(?P<v>[A-Za-z0-9+/]{30,100}={0,2})"),),
        ("Key=",),
        _azure,
    ),
    _Detector(
        (_token_pattern("hf_", _WORD_CLASS, r"[A-Za-z]{34}(?![A-Za-z0-9_])"),),
        ("hf_",),
        _token("huggingface-token"),
    ),
    _Detector(
        (
            _token_pattern(
                "eyJ",
                _TOKEN_CLASS,
                r"[A-Za-z0-9_-]{5,4000}\.eyJ[A-Za-z0-9_-]{5,8000}\.[A-Za-z0-9_-]{10,4000}"
                r"(?![A-Za-z0-9_-])",
            ),
        ),
        ("eyJ",),
        _token("jwt"),
    ),
    _Detector(
        (_lazy(r"://([^\s:/?#@\"'<>]{0,128}):([^\s/@\"'<>]{1,256})@(?=[^\s@/])"),),
        ("://",),
        _url_password,
    ),
    *(
        _Detector(
            # "Authorization: Basic <token>": the value starts with a short scheme word.
            (_assignment_pattern(name, 1 if start == "authorization" else _MIN_VALUE_LEN),),
            (start,),
            _assignment,
            lower=True,
        )
        for start, name in _KEY_NAMES
    ),
)
