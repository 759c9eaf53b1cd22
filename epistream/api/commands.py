"""The explicit commands over HTTP, generated from the one registry (``schemas.commands.COMMANDS``).

Every registered command gets one route: ``POST /v1/nodes/{node_id}/<name>`` for a command on one
node (``PUT …/condition``), and a route of its own for the two that name a pair
(``POST /v1/contradictions``, ``POST /v1/contradictions/resolve``), whose nodes are in the body.
The handler is the same for all: the key needs the command's permission, every node it names must
be visible to the key, and the command acts in the first node's owner and scope.

(No ``from __future__ import annotations`` here: the generated handlers' annotations must be the
body classes themselves for FastAPI to read them.)
"""

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from engine.results import ApplyResult
from epistream.api.auth import ApiKey, Permission
from epistream.api.context import (
    ALL_ERRORS,
    COMMAND_NAMESPACE,
    ApiState,
    IdemKey,
    Key,
    State,
    Wait,
    caller_request_id,
    request_id_of,
)
from epistream.api.distributed import PendingCommand
from epistream.api.errors import validation_details
from epistream.api.limits import body_fingerprint
from epistream.api.models import (
    ArchiveBody,
    CommandResponse,
    ConditionBody,
    ContradictBody,
    PlainCommandBody,
    ResolveBody,
    RevalidateBody,
    SignalBody,
    TransitionBody,
    _CommandBody,
)
from extractors.secrets.admission import mask_command
from schemas.commands import COMMANDS, CommandSpec
from schemas.enums import EpistemicType
from schemas.errors import ValidationFailed
from schemas.nodes import MemoryNode

router = APIRouter()

#: How each registered command is called: method, path, body model, and whether the body may be omitted.
ROUTES: dict[str, tuple[str, str, type[_CommandBody], bool]] = {
    "reinforce": ("POST", "/v1/nodes/{node_id}/reinforce", SignalBody, False),
    "penalize": ("POST", "/v1/nodes/{node_id}/penalize", SignalBody, False),
    "contradict": ("POST", "/v1/contradictions", ContradictBody, False),
    "resolve": ("POST", "/v1/contradictions/resolve", ResolveBody, False),
    "condition": ("PUT", "/v1/nodes/{node_id}/condition", ConditionBody, False),
    "transition": ("POST", "/v1/nodes/{node_id}/transition", TransitionBody, False),
    "promote": ("POST", "/v1/nodes/{node_id}/promote", PlainCommandBody, True),
    "archive": ("POST", "/v1/nodes/{node_id}/archive", ArchiveBody, True),
    "deprecate": ("POST", "/v1/nodes/{node_id}/deprecate", PlainCommandBody, True),
    "revalidate": ("POST", "/v1/nodes/{node_id}/revalidate", RevalidateBody, False),
}

_RESPONSES: dict[int | str, dict[str, Any]] = {
    **ALL_ERRORS,
    202: {"model": PendingCommand, "description": "Distributed mode: published, outcome not seen yet"},
}
NodeId = Annotated[str, Path(max_length=200)]


def _permissions(spec: CommandSpec, fields: dict[str, Any]) -> list[Permission]:
    """The registry's permission; a transition *to* DEPRECATED retires the claim and needs deprecate too."""
    needed = [Permission(spec.permission)]
    if fields.get("to_type") is EpistemicType.DEPRECATED and Permission.DEPRECATE not in needed:
        needed.append(Permission.DEPRECATE)
    return needed


def _command_fields(spec: CommandSpec, body: _CommandBody) -> dict[str, Any]:
    """The command's own fields from the body; an absent value keeps the command's default (e.g. the signal)."""
    fields: dict[str, Any] = {}
    for name in spec.own_fields():
        value = getattr(body, name, None)
        if value is None and spec.model.model_fields[name].default is not None:
            continue
        fields[name] = value
    return fields


async def run_command(
    state: ApiState,
    key: ApiKey,
    spec: CommandSpec,
    target: MemoryNode,
    body: _CommandBody,
    idempotency_key: str | None,
    wait_s: float | None,
    fields: dict[str, Any],
) -> CommandResponse | JSONResponse:
    """Build the command from the key (actor, tenant), the clock and the body; apply or publish it."""
    request_id = caller_request_id(key, request_id_of(idempotency_key))
    content = {"route": spec.name, "node": target.node_id, "body": body.model_dump(mode="json")}
    if request_id is not None:
        seed = f"{key.tenant_id}|{target.owner_id}|{request_id}|{body_fingerprint(content)}"
        command_id = str(uuid.uuid5(COMMAND_NAMESPACE, seed))
    else:
        command_id = str(uuid.uuid4())
    try:
        command = spec.model(
            tenant_id=key.tenant_id,
            owner_id=target.owner_id,
            scope=target.scope,
            scope_id=target.scope_id,
            command_id=command_id,
            request_id=request_id,
            actor=key.actor,
            channel=key.kind,
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
    name = spec.command
    command = mask_command(command)  # a reason or description may quote a secret; published and sealed masked
    if state.dispatch is not None:
        outcome = await state.dispatch.submit(command, wait_s=wait_s)
        if outcome is None:
            state.metrics.commands.labels(name, "pending").inc()
            pending = PendingCommand(command=name, command_id=command_id, input_id=command.input_id)
            return JSONResponse(pending.model_dump(mode="json"), status_code=202)
        result = ApplyResult(outcome)
    else:
        result = await state.gate.write(state.runner.submit, command)
    state.metrics.commands.labels(name, result.outcome.status).inc()
    result.raise_for_error()
    current = None
    if state.dispatch is None:
        current = await state.gate.read(state.runner.node, target.node_id, tenant_id=key.tenant_id)
    return CommandResponse(command=name, command_id=command_id, outcome=result.outcome, node=current)


async def _handle(state: ApiState, key: ApiKey, spec: CommandSpec, body: _CommandBody, targets: dict[str, str],
                  idempotency_key: str | None, wait_s: float | None) -> CommandResponse | JSONResponse:  # fmt: skip
    fields = _command_fields(spec, body)
    for permission in _permissions(spec, fields):
        key.require(permission)
    nodes = [await state.actionable_node(key, targets[name]) for name in spec.targets]
    return await run_command(state, key, spec, nodes[0], body, idempotency_key, wait_s, {**targets, **fields})


def _node_route(spec: CommandSpec, body_model: type[_CommandBody], optional: bool) -> Any:
    if optional:
        async def optional_body(state: State, key: Key, node_id: NodeId,
                                body: Annotated[body_model | None, Body()] = None,  # type: ignore[valid-type]
                                idempotency_key: IdemKey = None, wait_s: Wait = None) -> Any:  # fmt: skip
            return await _handle(state, key, spec, body or body_model(), {"node_id": node_id}, idempotency_key, wait_s)

        return optional_body

    async def required_body(state: State, key: Key, node_id: NodeId, body: body_model,  # type: ignore[valid-type]
                            idempotency_key: IdemKey = None, wait_s: Wait = None) -> Any:  # fmt: skip
        return await _handle(state, key, spec, body, {"node_id": node_id}, idempotency_key, wait_s)

    return required_body


def _pair_route(spec: CommandSpec, body_model: type[_CommandBody]) -> Any:
    async def pair(state: State, key: Key, body: body_model,  # type: ignore[valid-type]
                   idempotency_key: IdemKey = None, wait_s: Wait = None) -> Any:  # fmt: skip
        targets = {name: getattr(body, name) for name in spec.targets}
        return await _handle(state, key, spec, body, targets, idempotency_key, wait_s)

    return pair


for _spec in COMMANDS:
    _method, _path, _body, _optional = ROUTES[_spec.name]
    _handler = _node_route(_spec, _body, _optional) if "{node_id}" in _path else _pair_route(_spec, _body)
    _handler.__name__ = _spec.name
    _handler.__doc__ = _spec.summary
    router.add_api_route(_path, _handler, methods=[_method], response_model=CommandResponse,
                         responses=_RESPONSES, tags=["commands"], summary=_spec.summary)  # fmt: skip
