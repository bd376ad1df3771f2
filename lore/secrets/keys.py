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
# "Authorization: <scheme> <credential>" (Bearer, Basic, Token, Bot, SSWS, Splunk, ...),
# or the credential alone.
_AUTH_VALUE = lazy(
    r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9_-]{1,24})[ \t]+)?(?P<v>[A-Za-z0-9._~+/=-]{16,4096})"
)
_AUTH_ALONE = 24  # a credential with no scheme before it: at least this long, mixed
_KEY_CHARS = lazy(r"[A-Za-z0-9+=_.~-]+")
_ALNUM_RUN = lazy(r"[A-Za-z0-9]{32,}")
_FILE_NAME = lazy(r"\.[A-Za-z][A-Za-z0-9]{0,4}\Z")  # a key naming a file: "ami-….bin"

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
_SUFFIX = r"(?:[_-](?:base|value|b64|base64|hex|data))?"  # not ".": token.value is code
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
    ("pat", r"pat"),  # AZURE_DEVOPS_PAT, a personal access token: judged as a key
)
KEY_NAME = lazy("(?:" + "|".join(p for _, p in KEY_NAMES) + rf"){_SUFFIX}\Z", re.IGNORECASE)


def key_starts_word(text: str, start: int, end: int | None = None) -> bool:
    """A key name starts at ``start``: after a non-letter or a camelCase hump, not "$"
    before ``pwd``; or after a known word glued on (``authtoken``, ``PGPASSWORD``)."""
    if start == 0:
        return True
    before = text[start - 1]
    if before not in ALNUM:
        # $PWD is the shell's working directory; $password = "..." is an assignment.
        return before != "$" or not text.startswith(("pwd", "PWD"), start)
    if (before.islower() or before.isdigit()) and text[start].isupper():  # dbPassword
        return True
    glued = start
    while glued > 0 and text[glued - 1].isalpha() and start - glued <= 8:
        glued -= 1
    # A known word glued on (authtoken, apitoken, dbpassword), not any letters (bypass).
    return (glued == 0 or not text[glued - 1].isalnum()) and text[glued:start].lower() in _GLUED


_GLUED = frozenset(
    """
    auth access refresh api bearer session oauth bot client app db root admin user smtp
    mail master ssh pg mysql redis ldap ftp proxy vnc rdp wifi
    """.split()  # noqa: SIM905 - a word list reads better as words
)


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
    key's alphabet with letters and digits, no spaces, no slashes (a path). A bare
    ``key`` (kaggle.json's ``"key"``) needs 32 or more letters and digits."""
    word = _qualifier(text, key_start)
    if not word:
        return _ALNUM_RUN.fullmatch(value) is not None and _mixed(value)
    if word.isdigit() or any(word.endswith(w) for w in _NOT_CREDENTIAL_KEYS):
        return False  # primary_key, S3ObjectKey, partitionKey
    return _keyish(value) and not _FILE_NAME.search(value)


def _keyish(value: str) -> bool:
    """16 or more characters of a key's alphabet, letters and digits both."""
    return len(value) >= 16 and _KEY_CHARS.fullmatch(value) is not None and _mixed(value)


def _mixed(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


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
        if not auth.group("scheme") and (len(value) < _AUTH_ALONE or not _mixed(value)):
            return None  # "AggregationAuthorization": "af31…" is an id, not a header
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
    sep = m.group("sep")
    close = m.group("close") or ""
    if sep == "," and not (
        close in ('"', "'")
        and key != "authorization"
        and m.group("bare") is None
        and _first_argument(text, key_start)
    ):
        return None  # "password, token", ("Token", x): a list, not define('PASSWORD', '…')
    if sep == ">" and not _in_element(text, key_start):
        return None  # "password > 8 characters"
    if key == "pass" and close and (key_start == 0 or text[key_start - 1] not in "_-."):
        return None  # {'pass': 'The "pass" statement'}: Python's keyword, not a password
    aws = key.startswith("secret") and is_aws_key(key, text, key_start)
    for group in ("dq", "sq", "bq", "bare"):
        if m.start(group) >= 0:
            start, end = m.span(group)
            break
    bare = group == "bare"
    if key == "authorization" and bare:  # "Bearer <token>" continues past the first space
        end = min(len(text), start + 4200)
    elif bare:
        if sep == ">":  # <password>value</password>
            closing = text.find("</", start, end + 81)
            if closing < 0 or (closing > end and text[end:closing].strip()):
                return None  # <password>@host: not an element's text
            end = min(end, closing)
        end = _strip_trailing_punctuation(text, start, end)
    if key == "key" and not _qualified_key(text, key_start, text[start:end]):
        return None
    if key == "pat" and not _keyish(text[start:end]):
        return None
    # After a comma the value is a second argument: it must look like a credential, not
    # a name ("('Token', 'copy_context')").
    # After an index (x["token"] = value) a bare value is code unless it looks like data.
    listed = sep == "," or (bare and "]" in close)
    return judge(
        key, aws, text, start, end, bare=bare or listed, loose=(bare and sep == ":") or listed
    )


def _first_argument(text: str, key_start: int) -> bool:
    """Whether the quoted name around ``key_start`` is a call's first argument:
    ``define('DB_PASSWORD', …)``, not an item of a list or tuple."""
    i = key_start
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
        i -= 1  # a constant's name: DB_PASSWORD, not "gitlab-token"
    if i == 0 or text[i - 1] not in "\"'":
        return False
    i -= 1
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    return i > 0 and text[i - 1] == "("


def _in_element(text: str, key_start: int) -> bool:
    """Whether the name at ``key_start`` ends an XML element's name: ``<db.password>``."""
    i = key_start
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_.:-"):
        i -= 1
    return i > 0 and text[i - 1] == "<"


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
    if name == "pat" and not _keyish(value):
        return None
    aws = name.startswith("secret") and is_aws_key(name, key, m.start())
    hit = judge(name, aws, value, 0, len(value))
    return hit[2] if hit else None


def _assignment_pattern(name: str, shortest: int) -> re.Pattern[str]:
    """Key ``name``, a separator, then a quoted or bare value of ``shortest``+ characters.

    After the name: an optional closing quote or bracket (``"password":``,
    ``ENV["PASSWORD"] =``), an optional ``string`` type (Go, Kotlin, TypeScript), then
    ``=``, ``:``, ``:=`` (and make's ``::=``), ``.=``, ``??=``, ``=>``, ``==``; ``,``
    after a closing quote (``define('DB_PASSWORD', '...')``); ``>`` closing an XML element
    (``<password>...</password>``, the value on its own line too). Values too short to be
    real never match, so prose such as "token= is parsed" is rejected inside the regex
    engine rather than in Python.
    """
    n = shortest
    return lazy(
        f"(?P<key>{name}){_SUFFIX}"
        r"(?P<close>[\"']\]?|\])?"
        r"(?:[ \t]*:[ \t]*string\??|[ \t]+string)?"  # a type: apiKey: string =, token string =
        r"[ \t]{0,4}(?P<sep>:{1,3}=|\.=|\?\?=|=>|==|=|:|,|>)(?:[ \t]{0,4}|(?<=>)\s{0,80})"
        rf"""(?:"(?P<dq>[^"\r\n]{{{n},1024}})"|'(?P<sq>[^'\r\n]{{{n},1024}})'"""
        rf"""|`(?P<bq>[^`\r\n]{{{n},1024}})`"""
        rf"""|["'`]?(?P<bare>[^\s"'`,;&]{{{n},256}}))"""  # bare: also an unclosed quote
    )


def _quoted_password(m: re.Match[str], text: str) -> Hit | None:
    """``PASSWORD 'S3cret'`` (SQL's ``WITH PASSWORD``, ``IDENTIFIED BY``): a quoted value
    after the word and a space."""
    if m.group("key") and not key_starts_word(text, m.start("key"), m.end("key")):
        return None
    group = "dq" if m.start("dq") >= 0 else "sq"
    return judge("password", False, text, m.start(group), m.end(group), bare=True, loose=True)


def _name_value(m: re.Match[str], text: str) -> Hit | None:
    """A name and its value on two lines or in two attributes: a Kubernetes or GitHub
    Actions ``env`` entry (``- name: DB_PASSWORD`` / ``value: ...``), an XML
    ``<add key="ApiKey" value="..."/>``."""
    name = text[m.start("name") : m.end("name")]
    rule = keyed_rule(name, text[m.start("v") : m.end("v")])
    return (m.start("v"), m.end("v"), rule) if rule else None


# "Authorization: Basic <token>" starts short; a key or a PAT is long.
_SHORTEST = {"authorization": 1, "key": 16, "pat": 16}
_QUOTED = r"""(?:'(?P<sq>[^'\r\n]{6,256})'|"(?P<dq>[^"\r\n]{6,256})")"""

ASSIGNMENTS: tuple[Detector, ...] = (
    *(
        Detector(
            (_assignment_pattern(name, _SHORTEST.get(start, 6)),),
            (start,),
            _assignment,
            lower=True,
        )
        for start, name in KEY_NAMES
    ),
    Detector(
        (
            lazy(rf"(?P<key>pass(?:word|wd))[ \t]+{_QUOTED}"),
            lazy(rf"identified[ \t]+by[ \t]+(?:password[ \t]+)?(?P<key>){_QUOTED}"),
        ),
        ("password", "passwd", "identified"),
        _quoted_password,
        lower=True,
    ),
    Detector(
        (
            lazy(
                r"name:[ \t]*[\"']?(?P<name>[a-z0-9_.-]{1,100})[\"']?[ \t]*\r?\n"
                r"[ \t]*-?[ \t]*value:[ \t]*[\"']?(?P<v>[^\s\"']{6,1024})"
            ),
            lazy(r'key="(?P<name>[^"\r\n]{1,100})"[ \t]+value="(?P<v>[^"\r\n]{6,1024})"'),
        ),
        ("name:", 'value="'),
        _name_value,
        lower=True,
    ),
)
