import gc
import weakref
from collections.abc import Iterator

import pytest

from streams.runtime import GC_YOUNG_THRESHOLD, freeze_loaded_heap, tune_gc_for_throughput


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector could ever free it


def test_objects_alive_at_the_freeze_leave_the_collected_generations(unfrozen: None) -> None:
    loaded = [Node() for _ in range(1000)]
    freeze_loaded_heap()
    assert gc.get_freeze_count() >= len(loaded)
    tracked = {id(o) for generation in range(3) for o in gc.get_objects(generation)}
    assert not any(id(n) in tracked for n in loaded)
    later = Node()
    assert any(o is later for o in gc.get_objects(0)), "objects created afterwards are still collected"


def test_garbage_at_the_freeze_is_collected_first(unfrozen: None) -> None:
    garbage = Node()
    ref = weakref.ref(garbage)
    del garbage
    assert ref() is not None  # the cycle keeps it alive until a collection
    freeze_loaded_heap()
    assert ref() is None


def test_throughput_tuning_raises_the_young_threshold_and_keeps_collecting() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)  # CPython's defaults, whatever ran in this process before
        tune_gc_for_throughput()
        young, middle, old = gc.get_threshold()
        assert young == GC_YOUNG_THRESHOLD > 700
        assert middle >= 1 and old >= 1
        assert gc.isenabled()
        garbage = Node()
        ref = weakref.ref(garbage)
        del garbage
        gc.collect(0)
        assert ref() is None  # cycles are still found
    finally:
        gc.set_threshold(*before)
