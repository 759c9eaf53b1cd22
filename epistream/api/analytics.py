"""Read-only aggregates for the inspector and operators: the owners of a tenant, and the operation log's
analytics (operations by type and day, contradiction and supersedence counts, confidence by epistemic
type, extraction rejections by reason, ingestion lag by day).

They read the same tables as ``epistream stats`` (``OperationLog.stats``). The tenant is the key's; a
key bound to owners sees only those owners; a key bound to scopes cannot read analytics, which span
scopes.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel

from epistream.api.auth import ApiKey, Permission
from epistream.api.context import ERRORS, Key, State
from schemas.errors import PermissionDenied

router = APIRouter()


class OwnerCount(BaseModel):
    owner_id: str
    nodes: int


class OwnersResponse(BaseModel):
    owners: list[OwnerCount]


class AnalyticsResponse(BaseModel):
    tenant_id: str
    owner_id: str | None
    stats: dict[str, Any]
    ingestion_lag_by_day: list[dict[str, Any]]


def _unscoped(key: ApiKey) -> None:
    if key.scopes is not None:
        raise PermissionDenied("analytics span scopes; this key is bound to some", code="permission_denied")


@router.get("/v1/owners", response_model=OwnersResponse, responses=ERRORS, tags=["analytics"],
            summary="The owners of the key's tenant that have memory (those the key may see)")
async def owners(state: State, key: Key) -> OwnersResponse:
    key.require(Permission.READ)
    _unscoped(key)
    rows = await state.gate.call(state.runner.log.owners, key.tenant_id)
    return OwnersResponse(owners=[OwnerCount(owner_id=o, nodes=n) for o, n in rows if key.owner_allowed(o)])


@router.get("/v1/analytics", response_model=AnalyticsResponse, responses=ERRORS, tags=["analytics"],
            summary="Operation-log aggregates of the tenant or one owner")
async def analytics(state: State, key: Key,
                    owner_id: Annotated[str | None, Query(max_length=128)] = None) -> AnalyticsResponse:  # fmt: skip
    key.require(Permission.READ)
    _unscoped(key)
    owner = owner_id or key.default_owner()
    if owner is None and key.owners is not None:
        raise PermissionDenied("this key may only read analytics of its owners: name one")
    if owner is not None:
        key.check_owner(owner)
    log = state.runner.log
    stats = await state.gate.call(log.stats, key.tenant_id, owner)
    lag = await state.gate.call(log.ingestion_lag, key.tenant_id, owner)
    return AnalyticsResponse(tenant_id=key.tenant_id, owner_id=owner, stats=stats, ingestion_lag_by_day=lag)
