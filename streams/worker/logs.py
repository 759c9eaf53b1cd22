"""faust's own log lines that are normal operation, not warnings: counted instead, and summarised.

faust's producer buffer logs ``producer buffer full size N`` at WARNING (and ``producer flush took``
at INFO) every time more than 100 records wait to be sent and a stream pauses until they are: a
healthy worker under a burst wrote 51-148 of them per 20,000 events, at the default level where it
otherwise logs nothing. The pause is faust's flow control doing its job. Each occurrence is counted
(``epistream_producer_buffer_full_total``) and the lines are folded into one INFO line a minute.
"""

from __future__ import annotations

import logging
import time
from typing import Any

_FAUST_PRODUCER = "faust.transport.producer"
_SUMMARY_EVERY_S = 60.0

log = logging.getLogger("epistream.worker")


class ProducerBufferLines(logging.Filter):
    """Drops faust's producer-buffer lines, counting them; one summary at INFO per minute."""

    def __init__(self, metrics: Any = None) -> None:
        super().__init__()
        self.metrics = metrics
        self.seen = 0
        self._since_summary = 0
        self._summary_at = time.monotonic()

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if text.startswith("producer flush took"):
            return False
        if not text.startswith("producer buffer full"):
            return True
        self.seen += 1
        self._since_summary += 1
        if self.metrics is not None:
            self.metrics.inc("epistream_producer_buffer_full_total")
        now = time.monotonic()
        if now - self._summary_at >= _SUMMARY_EVERY_S:
            log.info(
                "faust paused streams %d times in the last %.0f s until its producer buffer drained "
                "(epistream_producer_buffer_full_total)",
                self._since_summary,
                now - self._summary_at,
            )
            self._since_summary = 0
            self._summary_at = now
        return False


def quiet_producer_buffer(metrics: Any = None) -> ProducerBufferLines:
    """Install the filter on faust's producer logger (once; a later call updates its metrics)."""
    logger = logging.getLogger(_FAUST_PRODUCER)
    for existing in logger.filters:
        if isinstance(existing, ProducerBufferLines):
            if metrics is not None:
                existing.metrics = metrics
            return existing
    line_filter = ProducerBufferLines(metrics)
    logger.addFilter(line_filter)
    return line_filter
