"""What a claim or an excerpt looks like to a search index: one definition for the embedded index and OpenSearch.

Both backends must find the same candidates for the same query (the retrieval parity tests
compare them), so the text each field holds, the weight of each field and the text a vector
represents are written once, here.

Excerpts are indexed in a collection of their own, as documents of the node shape (``kind`` =
``excerpt`` in the metadata): the backends' search, filters (tenant, owner, scope, time,
knowledge time) and parity then hold for them unchanged. Such a document never enters the state
store or the operation log; :func:`excerpt_of` turns it back into the :class:`~schemas.excerpts.Excerpt`.
"""

from __future__ import annotations

from typing import Final

from extractors.dates import describe
from schemas.canonical import sha256_hex
from schemas.common import ActorRef
from schemas.enums import (
    DecayProfile,
    EpistemicType,
    LifecycleState,
    NodeType,
    Role,
)
from schemas.excerpts import Excerpt
from schemas.nodes import MemoryNode
from schemas.roles import actor_type_for_role, source_type_for_role

#: The analysed text fields of a document, matched lexically (BM25). ``context`` holds who said it
#: and the dates it refers to, in words, so "when did Maya…" meets what Maya said.
TEXT_FIELDS: Final = ("content", "subject", "object", "condition", "context")
#: Field weights: content weighs double, it is the whole claim and the others are parts of it.
FIELD_BOOSTS: Final = {"content": 2.0}
#: ``metadata["kind"]`` of an excerpt document.
EXCERPT_KIND: Final = "excerpt"
#: The predicate an excerpt document carries (its subject is the speaker).
SAID: Final = "said"


def excerpt_alias(alias: str) -> str:
    """The OpenSearch alias of a deployment's source excerpts, beside its node alias."""
    return f"{alias}-excerpts"


def context_text(speaker: str | None, event_dates: tuple[str, ...], predicate: str | None = None) -> str:
    """Who said it, the relation a claim states in words ("lives in"), and the dates it refers to."""
    words = [speaker] if speaker else []
    if predicate and predicate != SAID:
        words.append(predicate.replace("_", " "))
    words.extend(describe(d) for d in event_dates)
    return " ".join(words)


def lexical_texts(node: MemoryNode) -> dict[str, str]:
    """The text of each lexical field (absent fields omitted)."""
    texts = {
        "content": node.content,
        "subject": node.subject,
        "object": node.object,
        "condition": node.condition,
        "context": context_text(node.speaker, node.event_dates, node.predicate),
    }
    return {name: value for name, value in texts.items() if value}


def embedded_text(node: MemoryNode) -> str:
    """What a document's vector represents; its hash decides whether a new version is embedded again.

    An excerpt's vector is of the words said together with who said them, so a question naming the
    speaker ("what did Jon say about the trip") is near it; a claim's is of its content.
    """
    if node.metadata.get("kind") == EXCERPT_KIND:
        context = node.metadata.get("context")
        said = f"{node.speaker}: {node.content}" if node.speaker else node.content
        if isinstance(context, list) and context:
            return "\n".join([*(str(turn) for turn in context), said])
        return said
    return node.content


def embedded_text_hash(node: MemoryNode) -> str:
    return sha256_hex(embedded_text(node))


def is_excerpt(node: MemoryNode) -> bool:
    return node.metadata.get("kind") == EXCERPT_KIND


def excerpt_document(excerpt: Excerpt) -> MemoryNode:
    """The index document of an excerpt: the node shape, with what only an excerpt has in its metadata."""
    actor = ActorRef(actor_id=excerpt.speaker_id or excerpt.speaker or excerpt.role.value,
                     actor_type=actor_type_for_role(excerpt.role))  # fmt: skip
    return MemoryNode(
        tenant_id=excerpt.tenant_id,
        owner_id=excerpt.owner_id,
        scope=excerpt.scope,
        scope_id=excerpt.scope_id,
        node_id=excerpt.excerpt_id,
        version=1,
        node_type=NodeType.NOTE,
        subject=excerpt.speaker or excerpt.role.value,
        predicate=SAID,
        content=excerpt.text,
        epistemic_type=EpistemicType.OBSERVED,
        source_type=source_type_for_role(excerpt.role),
        confidence=1.0,
        salience=0.5,
        lifecycle=LifecycleState.STABLE,
        decay_profile=DecayProfile.PERMANENT,
        evidence_refs=(excerpt.event_id,),
        asserted_by=actor,
        role=excerpt.role,
        speaker=excerpt.speaker,
        session_id=excerpt.session_id,
        conversation_id=excerpt.conversation_id,
        valid_from=excerpt.occurred_at,
        event_dates=excerpt.event_dates,
        visibility=excerpt.visibility,
        recorded_at=excerpt.recorded_at,
        created_at=excerpt.recorded_at,
        updated_at=excerpt.recorded_at,
        last_reinforced_at=excerpt.recorded_at,
        metadata={"kind": EXCERPT_KIND, "speaker_id": excerpt.speaker_id, "context": list(excerpt.context)},
    )


def excerpt_of(document: MemoryNode, claim_ids: tuple[str, ...] = ()) -> Excerpt:
    speaker_id = document.metadata.get("speaker_id")
    return Excerpt(
        tenant_id=document.tenant_id,
        owner_id=document.owner_id,
        scope=document.scope,
        scope_id=document.scope_id,
        excerpt_id=document.node_id,
        event_id=document.evidence_refs[0],
        conversation_id=document.conversation_id,
        session_id=document.session_id,
        role=document.role or Role.USER,
        speaker=document.speaker,
        speaker_id=speaker_id if isinstance(speaker_id, str) else None,
        text=document.content,
        occurred_at=document.valid_from,
        recorded_at=document.recorded_at,
        event_dates=document.event_dates,
        context=tuple(str(t) for t in context) if isinstance(context := document.metadata.get("context"), list) else (),
        claim_ids=claim_ids,
        visibility=document.visibility,
    )
