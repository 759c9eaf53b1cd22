"""faust's producer-buffer lines: counted, not logged as warnings by a healthy worker (issue 27, item 7)."""

from __future__ import annotations

import logging

import pytest

from streams.metrics import WorkerMetrics
from streams.worker.logs import ProducerBufferLines, quiet_producer_buffer


def test_buffer_full_lines_are_counted_and_dropped_and_other_lines_pass(caplog: pytest.LogCaptureFixture) -> None:
    metrics = WorkerMetrics()
    logger = logging.getLogger("faust.transport.producer")
    line_filter = quiet_producer_buffer(metrics)
    try:
        assert quiet_producer_buffer() is line_filter  # installed once
        with caplog.at_level(logging.INFO, logger="faust.transport.producer"):
            for size in (101, 150, 230):
                logger.warning("producer buffer full size %d", size)
            logger.info("producer flush took %r", 0.2)
            logger.warning("producer could not reach the broker")
        assert [r.getMessage() for r in caplog.records] == ["producer could not reach the broker"]
        assert line_filter.seen == 3
        assert metrics.value("epistream_producer_buffer_full_total") == 3
    finally:
        logger.removeFilter(line_filter)


def test_one_summary_line_a_minute(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1000.0]
    monkeypatch.setattr("streams.worker.logs.time.monotonic", lambda: now[0])
    line_filter = ProducerBufferLines()
    line = "producer buffer full size 101"
    record = logging.LogRecord("faust.transport.producer", logging.WARNING, __file__, 1, line, None, None)
    with caplog.at_level(logging.INFO, logger="epistream.worker"):
        for _ in range(4):
            now[0] += 10
            assert line_filter.filter(record) is False
        now[0] += 30  # 70 s since the filter started
        line_filter.filter(record)
    summaries = [r.getMessage() for r in caplog.records if r.name == "epistream.worker"]
    assert summaries == [
        "faust paused streams 5 times in the last 70 s until its producer buffer drained "
        "(epistream_producer_buffer_full_total)"
    ]
