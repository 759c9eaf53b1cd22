import gc
import weakref
from collections.abc import Iterator

import pytest

from epistream.runtime import freeze_loaded_heap


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
