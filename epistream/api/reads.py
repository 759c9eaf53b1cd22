"""Routes that read memory: retrieval (and its receipts), world context, nodes, provenance, assertion state."""

import logging
import uuid
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Header, Path, Query
from fastapi.responses import JSONResponse, Response

from engine.assertion_state import AssertionState
from engine.provenance import NodeProvenance
from epistream.api.auth import Permission
from epistream.api.context import ERRORS, NOT_FOUND, ApiState, Key, State
from epistream.api.models import AssertionStateBody, RetrieveBody
from epistream.api.receipts import idempotency_receipt_id
from schemas.common import ScopeRef
from schemas.enums import Scope
from schemas.errors import NodeNotFound, NotFound, ValidationFailed
from schemas.nodes import MemoryNode
from schemas.retrieval import RetrievalReceipt, RetrievalRequest, RetrievalResponse, WorldContext
from streams.agents import masked_content

router = APIRouter()


def _receipt_of(
    state: ApiState, request: RetrievalRequest, response: RetrievalResponse, actor_id: str, received_at: datetime,
    chosen_id: str | None,
) -> RetrievalReceipt | None:
    """The receipt of one answer, or None: a receipt that cannot be built never fails the answer."""
    runner = state.runner
    try:
        store = runner.store
        versions = {i.node_id: n.version for i in response.items if (n := store.get_node(i.node_id)) is not None}
        return RetrievalReceipt.of(
            request,
            response,
            receipt_id=chosen_id,
            actor_id=actor_id,
            query=masked_content(request.query),
            received_at=received_at,
            embedding_model=runner.embedder.model_name,
            embedding_version=runner.embedder.model_version,
            versions=versions,
        )
    except Exception:
        logging.getLogger("epistream.api").warning("could not build a retrieval receipt", exc_info=True)
        state.metrics.receipts_dropped.labels("build_failed").inc()
        return None


def _retrieve_json(
    state: ApiState, request: RetrievalRequest, actor_id: str, received_at: datetime, chosen_id: str | None
) -> tuple[RetrievalResponse, bytes]:
    """Retrieve, build the receipt and serialise on the reader thread, once (FastAPI would re-validate)."""
    response = state.runner.retrieve(request)
    writer = state.receipts
    if writer is not None:
        receipt = _receipt_of(state, request, response, actor_id, received_at, chosen_id)
        # Queued (never blocking) before the answer is serialised: the answer names a receipt only
        # when one was accepted, not one the full queue dropped.
        if receipt is not None and writer.submit(receipt):
            response = response.model_copy(update={"receipt_id": receipt.receipt_id})
    return response, response.model_dump_json(by_alias=True).encode()


@router.post("/v1/retrieve", response_model=RetrievalResponse, response_class=JSONResponse,
             responses=ERRORS, tags=["retrieval"])
async def retrieve(state: State, key: Key, body: RetrieveBody, idempotency_key: Annotated[
    str | None,
    Header(alias="Idempotency-Key", description="UUID; becomes the id of this retrieval's receipt"),
] = None) -> Response:
    received_at = state.clock()
    key.require(Permission.READ)
    owner, readable = state.reader_for(key, body.owner_id)
    scope, scope_id = state.scope_for(key, body.scope, body.scope_id)
    cap = state.settings.api_max_limit
    if body.limit > cap:
        raise ValidationFailed("limit exceeds the server cap", code="limit_too_large", limit=cap)
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
        sources=body.sources,
        readable=readable,
    )
    response, payload = await state.gate.read(
        _retrieve_json, state, request, key.id, received_at,
        idempotency_receipt_id(idempotency_key, tenant_id=key.tenant_id, actor_id=key.id),
    )  # fmt: skip
    m = state.metrics
    m.candidates.observe(response.candidate_count)
    m.items.observe(len(response.items))
    for ex in response.excluded:
        if not ex.included:
            m.exclusions.labels(ex.stage).inc()
    return Response(payload, media_type="application/json")


@router.get("/v1/retrievals/{receipt_id}", response_model=RetrievalReceipt, responses={**ERRORS, **NOT_FOUND},
            tags=["retrieval"], summary="The receipt of one retrieval: what was shown, what was left out, why")
async def get_retrieval(state: State, key: Key, receipt_id: Annotated[str, Path(max_length=200)]) -> RetrievalReceipt:
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
            receipt = await state.gate.call(state.runner.log.get_retrieval, key.tenant_id, rid)
    if (
        receipt is None
        or receipt.tenant_id != key.tenant_id
        # A receipt is its creator's; an admin key of the tenant may read any it may act for (audit).
        or (receipt.actor_id != key.id and not key.has(Permission.ADMIN))
        # a cross-owner read's receipt holds only what its creator could read
        or (not key.owner_allowed(receipt.owner_id) and receipt.actor_id != key.id)
        or (key.scopes is not None and (receipt.scope is None or not key.scope_allowed(receipt.scope,
                                                                                       receipt.scope_id)))
    ):
        raise NotFound("retrieval not found", code="retrieval_not_found")
    return receipt


@router.get("/v1/world-context", response_model=WorldContext, responses=ERRORS, tags=["retrieval"])
async def get_world_context(
    state: State,
    key: Key,
    owner_id: Annotated[str | None, Query(max_length=128)] = None,
    scope: Scope | None = None,
    scope_id: Annotated[str | None, Query(max_length=128)] = None,
    at: datetime | None = None,
    continuation_task_id: Annotated[
        str | None, Query(min_length=1, max_length=200, description="Select one task: its capsule and task context.")
    ] = None,
) -> WorldContext:
    key.require(Permission.READ)
    owner, readable = state.reader_for(key, owner_id)
    sc, sid = state.scope_for(key, scope, scope_id)
    if sid is not None and sc is None:
        raise ValidationFailed("scope_id requires scope", code="validation_failed", field="scope_id")
    ref = ScopeRef(tenant_id=key.tenant_id, owner_id=owner, scope=sc, scope_id=sid) if sc is not None else None
    if at is not None and at.tzinfo is None:
        raise ValidationFailed("at must include a timezone", code="naive_timestamp", field="at")
    return await state.gate.read(state.runner.world, tenant_id=key.tenant_id, owner_id=owner, scope=ref, at=at,
                                 task_id=continuation_task_id, readable=readable)


@router.get("/v1/nodes/{node_id}", response_model=MemoryNode, responses={**ERRORS, **NOT_FOUND}, tags=["nodes"])
async def get_node(state: State, key: Key, node_id: Annotated[str, Path(max_length=200)]) -> MemoryNode:
    key.require(Permission.READ)
    return await state.visible_node(key, node_id)


@router.get("/v1/nodes/{node_id}/provenance", response_model=NodeProvenance,
            responses={**ERRORS, **NOT_FOUND}, tags=["nodes"])
async def get_provenance(
    state: State,
    key: Key,
    node_id: Annotated[str, Path(max_length=200)],
    cursor: Annotated[str | None, Query(max_length=1000)] = None,
    limit: Annotated[int | None, Query(ge=1, le=1000, description="Page size (default 100, capped by the server)")]
    = None,
) -> NodeProvenance:
    key.require(Permission.READ)
    cap = state.settings.api_max_page  # a setting, so checked here rather than in the route's schema
    if limit is None:
        limit = min(100, cap)
    elif limit > cap:
        raise ValidationFailed("limit exceeds the server's page cap", code="validation_failed", field="limit")
    node = await state.visible_node(key, node_id)
    prov = await state.gate.call(
        state.runner.provenance, node_id, tenant_id=key.tenant_id, owner_id=node.owner_id, cursor=cursor, limit=limit,
        readable=key.readable(node.owner_id),
    )
    if prov is None:
        raise NodeNotFound("node not found")
    return prov


@router.post("/v1/assertions/state", response_model=AssertionState, responses=ERRORS, tags=["retrieval"])
async def assertion_state(state: State, key: Key, body: AssertionStateBody) -> AssertionState:
    key.require(Permission.READ)
    owner, readable = state.reader_for(key, body.owner_id)
    sc, sid = state.scope_for(key, body.scope, body.scope_id)
    if sid is not None and sc is None:
        raise ValidationFailed("scope_id requires scope", code="validation_failed", field="scope_id")
    ref = ScopeRef(tenant_id=key.tenant_id, owner_id=owner, scope=sc, scope_id=sid) if sc is not None else None
    return await state.gate.read(
        state.runner.assertion,
        readable=readable,
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
