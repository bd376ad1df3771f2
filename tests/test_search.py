"""Ranking: the pure parts of lore.recall.ranking, and exact orderings on small hand-made stores."""

from __future__ import annotations

from typing import Any

import pytest

from lore.capture.build import build
from lore.dynamics import activation
from lore.errors import UsageError
from lore.index import analyze, weight
from lore.recall import ranking
from lore.recall.core import recall
from lore.store.core import Store

NOW = "2025-06-01T12:00:00.000000Z"


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)


def add(store: Store, kind: str, text: str, *, when: str = NOW, **fields: Any) -> str:
    project = fields.pop("project", None)
    tags = fields.pop("tags", ())
    record = build(kind, text, fields, project=project, tags=tags, timestamp=when).record
    store.add([record])
    return record.id


def ids(store: Store, query: str, **options: Any) -> list[str]:
    options.setdefault("remember", False)
    return [hit.record.id for hit in recall(store, query, **options)]


# --- stemming and tokenizing -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("forms", "stem"),
    [
        (("cache", "caches", "cached", "caching"), "cach"),
        (("migration", "migrations", "migrate", "migrated", "migrating"), "migrat"),
        (("retry", "retries", "retried", "retrying"), "retry"),
        (("run", "running"), "run"),
        (("deploy", "deployment", "deployments", "deployed"), "deploy"),
        (("test", "tests", "tested", "testing"), "test"),
        (("index", "indexes", "indexed"), "index"),
        (("policy", "policies"), "policy"),
        (("quick", "quickly"), "quick"),
    ],
)
def test_word_forms_share_a_stem(forms: tuple[str, ...], stem: str) -> None:
    assert len({analyze.stem(f) for f in forms}) == 1  # Snowball's stem, or the fallback's
    assert {analyze.light_stem(f) for f in forms} == {stem}


def test_snowball_is_used_when_pystemmer_is_installed() -> None:
    pytest.importorskip("Stemmer")
    assert analyze.stemmer() == "snowball"
    assert [analyze.stem(w) for w in ("retries", "policies", "generously", "JWTs".lower())] == [
        "retri",
        "polici",
        "generous",
        "jwt",  # an acronym's plural loses its s, which Snowball keeps
    ]


def test_without_pystemmer_the_light_stemmer_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analyze, "_snowball", False)
    monkeypatch.setattr(analyze, "_stem_cache", {})
    assert analyze.stemmer() == "light"
    assert [analyze.stem(w) for w in ("retries", "caching", "analysis")] == [
        "retry",
        "cach",
        "analysis",
    ]


@pytest.mark.parametrize("word", ["class", "status", "analysis", "bus", "string", "need", "api"])
def test_stemmer_leaves_these_alone(word: str) -> None:
    assert analyze.light_stem(word) == word
    assert analyze.stem(word) in (word, word[:-1])  # Snowball: analysis -> analysi


def test_words_lowercase_and_split_camel_case() -> None:
    assert analyze.words("NonZeroExit in PostgreSQL, JWT") == [
        "nonzeroexit",
        "non",
        "zero",
        "exit",
        "in",
        "postgresql",
        "postgre",
        "sql",
        "jwt",
    ]


def test_query_terms_drop_stop_words_and_repeats() -> None:
    assert analyze.query_terms("Why did we pick the cache, and why caching for sessions?") == [
        "cach",
        "session",
    ]
    assert analyze.query_terms("what is it") == []


# --- score components ----------------------------------------------------------------------


def test_decay_halves_every_half_life_of_the_kind() -> None:
    for kind in ("decision", "observation"):
        half = activation.half_life(kind)
        assert activation.decay(kind, 0) == 1.0
        assert activation.decay(kind, half) == pytest.approx(0.5)
        assert activation.decay(kind, 2 * half) == pytest.approx(0.25)
        assert activation.decay(kind, -5) == 1.0  # a clock skewed into the future is "now"
    # decisions and PITFALLs decay slowest, raw observations fastest
    halves = activation.HALF_LIFE_DAYS
    assert halves["decision"] == halves["anti-pattern"] == max(halves.values())
    assert halves["observation"] == min(halves.values())


def test_use_is_log_scaled_saturates_and_counts_citations_double() -> None:
    assert activation.use_share(0) == 0.0
    assert 0 < activation.use_share(1) < activation.use_share(10) < 1.0
    assert activation.use_share(activation.USE_SATURATION) == 1.0
    assert activation.use_share(10_000) == 1.0
    assert activation.use_share(0, cited=1) == activation.use_share(activation.CITATION_WEIGHT)


def test_activation_is_the_documented_sum_and_a_pin_never_decays() -> None:
    now = 1_000 * activation.DAY
    old = now - 365 * activation.DAY
    act = activation.score(
        "decision", created=old, now=now, last_used=now - 5 * activation.DAY, uses=3, cited=1,
        importance=0.9,
    )  # fmt: skip
    fresh = max(0.5, 0.5 ** (5 / 365))
    assert act.value == pytest.approx(
        activation.W_FRESH * fresh
        + activation.W_USE * activation.use_share(3, 1)
        + activation.W_VALUE * 0.9
    )
    pinned = activation.score("observation", created=1.0, now=now, pinned=True, importance=0.5)
    assert pinned.recency < 1e-6 and pinned.value == pytest.approx(
        activation.W_FRESH + activation.W_VALUE * 0.5
    )


def test_importance_orders_outcomes_and_rewards_lessons() -> None:
    outcomes = ["successful", "pending", "revised", "abandoned"]
    values = [weight.importance("decision", {"outcome": o}) for o in outcomes]
    assert values == sorted(values, reverse=True) and len(set(values)) == 4
    with_lesson = weight.importance("decision", {"outcome": "pending", "lesson_learned": "x"})
    assert with_lesson == pytest.approx(values[1] + weight.LESSON_BONUS)


def test_importance_of_patterns_anti_patterns_and_failures() -> None:
    low = weight.importance("pattern", {"confidence": 0.2, "validations": 0})
    high = weight.importance("pattern", {"confidence": 0.9, "validations": 0})
    validated = weight.importance("pattern", {"confidence": 0.9, "validations": 5})
    assert low < high < validated <= 1.0
    severities = [
        weight.importance("anti-pattern", {"severity": s})
        for s in ("low", "medium", "high", "critical")
    ]
    assert severities == sorted(severities) and severities[-1] == 1.0
    recurrences = [weight.failure_importance(n) for n in (1, 2, 3, 10, 50)]
    assert recurrences[0] == weight.FAILURE_BASE
    assert recurrences == sorted(recurrences) and recurrences[-1] == 1.0


def test_blend_is_the_documented_sum() -> None:
    act = activation.score("decision", created=1.0, now=1.0, importance=0.4)
    parts = ranking.blend(0.5, act, True)
    assert parts["score"] == pytest.approx(
        ranking.W_TEXT * 0.5 + ranking.W_ACTIVATION * act.value + ranking.W_PROJECT
    )
    stale = ranking.blend(0.5, act, True, stale=True)
    assert stale["score"] == pytest.approx(parts["score"] * ranking.STALE_FACTOR)
    assert (parts["stale"], stale["stale"]) == (0.0, 1.0)


def test_snippet_marks_query_terms() -> None:
    count, text = ranking.marked("We cache the responses; caching helps.", {"cach"})
    assert (count, text) == (1, "We »cache« the responses; »caching« helps.")
    long = "word " * 60 + "the cache is here " + "tail " * 60
    _, cut = ranking.marked(long, {"cach"})
    assert cut.startswith("…") and cut.endswith("…") and "»cache«" in cut
    assert len(cut) <= ranking.SNIPPET_CHARS + 4  # the cut, two ellipses and two marks
    assert cut.endswith(" tail…")


# --- ranking on small stores -----------------------------------------------------------------


def test_the_obviously_best_match_comes_first(store: Store) -> None:
    best = add(store, "decision", "Use PostgreSQL for the main datastore", rationale="transactions")
    add(store, "decision", "Cache API responses for five minutes")
    add(store, "observation", "The datastore backup runs nightly")
    found = ids(store, "postgresql datastore")
    assert found[0] == best
    assert len(found) == 2  # the cache decision matches nothing


def test_a_typo_still_finds_the_record(store: Store) -> None:
    target = add(store, "decision", "Use PostgreSQL for persistence")
    add(store, "decision", "Use Redis for sessions")
    assert ids(store, "postgress") == [target]


def test_word_forms_match(store: Store) -> None:
    target = add(store, "pattern", "Put a cache in front of slow services")
    add(store, "pattern", "Validate input at the boundary")
    assert ids(store, "caching") == [target]
    assert ids(store, "cached services") == [target]


def test_a_question_finds_a_record_matching_only_some_words(store: Store) -> None:
    target = add(store, "decision", "Store sessions in Redis", rationale="fast expiry")
    add(store, "decision", "Write the docs in Markdown")
    found = ids(store, "how should we handle user sessions after logout?")
    assert found == [target]


def test_more_matching_words_rank_higher(store: Store) -> None:
    one = add(store, "observation", "Deploys are slow on Mondays")
    both = add(store, "observation", "Deploys to staging fail when the cache is cold")
    assert ids(store, "why do staging deploys fail") == [both, one]


def test_the_title_field_weighs_more(store: Store) -> None:
    in_body = add(store, "decision", "Adopt a new linter", rationale="ruff is fast")
    in_title = add(store, "decision", "Adopt ruff", rationale="a new linter is fast")
    assert ids(store, "ruff") == [in_title, in_body]


def test_recency_breaks_a_tie(store: Store) -> None:
    old = add(store, "observation", "flaky network in CI", when="2024-01-01T00:00:00Z")
    new = add(store, "observation", "flaky network in CI", when="2025-05-30T00:00:00Z")
    assert ids(store, "flaky network") == [new, old]


def test_importance_breaks_a_tie(store: Store) -> None:
    abandoned = add(store, "decision", "Shard the users table by bucket", outcome="abandoned")
    worked = add(store, "decision", "Shard the users table by region", outcome="successful")
    pending = add(store, "decision", "Shard the users table by tenant", outcome="pending")
    assert ids(store, "shard users") == [worked, pending, abandoned]


def test_failure_recurrence_breaks_a_tie(store: Store) -> None:
    lone = add(store, "failure", "disk full on runner one", error_type="Stalled")
    repeated = add(store, "failure", "disk full on runner two", error_type="Timeout")
    for i in range(3):
        add(store, "failure", f"other problem {i}", error_type="Timeout")
    assert ids(store, "disk full") == [repeated, lone]


def test_project_affinity(store: Store) -> None:
    theirs = add(store, "decision", "Pin the node version", project="web")
    ours = add(store, "decision", "Pin the node version in CI", project="api")
    assert ids(store, "pin node version", here="api") == [ours, theirs]
    assert ids(store, "pin node version", here="web") == [theirs, ours]


def test_retracted_and_superseded_records_are_hidden(store: Store) -> None:
    old = add(store, "decision", "Deploy with Fabric scripts")
    new = add(store, "decision", "Deploy with Ansible playbooks")
    gone = add(store, "concept", "Deploy keys", description="they expire yearly")
    store.revise(old, {"status": "superseded", "superseded_by": new})
    store.revise(gone, {"status": "retracted"})
    assert ids(store, "deploy") == [new]
    shown = ids(store, "deploy fabric", show_hidden=True)
    assert set(shown) == {old, new, gone}
    assert shown.index(new) < shown.index(old)  # the replacement ranks above what it replaced


def test_kind_filter_accepts_plurals(store: Store) -> None:
    dec = add(store, "decision", "Use tokens for auth")
    pat = add(store, "pattern", "Rotate auth tokens")
    add(store, "observation", "auth tokens leak into logs")
    assert ids(store, "auth tokens", kinds=["decisions"]) == [dec]
    assert set(ids(store, "auth tokens", kinds=["pattern", "decision"])) == {dec, pat}
    with pytest.raises(UsageError):
        ids(store, "auth", kinds=["edge"])


def test_project_and_tag_filters(store: Store) -> None:
    a = add(store, "observation", "queue backlog grows", project="api", tags=["ops"])
    b = add(store, "observation", "queue backlog alert", project="web", tags=["ops", "pager"])
    c = add(store, "observation", "queue backlog fine", tags=["api"])
    assert set(ids(store, "queue backlog", project="api")) == {a, c}  # own or tagged
    assert set(ids(store, "queue backlog", tags=["ops"])) == {a, b}
    assert ids(store, "queue backlog", tags=["ops", "pager"]) == [b]
    assert ids(store, "queue backlog", tags=["nope"]) == []


def test_since_absolute_and_relative(store: Store) -> None:
    add(store, "observation", "cron job drift", when="2025-01-10T00:00:00Z")
    recent = add(store, "observation", "cron job drift again", when="2025-05-28T00:00:00Z")
    week = add(store, "observation", "cron job drift today", when="2025-06-01T08:00:00Z")
    assert set(ids(store, "cron drift", since="2025-05-01")) == {recent, week}
    assert set(ids(store, "cron drift", since="2025-05-28T00:00:00Z")) == {recent, week}
    assert set(ids(store, "cron drift", since="7d")) == {recent, week}
    assert ids(store, "cron drift", since="1d") == [week]
    assert set(ids(store, "cron drift", since="1w")) == {recent, week}
    assert ids(store, "cron drift", since="2h") == []
    with pytest.raises(UsageError):
        ids(store, "cron", since="last sprint")


def test_limit_and_stop_word_only_queries(store: Store) -> None:
    for i in range(5):
        add(store, "observation", f"log rotation note {i}")
    assert len(ids(store, "log rotation", limit=3)) == 3
    assert len(ids(store, "log rotation", limit=0)) == 5
    assert ids(store, "what is the") == []


def test_recall_history_raises_a_tie_a_little(store: Store) -> None:
    first = add(store, "observation", "same words here")
    second = add(store, "observation", "same words here")
    baseline = ids(store, "same words")
    loser = baseline[1]
    from lore.index.history import note_recalled

    note_recalled(store.root, [loser])
    assert ids(store, "same words") == [loser, baseline[0]]
    assert {first, second} == set(baseline)


def test_a_chain_of_replacements_keeps_its_order(store: Store) -> None:
    first = add(store, "decision", "Queue jobs in cron cron cron")  # the best text match
    second = add(store, "decision", "Queue jobs in cron with a lock")
    third = add(store, "decision", "Queue jobs with Celery beat instead of cron")
    store.revise(first, {"status": "superseded", "superseded_by": second})
    store.revise(second, {"status": "superseded", "superseded_by": third})
    assert ids(store, "cron") == [third]
    assert ids(store, "cron", show_hidden=True) == [third, second, first]


# --- session context ---------------------------------------------------------------------


def test_the_answer_after_a_question_is_found_through_its_context(store: Store) -> None:
    add(store, "observation", "Retro: fewer meetings", tags=["retro"])  # another thread
    thread = {"tags": ["standup"]}
    ask = add(store, "observation", "How long did the cache migration take?", **thread)
    answer = add(store, "observation", "About three weeks, mostly waiting on reviews", **thread)
    other = add(store, "observation", "Lunch is at noon today", **thread)
    hits = recall(store, "how long did the cache migration take", remember=False)
    assert [h.record.id for h in hits] == [ask, answer]  # the answer shares no word
    parts = hits[1].parts
    assert parts["bm25"] == 0.0 and parts["relevance"] == pytest.approx(0.7 / 0.8)
    assert other not in [h.record.id for h in hits]  # two records away: no context


def test_tags_every_record_of_a_project_carries_name_no_thread(store: Store) -> None:
    add(store, "observation", "How long did the cache migration take?", tags=["standup"])
    add(store, "observation", "About three weeks, mostly waiting on reviews", tags=["standup"])
    add(store, "observation", "Lunch is at noon today", tags=["standup"])
    assert len(ids(store, "how long did the cache migration take")) == 1  # a blanket tag


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"tags": ["standup"]}, {"tags": ["retro"]}),  # another thread
        ({}, {}),  # no session and no tags: no context
        ({"tags": ["t"], "project": "a"}, {"tags": ["t"], "project": "b"}),
    ],
)
def test_context_needs_the_same_session_or_tags(
    store: Store, first: dict[str, Any], second: dict[str, Any]
) -> None:
    add(store, "observation", "How long did the cache migration take?", **first)
    add(store, "observation", "About three weeks, mostly waiting on reviews", **second)
    assert len(ids(store, "how long did the cache migration take")) == 1


def test_context_ends_after_a_gap_in_time(store: Store) -> None:
    add(store, "observation", "How long did the migration take?", tags=["t"], when=NOW)
    add(store, "observation", "Three weeks", tags=["t"], when="2026-03-11T00:00:00Z")
    assert len(ids(store, "how long did the migration take")) == 1
