"""lore.storage.fastyaml's writer: byte for byte what ruamel writes, or it declines."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lore.storage import yamlio
from lore.storage.fastyaml import Unsure, flat_dump, flat_yaml

_words = st.text(
    alphabet=st.sampled_from(list("abcXYZé019 -_.,:;'\"#@!?()[]{}/\\|*&%`~=+<>\t")),
    max_size=40,
)
_text = _words | st.sampled_from(
    [
        "",
        "null",
        "Yes",
        "no",
        "~",
        "2026-11-22T14:33:03.395749Z",
        "it's: tricky",
        "ends:",
        "a #b",
        "x" * 95,
        "word " * 20,
        "café au lait",
        "line\nbreak",
        " lead",
        "trail ",
        "1 GB",
        "12:30",
    ]
)
_value = st.one_of(
    _text,
    st.none(),
    st.booleans(),
    st.integers(-(10**9), 10**9),
    st.floats(allow_nan=False, allow_infinity=False),
    st.lists(_text, max_size=4),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True), _value, min_size=1))
def test_writes_what_ruamel_writes_or_declines(data: dict[str, Any]) -> None:
    fast = flat_dump(data)
    if fast is None:
        return
    assert fast == yamlio.dumps(data).decode("utf-8")
    assert yamlio.to_plain(yamlio.loads(fast, "x.yaml")) == data


def test_a_lore_pattern_is_written_fast_and_reads_back(store: Any) -> None:
    data = {
        "id": "pat-0123456789ab",
        "timestamp": "2026-11-22T14:33:03.395749Z",
        "name": "Retry flaky network calls",
        "solution": "three tries: exponential backoff",
        "confidence": 0.5,
        "validations": 0,
        "examples": [],
        "session_id": None,
        "tags": ["http", "net"],
        "v": 1,
    }
    fast = flat_dump(data)
    assert fast == (
        "id: pat-0123456789ab\n"
        "timestamp: '2026-11-22T14:33:03.395749Z'\n"
        "name: Retry flaky network calls\n"
        "solution: 'three tries: exponential backoff'\n"
        "confidence: 0.5\n"
        "validations: 0\n"
        "examples: []\n"
        "session_id:\n"
        "tags:\n"
        "  - http\n"
        "  - net\n"
        "v: 1\n"
    )
    assert fast == yamlio.dumps(data).decode("utf-8")
    try:
        assert flat_yaml(fast) == data
    except Unsure:
        pytest.fail("the fast reader declines what the fast writer wrote")


@pytest.mark.parametrize(
    "value",
    [{"nested": 1}, [{"text": "criterion"}], "two\nlines", "x" * 120, "null", "1e3", 1e-05],
)
def test_declines_what_ruamel_must_write(value: Any) -> None:
    assert flat_dump({"key": value}) is None


def test_declines_ruamels_own_containers_and_odd_keys() -> None:
    from ruamel.yaml.comments import CommentedMap

    assert flat_dump(CommentedMap(name="x")) is None  # a round-trip tree keeps its comments
    assert flat_dump({"Name": "x"}) is None
    assert flat_dump({}) is None
