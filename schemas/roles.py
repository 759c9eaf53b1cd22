"""Source role -> source type and default epistemic type (PRME-FACTS §8.10).

One helper serves direct stores, raw notes and extracted claims, so the
extractors and the reducer can never disagree about who a message came from.
"""

from __future__ import annotations

from schemas.enums import ActorType, EpistemicType, NodeType, PrincipalKind, Role, SourceType

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


#: How much authority each principal kind carries: a caller may declare a kind at most as high as
#: its channel's (TRUST-FACTS §3, "a caller may narrow its authority, never raise it").
_AUTHORITY_RANK: dict[PrincipalKind, int] = {PrincipalKind.AGENT: 0, PrincipalKind.HUMAN: 1, PrincipalKind.PLATFORM: 2}


def narrow_principal(granted: PrincipalKind, requested: PrincipalKind | str | None) -> PrincipalKind:
    """The kind a write carries: what its channel grants, or less if the caller asked for less.

    A requested kind above the granted one is ignored, never an error: a caller-supplied authority
    field changes nothing. An unknown requested value is ignored the same way.
    """
    if requested is None:
        return granted
    try:
        asked = PrincipalKind(requested)
    except ValueError:
        return granted
    return asked if _AUTHORITY_RANK[asked] < _AUTHORITY_RANK[granted] else granted


def actor_type_for_channel(channel: PrincipalKind | None, actor_type: ActorType) -> ActorType:
    """A command's actor type as its channel allows it: an agent channel is a model whatever actor it
    names, and a person's own channel cannot pass as a tool connector (whose results are measurements)."""
    if channel is PrincipalKind.AGENT and actor_type in (ActorType.HUMAN_USER, ActorType.EXTERNAL_CONNECTOR):
        return ActorType.AI_AGENT
    if channel is PrincipalKind.HUMAN and actor_type is ActorType.EXTERNAL_CONNECTOR:
        return ActorType.HUMAN_USER
    return actor_type
