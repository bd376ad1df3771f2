"""A record's own weight (importance, 0..1) from its fields: computed when the index is
written and read by recall's ranking (the formula is in ``lore.recall.ranking``). Pure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

OUTCOME_IMPORTANCE = {"successful": 0.9, "pending": 0.6, "revised": 0.35, "abandoned": 0.1}
LESSON_BONUS = 0.1
SEVERITY_IMPORTANCE = {"low": 0.25, "medium": 0.5, "high": 0.75, "critical": 1.0}
PRIORITY_IMPORTANCE = {"low": 0.25, "medium": 0.5, "high": 0.75, "critical": 1.0}
EVIDENCE_IMPORTANCE = {"confirmed": 0.9, "preliminary": 0.5, "contested": 0.3, "superseded": 0.1}
PATTERN_CONFIDENCE_SHARE = 0.6  # the rest comes from validations
VALIDATIONS_SATURATION = 10
FAILURE_BASE = 0.3  # a one-off failure; ten or more of its type reach 1.0
FAILURE_SATURATION = 10
NEUTRAL_IMPORTANCE = 0.5
# The activation model's use share (lore.dynamics.activation), kept here because its
# citations part is static and the index keeps it per record.
USE_SATURATION = 20  # uses for the full share
CITATION_WEIGHT = 2  # a citation by a later record counts as two uses
# What a decision's citations add to its resume weight (lore.sessions.resume: 0.5 x the
# activation model's use weight 0.2), kept per decision in the index's ``cw`` column.
W_DECISION_USE = 0.10


def use_share(uses: int, cited: int = 0) -> float:
    """min(1, ln(1 + uses + CITATION_WEIGHT * cited) / ln(1 + USE_SATURATION))."""
    total = max(uses, 0) + CITATION_WEIGHT * max(cited, 0)
    if total <= 0:
        return 0.0
    return min(1.0, math.log1p(total) / math.log1p(USE_SATURATION))


def importance(kind: str, state: Mapping[str, Any]) -> float:
    """A record's own weight, 0..1, from its fields (failures: see ``failure_importance``)."""
    if kind == "decision":
        value = OUTCOME_IMPORTANCE.get(str(state.get("outcome")), NEUTRAL_IMPORTANCE)
        lesson = state.get("lesson_learned")
        if isinstance(lesson, str) and lesson.strip():
            value += LESSON_BONUS
        return min(1.0, value)
    if kind == "pattern":
        confidence = number(state.get("confidence"), 0.5)
        validations = max(0.0, number(state.get("validations"), 0.0))
        v_share = min(1.0, math.log1p(validations) / math.log1p(VALIDATIONS_SATURATION))
        share = PATTERN_CONFIDENCE_SHARE
        return max(0.0, min(1.0, share * confidence + (1 - share) * v_share))
    if kind == "anti-pattern":
        return SEVERITY_IMPORTANCE.get(str(state.get("severity")), NEUTRAL_IMPORTANCE)
    if kind == "evidence":
        return EVIDENCE_IMPORTANCE.get(str(state.get("confidence")), NEUTRAL_IMPORTANCE)
    if kind == "goal":
        return PRIORITY_IMPORTANCE.get(str(state.get("priority")), NEUTRAL_IMPORTANCE)
    if kind == "failure":
        return failure_importance(1)
    return NEUTRAL_IMPORTANCE


def failure_importance(same_type: int) -> float:
    """A failure matters more the more often its error type recurs."""
    if same_type <= 1:
        return FAILURE_BASE
    share = min(1.0, math.log(same_type) / math.log(FAILURE_SATURATION))
    return FAILURE_BASE + (1.0 - FAILURE_BASE) * share


def number(value: Any, default: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return float(value)
