"""Source role -> source type and default epistemic type (PRME-FACTS §8.10).

One helper serves direct stores, raw notes and extracted claims, so the
extractors and the reducer can never disagree about who a message came from.
"""

from __future__ import annotations

from schemas.enums import ActorType, EpistemicType, NodeType, Role, SourceType

_ROLE_SOURCE: dict[Role, SourceType] = {
    Role.USER: SourceType.USER_STATED,
    Role.HUMAN: SourceType.USER_STATED,
    Role.PARTICIPANT: SourceType.USER_STATED,
    Role.ASSISTANT: SourceType.SYSTEM_INFERRED,
    Role.SYSTEM: SourceType.SYSTEM_INFERRED,
    Role.TOOL: SourceType.TOOL_OUTPUT,
}

_ROLE_ACTOR: dict[Role, ActorType] = {
    Role.USER: ActorType.HUMAN_USER,
    Role.HUMAN: ActorType.HUMAN_USER,
    Role.PARTICIPANT: ActorType.HUMAN_USER,
    Role.ASSISTANT: ActorType.AI_AGENT,
    Role.SYSTEM: ActorType.SYSTEM_PROCESS,
    Role.TOOL: ActorType.EXTERNAL_CONNECTOR,
}

OWNER_ROLES = frozenset({Role.USER, Role.HUMAN})
FIRST_PARTY_ROLES = frozenset({Role.USER, Role.HUMAN, Role.PARTICIPANT})


def source_type_for_role(role: Role | None) -> SourceType:
    """Missing or unknown roles are treated conservatively as USER_STATED."""
    if role is None:
        return SourceType.USER_STATED
    return _ROLE_SOURCE.get(role, SourceType.USER_STATED)


def actor_type_for_role(role: Role | None) -> ActorType:
    if role is None:
        return ActorType.HUMAN_USER
    return _ROLE_ACTOR.get(role, ActorType.HUMAN_USER)


def default_epistemic_type(role: Role | None, node_type: NodeType) -> EpistemicType:
    """Default type on the direct-store path when nobody classified the claim."""
    if role in (Role.ASSISTANT, Role.SYSTEM):
        return EpistemicType.INFERRED
    if node_type is NodeType.SUMMARY:
        return EpistemicType.INFERRED
    if node_type in (NodeType.EVENT, NodeType.INSTRUCTION):
        return EpistemicType.OBSERVED
    return EpistemicType.ASSERTED
