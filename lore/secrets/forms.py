"""Credentials recognised by where they stand rather than by a fixed prefix: key files
(PuTTY, base64-wrapped PEM), config files (.netrc, .pgpass, docker's config.json, .npmrc),
command lines (``mysql -p``, ``curl -u``), and pairs or shapes a judge must confirm
(Twilio SID + auth token, Discord and Telegram bot tokens, Azure SAS signatures).
"""

from __future__ import annotations

import re

from lore.secrets.policy import Accept, Detector, Hit, fake_token, is_placeholder, lazy

_NEWLINE = r"(?:\r?\n|\\r?\\n)"  # a real line break, or "\n" escaped in JSON


def _putty(m: re.Match[str], text: str) -> Hit | None:
    """The private lines of a PuTTY key file (and its MAC line); the header is public."""
    body = m.group("body")
    if sum(len(line) for line in re.split(r"\\r?\\n|\s+", body)) < 32:
        return None
    return m.start(), m.end(), "putty-key"


def _b64decode(value: str) -> bytes | None:
    """``value`` decoded as base64 or base64url (padding optional), or None."""
    import binascii  # a built-in module: no start-up cost for captures that never get here

    value = value.strip().rstrip("=").replace("-", "+").replace("_", "/")
    try:
        return binascii.a2b_base64(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None


def _encoded_pem(m: re.Match[str], text: str) -> Hit | None:
    """base64 whose text is a PEM private key (kubeconfig ``client-key-data``, a
    Kubernetes secret's ``tls.key``): the header decodes, and key material follows."""
    head = _b64decode(m.group()[:80])
    if head is None or b"PRIVATE KEY" not in head or len(m.group()) < 120:
        return None
    return m.start(), m.end(), "encoded-private-key"


def _registry_auth(m: re.Match[str], text: str) -> Hit | None:
    """docker's ``"auth": base64(user:password)``, an .npmrc ``_auth``, a registry
    ``identitytoken``: judged on the decoded password."""
    value = m.group("v")
    if m.group("kind") == "identitytoken":
        return (
            None if is_placeholder(value) or fake_token(value) else (*m.span("v"), "registry-auth")
        )
    decoded = _b64decode(value)
    if decoded is None:
        return None
    try:
        plain = decoded.decode("utf-8")
    except UnicodeDecodeError:
        return None
    user, sep, password = plain.partition(":")
    if not sep or not user or not password or password == user:
        return None
    if fake_token(password) or (is_placeholder(password) and len(password) >= 6):
        return None
    if len(password) < 4:
        return None
    return m.start("v"), m.end("v"), "registry-auth"


def _value(m: re.Match[str]) -> tuple[int, int]:
    names = m.re.groupindex
    for group in ("dq", "sq", "v"):
        if group in names and m.start(group) >= 0:
            return m.span(group)
    return m.span()


def _judged(rule: str, *, loose: bool = False, same_as: str | None = None) -> Accept:
    """An accept that judges the value group with the placeholder policy."""

    def accept(m: re.Match[str], text: str) -> Hit | None:
        start, end = _value(m)
        value = text[start:end]
        if same_as and m.group(same_as) == value:
            return None  # admin:admin, postgres:postgres
        if fake_token(value) or is_placeholder(value, bare=True, loose=loose):
            return None
        return start, end, rule

    return accept


def _twilio(m: re.Match[str], text: str) -> Hit | None:
    value = m.group("v")
    if fake_token(value) or fake_token(m.group("sid")) or len(set(value)) < 8:
        return None
    return m.start("v"), m.end("v"), "twilio-auth-token"


def _discord(m: re.Match[str], text: str) -> Hit | None:
    """A bot token's first part is the bot's id (a snowflake: 17-20 digits) in base64."""
    start = m.start()
    while start > 0 and m.start() - start < 29 and _is_token_char(text[start - 1]):
        start -= 1
    if not 23 <= m.start() - start <= 28 or text[start] not in "MNO":
        return None
    decoded = _b64decode(text[start : m.start()])
    if decoded is None or not decoded.isdigit() or not 17 <= len(decoded) <= 20:
        return None
    return start, m.end(), "discord-token"


def _is_token_char(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in "_-")


def _telegram(m: re.Match[str], text: str) -> Hit | None:
    """``<bot id>:<35 characters>``: the id is 5 to 16 digits, alone or after ``bot``."""
    start = m.start()
    digits = start
    while digits > 0 and text[digits - 1].isdigit() and start - digits <= 16:
        digits -= 1
    if not 5 <= start - digits <= 16:
        return None
    before = text[digits - 1] if digits else " "
    if (before.isalnum() or before in "_-") and not text.endswith("bot", 0, digits):
        return None
    if fake_token(m.group()):
        return None
    return digits, m.end(), "telegram-bot-token"


_SAS_FIELD = lazy(r"(?:^|[?&;\s\"'])(?:sv|se|sp|sr|st|skn|spr|srt|ss)=")


def _azure_sas(m: re.Match[str], text: str) -> Hit | None:
    """``sig=`` counts when the query around it has the other SAS fields (``sv=``, ``se=``)."""
    start = m.start()
    lo = start
    while (
        lo > 0 and start - lo < 2000 and not text[lo - 1].isspace() and text[lo - 1] not in "\"'<>"
    ):
        lo -= 1
    hi = m.end()
    while (
        hi < len(text)
        and hi - m.end() < 2000
        and not text[hi].isspace()
        and text[hi] not in "\"'<>"
    ):
        hi += 1
    if not _SAS_FIELD.search(text[lo:start] + " " + text[m.end() : hi]):
        return None
    value = m.group("v")
    if fake_token(value) or len(set(value)) < 8:
        return None
    return m.start("v"), m.end("v"), "azure-sas-token"


def _mailgun(m: re.Match[str], text: str) -> Hit | None:
    return None if fake_token(m.group()) else (m.start(), m.end(), "mailgun-key")


_CLI_VALUE = (
    r"""(?:'(?P<sq>[^'\r\n]{1,128})'|"(?P<dq>[^"\r\n]{1,128})"|(?P<v>[^\s'"`;|&]{1,128}))"""
)

FORMS: tuple[Detector, ...] = (
    Detector(
        (
            lazy(
                rf"Private-Lines:[ \t]*[0-9]{{1,3}}[ \t]*{_NEWLINE}"
                rf"(?P<body>[A-Za-z0-9+/=]{{4,128}}(?:{_NEWLINE}[A-Za-z0-9+/=]{{4,128}}){{0,127}})"
                rf"(?:{_NEWLINE}Private-MAC:[ \t]*[0-9a-fA-F]{{40,64}})?"
            ),
        ),
        ("Private-Lines:",),
        _putty,
    ),
    Detector(
        (lazy(r"LS0tLS1CRUdJTi(?<![A-Za-z0-9+/]LS0tLS1CRUdJTi)[A-Za-z0-9+/]{30,65536}={0,2}"),),
        ("LS0tLS1CRUdJTi",),
        _encoded_pem,
        dense=True,
    ),
    Detector(
        (
            lazy(r"\"(?P<kind>auth)\"[ \t]*:[ \t]*\"(?P<v>[A-Za-z0-9+/]{6,1024}={0,2})\""),
            lazy(
                r"_(?P<kind>auth)[ \t]*=[ \t]*[\"']?"
                r"(?P<v>[A-Za-z0-9+/]{6,1024}={0,2})(?![A-Za-z0-9+/=])"
            ),
            lazy(r"\"(?P<kind>identitytoken)\"[ \t]*:[ \t]*\"(?P<v>[^\"\s]{16,4096})\""),
        ),
        ('"auth"', "_auth", '"identitytoken"'),
        _registry_auth,
    ),
    Detector(
        (
            lazy(
                r"machine[ \t]+[^\s]{1,253}(?:\s+(?:account|port)[ \t]+[^\s]{1,253})*"
                r"\s+login[ \t]+[^\s]{1,253}(?:\s+(?:account|port)[ \t]+[^\s]{1,253})*"
                r"\s+password[ \t]+(?P<v>[^\s]{1,256})"
            ),
        ),
        ("machine",),
        _judged("netrc-password", loose=True),
    ),
    Detector(
        (
            lazy(
                r"mysql(?:dump|admin|import|check|slap|sh|binlog)?[ \t][^\r\n|;&]{0,200}?"
                rf"(?<=[ \t])-p{_CLI_VALUE}"
            ),
            lazy(rf"mariadb(?:-dump|-admin)?[ \t][^\r\n|;&]{{0,200}}?(?<=[ \t])-p{_CLI_VALUE}"),
            lazy(rf"sshpass[ \t]+-p[ \t]*{_CLI_VALUE}"),
            lazy(rf"redis-cli[ \t][^\r\n|;&]{{0,200}}?(?<=[ \t])-a[ \t]+{_CLI_VALUE}"),
        ),
        ("mysql", "mariadb", "sshpass", "redis-cli"),
        _judged("cli-password"),
    ),
    Detector(
        (
            lazy(
                r"curl[ \t][^\r\n]{0,400}?(?<=[ \t])(?:-u[ \t]*|--user[ \t=]+)[\"']?"
                r"(?P<user>[^\s:'\"]{0,128}):(?P<v>[^\s'\"]{1,256})"
            ),
        ),
        ("curl",),
        _judged("cli-password", same_as="user"),
    ),
    Detector(
        (lazy(rf"--pass(?:word)?[ \t]+{_CLI_VALUE}"),),
        ("--pass",),
        _judged("cli-password", loose=True),
    ),
    Detector(
        (
            lazy(
                r"AC(?<![A-Za-z0-9]AC)(?P<sid>[0-9a-f]{32})(?![A-Za-z0-9])[\s\S]{1,160}?"
                r"(?<![A-Za-z0-9])(?P<v>[0-9a-f]{32})(?![A-Za-z0-9])"
            ),
        ),
        ("AC",),
        _twilio,
    ),
    Detector(
        # Found at the "." before the 6-character part (a literal: fast to search); the
        # judge walks back to the id part before it.
        (
            lazy(
                r"\.(?<=[A-Za-z0-9_-]{23}\.)[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}"
                r"(?![A-Za-z0-9_-])"
            ),
        ),
        (".",),
        _discord,
        dense=True,
    ),
    Detector(
        (lazy(r":A(?<=[0-9]:A)[A-Za-z0-9_-]{34}(?![A-Za-z0-9_-])"),),
        (":A",),
        _telegram,
        dense=True,
    ),
    Detector(
        (
            lazy(r"key-(?<![A-Za-z0-9_]key-)[0-9a-f]{32}(?![A-Za-z0-9])"),
            lazy(r"(?<![A-Za-z0-9])[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}(?![A-Za-z0-9])"),
        ),
        ("key-", "-"),
        _mailgun,
        context=("mailgun",),
        dense=True,
    ),
    Detector(
        (lazy(r"sig=(?P<v>[A-Za-z0-9%+/]{20,200}(?:%3[Dd]|=){0,2})(?![A-Za-z0-9%+/=])"),),
        ("sig=",),
        _azure_sas,
        dense=True,
    ),
    Detector(
        (
            lazy(
                r"^[ \t]*[^\s:#]{1,253}:(?:[0-9]{1,5}|\*):[^\s:]{1,128}:[^\s:]{1,128}:"
                r"(?P<v>\S{1,256})",
                re.MULTILINE,
            ),
        ),
        (),
        _judged("pgpass-password"),
        context=("pgpass",),
    ),
)
