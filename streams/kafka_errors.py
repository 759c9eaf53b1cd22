"""Kafka failures as the product's typed ``backend_unavailable`` error.

aiokafka raises its own exception tree (``KafkaConnectionError`` when no broker answers,
``KafkaTimeoutError`` when a record is not acknowledged in time, ...). A chat platform running
``epistream publish`` or an operator running ``epistream dlq list`` should get the same stable
code as for an unreachable ClickHouse or OpenSearch, not a traceback, and a client that failed
to start must still be closed (aiokafka warns about, and leaks, an unclosed one).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from schemas.errors import BackendUnavailable


def _kafka_error() -> type[BaseException]:
    from aiokafka.errors import KafkaError

    error: type[BaseException] = KafkaError
    return error


def unavailable(exc: BaseException, doing: str, **details: Any) -> BackendUnavailable:
    """The typed error for a Kafka failure while ``doing`` something (no record content in it)."""
    return BackendUnavailable(
        f"Kafka failed while {doing}: {type(exc).__name__}", backend="kafka", reason=type(exc).__name__, **details
    )


async def started(client: Any, stop: Callable[[], Awaitable[Any]] | None = None) -> None:
    """Start an aiokafka client; if no broker answers, close it again and raise ``BackendUnavailable``."""
    try:
        await client.start()
    except _kafka_error() as exc:
        await (stop if stop is not None else client.stop)()  # a half-started client holds sockets and tasks
        raise unavailable(exc, "connecting") from exc


@contextlib.asynccontextmanager
async def kafka_client(client: Any, doing: str, stop: Callable[[], Awaitable[Any]] | None = None) -> AsyncIterator[Any]:
    """Start ``client``, yield it, always stop it; Kafka errors on the way become ``BackendUnavailable``.

    ``stop`` overrides how the client is closed (the admin client's method is ``close``).
    """
    await started(client, stop)
    try:
        yield client
    except _kafka_error() as exc:
        raise unavailable(exc, doing) from exc
    finally:
        await (stop if stop is not None else client.stop)()
