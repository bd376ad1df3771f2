"""The activation model: how alive a record is, 0..1, from its kind, its age, its use on
this machine, the records citing it, its own value and its pin. Pure; recall's ranking,
``lore resume`` and prompt injection all read it (LORE_CONTRACT.md §7.13).

    recency     = 0.5 ** (days since it was created / half-life of its kind)
    last_used   = 0.5 ** (days since it was last recalled or injected / half-life); 0 if never
    fresh       = max(recency, last_used); 1 for a pinned record (it never decays)
    use         = min(1, ln(1 + uses + CITATION_WEIGHT * cited) / ln(1 + USE_SATURATION))
                  uses: recalls and injections on this machine; cited: later records that
                  point at it (related, supports, derived_from, promoted_to, ...; not a
                  replacement or a contradiction); the curve is ``lore.index.weight.use_share``
                  (static for citations: the index keeps it per record)
    importance  = the record's own value (outcome, confidence and validations, severity:
                  ``lore.index.weight.importance``)
    activation  = W_FRESH * fresh + W_USE * use + W_VALUE * importance

Half-lives (``HALF_LIFE_DAYS``): decisions and anti-patterns (PITFALLs) decay slowest, raw
observations fastest.
"""

from __future__ import annotations

from lore.index.weight import CITATION_WEIGHT, USE_SATURATION, use_share

__all__ = ["CITATION_WEIGHT", "USE_SATURATION", "use_share"]  # the use curve, kept in weight

HALF_LIFE_DAYS = {
    "decision": 365.0,
    "anti-pattern": 365.0,
    "pattern": 180.0,
    "goal": 180.0,
    "concept": 180.0,
    "evidence": 120.0,
    "failure": 60.0,
    "session": 30.0,
    "observation": 14.0,
}
DEFAULT_HALF_LIFE = 90.0
W_FRESH, W_USE, W_VALUE = 0.4, 0.2, 0.4
DAY = 86400.0
STALE_FACTOR = 0.75  # what staleness (lore.dynamics.fresh) multiplies a ranking score by


class Activation:
    """One record's activation and its parts (what ``recall --explain`` shows). A plain
    class, not a NamedTuple: making one costs start-up time on every resume."""

    __slots__ = ("cited", "importance", "last_used", "pinned", "recency", "use", "uses", "value")

    def __init__(
        self,
        value: float,
        recency: float,  # of creation
        last_used: float,  # recency of the last use; 0 when never used here
        use: float,  # the use share, 0..1
        uses: int,  # recalls and injections on this machine
        cited: int,  # later records pointing at it
        importance: float,
        pinned: bool,
    ) -> None:
        self.value, self.recency, self.last_used, self.use = value, recency, last_used, use
        self.uses, self.cited, self.importance, self.pinned = uses, cited, importance, pinned

    def parts(self) -> dict[str, float]:
        return {
            "activation": self.value,
            "recency": self.recency,
            "last_used": self.last_used,
            "used": float(self.uses),
            "cited": float(self.cited),
            "importance": self.importance,
            "pinned": 1.0 if self.pinned else 0.0,
        }


def half_life(kind: str) -> float:
    return HALF_LIFE_DAYS.get(kind, DEFAULT_HALF_LIFE)


def decay(kind: str, age_days: float) -> float:
    """0.5 ** (age / the kind's half-life); an age below zero (a clock ahead) counts as 0."""
    return 0.5 ** (max(age_days, 0.0) / half_life(kind))


def score(
    kind: str,
    *,
    created: float,
    now: float,
    last_used: float = 0.0,
    uses: int = 0,
    cited: int = 0,
    importance: float = 0.5,
    pinned: bool = False,
) -> Activation:
    """The activation of a record of ``kind`` created at ``created`` (epoch seconds; 0:
    unknown, which counts as long ago), last used at ``last_used`` (0: never), as of ``now``.

    The one function prompt injection (``lore.sessions``) and any other caller use; recall
    and resume compute the same formula in bulk from the index's columns."""
    recency = decay(kind, (now - created) / DAY) if created else 0.0
    used = decay(kind, (now - last_used) / DAY) if last_used else 0.0
    fresh = 1.0 if pinned else max(recency, used)
    share = use_share(uses, cited)
    weight = max(0.0, min(1.0, importance))
    value = W_FRESH * fresh + W_USE * share + W_VALUE * weight
    return Activation(value, recency, used, share, uses, cited, weight, pinned)
