"""lore.storage.jsonl: one-write appends and tolerant reads that report every bad line."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lore.storage import jsonl
from lore.storage.jsonl import ReadIssue


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "d" / "records.jsonl"


def test_append_writes_one_line_per_record_with_trailing_newline(log: Path) -> None:
    jsonl.append(log, [{"id": "a", "n": 1}])
    jsonl.append(log, [{"id": "b", "n": 2}, {"id": "c", "list": [1, "x"]}])

    assert log.read_bytes() == (b'{"id":"a","n":1}\n{"id":"b","n":2}\n{"id":"c","list":[1,"x"]}\n')
    rows, issues = jsonl.read(log)
    assert rows == [
        (1, {"id": "a", "n": 1}),
        (2, {"id": "b", "n": 2}),
        (3, {"id": "c", "list": [1, "x"]}),
    ]
    assert issues == []


def test_many_records_in_one_append_are_one_write(
    log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jsonl.append(log, [{"id": "first"}])
    writes: list[bytes] = []
    real_write = os.write

    def spy(fd: int, data: Any) -> int:
        writes.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", spy)
    objs = [{"id": f"r{i}", "text": "x" * 100} for i in range(50)]
    jsonl.append(log, objs)

    assert writes == [b"".join(orjson.dumps(o) + b"\n" for o in objs)]
    assert len(log.read_bytes().splitlines()) == 51


def test_append_of_nothing_creates_nothing(log: Path) -> None:
    jsonl.append(log, [])
    assert not log.exists()
    assert not log.parent.exists()


def test_read_missing_file_is_empty(log: Path) -> None:
    assert jsonl.read(log) == ([], [])


def test_torn_last_line_is_a_warning_and_good_lines_are_returned(log: Path) -> None:
    log.parent.mkdir()
    log.write_bytes(b'{"id":"a"}\n{"id":"b"}\n{"id":"c","te')

    rows, issues = jsonl.read(log)

    assert rows == [(1, {"id": "a"}), (2, {"id": "b"})]
    assert issues == [
        ReadIssue(str(log), 3, "incomplete last line (torn write?) skipped", "torn-line", "warning")
    ]
    assert str(issues[0]) == f"{log}:3: incomplete last line (torn write?) skipped"
    assert issues[0].to_dict() == {
        "file": str(log),
        "line": 3,
        "code": "torn-line",
        "severity": "warning",
        "message": "incomplete last line (torn write?) skipped",
    }


def test_append_after_torn_tail_starts_a_new_line_and_keeps_the_fragment(log: Path) -> None:
    log.parent.mkdir()
    log.write_bytes(b'{"id":"a"}\n{"id":"b","te')

    jsonl.append(log, [{"id": "c"}])

    assert log.read_bytes() == b'{"id":"a"}\n{"id":"b","te\n{"id":"c"}\n'
    rows, issues = jsonl.read(log)
    assert rows == [(1, {"id": "a"}), (3, {"id": "c"})]
    assert [(i.file, i.line, i.code, i.severity) for i in issues] == [
        (str(log), 2, "parse", "error")
    ]
    assert issues[0].message.startswith("invalid JSON: ")


def test_valid_last_line_without_newline_is_read_and_next_append_separates_it(
    log: Path,
) -> None:
    log.parent.mkdir()
    log.write_bytes(b'{"id":"a"}')
    assert jsonl.read(log) == ([(1, {"id": "a"})], [])

    jsonl.append(log, [{"id": "b"}])

    assert log.read_bytes() == b'{"id":"a"}\n{"id":"b"}\n'


def test_corrupt_middle_line_is_reported_and_never_dropped(log: Path) -> None:
    original = b'{"id":"a"}\n{"id": broken\n{"id":"c"}\n'
    log.parent.mkdir()
    log.write_bytes(original)

    rows, issues = jsonl.read(log)
    jsonl.append(log, [{"id": "d"}])

    assert rows == [(1, {"id": "a"}), (3, {"id": "c"})]
    assert len(issues) == 1
    assert (issues[0].file, issues[0].line, issues[0].code) == (str(log), 2, "parse")
    assert issues[0].severity == "error"
    assert str(issues[0]).startswith(f"{log}:2: invalid JSON: ")
    assert log.read_bytes() == original + b'{"id":"d"}\n'


def test_conflict_markers_are_reported_as_such(log: Path) -> None:
    log.parent.mkdir()
    log.write_bytes(
        b'{"id":"base"}\n'
        b"<<<<<<< HEAD\n"
        b'{"id":"ours"}\n'
        b"||||||| merged common ancestors\n"
        b"=======\n"
        b'{"id":"theirs"}\n'
        b">>>>>>> feature\n"
    )

    rows, issues = jsonl.read(log)

    assert rows == [(1, {"id": "base"}), (3, {"id": "ours"}), (6, {"id": "theirs"})]
    assert [(i.line, i.code, i.severity, i.message) for i in issues] == [
        (2, "conflict-marker", "error", "git conflict marker"),
        (4, "conflict-marker", "error", "git conflict marker"),
        (5, "conflict-marker", "error", "git conflict marker"),
        (7, "conflict-marker", "error", "git conflict marker"),
    ]


def test_blank_lines_are_ignored_and_line_numbers_stay_true(log: Path) -> None:
    log.parent.mkdir()
    log.write_bytes(b'\n{"id":"a"}\n\n   \n\t\n{"id":"b"}\n\n')

    assert jsonl.read(log) == ([(2, {"id": "a"}), (6, {"id": "b"})], [])


@pytest.mark.parametrize("line", [b"[1, 2]", b'"text"', b"42", b"null", b"true"])
def test_non_object_lines_are_reported(log: Path, line: bytes) -> None:
    log.parent.mkdir()
    log.write_bytes(b'{"id":"a"}\n' + line + b'\n{"id":"b"}\n')

    rows, issues = jsonl.read(log)

    assert rows == [(1, {"id": "a"}), (3, {"id": "b"})]
    assert issues == [ReadIssue(str(log), 2, "line is not a JSON object", "not-object")]


UNICODE_VALUES = {
    "emoji": "deploy 🚀🔥 👩🏽‍💻 family 👨‍👩‍👧‍👦",
    "rtl": "שלום עולם مرحبا بالعالم",
    "combining": "e\u0301 a\u0308 n\u0303 Z\u0351\u0352\u0353",
    "controls": "".join(chr(c) for c in range(1, 32)) + "\x7f\x85",
    "newlines": "line one\nline two\r\nline three\rend",
    "separators": "a\u2028b\u2029c",
    "bom_and_zero_width": "\ufeffstart\u200bmid\u200d",
    "quotes": 'she said "hi" \\ back\\slash',
    "cjk": "記憶 メモリ 기억",
    "astral": "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \U0010fffd",
}


def test_unicode_round_trips_byte_exactly(log: Path) -> None:
    records = [{"id": key, "text": value} for key, value in UNICODE_VALUES.items()]
    records.append({"id": "keys", "ключ 🔑": "значение", "nested": UNICODE_VALUES})

    jsonl.append(log, records)

    raw = log.read_bytes()
    assert raw == b"".join(orjson.dumps(r) + b"\n" for r in records)
    # Newlines inside strings are escaped: one physical line per record.
    assert raw.count(b"\n") == len(records)
    rows, issues = jsonl.read(log)
    assert issues == []
    assert [obj for _, obj in rows] == records
    for _, obj in rows:
        if obj["id"] in UNICODE_VALUES:
            assert obj["text"].encode("utf-8") == UNICODE_VALUES[obj["id"]].encode("utf-8")


def test_multi_megabyte_record_round_trips(log: Path) -> None:
    big = ("lorem ipsum dolor sit amet 🧠 " * 200_000)[: 5 * 1024 * 1024]
    jsonl.append(log, [{"id": "small"}])
    jsonl.append(log, [{"id": "big", "text": big}])
    jsonl.append(log, [{"id": "after"}])

    assert log.stat().st_size > 5 * 1024 * 1024
    rows, issues = jsonl.read(log)
    assert issues == []
    assert [n for n, _ in rows] == [1, 2, 3]
    assert rows[1][1]["text"] == big
    assert rows[2][1] == {"id": "after"}


def test_iter_objects_yields_only_good_objects(log: Path) -> None:
    log.parent.mkdir()
    log.write_bytes(b'{"id":"a"}\nnope\n{"id":"b"}\n')
    assert list(jsonl.iter_objects(log)) == [{"id": "a"}, {"id": "b"}]


# --- properties ------------------------------------------------------------------------

json_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | json_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(json_text, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.dictionaries(json_text, json_text, max_size=6), min_size=1, max_size=5))
def test_property_text_dicts_survive_append_and_read(objs: list[dict[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.jsonl"
        jsonl.append(path, objs)
        rows, issues = jsonl.read(path)
    assert issues == []
    assert [obj for _, obj in rows] == objs
    assert [n for n, _ in rows] == list(range(1, len(objs) + 1))


@settings(max_examples=30, deadline=None)
@given(st.dictionaries(json_text, json_values, max_size=6), st.dictionaries(json_text, json_text))
def test_property_nested_values_survive_separate_appends(
    first: dict[str, Any], second: dict[str, str]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.jsonl"
        jsonl.append(path, [first])
        jsonl.append(path, [second])
        rows, issues = jsonl.read(path)
    assert issues == []
    assert rows == [(1, first), (2, second)]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.binary(max_size=30)
        | st.sampled_from([b'{"id":"x"}', b"[1]", b"<<<<<<< HEAD", b"=======", b'{"a":', b" "]),
        max_size=8,
    )
)
def test_property_any_bytes_parse_without_raising_and_every_line_is_accounted_for(
    chunks: list[bytes],
) -> None:
    raw = b"\n".join(chunks)
    rows, issues = jsonl.parse(raw, "f.jsonl")
    lines = raw.removeprefix(jsonl.BOM).split(b"\n")  # a leading byte-order mark is no data
    non_blank = {n for n, line in enumerate(lines, 1) if line.strip()}
    assert {n for n, _ in rows} | {i.line for i in issues} == non_blank
    assert not {n for n, _ in rows} & {i.line for i in issues}
    assert all(isinstance(obj, dict) for _, obj in rows)
    assert all(i.file == "f.jsonl" for i in issues)
    assert all(i.severity == "warning" for i in issues if i.code == "torn-line")


def test_lines_with_id_finds_a_records_own_lines_only(log: Path) -> None:
    creation = {"id": "fail-1", "error_type": "Timeout"}
    revision = {"_op": "revise", "id": "fail-1", "timestamp": "t", "set": {"occurrences": 2}}
    mentions = {"id": "fail-2", "note": 'see "fail-1"', "see": "fail-1"}
    log.parent.mkdir()
    log.write_bytes(
        jsonl.BOM
        + orjson.dumps(creation)
        + b"\n"
        + orjson.dumps(mentions)
        + b'\n{"id": "fail-1", broken\n'
        + b'["fail-1"]\n'
        + orjson.dumps(revision)
        + b'\n{"id": "fail-1", "torn'
    )
    found = jsonl.lines_with_id(log, "fail-1")
    assert [obj for _, obj in found] == [creation, revision]
    raw = log.read_bytes()
    assert [raw[offset : offset + 1] for offset, _ in found] == [b"\xef", b"{"]
    # What a full read keeps of that record, in the same order.
    rows, _ = jsonl.read(log)
    assert [obj for _, obj in rows if obj.get("id") == "fail-1"] == [creation, revision]


def test_lines_with_id_of_a_missing_empty_or_unreadable_log(log: Path) -> None:
    assert jsonl.lines_with_id(log, "fail-1") == []
    log.parent.mkdir()
    log.write_bytes(b"")
    assert jsonl.lines_with_id(log, "fail-1") == []
    log.unlink()
    log.mkdir()
    assert jsonl.lines_with_id(log, "fail-1") == []
