"""Query analysis (PRME-FACTS §6.1 stage 1): current-state and temporal cues.

Relative expressions ("yesterday", "last week") are resolved against the
request's reference time, never the wall clock, so a replayed request gives the
same window. Windows are half-open UTC ``[start, end)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from schemas.retrieval import Intent, TimeWindow

_CURRENT_CUES = re.compile(
    r"\b(now|right now|currently|current|these days|nowadays|still|latest|at the moment|anymore|any more|"
    r"at present|presently|most recent|up to date)\b",
    re.IGNORECASE,
)
#: Wording that marks a memory as an update of an earlier state (feeds the recency boost).
UPDATE_WORDING = re.compile(
    r"\b(now|currently|switched|changed|moved|no longer|not anymore|anymore|instead|updated|these days|"
    r"started|stopped|became|new)\b",
    re.IGNORECASE,
)

_MONTHS = {
    name: index + 1
    for index, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7, "month": 30, "months": 30, "year": 365, "years": 365}
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}

_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY_YEAR = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE)
_DAY_MONTH_YEAR = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})\b", re.IGNORECASE
)
_MONTH_YEAR = re.compile(rf"\b({_MONTH_RE})\.?\s+(?:of\s+)?(\d{{4}})\b", re.IGNORECASE)
_IN_MONTH = re.compile(rf"\b(?:in|during|since|last)\s+({_MONTH_RE})\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(?:in|during|of|since|for)\s+((?:19|20)\d{2})\b", re.IGNORECASE)
_AMOUNT = r"(\d+|a|an|one|two|three|four|five|six|seven)"
_UNIT = r"(days?|weeks?|months?|years?)"
_AGO = re.compile(rf"\b{_AMOUNT}\s+{_UNIT}\s+ago\b", re.IGNORECASE)
_PAST_N = re.compile(rf"\b(?:past|last|previous)\s+{_AMOUNT}\s+{_UNIT}\b", re.IGNORECASE)
_NAMED = re.compile(
    r"\b(yesterday|today|tonight|this morning|last night|last week|this week|last month|this month|last year|"
    r"this year|past week|past month|past year|recently|lately)\b",
    re.IGNORECASE,
)


#: A question whose answer is a time: "when did…", "what day…", "how long after…".
_ASKS_WHEN = re.compile(
    r"\b(?:when|what\s+(?:day|date|time|month|year|week)|which\s+(?:day|date|month|year|week)"
    r"|how\s+long\s+(?:ago|after|before|since)|how\s+many\s+(?:days|weeks|months|years))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class QueryAnalysis:
    intent: Intent
    current_state: bool
    time_window: TimeWindow | None
    #: Each recognised signal as ``KIND:text``, e.g. ``ABSOLUTE:2024-05-01``, ``RELATIVE:last week``.
    signals: tuple[str, ...] = field(default_factory=tuple)
    #: The answer is a time ("when did…"): what says when something happened answers it.
    asks_when: bool = False


def _day_start(when: datetime) -> datetime:
    return when.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def _month_window(year: int, month: int) -> TimeWindow:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + 1, 1, 1, tzinfo=UTC) if month == 12 else datetime(year, month + 1, 1, tzinfo=UTC)
    return TimeWindow(start=start, end=end)


def _day_window(year: int, month: int, day: int) -> TimeWindow | None:
    try:
        start = datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None
    return TimeWindow(start=start, end=start + timedelta(days=1))


def _amount(text: str) -> int:
    return int(text) if text.isdigit() else _NUMBER_WORDS[text.lower()]


def _named_window(cue: str, ref: datetime) -> TimeWindow:
    today = _day_start(ref)
    cue = cue.lower()
    if cue in ("yesterday", "last night"):
        return TimeWindow(start=today - timedelta(days=1), end=today)
    if cue in ("today", "tonight", "this morning"):
        return TimeWindow(start=today, end=today + timedelta(days=1))
    monday = today - timedelta(days=today.weekday())
    if cue == "last week":
        return TimeWindow(start=monday - timedelta(days=7), end=monday)
    if cue == "this week":
        return TimeWindow(start=monday, end=monday + timedelta(days=7))
    if cue == "last month":
        prev = today.replace(day=1) - timedelta(days=1)
        return _month_window(prev.year, prev.month)
    if cue == "this month":
        return _month_window(today.year, today.month)
    if cue == "last year":
        return TimeWindow(start=datetime(today.year - 1, 1, 1, tzinfo=UTC), end=datetime(today.year, 1, 1, tzinfo=UTC))
    if cue == "this year":
        return TimeWindow(start=datetime(today.year, 1, 1, tzinfo=UTC), end=datetime(today.year + 1, 1, 1, tzinfo=UTC))
    span = {"past week": 7, "past month": 30, "past year": 365}.get(cue, 14)  # "recently"/"lately": two weeks
    return TimeWindow(start=ref - timedelta(days=span), end=ref)


def _temporal(query: str, ref: datetime) -> tuple[TimeWindow | None, list[str]]:
    """First matching cue wins, most specific patterns first."""
    if m := _ISO_DATE.search(query):
        window = _day_window(int(m[1]), int(m[2]), int(m[3]))
        if window is not None:
            return window, [f"ABSOLUTE:{m[0]}"]
    if m := _MONTH_DAY_YEAR.search(query):
        window = _day_window(int(m[3]), _MONTHS[m[1].lower()], int(m[2]))
        if window is not None:
            return window, [f"ABSOLUTE:{m[0]}"]
    if m := _DAY_MONTH_YEAR.search(query):
        window = _day_window(int(m[3]), _MONTHS[m[2].lower()], int(m[1]))
        if window is not None:
            return window, [f"ABSOLUTE:{m[0]}"]
    if m := _MONTH_YEAR.search(query):
        return _month_window(int(m[2]), _MONTHS[m[1].lower()]), [f"ABSOLUTE:{m[0]}"]
    if m := _AGO.search(query):
        days = _amount(m[1]) * _UNITS[m[2].lower()]
        start = _day_start(ref - timedelta(days=days))
        return TimeWindow(start=start, end=start + timedelta(days=1)), [f"RELATIVE:{m[0]}"]
    if m := _PAST_N.search(query):
        days = _amount(m[1]) * _UNITS[m[2].lower()]
        return TimeWindow(start=ref - timedelta(days=days), end=ref), [f"DURATION:{m[0]}"]
    if m := _NAMED.search(query):
        return _named_window(m[1], ref), [f"RELATIVE:{m[0]}"]
    if m := _IN_MONTH.search(query):
        month = _MONTHS[m[1].lower()]
        # "in May" may be the current month; "last May" is the most recent May already over.
        latest = ref.month - 1 if m[0].lower().startswith("last") else ref.month
        year = ref.year if month <= latest else ref.year - 1
        return _month_window(year, month), [f"ABSOLUTE:{m[0]}"]
    if m := _YEAR.search(query):
        year = int(m[1])
        window = TimeWindow(start=datetime(year, 1, 1, tzinfo=UTC), end=datetime(year + 1, 1, 1, tzinfo=UTC))
        return window, [f"ABSOLUTE:{m[0]}"]
    return None, []


def analyze_query(query: str, reference_time: datetime) -> QueryAnalysis:
    """Intent and optional time window; a temporal cue outranks a current-state cue."""
    ref = reference_time.astimezone(UTC)
    window, signals = _temporal(query, ref)
    current = bool(_CURRENT_CUES.search(query))
    if window is not None:
        intent = Intent.TEMPORAL
    elif current:
        intent = Intent.CURRENT_STATE
    else:
        intent = Intent.SEMANTIC
    if current:
        signals = [*signals, "CURRENT_STATE"]
    asks_when = _ASKS_WHEN.search(query) is not None
    if asks_when:
        signals = [*signals, "ASKS_WHEN"]
    return QueryAnalysis(intent=intent, current_state=current and window is None, time_window=window,
                         signals=tuple(signals), asks_when=asks_when)
