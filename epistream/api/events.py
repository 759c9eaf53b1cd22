"""``POST /v1/events``: ingest one event, a list, or ``{"events": [...]}``, with per-item outcomes."""

import asyncio
import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse
from pydantic import JsonValue

from epistream.api.auth import Permission
from epistream.api.context import CONFLICT, ERRORS, ApiState, IdemKey, Key, State, request_id_of
from epistream.api.limits import body_fingerprint
from epistream.api.models import EventResult, EventsBody, EventsResponse
from epistream.runner import PreparedEvents
from schemas.errors import (
    BackendUnavailable,
    EventIdConflict,
    InvalidEvent,
    PayloadTooLarge,
    PermissionDenied,
    ValidationFailed,
)
from schemas.events import ConversationEvent, validate_event
from schemas.records import DeadLetter
from streams.agents import admit_event, dead_letter, sort_events

router = APIRouter()


def _batch_owners(items: list[Any]) -> str:
    """The owners a batch writes for: an Idempotency-Key is scoped per owner (PRME-FACTS §5.5 rule 6)."""
    owners = {str(item.get("owner_id")) for item in items if isinstance(item, dict)}
    return ",".join(sorted(owners))


def _raw(item: Any) -> bytes:
    """An item's bytes for its dead letter (masked there like every dead letter's)."""
    if isinstance(item, str):
        return item.encode("utf-8")
    return json.dumps(item, default=str, ensure_ascii=False).encode("utf-8")


def _items_of(payload: EventsBody | list[JsonValue] | dict[str, JsonValue]) -> list[Any]:
    if isinstance(payload, EventsBody):
        return list(payload.events)
    if isinstance(payload, list):
        return payload
    if set(payload) == {"events"} and isinstance(payload["events"], list):
        return list(payload["events"])
    return [payload]


def _ingest(
    state: ApiState, valid: list[tuple[int, ConversationEvent]], prepared: PreparedEvents
) -> tuple[dict[int, EventResult], int, int]:
    """Embedded: the runner applies the new events; a repeat (in the batch or the store) of the same
    stream is a duplicate, and a reused id with other content an ``event_id_conflict``."""
    out: dict[int, EventResult] = {}
    sorted_ = sort_events([e for _i, e in valid], state.runner.store)
    fresh, conflicts = {id(e) for e in sorted_.fresh}, {id(e) for e in sorted_.conflicts}
    for i, event in valid:
        if id(event) in fresh:
            out[i] = EventResult(index=i, event_id=event.event_id, status="accepted")
        elif id(event) in conflicts:
            out[i] = EventResult(index=i, event_id=event.event_id, status="rejected", code=EventIdConflict.code,
                                 message="this event id was used in this stream for different content")  # fmt: skip
        else:
            out[i] = EventResult(index=i, event_id=event.event_id, status="duplicate")
    # Conflicts go in too: the runner keeps them as dead letters (nothing a caller sends is lost).
    new = {id(e) for e in (*sorted_.fresh, *sorted_.conflicts)}
    todo = {position for position, (_i, event) in enumerate(valid) if id(event) in new}
    if not todo and not prepared.late:
        return out, 0, 0
    report = state.runner.ingest_events(prepared.only(todo))
    return out, report.claims, report.operations


async def _publish(
    state: ApiState, valid: list[tuple[int, ConversationEvent]]
) -> tuple[dict[int, EventResult], int, int]:
    """Distributed: the workers dedup by event id; only repeats within this request are caught here."""
    assert state.dispatch is not None
    out: dict[int, EventResult] = {}
    fresh: dict[tuple[str, str], ConversationEvent] = {}
    for i, event in valid:
        key = (event.partition_key, event.event_id)
        status: Literal["accepted", "duplicate"] = "duplicate" if key in fresh else "accepted"
        fresh.setdefault(key, event)
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
    # The caller is part of the key: another key's retry is a new request, never this one's answer.
    cache_key = (key.tenant_id, f"events:{key.id}:{_batch_owners(items)}", request_id or "")
    if request_id is not None:
        remembered = state.idempotency.lookup(cache_key, fingerprint)
        if remembered is not None:
            return JSONResponse(remembered[1], status_code=remembered[0])

    now = state.clock()
    bounds = s.time_bounds()
    results: list[EventResult | None] = [None] * len(items)
    valid: list[tuple[int, ConversationEvent]] = []
    letters: list[DeadLetter] = []
    for i, item in enumerate(items):
        event_id = item.get("event_id") if isinstance(item, dict) else None
        event_id = event_id if isinstance(event_id, str) and len(event_id) <= 200 else None
        try:
            if isinstance(item, dict):
                item = dict(item)
                tenant = item.setdefault("tenant_id", key.tenant_id)
                if tenant != key.tenant_id:
                    raise PermissionDenied("events may only be written to the key's tenant")
                if not s.trust_received_at or item.get("received_at") is None:
                    item["received_at"] = now.isoformat()  # knowledge time is the server's, not the caller's
            event = admit_event(validate_event(item, max_content_bytes=s.max_content_bytes))
            bounds.check(event, now)
            if not key.owner_allowed(event.owner_id):
                raise PermissionDenied("this key may not write for that owner")
            if not key.scope_allowed(event.scope, event.scope_id):
                raise PermissionDenied("this key may not write in that scope")
        except (InvalidEvent, PermissionDenied) as exc:
            results[i] = EventResult(index=i, event_id=event_id, status="rejected", code=exc.code, message=exc.message)
            if isinstance(exc, InvalidEvent):  # kept, masked, beside the CLI's and the workers' dead letters
                letters.append(dead_letter(_raw(item), source="api", reason_code=exc.code, message=exc.message,
                                           received_at=now))  # fmt: skip
            continue
        valid.append((i, event))

    done: dict[int, EventResult]
    if state.dispatch is not None:
        done, claims, operations = await _publish(state, valid) if valid else ({}, 0, 0)
    elif valid or letters:
        events = [e for _i, e in valid]
        done, claims, operations = await state.gate.write_phased(
            lambda: state.runner.prepare_events(events).with_letters(letters),
            lambda prepared: _ingest(state, valid, prepared),
        )
    else:
        done, claims, operations = {}, 0, 0
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
