"""When a message says something happened: relative time expressions resolved against the message's time.

"we went hiking yesterday", sent on 2023-05-08, refers to 2023-05-07; "last week" to the week
before; "in 2019" to a year. The expressions are found by one cheap pattern (most messages hold
none, and they cost nothing more), and each match is resolved by ``dateparser`` relative to the
message's local time: a message sent at 21:30 -04:00 means the local day, not the UTC one.

A resolved date is written by its granularity: ``2023-05-07`` (a day), ``2023-05-01/2023-05-07``
(a week, Monday to Sunday; a weekend is its Saturday and Sunday), ``2023-05`` (a month),
``2019`` (a year). It is the date the text refers to (an event date), not when a claim starts to
hold (``valid_from``), which keeps its meaning.

Bare weekdays ("on friday") point to the past unless the sentence speaks of the future ("will",
"'ll", "going to", "gonna", "next"), in which case the next such day.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from typing import Final, NamedTuple

_WEEKDAYS: Final = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS: Final = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_MONTH: Final = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAY: Final = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?"
_NUMBER: Final = (
    r"(?:\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|a\s+couple(?:\s+of)?|a\s+few|several)"
)
_UNIT: Final = r"(?:days?|weeks?|months?|years?)"
_PERIOD: Final = r"(?:week(?:end)?|month|year|summer|winter|spring|fall|autumn)"

#: Every expression this module resolves, longest alternatives first. Words such as "next time",
#: "last day" or "the next level" are not times: only the periods and days below follow last/next/this.
TIME_EXPRESSION: Final = re.compile(
    r"(?<![\w-])(?:"
    rf"(?P<ago>{_NUMBER}\s+{_UNIT}\s+ago)"
    r"|(?P<day>yesterday|today|tonight|tomorrow|tmrw|last\s+night|this\s+(?:morning|afternoon|evening))"
    rf"|(?P<rel>(?:last|next|this|past|coming)\s+{_PERIOD})"
    rf"|(?P<relday>(?:last|next|this|this\s+past|this\s+coming)\s+{_WEEKDAY})"
    rf"|(?P<mdate>{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+(?:19|20)\d\d)?)"
    rf"|(?P<dmonth>\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+(?:19|20)\d\d)?)"
    rf"|(?P<year>(?:(?:back\s+)?in|since|during)\s+(?:19|20)\d\d)"
    rf"|(?P<month>(?:(?:back\s+)?in|last|next|this)\s+{_MONTH}(?!\s+\d))"
    rf"|(?P<weekday>(?:on\s+)?{_WEEKDAY}s?)"
    r")(?![\w-])",
    re.IGNORECASE,
)
#: A bare weekday in a sentence about the future is the next one, not the last.
_FUTURE: Final = re.compile(r"\b(?:will|won't|'ll|going\s+to|gonna|next|plan(?:ning)?\s+to|tomorrow)\b", re.IGNORECASE)
_WORD_NUMBERS: Final = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple": 2, "a couple of": 2,
    "a few": 3, "several": 3,
}  # fmt: skip
_MAX_DATES: Final = 8


class TimeMention(NamedTuple):
    """A time expression in a text and the date it refers to."""

    start: int
    end: int
    text: str
    resolved: str


def local_time(occurred_at: datetime, utc_offset_minutes: int | None) -> datetime:
    """The message's time as its sender saw it (UTC when the offset is unknown)."""
    offset = timezone(timedelta(minutes=utc_offset_minutes or 0))
    return occurred_at.astimezone(offset)


def find_times(text: str, at: datetime) -> list[TimeMention]:
    """Every time expression in ``text`` that resolves, in order; ``at`` is the message's local time."""
    if not TIME_EXPRESSION.search(text):
        return []
    found: list[TimeMention] = []
    future = _FUTURE.search(text) is not None
    for m in TIME_EXPRESSION.finditer(text):
        kind = m.lastgroup or ""
        resolved = _resolve(kind, _squash(m.group(0)), at.date(), future and kind == "weekday")
        if resolved is not None:
            found.append(TimeMention(m.start(), m.end(), m.group(0), resolved))
            if len(found) >= _MAX_DATES:
                break
    return found


def event_dates(text: str, at: datetime) -> tuple[str, ...]:
    """The dates ``text`` refers to, each once, in order of appearance."""
    seen: dict[str, None] = {}
    for mention in find_times(text, at):
        seen.setdefault(mention.resolved, None)
    return tuple(seen)


def describe(resolved: str) -> str:
    """Words for an event date, for the search index and the packed context ("may 2023", "sunday")."""
    if "/" in resolved:
        first, last = (date.fromisoformat(part) for part in resolved.split("/"))
        span = "weekend" if (last - first).days == 1 else "week"
        return f"{span} of {_day_words(first)} to {_day_words(last)}"
    parts = resolved.split("-")
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        return f"{_MONTHS[int(parts[1]) - 1]} {parts[0]}"
    return _day_words(date.fromisoformat(resolved))


def _day_words(day: date) -> str:
    return f"{_WEEKDAYS[day.weekday()]} {day.day} {_MONTHS[day.month - 1]} {day.year}"


def _squash(phrase: str) -> str:
    return re.sub(r"\s+", " ", phrase.strip().lower())


@lru_cache(maxsize=8192)
def _resolve(kind: str, phrase: str, base: date, future: bool) -> str | None:
    """The event date a phrase names, relative to the day ``base``; None when it names none."""
    if kind == "ago":
        amount, unit = _ago(phrase)
        if amount is None:
            return None
        if unit in ("days", "weeks"):  # a fixed number of days back, whatever the day
            offset = _day_offset(f"{amount} {unit} ago")
            day = None if offset is None else base + timedelta(days=offset)
        else:  # months and years are not a fixed number of days
            day = _parse(f"{amount} {unit} ago", base)
        return None if day is None else _granular(day, unit.rstrip("s"))
    if kind == "day":
        word = {"tmrw": "tomorrow", "tonight": "today", "last night": "yesterday"}.get(phrase, phrase)
        if word.startswith("this "):
            word = "today"
        offset = _day_offset(word)
        return None if offset is None else (base + timedelta(days=offset)).isoformat()
    if kind == "rel":
        which, period = phrase.split(" ", 1)
        return _relative_period(which, period, base)
    if kind == "relday":
        words = phrase.split()
        weekday = _weekday_index(words[-1])
        if weekday is None:
            return None
        ahead = words[0] in ("next", "coming") or phrase.startswith("this coming")
        return _nearest_weekday(base, weekday, ahead, strictly="this" not in words or "past" in words).isoformat()
    if kind == "weekday":
        weekday = _weekday_index(phrase.removeprefix("on ").rstrip("s"))
        if weekday is None:
            return None
        return _nearest_weekday(base, weekday, future, strictly=False).isoformat()
    if kind in ("mdate", "dmonth"):
        day = _parse(phrase, base)
        if day is None:
            return None
        if re.search(r"(?:19|20)\d\d", phrase) is None:
            # no year: the occurrence nearest the message (the next one when it speaks of the future)
            options = [d for d in (_with_year(day, base.year + k) for k in (-1, 0, 1)) if d is not None]
            if future:
                options = [d for d in options if d >= base] or options
            day = min(options, key=lambda d: abs((d - base).days))
        return day.isoformat()
    if kind == "year":
        found = re.search(r"(?:19|20)\d\d", phrase)
        return None if found is None else found.group(0)
    if kind == "month":
        words = phrase.split()
        month = _month_index(words[-1])
        if month is None:
            return None
        ahead = words[0] == "next" or (words[0] != "last" and future)
        if words[0] == "this":
            year = base.year
        elif ahead:  # the next such month after this one
            year = base.year + (1 if month <= base.month else 0)
        else:  # the latest such month, this one included ("in may", said in may)
            year = base.year - (1 if month > base.month or (words[0] == "last" and month == base.month) else 0)
        return f"{year:04d}-{month:02d}"
    return None


#: Any day: "yesterday" and "3 days ago" are the same number of days from every day.
_SOME_DAY: Final = date(2001, 1, 15)


@lru_cache(maxsize=1024)
def _day_offset(phrase: str) -> int | None:
    """Days from the message's day to the day a phrase names when that does not depend on the day
    ("yesterday": -1, "2 weeks ago": -14), from ``dateparser`` once per phrase."""
    day = _parse(phrase, _SOME_DAY)
    return None if day is None else (day - _SOME_DAY).days


def _ago(phrase: str) -> tuple[int | None, str]:
    m = re.match(rf"({_NUMBER})\s+({_UNIT})\s+ago", phrase)
    if m is None:
        return None, ""
    count = m.group(1)
    amount = int(count) if count.isdigit() else _WORD_NUMBERS.get(count)
    unit = m.group(2) if m.group(2).endswith("s") else m.group(2) + "s"
    return amount, unit


def _parse(phrase: str, base: date, prefer: str = "past") -> date | None:
    """``dateparser`` relative to noon of ``base`` (noon: no time of day pushes a date over midnight)."""
    import dateparser  # the library loads its tables on first use; messages without a time never pay for it

    settings = {
        "RELATIVE_BASE": datetime(base.year, base.month, base.day, 12, 0),
        "PREFER_DATES_FROM": prefer,
        "RETURN_AS_TIMEZONE_AWARE": False,
        "REQUIRE_PARTS": [],
    }
    parsed = dateparser.parse(phrase, languages=["en"], settings=settings)
    return None if parsed is None else parsed.date()


def _with_year(day: date, year: int) -> date | None:
    try:
        return day.replace(year=year)
    except ValueError:  # 29 February
        return None


def _granular(day: date, unit: str) -> str:
    if unit == "week":
        return _week(day)
    if unit == "month":
        return f"{day.year:04d}-{day.month:02d}"
    if unit == "year":
        return f"{day.year:04d}"
    return day.isoformat()


def _week(day: date) -> str:
    monday = day - timedelta(days=day.weekday())
    return f"{monday.isoformat()}/{(monday + timedelta(days=6)).isoformat()}"


def _relative_period(which: str, period: str, base: date) -> str:
    step = {"last": -1, "past": -1, "next": 1, "coming": 1}.get(which, 0)
    if period == "week":
        return _week(base + timedelta(weeks=step))
    if period == "weekend":
        return _weekend(base, step)
    if period == "month":
        month, year = base.month + step, base.year
        if month < 1:
            month, year = 12, year - 1
        elif month > 12:
            month, year = 1, year + 1
        return f"{year:04d}-{month:02d}"
    if period == "year":
        return f"{base.year + step:04d}"
    # a season: the year it falls in (Northern months; a season is a span, the year is what is known)
    return f"{base.year + step:04d}"


def _weekend(base: date, step: int) -> str:
    """This weekend: the one ``base`` is in, else the coming one; last: the one before; next: the one after."""
    on_weekend = base.weekday() >= 5
    saturday = base - timedelta(days=base.weekday() - 5) if on_weekend else base + timedelta(days=5 - base.weekday())
    if step < 0:
        saturday -= timedelta(weeks=1)
    elif step > 0 and on_weekend:
        saturday += timedelta(weeks=1)
    return f"{saturday.isoformat()}/{(saturday + timedelta(days=1)).isoformat()}"


def _weekday_index(word: str) -> int | None:
    for i, name in enumerate(_WEEKDAYS):
        if word and name.startswith(word[:3]):
            return i
    return None


def _month_index(word: str) -> int | None:
    word = word.rstrip(".")
    for i, name in enumerate(_MONTHS, 1):
        if word and name.startswith(word[:3]):
            return i
    return None


def _nearest_weekday(base: date, weekday: int, ahead: bool, *, strictly: bool) -> date:
    """The closest such day before ``base`` (or after it, ``ahead``); ``strictly``: never ``base`` itself."""
    if ahead:
        delta = (weekday - base.weekday()) % 7
        return base + timedelta(days=delta or (7 if strictly else 0))
    delta = (base.weekday() - weekday) % 7
    return base - timedelta(days=delta or (7 if strictly else 0))
