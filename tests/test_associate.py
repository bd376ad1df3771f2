"""Term associations (lore.recall.associate): a rare query word also matches the words that keep
company with it in the store, so recall bridges words a question and a record do not share."""

from __future__ import annotations

import math
from typing import Any

import pytest

from lore.capture.build import build
from lore.index import analyze
from lore.index.persist import open_index
from lore.recall import associate, signals
from lore.recall.core import recall
from lore.store.core import Store

NOW = "2025-06-01T12:00:00.000000Z"


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)


def add(store: Store, text: str, **fields: Any) -> str:
    record = build("observation", text, fields, project=None, tags=(), timestamp=NOW).record
    store.add([record])
    return record.id


def filled(store: Store, n: int = 20) -> dict[str, str]:
    """Two records on dunning that both mention e-mail, one on e-mail alone, and ``n``
    unrelated records (so the rare words stay under ASSOC_MAX_SHARE of the store)."""
    for i in range(n):
        add(store, f"standup notes {i}: reviewed the backlog")
    return {
        "first": add(store, "nightly dunning run emailed overdue customers"),
        "second": add(store, "dunning emails go out from the scheduler"),
        "bridged": add(store, "the reminder email template has a typo"),
    }


def test_associates_are_the_words_a_rare_word_shares_records_with(store: Store) -> None:
    filled(store)
    idx = open_index(store)
    email = analyze.stem("email")
    # dunning is in 2 records, both with email (in 3): 2 / sqrt(2 * 3); words met once are not
    assert associate.associates(idx, store, analyze.stem("dunning")) == {
        email: pytest.approx(2 / math.sqrt(6))
    }
    assert associate.associates(idx, store, analyze.stem("overdue")) == {}  # in one record
    assert associate.associates(idx, store, analyze.stem("backlog")) == {}  # in too many


def test_a_record_holding_only_an_associate_is_found_below_the_own_matches(
    store: Store,
) -> None:
    made = filled(store)
    hits = recall(store, "dunning", remember=False)
    assert [h.record.id for h in hits][2:] == [made["bridged"]]
    assert {h.record.id for h in hits[:2]} == {made["first"], made["second"]}
    strength = 2 / math.sqrt(6)
    parts = hits[2].parts
    assert parts["bm25"] == 0.0 and parts["fuzzy"] > 0.0
    own = hits[0].parts["bm25"] + hits[0].parts["fuzzy"]
    assert parts["fuzzy"] < associate.ASSOC_WEIGHT * strength * own


def test_without_associations_the_bridged_record_is_not_found(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = filled(store)
    monkeypatch.setattr(signals, "ASSOCIATE", False)
    assert made["bridged"] not in [h.record.id for h in recall(store, "dunning", remember=False)]
