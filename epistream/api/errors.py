"""One error shape for every failure: ``{"error": {"code", "message", "details"}}``.

Nothing here echoes a request body or stored content: validation errors name
the location and kind of each problem, never the offending value.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from extractors.secrets import mask
from schemas.errors import EpistreamError

log = logging.getLogger("epistream.api")

_STATUS_CODES = {
    400: "bad_request",
    401: "unauthenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_failed",
    429: "rate_limited",
    503: "backend_unavailable",
}


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str
    message: str
    details: dict[str, Any] = Field(default_factory=dict)


class ErrorBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    error: ErrorDetail


def _safe_details(details: dict[str, Any]) -> dict[str, Any]:
    """Details are ids, codes and numbers; anything else is stringified and bounded."""
    out: dict[str, Any] = {}
    for key, value in details.items():
        if isinstance(value, bool | int | float) or value is None:
            out[key] = value
        else:
            out[key] = str(value)[:200]
    return out


def error_response(status: int, code: str, message: str, details: dict[str, Any] | None = None) -> JSONResponse:
    body = {"error": {"code": code, "message": message, "details": details or {}}}
    headers = {}
    if status == 429 and details and "retry_after_s" in details:
        headers["Retry-After"] = str(details["retry_after_s"])
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    return JSONResponse(body, status_code=status, headers=headers)


def epistream_error_response(exc: EpistreamError) -> JSONResponse:
    status = exc.http_status if 400 <= exc.http_status <= 599 else 500
    return error_response(status, exc.code, exc.message, _safe_details(exc.details))


def validation_details(errors: list[Any]) -> dict[str, Any]:
    problems = []
    for err in errors[:20]:
        loc = [mask(str(p))[0] for p in err.get("loc", ())]  # a location may name a key the caller sent
        problems.append({"loc": loc, "type": str(err.get("type", "invalid"))})
    return {"errors": problems}


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(EpistreamError)
    async def _epistream(_: Request, exc: EpistreamError) -> JSONResponse:
        return epistream_error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(422, "validation_failed", "request does not match the schema", validation_details(
            list(exc.errors())
        ))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _STATUS_CODES.get(exc.status_code, "http_error")
        message = "route not found" if exc.status_code == 404 else code.replace("_", " ")
        response = error_response(exc.status_code, code, message)
        if exc.headers:
            response.headers.update(exc.headers)
        return response

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return error_response(500, "internal_error", "internal error")
