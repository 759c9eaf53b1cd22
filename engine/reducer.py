"""The single writer of epistemic state: ``apply(store, input) -> ApplyResult``.

Deterministic by construction: ids are UUIDv5 of the input id and an index,
times come from the input, and iteration over candidates is sorted. Applying
the same inputs in the same order to an empty store yields byte-identical
operations.

Rejections are *journaled*, not thrown: a command that breaks a rule produces
one ``COMMAND_REJECTED`` operation whose payload names the typed error (class
and stable code). That keeps the stream processor free of exception plumbing,
makes a rejected command's id "seen" (redelivery is a no-op), and lets a
request-id retry return the original rejection even after a restart. Callers
that want an exception call :meth:`ApplyResult.raise_for_error`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from typing import Any

from engine.canonical_fast import encoded_json, fast_derive_id
from engine.confidence import penalty_step, reinforce_step
from engine.config import DEFAULT_CONFIG, EngineConfig
from engine.emitter import Emitter
from engine.event_identity import event_status
from engine.normalize import normalize_text
from engine.results import ApplyResult, Outcome
from engine.rules import check_epistemic, check_lifecycle
from engine.snapshots import construct, derive_node, scope_of
from engine.store import StateStore, claim_key
from schemas.canonical import canonical_json, sha256_hex
from schemas.claims import Claim, EventRef, ExtractionResult
from schemas.commands import (
    COMMANDS,
    ArchiveCommand,
    CommandBase,
    ContradictCommand,
    DeprecateCommand,
    EpistemicTransitionCommand,
    EvaluateConditionCommand,
    PenalizeCommand,
    PromoteCommand,
    ReinforceCommand,
    ResolveContradictionCommand,
)
from schemas.common import ActorRef
from schemas.enums import (
    ACTIVE_LIFECYCLE_STATES,
    NEGATIVE_SIGNALS,
    POSITIVE_SIGNALS,
    ActorType,
    ConditionState,
    EdgeType,
    EpistemicType,
    LifecycleState,
    NodeType,
    OpType,
    Polarity,
    SignalType,
    SourceType,
    TargetType,
    TemporalIntent,
    TriggerType,
)
from schemas.errors import (
    EpistreamError,
    EventIdConflict,
    IntegrityError,
    NodeNotFound,
    NotFound,
    RequestIdConflict,
    RuleViolation,
    ScopeMismatch,
)
from schemas.nodes import ConditionEvaluation, Edge, MemoryNode
from schemas.roles import actor_type_for_role, source_type_for_role

E = EpistemicType
L = LifecycleState

#: Claims that may retire or contest others (PRME-FACTS §8.2 rule 9).
AUTHORITATIVE_TYPES = frozenset({E.OBSERVED, E.ASSERTED})
#: A speculative or conditional claim is never contested by a plain opposite claim.
NON_FACTUAL_TYPES = frozenset({E.HYPOTHETICAL, E.CONDITIONAL})
REASSERTION_SIGNAL = "REASSERTED_REJECTED"
_OPPOSITE = {Polarity.POSITIVE: Polarity.NEGATIVE, Polarity.NEGATIVE: Polarity.POSITIVE}


def _rfc0002_fields(delta: float, new_confidence: float, new_salience: float) -> dict[str, float]:
    """The RFC-0002 §6 names of a REINFORCE record (PRME-FACTS §5.3), next to the RFC-0008 ones.

    Readers written against either RFC find their fields. ``delta`` is the weight
    actually applied (γ_effective), as PENALTY's ``delta`` is the weight δ.
    """
    return {"delta": delta, "new_confidence": new_confidence, "new_salience": new_salience}


def session_key(command: CommandBase) -> str:
    """Bucket for the per-session cap; without a session id, the UTC day of issue.

    One shared bucket for every session-less signal would cap an object's
    lifetime γ at 0.40; no bucket at all would let confidence run away.
    """
    return command.session_id or f"day:{command.issued_at.date().isoformat()}"


def request_fingerprint(command: CommandBase) -> str:
    return sha256_hex(canonical_json(command.content_fingerprint()))


@lru_cache(maxsize=4096)
def _actor(actor_id: str, actor_type: ActorType) -> ActorRef:
    """ActorRefs are immutable; sharing them avoids re-validation per input."""
    return ActorRef(actor_id=actor_id, actor_type=actor_type)


def _is_active(node: MemoryNode) -> bool:
    return node.lifecycle in ACTIVE_LIFECYCLE_STATES and node.epistemic_type is not E.DEPRECATED


def _changed(node: MemoryNode, at: datetime, **changes: Any) -> MemoryNode:
    """Copy with changes; every change bumps ``version`` (OpenSearch external version)."""
    changes["version"] = node.version + 1
    changes["updated_at"] = max(at, node.updated_at)
    return derive_node(node, changes)


def _sort_key(node: MemoryNode) -> tuple[datetime, datetime, str]:
    return (node.valid_from, node.created_at, node.node_id)


class Reducer:
    def __init__(self, config: EngineConfig = DEFAULT_CONFIG) -> None:
        self.config = config
        # The config is frozen: its creation lookups are tables, read once per claim.
        self._cells = {et: {st: config.starting_confidence(et, st) for st in SourceType} for et in E}
        self._decay = {et: {nt: config.decay_profile(et, nt) for nt in NodeType} for et in E}
        # One handler per registered command (schemas.commands.COMMANDS, the table the CLI and the API
        # are generated from), named after its wire name: a command no entry point offers has none.
        self._handlers: dict[type[CommandBase], Callable[[StateStore, Any, Emitter], None]] = {
            spec.model: getattr(self, f"_{spec.command}") for spec in COMMANDS
        }

    # ------------------------------------------------------------------ entry
    def apply(self, store: StateStore, item: ExtractionResult | CommandBase) -> ApplyResult:
        """One input's operations, folded into ``store``; if the input fails part-way, none of them stay.

        Rule breaks are journaled as operations, not raised; what raises is a broken invariant or a
        bug, and the caller then dead-letters the input (stream) or reports it (embedded). Either
        way the store must remain the fold of the published log, hence the transaction.
        """
        with store.transaction():
            if isinstance(item, ExtractionResult):
                return self._apply_extraction(store, item)
            return self._apply_command(store, item)

    # ------------------------------------------------------------ extraction
    def _apply_extraction(self, store: StateStore, result: ExtractionResult) -> ApplyResult:
        input_id = result.input_id
        event = result.event
        status, known = event_status(store, event, event.event_id, event.content_sha256)
        if status == "new" and store.has_seen(input_id):
            status, known = "duplicate", input_id
        if status == "duplicate":
            return ApplyResult(Outcome(status="duplicate", input_id=known))
        if status == "conflict":
            return ApplyResult(Outcome(
                status="rejected", input_id=input_id, error_code=EventIdConflict.code,
                error_class=EventIdConflict.__name__,
                error_message="this event id was used in this stream for different content",
            ))  # fmt: skip
        em = Emitter(store, input_id=input_id, scope=scope_of(event), occurred_at=event.recorded_at)
        extractor = _actor(f"extractor:{result.extractor}", ActorType.SYSTEM_PROCESS)
        payload, payload_text = encoded_json(result)  # the journal's record is the same text
        em.emit(
            OpType.EXTRACTION_VALIDATED,
            event.event_id,
            extractor,
            payload,
            policy_version=result.grounding_policy_version,
            target_type=TargetType.EVENT,
            evidence_ids=(event.event_id,),
            payload_text=payload_text,
        )
        skipped: list[int] = []
        if result.status == "ok":
            # the speaker's id as the platform gives it, else its display name, else the role
            speaker = _actor(event.speaker_id or event.speaker or event.role.value, actor_type_for_role(event.role))
            for index, claim in enumerate(result.claims):
                try:
                    self._check_creatable(claim)
                except RuleViolation:
                    skipped.append(index)
                    continue
                self._create(store, em, result, index, claim, speaker)
        return ApplyResult.of_operations(input_id, None, em.ops, tuple(skipped))

    @staticmethod
    def _check_creatable(claim: Claim) -> None:
        """Re-check creation rules: inputs may come from a constructed (unvalidated) model."""
        if claim.epistemic_type is E.DEPRECATED:
            raise RuleViolation("DEPRECATED cannot be assigned at creation", code="deprecated_at_creation")
        has_condition = bool((claim.condition or "").strip())
        if claim.epistemic_type is E.CONDITIONAL and not has_condition:
            raise RuleViolation("CONDITIONAL claims need condition text", code="condition_required")
        if claim.epistemic_type is not E.CONDITIONAL and has_condition:
            raise RuleViolation("only CONDITIONAL claims carry a condition", code="condition_not_allowed")

    def _create(
        self, store: StateStore, em: Emitter, result: ExtractionResult, index: int, claim: Claim, speaker: ActorRef
    ) -> None:
        cfg = self.config
        event: EventRef = result.event
        node_id = fast_derive_id(em.input_id, "node", index)
        et = claim.epistemic_type
        st = claim.source_type or source_type_for_role(event.role)
        cell = self._cells[et][st]
        key = claim_key(event, claim.subject, claim.predicate)
        obj_n = normalize_text(claim.object)
        rejected_id = store.find_rejected((*key, obj_n, claim.polarity.value))
        valid_from = event.occurred_at
        at = event.recorded_at

        retire: list[MemoryNode] = []
        contest: list[MemoryNode] = []
        valid_to: datetime | None = None
        if rejected_id is None:
            named = {obj_n}
            if claim.replaces_object is not None:
                named.add(normalize_text(claim.replaces_object))
            # Only claims of these objects can be superseded or contested by this one.
            active = store.find_active_values(key, named)
            if len(active) > 1:
                active = sorted(active, key=_sort_key)
            blocked: set[str] = set()
            for target in self._supersede_targets(claim, obj_n, active) if active else ():
                if target.valid_from > valid_from:
                    # An older event never retires a newer claim; the late update
                    # only held until the newer claim began.
                    blocked.add(target.node_id)
                    valid_to = target.valid_from if valid_to is None else min(valid_to, target.valid_from)
                elif target.lifecycle in (L.TENTATIVE, L.STABLE):
                    retire.append(target)
            if active and et in AUTHORITATIVE_TYPES and claim.polarity in _OPPOSITE:
                opposite = _OPPOSITE[claim.polarity]
                taken = blocked | {n.node_id for n in retire}
                contest = [
                    n
                    for n in active
                    if n.node_id not in taken
                    and n.polarity is opposite
                    and n.epistemic_type not in NON_FACTUAL_TYPES
                    and normalize_text(n.object) == obj_n
                ]

        if cell is None:
            em.emit(
                OpType.CONFIDENCE_MATRIX_WARNING,
                node_id,
                speaker,
                {
                    "epistemic_type": et.value,
                    "source_type": st.value,
                    "fallback_confidence": cfg.fallback_confidence,
                    "reason": "combination_should_not_occur",
                },
                policy_version=cfg.policy_version,
                evidence_ids=(event.event_id,),
            )
        confidence = cfg.fallback_confidence if cell is None else cell
        conditional = et is E.CONDITIONAL
        metadata: dict[str, Any] = dict(claim.metadata)
        if claim.replaces_object is not None:
            metadata["replaces_object"] = claim.replaces_object
        if claim.quantity is not None:
            metadata["quantity"] = claim.quantity.model_dump(mode="json")
        if claim.suggested_scope is not None:
            metadata["suggested_scope"] = claim.suggested_scope
        fields: dict[str, Any] = {
            "tenant_id": event.tenant_id,
            "owner_id": event.owner_id,
            "scope": event.scope,
            "scope_id": event.scope_id,
            "schema_version": 1,
            "node_id": node_id,
            "version": 1,
            "node_type": claim.node_type,
            "subject": claim.subject,
            "predicate": claim.predicate,
            "object": claim.object,
            "polarity": claim.polarity,
            "content": claim.claim_text or claim.evidence_quote,
            "epistemic_type": et,
            "source_type": st,
            "confidence": confidence,
            "salience": cfg.initial_salience,
            "lifecycle": L.CONTESTED if contest else L.TENTATIVE,
            "decay_profile": self._decay[et][claim.node_type],
            "condition": (claim.condition or "").strip() if conditional else None,
            "condition_state": ConditionState.UNKNOWN if conditional else None,
            "condition_evaluation": None,
            "temporal_intent": claim.temporal_intent,
            "evidence_refs": (event.event_id,),
            "evidence_quote": claim.evidence_quote,
            "evidence_span": claim.evidence_span,
            "asserted_by": speaker,
            "role": event.role,
            "speaker": event.speaker,
            "session_id": event.session_id,
            "conversation_id": event.conversation_id,
            "valid_from": valid_from,
            "valid_to": valid_to,
            "event_dates": claim.event_dates,
            "recorded_at": at,
            "created_at": at,
            "updated_at": at,
            "last_reinforced_at": at,
            "superseded_by": None,
            "supersedes": tuple(n.node_id for n in retire),
            "contradicts": tuple(n.node_id for n in contest),
            "previously_rejected": rejected_id,
            "reinforcement_count": 0,
            "signal_counts": {},
            "session_gamma": {},
            "classification_confidence": claim.classification_confidence,
            "extractor": result.extractor,
            "grounding_method": claim.grounding_method,
            "metadata": metadata,
        }
        node = construct(MemoryNode, fields)
        em.emit(
            OpType.ASSERT,
            node_id,
            speaker,
            {
                "object_type": claim.node_type.value,
                "epistemic_type": et.value,
                "source_type": st.value,
                "evidence_ids": [event.event_id],
                "value": {
                    "subject": claim.subject,
                    "predicate": claim.predicate,
                    "object": claim.object,
                    "polarity": claim.polarity.value,
                },
                "confidence": confidence,
                "salience": node.salience,
                "claim_index": index,
                "matrix_cell": cell is not None,
                "previously_rejected": rejected_id,
            },
            policy_version=cfg.policy_version,
            after=node,
            evidence_ids=(event.event_id,),
        )
        for old in retire:
            edge = em.new_edge(
                EdgeType.SUPERSEDES, node_id, old.node_id, speaker, at=at, valid_from=valid_from,
                provenance_event_id=event.event_id,
            )
            after = _changed(
                old, at, lifecycle=L.SUPERSEDED, superseded_by=node_id,
                valid_to=valid_from if old.valid_to is None else min(old.valid_to, valid_from),
            )
            em.emit(
                OpType.SUPERSEDENCE_APPLIED,
                old.node_id,
                speaker,
                {
                    "policy": cfg.supersedence_policy,
                    "new_object_id": node_id,
                    "old_object_id": old.node_id,
                    "edge_id": edge.edge_id,
                    "reason": "negative_update" if claim.replaces_object is None else "explicit_update",
                    "expected_lifecycle": old.lifecycle.value,
                },
                policy_version=cfg.supersedence_policy,
                before=old,
                after=after,
                edge=edge,
                evidence_ids=(event.event_id,),
            )
        for old in contest:
            edge = em.new_edge(
                EdgeType.CONTRADICTS, node_id, old.node_id, speaker, at=at, valid_from=valid_from,
                provenance_event_id=event.event_id,
            )
            after = _changed(old, at, lifecycle=L.CONTESTED, contradicts=(*old.contradicts, node_id))
            em.emit(
                OpType.CONTRADICTION_NOTED,
                old.node_id,
                speaker,
                {
                    "object_id_a": node_id,
                    "object_id_b": old.node_id,
                    "edge_id": edge.edge_id,
                    "conflict_description": "same subject, predicate and object with opposite polarity",
                    "detected_by": "claim_creation",
                },
                policy_version=cfg.policy_version,
                before=old,
                after=after,
                edge=edge,
                evidence_ids=(event.event_id,),
            )
        if rejected_id is not None:
            self._flag_reassertion(em, node, rejected_id, speaker, at, valid_from, event.event_id)

    @staticmethod
    def _supersede_targets(claim: Claim, obj_n: str, active: list[MemoryNode]) -> list[MemoryNode]:
        """Which active claims an explicit update names (empty unless rule 9 holds)."""
        if claim.temporal_intent is not TemporalIntent.UPDATE or claim.epistemic_type not in AUTHORITATIVE_TYPES:
            return []
        if claim.replaces_object is not None:
            named = normalize_text(claim.replaces_object)
            return [
                n
                for n in active
                if normalize_text(n.object) == named
                and n.polarity is not Polarity.UNKNOWN
                and not (named == obj_n and n.polarity is claim.polarity)
            ]
        if claim.polarity is Polarity.NEGATIVE:
            return [n for n in active if n.polarity is Polarity.POSITIVE and normalize_text(n.object) == obj_n]
        return []

    def _flag_reassertion(
        self,
        em: Emitter,
        node: MemoryNode,
        rejected_id: str,
        actor: ActorRef,
        at: datetime,
        valid_from: datetime,
        event_id: str,
    ) -> None:
        """Re-assertion guard: repeating a rejected value is linked and penalised, never fresh."""
        cfg = self.config
        edge = em.new_edge(
            EdgeType.RELATES_TO, node.node_id, rejected_id, actor, at=at, valid_from=valid_from,
            provenance_event_id=event_id, relation_label="reasserts_rejected",
        )
        em.emit(
            OpType.REASSERTION_FLAGGED,
            node.node_id,
            actor,
            {"previously_rejected": rejected_id, "edge_id": edge.edge_id, "reason": "matches_rejected_claim"},
            policy_version=cfg.policy_version,
            edge=edge,
            evidence_ids=(event_id,),
        )
        step = penalty_step(
            cfg, delta=cfg.reassertion_delta, confidence=node.confidence, salience=node.salience, corrected=False
        )
        after = _changed(node, at, confidence=step.confidence_after, salience=step.salience_after)
        em.emit(
            OpType.PENALTY,
            node.node_id,
            actor,
            {
                "signal_type": REASSERTION_SIGNAL,
                "delta": step.delta,
                "delta_effective": step.delta,
                "correlation_discount_applied": False,
                "confidence_before": step.confidence_before,
                "confidence_after": step.confidence_after,
                "salience_before": step.salience_before,
                "salience_after": step.salience_after,
                "session_id": node.session_id,
                "session_gamma_total": 0.0,
                "signal_source": "reassertion_guard",
                "policy_version": cfg.confidence_policy,
                "reason": "matches_rejected_claim",
                "previously_rejected": rejected_id,
                "new_confidence": step.confidence_after,
            },
            policy_version=cfg.confidence_policy,
            before=node,
            after=after,
            evidence_ids=(event_id,),
        )

    # -------------------------------------------------------------- commands
    def _apply_command(self, store: StateStore, cmd: CommandBase) -> ApplyResult:
        input_id = cmd.input_id
        fingerprint: str | None = None
        conflict = False
        if cmd.request_id is not None:
            fingerprint = request_fingerprint(cmd)
            record = store.request_record((cmd.tenant_id, cmd.owner_id, cmd.request_id))
            if record is not None:
                if record.fingerprint == fingerprint:
                    return ApplyResult(record.outcome().model_copy(update={"retried": True}))
                conflict = True
        if store.has_seen(input_id):
            if conflict:
                # Same command id, same request id, different content: a conflict, not a redelivery.
                # Nothing is journaled (the input id is taken); the caller gets the typed rejection.
                return ApplyResult(
                    Outcome(
                        status="rejected",
                        input_id=input_id,
                        request_id=cmd.request_id,
                        error_code=RequestIdConflict.code,
                        error_class=RequestIdConflict.__name__,
                        error_message="request id was already used with different content",
                    )
                )
            return ApplyResult(Outcome(status="duplicate", input_id=input_id, request_id=cmd.request_id))
        em = Emitter(
            store,
            input_id=input_id,
            scope=scope_of(cmd),
            occurred_at=cmd.issued_at,
            request_id=cmd.request_id,
            request_fingerprint=None if conflict else fingerprint,
        )
        try:
            if conflict:
                raise RequestIdConflict("request id was already used with different content")
            handler = self._handlers.get(type(cmd))
            if handler is None:
                raise RuleViolation("unsupported command", code="unsupported_command")
            handler(store, cmd, em)
        except EpistreamError as exc:
            if em.ops:
                raise IntegrityError("command failed after emitting operations", input_id=input_id) from exc
            em.emit(
                OpType.COMMAND_REJECTED,
                self._primary_target(cmd),
                cmd.actor,
                {
                    "command": str(getattr(cmd, "command", type(cmd).__name__)),
                    "code": exc.code,
                    "error_class": type(exc).__name__,
                    "message": exc.message,
                    "details": {k: str(v) for k, v in sorted(exc.details.items())},
                },
                policy_version=self.config.policy_version,
                evidence_ids=tuple(cmd.evidence_ids),
            )
        return ApplyResult.of_operations(input_id, cmd.request_id, em.ops)

    @staticmethod
    def _primary_target(cmd: CommandBase) -> str:
        for attr in ("node_id", "node_a", "winner_id"):
            value = getattr(cmd, attr, None)
            if isinstance(value, str):
                return value
        return cmd.input_id

    @staticmethod
    def _target(store: StateStore, cmd: CommandBase, node_id: str) -> MemoryNode:
        """Another owner's or scope's node is reported as not found (no existence leak)."""
        node = store.get_node(node_id)
        if node is None or not node.same_scope(cmd):
            raise NodeNotFound("node not found in this scope", node_id=node_id)
        return node

    @staticmethod
    def _check_evidence(store: StateStore, cmd: CommandBase) -> None:
        """Evidence is an event of the command's own stream; another owner's is not found (no id oracle)."""
        for event_id in cmd.evidence_ids:
            seen = store.owner_events(cmd.tenant_id, cmd.owner_id, event_id)
            if not seen:
                raise NotFound("evidence event not found", code="evidence_not_found", event_id=event_id)
            if not any(e.scope.same_scope(cmd) for e in seen):
                raise ScopeMismatch("evidence belongs to a different scope", event_id=event_id)

    @staticmethod
    def _require_active(node: MemoryNode) -> None:
        if not _is_active(node):
            raise RuleViolation(
                "node is not active", code="node_not_active", node_id=node.node_id, lifecycle=node.lifecycle.value
            )

    def _reinforce(self, store: StateStore, cmd: ReinforceCommand, em: Emitter) -> None:
        cfg = self.config
        node = self._target(store, cmd, cmd.node_id)
        if cmd.signal not in POSITIVE_SIGNALS and cmd.signal is not SignalType.UNUSED:
            raise RuleViolation("reinforce needs a positive signal", code="signal_kind_mismatch")
        self._check_evidence(store, cmd)
        if node.epistemic_type is E.DEPRECATED:
            raise RuleViolation("DEPRECATED claims cannot be reinforced", code="deprecated_not_reinforceable")
        self._require_active(node)
        if node.epistemic_type is E.CONDITIONAL and node.condition_state is not ConditionState.TRUE:
            raise RuleViolation("a CONDITIONAL claim is reinforced only while its condition is TRUE",
                                code="condition_not_true")
        session = session_key(cmd)
        base = {
            "signal_type": cmd.signal.value,
            "session_id": cmd.session_id,
            "session_key": session,
            "signal_source": cmd.signal_source or cmd.actor.actor_id,
            "policy_version": cfg.confidence_policy,
        }
        if cmd.signal is SignalType.UNUSED:
            em.emit(
                OpType.REINFORCE,
                node.node_id,
                cmd.actor,
                {
                    **base,
                    "gamma": 0.0,
                    "gamma_effective": 0.0,
                    "correlation_discount_applied": False,
                    "confidence_before": node.confidence,
                    "confidence_after": node.confidence,
                    "salience_before": node.salience,
                    "salience_after": node.salience,
                    "session_gamma_total": node.session_gamma.get(session, 0.0),
                    "no_change": True,
                    **_rfc0002_fields(0.0, node.confidence, node.salience),
                },
                policy_version=cfg.confidence_policy,
                evidence_ids=tuple(cmd.evidence_ids),
            )
            return
        counter = f"{cmd.actor.actor_id}|{cmd.signal.value}"
        overlap = bool(set(cmd.evidence_ids) & set(node.evidence_refs)) if cmd.evidence_ids else None
        step = reinforce_step(
            cfg,
            epistemic_type=node.epistemic_type,
            signal=cmd.signal,
            confidence=node.confidence,
            salience=node.salience,
            previous_repeats=node.signal_counts.get(counter, 0),
            session_gamma_used=node.session_gamma.get(session, 0.0),
            evidence_overlap=overlap,
        )
        refs = node.evidence_refs + tuple(e for e in cmd.evidence_ids if e not in node.evidence_refs)
        after = _changed(
            node,
            cmd.issued_at,
            confidence=step.confidence_after,
            salience=step.salience_after,
            reinforcement_count=node.reinforcement_count + 1,
            last_reinforced_at=max(node.last_reinforced_at, cmd.issued_at),
            signal_counts={**node.signal_counts, counter: step.repeat_index},
            session_gamma={**node.session_gamma, session: step.session_gamma_total},
            evidence_refs=refs,
        )
        em.emit(
            OpType.REINFORCE,
            node.node_id,
            cmd.actor,
            {
                **base,
                "gamma": step.gamma,
                "gamma_effective": step.gamma_effective,
                "repeat_index": step.repeat_index,
                "correlation_discount_applied": step.correlation_discount_applied,
                "independence": step.independence,
                "confidence_before": step.confidence_before,
                "confidence_after": step.confidence_after,
                "salience_before": step.salience_before,
                "salience_after": step.salience_after,
                "session_gamma_total": step.session_gamma_total,
                "session_cap_truncated": step.cap_truncated,
                "ceiling": step.ceiling,
                **_rfc0002_fields(step.gamma_effective, step.confidence_after, step.salience_after),
            },
            policy_version=cfg.confidence_policy,
            before=node,
            after=after,
            evidence_ids=tuple(cmd.evidence_ids),
        )

    def _penalize(self, store: StateStore, cmd: PenalizeCommand, em: Emitter) -> None:
        cfg = self.config
        node = self._target(store, cmd, cmd.node_id)
        if cmd.signal not in NEGATIVE_SIGNALS:
            raise RuleViolation("penalize needs a negative signal", code="signal_kind_mismatch")
        self._check_evidence(store, cmd)
        self._require_active(node)
        step = penalty_step(
            cfg,
            delta=cfg.signal_weights.get(cmd.signal, 0.0),
            confidence=node.confidence,
            salience=node.salience,
            corrected=cmd.signal is SignalType.CORRECTED,
        )
        after = _changed(node, cmd.issued_at, confidence=step.confidence_after, salience=step.salience_after)
        em.emit(
            OpType.PENALTY,
            node.node_id,
            cmd.actor,
            {
                "signal_type": cmd.signal.value,
                "delta": step.delta,
                "delta_effective": step.delta,
                "correlation_discount_applied": False,
                "confidence_before": step.confidence_before,
                "confidence_after": step.confidence_after,
                "salience_before": step.salience_before,
                "salience_after": step.salience_after,
                "floor": step.floor,
                "session_id": cmd.session_id,
                "session_gamma_total": node.session_gamma.get(session_key(cmd), 0.0),
                "signal_source": cmd.signal_source or cmd.actor.actor_id,
                "policy_version": cfg.confidence_policy,
                "reason": cmd.reason,
                "new_confidence": step.confidence_after,
            },
            policy_version=cfg.confidence_policy,
            before=node,
            after=after,
            evidence_ids=tuple(cmd.evidence_ids),
        )

    @staticmethod
    def _active_contradiction(store: StateStore, a: str, b: str) -> Edge | None:
        for edge in store.edges_of(a):
            if edge.edge_type is EdgeType.CONTRADICTS and edge.active and {edge.source_id, edge.target_id} == {a, b}:
                return edge
        return None

    def _contradict(self, store: StateStore, cmd: ContradictCommand, em: Emitter) -> None:
        if cmd.node_a == cmd.node_b:
            raise RuleViolation("a claim cannot contradict itself", code="self_contradiction")
        a = self._target(store, cmd, cmd.node_a)
        b = self._target(store, cmd, cmd.node_b)
        self._check_evidence(store, cmd)
        for node in (a, b):
            self._require_active(node)
            if node.lifecycle is not L.CONTESTED:
                check_lifecycle(node.lifecycle, L.CONTESTED)
        if self._active_contradiction(store, a.node_id, b.node_id) is not None:
            raise RuleViolation("claims already contradict each other", code="already_contradicted")
        at = cmd.issued_at
        edge = em.new_edge(EdgeType.CONTRADICTS, a.node_id, b.node_id, cmd.actor, at=at, valid_from=at)
        payload = {
            "object_id_a": a.node_id,
            "object_id_b": b.node_id,
            "edge_id": edge.edge_id,
            "conflict_description": cmd.description or cmd.reason or "explicit contradiction",
            "detected_by": "command",
        }
        evidence = tuple(cmd.evidence_ids)
        for node, node_edge in ((a, edge), (b, None)):
            other = b.node_id if node is a else a.node_id
            after = _changed(node, at, lifecycle=L.CONTESTED, contradicts=(*node.contradicts, other))
            em.emit(
                OpType.CONTRADICTION_NOTED, node.node_id, cmd.actor, payload,
                policy_version=self.config.policy_version, before=node, after=after, edge=node_edge,
                evidence_ids=evidence,
            )

    def _resolve_contradiction(self, store: StateStore, cmd: ResolveContradictionCommand, em: Emitter) -> None:
        if cmd.winner_id == cmd.loser_id:
            raise RuleViolation("winner and loser must differ", code="self_contradiction")
        winner = self._target(store, cmd, cmd.winner_id)
        loser = self._target(store, cmd, cmd.loser_id)
        self._check_evidence(store, cmd)
        edge = self._active_contradiction(store, winner.node_id, loser.node_id)
        if edge is None:
            raise RuleViolation("claims are not in an open contradiction", code="not_contradicting")
        other_open = any(
            e.edge_type is EdgeType.CONTRADICTS and e.active and e.edge_id != edge.edge_id
            for e in store.edges_of(winner.node_id)
        )
        winner_state = L.CONTESTED if other_open else L.STABLE
        if winner_state is not winner.lifecycle:
            check_lifecycle(winner.lifecycle, winner_state)
        check_lifecycle(loser.lifecycle, L.DEPRECATED, explicit_deprecation=True)
        check_epistemic(loser.epistemic_type, E.DEPRECATED)
        at = cmd.issued_at
        cfg = self.config
        evidence = tuple(cmd.evidence_ids)
        common = {
            "reason": cmd.reason or "contradiction_resolved",
            "evidence_ids": list(evidence),
            "triggered_by": cmd.actor.actor_id,
            "trigger_type": TriggerType.USER_CORRECTION.value,
            "winner_id": winner.node_id,
            "loser_id": loser.node_id,
        }
        em.emit(
            OpType.EPISTEMIC_TRANSITION, winner.node_id, cmd.actor,
            {**common, "from_type": winner.epistemic_type.value, "to_type": winner.epistemic_type.value,
             "from_lifecycle": winner.lifecycle.value, "to_lifecycle": winner_state.value},
            policy_version=cfg.policy_version, before=winner,
            after=_changed(winner, at, lifecycle=winner_state), evidence_ids=evidence,
        )
        em.emit(
            OpType.EPISTEMIC_TRANSITION, loser.node_id, cmd.actor,
            {**common, "from_type": loser.epistemic_type.value, "to_type": E.DEPRECATED.value,
             "from_lifecycle": loser.lifecycle.value, "to_lifecycle": L.DEPRECATED.value},
            policy_version=cfg.policy_version, before=loser,
            after=_changed(loser, at, lifecycle=L.DEPRECATED, epistemic_type=E.DEPRECATED,
                           decay_profile=cfg.decay_profile(E.DEPRECATED, loser.node_type)),
            evidence_ids=evidence,
        )
        closed = edge.model_copy(update={"active": False, "valid_to": at})
        em.emit(
            OpType.CONTRADICTION_RESOLVED, edge.edge_id, cmd.actor,
            {"winner_id": winner.node_id, "loser_id": loser.node_id, "resolved_by": cmd.actor.actor_id,
             "resolved_by_type": cmd.actor.actor_type.value, "reason": cmd.reason, "edge_id": edge.edge_id},
            policy_version=cfg.policy_version, edge=closed, target_type=TargetType.EDGE, evidence_ids=evidence,
        )

    def _evaluate_condition(self, store: StateStore, cmd: EvaluateConditionCommand, em: Emitter) -> None:
        cfg = self.config
        node = self._target(store, cmd, cmd.node_id)
        if node.epistemic_type is not E.CONDITIONAL:
            raise RuleViolation("only CONDITIONAL claims have a condition", code="not_conditional")
        self._require_active(node)
        self._check_evidence(store, cmd)
        evidence_id = cmd.evidence_ids[0] if cmd.evidence_ids else None
        refs = node.evidence_refs + tuple(e for e in cmd.evidence_ids if e not in node.evidence_refs)
        at = cmd.issued_at
        metadata = {
            **node.metadata,
            "condition_evaluated_at": at.isoformat(),
            "condition_evaluation_method": cmd.method.value,
            "condition_evaluated_by": cmd.actor.actor_id,
            "condition_evaluation_reason": cmd.reason,
            "condition_evaluation_evidence_id": evidence_id,
        }
        evaluation = ConditionEvaluation(
            evaluated_at=at, method=cmd.method.value, evaluated_by=cmd.actor.actor_id,
            reason=cmd.reason, evidence_id=evidence_id,
        )
        from_state = node.condition_state or ConditionState.UNKNOWN
        after = _changed(
            node, at, condition_state=cmd.state, condition_evaluation=evaluation, evidence_refs=refs, metadata=metadata
        )
        em.emit(
            OpType.EPISTEMIC_TRANSITION,
            node.node_id,
            cmd.actor,
            {
                "policy": cfg.condition_policy,
                "from_type": E.CONDITIONAL.value,
                "to_type": E.CONDITIONAL.value,
                "from_state": from_state.value,
                "to_state": cmd.state.value,
                "method": cmd.method.value,
                "reason": cmd.reason,
                "evidence_ids": list(cmd.evidence_ids),
                "triggered_by": cmd.actor.actor_id,
                "trigger_type": TriggerType.SYSTEM_EVALUATION.value,
            },
            policy_version=cfg.condition_policy,
            before=node,
            after=after,
            evidence_ids=tuple(cmd.evidence_ids),
        )

    def _epistemic_transition(self, store: StateStore, cmd: EpistemicTransitionCommand, em: Emitter) -> None:
        cfg = self.config
        node = self._target(store, cmd, cmd.node_id)
        check_epistemic(node.epistemic_type, cmd.to_type)
        self._check_evidence(store, cmd)
        lifecycle = node.lifecycle
        if cmd.to_type is E.DEPRECATED:
            check_lifecycle(node.lifecycle, L.DEPRECATED, explicit_deprecation=True)
            lifecycle = L.DEPRECATED
        else:
            self._require_active(node)
        after = _changed(
            node, cmd.issued_at, epistemic_type=cmd.to_type, lifecycle=lifecycle,
            decay_profile=cfg.decay_profile(cmd.to_type, node.node_type),
        )
        em.emit(
            OpType.EPISTEMIC_TRANSITION,
            node.node_id,
            cmd.actor,
            {
                "from_type": node.epistemic_type.value,
                "to_type": cmd.to_type.value,
                "from_lifecycle": node.lifecycle.value,
                "to_lifecycle": lifecycle.value,
                "reason": cmd.reason,
                "evidence_ids": list(cmd.evidence_ids),
                "triggered_by": cmd.actor.actor_id,
                "trigger_type": cmd.trigger_type.value,
            },
            policy_version=cfg.policy_version,
            before=node,
            after=after,
            evidence_ids=tuple(cmd.evidence_ids),
        )

    def _lifecycle(
        self, store: StateStore, cmd: CommandBase, em: Emitter, node_id: str, target: LifecycleState,
        extra: dict[str, Any] | None = None,
    ) -> None:
        cfg = self.config
        node = self._target(store, cmd, node_id)
        deprecating = target is L.DEPRECATED
        check_lifecycle(node.lifecycle, target, explicit_deprecation=deprecating)
        if deprecating:
            check_epistemic(node.epistemic_type, E.DEPRECATED)
        elif target is L.STABLE and node.epistemic_type is E.DEPRECATED:
            raise RuleViolation("a DEPRECATED claim cannot become active", code="deprecated_terminal")
        self._check_evidence(store, cmd)
        changes: dict[str, Any] = {"lifecycle": target}
        payload: dict[str, Any] = {
            "policy": cfg.lifecycle_policy,
            "from": node.lifecycle.value,
            "to": target.value,
            "reason": cmd.reason,
            "evidence_ids": list(cmd.evidence_ids),
            "triggered_by": cmd.actor.actor_id,
            "trigger": "manual",
            **(extra or {}),
        }
        if deprecating:
            changes["epistemic_type"] = E.DEPRECATED
            changes["decay_profile"] = cfg.decay_profile(E.DEPRECATED, node.node_type)
            payload["from_type"] = node.epistemic_type.value
            payload["to_type"] = E.DEPRECATED.value
            payload["deprecated_by"] = cmd.actor.actor_id
        em.emit(
            OpType.LIFECYCLE_CHANGED, node.node_id, cmd.actor, payload,
            policy_version=cfg.lifecycle_policy, before=node, after=_changed(node, cmd.issued_at, **changes),
            evidence_ids=tuple(cmd.evidence_ids),
        )

    def _promote(self, store: StateStore, cmd: PromoteCommand, em: Emitter) -> None:
        self._lifecycle(store, cmd, em, cmd.node_id, L.STABLE)

    def _archive(self, store: StateStore, cmd: ArchiveCommand, em: Emitter) -> None:
        self._lifecycle(store, cmd, em, cmd.node_id, L.ARCHIVED, {"policy_ref": cmd.policy_ref})

    def _deprecate(self, store: StateStore, cmd: DeprecateCommand, em: Emitter) -> None:
        self._lifecycle(store, cmd, em, cmd.node_id, L.DEPRECATED)


_REDUCERS: dict[int, Reducer] = {id(DEFAULT_CONFIG): Reducer(DEFAULT_CONFIG)}


def apply(
    store: StateStore, item: ExtractionResult | CommandBase, config: EngineConfig = DEFAULT_CONFIG
) -> ApplyResult:
    """Convenience entry point; reducers are cached per config object."""
    reducer = _REDUCERS.get(id(config))
    if reducer is None or reducer.config is not config:
        reducer = Reducer(config)
        if len(_REDUCERS) > 64:
            _REDUCERS.clear()
        _REDUCERS[id(config)] = reducer
    return reducer.apply(store, item)
