"""The secrets gate: finds credentials (API keys, tokens, private keys, passwords) in text.

``gate()`` is the one check every write of user text calls (it refuses); ``scan_*`` and
``redact()`` serve callers that report or mask instead (``lore scan``, automatic handoffs).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from lore.secrets.rules import (
    _DETECTORS,
    _KEY_NAME,
    _TRIGGER_LIMIT,
    _Detector,
    _Hit,
    _is_aws_key,
    _judge,
    _key_starts_word,
)


class SecretFinding(NamedTuple):
    """One credential: where it is (``field``), which detector found it, what it is.

    (NamedTuples here rather than frozen dataclasses: every capture imports this
    module, and each dataclass costs start-up time.)
    """

    field: str  # "rationale", "alternatives[1]", "extra.note"; "" from scan_text
    rule: str  # stable id, e.g. "aws-access-key"
    kind: str  # human words, e.g. "AWS access key ID"


# rule id -> kind. Stable ids: callers, tests and --json output rely on them.
RULES: dict[str, str] = {
    "private-key": "private key block",
    "aws-access-key": "AWS access key ID",
    "aws-secret-key": "AWS secret access key",
    "github-token": "GitHub token",
    "gitlab-token": "GitLab token",
    "slack-token": "Slack token",
    "slack-webhook": "Slack webhook URL",
    "stripe-key": "Stripe live secret key",
    "anthropic-key": "Anthropic API key",
    "openai-key": "OpenAI API key",
    "google-api-key": "Google API key",
    "npm-token": "npm access token",
    "pypi-token": "PyPI API token",
    "twilio-key": "Twilio API key",
    "sendgrid-key": "SendGrid API key",
    "azure-key": "Azure storage or service key",
    "huggingface-token": "Hugging Face token",
    "jwt": "JSON Web Token",
    "url-credentials": "password in a URL",
    "authorization-header": "credential in an Authorization header",
    "password-assignment": "hard-coded password",
    "secret-assignment": "hard-coded secret or token",
}


# --- public API -------------------------------------------------------------------------


def scan_text(text: str) -> list[SecretFinding]:
    """Credentials in ``text``: at most one finding per rule, in order of appearance."""
    first: dict[str, int] = {}
    for start, _end, rule in _hits(text):
        if start < first.get(rule, len(text)):
            first[rule] = start
    return [SecretFinding("", rule, RULES[rule]) for rule in sorted(first, key=first.__getitem__)]


def scan_fields(fields: Mapping[str, Any]) -> list[SecretFinding]:
    """Credentials in every string inside ``fields``, each tagged with its field path.

    Walks nested mappings (``extra.note``) and lists/tuples (``alternatives[1]``); other
    scalars are skipped. A string under a credential-named key (``{"password": "..."}``)
    is also judged as the value of that assignment.
    """
    items: list[tuple[str, object, str]] = []
    _collect(fields, "", None, items)
    if not items:
        return []
    keyed = any(_is_credential_key(key) for _, key, _ in items)
    # Fast path for the usual clean record: one scan over all values. A secret in a
    # field is always a secret in the joined text, since "\n" bounds every pattern.
    if not keyed and next(_hits("\n".join(value for _, _, value in items)), None) is None:
        return []
    findings: list[SecretFinding] = []
    for path, key, value in items:
        found = scan_text(value)
        findings.extend(SecretFinding(path, f.rule, f.kind) for f in found)
        rule = None if found else _keyed_rule(key, value)
        if rule:
            findings.append(SecretFinding(path, rule, RULES[rule]))
    return findings


def locate(fields: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """Every credential in ``fields`` as ``(field path, rule, the secret itself)``.

    Unlike ``scan_fields``, every occurrence is listed (``lore scan`` shows and masks each).
    """
    items: list[tuple[str, object, str]] = []
    _collect(fields, "", None, items)
    found: list[tuple[str, str, str]] = []
    for path, key, value in items:
        hits = list(_hits(value))
        found.extend((path, rule, value[start:end]) for start, end, rule in hits)
        rule = None if hits else _keyed_rule(key, value)
        if rule:
            found.append((path, rule, value.strip()))
    return found


def redact_value(value: Any, key: object = None) -> Any:
    """``value`` (a string, or lists and mappings of them) with every secret masked."""
    if isinstance(value, str):
        masked = redact(value)
        if masked == value and _keyed_rule(key, value):
            return f"[REDACTED:{_keyed_rule(key, value)}]"
        return masked
    if isinstance(value, (dict, Mapping)):
        return {name: redact_value(item, name) for name, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(item) for item in value]
    return value


def gate(fields: Mapping[str, Any], *, allow_secret: bool = False) -> None:
    """The one secrets gate every write of user text passes: refuse any credential.

    Raises ``SecretError`` (exit 7) naming the first finding's field and kind, with every
    finding in ``findings``; ``allow_secret`` (the ``--allow-secret`` flag) skips the scan.
    """
    if allow_secret:
        return
    findings = scan_fields(fields)
    if not findings:
        return
    from lore.errors import SecretError

    first = findings[0]
    raise SecretError(
        f"refusing to write: {first.field} looks like it holds a secret ({first.kind}); "
        "remove it, or pass --allow-secret if this is not a real credential",
        field=first.field,
        secret=first.rule,
        findings=[{"field": f.field, "rule": f.rule, "kind": f.kind} for f in findings],
    )


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<rule>]``.

    Only the secret itself is replaced: the value of ``password=...``, the password in
    ``scheme://user:password@host``, the token after ``Authorization: Bearer``.
    """
    spans = sorted(_hits(text))
    if not spans:
        return text
    parts: list[str] = []
    pos = 0
    for start, end, rule in spans:
        parts.append(text[pos:start])
        parts.append(f"[REDACTED:{rule}]")
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


# --- engine -----------------------------------------------------------------------------


_TRIGGERS = tuple((t, i) for i, d in enumerate(_DETECTORS) if not d.lower for t in d.triggers)
_LOWER_TRIGGERS = tuple((t, i) for i, d in enumerate(_DETECTORS) if d.lower for t in d.triggers)


def _lowered(text: str) -> str:
    """``text.lower()`` at the same length, so offsets in it index ``text`` too."""
    low = text.lower()
    if len(low) != len(text):  # "İ" is the one character that lowercases to two
        low = text.replace("\u0130", "I").lower()
    return low


def _matches(detector: _Detector, haystack: str) -> Iterator[re.Match[str]]:
    if len(detector.patterns) == 1:
        return detector.patterns[0].finditer(haystack)
    found = [m for pattern in detector.patterns for m in pattern.finditer(haystack)]
    return iter(sorted(found, key=lambda m: m.start()))


def _hits(text: str) -> Iterator[_Hit]:
    """Every real secret in ``text``, detector by detector; spans never overlap."""
    if not text:
        return
    low = _lowered(text)
    if len(text) <= _TRIGGER_LIMIT:
        # Substring tests are far cheaper than regex calls on short text, and most text
        # trips none. On long text each literal-prefixed pattern is about as fast as the
        # substring test it would save, so every detector runs.
        active = {i for trigger, i in _TRIGGERS if trigger in text}
        active.update(i for trigger, i in _LOWER_TRIGGERS if trigger in low)
        if not active:
            return
        detectors = [d for i, d in enumerate(_DETECTORS) if i in active]
    else:
        detectors = list(_DETECTORS)
    claimed: list[tuple[int, int]] = []  # sorted and non-overlapping
    for detector in detectors:
        haystack = low if detector.lower else text
        new: list[tuple[int, int]] = []
        index = 0
        for m in _matches(detector, haystack):
            if new and m.start() < new[-1][1]:
                continue  # inside this detector's previous hit
            hit = detector.accept(m, text)
            if hit is None or (new and hit[0] < new[-1][1]):
                continue  # a placeholder, or overlapping this detector's previous hit
            while index < len(claimed) and claimed[index][1] <= hit[0]:
                index += 1
            if index < len(claimed) and claimed[index][0] < hit[1]:
                continue  # already reported by a more specific detector
            new.append((hit[0], hit[1]))
            yield hit
        if new:
            claimed = sorted(claimed + new)


def _key_name(key: object) -> re.Match[str] | None:
    """The credential name a mapping key ends with: "db_password", "apiKey", "TOKEN"."""
    if not isinstance(key, str) or not key or len(key) > 200:
        return None
    m = _KEY_NAME.search(key)
    return m if m and _key_starts_word(key, m.start()) else None


_KEY_CACHE: dict[str, bool] = {}  # records repeat the same few keys


def _is_credential_key(key: object) -> bool:
    if not isinstance(key, str):
        return False
    known = _KEY_CACHE.get(key)
    if known is None:
        if len(_KEY_CACHE) >= 4096:
            _KEY_CACHE.clear()
        known = _KEY_CACHE[key] = _key_name(key) is not None
    return known


def _keyed_rule(key: object, value: str) -> str | None:
    """The rule a string breaks by being stored under a credential-named key."""
    m = _key_name(key) if _is_credential_key(key) else None
    if m is None:
        return None
    name = m.group().lower()
    value = value.strip()
    aws = name.startswith("secret") and _is_aws_key(name, m.string, m.start())
    hit = _judge(name, aws, value, 0, len(value))
    return hit[2] if hit else None


def _collect(value: Any, path: str, key: object, out: list[tuple[str, object, str]]) -> None:
    """Append ``(field path, mapping key, text)`` for every string inside ``value``."""
    if isinstance(value, str):
        out.append((path, key, value))
    elif value is None or isinstance(value, (bool, int, float)):
        return  # the common non-string scalars; skip the slower Mapping check
    elif isinstance(value, (dict, Mapping)):
        for name, item in value.items():
            _collect(item, f"{path}.{name}" if path else str(name), name, out)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _collect(item, f"{path}[{i}]", None, out)
