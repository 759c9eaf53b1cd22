"""``POST /v1/events``: ingest one event, a list, or ``{"events": [...]}``, with per-item outcomes."""

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse
from pydantic import JsonValue

from epistream.api.auth import Permission
from epistream.api.context import CONFLICT, ERRORS, ApiState, IdemKey, Key, State, request_id_of
from epistream.api.limits import body_fingerprint
from epistream.api.models import EventResult, EventsBody, EventsResponse
from schemas.claims import event_input_id
from schemas.enums import PrincipalKind
from schemas.errors import BackendUnavailable, InvalidEvent, PayloadTooLarge, PermissionDenied, ValidationFailed
from schemas.events import ConversationEvent, validate_event
from schemas.roles import narrow_principal
from streams.agents import admit_event

router = APIRouter()


def _batch_owners(items: list[Any]) -> str:
    """The owners a batch writes for: an Idempotency-Key is scoped per owner (PRME-FACTS §5.5 rule 6)."""
    owners = {str(item.get("owner_id")) for item in items if isinstance(item, dict)}
    return ",".join(sorted(owners))


def _items_of(payload: EventsBody | list[JsonValue] | dict[str, JsonValue]) -> list[Any]:
    if isinstance(payload, EventsBody):
        return list(payload.events)
    if isinstance(payload, list):
        return payload
    if set(payload) == {"events"} and isinstance(payload["events"], list):
        return list(payload["events"])
    return [payload]


def _ingest(state: ApiState, valid: list[tuple[int, ConversationEvent]]) -> tuple[dict[int, EventResult], int, int]:
    """Embedded: the runner applies the new events; a repeat in the batch or the store is a duplicate."""
    out: dict[int, EventResult] = {}
    fresh: list[ConversationEvent] = []
    batch_ids: set[str] = set()
    store = state.runner.store
    for i, event in valid:
        if event.event_id in batch_ids or store.has_seen(event_input_id(event.tenant_id, event.event_id)):
            out[i] = EventResult(index=i, event_id=event.event_id, status="duplicate")
        else:
            batch_ids.add(event.event_id)
            fresh.append(event)
            out[i] = EventResult(index=i, event_id=event.event_id, status="accepted")
    if not fresh:
        return out, 0, 0
    report = state.runner.ingest_events(fresh)
    return out, report.claims, report.operations


async def _publish(
    state: ApiState, valid: list[tuple[int, ConversationEvent]]
) -> tuple[dict[int, EventResult], int, int]:
    """Distributed: the workers dedup by event id; only repeats within this request are caught here."""
    assert state.dispatch is not None
    out: dict[int, EventResult] = {}
    fresh: dict[str, ConversationEvent] = {}
    for i, event in valid:
        status: Literal["accepted", "duplicate"] = "duplicate" if event.event_id in fresh else "accepted"
        fresh.setdefault(event.event_id, event)
        out[i] = EventResult(index=i, event_id=event.event_id, status=status)
    try:
        await asyncio.wait_for(
            state.dispatch.publish_events(list(fresh.values())), state.settings.api_backend_timeout_s
        )
    except TimeoutError:
        raise BackendUnavailable("publishing timed out", reason="timeout") from None
    return out, 0, 0


@router.post(
    "/v1/events",
    response_model=EventsResponse,
    responses={
        **ERRORS,
        **CONFLICT,
        207: {"model": EventsResponse, "description": "Some items were rejected (see per-item codes)"},
    },
    tags=["ingestion"],
    summary="Ingest one event, a list of events, or {events: [...]}",
)
async def post_events(
    state: State,
    key: Key,
    payload: Annotated[EventsBody | list[JsonValue] | dict[str, JsonValue], Body()],
    idempotency_key: IdemKey = None,
) -> Any:
    s = state.settings
    key.require(Permission.WRITE)
    request_id = request_id_of(idempotency_key)
    items = _items_of(payload)
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
                # Authority comes from the key, not the body: a declared channel may only narrow it.
                # (a platform, the trusted relay, is written as no channel: events read as before channels)
                channel = narrow_principal(key.kind, item.pop("channel", None))
                if channel is not PrincipalKind.PLATFORM:
                    item["channel"] = channel.value
            event = admit_event(validate_event(item, max_content_bytes=s.max_content_bytes))
            if not key.owner_allowed(event.owner_id):
                raise PermissionDenied("this key may not write for that owner")
            if not key.scope_allowed(event.scope, event.scope_id):
                raise PermissionDenied("this key may not write in that scope")
        except (InvalidEvent, PermissionDenied) as exc:
            results[i] = EventResult(index=i, event_id=event_id, status="rejected", code=exc.code, message=exc.message)
            continue
        valid.append((i, event))

    done: dict[int, EventResult]
    if not valid:
        done, claims, operations = {}, 0, 0
    elif state.dispatch is not None:
        done, claims, operations = await _publish(state, valid)
    else:
        done, claims, operations = await state.gate.call(_ingest, state, valid)
    for i, res in done.items():
        results[i] = res
    final = [r for r in results if r is not None]
    end = state.clock()
    lags = [max(0.0, (end - e.occurred_at).total_seconds()) for i, e in valid if done[i].status == "accepted"]
    for lag in lags:
        state.metrics.ingestion_lag.observe(lag)
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
