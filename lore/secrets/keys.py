"""Credentials found by their name: ``password=…``, ``api_key: …``, ``"token": "…"``,
``Authorization: Bearer …``, ``DD_APP_KEY=…``, and a string stored under such a key.

The value is judged by the placeholder policy (``lore.secrets.policy``): templates,
references, masks and prose are not credentials.
"""

from __future__ import annotations

import re

from lore.secrets.policy import ALNUM, Detector, Hit, fake_token, is_placeholder, lazy

_TRAILING_PUNCT = ".,:;!?"
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
_AWS_SECRET_VALUE = lazy(r"[A-Za-z0-9/+=]{40}")
_AUTH_VALUE = lazy(
    r"(?i:bearer|token|basic|bot|ssws|apikey|api-key|key)[ \t]+(?P<v>[A-Za-z0-9._~+/=-]{16,4096})"
)
_KEY_CHARS = lazy(r"[A-Za-z0-9+=_.~-]+")

# A "<word>_key" names a credential unless the word says it is an identifier's key.
_NOT_CREDENTIAL_KEYS = frozenset(
    """
    primary foreign sort partition range hash cache idempotency dedup dedupe lookup index
    map dict object obj public pub row table group routing shard bucket file path s3 ssh
    gpg pgp unique composite natural surrogate translation i18n message label state local
    cursor page next last first metric tag event hot short long compound join parent child
    foo bar my your some the this that any no none test example sample dummy fake mock
    react list item node entry record field column attribute attr prop config setting
    """.split()  # noqa: SIM905 - a word list reads better as words
)

# Credential key names, lowercase. One pattern per literal start: sre finds a literal
# prefix with a fast substring search, where an alternation would be tried at every
# character. They run on text.lower(), so "PASSWORD", "Password" and "dbPassword" match.
# A name may end in a suffix that still names the credential (``secret_key_base``).
_SUFFIX = r"(?:[_.-](?:base|value|b64|base64|hex|data))?"
KEY_NAMES = (  # (literal start, pattern)
    ("pass", r"pass(?:word|wd|phrase)?"),
    ("pwd", r"pwd"),
    ("secret", r"secret(?:[_.-]?access[_.-]?key|[_.-]?key)?"),
    ("api", r"api[_.-]?key"),
    ("access", r"access[_.-]?key"),
    ("account", r"account[_.-]?key"),
    ("private", r"private[_.-]?key"),
    ("token", r"token"),
    ("authorization", r"authorization"),
    ("key", r"key"),  # app_key, DD_APPLICATION_KEY, signingKey: see _qualified_key
)
KEY_NAME = lazy("(?:" + "|".join(p for _, p in KEY_NAMES) + rf"){_SUFFIX}\Z", re.IGNORECASE)


def key_starts_word(text: str, start: int, end: int | None = None) -> bool:
    """A key name starts at ``start``: after a non-letter or a camelCase hump, not "$";
    or inside an upper-case name (``PGPASSWORD``) when ``text[start:end]`` is upper case."""
    if start == 0:
        return True
    before = text[start - 1]
    if before not in ALNUM:
        return before != "$"  # $PWD is the shell's working directory
    if (before.islower() or before.isdigit()) and text[start].isupper():  # dbPassword
        return True
    return end is not None and before.isupper() and text[start:end].isupper()


def _qualifier(text: str, key_start: int) -> str:
    """The word before ``key`` in an identifier: "app" in DD_APP_KEY, "signing" in signingKey."""
    i = key_start
    if i > 0 and text[i - 1] in "_.-":
        i -= 1
    j = i
    while j > 0 and text[j - 1].isalnum():
        j -= 1
        if text[j].isupper() and text[j + 1 : i].islower():  # the hump of ddAppKey
            break
    return text[j:i].lower()


def _qualified_key(text: str, key_start: int, value: str) -> bool:
    """``<word>_key = <value>`` is a credential when the word does not name an identifier
    (``primary_key``, ``cache_key``) and the value looks like one: 16+ characters of a
    key's alphabet with letters and digits, no spaces, no slashes (a path)."""
    word = _qualifier(text, key_start)
    if not word or word in _NOT_CREDENTIAL_KEYS or word.isdigit():
        return False
    return (
        len(value) >= 16
        and _KEY_CHARS.fullmatch(value) is not None
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
    )


def is_aws_key(key: str, text: str, key_start: int) -> bool:
    """secret_access_key, or secret_key right after "aws" (aws_secret_key, AWS.SecretKey)."""
    before = text[max(0, key_start - 4) : key_start].lower().rstrip("_.-")
    return "access" in key or before.endswith("aws")


def judge(
    key: str, aws: bool, text: str, start: int, end: int, *, bare: bool = False, loose: bool = False
) -> Hit | None:
    """The secret assigned to ``key`` (lowercase) in ``text[start:end]``, if it is real."""
    if key == "authorization":
        auth = _AUTH_VALUE.match(text, start, end)
        if not auth:
            return None
        value = auth.group("v")
        if fake_token(value) or is_placeholder(value):
            return None
        return auth.start("v"), auth.end("v"), "authorization-header"
    value = text[start:end]
    if aws and _AWS_SECRET_VALUE.fullmatch(value):
        return None if fake_token(value) else (start, end, "aws-secret-key")
    if is_placeholder(value, bare=bare, loose=loose):
        return None
    rule = "password-assignment" if key.startswith(("pass", "pwd")) else "secret-assignment"
    return start, end, rule


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


def _assignment(m: re.Match[str], text: str) -> Hit | None:
    key_start = m.start("key")
    if not key_starts_word(text, key_start, m.end("key")):
        return None  # mypassword=  $PWD:
    key = m.group("key")  # lowercase: these patterns run on text.lower()
    aws = key.startswith("secret") and is_aws_key(key, text, key_start)
    for group in ("dq", "sq", "bq", "bare"):
        if m.start(group) >= 0:
            start, end = m.span(group)
            break
    bare = group == "bare"
    if key == "authorization" and bare:  # "Bearer <token>" continues past the first space
        end = min(len(text), start + 4200)
    elif bare:
        end = _strip_trailing_punctuation(text, start, end)
    if key == "key" and not _qualified_key(text, key_start, text[start:end]):
        return None
    return judge(key, aws, text, start, end, bare=bare, loose=bare and m.group("sep") == ":")


def keyed_rule(key: object, value: str) -> str | None:
    """The rule a string breaks by being stored under a credential-named key."""
    if not isinstance(key, str) or not key or len(key) > 200:
        return None
    m = KEY_NAME.search(key)
    if m is None or not key_starts_word(key, m.start(), m.end()):
        return None
    name = re.sub(_SUFFIX + r"\Z", "", m.group().lower())
    value = value.strip()
    if name == "key" and not _qualified_key(key, m.start(), value):
        return None
    aws = name.startswith("secret") and is_aws_key(name, key, m.start())
    hit = judge(name, aws, value, 0, len(value))
    return hit[2] if hit else None


def _assignment_pattern(name: str, shortest: int) -> re.Pattern[str]:
    """Key ``name``, a separator, then a quoted or bare value of ``shortest``+ characters.

    Values too short to be real never match, so prose such as "token= is parsed" is
    rejected inside the regex engine rather than in Python.
    """
    n = shortest
    return lazy(
        f"(?P<key>{name}){_SUFFIX}"
        r"[\"']?[ \t]{0,4}(?P<sep>:=|=>|==|=|:)[ \t]{0,4}"
        rf"""(?:"(?P<dq>[^"\r\n]{{{n},1024}})"|'(?P<sq>[^'\r\n]{{{n},1024}})'"""
        rf"""|`(?P<bq>[^`\r\n]{{{n},1024}})`"""
        rf"""|["'`]?(?P<bare>[^\s"'`,;&]{{{n},256}}))"""  # bare: also an unclosed quote
    )


_SHORTEST = {"authorization": 1, "key": 16}  # "Authorization: Basic <token>" starts short

ASSIGNMENTS: tuple[Detector, ...] = tuple(
    Detector(
        (_assignment_pattern(name, _SHORTEST.get(start, 6)),),
        (start,),
        _assignment,
        lower=True,
    )
    for start, name in KEY_NAMES
)
