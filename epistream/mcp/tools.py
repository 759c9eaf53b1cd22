"""The MCP tools: what each takes, what it tells a model, and which REST route answers it.

Every tool is one call of the REST API (:mod:`epistream.api`), made in-process with the caller's
own bearer key, so a tool can do exactly what that key may do through HTTP and nothing more: the
same tenant binding, owner and scope grants, permissions, rate limit, idempotency and typed
errors. The explicit commands are generated from the registry (``schemas.commands.COMMANDS``) and
the API's routes for them (``epistream.api.commands.ROUTES``), as the CLI's and the API's are.

The descriptions are written for a model: what the tool returns and what it must not assume from
it (a hypothesis is not a fact, an excerpt is what someone said, not a fact).
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from epistream.api.auth import ApiKey
from epistream.api.commands import ROUTES
from epistream.api.models import RetrieveBody
from schemas.commands import COMMANDS, CommandSpec
from schemas.common import ExternalId, KeyId
from schemas.enums import Role, Scope
from schemas.retrieval import RetrievalMode

#: What every tool's REST call returns: the HTTP status and the JSON body.
Reply = tuple[int, Any]


class Caller:
    """The REST API as a tool sees it: one request with the caller's key (see ``server.RestBridge``)."""

    async def request(self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None,
                      idempotency_key: str | None = None) -> Reply:  # fmt: skip
        raise NotImplementedError


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    args: type[BaseModel]
    call: Callable[[Caller, ApiKey, Any], Awaitable[Reply]]
    read_only: bool
    #: Whether the tool may retire or overturn what is stored (deprecate, resolve, penalize, ...).
    destructive: bool = False
    #: Whether calling it twice with the same ``request_id`` changes nothing the second time.
    idempotent: bool = False


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _request_id(value: str | None) -> str | None:
    return None if value is None else str(uuid.UUID(value))


REQUEST_ID = Field(
    default=None,
    description="A UUID you choose for this call. Retrying with the same request_id and the same arguments "
    "returns the original result and applies nothing twice; reusing it with other arguments is refused "
    "(request_id_conflict). Use one per intended change.",
)
OWNER = Field(default=None, description="Whose memory (owner id). Optional when your key is bound to one owner.")
SCOPE = Field(default=None, description="personal, project, team or global; omit to search every scope you may see.")
SCOPE_ID = Field(default=None, description="The scope's id, e.g. a project id.")


class Message(_Args):
    role: Role = Field(description="Who wrote it: user (the owner), assistant (you), system, tool, participant.")
    content: str = Field(min_length=1, max_length=32 * 1024, description="The message text, verbatim.")
    occurred_at: datetime | None = Field(
        default=None, description="When it was said (ISO-8601 with a timezone); default: now."
    )
    event_id: ExternalId | None = Field(
        default=None, description="The platform's id of the message; default: derived from request_id, else new."
    )
    speaker: str | None = Field(default=None, max_length=200, description="Display name of who wrote it.")
    expires_at: datetime | None = Field(
        default=None, description="Until when what it says holds (ISO-8601 with a timezone), if the owner said so; "
        "after it the claims are stale until revalidated (memory_revalidate)."
    )


class RememberArgs(_Args):
    messages: list[Message] = Field(min_length=1, max_length=256, description="The conversation turns, in order.")
    owner_id: KeyId | None = OWNER
    session_id: ExternalId | None = Field(default=None, description="The conversation session the turns belong to.")
    conversation_id: ExternalId | None = None
    scope: Scope = Field(default=Scope.PERSONAL, description="Where the memory belongs (default personal).")
    scope_id: KeyId | None = SCOPE_ID
    request_id: str | None = REQUEST_ID

    _rid = field_validator("request_id")(lambda cls, v: _request_id(v))


class RecallArgs(_Args):
    query: str = Field(min_length=1, max_length=4000, description="What you want to know, in words.")
    mode: Literal["default", "explicit"] = Field(
        default="default",
        description="default: only what may be stated (active, non-hypothetical, non-contested claims, with "
        "conflicts shown side by side). explicit: everything that matches, including hypotheses, proposals, "
        "contested and superseded claims, each with why it would be left out by default.",
    )
    owner_id: KeyId | None = OWNER
    scope: Scope | None = SCOPE
    scope_id: KeyId | None = SCOPE_ID
    limit: int = Field(default=10, ge=1, le=200, description="Most items returned.")
    token_budget: int = Field(default=2048, ge=1, le=1_000_000, description="Most tokens of returned text.")
    sources: Literal["all", "claims", "excerpts"] = Field(
        default="all", description="claims (what memory holds), excerpts (what was said, quoted), or both."
    )
    valid_at: datetime | None = Field(default=None, description="What was true at this time (default: now).")
    knowledge_at: datetime | None = Field(default=None, description="What memory knew at this time (default: now).")
    debug: bool = Field(default=False, description="Include every candidate's scores and the reason it was left out.")


class WorldArgs(_Args):
    owner_id: KeyId | None = OWNER
    scope: Scope | None = SCOPE
    scope_id: KeyId | None = SCOPE_ID
    at: datetime | None = Field(default=None, description="The world as of this time (default: now).")
    continuation_task_id: str | None = Field(
        default=None, min_length=1, max_length=200,
        description="Select one task id: its continuation capsule and the established context relevant to it.",
    )


class ProvenanceArgs(_Args):
    node_id: str = Field(min_length=1, max_length=200, description="The claim's node_id (from recall or world).")
    cursor: str | None = Field(default=None, max_length=1000, description="next_cursor of the previous page.")
    limit: int = Field(default=100, ge=1, le=1000, description="Operations per page.")


class AssertionStateArgs(_Args):
    subject: str = Field(min_length=1, max_length=500, description="The subject, e.g. user.")
    predicate: str = Field(min_length=1, max_length=500, description="The predicate, e.g. lives_in.")
    valid_at: datetime | None = Field(default=None, description="The time the answer is about (default: now).")
    knowledge_at: datetime | None = Field(default=None, description="What memory knew by then (default: now).")
    owner_id: KeyId | None = OWNER
    scope: Scope | None = SCOPE
    scope_id: KeyId | None = SCOPE_ID


def _owner(key: ApiKey, given: str | None) -> str | None:
    return given or key.default_owner()


def _event_id(args: RememberArgs, index: int, message: Message) -> str:
    if message.event_id is not None:
        return message.event_id
    if args.request_id is not None:  # a retry of the same call writes the same events, so nothing twice
        return str(uuid.uuid5(uuid.UUID(args.request_id), f"{args.session_id or ''}|{index}"))
    return str(uuid.uuid4())


async def _remember(caller: Caller, key: ApiKey, args: RememberArgs) -> Reply:
    now = datetime.now().astimezone()
    owner = _owner(key, args.owner_id)
    events = []
    for i, m in enumerate(args.messages):
        event: dict[str, Any] = {
            "event_id": _event_id(args, i, m),
            "owner_id": owner,
            "scope": args.scope.value,
            "role": m.role.value,
            "content": m.content,
            "occurred_at": (m.occurred_at or now).isoformat(),
        }
        for name, value in (("scope_id", args.scope_id), ("session_id", args.session_id),
                            ("conversation_id", args.conversation_id), ("speaker", m.speaker)):  # fmt: skip
            if value is not None:
                event[name] = value
        if m.expires_at is not None:
            event["expires_at"] = m.expires_at.isoformat()
        events.append(event)
    return await caller.request("POST", "/v1/events", json={"events": events}, idempotency_key=args.request_id)


async def _recall(caller: Caller, key: ApiKey, args: RecallArgs) -> Reply:
    body = RetrieveBody(
        query=args.query, owner_id=_owner(key, args.owner_id), scope=args.scope, scope_id=args.scope_id,
        mode=RetrievalMode(args.mode), limit=args.limit, token_budget=args.token_budget, sources=args.sources,
        valid_at=args.valid_at, knowledge_at=args.knowledge_at, debug=args.debug,
    )  # fmt: skip
    return await caller.request("POST", "/v1/retrieve", json=body.model_dump(mode="json", exclude_none=True))


def _params(**values: Any) -> dict[str, Any]:
    return {k: (v.isoformat() if isinstance(v, datetime) else getattr(v, "value", v))
            for k, v in values.items() if v is not None}  # fmt: skip


async def _world(caller: Caller, key: ApiKey, args: WorldArgs) -> Reply:
    params = _params(owner_id=_owner(key, args.owner_id), scope=args.scope, scope_id=args.scope_id, at=args.at,
                     continuation_task_id=args.continuation_task_id)
    return await caller.request("GET", "/v1/world-context", params=params)


async def _provenance(caller: Caller, key: ApiKey, args: ProvenanceArgs) -> Reply:
    params = _params(cursor=args.cursor, limit=args.limit)
    return await caller.request("GET", f"/v1/nodes/{args.node_id}/provenance", params=params)


async def _assertion_state(caller: Caller, key: ApiKey, args: AssertionStateArgs) -> Reply:
    now = datetime.now().astimezone()
    body = {k: v for k, v in {
        "subject": args.subject, "predicate": args.predicate, "valid_at": (args.valid_at or now).isoformat(),
        "knowledge_at": args.knowledge_at.isoformat() if args.knowledge_at else None,
        "owner_id": _owner(key, args.owner_id), "scope": args.scope.value if args.scope else None,
        "scope_id": args.scope_id,
    }.items() if v is not None}  # fmt: skip
    return await caller.request("POST", "/v1/assertions/state", json=body)


NOT_A_FACT = (
    " Items have kind 'claim' (what memory holds, with epistemic_type, lifecycle, confidence and an evidence "
    "quote) or 'excerpt' (a message as it was said: a quote of someone, not a fact). A HYPOTHETICAL or "
    "CONDITIONAL claim is not a fact; a CONTESTED claim comes with the claim it conflicts with: present both, "
    "do not pick one. Confidence is memory's own estimate, not a probability that the claim is true."
)

BASE_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "memory_remember", "Remember conversation turns", (
            "Store conversation turns in long-term memory. Returns per-message status (accepted, duplicate, "
            "rejected with a code) and how many claims and operations were made. Memory extracts claims itself "
            "and keeps only what the text supports: do not paraphrase or add facts; send the turns verbatim, "
            "with the role of who said them. A retry with the same request_id stores nothing twice."
        ), RememberArgs, _remember, read_only=False, idempotent=True,
    ),
    ToolSpec(
        "memory_recall", "Recall from memory", (
            "Search long-term memory for what is relevant to a query. Returns ranked items, each with a "
            "provenance label, and (mode explicit, or debug) the items left out with the reason for each."
            + NOT_A_FACT
        ), RecallArgs, _recall, read_only=True,
    ),
    ToolSpec(
        "memory_world", "World context", (
            "The owner's current world view: facts (claims that may be stated), conflicts (contradicting claims "
            "side by side), proposals (hypotheses and suggestions not yet accepted) and stale claims (not "
            "confirmed for a long time, or past their expires_at until revalidated). Only 'facts' may be stated as "
            "true; proposals are not facts, and a conflict must be presented as one, not resolved by you. "
            "'continuation' lists where tasks stand (established capsules only; continuation_task_id selects one, "
            "with its task_context); a capsule is context to resume from, never a permission to act."
        ), WorldArgs, _world, read_only=True,
    ),
    ToolSpec(
        "memory_provenance", "Provenance of a claim", (
            "Where a claim comes from and how it changed: the message it was extracted from with the evidence "
            "quote, who said it, every operation that changed it (confidence, lifecycle, contradictions, "
            "supersedence) in order. The evidence quote is what someone said, not proof that it is true."
        ), ProvenanceArgs, _provenance, read_only=True,
    ),
    ToolSpec(
        "memory_assertion_state", "Is it asserted?", (
            "What memory holds for one subject/predicate at a time: status single or consistent (one value), "
            "multiple (several values, e.g. two pets), contested (claims that conflict) or unknown, with the "
            "current values, the timeline and the conflicts. These are the eligible claims, not verified truth; "
            "'unknown' means memory holds nothing on it, not that it is false."
        ), AssertionStateArgs, _assertion_state, read_only=True,
    ),
)


#: What a model should know about each command beyond the registry's one-line summary.
COMMAND_NOTES: dict[str, str] = {
    "reinforce": "Use when the owner confirms a claim. Raises its confidence by the rule for the signal; does not "
                 "make a hypothesis a fact (use memory_transition for that).",
    "penalize": "Use when the owner corrects a claim. Lowers its confidence by the rule for the signal.",
    "contradict": "Use when two claims cannot both be true. Both become CONTESTED and are shown side by side "
                  "until resolved; neither is deleted.",
    "resolve": "Only when the owner has said which of two contradicting claims is right: the loser is "
               "deprecated. Do not resolve a conflict on your own judgement.",
    "condition": "Record whether a CONDITIONAL claim's condition now holds (TRUE lets it be recalled by default).",
    "transition": "Change a claim's epistemic type; forbidden moves are refused (invalid_epistemic_transition). "
                  "Turning a hypothesis into ASSERTED needs the owner's confirmation, not your inference.",
    "promote": "Mark a claim STABLE (well established).",
    "archive": "Archive a claim for good: it is no longer recalled. Final.",
    "deprecate": "Retire a claim known to be wrong or replaced: it is no longer recalled. Final.",
    "revalidate": "Only with new evidence that a stale (expired) claim still holds (an evidence event id or the "
                  "owner's words as evidence_quote), and until when (expires_at, in the future). A claim the "
                  "owner stated needs the owner's channel; yours is refused (channel_not_authoritative).",
}
_DESTRUCTIVE = {"penalize", "resolve", "archive", "deprecate", "transition"}


def _command_tool(spec: CommandSpec) -> ToolSpec:
    method, path, body_model, _optional = ROUTES[spec.name]
    fields: dict[str, Any] = {"request_id": (str | None, REQUEST_ID)}
    if "{node_id}" in path:
        fields["node_id"] = (str, Field(min_length=1, max_length=200, description="The claim's node_id."))
    args = create_model(
        f"{spec.name.title()}Args", __base__=body_model, __validators__={
            "_rid": field_validator("request_id")(lambda cls, v: _request_id(v))
        }, **fields,
    )

    async def call(caller: Caller, key: ApiKey, given: Any) -> Reply:
        body = given.model_dump(mode="json", exclude={"node_id", "request_id"}, exclude_none=True)
        route = path.format(node_id=getattr(given, "node_id", ""))
        return await caller.request(method, route, json=body, idempotency_key=given.request_id)

    permission = f" Needs the {spec.permission} permission."
    description = (
        f"{spec.summary} {COMMAND_NOTES.get(spec.name, '')}{permission} Returns the engine's outcome (applied, "
        "duplicate or the rule that refused it) and the claim as it now stands. A retry with the same request_id "
        "applies nothing twice."
    )
    return ToolSpec(f"memory_{spec.name}", spec.summary.split(".")[0], description, args, call, read_only=False,
                    destructive=spec.name in _DESTRUCTIVE, idempotent=True)  # fmt: skip


TOOLS: tuple[ToolSpec, ...] = BASE_TOOLS + tuple(_command_tool(spec) for spec in COMMANDS)
TOOLS_BY_NAME: dict[str, ToolSpec] = {t.name: t for t in TOOLS}
