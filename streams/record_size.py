"""Keeping batched Kafka records under the producer's request size.

Batching inputs into one record saves per-record work, but a record above the
producer's ``max_request_size`` (1 MiB by default, and the broker's
``message.max.bytes``) cannot be sent at all, and a worker catching up on a
backlog fills batches to the brim. Records are therefore split at item
boundaries: by count first (cheap), then by encoded size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, TypeVar

T = TypeVar("T")

#: Version and first bytes of a batched record (``{"v":2,...}``) on memory.extractions and
#: memory.operations; a record without them holds a single item (the earlier form).
BATCH_RECORD_VERSION: Final = 2
BATCH_RECORD_PREFIX: Final = b'{"v":2,'
#: Items per record: enough to amortise the per-record cost, small enough that a record of typical
#: items (2-6 KiB each) stays well under MAX_RECORD_BYTES without a second encoding.
MAX_RECORD_ITEMS: Final = 64
#: Half the producer's default request limit: headroom for headers and the record batch framing.
MAX_RECORD_BYTES: Final = 512 * 1024


def split_to_fit(
    items: Sequence[T],
    encode: Callable[[Sequence[T]], bytes],
    *,
    max_items: int = MAX_RECORD_ITEMS,
    max_bytes: int = MAX_RECORD_BYTES,
) -> list[bytes]:
    """Encoded records holding ``items`` in order, each within the limits where one item allows it.

    A single item larger than ``max_bytes`` is still returned alone (splitting cannot help; the
    producer reports it), so nothing is silently dropped.
    """
    out: list[bytes] = []
    for start in range(0, len(items), max_items):
        _fit(items[start : start + max_items], encode, max_bytes, out)
    return out


def _fit(items: Sequence[T], encode: Callable[[Sequence[T]], bytes], max_bytes: int, out: list[bytes]) -> None:
    data = encode(items)
    if len(data) <= max_bytes or len(items) == 1:
        out.append(data)
        return
    half = len(items) // 2
    _fit(items[:half], encode, max_bytes, out)
    _fit(items[half:], encode, max_bytes, out)
