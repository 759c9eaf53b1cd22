"""A small typed client for assistants (sync and async) over the HTTP API.

Responses come back as the same models the server uses; errors come back as
the ``schemas.errors`` class whose stable ``code`` the server sent (or the
class matching the HTTP status when the code is more specific than any class).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel

import schemas.errors as errors_module
from engine.assertion_state import AssertionState
from engine.provenance import NodeProvenance
from engine.results import Outcome
from schemas.errors import (
    AuthError,
    BackendUnavailable,
    Conflict,
    EpistreamError,
    NotFound,
    PayloadTooLarge,
    PermissionDenied,
    RateLimited,
    ValidationFailed,
)
from schemas.nodes import MemoryNode
from schemas.retrieval import RetrievalReceipt, RetrievalResponse, WorldContext

__all__ = [
    "AsyncEpistreamClient",
    "CommandResult",
    "EpistreamClient",
    "EventResult",
    "EventsResult",
    "error_from_response",
]

M = TypeVar("M", bound=BaseModel)


class EventResult(BaseModel):
    index: int
    event_id: str | None = None
    status: str
    code: str | None = None
    message: str | None = None


class EventsResult(BaseModel):
    accepted: int
    duplicates: int
    rejected: int
    results: list[EventResult]
    claims: int = 0
    operations: int = 0


class CommandResult(BaseModel):
    command: str
    command_id: str
    outcome: Outcome
    #: The target after the command (a retry returns it unchanged); absent in distributed mode.
    node: MemoryNode | None = None


def _error_classes() -> dict[str, type[EpistreamError]]:
    found: dict[str, type[EpistreamError]] = {}
    stack: list[type[EpistreamError]] = [EpistreamError]
    while stack:
        cls = stack.pop()
        found.setdefault(cls.code, cls)
        stack.extend(cls.__subclasses__())
    return {code: cls for code, cls in found.items() if cls.__module__ == errors_module.__name__}


_BY_CODE = _error_classes()
_BY_STATUS: dict[int, type[EpistreamError]] = {
    401: AuthError,
    403: PermissionDenied,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    422: ValidationFailed,
    429: RateLimited,
    503: BackendUnavailable,
}


def error_from_response(response: httpx.Response) -> EpistreamError:
    """The typed error for a non-2xx response (never includes the request body)."""
    try:
        err = response.json()["error"]
        code, message, details = str(err["code"]), str(err["message"]), dict(err.get("details") or {})
    except (ValueError, KeyError, TypeError):
        code, message, details = f"http_{response.status_code}", f"HTTP {response.status_code}", {}
    cls = _BY_CODE.get(code) or _BY_STATUS.get(response.status_code, EpistreamError)
    exc = cls(message, code=code)
    exc.details = details
    exc.http_status = response.status_code
    return exc


def _headers(api_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}", "User-Agent": "epistream-client/1"}


def _idem(key: str | uuid.UUID | None) -> dict[str, str]:
    return {} if key is None else {"Idempotency-Key": str(key)}


def _clean(body: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in body.items():
        if v is None:
            continue
        if isinstance(v, datetime):
            v = v.isoformat()
        elif isinstance(v, set | frozenset | tuple):
            v = [str(x) for x in v]
        out[k] = v
    return out


class _Spec:
    """Request descriptions shared by the sync and async clients."""

    @staticmethod
    def retrieve(query: str, **options: Any) -> tuple[str, str, dict[str, Any], dict[str, Any]]:
        return "POST", "/v1/retrieve", {"json": _clean({"query": query, **options})}, {}

    @staticmethod
    def command(path: str, body: Mapping[str, Any], method: str = "POST") -> tuple[str, str, dict[str, Any]]:
        return method, path, {"json": _clean(body)}


class EpistreamClient:
    """Synchronous client; pass ``http_client`` to reuse a session or transport (e.g. tests)."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        http_client: httpx.Client | None = None,
    ) -> None:
        self._http = http_client or httpx.Client(base_url=base_url, timeout=timeout)
        self._owns = http_client is None
        self._headers = _headers(api_key)

    def close(self) -> None:
        if self._owns:
            self._http.close()

    def __enter__(self) -> EpistreamClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: str, path: str, model: type[M], headers: Mapping[str, str] | None = None,
              **kwargs: Any) -> M:
        response = self._http.request(method, path, headers={**self._headers, **(headers or {})}, **kwargs)
        if response.status_code >= 400:
            raise error_from_response(response)
        return model.model_validate(response.json())

    # -- ingestion
    def ingest(self, events: Sequence[Mapping[str, Any]], *, idempotency_key: str | uuid.UUID | None = None
               ) -> EventsResult:
        return self._call("POST", "/v1/events", EventsResult, _idem(idempotency_key), json={"events": list(events)})

    # -- reads
    def retrieve(self, query: str, *, idempotency_key: str | uuid.UUID | None = None,
                 **options: Any) -> RetrievalResponse:
        """``idempotency_key`` (a UUID) becomes the answer's ``receipt_id``."""
        method, path, kwargs, _ = _Spec.retrieve(query, **options)
        return self._call(method, path, RetrievalResponse, _idem(idempotency_key), **kwargs)

    def retrieval(self, receipt_id: str | uuid.UUID) -> RetrievalReceipt:
        """The receipt of an earlier retrieval (``RetrievalResponse.receipt_id``): what it showed and left out."""
        return self._call("GET", f"/v1/retrievals/{receipt_id}", RetrievalReceipt)

    def world_context(self, owner_id: str | None = None, *, scope: str | None = None, scope_id: str | None = None,
                      at: datetime | None = None, continuation_task_id: str | None = None) -> WorldContext:
        """The world view; ``continuation_task_id`` selects one task (its capsule and ``task_context``)."""
        params = _clean({"owner_id": owner_id, "scope": scope, "scope_id": scope_id, "at": at,
                         "continuation_task_id": continuation_task_id})
        return self._call("GET", "/v1/world-context", WorldContext, params=params)

    def node(self, node_id: str) -> MemoryNode:
        return self._call("GET", f"/v1/nodes/{node_id}", MemoryNode)

    def provenance(self, node_id: str, *, cursor: str | None = None, limit: int = 100) -> NodeProvenance:
        params = _clean({"cursor": cursor, "limit": limit})
        return self._call("GET", f"/v1/nodes/{node_id}/provenance", NodeProvenance, params=params)

    def assertion_state(self, subject: str, predicate: str, valid_at: datetime, **options: Any) -> AssertionState:
        """``options``: owner_id, knowledge_at, scope, scope_id, node_types, limit (PRME-FACTS §9)."""
        body = _clean({"subject": subject, "predicate": predicate, "valid_at": valid_at, **options})
        return self._call("POST", "/v1/assertions/state", AssertionState, json=body)

    # -- commands
    def _command(self, path: str, body: Mapping[str, Any], key: str | uuid.UUID | None, method: str = "POST"
                 ) -> CommandResult:
        m, p, kwargs = _Spec.command(path, body, method)
        return self._call(m, p, CommandResult, _idem(key), **kwargs)

    def contradict(self, node_a: str, node_b: str, *, idempotency_key: str | uuid.UUID | None = None,
                   **body: Any) -> CommandResult:
        return self._command("/v1/contradictions", {"node_a": node_a, "node_b": node_b, **body}, idempotency_key)

    def resolve(self, winner_id: str, loser_id: str, *, idempotency_key: str | uuid.UUID | None = None,
                **body: Any) -> CommandResult:
        return self._command("/v1/contradictions/resolve", {"winner_id": winner_id, "loser_id": loser_id, **body},
                             idempotency_key)

    def set_condition(self, node_id: str, state: str, *, idempotency_key: str | uuid.UUID | None = None,
                      **body: Any) -> CommandResult:
        return self._command(f"/v1/nodes/{node_id}/condition", {"state": state, **body}, idempotency_key, "PUT")

    def node_command(self, node_id: str, action: str, *, idempotency_key: str | uuid.UUID | None = None,
                     **body: Any) -> CommandResult:
        """``action``: reinforce, penalize, transition, promote, archive, deprecate or revalidate."""
        return self._command(f"/v1/nodes/{node_id}/{action}", body, idempotency_key)

    def reinforce(self, node_id: str, **kw: Any) -> CommandResult:
        return self.node_command(node_id, "reinforce", **kw)

    def penalize(self, node_id: str, **kw: Any) -> CommandResult:
        return self.node_command(node_id, "penalize", **kw)

    def transition(self, node_id: str, to_type: str, **kw: Any) -> CommandResult:
        return self.node_command(node_id, "transition", to_type=to_type, **kw)

    def promote(self, node_id: str, **kw: Any) -> CommandResult:
        return self.node_command(node_id, "promote", **kw)

    def archive(self, node_id: str, **kw: Any) -> CommandResult:
        return self.node_command(node_id, "archive", **kw)

    def deprecate(self, node_id: str, **kw: Any) -> CommandResult:
        return self.node_command(node_id, "deprecate", **kw)

    def revalidate(self, node_id: str, expires_at: datetime, **kw: Any) -> CommandResult:
        """New evidence (``evidence_ids`` or ``evidence_quote``) that a claim holds until ``expires_at``."""
        return self.node_command(node_id, "revalidate", expires_at=expires_at, **kw)

    # -- operations
    def health(self) -> dict[str, Any]:
        response = self._http.get("/v1/health", headers=self._headers)
        if response.status_code not in (200, 503):
            raise error_from_response(response)
        body: dict[str, Any] = response.json()
        return body


class AsyncEpistreamClient:
    """Asynchronous twin of :class:`EpistreamClient`."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._http = http_client or httpx.AsyncClient(base_url=base_url, timeout=timeout)
        self._owns = http_client is None
        self._headers = _headers(api_key)

    async def aclose(self) -> None:
        if self._owns:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncEpistreamClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _call(self, method: str, path: str, model: type[M], headers: Mapping[str, str] | None = None,
                    **kwargs: Any) -> M:
        response = await self._http.request(method, path, headers={**self._headers, **(headers or {})}, **kwargs)
        if response.status_code >= 400:
            raise error_from_response(response)
        return model.model_validate(response.json())

    async def ingest(self, events: Sequence[Mapping[str, Any]], *, idempotency_key: str | uuid.UUID | None = None
                     ) -> EventsResult:
        return await self._call("POST", "/v1/events", EventsResult, _idem(idempotency_key),
                                json={"events": list(events)})

    async def retrieve(self, query: str, *, idempotency_key: str | uuid.UUID | None = None,
                       **options: Any) -> RetrievalResponse:
        """``idempotency_key`` (a UUID) becomes the answer's ``receipt_id``."""
        method, path, kwargs, _ = _Spec.retrieve(query, **options)
        return await self._call(method, path, RetrievalResponse, _idem(idempotency_key), **kwargs)

    async def retrieval(self, receipt_id: str | uuid.UUID) -> RetrievalReceipt:
        """The receipt of an earlier retrieval (``RetrievalResponse.receipt_id``): what it showed and left out."""
        return await self._call("GET", f"/v1/retrievals/{receipt_id}", RetrievalReceipt)

    async def world_context(self, owner_id: str | None = None, *, scope: str | None = None,
                            scope_id: str | None = None, at: datetime | None = None,
                            continuation_task_id: str | None = None) -> WorldContext:
        """The world view; ``continuation_task_id`` selects one task (its capsule and ``task_context``)."""
        params = _clean({"owner_id": owner_id, "scope": scope, "scope_id": scope_id, "at": at,
                         "continuation_task_id": continuation_task_id})
        return await self._call("GET", "/v1/world-context", WorldContext, params=params)

    async def node(self, node_id: str) -> MemoryNode:
        return await self._call("GET", f"/v1/nodes/{node_id}", MemoryNode)

    async def provenance(self, node_id: str, *, cursor: str | None = None, limit: int = 100) -> NodeProvenance:
        params = _clean({"cursor": cursor, "limit": limit})
        return await self._call("GET", f"/v1/nodes/{node_id}/provenance", NodeProvenance, params=params)

    async def assertion_state(self, subject: str, predicate: str, valid_at: datetime, **options: Any
                              ) -> AssertionState:
        body = _clean({"subject": subject, "predicate": predicate, "valid_at": valid_at, **options})
        return await self._call("POST", "/v1/assertions/state", AssertionState, json=body)

    async def _command(self, path: str, body: Mapping[str, Any], key: str | uuid.UUID | None, method: str = "POST"
                       ) -> CommandResult:
        m, p, kwargs = _Spec.command(path, body, method)
        return await self._call(m, p, CommandResult, _idem(key), **kwargs)

    async def contradict(self, node_a: str, node_b: str, *, idempotency_key: str | uuid.UUID | None = None,
                         **body: Any) -> CommandResult:
        return await self._command("/v1/contradictions", {"node_a": node_a, "node_b": node_b, **body},
                                   idempotency_key)

    async def resolve(self, winner_id: str, loser_id: str, *, idempotency_key: str | uuid.UUID | None = None,
                      **body: Any) -> CommandResult:
        return await self._command("/v1/contradictions/resolve", {"winner_id": winner_id, "loser_id": loser_id,
                                                                  **body}, idempotency_key)

    async def set_condition(self, node_id: str, state: str, *, idempotency_key: str | uuid.UUID | None = None,
                            **body: Any) -> CommandResult:
        return await self._command(f"/v1/nodes/{node_id}/condition", {"state": state, **body}, idempotency_key,
                                   "PUT")

    async def node_command(self, node_id: str, action: str, *, idempotency_key: str | uuid.UUID | None = None,
                           **body: Any) -> CommandResult:
        return await self._command(f"/v1/nodes/{node_id}/{action}", body, idempotency_key)

    async def reinforce(self, node_id: str, **kw: Any) -> CommandResult:
        return await self.node_command(node_id, "reinforce", **kw)

    async def penalize(self, node_id: str, **kw: Any) -> CommandResult:
        return await self.node_command(node_id, "penalize", **kw)

    async def transition(self, node_id: str, to_type: str, **kw: Any) -> CommandResult:
        return await self.node_command(node_id, "transition", to_type=to_type, **kw)

    async def promote(self, node_id: str, **kw: Any) -> CommandResult:
        return await self.node_command(node_id, "promote", **kw)

    async def archive(self, node_id: str, **kw: Any) -> CommandResult:
        return await self.node_command(node_id, "archive", **kw)

    async def deprecate(self, node_id: str, **kw: Any) -> CommandResult:
        return await self.node_command(node_id, "deprecate", **kw)

    async def revalidate(self, node_id: str, expires_at: datetime, **kw: Any) -> CommandResult:
        """New evidence (``evidence_ids`` or ``evidence_quote``) that a claim holds until ``expires_at``."""
        return await self.node_command(node_id, "revalidate", expires_at=expires_at, **kw)

    async def health(self) -> dict[str, Any]:
        response = await self._http.get("/v1/health", headers=self._headers)
        if response.status_code not in (200, 503):
            raise error_from_response(response)
        body: dict[str, Any] = response.json()
        return body
