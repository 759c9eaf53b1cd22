"""An input that fails part-way leaves the store exactly as it was (PRME determinism: store = fold of the log).

The reducer folds each operation as it emits it; if a later step of the same input raises (a broken
invariant or a bug), its operations are never published, so none of them may stay in the store.
"""

from __future__ import annotations

from typing import Any

import pytest
from engine_workload import build_item, run_steps
from hypothesis import given
from hypothesis import strategies as st
from test_properties import FAST, workload

from engine.emitter import Emitter
from engine.reducer import Reducer
from engine.replay import replay


class Boom(RuntimeError):
    pass


def _failing_emit(fail_at: int) -> Any:
    """Emitter.emit that raises on its ``fail_at``-th call, after the earlier ones were folded."""
    original = Emitter.emit
    calls = {"n": 0}

    def emit(self: Emitter, *args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == fail_at:
            raise Boom("injected")
        return original(self, *args, **kwargs)

    return emit


@FAST
@given(steps=workload, last=st.data(), fail_at=st.integers(min_value=2, max_value=6))
def test_a_failed_input_leaves_no_trace_and_can_be_applied_again(
    steps: list[tuple[Any, ...]], last: st.DataObject, fail_at: int
) -> None:
    run = run_steps(steps)
    before = run.store.snapshot()
    item = None
    for i in range(len(steps), len(steps) + 20):  # the first step that builds an input
        step = last.draw(st.sampled_from(steps))
        item = build_item(run, i, step)
        if item is not None:
            break
    assert item is not None
    reducer = Reducer()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Emitter, "emit", _failing_emit(fail_at))
        try:
            failed = False
            reducer.apply(run.store, item)
        except Boom:
            failed = True
    assert run.store.snapshot() == before or not failed  # an input with fewer emits simply applied
    if failed:
        # The same input applied for real afterwards gives what a store that never saw the failure gives.
        ops = reducer.apply(run.store, item).operations
        assert run.store.snapshot() == replay([*run.ops, *ops]).snapshot()


def test_an_extraction_failing_after_its_first_claim_is_rolled_back() -> None:
    from engine_factories import claim, extraction, new_store

    store = new_store()
    reducer = Reducer()
    reducer.apply(store, extraction(claim("user", "uses", "vim"), event_id="ev-0"))
    before = store.snapshot()
    two = extraction(claim("user", "uses", "emacs"), claim("user", "likes", "tea"), event_id="ev-1")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Emitter, "emit", _failing_emit(3))  # EXTRACTION_VALIDATED, first ASSERT, then boom
        with pytest.raises(Boom):
            reducer.apply(store, two)
    assert store.snapshot() == before
    assert not store.has_seen(two.input_id)
    assert len(reducer.apply(store, two).operations) >= 3  # not taken for a duplicate


def test_inputs_applied_inside_an_outer_transaction_join_it() -> None:
    """A nested block joins the outer one: the reducer's own block closing does not commit its
    input while an outer block is open, and the outer block failing undoes every input in it."""
    from engine_factories import claim, extraction, new_store

    store = new_store()
    reducer = Reducer()
    reducer.apply(store, extraction(claim("user", "uses", "vim"), event_id="ev-0"))
    before = store.snapshot()
    with pytest.raises(Boom), store.transaction():
        reducer.apply(store, extraction(claim("user", "uses", "emacs"), event_id="ev-1"))
        reducer.apply(store, extraction(claim("user", "likes", "tea"), event_id="ev-2"))
        assert store.snapshot() != before  # both folded while the block is open
        raise Boom("the outer block fails")
    assert store.snapshot() == before
    with store.transaction():  # and a block that ends normally keeps what was folded in it
        reducer.apply(store, extraction(claim("user", "likes", "tea"), event_id="ev-2"))
    assert store.snapshot() != before
    with pytest.raises(Boom), store.transaction():  # blocks open again after one has failed
        raise Boom("nothing folded")
    assert store.has_seen(extraction(claim("user", "likes", "tea"), event_id="ev-2").input_id)
