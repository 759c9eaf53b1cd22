"""Evidence kinds and who may change established context (TRUST-FACTS §2, §3), as data.

A claim's evidence kind follows who authored its words: the source event's role as the channel it
arrived through vouches for it, never the extractor that read it. A command's kind follows its actor
type as its channel vouches for it. Established context is human statements and objective
measurements; a model suggestion may never supersede, contest, resolve, promote or retire it and
stays a proposal even when its value matches an established claim.
"""

from __future__ import annotations

from types import MappingProxyType

from schemas.enums import ActorType, EvidenceKind, PrincipalKind, Role, SignalType
from schemas.errors import NotAuthoritative
from schemas.nodes import MemoryNode

H = EvidenceKind.HUMAN_STATEMENT
M = EvidenceKind.OBJECTIVE_MEASUREMENT
S = EvidenceKind.MODEL_SUGGESTION

ESTABLISHED_KINDS = frozenset({H, M})

_SPEAKER_ROLES: dict[Role, EvidenceKind] = {
    Role.USER: H, Role.HUMAN: H, Role.PARTICIPANT: H, Role.TOOL: M, Role.ASSISTANT: S, Role.SYSTEM: S,
}  # fmt: skip

#: (channel, event role) -> evidence kind. A platform's (and a person's own) declared roles are
#: trusted; an agent channel's words are model suggestions whatever role it declares. ``None`` is a
#: write from before channels (or a local operator), treated as a platform.
EVENT_EVIDENCE: MappingProxyType[PrincipalKind | None, MappingProxyType[Role, EvidenceKind]] = MappingProxyType({
    None: MappingProxyType(_SPEAKER_ROLES),
    PrincipalKind.PLATFORM: MappingProxyType(_SPEAKER_ROLES),
    PrincipalKind.HUMAN: MappingProxyType(_SPEAKER_ROLES),
    PrincipalKind.AGENT: MappingProxyType(dict.fromkeys(Role, S)),
})

_ACTORS: dict[ActorType, EvidenceKind] = {
    ActorType.HUMAN_USER: H, ActorType.EXTERNAL_CONNECTOR: M, ActorType.AI_AGENT: S, ActorType.SYSTEM_PROCESS: S,
}  # fmt: skip

#: (channel, command actor type) -> the command's evidence kind. A human channel may narrow to a
#: model's actor type, never claim a connector's measurement; an agent channel is always a model.
COMMAND_EVIDENCE: MappingProxyType[PrincipalKind | None, MappingProxyType[ActorType, EvidenceKind]] = (
    MappingProxyType({
        None: MappingProxyType(_ACTORS),
        PrincipalKind.PLATFORM: MappingProxyType(_ACTORS),
        PrincipalKind.HUMAN: MappingProxyType({**_ACTORS, ActorType.EXTERNAL_CONNECTOR: H}),
        PrincipalKind.AGENT: MappingProxyType(dict.fromkeys(ActorType, S)),
    })
)

#: Commands a model suggestion may not apply to an established claim (it would promote, resolve,
#: contest, re-type or retire it, or make an expired one current again). Reinforcement and the other
#: penalties move numbers, not the set.
GUARDED_COMMANDS = frozenset({
    "promote", "deprecate", "archive", "contradict", "resolve_contradiction", "epistemic_transition",
    "evaluate_condition", "revalidate",
})
#: Penalties that say "this is wrong": from a model they would retire a user's fact by attrition.
GUARDED_SIGNALS = frozenset({SignalType.CORRECTED, SignalType.CONTRADICTED_BY_OBSERVATION})

#: The stable code of a command a model suggestion may not apply (journaled as COMMAND_REJECTED).
NOT_AUTHORITATIVE = NotAuthoritative.code


def event_evidence_kind(channel: PrincipalKind | None, role: Role | None) -> EvidenceKind:
    """The evidence kind of a claim taken from an event of ``role`` that came through ``channel``."""
    if role is None:  # the direct-store path: the caller's own words, unless an agent wrote them
        return S if channel is PrincipalKind.AGENT else H
    return EVENT_EVIDENCE[channel][role]


def command_evidence_kind(channel: PrincipalKind | None, actor_type: ActorType) -> EvidenceKind:
    return COMMAND_EVIDENCE[channel][actor_type]


def evidence_kind_of(node: MemoryNode) -> EvidenceKind:
    """A node's kind; for a node written before evidence kinds, the kind its role gives."""
    if node.evidence_kind is not None:
        return node.evidence_kind
    return event_evidence_kind(None, node.role)


def is_established(node: MemoryNode) -> bool:
    """Human statement or objective measurement (whatever its lifecycle)."""
    return evidence_kind_of(node) in ESTABLISHED_KINDS
