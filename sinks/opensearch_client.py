"""Connection to OpenSearch and the one place its failures become ``BackendUnavailable``.

Every call the sink makes goes through ``guarded`` so a timeout, a refused
connection or a server error surfaces as one stable error code. The message
names the operation and the server's error *type* only: OpenSearch error
bodies can quote the request (document fields, query text), which is stored
memory content and must not leak into logs or API responses.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import OpenSearchException, TransportError

from schemas.errors import BackendUnavailable

#: Seconds; a retrieval request must not hang on a slow cluster.
DEFAULT_TIMEOUT_S = 10.0


def make_client(url: str, *, timeout: float = DEFAULT_TIMEOUT_S, max_retries: int = 2) -> OpenSearch:
    return OpenSearch(
        hosts=[url],
        timeout=timeout,
        max_retries=max_retries,
        retry_on_timeout=True,
        http_compress=False,
    )


def as_client(client_or_url: OpenSearch | str, *, timeout: float = DEFAULT_TIMEOUT_S) -> OpenSearch:
    return make_client(client_or_url, timeout=timeout) if isinstance(client_or_url, str) else client_or_url


def server_error_type(exc: TransportError) -> str:
    """The server's error type (``index_not_found_exception``), never its reason text."""
    info = exc.info
    if isinstance(info, dict):
        error = info.get("error")
        if isinstance(error, dict) and isinstance(error.get("type"), str):
            return str(error["type"])
    return type(exc).__name__


@contextmanager
def guarded(operation: str, **details: Any) -> Iterator[None]:
    try:
        yield
    except OSConnectionError as exc:  # includes ConnectionTimeout
        raise BackendUnavailable(
            f"OpenSearch {operation} failed: {type(exc).__name__}",
            operation=operation,
            error_type=type(exc).__name__,
            **details,
        ) from None
    except TransportError as exc:
        status = exc.status_code if isinstance(exc.status_code, int) else None
        error_type = server_error_type(exc)
        # An index gone from a running deployment is OpenSearch that lost its data: say how to recover.
        hint = "; the index is missing: `epistream repair` recreates and re-feeds it" if (
            error_type == "index_not_found_exception"
        ) else ""
        raise BackendUnavailable(
            f"OpenSearch {operation} failed: {error_type} (status {status}){hint}",
            operation=operation,
            status=status,
            error_type=error_type,
            **details,
        ) from None
    except OpenSearchException as exc:
        raise BackendUnavailable(
            f"OpenSearch {operation} failed: {type(exc).__name__}",
            operation=operation,
            error_type=type(exc).__name__,
            **details,
        ) from None
