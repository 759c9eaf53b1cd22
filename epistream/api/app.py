"""The FastAPI app: the imperative shell around the embedded runner.

The edge is where time and identity enter: ``issued_at`` is the server clock,
``actor`` is the API key, the tenant is the key's tenant. Everything else is
validated, checked against the key's grants and handed to the engine as exactly
one command (or one ingestion batch).
"""


import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, FastAPI, Header, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import JsonValue, ValidationError

from engine.assertion_state import AssertionState
from engine.provenance import NodeProvenance
from engine.results import ApplyResult
from epistream.api.auth import ApiKey, ApiKeyRing, Permission
from epistream.api.distributed import Dispatch, KafkaDispatch, PendingCommand, find_target
from epistream.api.errors import (
    ErrorBody,
    epistream_error_response,
    error_response,
    install_error_handlers,
    validation_details,
)
from epistream.api.gate import DEFAULT_READERS, RunnerGate
from epistream.api.limits import BodySizeLimit, IdempotencyCache, TokenBucketLimiter, body_fingerprint
from epistream.api.metrics import ApiMetrics, MetricsMiddleware
from epistream.api.models import (
    ArchiveBody,
    AssertionStateBody,
    CommandResponse,
    ConditionBody,
    ContradictBody,
    EventResult,
    EventsBody,
    EventsResponse,
    HealthCheck,
    HealthResponse,
    PlainCommandBody,
    ResolveBody,
    RetrieveBody,
    SignalBody,
    TransitionBody,
    _CommandBody,
)
from epistream.api.receipts import DEFAULT_QUEUE_SIZE, ReceiptSink, ReceiptWriter, idempotency_receipt_id
from epistream.config import load_settings
from epistream.runner import EmbeddedRunner
from schemas.claims import event_input_id
from schemas.commands import (
    ArchiveCommand,
    CommandBase,
    ContradictCommand,
    DeprecateCommand,
    EpistemicTransitionCommand,
    EvaluateConditionCommand,
    PenalizeCommand,
    PromoteCommand,
    ReinforceCommand,
    ResolveContradictionCommand,
)
from schemas.common import ScopeRef
from schemas.enums import EpistemicType, Scope
from schemas.errors import (
    AuthError,
    BackendUnavailable,
    EpistreamError,
    InvalidEvent,
    NodeNotFound,
    NotFound,
    PayloadTooLarge,
    PermissionDenied,
    ValidationFailed,
)
from schemas.events import ConversationEvent, validate_event
from schemas.nodes import MemoryNode
from schemas.retrieval import (
    RetrievalReceipt,
    RetrievalRequest,
    RetrievalResponse,
    WorldContext,
)
from schemas.search import SearchFilter
from schemas.settings import Settings
from streams import topics as tn
from streams.agents import masked_content
from streams.runtime import freeze_loaded_heap

#: Namespace of command ids derived from an Idempotency-Key (stable across restarts).
COMMAND_NAMESPACE = uuid.UUID("5d7c3a8e-2f61-4c1b-9a57-6b0e4f3c2d19")

_ERRORS: dict[int | str, dict[str, Any]] = {
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
_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody, "description": "Not found in your tenant"}}
_CONFLICT: dict[int | str, dict[str, Any]] = {409: {"model": ErrorBody, "description": "Conflict (incl. reused key)"}}
_ALL_ERRORS = {**_ERRORS, **_NOT_FOUND, **_CONFLICT}

_bearer = HTTPBearer(auto_error=False, description="API key")


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
        self.limiter = TokenBucketLimiter(settings.api_rate_limit_per_s, settings.api_rate_burst)
        self.idempotency = IdempotencyCache(settings.api_idempotency_cache)
        self.metrics = ApiMetrics()
        #: None when ``settings.retrieval_receipts`` is off.
        self.receipts = _receipt_writer(runner, self.gate, self.metrics, receipt_queue_size, receipt_sink) if (
            settings.retrieval_receipts
        ) else None


def _receipt_writer(
    runner: EmbeddedRunner, gate: RunnerGate, metrics: ApiMetrics, queue_size: int, given: ReceiptSink | None
) -> ReceiptWriter:
    """The writer inserts through a client of its own (no lock shared with the runner's writes); a log
    that cannot be cloned is written under the gate's exclusive lock, as every other chDB call is.

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
            sink = lambda batch: gate.exclusive(lambda: shared.write_retrievals(batch))  # noqa: E731
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


def _request_id(idempotency_key: str | None) -> str | None:
    if idempotency_key is None:
        return None
    try:
        return str(uuid.UUID(idempotency_key.strip()))
    except ValueError:
        raise ValidationFailed("Idempotency-Key must be a UUID", code="invalid_idempotency_key") from None


def _batch_owners(items: list[Any]) -> str:
    """The owners a batch writes for: an Idempotency-Key is scoped per owner (PRME-FACTS §5.5 rule 6)."""
    owners = {str(item.get("owner_id")) for item in items if isinstance(item, dict)}
    return ",".join(sorted(owners))


def _signal_fields(body: SignalBody) -> dict[str, Any]:
    """Reinforce and penalize take the same body; an absent signal keeps the command's default."""
    extra: dict[str, Any] = {"signal_source": body.signal_source}
    if body.signal is not None:
        extra["signal"] = body.signal
    return extra


def create_app(
    runner: EmbeddedRunner,
    *,
    api_keys: ApiKeyRing,
    settings: Settings | None = None,
    clock: Callable[[], datetime] | None = None,
    readers: int = DEFAULT_READERS,
    dispatch: Dispatch | None = None,
    receipt_queue_size: int = DEFAULT_QUEUE_SIZE,
    receipt_sink: ReceiptSink | None = None,
) -> FastAPI:
    """``readers`` threads serve read-only calls concurrently (0: every call on the one writer thread).

    ``receipt_queue_size`` bounds the retrieval receipts waiting for the writer thread (beyond it they
    are dropped and counted, see :mod:`epistream.api.receipts`); ``receipt_sink`` replaces where they
    are written (default: the runner's log, through a client of its own).

    ``dispatch`` (or ``settings.api_mode == "distributed"``) publishes events and commands to Kafka
    instead of applying them to ``runner``; see :mod:`epistream.api.distributed`. The dispatch is
    started and stopped with the app's lifespan.
    """
    settings = settings or runner.settings
    if settings.api_mode == "distributed" and not settings.clickhouse_url:
        # Provenance, assertion state and world-view conflicts are read from the operation log; a
        # chDB log in this process's data directory holds none of what the workers write.
        logging.getLogger("epistream.api").warning(
            "distributed mode without EPISTREAM_CLICKHOUSE_URL: provenance, assertion state and conflicts "
            "only see this process's own log, not the workers'"
        )
    if dispatch is None and settings.api_mode == "distributed":
        dispatch = KafkaDispatch(
            settings.kafka_bootstrap,
            tn.Topics(prefix=settings.kafka_topic_prefix, partitions=settings.partitions),
            max_content_bytes=settings.max_content_bytes,
        )
    state = ApiState(
        runner, api_keys, settings, clock or (lambda: datetime.now(UTC)), readers, dispatch, receipt_queue_size,
        receipt_sink,
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if dispatch is not None:
            await dispatch.start()
        try:
            yield
        finally:
            if dispatch is not None:
                await dispatch.stop()
            if state.receipts is not None:
                await asyncio.to_thread(state.receipts.close)
            state.gate.shutdown()

    app = FastAPI(
        title="epistream",
        version="1.0.0",
        summary="Epistemically typed memory for assistants: ingestion, retrieval, commands.",
        lifespan=lifespan,
    )
    app.state.api = state
    install_error_handlers(app)

    @app.exception_handler(ValidationError)
    async def _pydantic(_: Request, exc: ValidationError) -> JSONResponse:
        return error_response(422, "validation_failed", "request does not satisfy a contract", validation_details(
            list(exc.errors(include_input=False, include_url=False))
        ))

    app.include_router(_router(state))
    app.add_middleware(MetricsMiddleware, metrics=state.metrics)
    app.add_middleware(BodySizeLimit, max_bytes=settings.api_max_body_bytes, on_reject=epistream_error_response)
    return app


def _router(state: ApiState) -> APIRouter:
    s = state.settings
    gate = state.gate
    runner = state.runner
    router = APIRouter()

    # ------------------------------------------------------------------ auth
    async def principal(
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    ) -> ApiKey:
        if credentials is None:
            raise AuthError("missing bearer token")
        key = state.keys.authenticate(f"Bearer {credentials.credentials}")
        state.limiter.take(key.id)
        return key

    Key = Annotated[ApiKey, Depends(principal)]  # noqa: N806
    IdemKey = Annotated[  # noqa: N806
        str | None,
        Header(alias="Idempotency-Key", description="UUID; same key + same body returns the original result"),
    ]

    async def wait_spec(
        wait: Annotated[bool, Query(description="Distributed mode: wait for the command's outcome")] = False,
        wait_timeout_s: Annotated[float | None, Query(gt=0, le=300, description="Seconds (capped by the server)")]
        = None,
        prefer: Annotated[str | None, Header(alias="Prefer", description="RFC 7240, e.g. wait=5")] = None,
    ) -> float | None:
        """How long a distributed command call waits for its outcome (None: answer 202 at once)."""
        cap = s.api_command_wait_max_s
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

    Wait = Annotated[float | None, Depends(wait_spec)]  # noqa: N806

    def owner_for(key: ApiKey, owner_id: str | None) -> str:
        owner = owner_id or key.default_owner()
        if owner is None:
            raise ValidationFailed("owner_id is required for this key", code="owner_required", field="owner_id")
        key.check_owner(owner)
        return owner

    def scope_for(key: ApiKey, scope: Scope | None, scope_id: str | None) -> tuple[Scope | None, str | None]:
        if scope is None and scope_id is None:
            default = key.default_scope()
            if default is not None:
                return default
        key.check_scope(scope, scope_id)
        return scope, scope_id

    async def visible_node(key: ApiKey, node_id: str) -> MemoryNode:
        """The node if this key may see it; otherwise the same 404 whether it exists or not."""
        if state.dispatch is not None:
            node = await gate.read(find_target, runner, node_id, key.tenant_id)
        else:
            node = await gate.read(runner.node, node_id, tenant_id=key.tenant_id)
        if node is None or not key.owner_allowed(node.owner_id) or not key.scope_allowed(node.scope, node.scope_id):
            raise NodeNotFound("node not found")
        return node

    # ------------------------------------------------------------------ events
    @router.post(
        "/v1/events",
        response_model=EventsResponse,
        responses={
            **_ERRORS,
            **_CONFLICT,
            207: {"model": EventsResponse, "description": "Some items were rejected (see per-item codes)"},
        },
        tags=["ingestion"],
        summary="Ingest one event, a list of events, or {events: [...]}",
    )
    async def post_events(
        key: Key,
        payload: Annotated[EventsBody | list[JsonValue] | dict[str, JsonValue], Body()],
        idempotency_key: IdemKey = None,
    ) -> Any:
        key.require(Permission.WRITE)
        request_id = _request_id(idempotency_key)
        if isinstance(payload, EventsBody):
            items: list[Any] = list(payload.events)
        elif isinstance(payload, list):
            items = payload
        elif set(payload) == {"events"} and isinstance(payload["events"], list):
            items = list(payload["events"])
        else:
            items = [payload]
        if not items:
            raise ValidationFailed("no events given", code="empty_batch")
        if len(items) > s.api_max_batch:
            raise PayloadTooLarge("too many events in one request", code="batch_too_large", limit=s.api_max_batch)
        fingerprint = body_fingerprint(items)
        cache_key = (key.tenant_id, f"events:{_batch_owners(items)}", request_id or "")
        if request_id is not None:
            remembered = state.idempotency.lookup(cache_key, fingerprint)
            if remembered is not None:
                return JSONResponse(remembered[1], status_code=remembered[0])

        now = state.clock()
        results: list[EventResult | None] = [None] * len(items)
        valid: list[tuple[int, ConversationEvent]] = []
        for i, item in enumerate(items):
            event_id = item.get("event_id") if isinstance(item, dict) else None
            event_id = event_id if isinstance(event_id, str) and len(event_id) <= 200 else None
            try:
                if isinstance(item, dict):
                    item = dict(item)
                    tenant = item.setdefault("tenant_id", key.tenant_id)
                    if tenant != key.tenant_id:
                        raise PermissionDenied("events may only be written to the key's tenant")
                    item.setdefault("received_at", now.isoformat())
                event = validate_event(item, max_content_bytes=s.max_content_bytes)
                if not key.owner_allowed(event.owner_id):
                    raise PermissionDenied("this key may not write for that owner")
                if not key.scope_allowed(event.scope, event.scope_id):
                    raise PermissionDenied("this key may not write in that scope")
            except (InvalidEvent, PermissionDenied) as exc:
                results[i] = EventResult(index=i, event_id=event_id, status="rejected", code=exc.code,
                                         message=exc.message)
                continue
            valid.append((i, event))

        def ingest() -> tuple[dict[int, EventResult], int, int]:
            out: dict[int, EventResult] = {}
            fresh: list[ConversationEvent] = []
            batch_ids: set[str] = set()
            store = runner.store
            for i, event in valid:
                if event.event_id in batch_ids or store.has_seen(event_input_id(event.tenant_id, event.event_id)):
                    out[i] = EventResult(index=i, event_id=event.event_id, status="duplicate")
                else:
                    batch_ids.add(event.event_id)
                    fresh.append(event)
                    out[i] = EventResult(index=i, event_id=event.event_id, status="accepted")
            if not fresh:
                return out, 0, 0
            report = runner.ingest_events(fresh)
            return out, report.claims, report.operations

        async def publish() -> tuple[dict[int, EventResult], int, int]:
            """Distributed: the workers dedup by event id; only repeats within this request are caught here."""
            assert state.dispatch is not None
            out: dict[int, EventResult] = {}
            fresh: dict[str, ConversationEvent] = {}
            for i, event in valid:
                status: Literal["accepted", "duplicate"] = "duplicate" if event.event_id in fresh else "accepted"
                fresh.setdefault(event.event_id, event)
                out[i] = EventResult(index=i, event_id=event.event_id, status=status)
            try:
                await asyncio.wait_for(state.dispatch.publish_events(list(fresh.values())), s.api_backend_timeout_s)
            except TimeoutError:
                raise BackendUnavailable("publishing timed out", reason="timeout") from None
            return out, 0, 0

        done: dict[int, EventResult]
        if not valid:
            done, claims, operations = {}, 0, 0
        elif state.dispatch is not None:
            done, claims, operations = await publish()
        else:
            done, claims, operations = await gate.call(ingest)
        for i, res in done.items():
            results[i] = res
        final = [r for r in results if r is not None]
        end = state.clock()
        for i, event in valid:
            if done[i].status == "accepted":
                lag = max(0.0, (end - event.occurred_at).total_seconds())
                state.metrics.ingestion_lag.observe(lag)
        lags = [max(0.0, (end - e.occurred_at).total_seconds()) for i, e in valid if done[i].status == "accepted"]
        if lags:
            state.metrics.last_ingestion_lag.set(max(lags))
        for r in final:
            state.metrics.ingested.labels(r.status).inc()
        response = EventsResponse(
            accepted=sum(r.status == "accepted" for r in final),
            duplicates=sum(r.status == "duplicate" for r in final),
            rejected=sum(r.status == "rejected" for r in final),
            results=final,
            claims=claims,
            operations=operations,
        )
        status = 200 if response.rejected == 0 else 207
        body = response.model_dump(mode="json")
        if request_id is not None:
            state.idempotency.store(cache_key, fingerprint, status, body)
        return JSONResponse(body, status_code=status)

    # ------------------------------------------------------------------ reads
    def receipt_of(
        request: RetrievalRequest, response: RetrievalResponse, actor_id: str, received_at: datetime,
        chosen_id: str | None,
    ) -> RetrievalReceipt | None:
        """The receipt of one answer, or None: a receipt that cannot be built never fails the answer."""
        try:
            store = runner.store
            versions = {i.node_id: n.version for i in response.items if (n := store.get_node(i.node_id)) is not None}
            return RetrievalReceipt.of(
                request,
                response,
                receipt_id=chosen_id,
                actor_id=actor_id,
                query=request.query if s.retain_raw_secrets else masked_content(request.query),
                received_at=received_at,
                embedding_model=runner.embedder.model_name,
                embedding_version=runner.embedder.model_version,
                versions=versions,
            )
        except Exception:
            logging.getLogger("epistream.api").warning("could not build a retrieval receipt", exc_info=True)
            state.metrics.receipts_dropped.labels("build_failed").inc()
            return None

    def retrieve_json(
        request: RetrievalRequest, actor_id: str, received_at: datetime, chosen_id: str | None
    ) -> tuple[RetrievalResponse, bytes]:
        """Retrieve, build the receipt and serialise on the reader thread, once (FastAPI would re-validate)."""
        response = runner.retrieve(request)
        writer = state.receipts
        if writer is not None:
            receipt = receipt_of(request, response, actor_id, received_at, chosen_id)
            # Queued (never blocking) before the answer is serialised: the answer names a receipt only
            # when one was accepted, not one the full queue dropped.
            if receipt is not None and writer.submit(receipt):
                response = response.model_copy(update={"receipt_id": receipt.receipt_id})
        return response, response.model_dump_json(by_alias=True).encode()

    @router.post("/v1/retrieve", response_model=RetrievalResponse, response_class=JSONResponse,
                 responses=_ERRORS, tags=["retrieval"])
    async def retrieve(key: Key, body: RetrieveBody, idempotency_key: Annotated[
        str | None,
        Header(alias="Idempotency-Key", description="UUID; becomes the id of this retrieval's receipt"),
    ] = None) -> Response:
        received_at = state.clock()
        key.require(Permission.READ)
        owner = owner_for(key, body.owner_id)
        scope, scope_id = scope_for(key, body.scope, body.scope_id)
        if body.limit > s.api_max_limit:
            raise ValidationFailed("limit exceeds the server cap", code="limit_too_large", limit=s.api_max_limit)
        request = RetrievalRequest(
            query=body.query,
            tenant_id=key.tenant_id,
            owner_id=owner,
            scope=scope,
            scope_id=scope_id,
            mode=body.mode,
            limit=body.limit,
            min_score=body.min_score,
            token_budget=body.token_budget,
            node_types=frozenset(body.node_types) if body.node_types is not None else None,
            source_types=frozenset(body.source_types) if body.source_types is not None else None,
            time_window=body.time_window,
            valid_at=body.valid_at,
            knowledge_at=body.knowledge_at,
            reference_time=body.reference_time,
            debug=body.debug,
        )
        response, payload = await gate.read(
            retrieve_json, request, key.id, received_at, idempotency_receipt_id(idempotency_key)
        )
        m = state.metrics
        m.candidates.observe(response.candidate_count)
        m.items.observe(len(response.items))
        for ex in response.excluded:
            if not ex.included:
                m.exclusions.labels(ex.stage).inc()
        return Response(payload, media_type="application/json")

    @router.get("/v1/retrievals/{receipt_id}", response_model=RetrievalReceipt, responses={**_ERRORS, **_NOT_FOUND},
                tags=["retrieval"], summary="The receipt of one retrieval: what was shown, what was left out, why")
    async def get_retrieval(key: Key, receipt_id: Annotated[str, Path(max_length=200)]) -> RetrievalReceipt:
        key.require(Permission.READ)
        receipt: RetrievalReceipt | None = None
        try:
            rid = str(uuid.UUID(receipt_id))
        except ValueError:
            rid = None  # no receipt has such an id; answer as for any unknown one
        if rid is not None:
            if state.receipts is not None:
                receipt = state.receipts.pending(rid)
            if receipt is None or receipt.tenant_id != key.tenant_id:
                receipt = await gate.call(runner.log.get_retrieval, key.tenant_id, rid)
        if (
            receipt is None
            or receipt.tenant_id != key.tenant_id
            or not key.owner_allowed(receipt.owner_id)
            or (key.scopes is not None and (receipt.scope is None or not key.scope_allowed(receipt.scope,
                                                                                           receipt.scope_id)))
        ):
            raise NotFound("retrieval not found", code="retrieval_not_found")
        return receipt

    @router.get("/v1/world-context", response_model=WorldContext, responses=_ERRORS, tags=["retrieval"])
    async def get_world_context(
        key: Key,
        owner_id: Annotated[str | None, Query(max_length=128)] = None,
        scope: Scope | None = None,
        scope_id: Annotated[str | None, Query(max_length=128)] = None,
        at: datetime | None = None,
    ) -> WorldContext:
        key.require(Permission.READ)
        owner = owner_for(key, owner_id)
        sc, sid = scope_for(key, scope, scope_id)
        if sid is not None and sc is None:
            raise ValidationFailed("scope_id requires scope", code="validation_failed", field="scope_id")
        ref = ScopeRef(tenant_id=key.tenant_id, owner_id=owner, scope=sc, scope_id=sid) if sc is not None else None
        if at is not None and at.tzinfo is None:
            raise ValidationFailed("at must include a timezone", code="naive_timestamp", field="at")
        return await gate.read(runner.world, tenant_id=key.tenant_id, owner_id=owner, scope=ref, at=at)

    @router.get("/v1/nodes/{node_id}", response_model=MemoryNode, responses={**_ERRORS, **_NOT_FOUND},
                tags=["nodes"])
    async def get_node(key: Key, node_id: Annotated[str, Path(max_length=200)]) -> MemoryNode:
        key.require(Permission.READ)
        return await visible_node(key, node_id)

    @router.get("/v1/nodes/{node_id}/provenance", response_model=NodeProvenance,
                responses={**_ERRORS, **_NOT_FOUND}, tags=["nodes"])
    async def get_provenance(
        key: Key,
        node_id: Annotated[str, Path(max_length=200)],
        cursor: Annotated[str | None, Query(max_length=1000)] = None,
        limit: Annotated[int, Query(ge=1, le=s.api_max_page)] = 100,
    ) -> NodeProvenance:
        key.require(Permission.READ)
        node = await visible_node(key, node_id)
        prov = await gate.call(
            runner.provenance, node_id, tenant_id=key.tenant_id, owner_id=node.owner_id, cursor=cursor, limit=limit
        )
        if prov is None:
            raise NodeNotFound("node not found")
        return prov

    @router.post("/v1/assertions/state", response_model=AssertionState, responses=_ERRORS, tags=["retrieval"])
    async def assertion_state(key: Key, body: AssertionStateBody) -> AssertionState:
        key.require(Permission.READ)
        owner = owner_for(key, body.owner_id)
        sc, sid = scope_for(key, body.scope, body.scope_id)
        if sid is not None and sc is None:
            raise ValidationFailed("scope_id requires scope", code="validation_failed", field="scope_id")
        ref = ScopeRef(tenant_id=key.tenant_id, owner_id=owner, scope=sc, scope_id=sid) if sc is not None else None
        return await gate.read(
            runner.assertion,
            tenant_id=key.tenant_id,
            owner_id=owner,
            subject=body.subject,
            predicate=body.predicate,
            valid_at=body.valid_at,
            knowledge_at=body.knowledge_at,
            scope=ref,
            node_types=frozenset(body.node_types),
            limit=body.limit,
        )

    # ------------------------------------------------------------------ commands
    async def run_command(
        key: Key,
        kind: type[CommandBase],
        target: MemoryNode,
        body: _CommandBody,
        idempotency_key: str | None,
        route: str,
        wait_s: float | None = None,
        **fields: Any,
                         ) -> CommandResponse | JSONResponse:
        request_id = _request_id(idempotency_key)
        content = {"route": route, "node": target.node_id, "body": body.model_dump(mode="json")}
        if request_id is not None:
            seed = f"{key.tenant_id}|{target.owner_id}|{request_id}|{body_fingerprint(content)}"
            command_id = str(uuid.uuid5(COMMAND_NAMESPACE, seed))
        else:
            command_id = str(uuid.uuid4())
        try:
            command = kind(
                tenant_id=key.tenant_id,
                owner_id=target.owner_id,
                scope=target.scope,
                scope_id=target.scope_id,
                command_id=command_id,
                request_id=request_id,
                actor=key.actor,
                issued_at=state.clock(),
                session_id=body.session_id,
                reason=body.reason,
                evidence_ids=tuple(body.evidence_ids),
                **fields,
            )
        except ValidationError as exc:
            raise ValidationFailed("command is not valid", code="invalid_command", **validation_details(
                list(exc.errors(include_input=False, include_url=False))
            )) from None
        name = str(getattr(command, "command", kind.__name__))
        if state.dispatch is not None:
            outcome = await state.dispatch.submit(command, wait_s=wait_s)
            if outcome is None:
                state.metrics.commands.labels(name, "pending").inc()
                pending = PendingCommand(command=name, command_id=command_id, input_id=command.input_id)
                return JSONResponse(pending.model_dump(mode="json"), status_code=202)
            result = ApplyResult(outcome)
        else:
            result = await gate.call(runner.submit, command)
        state.metrics.commands.labels(name, result.outcome.status).inc()
        result.raise_for_error()
        current = None
        if state.dispatch is None:
            current = await gate.read(runner.node, target.node_id, tenant_id=key.tenant_id)
        return CommandResponse(command=name, command_id=command_id, outcome=result.outcome, node=current)

    cmd_responses: dict[int | str, dict[str, Any]] = {
        **_ALL_ERRORS,
        202: {"model": PendingCommand, "description": "Distributed mode: published, outcome not seen yet"},
    }

    @router.post("/v1/contradictions", response_model=CommandResponse, responses=cmd_responses, tags=["commands"])
    async def contradict(key: Key, body: ContradictBody,
                         idempotency_key: IdemKey = None, wait_s: Wait = None) -> CommandResponse | JSONResponse:
        key.require(Permission.ASSERT)
        a = await visible_node(key, body.node_a)
        await visible_node(key, body.node_b)
        return await run_command(key, ContradictCommand, a, body, idempotency_key,
                                 wait_s=wait_s, route="contradict",
                                 node_a=body.node_a, node_b=body.node_b, description=body.description)

    @router.post("/v1/contradictions/resolve", response_model=CommandResponse, responses=cmd_responses,
                 tags=["commands"])
    async def resolve(key: Key, body: ResolveBody,
                      idempotency_key: IdemKey = None, wait_s: Wait = None) -> CommandResponse | JSONResponse:
        key.require(Permission.ASSERT)
        winner = await visible_node(key, body.winner_id)
        await visible_node(key, body.loser_id)
        return await run_command(key, ResolveContradictionCommand, winner, body, idempotency_key,
                                 wait_s=wait_s, route="resolve",
                                 winner_id=body.winner_id, loser_id=body.loser_id)

    NodeId = Annotated[str, Path(max_length=200)]  # noqa: N806

    @router.put("/v1/nodes/{node_id}/condition", response_model=CommandResponse, responses=cmd_responses,
                tags=["commands"])
    async def condition(key: Key, node_id: NodeId, body: ConditionBody,
                        idempotency_key: IdemKey = None, wait_s: Wait = None,
                       ) -> CommandResponse | JSONResponse:
        key.require(Permission.ASSERT)
        node = await visible_node(key, node_id)
        return await run_command(key, EvaluateConditionCommand, node, body, idempotency_key,
                                 wait_s=wait_s, route="condition",
                                 node_id=node_id, state=body.state, method=body.method)

    @router.post("/v1/nodes/{node_id}/reinforce", response_model=CommandResponse, responses=cmd_responses,
                 tags=["commands"])
    async def reinforce(key: Key, node_id: NodeId, body: SignalBody,
                        idempotency_key: IdemKey = None, wait_s: Wait = None,
                       ) -> CommandResponse | JSONResponse:
        key.require(Permission.ASSERT)
        node = await visible_node(key, node_id)
        extra = _signal_fields(body)
        return await run_command(key, ReinforceCommand, node, body, idempotency_key,
                                 wait_s=wait_s, route="reinforce",
                                 node_id=node_id, **extra)

    @router.post("/v1/nodes/{node_id}/penalize", response_model=CommandResponse, responses=cmd_responses,
                 tags=["commands"])
    async def penalize(key: Key, node_id: NodeId, body: SignalBody,
                       idempotency_key: IdemKey = None, wait_s: Wait = None,
                      ) -> CommandResponse | JSONResponse:
        key.require(Permission.ASSERT)
        node = await visible_node(key, node_id)
        extra = _signal_fields(body)
        return await run_command(key, PenalizeCommand, node, body, idempotency_key,
                                 wait_s=wait_s, route="penalize",
                                 node_id=node_id, **extra)

    @router.post("/v1/nodes/{node_id}/transition", response_model=CommandResponse, responses=cmd_responses,
                 tags=["commands"])
    async def transition(key: Key, node_id: NodeId, body: TransitionBody,
                         idempotency_key: IdemKey = None, wait_s: Wait = None,
                        ) -> CommandResponse | JSONResponse:
        key.require(Permission.ASSERT)
        if body.to_type is EpistemicType.DEPRECATED:
            key.require(Permission.DEPRECATE)
        node = await visible_node(key, node_id)
        return await run_command(key, EpistemicTransitionCommand, node, body, idempotency_key,
                                 wait_s=wait_s, route="transition",
                                 node_id=node_id, to_type=body.to_type, trigger_type=body.trigger_type)

    @router.post("/v1/nodes/{node_id}/promote", response_model=CommandResponse, responses=cmd_responses,
                 tags=["commands"])
    async def promote(key: Key, node_id: NodeId, body: Annotated[PlainCommandBody | None, Body()] = None,
                      idempotency_key: IdemKey = None, wait_s: Wait = None) -> CommandResponse | JSONResponse:
        key.require(Permission.ASSERT)
        node = await visible_node(key, node_id)
        return await run_command(key, PromoteCommand, node, body or PlainCommandBody(), idempotency_key,
                                 wait_s=wait_s, route="promote",
                                 node_id=node_id)

    @router.post("/v1/nodes/{node_id}/archive", response_model=CommandResponse, responses=cmd_responses,
                 tags=["commands"])
    async def archive(key: Key, node_id: NodeId, body: Annotated[ArchiveBody | None, Body()] = None,
                      idempotency_key: IdemKey = None, wait_s: Wait = None) -> CommandResponse | JSONResponse:
        key.require(Permission.DEPRECATE)
        node = await visible_node(key, node_id)
        b = body or ArchiveBody()
        return await run_command(key, ArchiveCommand, node, b, idempotency_key,
                                 wait_s=wait_s, route="archive",
                                 node_id=node_id, policy_ref=b.policy_ref)

    @router.post("/v1/nodes/{node_id}/deprecate", response_model=CommandResponse, responses=cmd_responses,
                 tags=["commands"])
    async def deprecate(key: Key, node_id: NodeId, body: Annotated[PlainCommandBody | None, Body()] = None,
                        idempotency_key: IdemKey = None, wait_s: Wait = None) -> CommandResponse | JSONResponse:
        key.require(Permission.DEPRECATE)
        node = await visible_node(key, node_id)
        return await run_command(key, DeprecateCommand, node, body or PlainCommandBody(), idempotency_key,
                                 wait_s=wait_s, route="deprecate", node_id=node_id)

    # ------------------------------------------------------------------ operations
    @router.get("/v1/health", response_model=HealthResponse, responses={503: {"model": HealthResponse}},
                tags=["operations"])
    async def health() -> JSONResponse:
        checks: dict[str, HealthCheck] = {}

        async def check(name: str, fn: Callable[[], object]) -> None:
            start = time.perf_counter()
            try:
                await gate.call(fn, timeout_s=min(5.0, s.api_backend_timeout_s))
                checks[name] = HealthCheck(ok=True, latency_ms=(time.perf_counter() - start) * 1000)
            except Exception as exc:  # health reports failures, it never raises them
                reason = exc.code if isinstance(exc, EpistreamError) else type(exc).__name__
                checks[name] = HealthCheck(ok=False, latency_ms=(time.perf_counter() - start) * 1000, error=reason)

        probe = SearchFilter(tenant_id="__health__", owner_id="__health__")
        await check("chdb", lambda: runner.log.client.query("SELECT 1").result_rows)
        await check("index", lambda: runner.index.lexical("health", probe, 1))
        if state.dispatch is not None:
            dispatch = state.dispatch

            def follower() -> None:
                if not dispatch.healthy():
                    raise BackendUnavailable("operations follower is not running", reason="follower_stopped")

            await check("kafka", follower)
        ok = all(c.ok for c in checks.values())
        body = HealthResponse(status="ok" if ok else "degraded", checks=checks)
        return JSONResponse(body.model_dump(mode="json"), status_code=200 if ok else 503)

    @router.get("/metrics", response_class=Response, responses={**_ERRORS}, tags=["operations"],
                include_in_schema=True)
    async def metrics(
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    ) -> Response:
        if not s.api_metrics_public:
            if credentials is None:
                raise AuthError("missing bearer token")
            key = state.keys.authenticate(f"Bearer {credentials.credentials}")
            state.limiter.take(key.id)
            key.require(Permission.ADMIN)
        return Response(state.metrics.render(), media_type="text/plain; version=0.0.4")

    return router


def serve(settings: Settings | None = None, host: str = "127.0.0.1", port: int = 8080, *,
          access_log: bool = False) -> None:
    """``epistream api``: the embedded runner behind uvicorn (one process owns the data dir)."""
    import uvicorn

    settings = settings or load_settings()
    if settings.api_keys_file is None:
        raise ValidationFailed("EPISTREAM_API_KEYS_FILE is required to serve the API", code="no_api_keys")
    keys = ApiKeyRing.from_file(settings.api_keys_file)
    runner = EmbeddedRunner(settings=settings)
    try:
        app = create_app(runner, api_keys=keys, settings=settings)
        freeze_loaded_heap()
        # httptools/uvloop when installed ("auto"); request counts and latency are in /metrics, so no
        # per-request access log line on the hot path.
        uvicorn.run(app, host=host, port=port, log_level="info", proxy_headers=False, access_log=access_log)
    finally:
        runner.close()
