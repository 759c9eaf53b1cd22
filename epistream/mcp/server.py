"""``epistream mcp``: memory as Model Context Protocol tools, over stdio or streamable HTTP.

The tools (:mod:`epistream.mcp.tools`) call the REST API in-process (``httpx.ASGITransport`` on
the app of :func:`epistream.api.app.create_app`), so there is one implementation of every check:

* over **HTTP** each MCP request carries ``Authorization: Bearer <key>`` and the key file is the
  API's (``EPISTREAM_API_KEYS_FILE``): the same tenant binding, owners, scopes, permissions and
  rate limit as the REST API. A request without a valid key is answered 401 before MCP sees it.
* over **stdio** there is no caller to authenticate: the process acts as the principal its
  settings describe (``EPISTREAM_MCP_TENANT_ID``, ``_OWNERS``, ``_PERMISSIONS``, ``_ACTOR_ID``,
  ``_PRINCIPAL_KIND``), a key that exists only inside the process.

A refused or failed call is a tool result with ``isError`` and the API's typed error
(``{"error": {"code", "message", "details"}}``), so a model can read why and correct itself.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
from pydantic import ValidationError

from epistream.api.auth import NEEDS_SCRYPT, ApiKey, ApiKeyRing, Permission, generate_key, hash_key_sha256
from epistream.api.errors import validation_details
from epistream.mcp.tools import TOOLS, TOOLS_BY_NAME, Caller, Reply, ToolSpec
from epistream.runner import EmbeddedRunner
from schemas.enums import ActorType, PrincipalKind
from schemas.errors import AuthError, EpistreamError, ValidationFailed
from schemas.extras import require
from schemas.settings import Settings

require("mcp")

import mcp_types as types  # noqa: E402  (after the one-line message when the extra is missing)
from mcp.server import Server  # noqa: E402

#: ``mcp_principal_kind`` → the actor type the stdio principal's commands are recorded with.
PRINCIPAL_KINDS: dict[str, ActorType] = {
    "agent": ActorType.AI_AGENT,
    "human": ActorType.HUMAN_USER,
    "platform": ActorType.EXTERNAL_CONNECTOR,
}

INSTRUCTIONS = (
    "epistream is long-term memory with epistemic types. Store conversation turns with memory_remember; "
    "ask with memory_recall (mode default for what may be stated, explicit to see everything with the reason "
    "each item would be left out). Claims carry an epistemic type, a lifecycle and a confidence: a HYPOTHETICAL "
    "or CONDITIONAL claim is not a fact, a CONTESTED claim must be presented with the claim it conflicts with, "
    "and an excerpt is a quote of what someone said, not a fact. Change memory only with the explicit commands "
    "(memory_reinforce, memory_penalize, memory_contradict, ...), when the owner said so, with a request_id so "
    "a retry applies nothing twice."
)


def stdio_principal(settings: Settings) -> tuple[ApiKey, str]:
    """The key the stdio server acts with, and its token (random, known only to this process)."""
    token = generate_key()
    owners = frozenset(o.strip() for o in settings.mcp_owners.split(",") if o.strip()) or None
    permissions = frozenset(Permission(p.strip()) for p in settings.mcp_permissions.split(",") if p.strip())
    groups = frozenset(g.strip() for g in settings.mcp_groups.split(",") if g.strip())
    key = ApiKey(
        id=settings.mcp_actor_id, tenant_id=settings.mcp_tenant_id, permissions=permissions, owners=owners,
        groups=groups,
        actor_type=PRINCIPAL_KINDS[settings.mcp_principal_kind], sha256=hash_key_sha256(token),
        kind=PrincipalKind(settings.mcp_principal_kind),  # its channel: an agent's writes are model suggestions
    )  # fmt: skip
    return key, token


class RestBridge:
    """The REST app, called in-process with one caller's bearer token."""

    def __init__(self, app: Any) -> None:
        self.app = app
        transport = httpx.ASGITransport(app=app)
        self._client = httpx.AsyncClient(transport=transport, base_url="http://epistream.mcp", timeout=None)

    def caller(self, token: str) -> Caller:
        return _TokenCaller(self._client, token)

    async def aclose(self) -> None:
        await self._client.aclose()


class _TokenCaller(Caller):
    def __init__(self, client: httpx.AsyncClient, token: str) -> None:
        self._client = client
        self._token = token

    async def request(self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None,
                      idempotency_key: str | None = None) -> Reply:  # fmt: skip
        headers = {"Authorization": f"Bearer {self._token}"}
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        response = await self._client.request(method, path, json=json, params=params, headers=headers)
        try:
            body = response.json()
        except ValueError:
            body = {"error": {"code": "internal_error", "message": "the API answered without JSON", "details": {}}}
        return response.status_code, body


async def authenticate(keys: ApiKeyRing, header: str | None) -> ApiKey:
    """The key of a bearer header; an scrypt check (tens of ms) runs in a worker thread, off the event loop."""
    found = keys.lookup(header)
    if found is NEEDS_SCRYPT:
        import anyio

        found = await anyio.to_thread.run_sync(keys.verify_slow, header or "")
    assert isinstance(found, ApiKey)
    return found


def tool_list() -> list[types.Tool]:
    return [_tool(spec) for spec in TOOLS]


def _tool(spec: ToolSpec) -> types.Tool:
    schema = spec.args.model_json_schema()
    schema.pop("title", None)
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=schema,
        annotations=types.ToolAnnotations(
            title=spec.title, read_only_hint=spec.read_only, destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent or spec.read_only, open_world_hint=False,
        ),
    )  # fmt: skip


def _result(status: int, body: Any) -> types.CallToolResult:
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), default=str)
    return types.CallToolResult(
        content=[types.TextContent(text=text)],
        structured_content=body if isinstance(body, dict) else {"result": body},
        is_error=status >= 400,
    )


def _error(exc: EpistreamError) -> types.CallToolResult:
    return _result(exc.http_status if exc.http_status >= 400 else 500, {"error": exc.to_dict()})


class MemoryTools:
    """The tool handlers of one server: authenticate, validate the arguments, call the REST route."""

    def __init__(self, bridge: RestBridge, keys: ApiKeyRing, *, fixed_token: str | None = None) -> None:
        self.bridge = bridge
        self.keys = keys
        #: stdio: the one principal's token; HTTP: None (each request's own bearer).
        self.fixed_token = fixed_token

    def _token(self, request: Any) -> str:
        if self.fixed_token is not None:
            return self.fixed_token
        headers: Mapping[str, str] = getattr(request, "headers", None) or {}
        scheme, _, token = (headers.get("authorization") or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise AuthError("missing bearer token")
        return token.strip()

    async def call(self, name: str, arguments: Mapping[str, Any] | None, request: Any = None) -> types.CallToolResult:
        spec = TOOLS_BY_NAME.get(name)
        try:
            if spec is None:
                raise ValidationFailed("no such tool", code="unknown_tool", tool=name)
            token = self._token(request)
            key = await authenticate(self.keys, f"Bearer {token}")
            try:
                args = spec.args.model_validate(dict(arguments or {}))
            except ValidationError as exc:
                raise ValidationFailed("the arguments do not satisfy the tool's schema", code="invalid_arguments",
                                       **validation_details(list(exc.errors(include_input=False, include_url=False)))
                                       ) from None  # fmt: skip
            status, body = await spec.call(self.bridge.caller(token), key, args)
        except EpistreamError as exc:
            return _error(exc)
        return _result(status, body)


def build_server(tools: MemoryTools, *, lifespan: Any = None) -> Server[Any]:
    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list())

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await tools.call(params.name, params.arguments, getattr(ctx, "request", None))

    options: dict[str, Any] = {"lifespan": lifespan} if lifespan is not None else {}
    return Server(
        "epistream", version="1.0.0", title="epistream memory", instructions=INSTRUCTIONS,
        on_list_tools=list_tools, on_call_tool=call_tool, **options,
    )  # fmt: skip


def _rest_app(runner: EmbeddedRunner, keys: ApiKeyRing, settings: Settings) -> Any:
    from epistream.api.app import create_app

    return create_app(runner, api_keys=keys, settings=settings)


@contextlib.asynccontextmanager
async def _rest_lifespan(app: Any) -> AsyncIterator[None]:
    async with app.router.lifespan_context(app):
        yield


async def run_stdio(runner: EmbeddedRunner, settings: Settings) -> None:
    """Serve one client on this process's stdin and stdout, as the configured principal."""
    from mcp.server.stdio import stdio_server

    key, token = stdio_principal(settings)
    keys = ApiKeyRing([key])
    rest = _rest_app(runner, keys, settings)
    bridge = RestBridge(rest)
    server = build_server(MemoryTools(bridge, keys, fixed_token=token))
    try:
        async with _rest_lifespan(rest), stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await bridge.aclose()


class BearerGate:
    """ASGI middleware: an MCP HTTP request without a valid API key is answered 401 and never reaches MCP."""

    def __init__(self, app: Any, keys: ApiKeyRing) -> None:
        self.app = app
        self.keys = keys

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            try:
                await authenticate(self.keys, headers.get("authorization"))
            except AuthError as exc:
                body = json.dumps({"error": exc.to_dict()}).encode()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", b"Bearer"),
                    (b"content-length", str(len(body)).encode()),
                ]})  # fmt: skip
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(runner: EmbeddedRunner, keys: ApiKeyRing, settings: Settings, *, host: str = "127.0.0.1") -> Any:
    """The streamable-HTTP MCP endpoint at ``/mcp``, behind the API's keys."""
    rest = _rest_app(runner, keys, settings)
    bridge = RestBridge(rest)
    server = build_server(MemoryTools(bridge, keys))
    app = server.streamable_http_app(streamable_http_path="/mcp", host=host)
    mcp_lifespan = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(starlette_app: Any) -> AsyncIterator[None]:
        async with _rest_lifespan(rest), mcp_lifespan(starlette_app):
            try:
                yield
            finally:
                await bridge.aclose()

    app.router.lifespan_context = lifespan
    return BearerGate(app, keys)


def serve(settings: Settings, *, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8081) -> None:
    """``epistream mcp``: one process owns the data directory, as ``epistream api`` does."""
    import anyio

    if transport == "http":
        if settings.api_keys_file is None:
            raise ValidationFailed("EPISTREAM_API_KEYS_FILE is required to serve MCP over HTTP", code="no_api_keys")
        keys = ApiKeyRing.from_file(settings.api_keys_file)
    runner = EmbeddedRunner(settings=settings)
    try:
        if transport == "http":
            import uvicorn

            uvicorn.run(http_app(runner, keys, settings, host=host), host=host, port=port, log_level="warning")
        else:
            anyio.run(run_stdio, runner, settings)
    finally:
        runner.close()
