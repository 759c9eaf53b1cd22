"""The worker's counters: Prometheus text format, and the endpoint that serves it."""

from __future__ import annotations

import asyncio

import pytest

from streams.metrics import COUNTERS, WorkerMetrics, serve
from tests.prometheus_text import samples


def test_counters_add_up_per_label_set_and_render_in_the_text_format() -> None:
    m = WorkerMetrics()
    m.inc("epistream_events_received_total", 5)
    m.inc("epistream_dead_letters_total", stage="extract", reason="invalid_json")
    m.inc("epistream_dead_letters_total", 2, reason="invalid_json", stage="extract")  # label order is irrelevant
    m.count_each("epistream_operations_total", "op_type", ["ASSERT", "EXTRACTION_VALIDATED", "ASSERT"])
    m.inc("epistream_index_documents_total", 0, outcome="rejected")  # nothing to count: no series at 0
    text = m.render().decode()
    got = samples(text)
    assert got["epistream_events_received_total"] == 5
    assert got['epistream_dead_letters_total{reason="invalid_json",stage="extract"}'] == 3
    assert got['epistream_operations_total{op_type="ASSERT"}'] == 2
    assert got['epistream_operations_total{op_type="EXTRACTION_VALIDATED"}'] == 1
    assert got["epistream_events_admitted_total"] == 0  # an unlabelled counter that never moved reads 0
    assert not [k for k in got if k.startswith("epistream_index_documents_total")]
    for name, (help_text, _labels) in COUNTERS.items():  # every counter is declared, with help and type
        assert f"# HELP {name} {help_text}\n# TYPE {name} counter\n" in text
    assert m.value("epistream_dead_letters_total", stage="extract", reason="invalid_json") == 3


def test_event_ages_fill_the_histogram_and_clock_skew_counts_as_zero() -> None:
    m = WorkerMetrics()
    m.observe("epistream_event_age_seconds", [0.2, 3.0, -1.0])  # -1: a publisher clock ahead of ours
    got = samples(m.render().decode())
    assert got["epistream_event_age_seconds_count"] == 3
    assert got["epistream_event_age_seconds_sum"] == 3.2
    assert got['epistream_event_age_seconds_bucket{le="0.05"}'] == 1  # the skewed one, as 0
    assert got['epistream_event_age_seconds_bucket{le="0.25"}'] == 2
    assert got['epistream_event_age_seconds_bucket{le="5.0"}'] == 3
    with pytest.raises(KeyError):
        m.observe("epistream_no_such_seconds", [1.0])


def test_label_values_are_escaped_and_mistakes_are_refused() -> None:
    m = WorkerMetrics()
    m.inc("epistream_extractions_total", status='odd"status\\with\nbreak')
    assert 'epistream_extractions_total{status="odd\\"status\\\\with\\nbreak"} 1.0' in m.render().decode()
    with pytest.raises(KeyError):
        m.inc("epistream_no_such_total")
    with pytest.raises(ValueError, match="only go up"):
        m.inc("epistream_events_received_total", -1)


async def _get(port: int, request: bytes) -> tuple[str, dict[str, str], bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    data = await reader.read()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    headers = {k.lower(): v for k, v in (line.split(": ", 1) for line in lines)}
    return status, headers, body


def test_the_endpoint_serves_metrics_and_health_and_refuses_the_rest() -> None:
    async def scenario() -> None:
        m = WorkerMetrics()
        m.inc("epistream_events_received_total", 7)
        server = await serve(m, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            status, headers, body = await _get(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            assert status == "HTTP/1.1 200 OK"
            assert headers["content-type"].startswith("text/plain; version=0.0.4")
            assert int(headers["content-length"]) == len(body)
            assert samples(body.decode())["epistream_events_received_total"] == 7
            m.inc("epistream_events_received_total")  # a later scrape sees the live value
            _, _, body = await _get(port, b"GET /metrics?x=1 HTTP/1.1\r\n\r\n")
            assert samples(body.decode())["epistream_events_received_total"] == 8
            assert (await _get(port, b"GET /healthz HTTP/1.1\r\n\r\n"))[2] == b"ok\n"
            assert (await _get(port, b"GET /secrets HTTP/1.1\r\n\r\n"))[0] == "HTTP/1.1 404 Not Found"
            assert (await _get(port, b"POST /metrics HTTP/1.1\r\n\r\n"))[0] == "HTTP/1.1 405 Method Not Allowed"
            assert (await _get(port, b"garbage\r\n\r\n"))[0] == "HTTP/1.1 400 Bad Request"
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(scenario())
