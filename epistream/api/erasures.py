"""Erasure on request over HTTP: ``POST /v1/erasures`` (admin keys only), idempotent by its request id.

The key's tenant is the erasure's; the body names the scope (an owner, a speaker, or one conversation or
event of an owner). The answer is the erasure receipt: 201 when this request erased, 200 when it found
the scope already erased (the earlier receipt, ``repeated: true``). ``Idempotency-Key`` (a UUID) makes a
retry after a timeout return the receipt of the first attempt, which keeps running in the writer.

(No ``from __future__ import annotations`` here: FastAPI reads the body class from the annotations.)
"""

import asyncio
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import Field, ValidationError

from epistream.api.auth import Permission
from epistream.api.context import ERRORS, IdemKey, Key, State, request_id_of
from epistream.api.errors import validation_details
from schemas.common import Contract, ExternalId, KeyId
from schemas.erasure import ErasureReceipt, ErasureScope
from schemas.errors import ReadOnlyRunner, ValidationFailed

router = APIRouter()

#: How long one erasure may hold the writer before the request answers 503 (it still completes; a retry
#: with the same Idempotency-Key returns its receipt). It rebuilds the embedded indexes: minutes for large ones.
ERASURE_TIMEOUT_S = 600.0


class ErasureBody(Contract):
    """The scope in the key's tenant: ``owner_id`` (with ``conversation_id`` or ``event_id`` for only that),
    or ``speaker_id`` alone."""

    owner_id: KeyId | None = None
    speaker_id: ExternalId | None = None
    conversation_id: ExternalId | None = None
    event_id: ExternalId | None = None
    requested_by: str | None = Field(default=None, max_length=200, description="Who asked; default: the key's actor")


@router.post("/v1/erasures", response_model=ErasureReceipt, status_code=201, tags=["operations"],
             responses={**ERRORS, 200: {"model": ErasureReceipt, "description": "Already erased: the earlier receipt"}})
async def erase(state: State, key: Key, body: ErasureBody, idempotency_key: IdemKey = None) -> Any:
    """Erase a scope for good (see docs/erasure.md) and answer with the receipt."""
    key.require(Permission.ADMIN)
    if state.dispatch is not None:
        raise ReadOnlyRunner("erasure is not offered by a distributed API yet; run `epistream erase` against"
                             " the deployment's data", api_mode="distributed")  # fmt: skip
    kind = ("speaker" if body.speaker_id is not None else "conversation" if body.conversation_id is not None
            else "event" if body.event_id is not None else "owner")  # fmt: skip
    try:
        scope = ErasureScope(tenant_id=key.tenant_id, kind=kind, owner_id=body.owner_id, speaker_id=body.speaker_id,
                             conversation_id=body.conversation_id, event_id=body.event_id)  # fmt: skip
    except ValidationError as exc:
        raise ValidationFailed("erasure scope is not valid", code="invalid_erasure_scope", **validation_details(
            list(exc.errors(include_input=False, include_url=False))
        )) from None
    if state.receipts is not None:  # receipts of retrievals before this request are stored, then erased with it
        await asyncio.to_thread(state.receipts.flush)
    receipt = await state.gate.call(state.runner.erase, scope, requested_by=body.requested_by or key.actor.actor_id,
                                    request_id=request_id_of(idempotency_key), timeout_s=ERASURE_TIMEOUT_S)  # fmt: skip
    return JSONResponse(receipt.model_dump(mode="json"), status_code=200 if receipt.repeated else 201)
