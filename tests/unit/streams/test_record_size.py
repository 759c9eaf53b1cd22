"""Batched records are split between items, never lose or reorder one, and stay under the limits."""

from __future__ import annotations

import json
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from streams.record_size import MAX_RECORD_BYTES, MAX_RECORD_ITEMS, split_to_fit


def _encode(items: Sequence[str]) -> bytes:
    return json.dumps(list(items)).encode()


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.text(min_size=0, max_size=300), min_size=1, max_size=200),
    st.integers(min_value=1, max_value=40),
    st.integers(min_value=50, max_value=3000),
)
def test_every_item_once_in_order_within_limits(items: list[str], max_items: int, max_bytes: int) -> None:
    records = split_to_fit(items, _encode, max_items=max_items, max_bytes=max_bytes)
    decoded = [json.loads(r) for r in records]
    assert [x for chunk in decoded for x in chunk] == items
    for raw, chunk in zip(records, decoded, strict=True):
        assert 1 <= len(chunk) <= max_items
        # over the size limit only when a single item alone is over it
        assert len(raw) <= max_bytes or len(chunk) == 1


def test_typical_batches_are_one_encoding_per_record() -> None:
    calls: list[int] = []

    def encode(items: Sequence[str]) -> bytes:
        calls.append(len(items))
        return _encode(items)

    items = ["x" * 2000] * (3 * MAX_RECORD_ITEMS)
    records = split_to_fit(items, encode)
    assert len(records) == 3 and calls == [MAX_RECORD_ITEMS] * 3
    assert all(len(r) <= MAX_RECORD_BYTES for r in records)


def test_an_oversized_backlog_batch_is_split_below_the_producer_limit() -> None:
    items = ["y" * 30_000] * 60  # ~1.8 MB in one record: what a catching-up worker produced
    records = split_to_fit(items, _encode)
    assert len(records) > 1
    assert all(len(r) <= MAX_RECORD_BYTES for r in records)
    assert sum(len(json.loads(r)) for r in records) == 60
