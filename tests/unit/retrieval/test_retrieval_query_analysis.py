from __future__ import annotations

from datetime import UTC, datetime

import pytest

from retrieval.query_analysis import analyze_query
from schemas.retrieval import Intent

# Wednesday 2025-03-12 15:30 UTC
REF = datetime(2025, 3, 12, 15, 30, tzinfo=UTC)


def d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


@pytest.mark.parametrize(
    "query",
    ["where does alice live now", "what is she currently reading", "does bob still smoke",
     "what's the latest plan", "what does he eat these days", "Where does she work NOW?"],
)
def test_current_state_cues(query: str) -> None:
    a = analyze_query(query, REF)
    assert a.intent is Intent.CURRENT_STATE and a.current_state
    assert a.time_window is None


@pytest.mark.parametrize("query", ["where does alice live", "knowledge of snow", "stillness of water"])
def test_no_cue_is_semantic(query: str) -> None:
    a = analyze_query(query, REF)
    assert a.intent is Intent.SEMANTIC and not a.current_state and a.time_window is None


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("what did we decide on 2024-05-01", d(2024, 5, 1), d(2024, 5, 2)),
        ("meeting on May 3, 2024", d(2024, 5, 3), d(2024, 5, 4)),
        ("meeting on 3rd May 2024", d(2024, 5, 3), d(2024, 5, 4)),
        ("trips in March 2023", d(2023, 3, 1), d(2023, 4, 1)),
        ("what did I buy yesterday", d(2025, 3, 11), d(2025, 3, 12)),
        ("anything today", d(2025, 3, 12), d(2025, 3, 13)),
        ("what happened last week", d(2025, 3, 3), d(2025, 3, 10)),
        ("plans for this week", d(2025, 3, 10), d(2025, 3, 17)),
        ("what did I read last month", d(2025, 2, 1), d(2025, 3, 1)),
        ("what did I read last year", d(2024, 1, 1), d(2025, 1, 1)),
        ("projects in 2024", d(2024, 1, 1), d(2025, 1, 1)),
        ("what did I eat 3 days ago", d(2025, 3, 9), d(2025, 3, 10)),
        ("what did I eat two weeks ago", d(2025, 2, 26), d(2025, 2, 27)),
        ("what happened in December", d(2024, 12, 1), d(2025, 1, 1)),
        ("what happened in March", d(2025, 3, 1), d(2025, 4, 1)),
        ("what happened last March", d(2024, 3, 1), d(2024, 4, 1)),
    ],
)
def test_temporal_windows_relative_to_reference_time(query: str, start: datetime, end: datetime) -> None:
    a = analyze_query(query, REF)
    assert a.intent is Intent.TEMPORAL
    assert a.time_window is not None
    assert (a.time_window.start, a.time_window.end) == (start, end)
    assert a.signals


def test_duration_ends_at_reference_time() -> None:
    a = analyze_query("what did I do in the past 10 days", REF)
    assert a.time_window is not None
    assert a.time_window.end == REF
    assert (REF - a.time_window.start).days == 10
    assert a.signals[0].startswith("DURATION:")


def test_temporal_cue_outranks_current_state_and_disables_recency() -> None:
    a = analyze_query("was I still living in paris in 2023", REF)
    assert a.intent is Intent.TEMPORAL and not a.current_state
    assert "CURRENT_STATE" in a.signals


def test_same_query_different_reference_time_moves_the_window() -> None:
    a = analyze_query("yesterday", REF)
    b = analyze_query("yesterday", datetime(2025, 1, 1, 0, 5, tzinfo=UTC))
    assert b.time_window is not None and b.time_window.start == d(2024, 12, 31)
    assert a.time_window != b.time_window


def test_invalid_date_is_not_a_window() -> None:
    assert analyze_query("on 2024-02-30", REF).time_window is None
