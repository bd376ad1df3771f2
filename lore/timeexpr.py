"""Time expressions: the one parser behind recall's ``--since``/``--until``, the time words
inside a recall query and the timeline's periods. Pure (the clock comes from ``lore.clock``,
so ``LORE_NOW`` holds); every period is a half-open UTC window ``[start, end)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any

from lore import clock
from lore.errors import UsageError


class _Lazy:
    """A regular expression compiled on first use: importing this module compiles none
    (most recall queries name no time, and most commands parse none)."""

    __slots__ = ("args", "compiled")

    def __init__(self, *args: Any) -> None:
        self.args = args
        self.compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self.compiled is None:
            self.compiled = re.compile(*self.args)
        return getattr(self.compiled, name)


def compile_all() -> None:
    """Compile every pattern of this module now (for ``lore.cmdserver``: once for all)."""
    for value in list(globals().values()):
        if isinstance(value, _Lazy):
            value.search  # noqa: B018 - the attribute compiles it


FORMS = (
    "an ISO date or date-time (2026-05-12, 2026-05-12T14:30Z), a month (2026-05), "
    "a year (2026), an ISO week (2026-W19), an age (12h, 7d, 2w, 3m, 1y), today, yesterday, "
    "this/last week, this/last month, this/last year, last 7 days, 2 days ago, "
    "a weekday (monday, last friday), this morning/afternoon/evening, tonight, last night, "
    "a month name (may, may 2026, 12 may 2026)"
)
# Not times, on purpose: lore knows no calendar of yours ("last sprint", "the release",
# "after the meeting"), and their words are searched as words.
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Parts of a day, in UTC like every lore time: (start hour, end hour).
DAY_PARTS = {"morning": (0, 12), "afternoon": (12, 18), "evening": (18, 24)}
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH = {name: i + 1 for i, name in enumerate(MONTHS)} | {
    name[:3]: i + 1 for i, name in enumerate(MONTHS)
}
_MONTH["sept"] = 9
_UNIT = {
    "h": "hours",
    "hour": "hours",
    "hours": "hours",
    "d": "days",
    "day": "days",
    "days": "days",
    "w": "weeks",
    "week": "weeks",
    "weeks": "weeks",
    "m": "months",
    "month": "months",
    "months": "months",
    "y": "years",
    "year": "years",
    "years": "years",
}
_AGE = _Lazy(r"(\d+)\s*(h|d|w|m|y)", re.I)
_AGO = _Lazy(r"(\d+|an?|one)\s+(day|week|month|year)s?\s+ago", re.I)
_WEEKDAY = _Lazy(rf"(?:(last|this)\s+)?({'|'.join(WEEKDAYS)})", re.I)
_PART = _Lazy(r"(this|today|yesterday)\s+(morning|afternoon|evening)|(tonight)|last\s+night")
_LAST_N = _Lazy(r"(?:last|past)\s+(\d+)\s+(hours?|days?|weeks?|months?|years?)", re.I)
_REL = _Lazy(r"(this|last|past|previous)\s+(week|month|year)", re.I)
_YEAR = _Lazy(r"(\d{4})")
_YEAR_MONTH = _Lazy(r"(\d{4})-(\d{1,2})")
_WEEK = _Lazy(r"(\d{4})-?w(\d{1,2})", re.I)
_MONTH_NAME = "|".join(sorted(_MONTH, key=len, reverse=True))
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_NAMED_TEXT = rf"(?:{_DAY}\s+)?(?:{_MONTH_NAME})\.?(?:\s+{_DAY}(?=\W|$))?(?:,?\s+\d{{4}})?"
_NAMED = _Lazy(
    rf"(?:(\d{{1,2}})(?:st|nd|rd|th)?\s+)?({_MONTH_NAME})\.?"
    rf"(?:\s+(\d{{1,2}})(?:st|nd|rd|th)?(?=\W|$))?(?:,?\s+(\d{{4}}))?",
    re.I,
)


@dataclass(frozen=True)
class Window:
    """A period of time, ``start`` inclusive, ``end`` exclusive; None is open-ended.
    ``age``: the expression was an age (``7d``), so ``--until 7d`` means its start."""

    start: datetime | None
    end: datetime | None
    text: str
    age: bool = False

    def contains(self, epoch: float) -> bool:
        return (self.start is None or epoch >= self.start.timestamp()) and (
            self.end is None or epoch < self.end.timestamp()
        )

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "since": _iso(self.start), "until": _iso(self.end)}

    def describe(self) -> str:
        return describe(self.to_dict())


def describe(window: dict[str, Any]) -> str:
    """A window (``Window.to_dict``) in words: ``'last week': <since> to <until>``."""
    since, until = window.get("since"), window.get("until")
    if since and until:
        return f"{window['text']!r}: {since} to {until}"
    return f"{window['text']!r}: " + (f"since {since}" if since else f"before {until}")


def _iso(value: datetime | None) -> str | None:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value is not None else None


def _now(now: datetime | None) -> datetime:
    return now if now is not None else clock.now_datetime()


def _day(value: date) -> datetime:
    return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)


def month_window(year: int, month: int) -> tuple[datetime, datetime]:
    if not 1 <= month <= 12 or not 1 <= year <= 9998:
        raise ValueError(f"no month {year}-{month:02d}")
    start = datetime(year, month, 1, tzinfo=timezone.utc)
    nxt = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=timezone.utc)
    return start, nxt


def week_window(year: int, week: int) -> tuple[datetime, datetime]:
    """ISO week ``week`` of ISO year ``year`` (Monday to Monday)."""
    start = _day(date.fromisocalendar(year, week, 1))  # ValueError for week 0, 54, ...
    return start, start + timedelta(days=7)


def shift_months(value: datetime, months: int) -> datetime:
    """``value`` moved by whole months (the day clamped to the target month's length)."""
    index = value.year * 12 + value.month - 1 + months
    year, month = divmod(index, 12)
    last = (month_window(year, month + 1)[1] - timedelta(days=1)).day
    return value.replace(year=year, month=month + 1, day=min(value.day, last))


def _age(count: int, unit: str, now: datetime, text: str) -> Window:
    unit = _UNIT[unit.lower()]
    if unit == "months":
        start = shift_months(now, -count)
    elif unit == "years":
        start = shift_months(now, -12 * count)
    else:
        start = now - timedelta(**{unit: count})
    return Window(start, now, text, age=True)


def _named(match: re.Match[str], now: datetime, text: str) -> Window:
    """``may``, ``may 2026``, ``12 may 2026``, ``may 12, 2026``: a month or one of its days.
    Without a year, the latest such month (or day) that is not in the future."""
    day_text = match.group(1) or match.group(3)
    month = _MONTH[match.group(2).lower()]
    if match.group(4):
        year = int(match.group(4))
    else:
        year = now.year if month <= now.month else now.year - 1
    if day_text:
        start = _day(date(year, month, int(day_text)))
        if not match.group(4) and start > now:
            start = _day(date(year - 1, month, int(day_text)))
        return Window(start, start + timedelta(days=1), text)
    start, end = month_window(year, month)
    return Window(start, end, text)


def parse(text: str, *, now: datetime | None = None, flag: str = "time") -> Window:
    """The window a time expression names (see FORMS); UsageError if it names none."""
    raw = " ".join(str(text).split())
    try:
        found = _parse(raw.lower(), _now(now), raw)
    except (ValueError, OverflowError):
        found = None
    if found is None:
        raise UsageError(f"{flag} {raw!r}: not a time lore can read; use {FORMS}")
    return found


def _parse(t: str, now: datetime, text: str) -> Window | None:
    today = _day(now.date())
    if t in ("today", "yesterday"):
        start = today - timedelta(days=1 if t == "yesterday" else 0)
        return Window(start, start + timedelta(days=1), text)
    if m := _AGO.fullmatch(t):
        return _ago(int(m.group(1)) if m.group(1).isdigit() else 1, m.group(2), today, text)
    if m := _WEEKDAY.fullmatch(t):
        back = (today.weekday() - WEEKDAYS.index(m.group(2))) % 7
        if m.group(1) == "last" and back == 0:
            back = 7  # "last monday" on a Monday: a week ago ("monday" is today)
        elif m.group(1) == "this":
            back = today.weekday() - WEEKDAYS.index(m.group(2))  # this ISO week's
        start = today - timedelta(days=back)
        return Window(start, start + timedelta(days=1), text)
    if m := _PART.fullmatch(t):
        if m.group(3) or not m.group(1):  # tonight; last night (18:00 to 06:00)
            start = today + timedelta(hours=18) - timedelta(days=0 if m.group(3) else 1)
            return Window(start, start + timedelta(hours=6 if m.group(3) else 12), text)
        day = today - timedelta(days=1 if m.group(1) == "yesterday" else 0)
        first, last = DAY_PARTS[m.group(2)]
        return Window(day + timedelta(hours=first), day + timedelta(hours=last), text)
    if m := _AGE.fullmatch(t):
        return _age(int(m.group(1)), m.group(2), now, text)
    if m := _LAST_N.fullmatch(t):
        return _age(int(m.group(1)), m.group(2).rstrip("s"), now, text)
    if m := _REL.fullmatch(t):
        back = 0 if m.group(1) == "this" else 1
        unit = m.group(2)
        if unit == "week":
            start = today - timedelta(days=today.weekday() + 7 * back)
            return Window(start, start + timedelta(days=7), text)
        if unit == "month":
            start, end = month_window(*_year_month(shift_months(today, -back)))
            return Window(start, end, text)
        start = datetime(now.year - back, 1, 1, tzinfo=timezone.utc)
        return Window(start, start.replace(year=start.year + 1), text)
    if m := _WEEK.fullmatch(t):
        return Window(*week_window(int(m.group(1)), int(m.group(2))), text)
    if m := _YEAR_MONTH.fullmatch(t):
        return Window(*month_window(int(m.group(1)), int(m.group(2))), text)
    if _YEAR.fullmatch(t):
        start = month_window(int(t), 1)[0]
        return Window(start, start.replace(year=start.year + 1), text)
    if m := _NAMED.fullmatch(t):
        return _named(m, now, text)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", t):
        start = _day(date.fromisoformat(t))
        return Window(start, start + timedelta(days=1), text)
    if re.match(r"\d{4}-\d{2}-\d{2}[t ]\d", t):
        point = clock.parse_timestamp(text)
        return Window(point, None, text, age=True)
    return None


def _ago(count: int, unit: str, today: datetime, text: str) -> Window:
    """``2 days ago``: that calendar day; ``3 weeks ago``: that ISO week; ``2 months ago``:
    that calendar month; ``a year ago``: that calendar year."""
    if unit == "day":
        start = today - timedelta(days=count)
        return Window(start, start + timedelta(days=1), text)
    if unit == "week":
        start = today - timedelta(days=today.weekday() + 7 * count)
        return Window(start, start + timedelta(days=7), text)
    if unit == "month":
        return Window(*month_window(*_year_month(shift_months(today, -count))), text)
    start = datetime(today.year - count, 1, 1, tzinfo=timezone.utc)
    return Window(start, start.replace(year=start.year + 1), text)


def _year_month(value: datetime) -> tuple[int, int]:
    return value.year, value.month


def since(text: str | None, *, flag: str = "--since", now: datetime | None = None) -> float | None:
    """Epoch seconds a ``--since`` expression starts at (None: no expression)."""
    if text is None or not str(text).strip():
        return None
    window = parse(text, now=now, flag=flag)
    return window.start.timestamp() if window.start is not None else None


def until(text: str | None, *, flag: str = "--until", now: datetime | None = None) -> float | None:
    """Epoch seconds a ``--until`` expression ends at, exclusive: the end of a named period
    (``--until 2026-05`` keeps all of May), the moment of an age or a date-time
    (``--until 7d``: older than 7 days)."""
    if text is None or not str(text).strip():
        return None
    window = parse(text, now=now, flag=flag)
    point = window.start if window.age else window.end
    return point.timestamp() if point is not None else None


# --- time words inside a query ------------------------------------------------------------

_PREP = r"(?:(in|during|on|since|from|before|after|until|till|by|over|within|for)\s+(?:the\s+)?)?"
_IN_QUERY = _Lazy(
    r"(?<![\w-])"
    + _PREP
    + r"("
    + r"\d{4}-w\d{1,2}|\d{4}-\d{2}-\d{2}|\d{4}-\d{2}"
    + r"|(?:this|today|yesterday)\s+(?:morning|afternoon|evening)|tonight|last\s+night"
    + r"|(?:\d+|an?|one)\s+(?:days?|weeks?|months?|years?)\s+ago"
    + rf"|(?:(?:last|this)\s+)?(?:{'|'.join(WEEKDAYS)})"
    + r"|today|yesterday"
    + r"|(?:this|last|past|previous)\s+(?:week|month|year)"
    + r"|(?:last|past)\s+\d+\s+(?:hours?|days?|weeks?|months?|years?)"
    + "|"
    + _NAMED_TEXT
    + r"|\d{4}"
    + r")(?![\w-])",
    re.I,
)
# A bare month name or year is a time only next to a preposition or with more of a date:
# "may" (the verb), "march" (the verb) and "2026" (a number) alone stay words.
_NEEDS_PREP = _Lazy(rf"(?:{_MONTH_NAME})\.?|\d{{4}}", re.I)
_BARE_PREPS = frozenset({"in", "during", "since", "from", "before", "after", "until", "till"})
# Every match of _IN_QUERY holds a digit or one of these (a weekday ends in "day", a month
# name starts with its first three letters).
_TIME_WORDS = (
    "day", "night", "morning", "afternoon", "evening", "ago", "week", "month", "year",
    *(name[:3] for name in MONTHS),
)  # fmt: skip


def in_query(query: str, *, now: datetime | None = None) -> tuple[Window | None, str]:
    """The time expression inside ``query`` as a window, and the query without it: the
    first one that names a year (``on 23 January, 2022``), else the first one. A relative
    phrase next to a dated one ("last friday, on 23 January 2022") counts back from that
    date, not from now, so the date is the window. A preposition in front shapes the
    window: ``since``/``from``/``after`` open its end, ``before``/``until`` open its start."""
    lowered = query.lower()
    if not any(c.isdigit() for c in query) and not any(w in lowered for w in _TIME_WORDS):
        return None, query  # nothing _IN_QUERY could match
    at = _now(now)
    first: tuple[Window, re.Match[str]] | None = None
    for match in _IN_QUERY.finditer(query):
        prep, expr = (match.group(1) or "").lower(), match.group(2)
        if _NEEDS_PREP.fullmatch(expr) and (
            prep not in _BARE_PREPS or (expr.isdigit() and not expr.startswith(("19", "20")))
        ):
            continue
        try:
            found = _parse(" ".join(expr.lower().split()), at, expr)
        except (ValueError, OverflowError):
            found = None
        if found is None:
            continue
        text = " ".join(match.group(0).split())
        if prep in ("since", "from", "after"):
            start = found.end if prep == "after" else found.start
            window = Window(start, None, text)
        elif prep in ("before", "until", "till", "by"):
            end = found.start if prep == "before" or found.age else found.end
            window = Window(None, end, text)
        else:
            window = Window(found.start, found.end, text)
        if first is None:
            first = (window, match)
        if _DATED.search(expr):
            first = (window, match)
            break
    if first is None:
        return None, query
    window, match = first
    rest = (query[: match.start()] + " " + query[match.end() :]).strip()
    return window, " ".join(rest.split())


_DATED = _Lazy(r"\d{4}")  # an expression with a year is a date, not relative to now


# --- the timeline's periods ---------------------------------------------------------------

TIMELINE_FORMS = (
    "a year (2026), a month (2026-05, may 2026, this/last month), an ISO week "
    "(2026-W19, this/last week) or a day (2026-05-12, today, yesterday)"
)


@dataclass(frozen=True)
class Period:
    """A calendar period: ``level`` is ``year``, ``month``, ``week`` or ``day``."""

    level: str
    label: str
    start: datetime
    end: datetime


def period(text: str, *, now: datetime | None = None) -> Period:
    """The calendar period (year, month, ISO week or day) ``text`` names; UsageError if it
    names none (an age like ``7d`` is not a calendar period)."""
    raw = " ".join(str(text).split())
    try:
        found = _parse(raw.lower(), _now(now), raw)
    except (ValueError, OverflowError):
        found = None
    if found is not None and not found.age and found.start and found.end:
        start, end = found.start, found.end
        if end - start == timedelta(days=1):
            return Period("day", start.strftime("%Y-%m-%d"), start, end)
        if end - start == timedelta(days=7) and start.weekday() == 0:
            return Period("week", week_label(start), start, end)
        if start.day == 1 and end == month_window(start.year, start.month)[1]:
            return Period("month", start.strftime("%Y-%m"), start, end)
        if (start.month, start.day, end.year) == (1, 1, start.year + 1):
            return Period("year", f"{start.year:04d}", start, end)
    raise UsageError(f"timeline {raw!r}: not a period lore can read; use {TIMELINE_FORMS}")


def week_label(day: datetime) -> str:
    year, week, _ = day.isocalendar()
    return f"{year:04d}-W{week:02d}"


def children(span: Period) -> list[Period]:
    """What a period lists: a year its months, a month its ISO weeks (cut to the month, so
    their counts add up to the month's), a week its days."""
    out: list[Period] = []
    if span.level == "year":
        for month in range(1, 13):
            start, end = month_window(span.start.year, month)
            out.append(Period("month", start.strftime("%Y-%m"), start, end))
    elif span.level == "month":
        monday = span.start - timedelta(days=span.start.weekday())
        while monday < span.end:
            start, end = max(monday, span.start), min(monday + timedelta(days=7), span.end)
            out.append(Period("week", week_label(monday), start, end))
            monday += timedelta(days=7)
    elif span.level == "week":
        for offset in range(7):
            start = span.start + timedelta(days=offset)
            out.append(Period("day", start.strftime("%Y-%m-%d"), start, start + timedelta(days=1)))
    return out


def year_period(year: int) -> Period:
    start = datetime(year, 1, 1, tzinfo=timezone.utc)
    return Period("year", f"{year:04d}", start, start.replace(year=year + 1))
