"""Typed knowledge (TRUST-FACTS §5): which kind of knowledge a claim is, as data over the claim itself.

The kind is a *view* of the one evidence record, never a second store: it is derived, deterministically,
from the node's predicate (first) and its node type, so the same claim always reads as the same kind and
old logs need no migration. A task continuation capsule is the claim whose predicate is
:data:`TASK_STATE_PREDICATE`; its payload is kept in the node's metadata under :data:`CAPSULE_KEY`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from pydantic import ValidationError

from engine.normalize import normalize_predicate
from engine.store import ClaimKey, StateStore
from engine.trust import is_established
from schemas.enums import NodeType
from schemas.nodes import MemoryNode
from schemas.task_state import (
    MAX_RATIONALE,
    KnowledgeKind,
    TaskState,
    TaskStateCodes,
)

K = KnowledgeKind

#: The predicate of a task continuation capsule (subject = the task id, object = its state).
TASK_STATE_PREDICATE: Final = "task_state"
#: Where a capsule node keeps its payload (``TaskState`` as JSON).
CAPSULE_KEY: Final = "task_state"
#: The reason a ``SUPERSEDENCE_APPLIED`` of one capsule by the next gives.
CAPSULE_SUPERSESSION: Final = "explicit_capsule_supersession"

#: Predicates that decide the kind whatever the node type (normalized, see ``normalize_predicate``).
KIND_BY_PREDICATE: MappingProxyType[str, KnowledgeKind] = MappingProxyType(
    {
        TASK_STATE_PREDICATE: K.TASK_STATE,
        "error_lesson": K.ERROR_LESSON,
        "lesson": K.ERROR_LESSON,
        "lesson_learned": K.ERROR_LESSON,
        "learned_that": K.ERROR_LESSON,
        "decided": K.DECISION,
        "decided_to": K.DECISION,
        "chose": K.DECISION,
    }
)
#: Otherwise the node type decides; a type without an entry (a to-do, a note, a summary) has no kind.
KIND_BY_NODE_TYPE: MappingProxyType[NodeType, KnowledgeKind] = MappingProxyType(
    {
        NodeType.FACT: K.FACT,
        NodeType.ENTITY: K.FACT,
        NodeType.EVENT: K.FACT,
        NodeType.PREFERENCE: K.PREFERENCE,
        # "always answer in French": what the person prefers the assistant to do
        NodeType.INSTRUCTION: K.PREFERENCE,
        NodeType.DECISION: K.DECISION,
    }
)

#: The words that introduce a decision's reason in its own sentence ("…, because it supports JSONB").
_RATIONALE = re.compile(r"\b(?:because|since|so that|given that|as it|as they|due to)\b\s*", re.IGNORECASE)


#: Predicate prefixes that decide it too ("decided_to_use_postgres").
KIND_BY_PREDICATE_PREFIX: tuple[tuple[str, KnowledgeKind], ...] = (("decided_to_", K.DECISION),)


def knowledge_kind(node: MemoryNode) -> KnowledgeKind | None:
    """The claim's kind: its predicate's, else its node type's, else None (a to-do, a note, a summary)."""
    predicate = normalize_predicate(node.predicate)
    kind = KIND_BY_PREDICATE.get(predicate)
    if kind is None:
        kind = next((k for prefix, k in KIND_BY_PREDICATE_PREFIX if predicate.startswith(prefix)), None)
    return kind if kind is not None else KIND_BY_NODE_TYPE.get(node.node_type)


def decision_rationale(node: MemoryNode) -> str | None:
    """A decision's reason where its sentence gives one, bounded to ``MAX_RATIONALE`` characters.

    Read from the claim's own quoted words (what follows "because", "since", "so that"…), cut at a
    word boundary: the rationale is part of the evidence, never a model's gloss on it.
    """
    if knowledge_kind(node) is not K.DECISION:
        return None
    text = node.evidence_quote or node.content
    match = _RATIONALE.search(text)
    if match is None:
        return None
    reason = text[match.end() :].strip().rstrip(".!;").strip()
    if not reason:
        return None
    if len(reason) > MAX_RATIONALE:
        cut = reason[: MAX_RATIONALE - 1]
        reason = (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"
    return reason


def capsule_of(node: MemoryNode) -> TaskState | None:
    """The capsule a ``task_state`` claim carries; None for any other claim (or a malformed payload)."""
    if normalize_predicate(node.predicate) != TASK_STATE_PREDICATE:
        return None
    raw = node.metadata.get(CAPSULE_KEY)
    if not isinstance(raw, dict):
        return None
    try:
        return TaskState.model_validate(raw)
    except ValidationError:
        return None


def is_capsule_claim(predicate: str, metadata: Mapping[str, object]) -> bool:
    """Whether a claim being created is a task continuation capsule (its payload is in its metadata)."""
    return normalize_predicate(predicate) == TASK_STATE_PREDICATE and isinstance(metadata.get(CAPSULE_KEY), dict)


def capsule_refusal(metadata: Mapping[str, object]) -> str | None:
    """Why a capsule claim may not be created (a constructed, unvalidated input): None when it may."""
    try:
        TaskState.model_validate(metadata.get(CAPSULE_KEY))
    except ValidationError as exc:
        completion = TaskStateCodes.COMPLETION_UNVERIFIED
        return completion if completion in str(exc) else TaskStateCodes.INVALID
    return None


def capsules_superseded(
    store: StateStore, key: ClaimKey, metadata: Mapping[str, object], *, suggestion: bool
) -> list[MemoryNode]:
    """The live capsules of the task a new capsule explicitly replaces: those its ``supersedes`` lists
    by their event ids. Nothing else retires a capsule, so two established capsules of one task that
    do not name each other compete (the world view withholds both). A model suggestion retires only
    model suggestions (TRUST-FACTS §2)."""
    raw = metadata.get(CAPSULE_KEY)
    listed = raw.get("supersedes") if isinstance(raw, dict) else None
    named = {e for e in listed if isinstance(e, str)} if isinstance(listed, list | tuple) else set()
    if not named:
        return []
    out = [n for n in store.find_active(key) if named & set(n.evidence_refs) and capsule_of(n) is not None]
    if suggestion:
        out = [n for n in out if not is_established(n)]
    return sorted(out, key=lambda n: n.node_id)
