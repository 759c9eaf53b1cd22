"""Text rules of the validation layer at their edges (extractors.text), spans written out.

Condition clauses are reported once ("only if" is not also an "if"), never after an indirect
question ("see if"), without trailing whitespace and never empty; a question may end in spaces;
quote location forgives whitespace and quote marks but never joins two words.
"""

from __future__ import annotations

import pytest

from extractors.text import find_conditions, has_condition, is_question, locate_quote, speech_act_forms


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("Only if it rains.", [(0, 16)]),
        ("Only if it rains, and if it is cold, I stay.", [(0, 16), (22, 35)]),
        ("See if it works, if it is cheap.", [(17, 31)]),
        ("I go if it rains , then.", [(5, 16)]),
        ("I go if it rains\t, then.", [(5, 16)]),
        ("I go if.", []),
    ],
)
def test_condition_clauses_are_reported_once_trimmed_and_never_empty(text: str, spans: list[tuple[int, int]]) -> None:
    assert find_conditions(text) == spans


def test_a_question_mark_counts_before_trailing_spaces() -> None:
    assert is_question("Postgres works?")
    assert is_question("Postgres works?  ")
    assert not is_question("Postgres works.")


def test_quote_location_forgives_whitespace_but_never_joins_words() -> None:
    assert locate_quote("I  live in \n Berlin today", "I live in Berlin") == (0, 19, 1)
    assert locate_quote("I live in Berlin", "Ilive in Berlin") is None
    assert locate_quote("I live in Berlin", "I live inBerlin") is None


def test_the_would_construction_takes_only_like_and_love() -> None:
    assert speech_act_forms("would") == ("like", "love")


@pytest.mark.parametrize(
    ("source", "quote", "found"),
    [
        ("aaa", "aa", (0, 2, 2)),  # a second, overlapping occurrence counts
        ("I use Postgres. I  use Postgres.", "I use Postgres", (0, 14, 1)),  # exact at 0: counted exactly
        ("I  use Postgres and I  use Postgres", "I use Postgres", (0, 15, 2)),  # the first of two, normalised
        ('\u201c\u201d"', '""', (0, 2, 2)),  # overlapping after quote marks are normalised
    ],
)
def test_quote_location_finds_the_first_occurrence_and_counts_a_second(source: str, quote: str,
                                                                      found: tuple[int, int, int]) -> None:  # fmt: skip
    assert locate_quote(source, quote) == found


def test_has_condition_is_find_conditions_said_yes_or_no() -> None:
    assert has_condition("I go if it rains.") is True
    assert has_condition("I go.") is False
