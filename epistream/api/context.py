"""What every route needs: the app's state, the caller's key, and the checks done on every request.

Routes are plain module-level functions; they reach the one ``ApiState`` of their app through
FastAPI dependencies (``State``, ``Key``), so no route closes over another's variables and each
route module can be read alone.

The edge is where time and identity enter: ``issued_at`` is the server clock, ``actor`` is the
API key, the tenant is the key's tenant.
"""

import asyncio
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Annotated, Any

from fastapi import Depends, Header, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from epistream.api.auth import NEEDS_SCRYPT, ApiKey, ApiKeyRing
from epistream.api.batching import EventWrites
from epistream.api.distributed import Dispatch
from epistream.api.errors import ErrorBody
from epistream.api.gate import DEFAULT_READERS, RunnerGate
from epistream.api.limits import IdempotencyCache, TokenBucketLimiter
from epistream.api.metrics import ApiMetrics
from epistream.api.receipts import DEFAULT_QUEUE_SIZE, ReceiptSink, ReceiptWriter
from epistream.runner import EmbeddedRunner
from schemas.enums import Scope
from schemas.errors import AuthError, EpistreamError, NodeNotFound, RateLimited, ValidationFailed
from schemas.nodes import MemoryNode
from schemas.retrieval import RetrievalReceipt
from schemas.settings import Settings
from schemas.visibility import is_visible

#: Namespace of command ids derived from an Idempotency-Key (stable across restarts).
COMMAND_NAMESPACE = uuid.UUID("5d7c3a8e-2f61-4c1b-9a57-6b0e4f3c2d19")

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": desc}
    for status, desc in {
        401: "Missing or invalid API key",
        403: "The key lacks a permission, owner or scope",
        413: "Body or batch too large",
        422: "Validation failed",
        429: "Rate limited",
        503: "Backend unavailable or timed out",
    }.items()
}
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody, "description": "Not found in your tenant"}}
CONFLICT: dict[int | str, dict[str, Any]] = {409: {"model": ErrorBody, "description": "Conflict (incl. reused key)"}}
ALL_ERRORS = {**ERRORS, **NOT_FOUND, **CONFLICT}

bearer = HTTPBearer(auto_error=False, description="API key")


class ApiState:
    """Everything a request handler needs; one per app."""

    def __init__(
        self,
        runner: EmbeddedRunner,
        keys: ApiKeyRing,
        settings: Settings,
        clock: Callable[[], datetime],
        readers: int = DEFAULT_READERS,
        dispatch: Dispatch | None = None,
        receipt_queue_size: int = DEFAULT_QUEUE_SIZE,
        receipt_sink: ReceiptSink | None = None,
    ) -> None:
        self.runner = runner
        #: Distributed mode when set: writes are published, reads stay on the runner.
        self.dispatch = dispatch
        self.keys = keys
        self.settings = settings
        self.clock = clock
        self.gate = RunnerGate(runner, settings.api_backend_timeout_s, readers=readers)
        self.event_writes = EventWrites(runner, self.gate)
        self.limiter = TokenBucketLimiter(settings.api_rate_limit_per_s, settings.api_rate_burst)
        #: Failed authentications per client address: a burst of 10, then one a second.
        self.auth_failures = TokenBucketLimiter(1.0, 10)
        #: scrypt checks of unknown tokens: two at a time at most, beside the request threads.
        self.scrypt_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="api-auth")
        self.idempotency = IdempotencyCache(settings.api_idempotency_cache)
        self.metrics = ApiMetrics()
        #: None when ``settings.retrieval_receipts`` is off, or when there is no log to keep them in (a
        #: distributed API without EPISTREAM_CLICKHOUSE_URL: ``GET /v1/retrievals/{id}`` answers
        #: ``not_configured`` there).
        self.receipts = _receipt_writer(runner, self.gate, self.metrics, receipt_queue_size, receipt_sink) if (
            settings.retrieval_receipts and (runner.keeps_log or receipt_sink is not None)
        ) else None

    def owner_for(self, key: ApiKey, owner_id: str | None) -> str:
        owner = owner_id or key.default_owner()
        if owner is None:
            raise ValidationFailed("owner_id is required for this key", code="owner_required", field="owner_id")
        key.check_owner(owner)
        return owner

    def reader_for(self, key: ApiKey, owner_id: str | None) -> tuple[str, frozenset[str] | None]:
        """The owner a read names and what the key may read of it (``ApiKey.readable``): a key not allowed
        for that owner reads its shared and group records only, instead of being refused."""
        owner = owner_id or key.default_owner()
        if owner is None:
            raise ValidationFailed("owner_id is required for this key", code="owner_required", field="owner_id")
        return owner, key.readable(owner)

    def scope_for(self, key: ApiKey, scope: Scope | None, scope_id: str | None) -> tuple[Scope | None, str | None]:
        if scope is None and scope_id is None:
            default = key.default_scope()
            if default is not None:
                return default
        key.check_scope(scope, scope_id)
        return scope, scope_id

    async def visible_node(self, key: ApiKey, node_id: str) -> MemoryNode:
        """The node if this key may see it; otherwise the same 404 whether it exists or not."""
        node = await self.gate.read(self.runner.node, node_id, tenant_id=key.tenant_id)
        if (node is None or not is_visible(node.visibility, key.readable(node.owner_id))
                or not key.scope_allowed(node.scope, node.scope_id)):  # fmt: skip
            raise NodeNotFound("node not found")
        return node

    async def actionable_node(self, key: ApiKey, node_id: str) -> MemoryNode:
        """The node if this key may command it: one it may see, of an owner it may act for. A node shared
        with the key from another owner is readable, never its to reinforce, retire or correct (403)."""
        node = await self.visible_node(key, node_id)
        key.check_owner(node.owner_id)
        return node


def _receipt_writer(
    runner: EmbeddedRunner, gate: RunnerGate, metrics: ApiMetrics, queue_size: int, given: ReceiptSink | None
) -> ReceiptWriter:
    """The writer inserts through a client of its own (no lock shared with the runner's writes); a log
    that cannot be cloned is written on the gate's writer thread, between writes, as every other
    call of the runner's chDB client is.

    Distributed, the runner holds no state, so the node versions of a receipt come from the index the
    workers write, looked up on the writer thread rather than on the request path.
    """
    on_close: Callable[[], None] | None = None
    sink: ReceiptSink
    if given is not None:
        sink = given
    else:
        try:
            own = runner.log.clone()
        except EpistreamError:
            shared = runner.log
            sink = lambda batch: gate.on_writer(lambda: shared.write_retrievals(batch))  # noqa: E731
        else:
            sink, on_close = own.write_retrievals, own.close

    def versions_from_index(batch: list[RetrievalReceipt]) -> list[RetrievalReceipt]:
        missing = sorted({i.node_id for r in batch for i in r.included if i.version == 0})
        if not missing:
            return batch
        found = {n.node_id: n.version for n in runner.index.get(missing)}
        return [
            r.model_copy(update={"included": tuple(
                i.model_copy(update={"version": found.get(i.node_id, 0)}) if i.version == 0 else i for i in r.included
            )})
            for r in batch
        ]

    return ReceiptWriter(
        sink,
        max_queue=queue_size,
        on_drop=lambda reason, n: metrics.receipts_dropped.labels(reason).inc(n),
        on_write=metrics.receipts_written.inc,
        enrich=versions_from_index if runner.reads_shared else None,
        on_close=on_close,
    )


def api_state(request: Request) -> ApiState:
    state: ApiState = request.app.state.api
    return state


State = Annotated[ApiState, Depends(api_state)]


async def authenticate(state: ApiState, request: Request, header: str) -> ApiKey:
    """The caller's key, without letting unknown tokens cost the server.

    A valid SHA-256 key, or an scrypt key verified before, is never throttled. Failures are counted
    per client address, and an address over its budget is answered 429, after
    ``api_auth_failure_delay_s``, before any further work (no scrypt run for it); a token seen to
    fail is refused from memory for a while; the scrypt check runs in a small thread pool of its
    own, so valid requests keep the event loop and the request threads.
    """
    client = request.client.host if request.client is not None else "unknown"
    try:
        try:
            found = state.keys.lookup(header)
            if found is NEEDS_SCRYPT:
                state.auth_failures.peek(client)
                loop = asyncio.get_running_loop()
                found = await loop.run_in_executor(state.scrypt_pool, state.keys.verify_slow, header)
        except AuthError:
            state.auth_failures.peek(client)
            state.auth_failures.take(client, raise_when_empty=False)
            raise
    except RateLimited:
        # Over its failure budget: the answer waits (costing the server a sleeping coroutine only), so a
        # client re-sending garbage on its connections cannot keep the event loop and the GIL busy.
        await asyncio.sleep(state.settings.api_auth_failure_delay_s)
        raise
    assert isinstance(found, ApiKey)
    return found


async def principal(
    state: State,
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> ApiKey:
    if credentials is None:
        raise AuthError("missing bearer token")
    key = await authenticate(state, request, f"Bearer {credentials.credentials}")
    state.limiter.take(key.id)
    return key


Key = Annotated[ApiKey, Depends(principal)]
IdemKey = Annotated[
    str | None,
    Header(alias="Idempotency-Key", description="UUID; same key + same body returns the original result"),
]


async def wait_spec(
    state: State,
    wait: Annotated[bool, Query(description="Distributed mode: wait for the command's outcome")] = False,
    wait_timeout_s: Annotated[float | None, Query(gt=0, le=300, description="Seconds (capped by the server)")]
    = None,
    prefer: Annotated[str | None, Header(alias="Prefer", description="RFC 7240, e.g. wait=5")] = None,
) -> float | None:
    """How long a distributed command call waits for its outcome (None: answer 202 at once)."""
    cap = state.settings.api_command_wait_max_s
    for part in (prefer or "").split(","):
        name, _, value = part.strip().partition("=")
        if name.strip().lower() == "wait":
            try:
                seconds = float(value)
            except ValueError:
                raise ValidationFailed("Prefer: wait must be a number of seconds", code="invalid_wait") from None
            return min(cap, seconds) if seconds > 0 else None
    if not wait:
        return None
    return min(cap, wait_timeout_s if wait_timeout_s is not None else cap)


Wait = Annotated[float | None, Depends(wait_spec)]


def caller_request_id(key: ApiKey, request_id: str | None) -> str | None:
    """A command's request id, scoped to the calling key: another key's retry with the same
    Idempotency-Key is a new request (it neither gets this caller's result nor conflicts with it)."""
    if request_id is None:
        return None
    return str(uuid.uuid5(COMMAND_NAMESPACE, f"request|{key.tenant_id}|{key.id}|{request_id}"))


def request_id_of(idempotency_key: str | None) -> str | None:
    if idempotency_key is None:
        return None
    try:
        return str(uuid.UUID(idempotency_key.strip()))
    except ValueError:
        raise ValidationFailed("Idempotency-Key must be a UUID", code="invalid_idempotency_key") from None
