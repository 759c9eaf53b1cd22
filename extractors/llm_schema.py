"""The response schema the model must fill, and the grounding check run inside it.

Two layers of checking, on purpose:

* **Shape** (this schema): every claim must carry an evidence quote, a polarity,
  an epistemic type, a node type and the triple; CONDITIONAL claims must carry
  their condition and other claims must not. A model that leaves one out gets a
  validation error, which instructor feeds back to it for another attempt.
* **Grounding** (the shared validation layer, ``extractors.validation``): when
  the source event is passed as validation context, every claim is run through
  ``validate_claims`` one at a time, and any rejection (quote not in the source,
  mention not a whole word, hedged text typed as fact, ...) becomes a
  validation error naming the claim, the reason code and how to fix it. That is
  what turns instructor's retry loop into "the code check, not the model, has
  the last word": the model gets a bounded number of chances to comply, and
  whatever still fails is rejected by the same layer with the same reason codes.

Docstrings and ``description`` strings of the models below are sent to the
model as the tool/JSON schema, so they are written for it.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from extractors import reasons
from extractors.validation import DEFAULT_GROUNDING_METHOD, SourceText, validate_with_context
from schemas.claims import Quantity
from schemas.events import ConversationEvent

EpistemicLiteral = Literal["OBSERVED", "ASSERTED", "INFERRED", "HYPOTHETICAL", "CONDITIONAL", "UNVERIFIED"]
NodeTypeLiteral = Literal["FACT", "PREFERENCE", "DECISION", "INSTRUCTION", "TASK", "EVENT", "NOTE"]

#: Key under which the extractor passes the source event as validation context.
CONTEXT_EVENT: Final = "event"
CONTEXT_GROUNDING_METHOD: Final = "grounding_method"

#: How to fix each rejection, told to the model on retry. Unknown codes get the generic hint.
_FIX_HINTS: Final[dict[str, str]] = {
    reasons.QUOTE_NOT_IN_SOURCE: "copy evidence_quote character for character from the message",
    reasons.MENTION_NOT_WHOLE_WORD: "write subject and object exactly as the message names them (or I/we)",
    reasons.CONDITION_NOT_IN_PASSAGE: "copy the condition verbatim from the sentence that states it",
    reasons.CONDITION_NOT_TYPED_CONDITIONAL: (
        "the passage states an explicit condition: type it CONDITIONAL and copy the condition"
    ),
    reasons.CONDITION_ON_NON_CONDITIONAL: "only a CONDITIONAL claim may carry a condition",
    reasons.UNCERTAIN_CLAIM_TYPED_AS_FACT: (
        "the passage is hedged: type it HYPOTHETICAL (or CONDITIONAL with its condition)"
    ),
    reasons.SPEECH_ACT_COMPLETED_PREDICATE: (
        "the message describes an attempt, plan or wish: keep it in the predicate (e.g. trying_to_set_up), "
        "never a completed action such as uses"
    ),
    reasons.DECISION_WITHOUT_CHOICE_VERB: "it is not a decision unless the message says it was decided or chosen",
    reasons.QUESTION_NOT_CLAIM: "a question states nothing; omit it",
    reasons.UNRESOLVED_REFERENCE: (
        "name the thing itself as the message does; if the message only says it, that or them, omit the claim"
    ),
    reasons.ROLE_NOT_ADMITTED: "this speaker's message may not produce this claim; omit it",
    reasons.SECRET_VALUE: "never put a secret in a claim; omit it",
}
_GENERIC_HINT: Final = "fix the claim so the message supports it word for word, or omit it"


class LLMQuantity(BaseModel):
    """A single amount stated in the message (not a date, version, id or ordinal)."""

    model_config = ConfigDict(extra="ignore")

    value: str | int | float = Field(description="Exactly one number, e.g. 42 or -3.5 or 1,200.")
    unit: str = Field(default="1", description="The unit word as written; 1 when there is none.")
    source_text: str = Field(description="The number as it is written in the message.")


class LLMClaim(BaseModel):
    """One claim stated in the message, tied to a verbatim quote of the message."""

    model_config = ConfigDict(extra="ignore")

    evidence_quote: str = Field(
        description="A verbatim, character-for-character excerpt of the message that states the claim."
    )
    polarity: Literal["positive", "negative"] = Field(
        description="negative for does not / never / no longer / rejected / against / dislikes; else positive."
    )
    epistemic_type: EpistemicLiteral = Field(
        description=(
            "ASSERTED: stated as fact by the speaker. OBSERVED: directly witnessed or a tool result. "
            "INFERRED: restated or deduced by an assistant/system. HYPOTHETICAL: hedged (might, maybe, "
            "perhaps, possibly, could). CONDITIONAL: holds only if a stated condition holds. "
            "UNVERIFIED: hearsay."
        )
    )
    node_type: NodeTypeLiteral = Field(description="What kind of memory this is.")
    subject: str = Field(description="Who or what the claim is about, as named in the message (or I/we).")
    predicate: str = Field(description="snake_case relation, e.g. uses, works_at, prefers, trying_to_set_up.")
    object: str | None = Field(description="The value, as named in the message; null only when there is none.")
    condition: str | None = Field(
        default=None,
        description="Only for CONDITIONAL: the condition copied verbatim (e.g. 'if it rains'); otherwise null.",
    )
    temporal_intent: Literal["update", "assertion"] | None = Field(
        default=None, description="update when the message says a state changed (now, switched to, no longer)."
    )
    replaces_object: str | None = Field(
        default=None, description="For an update: the earlier value being replaced, as named in the message."
    )
    confidence: float | None = Field(default=None, ge=0.0, le=1.0, description="Your confidence, 0 to 1.")
    quantity: LLMQuantity | None = Field(default=None, description="Only when the object is one stated amount.")

    @field_validator("epistemic_type", "node_type", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("polarity", "temporal_intent", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("condition", "replaces_object", "object", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("evidence_quote", "subject", "predicate")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("quantity", mode="wrap")
    @classmethod
    def _drop_bad_quantity(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        # A malformed amount is dropped, never the claim that carries it (PRME §8.11).
        try:
            return handler(value)
        except ValidationError:
            return None

    @model_validator(mode="after")
    def _condition_matches_type(self) -> LLMClaim:
        if self.epistemic_type == "CONDITIONAL" and self.condition is None:
            raise ValueError("a CONDITIONAL claim needs `condition`, copied verbatim from the message")
        if self.epistemic_type != "CONDITIONAL" and self.condition is not None:
            raise ValueError("`condition` must be null unless epistemic_type is CONDITIONAL")
        return self

    def to_claim_dict(self) -> dict[str, Any]:
        """The proposal handed to the shared validation layer (schemas.Claim field names)."""
        data: dict[str, Any] = {
            "node_type": self.node_type,
            "subject": self.subject.strip(),
            "predicate": self.predicate.strip(),
            "object": self.object.strip() if self.object is not None else None,
            "polarity": self.polarity,
            "epistemic_type": self.epistemic_type,
            "condition": self.condition,
            "temporal_intent": self.temporal_intent,
            "replaces_object": self.replaces_object,
            "evidence_quote": self.evidence_quote,
        }
        if self.confidence is not None:
            data["classification_confidence"] = self.confidence
        if self.quantity is not None:
            quantity = _as_quantity(self.quantity)
            if quantity is not None:
                data["quantity"] = quantity
        return data


def _as_quantity(raw: LLMQuantity) -> dict[str, Any] | None:
    try:
        q = Quantity(value=str(raw.value).strip(), unit=raw.unit.strip() or "1", source_text=raw.source_text)
    except ValidationError:
        return None
    return q.model_dump(mode="json")


class ExtractedClaims(BaseModel):
    """Record every claim the message states. Return an empty list when it states none."""

    model_config = ConfigDict(extra="ignore")

    claims: list[LLMClaim] = Field(description="Claims stated in the message; [] for questions and pleasantries.")

    @model_validator(mode="after")
    def _grounded(self, info: ValidationInfo) -> ExtractedClaims:
        context = info.context if isinstance(info.context, dict) else None
        event = context.get(CONTEXT_EVENT) if context else None
        if not isinstance(event, ConversationEvent):
            return self  # shape-only parse (no source to check against)
        method = str(context.get(CONTEXT_GROUNDING_METHOD, DEFAULT_GROUNDING_METHOD)) if context else ""
        problems = grounding_problems(event, self.claims, grounding_method=method)
        if problems:
            raise ValueError("some claims are not supported by the message:\n" + "\n".join(problems))
        return self


def grounding_problems(event: ConversationEvent, claims: list[LLMClaim], *, grounding_method: str) -> list[str]:
    """One feedback line per claim the shared validation layer rejects.

    Claims are checked one at a time so each problem names its claim index.
    Lines carry reason codes and fix hints, never claim values: the model
    already has its own output, and these lines also reach error logs.
    """
    lines: list[str] = []
    source = SourceText(event.text)  # segment the message once, not once per claim
    for index, claim in enumerate(claims):
        outcome = validate_with_context(event, [claim.to_claim_dict()], source, grounding_method=grounding_method)
        for rejection in outcome.rejected:
            hint = _FIX_HINTS.get(rejection.reason_code, _GENERIC_HINT)
            lines.append(f"- claims[{index}] rejected ({rejection.reason_code}): {hint}.")
    return lines
