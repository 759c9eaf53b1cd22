"""Routes for operators: health of every backend the app uses, and Prometheus metrics."""

import time
from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials

from epistream.api.auth import Permission
from epistream.api.context import ERRORS, State, bearer
from epistream.api.models import HealthCheck, HealthResponse
from epistream.runner import Unconfigured
from schemas.errors import AuthError, BackendUnavailable, EpistreamError
from schemas.search import SearchFilter

router = APIRouter()


@router.get("/v1/health", response_model=HealthResponse, responses={503: {"model": HealthResponse}},
            tags=["operations"])
async def health(state: State) -> JSONResponse:
    checks: dict[str, HealthCheck] = {}
    runner = state.runner

    async def check(name: str, fn: Callable[[], object]) -> None:
        start = time.perf_counter()
        try:
            await state.gate.call(fn, timeout_s=min(5.0, state.settings.api_backend_timeout_s))
            checks[name] = HealthCheck(ok=True, latency_ms=(time.perf_counter() - start) * 1000)
        except Exception as exc:  # health reports failures, it never raises them
            reason = exc.code if isinstance(exc, EpistreamError) else type(exc).__name__
            checks[name] = HealthCheck(ok=False, latency_ms=(time.perf_counter() - start) * 1000, error=reason)

    probe = SearchFilter(tenant_id="__health__", owner_id="__health__")
    # A backend this process was not configured with is not checked (its reads answer not_configured).
    if runner.keeps_log:
        await check("chdb", lambda: runner.log.client.query("SELECT 1").result_rows)
    if not isinstance(runner.index, Unconfigured):
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


@router.get("/metrics", response_class=Response, responses={**ERRORS}, tags=["operations"], include_in_schema=True)
async def metrics(
    state: State,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Response:
    if not state.settings.api_metrics_public:
        if credentials is None:
            raise AuthError("missing bearer token")
        key = state.keys.authenticate(f"Bearer {credentials.credentials}")
        state.limiter.take(key.id)
        key.require(Permission.ADMIN)
    return Response(state.metrics.render(), media_type="text/plain; version=0.0.4")
