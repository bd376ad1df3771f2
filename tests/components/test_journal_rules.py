"""The journal's, inbox's and evidence's domain rules, without the CLI."""

from __future__ import annotations

import pytest

from lore.components.evidence import check_confidence
from lore.components.inbox import Observation, check_status, check_triage
from lore.components.journal import shared_entities, update_changes, with_link
from lore.errors import InvalidInputError
from lore.usecases.journal_export import slug


def test_shared_entities_ignore_case_and_keep_order() -> None:
    assert shared_entities(["src/A.py", "`x`", "Redis"], ["redis", "src/a.py"]) == [
        "src/A.py",
        "Redis",
    ]
    assert shared_entities(["a"], []) == []


def test_update_changes_only_what_differs() -> None:
    state = {"outcome": "pending", "rationale": "r", "tags": ["t"], "type": "other"}
    assert update_changes(state, outcome=" Revised ", rationale="r", tags=["t"]) == {
        "outcome": "revised"
    }
    assert update_changes(state, lesson="  l  ", type="tooling") == {
        "type": "tooling",
        "lesson_learned": "l",
    }
    with pytest.raises(InvalidInputError, match="decision outcome must be one of"):
        update_changes(state, outcome="done")


def test_with_link_is_idempotent() -> None:
    assert with_link(["a"], "b") == ["a", "b"]
    assert with_link(["a", "b"], "b") is None
    assert with_link(None, "b") == ["b"]


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Use Redis for caching", "use-redis-for-caching"),
        ("Keep carts in `redis` via src/cart.py", "keep-carts-in-redis-via-src-cart-py"),
        ("!!!", "decision"),
        ("word " * 30, "-".join(["word"] * 12)),
        ("x" * 80, "x" * 60),
    ],
)
def test_adr_slug(title: str, expected: str) -> None:
    assert slug(title) == expected
    assert len(slug(title)) <= 60


def test_triage_rules() -> None:
    assert check_status("All") is None and check_status(" Raw ") == "raw"
    with pytest.raises(InvalidInputError):
        check_status("new")
    check_triage(Observation(id="obs-1", content="c"))
    promoted = Observation(id="obs-1", content="c", status="promoted", promoted_to="dec-1")
    with pytest.raises(InvalidInputError, match="already promoted to dec-1") as info:
        check_triage(promoted)
    assert info.value.details["promoted_to"] == "dec-1"
    with pytest.raises(InvalidInputError, match=r"was discarded \(dup\)"):
        check_triage(Observation(id="obs-1", content="c", status="discarded", discard_reason="dup"))


def test_confidence_levels() -> None:
    assert check_confidence(None) is None
    assert check_confidence(" Confirmed") == "confirmed"
    with pytest.raises(InvalidInputError, match="evidence confidence must be one of"):
        check_confidence("sure")
