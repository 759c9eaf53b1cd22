"""What extraction produces: claims tied to evidence in the source text.

A claim proves only that its text is in the source, never that it is true; the
engine decides lifecycle and confidence.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, JsonValue, model_validator

from schemas.common import Contract, ExternalId, Probability, ScopeRef, UtcDatetime, added_field
from schemas.enums import EpistemicType, NodeType, Polarity, PrincipalKind, Role, SourceType, TemporalIntent
from schemas.events import ConversationEvent
from schemas.visibility import Visibility


class EvidenceSpan(Contract):
    """Character offsets ``[start, end)`` into the source event's content."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> EvidenceSpan:
        if self.end < self.start:
            raise ValueError("evidence_span.end must be >= start")
        return self


class Quantity(Contract):
    value: str = Field(pattern=r"^[+-]?\d{1,3}(,\d{3})*(\.\d+)?$|^[+-]?\d+(\.\d+)?$")
    unit: str = Field(default="1", max_length=64)
    source_text: str = Field(min_length=1, max_length=200)


class Claim(Contract):
    schema_version: Literal[1] = 1
    node_type: NodeType = NodeType.FACT
    subject: str = Field(min_length=1, max_length=500)
    predicate: str = Field(min_length=1, max_length=200)
    object: str | None = Field(default=None, max_length=2000)
    polarity: Polarity = Polarity.POSITIVE
    epistemic_type: EpistemicType
    source_type: SourceType | None = None
    condition: str | None = Field(default=None, max_length=4000)
    temporal_intent: TemporalIntent | None = None
    replaces_object: str | None = Field(default=None, max_length=2000)
    evidence_quote: str = Field(min_length=1, max_length=8000)
    evidence_span: EvidenceSpan | None = None
    claim_text: str | None = Field(default=None, max_length=8000)
    classification_confidence: Probability = 1.0
    grounding_method: str = Field(default="unspecified", max_length=64)
    quantity: Quantity | None = None
    suggested_scope: str | None = None
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    #: Dates the claim's sentence refers to, resolved against the message's time (set by validation).
    event_dates: tuple[str, ...] = added_field((), max_length=8)
    #: Until when this claim holds (TRUST-FACTS §4); unset = the source event's ``expires_at``, if any.
    expires_at: UtcDatetime | None = added_field()

    @model_validator(mode="after")
    def _shape(self) -> Claim:
        if self.epistemic_type is EpistemicType.DEPRECATED:
            raise ValueError("DEPRECATED cannot be assigned when a claim is created")
        if self.epistemic_type is EpistemicType.CONDITIONAL and not (self.condition or "").strip():
            raise ValueError("a CONDITIONAL claim needs the condition text")
        return self


class RejectedClaim(Contract):
    reason_code: str
    detail: str = ""
    claim: dict[str, JsonValue]


#: The event id scheme of events admitted now (recorded in each ``EventRef`` as ``id_scheme``).
EVENT_ID_SCHEME = 2


def event_input_id(
    tenant_id: str, event_id: str, *, scheme: int = 1, partition_key: str | None = None
) -> str:
    """The reducer's idempotency key for an event (its extraction result), by the event's id scheme.

    Scheme 1 (events logged before scheme 2) scoped ids to the tenant, so one owner could learn of,
    and pre-empt, another owner's event ids. Scheme 2 scopes them to the stream they belong to
    (tenant/owner/scope, the partition key): ``evt-1`` of one owner is unrelated to ``evt-1`` of
    another. The prefix differs (``event2:``) because a scheme-1 event id may itself contain ``/``.
    """
    if scheme == 1:
        return f"event:{tenant_id}/{event_id}"
    if scheme == 2 and partition_key is not None:
        return f"event2:{partition_key}/{event_id}"
    raise ValueError(f"unknown event id scheme {scheme} (or no partition key)")


class EventRef(ScopeRef):
    """What the reducer needs to know about the source event (no content)."""

    event_id: ExternalId
    conversation_id: ExternalId | None = None
    session_id: ExternalId | None = None
    role: Role
    speaker: str | None = None
    speaker_id: ExternalId | None = added_field()
    occurred_at: UtcDatetime
    recorded_at: UtcDatetime
    content_sha256: str
    #: The principal kind the event arrived through (set by the ingestion edge, see
    #: ``ConversationEvent.channel``); None = a trusted relay (platform), as before channels existed.
    channel: PrincipalKind | None = added_field()
    #: How the event's input id is derived (:func:`event_input_id`); unset is scheme 1 (events logged
    #: before scheme 2 replay with the ids they were reduced under).
    id_scheme: int | None = added_field()
    #: The event's ``expires_at``: its claims are stale once it has passed (unless revalidated).
    expires_at: UtcDatetime | None = added_field()
    #: The event's ``visibility`` (``schemas.visibility``): its claims carry it.
    visibility: Visibility | None = added_field()

    @property
    def input_id(self) -> str:
        return event_input_id(
            self.tenant_id, self.event_id, scheme=self.id_scheme or 1, partition_key=self.partition_key
        )

    @classmethod
    def of(cls, event: ConversationEvent, *, content_sha256: str | None = None, trusted: bool = False) -> EventRef:
        """The reference to ``event``; ``trusted`` skips re-validating fields of an already validated event.

        ``content_sha256`` passes a hash the caller already computed (hashing the content is not free).
        """
        values: dict[str, Any] = {
            "tenant_id": event.tenant_id,
            "owner_id": event.owner_id,
            "scope": event.scope,
            "scope_id": event.scope_id,
            "event_id": event.event_id,
            "conversation_id": event.conversation_id,
            "session_id": event.session_id,
            "role": event.role,
            "speaker": event.speaker,
            "speaker_id": event.speaker_id,
            "occurred_at": event.occurred_at,
            "recorded_at": event.recorded_at,
            "content_sha256": content_sha256 if content_sha256 is not None else event.content_sha256,
            "id_scheme": EVENT_ID_SCHEME,
        }
        if event.channel is not None:
            values["channel"] = event.channel
        if event.expires_at is not None:
            values["expires_at"] = event.expires_at
        if event.visibility is not None:
            values["visibility"] = event.visibility
        return cls.model_construct(**values) if trusted else cls(**values)


class ExtractionResult(Contract):
    """One event's extraction outcome: the EXTRACTION_VALIDATED journal record."""

    schema_version: Literal[1] = 1
    event: EventRef
    extractor: str
    extractor_version: str
    model: str | None = None
    grounding_policy_version: str
    source_hash: str
    claims: tuple[Claim, ...] = ()
    rejected: tuple[RejectedClaim, ...] = ()
    status: Literal["ok", "failed"] = "ok"
    error_category: str | None = None

    @property
    def input_id(self) -> str:
        return self.event.input_id
