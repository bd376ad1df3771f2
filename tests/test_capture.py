"""lore.capture without the CLI: routing, building records, checks and near-duplicates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lore.capture.build import build, detect_project, route, split_list
from lore.capture.checks import SIMILARITY_THRESHOLD, check, find_duplicate, normalize
from lore.capture.core import capture
from lore.errors import DuplicateError, InvalidInputError, NotFoundError, UsageError
from lore.store.core import Store

NOW = "2026-03-04T05:06:07.123456Z"

# --- route ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("decision", "decision"),
        ("decisions", "decision"),
        ("pattern", "pattern"),
        ("anti-pattern", "anti-pattern"),
        ("anti_pattern", "anti-pattern"),
        ("failure", "failure"),
        ("observation", "observation"),
        ("evidence", "evidence"),
        ("concept", "concept"),
    ],
)
def test_route_explicit_kind_wins_over_flags(kind: str, expected: str) -> None:
    assert route(kind, {"error_type": "Timeout", "solution": "s", "rationale": "r"}) == expected


@pytest.mark.parametrize("kind", ["goal", "session", "project", "edge"])
def test_route_refuses_kinds_capture_cannot_make(kind: str) -> None:
    with pytest.raises(UsageError, match=f"cannot capture a {kind}"):
        route(kind, {})


def test_route_unknown_kind_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown record kind 'bogus'"):
        route("bogus", {})


@pytest.mark.parametrize(
    ("flag", "value", "expected"),
    [
        ("error_type", "Timeout", "failure"),
        ("tool", "npm", "failure"),
        ("step", "test", "failure"),
        ("symptom", "s", "anti-pattern"),
        ("risk", "r", "anti-pattern"),
        ("fix", "f", "anti-pattern"),
        ("severity", "high", "anti-pattern"),
        ("solution", "s", "pattern"),
        ("problem", "p", "pattern"),
        ("context", "c", "pattern"),
        ("category", "c", "pattern"),
        ("origin", "o", "pattern"),
        ("confidence", "0.8", "pattern"),
        ("examples", ["e"], "pattern"),
        ("provenance", "p", "evidence"),
        ("supports", ["dec-1"], "evidence"),
        ("confidence", "confirmed", "evidence"),
        ("confidence", "Preliminary", "evidence"),
        ("confidence", " CONTESTED ", "evidence"),
        ("confidence", "superseded", "evidence"),
        ("rationale", "r", "decision"),
        ("alternatives", ["a"], "decision"),
        ("type", "tooling", "decision"),
        ("files", ["a.py"], "decision"),
        ("entities", ["x"], "decision"),
        ("outcome", "successful", "decision"),
        ("lesson_learned", "l", "decision"),
        ("related_decisions", ["dec-1"], "decision"),
        ("supersedes", "dec-1", "decision"),
        ("description", "d", "concept"),
        ("aliases", ["a"], "concept"),
    ],
)
def test_route_by_flag_family(flag: str, value: Any, expected: str) -> None:
    assert route(None, {flag: value}) == expected


def test_route_without_flags_is_an_observation() -> None:
    assert route(None, {}) == "observation"
    # empty values do not count as given
    assert route(None, {"rationale": "", "tool": None, "aliases": [], "examples": ()}) == (
        "observation"
    )


# Each family, strongest first: adding a stronger flag always changes the route.
PRECEDENCE = [
    ("concept", {"description": "d"}),
    ("decision", {"rationale": "r"}),
    ("evidence", {"provenance": "p"}),
    ("pattern", {"solution": "s"}),
    ("anti-pattern", {"symptom": "s"}),
    ("failure", {"error_type": "Timeout"}),
]


@pytest.mark.parametrize("depth", range(1, len(PRECEDENCE) + 1))
def test_route_precedence(depth: int) -> None:
    fields: dict[str, Any] = {}
    for _, flags in PRECEDENCE[:depth]:
        fields.update(flags)
    assert route(None, fields) == PRECEDENCE[depth - 1][0]


def test_route_confidence_level_with_a_pattern_flag_is_still_a_pattern() -> None:
    # the level word turns --confidence into an evidence flag, but pattern beats evidence
    assert route(None, {"confidence": "confirmed", "solution": "s"}) == "pattern"
    assert route(None, {"confidence": "confirmed", "rationale": "r"}) == "evidence"


# --- split_list / detect_project -------------------------------------------------------


def test_split_list() -> None:
    assert split_list(None) == []
    assert split_list("a, b,,a ,") == ["a", "b"]
    assert split_list(["a,b", "c", "b", " ", "d , a"]) == ["a", "b", "c", "d"]


def test_detect_project(monkeypatch: pytest.MonkeyPatch) -> None:
    assert detect_project() is None  # conftest's cwd is not in a repository
    monkeypatch.setenv("LORE_PROJECT", " envproj ")
    assert detect_project() == "envproj"
    assert detect_project(" flagproj ") == "flagproj"
    assert detect_project("") == "envproj"  # an empty --project is not given
    monkeypatch.setenv("LORE_PROJECT", "  ")
    assert detect_project() is None


# --- build ---------------------------------------------------------------------------


def _build(kind: str, text: str, fields: dict[str, Any] | None = None, **kw: Any) -> Any:
    kw.setdefault("timestamp", NOW)
    kw.setdefault("record_id", None)
    return build(kind, text, fields or {}, **kw)


def test_build_observation_exact() -> None:
    captured = _build("observation", "  CI is slow \n", record_id="obs-000000000001")
    assert captured.warnings == []
    assert captured.record.to_dict() == {
        "id": "obs-000000000001",
        "timestamp": NOW,
        "content": "CI is slow",
        "status": "raw",
        "promoted_to": None,
        "discard_reason": "",
        "session_id": None,
        "project": None,
        "source": "manual",
        "tags": [],
        "v": 1,
    }


def test_build_assigns_a_fresh_id_and_canonical_timestamp() -> None:
    one = build("observation", "x", {}, timestamp="2026-03-04T06:06:07+01:00").record
    two = build("observation", "x", {}).record
    assert one.timestamp == "2026-03-04T05:06:07.000000Z"
    assert one.id.startswith("obs-") and len(one.id) == len("obs-") + 12
    assert one.id != two.id
    assert two.timestamp.endswith("Z")


def test_build_decision_exact() -> None:
    captured = _build(
        "decision",
        "Use `orjson` in src/io.py because: fast vs: json, ujson",
        {
            "type": "tooling",
            "outcome": "successful",
            "files": ["pyproject.toml, src/io.py"],
            "entities": ["serialization"],
            "lesson_learned": "measure first",
            "related_decisions": ["dec-aaaaaaaaaaaa,dec-bbbbbbbbbbbb", "dec-aaaaaaaaaaaa"],
        },
        tags=["perf,io", "perf"],
        project="web",
        source="agent",
        session_id="session-abcd",
        record_id="dec-000000000001",
    )
    assert captured.warnings == []
    assert captured.record.to_dict() == {
        "id": "dec-000000000001",
        "timestamp": NOW,
        "decision": "Use `orjson` in src/io.py",
        "rationale": "fast",
        "alternatives": ["json", "ujson"],
        "outcome": "successful",
        "type": "tooling",
        "entities": ["serialization", "pyproject.toml", "src/io.py", "orjson"],
        "files": ["pyproject.toml", "src/io.py"],
        "lesson_learned": "measure first",
        "related_decisions": ["dec-aaaaaaaaaaaa", "dec-bbbbbbbbbbbb"],
        "git_commit": None,
        "status": "active",
        "superseded_by": None,
        "spec_quality": 0.85,  # everything but detail (4 words)
        "supersedes": [],
        "contradicts": [],
        "derived_from": None,
        "session_id": "session-abcd",
        "project": "web",
        "source": "agent",
        "tags": ["perf", "io", "web"],
        "v": 1,
    }


def test_build_decision_flags_win_over_inline_text() -> None:
    record = _build(
        "decision",
        "Use X because: inline why vs: inline alt",
        {"rationale": "flag why", "alternatives": ["flag alt"]},
    ).record
    assert (record.decision, record.rationale, record.alternatives) == (
        "Use X",
        "flag why",
        ["flag alt"],
    )


def test_build_pattern_exact() -> None:
    record = _build(
        "pattern",
        "Retry on 429",
        {
            "solution": "backoff",
            "problem": "rate limits",
            "context": "HTTP clients",
            "category": "network",
            "origin": "incident 12",
            "confidence": "0.8",
            "examples": ["a, b", "c"],  # examples are not split on commas
        },
        record_id="pat-000000000001",
    ).record
    assert record.to_dict() == {
        "id": "pat-000000000001",
        "timestamp": NOW,
        "name": "Retry on 429",
        "context": "HTTP clients",
        "problem": "rate limits",
        "solution": "backoff",
        "category": "network",
        "origin": "incident 12",
        "confidence": 0.8,
        "validations": 0,
        "examples": ["a, b", "c"],
        "status": "active",
        "flags": [],
        "inverted_to": None,
        "session_id": None,
        "project": None,
        "source": "manual",
        "tags": [],
        "v": 1,
    }


def test_build_anti_pattern_failure_evidence_concept() -> None:
    anti = _build(
        "anti-pattern",
        "Sleep in tests",
        {"symptom": "flaky", "risk": "slow", "fix": "poll", "severity": "high", "category": "t"},
    ).record
    assert (anti.name, anti.symptom, anti.risk, anti.fix, anti.severity, anti.category) == (
        "Sleep in tests",
        "flaky",
        "slow",
        "poll",
        "high",
        "t",
    )
    fail = _build("failure", "exit 1", {"error_type": "NonZeroExit", "tool": "npm", "step": "t"})
    assert (fail.record.error_message, fail.record.error_type, fail.record.tool) == (
        "exit 1",
        "NonZeroExit",
        "npm",
    )
    assert fail.record.step == "t"
    evidence = _build(
        "evidence",
        "bench shows 2x",
        {"provenance": "bench/run.txt", "confidence": " Confirmed ", "supports": ["a,b", "a"]},
    ).record
    assert (evidence.content, evidence.provenance, evidence.confidence, evidence.supports) == (
        "bench shows 2x",
        "bench/run.txt",
        "confirmed",
        ["a", "b"],
    )
    concept = _build("concept", "Idempotency", {"description": "d", "aliases": ["idem, i"]})
    assert (concept.record.name, concept.record.description, concept.record.aliases) == (
        "Idempotency",
        "d",
        ["idem", "i"],
    )


def test_build_refuses_fields_the_kind_does_not_have() -> None:
    with pytest.raises(UsageError) as info:
        _build(
            "observation",
            "x",
            {"rationale": "r", "tool": "t", "supersedes": "dec-1", "examples": ["e"]},
        )
    assert info.value.message == (
        "not a flag of an observation: --example (pattern), --rationale (decision), "
        "--supersedes (decision), --tool (failure); nothing was written"
    )


def test_build_category_is_shared_by_pattern_and_anti_pattern() -> None:
    assert _build("anti-pattern", "x", {"category": "c"}).warnings == []
    with pytest.raises(UsageError) as info:
        _build("decision", "x", {"category": "c"})
    assert info.value.message == (
        "not a flag of a decision: --category (pattern, anti-pattern); nothing was written"
    )


@pytest.mark.parametrize("value", ["high", "2", "-0.1", "1.01"])
def test_build_pattern_confidence_must_be_a_number_in_range(value: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        _build("pattern", "x", {"confidence": value})
    assert info.value.details["field"] == "confidence"
    assert info.value.details.get("kind") == "pattern"


def test_build_project_tag_not_doubled() -> None:
    record = _build("observation", "x", tags=["web", "a"], project="web").record
    assert record.tags == ["web", "a"]


# --- check ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "fields", "field"),
    [
        ("decision", {"outcome": "bogus"}, "outcome"),
        ("decision", {"type": "bogus"}, "type"),
        ("anti-pattern", {"severity": "huge"}, "severity"),
        ("evidence", {"confidence": "0.8"}, "confidence"),
        ("failure", {"error_type": "not an identifier"}, "error_type"),
        ("failure", {}, "error_type"),
    ],
)
def test_check_names_the_field(kind: str, fields: dict[str, Any], field: str) -> None:
    record = _build(kind, "some text", fields).record
    with pytest.raises(InvalidInputError) as info:
        check(record, allow_secret=True)
    assert info.value.details == {"field": field, "kind": kind}
    assert info.value.message.startswith(f"{kind} {field} ")


def test_check_passes_a_valid_record() -> None:
    check(_build("decision", "Use X", {"rationale": "r"}).record)


# --- near-duplicates -----------------------------------------------------------------


def test_normalize() -> None:
    assert normalize("  Use RUFF, for_linting!! ") == "use ruff for linting"
    assert normalize("Straße — ÉTÉ") == "strasse été"
    assert normalize("...") == ""


def _decision(store: Store, text: str, **fields: Any) -> Any:
    return capture(store, text, kind="decision", fields=fields, allow_secret=True).record


@pytest.mark.parametrize(
    "again",
    [
        "Use ruff for linting",
        "use RUFF for linting.",
        "Use ruff -- for linting!",
        "linting: use ruff for",  # same words, another order
        "Use ruff for lintings",  # very close wording
    ],
)
def test_find_duplicate_decision(store: Store, again: str) -> None:
    first = _decision(store, "Use ruff for linting")
    candidate = _build("decision", again).record
    duplicate = find_duplicate(store, candidate)
    assert duplicate is not None and duplicate.id == first.id


@pytest.mark.parametrize(
    "other",
    ["Use black for formatting", "Use ruff for linting everywhere in CI and locally"],
)
def test_find_duplicate_accepts_different_text(store: Store, other: str) -> None:
    _decision(store, "Use ruff for linting")
    assert find_duplicate(store, _build("decision", other).record) is None


def test_find_duplicate_threshold_is_92() -> None:
    assert SIMILARITY_THRESHOLD == 92.0


def _exhaustive_duplicate(store: Store, record: Any) -> Any:
    """find_duplicate without its pre-filters: every active title goes to rapidfuzz."""
    from rapidfuzz import fuzz, process

    existing = store.records(record.kind)
    titles = [normalize(r.title) for r in existing]
    target = normalize(record.title)
    for other, title in zip(existing, titles):
        if title == target:
            return other
    match = process.extractOne(
        target, titles, scorer=fuzz.token_sort_ratio, score_cutoff=SIMILARITY_THRESHOLD
    )
    return existing[match[2]] if match else None


@pytest.mark.parametrize("mode", ["log", "index", "view"])
def test_find_duplicate_pre_filter_changes_no_answer(
    store: Store, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only titles of a reachable length are scored: the answers stay the exhaustive ones,
    including the first of equally good matches and titles at the length bound. With a
    warm index the titles come from it, and the answers are the same: in a process that
    ends after one command (``index``: the titles as they are) and in a long-lived one
    (``view``: their words sorted once, ``lore.index.dedup``, kept through adds and kills)."""
    import lore.process

    warm = mode != "log"
    monkeypatch.setattr(lore.process, "one_shot", lambda: mode == "index")
    if mode == "view":
        store.kept = {}  # as lore mcp and lore ui keep their index between calls
    stored = [
        "Use ruff for linting",
        "Use ruff for lintingx",
        "Use ruff for linting in CI",
        "Use ruff for lint",
        "Use Ruff for linting",  # an exact duplicate of the first, stored with --force
        "Straße naming rules",
        "Strasse naming rule",
        "a" * 23,
        "a" * 27,
        "b" * 200,
        "zebra crossing paint first",  # the same words as the next, earlier:
        "paint first zebra crossing",  # an equal title still wins over it
    ]
    for text in stored:
        capture(store, text, kind="decision", force=True, allow_secret=True)
    old = store.records("decision")[2]
    store.revise(old.id, {"decision": "Renamed: use ruff for all linting"})
    gone = store.records("decision")[7]  # "a" * 27: retracted, so never a duplicate
    store.revise(gone.id, {"status": "retracted"})
    if warm:
        from lore.index.persist import open_index

        open_index(store)
        real_matching = store.matching
        monkeypatch.setattr(store, "matching", lambda *a: pytest.fail("read the log"))
    probes = [
        *stored,
        "use ruff for linting!",
        "for linting use ruff",
        "Use ruff for lintin",
        "Renamed: use ruff for all lintin",
        "STRASSE naming rules",
        "a" * 25,
        "a" * 27,
        "a" * 21,
        "b" * 185,
        "b" * 184,
        "b" * 234,
        "b" * 235,
        "something else entirely",
        "Paint first: zebra crossing",
    ]
    for probe in probes:
        record = _build("decision", probe).record
        expected = _exhaustive_duplicate(store, record)
        found = find_duplicate(store, record)
        assert (found and found.id) == (expected and expected.id), probe
        if found is not None:
            assert found.to_dict() == expected.to_dict()  # the record itself, not just its id
    if warm:  # a record captured since the index was saved is seen too
        monkeypatch.setattr(store, "matching", real_matching)
        capture(store, "Adopt uv for installs", kind="decision")
        monkeypatch.setattr(store, "matching", lambda *a: pytest.fail("read the log"))
        found = find_duplicate(store, _build("decision", "adopt UV for installs!").record)
        assert found is not None and found.decision == "Adopt uv for installs"
        # ... and one retracted since is not (the view drops it: its record was killed)
        monkeypatch.setattr(store, "matching", real_matching)
        store.revise(found.id, {"status": "retracted"})
        first = store.records("decision")[0]
        store.revise(first.id, {"status": "retracted"})  # "Use ruff for linting"
        for probe in ("adopt UV for installs!", "Use ruff for linting", "use ruff for lintin"):
            record = _build("decision", probe).record
            expected = _exhaustive_duplicate(store, record)
            found = find_duplicate(store, record)
            assert (found and found.id) == (expected and expected.id), probe
        from lore.capture.checks import _WARM

        assert bool(_WARM[2].dedup) == (mode == "view")  # the view was (not) used


def test_length_bound_is_never_beaten() -> None:
    """token_sort_ratio never reaches the threshold for lengths the bound rules out."""
    from rapidfuzz import fuzz

    from lore.capture.checks import _within_reach

    target = "a" * 50
    for n in range(1, 120):
        title = "a" * n
        if not _within_reach(target, title):
            assert fuzz.token_sort_ratio(target, title) < SIMILARITY_THRESHOLD, n
    assert _within_reach(target, "a" * 43) and not _within_reach(target, "a" * 42)
    assert _within_reach(target, "a" * 58) and not _within_reach(target, "a" * 59)


def test_find_duplicate_only_same_kind_and_dedupe_kinds(store: Store) -> None:
    _decision(store, "Use ruff for linting")
    assert find_duplicate(store, _build("pattern", "Use ruff for linting").record) is None
    capture(store, "CI is slow", allow_secret=True)
    assert find_duplicate(store, _build("observation", "CI is slow").record) is None


def test_capture_refuses_duplicate_then_force_records_it(store: Store) -> None:
    first = _decision(store, "Use ruff for linting")
    path = store.location("decision")
    before = path.read_bytes()
    with pytest.raises(DuplicateError) as info:
        _decision(store, "USE ruff for linting")
    assert info.value.details == {"existing_id": first.id}
    assert path.read_bytes() == before
    forced = capture(
        store, "USE ruff for linting", kind="decision", force=True, allow_secret=True
    ).record
    assert forced.id != first.id
    assert [r.id for r in store.records("decision")] == [first.id, forced.id]


def test_pattern_and_anti_pattern_duplicates(store: Store) -> None:
    pattern = capture(store, "Retry on 429", kind="pattern", allow_secret=True).record
    with pytest.raises(DuplicateError) as info:
        capture(store, "retry ON 429!", kind="pattern", allow_secret=True)
    assert info.value.details["existing_id"] == pattern.id
    anti = capture(store, "Sleep in tests", kind="anti-pattern", allow_secret=True).record
    with pytest.raises(DuplicateError) as info:
        capture(store, "sleep in tests", kind="anti-pattern", allow_secret=True)
    assert info.value.details["existing_id"] == anti.id


def test_retracted_decision_does_not_block_recapture(store: Store) -> None:
    first = _decision(store, "Use ruff for linting")
    store.revise(first.id, {"status": "retracted"})
    again = _decision(store, "Use ruff for linting")
    assert again.id != first.id


# --- supersedes ----------------------------------------------------------------------


def test_supersedes_marks_the_old_decision(store: Store) -> None:
    old = _decision(store, "Use Postgres 14 for the main database")
    new = _decision(store, "Move to SQLite for the embedded build", supersedes=old.id)
    state = store.get(old.id)
    assert (state.status, state.superseded_by) == ("superseded", new.id)  # type: ignore[attr-defined]
    assert store.get(new.id).superseded_by is None  # type: ignore[attr-defined]
    assert [r.id for r in store.records("decision")] == [new.id]


def test_supersedes_a_near_duplicate_wording_is_not_refused(store: Store) -> None:
    # Replacing "Postgres 14" with "Postgres 15" is the point of --supersedes; the
    # decision it replaces must not count as a near-duplicate of its successor.
    old = _decision(store, "Use Postgres 14 for the main database")
    new = _decision(store, "Use Postgres 15 for the main database", supersedes=old.id)
    assert store.get(old.id).superseded_by == new.id  # type: ignore[attr-defined]


def test_supersedes_needs_an_existing_decision(store: Store, data_dir: Path) -> None:
    obs = capture(store, "an observation", allow_secret=True).record
    before = store.location("decision").exists()
    with pytest.raises(NotFoundError):
        _decision(store, "Use X", supersedes="dec-000000000000")
    with pytest.raises(InvalidInputError, match=f"needs a decision id, got observation {obs.id}"):
        _decision(store, "Use X", supersedes=obs.id)
    assert store.location("decision").exists() is before is False


def test_capture_empty_text_is_a_usage_error(store: Store) -> None:
    for text in ("", "   \n\t"):
        with pytest.raises(UsageError, match="nothing to capture: the text is empty"):
            capture(store, text)


def test_exists_reads_a_log_or_the_warm_index_alike(store: Store) -> None:
    """A stable id asked about once (a hook) is looked up in the log's lines; a process
    that has the index warm (an ingestion) asks it instead: the answers are the same."""
    from lore.capture import checks
    from lore.index.persist import rebuild

    fields = {"error_type": "Timeout", "tool": "see fail-000000000003"}  # names another id
    kept = capture(store, "deploy timed out", kind="failure", record_id="fail-000000000001",
                   fields={"error_type": "Timeout"})  # fmt: skip
    gone = capture(store, "disk full", kind="failure", record_id="fail-000000000002", fields=fields)
    store.revise(gone.record.id, {"retracted_at": NOW, "retracted_reason": "test"})
    asked = {
        (kept.record.id, "failure"): True,
        (gone.record.id, "failure"): True,  # retracted, still there
        ("fail-000000000003", "failure"): False,  # only named by another record
        ("obs-000000000001", "observation"): False,  # a log that does not exist yet
    }
    checks._WARM.clear()
    by_log = {key: checks.exists(store, key[1], key[0]) for key in asked}
    assert checks._WARM == []  # no index was loaded for it
    rebuild(store)
    assert checks.warm_index(store, "failure") is not None
    by_index = {key: checks.exists(store, key[1], key[0]) for key in asked}
    checks._WARM.clear()
    assert by_log == by_index == asked
