"""How the embedded runner cuts an ingest into micro-batches."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from epistream.runner import FIRST_BATCH, _chunks


def test_the_first_batch_is_small_so_the_model_and_store_start_early_then_full_batches_follow() -> None:
    sizes = [len(b) for b in _chunks(range(1200), 512, FIRST_BATCH)]
    assert sizes == [FIRST_BATCH, 512, 512, 1200 - FIRST_BATCH - 1024]


def test_a_first_size_above_the_batch_size_does_not_grow_the_batch() -> None:
    assert [len(b) for b in _chunks(range(10), 4, 100)] == [4, 4, 2]


@given(st.integers(0, 3000), st.integers(1, 600), st.one_of(st.none(), st.integers(1, 600)))
def test_batches_keep_every_item_once_in_order(n: int, size: int, first: int | None) -> None:
    batches = list(_chunks(range(n), size, first))
    assert [x for b in batches for x in b] == list(range(n))
    assert all(batches) and all(len(b) <= size for b in batches)
    assert all(len(b) == size for b in batches[1:-1])
