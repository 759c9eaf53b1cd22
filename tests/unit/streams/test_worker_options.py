"""``epistream worker --option NAME=VALUE``: numeric WorkerOptions only, typed like the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from streams.faust_app import WorkerOptions, numeric_options


def test_values_are_typed_like_their_field_and_reach_the_options() -> None:
    got = numeric_options(["within_s=0.2", "batch=100", " index_within_s = 0.1"])
    assert got == {"within_s": 0.2, "batch": 100, "index_within_s": 0.1}
    assert isinstance(got["batch"], int) and isinstance(got["within_s"], float)
    opts = WorkerOptions(**got)
    assert (opts.within_s, opts.batch, opts.index_within_s) == (0.2, 100, 0.1)


@pytest.mark.parametrize("pair", ["app_id=x", "nonsense=1", "within_s", "batch=1.5", "within_s=fast"])
def test_unknown_non_numeric_or_malformed_options_are_refused(pair: str) -> None:
    with pytest.raises(SystemExit, match="--option"):
        numeric_options([pair])


@pytest.mark.parametrize(("setting", "codec"), [("zstd", "zstd"), ("lz4", "lz4"), ("none", None)])
def test_the_worker_producer_compresses_as_configured(tmp_path: Path, setting: str, codec: str | None) -> None:
    from aiokafka.codec import has_zstd

    from schemas.settings import Settings
    from streams.faust_app import create_app

    assert has_zstd()  # the codec library is installed with the stream extra; without it aiokafka refuses zstd
    app = create_app(
        Settings(data_dir=tmp_path, kafka_compression=setting), data_dir=tmp_path, opensearch_url="http://127.0.0.1:1"
    )
    assert app.conf.producer_compression_type == codec
    assert app.producer.compression_type == codec



def test_the_session_timeout_is_the_groups_and_the_index_consumers(tmp_path: Path) -> None:
    """EPISTREAM_KAFKA_SESSION_TIMEOUT_S is the pause after a SIGKILL (docs/operations.md): both of a
    worker's groups wait that long for a dead member, and heartbeat three times within it."""
    import asyncio
    from types import SimpleNamespace

    from schemas.settings import Settings
    from streams.faust_app import create_app
    from streams.topics import Topics
    from streams.worker.index_consumer import IndexConsumer

    settings = Settings(data_dir=tmp_path)
    options = WorkerOptions(session_timeout_s=12.0, topic_prefix="p-")
    app = create_app(settings, data_dir=tmp_path, opensearch_url="http://127.0.0.1:1", options=options)
    assert (app.conf.broker_session_timeout, app.conf.broker_heartbeat_interval) == (12.0, 4.0)
    ctx = SimpleNamespace(options=options, settings=settings, topics=Topics(prefix="p-"))

    async def built() -> tuple[str, int, int]:
        consumer = IndexConsumer(ctx, sink=None)._consumer()  # type: ignore[arg-type]  # built, never started
        return consumer._group_id, consumer._session_timeout_ms, consumer._heartbeat_interval_ms

    assert asyncio.run(built()) == ("p-epistream-index", 12_000, 4_000)
