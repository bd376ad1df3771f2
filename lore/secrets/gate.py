"""The secrets gate: finds credentials (API keys, tokens, private keys, passwords) in text.

``gate()`` is the one check every write of user text calls (it refuses); ``scan_*`` and
``redact()`` serve callers that report or mask instead (``lore scan``, automatic handoffs).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from lore.secrets.keys import KEY_NAME, key_starts_word, keyed_rule
from lore.secrets.policy import DENSE_RUN, TRIGGER_LIMIT, Detector, Hit, lazy
from lore.secrets.rules import DETECTORS, KINDS

# How a refusal names the way past it (a face without --allow-secret replaces it).
ALLOW_HINT = ", or pass --allow-secret if this is not a real credential"


class SecretFinding(NamedTuple):
    """One credential: where it is (``field``), which detector found it, what it is.

    (NamedTuples here rather than frozen dataclasses: every capture imports this
    module, and each dataclass costs start-up time.)
    """

    field: str  # "rationale", "alternatives[1]", "extra.note"; "" from scan_text
    rule: str  # stable id, e.g. "aws-access-key"
    kind: str  # human words, e.g. "AWS access key ID"


# rule id -> kind. Stable ids: callers, tests and --json output rely on them.
RULES: dict[str, str] = KINDS


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
    scalars are skipped. Mapping keys are scanned too (a key that holds a secret is
    reported under its path, masked). A string under a credential-named key
    (``{"password": "..."}``) is also judged as the value of that assignment.
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
        findings.extend(SecretFinding(_masked(path), f.rule, f.kind) for f in found)
        rule = None if found else keyed_rule(key, value)
        if rule:
            findings.append(SecretFinding(_masked(path), rule, RULES[rule]))
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
        found.extend((_masked(path), rule, value[start:end]) for start, end, rule in hits)
        rule = None if hits else keyed_rule(key, value)
        if rule:
            found.append((_masked(path), rule, value.strip()))
    return found


def redact_value(value: Any, key: object = None) -> Any:
    """``value`` (a string, or lists and mappings of them) with every secret masked."""
    if isinstance(value, str):
        masked = redact(value)
        rule = keyed_rule(key, value) if masked == value else None
        return f"[REDACTED:{rule}]" if rule else masked
    if isinstance(value, (dict, Mapping)):
        return {
            redact(name) if isinstance(name, str) else name: redact_value(item, name)
            for name, item in value.items()
        }
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
        f"remove it{ALLOW_HINT}",
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


_MARKER = "[REDACTED:"
_MARKERS = lazy(r"\[REDACTED:[a-z0-9-]{1,40}\]")
# Characters that gate whole groups of triggers: one test of "_" rules out every
# trigger holding it ("ghp_", "npm_", ...) in text without one, as most prose is.
_GATES = ("_", "~", "$", "-", ".", ":", "/", "=", '"')


_Groups = tuple[tuple[str, tuple[tuple[str, int], ...]], ...]


def _trigger_groups() -> tuple[_Groups, _Groups, _Groups]:
    """The triggers of the plain, the lower-case and the dense detectors, each as
    ``((gate, ((trigger, detector bits), ...)), ...)`` (gate "" for triggers with none),
    every distinct trigger once, shorter ones first."""
    bits: tuple[dict[str, int], dict[str, int], dict[str, int]] = ({}, {}, {})
    for i, detector in enumerate(DETECTORS):
        which = bits[2 if detector.dense else 1 if detector.lower else 0]
        for trigger in detector.triggers:
            which[trigger] = which.get(trigger, 0) | 1 << i
    out = []
    for found in bits:
        groups: dict[str, list[tuple[str, int]]] = {}
        for trigger in sorted(found, key=len):
            gate = ""
            for candidate in _GATES:
                if candidate in trigger:
                    gate = candidate
                    break
            groups.setdefault(gate, []).append((trigger, found[trigger]))
        out.append(tuple((gate, tuple(group)) for gate, group in groups.items()))
    return out[0], out[1], out[2]


_GROUPS, _LOWER_GROUPS, _DENSE_GROUPS = _trigger_groups()
_ALWAYS = sum(1 << i for i, d in enumerate(DETECTORS) if not d.triggers)  # no literal
_CONTEXT = tuple((1 << i, d.context) for i, d in enumerate(DETECTORS) if d.context)
_EVERY = (1 << len(DETECTORS)) - 1
_EVERY_DENSE = sum(1 << i for i, d in enumerate(DETECTORS) if d.dense)


def _triggered(haystack: str, groups: _Groups) -> int:
    found = 0
    for gate, group in groups:
        if not gate or gate in haystack:
            for trigger, bits in group:
                if trigger in haystack:
                    found |= bits
    return found


def _lowered(text: str) -> str:
    """``text.lower()`` at the same length, so offsets in it index ``text`` too."""
    low = text.lower()
    if len(low) != len(text):  # "İ" is the one character that lowercases to two
        low = text.replace("\u0130", "I").lower()
    return low


def _matches(detector: Detector, haystack: str) -> Iterator[re.Match[str]]:
    if len(detector.patterns) == 1:
        return detector.patterns[0].finditer(haystack)
    found = [m for pattern in detector.patterns for m in pattern.finditer(haystack)]
    return iter(sorted(found, key=lambda m: m.start()))


def _dense(text: str) -> str:
    """The runs of ``DENSE_RUN`` or more characters without whitespace, one per line."""
    # Each distinct run once: a trigger test needs no repeats (logs and code repeat a lot).
    return "\n".join(dict.fromkeys([run for run in text.split() if len(run) >= DENSE_RUN]))


def _active(text: str, low: str) -> list[Detector]:
    """The detectors that can match ``text``, less those whose context word it lacks.

    Substring tests for each detector's triggers are far cheaper than its regex on short
    text; on long text each literal-prefixed pattern is about as fast as the test it
    would save, so every detector runs. The dense detectors' triggers are looked for in
    the text's long runs only (``_dense``), which is worth it while those are a small
    part of the text (prose, most records), whatever its length.
    """
    if len(text) <= TRIGGER_LIMIT:
        active = _triggered(text, _GROUPS) | _triggered(low, _LOWER_GROUPS) | _ALWAYS
    else:
        active = _EVERY & ~_EVERY_DENSE
    dense = _dense(text)
    if len(dense) * 2 > len(text) and len(text) > TRIGGER_LIMIT:
        active |= _EVERY_DENSE
    elif dense:
        active |= _triggered(dense, _DENSE_GROUPS)
    for bit, words in _CONTEXT:
        if active & bit and not any(word in low for word in words):
            active &= ~bit
    found = []
    while active:  # the set bits, lowest first: the detectors' order
        bit = active & -active
        found.append(DETECTORS[bit.bit_length() - 1])
        active ^= bit
    return found


def _hits(text: str) -> Iterator[Hit]:
    """Every real secret in ``text``, detector by detector; spans never overlap.

    A redaction marker (``[REDACTED:github-token]``) is never part of a finding, so a
    masked text scans clean: ``https://[REDACTED:github-token]@host`` holds no password.
    """
    if not text:
        return
    low = _lowered(text)
    detectors = _active(text, low)
    if not detectors:
        return
    # sorted and non-overlapping spans already reported (or masked)
    claimed: list[tuple[int, int]] = (
        [m.span() for m in _MARKERS.finditer(text)] if _MARKER in text else []
    )
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
                continue  # already reported by a more specific detector, or a mask
            new.append((hit[0], hit[1]))
            yield hit
        if new:
            claimed = sorted(claimed + new)


def _masked(path: str) -> str:
    """A field path with any secret in it (a mapping key that is a token) masked."""
    return redact(path) if path else path


_KEY_CACHE: dict[str, bool] = {}  # records repeat the same few keys


def _is_credential_key(key: object) -> bool:
    if not isinstance(key, str):
        return False
    known = _KEY_CACHE.get(key)
    if known is None:
        if len(_KEY_CACHE) >= 4096:
            _KEY_CACHE.clear()
        known = _KEY_CACHE[key] = _credential_name(key)
    return known


def _credential_name(key: str) -> bool:
    if not key or len(key) > 200:
        return False
    m = KEY_NAME.search(key)
    return m is not None and key_starts_word(key, m.start(), m.end())


def _collect(value: Any, path: str, key: object, out: list[tuple[str, object, str]]) -> None:
    """Append ``(field path, mapping key, text)`` for every string inside ``value``, and
    ``("<path>.<key NAME>", None, NAME)`` for every mapping key that is a string."""
    if isinstance(value, str):
        out.append((path, key, value))
    elif value is None or isinstance(value, (bool, int, float)):
        return  # the common non-string scalars; skip the slower Mapping check
    elif isinstance(value, (dict, Mapping)):
        for name, item in value.items():
            if isinstance(name, str):  # the key itself: "extra.<key NAME>"
                out.append((f"{path}.<key {name}>" if path else f"<key {name}>", None, name))
            _collect(item, f"{path}.{name}" if path else str(name), name, out)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _collect(item, f"{path}[{i}]", None, out)
