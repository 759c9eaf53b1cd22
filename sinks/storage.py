"""What the storage adapters share about the disk under them."""

from __future__ import annotations

import errno


def out_of_space(exc: BaseException) -> bool:
    """Whether a storage error is the disk being full: ENOSPC, the log engine refusing to reserve space
    (ClickHouse's NOT_ENOUGH_SPACE), or a library that reports the OS error as text (tantivy)."""
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return True
    text = str(exc)
    return "NOT_ENOUGH_SPACE" in text or "No space left on device" in text
