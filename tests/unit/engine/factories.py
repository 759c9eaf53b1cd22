"""Small builders for engine inputs (no dependency on the extractors package)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.store import InMemoryStateStore
from schemas.claims import Claim, EventRef, ExtractionResult
from schemas.commands import (
    ArchiveCommand,
    ContradictCommand,
    DeprecateCommand,
    EpistemicTransitionCommand,
    EvaluateConditionCommand,
    PenalizeCommand,
    PromoteCommand,
    ReinforceCommand,
    ResolveContradictionCommand,
    RevalidateCommand,
)
from schemas.common import ActorRef
from schemas.enums import ActorType, EpistemicType, Polarity, Role, Scope, SignalType, TemporalIntent

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
_ids = itertools.count(1)

SCOPE: dict[str, Any] = {"tenant_id": "t1", "owner_id": "alice", "scope": Scope.PERSONAL}
USER = ActorRef(actor_id="alice", actor_type=ActorType.HUMAN_USER)
AGENT = ActorRef(actor_id="assistant-1", actor_type=ActorType.AI_AGENT)
#: A tool connector: its evaluations are objective measurements (engine.trust), an agent's are suggestions.
TOOL = ActorRef(actor_id="ledger-connector", actor_type=ActorType.EXTERNAL_CONNECTOR)


def at(days: float = 0.0, seconds: float = 0.0) -> datetime:
    return T0 + timedelta(days=days, seconds=seconds)


def next_id(prefix: str) -> str:
    return f"{prefix}{next(_ids)}"


def claim(
    subject: str = "Alice",
    predicate: str = "uses",
    obj: str | None = "Python",
    *,
    epistemic: EpistemicType = EpistemicType.ASSERTED,
    polarity: Polarity = Polarity.POSITIVE,
    **kw: Any,
) -> Claim:
    quote = kw.pop("evidence_quote", f"{subject} {predicate} {obj}")
    return Claim(
        subject=subject, predicate=predicate, object=obj, epistemic_type=epistemic, polarity=polarity,
        evidence_quote=quote, **kw,
    )


def update(subject: str, predicate: str, obj: str, replaces: str | None = None, **kw: Any) -> Claim:
    return claim(subject, predicate, obj, temporal_intent=TemporalIntent.UPDATE, replaces_object=replaces, **kw)


def event_ref(
    event_id: str | None = None,
    *,
    role: Role = Role.USER,
    occurred: datetime | None = None,
    recorded: datetime | None = None,
    session_id: str | None = "s1",
    **scope: Any,
) -> EventRef:
    occurred_at = occurred or T0
    return EventRef(
        **{**SCOPE, **scope},
        event_id=event_id or next_id("ev-"),
        session_id=session_id,
        role=role,
        occurred_at=occurred_at,
        recorded_at=recorded or occurred_at,
        content_sha256="0" * 64,
    )


def extraction(*claims: Claim, event: EventRef | None = None, **event_kw: Any) -> ExtractionResult:
    ref = event or event_ref(**event_kw)
    return ExtractionResult(
        event=ref, extractor="test", extractor_version="1", grounding_policy_version="grounding_v1",
        source_hash="0" * 64, claims=tuple(claims),
    )


def _base(kw: dict[str, Any]) -> dict[str, Any]:
    base: dict[str, Any] = {**SCOPE, "command_id": next_id("cmd-"), "actor": USER, "issued_at": T0}
    base.update(kw)
    return base


def reinforce(node_id: str, signal: SignalType = SignalType.CONFIRMED, **kw: Any) -> ReinforceCommand:
    return ReinforceCommand(**_base(kw), node_id=node_id, signal=signal)


def penalize(node_id: str, signal: SignalType = SignalType.CORRECTED, **kw: Any) -> PenalizeCommand:
    return PenalizeCommand(**_base(kw), node_id=node_id, signal=signal)


def contradict(a: str, b: str, **kw: Any) -> ContradictCommand:
    return ContradictCommand(**_base(kw), node_a=a, node_b=b)


def resolve(winner: str, loser: str, **kw: Any) -> ResolveContradictionCommand:
    return ResolveContradictionCommand(**_base(kw), winner_id=winner, loser_id=loser)


def evaluate(node_id: str, state: str, **kw: Any) -> EvaluateConditionCommand:
    return EvaluateConditionCommand(**_base(kw), node_id=node_id, state=state)


def transition(node_id: str, to_type: EpistemicType, **kw: Any) -> EpistemicTransitionCommand:
    return EpistemicTransitionCommand(**_base(kw), node_id=node_id, to_type=to_type)


def promote(node_id: str, **kw: Any) -> PromoteCommand:
    return PromoteCommand(**_base(kw), node_id=node_id)


def archive(node_id: str, **kw: Any) -> ArchiveCommand:
    return ArchiveCommand(**_base(kw), node_id=node_id)


def deprecate(node_id: str, **kw: Any) -> DeprecateCommand:
    return DeprecateCommand(**_base(kw), node_id=node_id)


def revalidate(node_id: str, expires_at: datetime, **kw: Any) -> RevalidateCommand:
    return RevalidateCommand(**_base(kw), node_id=node_id, expires_at=expires_at)


def new_store() -> InMemoryStateStore:
    return InMemoryStateStore()
