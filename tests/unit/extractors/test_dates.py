"""Relative time expressions resolved against the sender's local time of a message."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from extractors.dates import describe, event_dates, find_times, local_time

#: Monday 8 May 2023, 19:30 at -04:00 (23:30 UTC): the sender's day is the 8th.
MONDAY_EVENING = local_time(datetime(2023, 5, 8, 23, 30, tzinfo=UTC), -240)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ugh we went hiking yesterday and my legs are dead", ("2023-05-07",)),
        ("had a great time hosting the barbecue last weekend!!", ("2023-05-06/2023-05-07",)),
        ("two days ago i finally fixed the bike", ("2023-05-06",)),
        ("started pottery a couple of weeks ago", ("2023-04-24/2023-04-30",)),
        ("last saturday was the recital", ("2023-05-06",)),
        ("on friday we had a bbq at maya's", ("2023-05-05",)),
        ("on friday i'll drive up to see her", ("2023-05-12",)),
        ("next month we're moving to leeds", ("2023-06",)),
        ("i lived in rome in 2019", ("2019",)),
        ("back in 2018 i couldn't even cook pasta", ("2018",)),
        ("the wedding is on july 11th", ("2023-07-11",)),
        ("i started the job on march 22", ("2023-03-22",)),
        ("this morning the dog ate my sock", ("2023-05-08",)),
        ("see you tmrw", ("2023-05-09",)),
        ("last week was rough, then yesterday got better", ("2023-05-01/2023-05-07", "2023-05-07")),
        ("we met a year ago at the climbing gym", ("2022",)),
    ],
)
def test_expressions_resolve_to_the_date_the_text_refers_to(text: str, expected: tuple[str, ...]) -> None:
    assert event_dates(text, MONDAY_EVENING) == expected


@pytest.mark.parametrize(
    "text",
    [
        "next time bring the good coffee",
        "it was my last day at the bakery",  # a day, but not a date the words give
        "that's next level lol",
        "the shop is next to the station",
        "I may go, not sure",  # the month of May is not named here
        "will call you",  # Will is not a weekday either
    ],
)
def test_words_that_are_not_times_resolve_to_nothing(text: str) -> None:
    assert find_times(text, MONDAY_EVENING) == []


def test_the_senders_day_counts_not_the_utc_one() -> None:
    """23:30 UTC is 19:30 at -04:00: "yesterday" is the 7th for the sender, the 8th in UTC."""
    at_utc = local_time(datetime(2023, 5, 8, 23, 30, tzinfo=UTC), None)
    assert event_dates("yesterday", local_time(datetime(2023, 5, 9, 0, 30, tzinfo=UTC), -240)) == ("2023-05-07",)
    assert event_dates("yesterday", at_utc) == ("2023-05-07",)
    assert event_dates("yesterday", local_time(datetime(2023, 5, 9, 0, 30, tzinfo=UTC), None)) == ("2023-05-08",)


def test_mentions_keep_their_position_in_the_text() -> None:
    text = "Yesterday we hiked; on Sunday 14 May we fly"
    found = find_times(text, MONDAY_EVENING)
    assert [text[m.start : m.end] for m in found] == [m.text for m in found]
    assert found[0].text == "Yesterday" and found[0].resolved == "2023-05-07"


def test_descriptions_are_words_a_question_can_meet() -> None:
    assert describe("2023-05-07") == "sunday 7 may 2023"
    assert describe("2023-05") == "may 2023"
    assert describe("2019") == "2019"
    assert describe("2023-05-06/2023-05-07").startswith("weekend of saturday 6 may 2023")
    assert describe("2023-05-01/2023-05-07").startswith("week of monday 1 may 2023")
