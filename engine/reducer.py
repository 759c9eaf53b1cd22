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
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from engine.attributes import AttributeRegistry
from engine.authority import authority_grant
from engine.canonical_fast import encoded_json, fast_derive_id
from engine.confidence import penalty_step, reinforce_step, usefulness_step
from engine.config import DEFAULT_CONFIG, EngineConfig
from engine.emitter import Emitter
from engine.event_identity import event_status
from engine.filters import condition_state_of, is_expired
from engine.knowledge import CAPSULE_SUPERSESSION, capsule_refusal, capsules_superseded, is_capsule_claim
from engine.matching import Attribute, Matcher
from engine.normalize import normalize_text, subject_root
from engine.results import ApplyResult, Outcome
from engine.rules import check_epistemic, check_lifecycle
from engine.snapshots import construct, derive_node, scope_of
from engine.store import StateStore, claim_key
from engine.trust import (
    GUARDED_COMMANDS,
    GUARDED_SIGNALS,
    NOT_AUTHORITATIVE,
    command_evidence_kind,
    event_evidence_kind,
    is_established,
)
from engine.world_rules import stale_reason
from schemas.canonical import canonical_json, sha256_hex
from schemas.claims import Claim, EventRef, ExtractionResult
from schemas.commands import (
    COMMANDS,
    ArchiveCommand,
    CommandBase,
    ContradictCommand,
    DeprecateCommand,
    EpistemicTransitionCommand,
    EraseCommand,
    EvaluateConditionCommand,
    PenalizeCommand,
    PromoteCommand,
    ReinforceCommand,
    ResolveContradictionCommand,
    RevalidateCommand,
    RevalidationCodes,
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
    EvidenceKind,
    LifecycleState,
    NodeType,
    OpType,
    Polarity,
    PrincipalKind,
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
    NotAuthoritative,
    NotFound,
    RequestIdConflict,
    RuleViolation,
    ScopeMismatch,
)
from schemas.nodes import ConditionEvaluation, Edge, MemoryNode, Revalidation
from schemas.roles import actor_type_for_role, source_type_for_role

E = EpistemicType
L = LifecycleState

#: Claims that may retire or contest others (PRME-FACTS §8.2 rule 9).
AUTHORITATIVE_TYPES = frozenset({E.OBSERVED, E.ASSERTED})
#: A speculative or conditional claim is never contested by a plain opposite claim.
NON_FACTUAL_TYPES = frozenset({E.HYPOTHETICAL, E.CONDITIONAL})
REASSERTION_SIGNAL = "REASSERTED_REJECTED"
#: Written on REVALIDATED operations (TRUST-FACTS §4).
REVALIDATION_POLICY = "explicit_revalidation_v1"
#: Registry rules that contest the old claim (the others retire it), and what CONTRADICTION_NOTED says of each.
_CONTESTING = frozenset({"polarity", "single_valued", "entailment", "presupposition", "correction_of_another"})
_CONFLICTS = {
    "polarity": "same subject, attribute and value with opposite polarity",
    "entailment": "a claim denies what the other states or entails (a general value covers a specific one)",
    "presupposition": "a claim about the subject's thing or person, and a claim that the subject has none",
    "single_valued": "another value of a single-valued attribute, stated as an assertion",
    "correction_of_another": "a correction of a claim someone else made",
}
_OPPOSITE = {Polarity.POSITIVE: Polarity.NEGATIVE, Polarity.NEGATIVE: Polarity.POSITIVE}
#: Source types that vouch for a person or a tool: an agent channel's claim never carries them.
_FIRST_HAND_SOURCES = frozenset({SourceType.USER_STATED, SourceType.USER_DEMONSTRATED, SourceType.TOOL_OUTPUT})


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


def _taste(attribute: Attribute) -> bool:
    """A like or a favourite: what one enjoys, which no change of what one uses ends."""
    return attribute.name == "likes" or attribute.implies == "likes"


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
        self._matchers: dict[int, Matcher] = {}
        self._targets: dict[type[CommandBase], tuple[str, str, tuple[str, ...]]] = {
            spec.model: (spec.command, spec.name, spec.targets) for spec in COMMANDS
        }
        # Erasure is no claim command (no node target, admin only): its entry points are its own.
        self._handlers[EraseCommand] = self._erase

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
                if self.config.trust_policy is not None and authority_grant(
                    claim.subject, claim.predicate, claim.object, claim.claim_text,
                    negative=claim.polarity is Polarity.NEGATIVE,
                ):
                    # Validation refuses these (``authority_grant``); a constructed input is refused here too.
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
        if is_capsule_claim(claim.predicate, claim.metadata):
            refusal = capsule_refusal(claim.metadata)
            if refusal is not None:  # e.g. "completed" without a measured, passed last step
                raise RuleViolation("the task continuation capsule is not valid", code=refusal)

    def _create(
        self, store: StateStore, em: Emitter, result: ExtractionResult, index: int, claim: Claim, speaker: ActorRef
    ) -> None:
        cfg = self.config
        event: EventRef = result.event
        node_id = fast_derive_id(em.input_id, "node", index)
        et = claim.epistemic_type
        st = claim.source_type or source_type_for_role(event.role)
        kind: EvidenceKind | None = None
        if cfg.trust_policy is not None:
            kind = event_evidence_kind(event.channel, event.role)
            if kind is EvidenceKind.MODEL_SUGGESTION and event.channel is PrincipalKind.AGENT:
                # An agent channel's "user" words are a model's: the claim is what an assistant's
                # message would give, whatever role or source the caller declared (TRUST-FACTS §3).
                if st in _FIRST_HAND_SOURCES:
                    st = SourceType.SYSTEM_INFERRED
                if et in AUTHORITATIVE_TYPES:
                    et = E.INFERRED
        suggestion = kind is EvidenceKind.MODEL_SUGGESTION
        cell = self._cells[et][st]
        key = claim_key(event, claim.subject, claim.predicate)
        obj_n = normalize_text(claim.object)
        capsule = is_capsule_claim(claim.predicate, claim.metadata)
        # A capsule's state ("active") is no value a person rejected: repeating it is no re-assertion.
        rejected_id = None if capsule else store.find_rejected((*key, obj_n, claim.polarity.value))
        valid_from = event.occurred_at
        at = event.recorded_at

        retire: list[MemoryNode] = []
        contest: list[MemoryNode] = []
        valid_to: datetime | None = None
        registry = cfg.registry_for(event.tenant_id)
        rules: dict[str, str] = {}
        if capsule:
            # Only an explicit supersession retires a capsule (TRUST-FACTS §5); none is ever contested.
            retire = capsules_superseded(store, key, claim.metadata, suggestion=suggestion)
            retire = [n for n in retire if n.valid_from <= valid_from and n.lifecycle in (L.TENTATIVE, L.STABLE)]
            rules = {n.node_id: CAPSULE_SUPERSESSION for n in retire}
        elif rejected_id is None and registry.enabled:
            retire, contest, valid_to, rules = self._meet(store, event, claim, speaker, self._matcher(registry))
            if suggestion:
                # A model suggestion never supersedes or contests established context (TRUST-FACTS §2).
                retire = [n for n in retire if not is_established(n)]
                contest = [n for n in contest if not is_established(n)]
                rules = {k: v for k, v in rules.items() if k in {n.node_id for n in (*retire, *contest)}}
        elif rejected_id is None:
            named = {obj_n}
            if claim.replaces_object is not None:
                named.add(normalize_text(claim.replaces_object))
            # Only claims of these objects can be superseded or contested by this one.
            active = store.find_active_values(key, named)
            if suggestion and active:
                # A model suggestion never supersedes or contests established context (TRUST-FACTS §2).
                active = [n for n in active if not is_established(n)]
            if len(active) > 1:
                active = sorted(active, key=_sort_key)
            blocked: set[str] = set()
            for target in self._supersede_targets(claim, et, obj_n, active) if active else ():
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
        if contest and any(n.expires_at is not None for n in contest):
            # A claim whose explicit expiry had passed when this one was said is stale (TRUST-FACTS §4):
            # lapsed evidence holds no new statement back, so it is left stale, not contested.
            contest = [n for n in contest if not is_expired(n, valid_from)]
            rules = {k: v for k, v in rules.items() if k in {n.node_id for n in (*retire, *contest)}}

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
        expiry = claim.expires_at if claim.expires_at is not None else event.expires_at
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
            "evidence_kind": kind,
            "confidence": confidence,
            "salience": cfg.initial_salience,
            "lifecycle": L.CONTESTED if contest else L.TENTATIVE,
            "decay_profile": self._decay[et][claim.node_type],
            "condition": (claim.condition or "").strip() if conditional else None,
            "condition_state": ConditionState.UNKNOWN if conditional else None,
            "condition_evaluation": None,
            "temporal_intent": claim.temporal_intent,
            "evidence_refs": (event.event_id,),
            "erased_evidence_refs": (),
            "evidence_quote": claim.evidence_quote,
            "evidence_span": claim.evidence_span,
            "asserted_by": speaker,
            "role": event.role,
            "speaker": event.speaker,
            "session_id": event.session_id,
            "conversation_id": event.conversation_id,
            "valid_from": valid_from,
            "valid_to": valid_to,
            "expires_at": expiry,
            "revalidation": None,
            "event_dates": claim.event_dates,
            "visibility": event.visibility,
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
                **({} if kind is None else {"evidence_kind": kind.value}),
                **({} if expiry is None else {"expires_at": expiry.isoformat()}),
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
            policy = cfg.supersedence_policy
            payload: dict[str, Any] = {
                "policy": policy,
                "new_object_id": node_id,
                "old_object_id": old.node_id,
                "edge_id": edge.edge_id,
                "reason": CAPSULE_SUPERSESSION if capsule else (
                    "negative_update" if claim.replaces_object is None else "explicit_update"
                ),
                "expected_lifecycle": old.lifecycle.value,
            }
            if registry.enabled:
                # the registry decided it: its rule, and its version beside the policy's name
                policy = f"{policy}+{registry.version}"
                payload["policy"] = policy
                payload["reason"] = rules[old.node_id]
            em.emit(
                OpType.SUPERSEDENCE_APPLIED,
                old.node_id,
                speaker,
                payload,
                policy_version=policy,
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
            noted: dict[str, Any] = {
                "object_id_a": node_id,
                "object_id_b": old.node_id,
                "edge_id": edge.edge_id,
                "conflict_description": "same subject, predicate and object with opposite polarity",
                "detected_by": "claim_creation",
            }
            noted_policy = cfg.policy_version
            if registry.enabled:
                noted["conflict_description"] = _CONFLICTS[rules[old.node_id]]
                noted["rule"] = rules[old.node_id]
                noted_policy = f"{noted_policy}+{registry.version}"
            em.emit(
                OpType.CONTRADICTION_NOTED,
                old.node_id,
                speaker,
                noted,
                policy_version=noted_policy,
                before=old,
                after=after,
                edge=edge,
                evidence_ids=(event.event_id,),
            )
        if rejected_id is not None:
            self._flag_reassertion(em, node, rejected_id, speaker, at, valid_from, event.event_id)

    def _matcher(self, registry: AttributeRegistry) -> Matcher:
        """The compiled registry (one per registry: the default, and each extended tenant's)."""
        matcher = self._matchers.get(id(registry))
        if matcher is None or matcher.registry is not registry:
            matcher = Matcher(registry)
            self._matchers[id(registry)] = matcher
        return matcher

    def _meet(
        self, store: StateStore, event: EventRef, claim: Claim, speaker: ActorRef, m: Matcher
    ) -> tuple[list[MemoryNode], list[MemoryNode], datetime | None, dict[str, str]]:
        """Which active claims a new claim retires and which it contests, by the attribute registry.

        For the same subject (or its aliases) and an active claim ``old``:

        * an update that names a value (``replaces_object``, a negative update's own object) retires
          the positive claims whose object contains it, whatever their predicate ("swapped Chrome for
          Firefox" retires "my browser is Chrome"), and the subject's things with it ("our CI runs on
          Travis" by "we moved from Travis");
        * the same attribute (or one that implies the other: a favourite is a like) with objects that
          meet and opposite polarity contradicts, or, with update intent, retires;
        * a different value of a single-valued attribute contradicts when stated as an assertion and
          retires with update (or unclear) intent; multi-valued attributes coexist;
        * a claim that denies what another states or entails by the registry's entailments and general
          values ("I eat chicken daily" and "I'm vegetarian"; "I don't drink alcohol" and "red wine most
          evenings") contests it, or with update intent retires it; never within one message;
        * a claim about the subject's thing or person ("my car needs an oil change") and a claim that the
          subject has none ("I don't have a car") contest each other, or with update intent the denial
          retires what was said of the thing; never within one message;
        * a correction retires what it names or, naming nothing, the speaker's latest claim whose value
          has its value's shape; it contests instead what someone else said.

        Only OBSERVED and ASSERTED claims retire or contest anything (a model's suggestion, hearsay
        and hypotheses never do); two values of one message do not compete; an older event never retires
        a newer claim (it only ends where that one begins). Returns (retired, contested, the new
        claim's valid_to, the rule per touched node id).
        """
        rules: dict[str, str] = {}
        if claim.epistemic_type not in AUTHORITATIVE_TYPES:
            return [], [], None, rules
        tenant, owner, scope_key = event.tenant_id, event.owner_id, event.scope_key
        subject_n, obj = normalize_text(claim.subject), claim.object
        if m.inverse_of(claim.predicate) is not None and obj:
            subject_n, obj = normalize_text(obj), claim.subject  # "Acme employs me": I work at Acme
        group = m.subjects(subject_n, event.scope.value)
        roots = tuple(dict.fromkeys(subject_root(s) for s in group))
        attr = m.attribute(claim.predicate, obj, bool(claim.metadata.get("attribute_form")))
        core = m.core(obj)
        intent = claim.temporal_intent
        named = m.core(claim.replaces_object) if claim.replaces_object else ()
        if not named and intent is TemporalIntent.UPDATE and claim.polarity is Polarity.NEGATIVE:
            named = core  # "I no longer use Java": a negative update names its own object

        correction = bool(claim.metadata.get("correction"))
        retiring = intent is TemporalIntent.UPDATE or correction

        facts = m.facts(claim.predicate, attr, obj, claim.polarity is Polarity.POSITIVE) \
            if claim.polarity in _OPPOSITE else ()
        found: dict[str, MemoryNode] = {}
        # the claims whose object may meet this one's (a shared head noun), those without an object ("I never
        # cook"), and those an update's named value meets: containing it, or contained in it ("offloaded the
        # vintage Vespa to a collector" names "vintage Vespa"), so any of its words
        heads = (*m.head_words(obj), *attr.category[-1:], "", *m.content_words(named),
                 *((*m.kind(obj)[-1:], *m.kind_words(obj)) if intent is TemporalIntent.UPDATE else ()),
                 *m.fact_words(facts), *(m.count_words(claim.replaces_object) if retiring else ()))
        for root in roots:
            for node in store.find_active_by_words((tenant, owner, scope_key, root), heads):
                found[node.node_id] = node
        activity = m.activity(obj)
        for s in group:
            for ck in store.active_claim_keys((tenant, owner, scope_key, s)):
                # every value of the same single-valued attribute, the ranked families a like meets, and what an
                # activity ("I don't run") meets whatever its object ("run every morning")
                if ((attr.single or activity) and m.could_be(ck[4], attr.name)) or m.implied_by(ck[4], attr.name) or (
                    activity and claim.polarity is Polarity.NEGATIVE and m.concludes(ck[4], attr.name)
                ):  # "I stopped drinking" meets "a few beers most nights" (having a beer is drinking it)
                    for node in store.find_active(ck):
                        found[node.node_id] = node
        # "my car needs an oil change" presupposes having a car; "I don't have a car" denies it
        possessed = m.possessed(subject_n)
        has = m.attribute("has", None).name
        denies_having = attr.name == has and claim.polarity is Polarity.NEGATIVE and bool(core)
        if possessed:
            thing_words = (*m.head_words(" ".join(possessed)), *m.general_words(possessed))
            for root in roots:
                for node in store.find_active_by_words((tenant, owner, scope_key, root), thing_words):
                    found[node.node_id] = node
        elif denies_having:
            for s in group:
                for thing in m.thing_names(obj):
                    for ck in store.active_claim_keys((tenant, owner, scope_key, f"{s}'s {thing}")):
                        for node in store.find_active(ck):
                            found[node.node_id] = node
        corrected: set[str] = set()
        if correction and named:
            # a correction names what was said wrong, by whoever in this memory said it
            for node in store.owner_nodes(tenant, owner):
                if node.scope is event.scope and node.scope_id == event.scope_id and _is_active(node):
                    found.setdefault(node.node_id, node)
        elif correction:
            for node in self._corrected(store, event, claim, speaker, m):
                found[node.node_id] = node
                corrected.add(node.node_id)

        retire: list[MemoryNode] = []
        contest: list[MemoryNode] = []
        blocked: set[str] = set()
        valid_to: datetime | None = None
        polarity = claim.polarity
        for old in sorted(found.values(), key=_sort_key):
            if not _is_active(old):
                continue
            same_message = event.event_id in old.evidence_refs[:1]
            old_subject, old_obj = normalize_text(old.subject), old.object
            if m.inverse_of(old.predicate) is not None and old_obj:
                old_subject, old_obj = normalize_text(old_obj), old.subject
            same_subject = old_subject in group
            old_attr = m.attribute(old.predicate, old_obj, bool(old.metadata.get("attribute_form")))
            old_core = m.core(old_obj)
            mine = old.asserted_by is not None and old.asserted_by.actor_id == speaker.actor_id
            factual = old.epistemic_type not in NON_FACTUAL_TYPES
            rule: str | None = None
            count = retiring and m.names_count(claim.replaces_object, old_obj) \
                and not m.names_count(claim.replaces_object, obj)
            if named and retiring and old.polarity is Polarity.POSITIVE and (m.names(named, old_core) or count) and (
                same_subject or correction or m.owned(old_subject, roots) or m.owned(subject_n, (old_subject,))
            ):
                kept = (polarity is Polarity.POSITIVE and attr.related(old_attr) and m.same_value(core, old_core)
                        and not count)
                if not kept:
                    rule = "correction" if correction else (
                        "negative_update" if polarity is Polarity.NEGATIVE else "explicit_update")
            elif old.node_id in corrected:
                rule = "correction"  # "my bad, it's 11:15": the speaker's latest value of that shape
            elif not same_message and factual and old.polarity in _OPPOSITE and self._presupposed(
                m, possessed, denies_having, core, group, old, old_subject, old_attr, old_core, has
            ):
                rule = "presupposition_update" if retiring else "presupposition"
            elif not same_subject:
                continue
            elif (
                polarity in _OPPOSITE and old.polarity is _OPPOSITE[polarity] and factual and attr.related(old_attr)
                and (self._values_meet(m, attr, core, old_attr, old_core)
                     or self._activity_meets(m, polarity, obj, old.polarity, old_obj))
            ):
                if correction and claim.metadata.get("correction_marker") == "actually":
                    rule = "polarity"  # "Actually, I like coffee" after "I don't like coffee": a plain flip, both kept
                else:
                    rule = ("correction" if correction else "polarity_update") if retiring else "polarity"
            elif same_message:
                continue  # one message naming two values ("Paris and Rome") is not a change of mind
            elif facts and factual and old.polarity in _OPPOSITE and m.conflict(
                facts, m.facts(old.predicate, old_attr, old_obj, old.polarity is Polarity.POSITIVE)
            ):
                # "I eat chicken most days" denies "I'm vegetarian" (it entails not eating meat), and "I don't
                # drink alcohol" denies "a glass of red wine most evenings" (alcohol covers wine)
                rule = "entailment_update" if retiring else "entailment"
            elif (
                correction and old_attr.name == attr.name and polarity is Polarity.POSITIVE
                and old.polarity is Polarity.POSITIVE and core and old_core and not m.same_value(core, old_core)
            ):
                rule = "correction"  # a corrected value replaces the one it corrects, whatever the cardinality
            elif (
                attr.single and old_attr.name == attr.name and polarity is Polarity.POSITIVE
                and old.polarity is Polarity.POSITIVE and factual and core and old_core
                and not m.same_value(core, old_core)
            ):
                rule = "single_valued" if intent is TemporalIntent.ASSERTION else "single_valued_update"
            elif (
                intent is TemporalIntent.UPDATE and polarity is Polarity.POSITIVE and old.polarity is Polarity.POSITIVE
                and factual and (
                    (old_attr.name == attr.name and m.same_kind(obj, old_obj))
                    or (not _taste(attr) and not _taste(old_attr) and m.kindred(obj, old_obj))
                )
            ):
                # "downgraded to the free plan" ends "I'm on the Pro plan"; "switched to Firefox" ends "my browser
                # is Chrome" (two values of one kind, whatever the predicates), but never a taste ("I love Chrome")
                rule = "same_kind_update"
            if rule is None:
                continue
            if rule == "correction" and not mine:
                rule = "correction_of_another"  # someone else's claim is contested, never retired
            if rule in _CONTESTING:
                if old.lifecycle in (L.TENTATIVE, L.STABLE, L.CONTESTED):
                    contest.append(old)
                    rules[old.node_id] = rule
                continue
            if old.valid_from > event.occurred_at:
                blocked.add(old.node_id)
                valid_to = old.valid_from if valid_to is None else min(valid_to, old.valid_from)
            elif old.lifecycle in (L.TENTATIVE, L.STABLE):
                retire.append(old)
                rules[old.node_id] = rule
        return retire, [n for n in contest if n.node_id not in blocked], valid_to, rules

    @staticmethod
    def _presupposed(m: Matcher, possessed: tuple[str, ...], denies_having: bool, core: tuple[str, ...],
                     group: tuple[str, ...], old: MemoryNode, old_subject: str, old_attr: Attribute,
                     old_core: tuple[str, ...], has: str) -> bool:
        """Whether one claim speaks of the subject's thing and the other says the subject has none."""
        if possessed:
            return (old_subject in group or old_subject in map(subject_root, group)) and old_attr.name == has \
                and old.polarity is Polarity.NEGATIVE and m.covers(old_core, possessed)
        if denies_having:
            return (old_subject.startswith(tuple(f"{s}'s " for s in group))
                    and m.covers(core, m.possessed(old_subject)))
        return False

    @staticmethod
    def _values_meet(m: Matcher, attr: Attribute, core: tuple[str, ...], old_attr: Attribute,
                     old_core: tuple[str, ...]) -> bool:
        """The same value, or the thing a ranked family is about ("musicals" meets ``favorite_musical``)."""
        return m.same_value(core, old_core) or m.category_meets(old_attr, core) or m.category_meets(attr, old_core)

    @staticmethod
    def _activity_meets(m: Matcher, polarity: Polarity, obj: str | None, old_polarity: Polarity,
                        old_obj: str | None) -> bool:
        """"I never cook" denies "I cook dinner every night": a negated activity meets every object of it, and two
        activities ("run every morning", "don't run") meet; "I run" says nothing of "I don't run marathons"."""
        new_act, old_act = m.activity(obj), m.activity(old_obj)
        if new_act and old_act:
            return True
        return (new_act and polarity is Polarity.NEGATIVE) or (old_act and old_polarity is Polarity.NEGATIVE)

    @staticmethod
    def _corrected(
        store: StateStore, event: EventRef, claim: Claim, speaker: ActorRef, m: Matcher
    ) -> list[MemoryNode]:
        """The claim a correction that names no old value corrects: the speaker's latest active claim in this
        scope, within the registry's window, whose value has the correction's shape ("it's 11:15")."""
        shape = m.shape(claim.object)
        if shape is None:
            return []
        window = timedelta(hours=m.registry.corrections.window_hours)
        best: MemoryNode | None = None
        for node in store.owner_nodes(event.tenant_id, event.owner_id):
            if (
                node.scope is not event.scope or node.scope_id != event.scope_id or not _is_active(node)
                or node.asserted_by is None or node.asserted_by.actor_id != speaker.actor_id
                or not timedelta(0) <= event.occurred_at - node.valid_from <= window
                or m.shape(node.object) != shape or normalize_text(node.object) == normalize_text(claim.object)
            ):
                continue
            if best is None or _sort_key(node) > _sort_key(best):
                best = node
        return [best] if best is not None else []

    @staticmethod
    def _supersede_targets(
        claim: Claim, et: EpistemicType, obj_n: str, active: list[MemoryNode]
    ) -> list[MemoryNode]:
        """Which active claims an explicit update names (empty unless rule 9 holds)."""
        if claim.temporal_intent is not TemporalIntent.UPDATE or et not in AUTHORITATIVE_TYPES:
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
        if cmd.request_id is not None and not isinstance(cmd, EraseCommand):
            # (an erasure is idempotent by its derived erasure and command ids; its receipt answers a retry)
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
            if self.config.trust_policy is not None:
                self._check_authority(store, cmd)
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

    def _check_authority(self, store: StateStore, cmd: CommandBase) -> None:
        """A model suggestion (an agent channel, a model's actor) may not promote, resolve, contest,
        re-type, correct or retire an established claim (TRUST-FACTS §3); a human channel may."""
        if command_evidence_kind(cmd.channel, cmd.actor.actor_type) is not EvidenceKind.MODEL_SUGGESTION:
            return
        spec = self._targets.get(type(cmd))
        if spec is None:  # erasure: no claim command, authorised (admin only) where it enters
            return
        command, name, targets = spec
        signal = getattr(cmd, "signal", None)
        if command not in GUARDED_COMMANDS and not (command == "penalize" and signal in GUARDED_SIGNALS):
            return
        for attr in targets:
            node = store.get_node(getattr(cmd, attr))
            if node is not None and node.same_scope(cmd) and is_established(node):
                raise NotAuthoritative(
                    "a model suggestion cannot change an established claim; it needs a human channel",
                    code=NOT_AUTHORITATIVE, command=name, node_id=node.node_id,
                )

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
        if cmd.signal in cfg.usefulness_signals:
            self._usefulness(node, cmd, em, positive=True)
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
        if cmd.signal in cfg.usefulness_signals:
            self._usefulness(node, cmd, em, positive=False)
            return
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

    def _usefulness(self, node: MemoryNode, cmd: ReinforceCommand | PenalizeCommand, em: Emitter, *,
                    positive: bool) -> None:
        """Retrieval feedback (REFERENCED, IGNORED_REPEATEDLY) moves usefulness, never truth (TRUST-FACTS §1,
        a refinement of RFC-0008 §4): salience changes; confidence, type, evidence and the decay clock do
        not. The record carries both tracks, confidence before and after (equal) beside salience."""
        cfg = self.config
        counter = f"{cmd.actor.actor_id}|{cmd.signal.value}"
        step = usefulness_step(cfg, signal=cmd.signal, positive=positive, salience=node.salience,
                               previous_repeats=node.signal_counts.get(counter, 0))  # fmt: skip
        after = _changed(node, cmd.issued_at, salience=step.salience_after,
                         signal_counts={**node.signal_counts, counter: step.repeat_index})  # fmt: skip
        weight = "gamma" if positive else "delta"
        em.emit(
            OpType.REINFORCE if positive else OpType.PENALTY,
            node.node_id,
            cmd.actor,
            {
                "signal_type": cmd.signal.value,
                "track": "usefulness",
                weight: step.weight,
                f"{weight}_effective": step.weight_effective,
                "repeat_index": step.repeat_index,
                "confidence_before": node.confidence,
                "confidence_after": node.confidence,
                "salience_before": step.salience_before,
                "salience_after": step.salience_after,
                "session_id": cmd.session_id,
                "signal_source": cmd.signal_source or cmd.actor.actor_id,
                "policy_version": cfg.policy_version,
                "reason": cmd.reason,
                "new_confidence": node.confidence,
                "new_salience": step.salience_after,
            },
            policy_version=cfg.policy_version,
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

    def _revalidate(self, store: StateStore, cmd: RevalidateCommand, em: Emitter) -> None:
        """New evidence that a claim still holds, until a new expiry (TRUST-FACTS §4).

        Stale is derived (``engine.world_rules.stale_reason``), so nothing about how the claim is known
        changes: not its lifecycle, type or confidence (confirmation is ``reinforce``'s). The node gets
        the new ``expires_at``, the evidence events join its ``evidence_refs``, and ``revalidation``
        records this one; the REVALIDATED operation keeps the node before (the previous expiry and
        evidence) and after, so every earlier expiry stays in the history and a replay rebuilds it.
        """
        node = self._target(store, cmd, cmd.node_id)
        at = cmd.issued_at
        if not _is_active(node):
            raise RuleViolation(
                "a retired claim cannot be revalidated; assert it anew", code=RevalidationCodes.CLAIM_RETIRED,
                node_id=node.node_id, lifecycle=node.lifecycle.value,
            )  # fmt: skip
        if cmd.expires_at <= at:
            raise RuleViolation(
                "the new expiry must be after the command's time",
                code=RevalidationCodes.EXPIRY_IN_PAST, expires_at=cmd.expires_at.isoformat(),
            )  # fmt: skip
        quote = (cmd.evidence_quote or "").strip() or None
        if not cmd.evidence_ids and quote is None:
            raise RuleViolation("revalidation needs new evidence: an evidence event or a quote",
                                code=RevalidationCodes.EVIDENCE_REQUIRED)  # fmt: skip
        if node.valid_to is not None and node.valid_to <= at:
            raise RuleViolation("the claim's validity ended (a later claim holds); assert it anew",
                                code=RevalidationCodes.VALIDITY_ENDED, node_id=node.node_id)  # fmt: skip
        if node.epistemic_type is E.CONDITIONAL and condition_state_of(node) in (
            ConditionState.FALSE, ConditionState.EXPIRED
        ):
            raise RuleViolation("a CONDITIONAL claim whose condition ended is re-evaluated, not revalidated",
                                code=RevalidationCodes.CONDITION_NOT_TRUE)  # fmt: skip
        self._check_evidence(store, cmd)
        refs = node.evidence_refs + tuple(e for e in cmd.evidence_ids if e not in node.evidence_refs)
        record = Revalidation(
            revalidated_at=at, revalidated_by=cmd.actor.actor_id, previous_expires_at=node.expires_at,
            expires_at=cmd.expires_at, evidence_ids=tuple(cmd.evidence_ids), evidence_quote=quote, reason=cmd.reason,
        )  # fmt: skip
        was = stale_reason(node, at, self.config)
        after = _changed(node, at, expires_at=cmd.expires_at, revalidation=record, evidence_refs=refs)
        em.emit(
            OpType.REVALIDATED,
            node.node_id,
            cmd.actor,
            {
                "policy": REVALIDATION_POLICY,
                "previous_expires_at": None if node.expires_at is None else node.expires_at.isoformat(),
                "expires_at": cmd.expires_at.isoformat(),
                "stale_before": was,
                "evidence_ids": list(cmd.evidence_ids),
                "evidence_quote": quote,
                "reason": cmd.reason,
                "triggered_by": cmd.actor.actor_id,
            },
            policy_version=REVALIDATION_POLICY,
            before=node,
            after=after,
            evidence_ids=tuple(cmd.evidence_ids),
        )


    # ---------------------------------------------------------------- erasure
    def _erase(self, store: StateStore, cmd: EraseCommand, em: Emitter) -> None:
        """Forget a scope's nodes, edges, events and request records; strip erased evidence from survivors.

        Which nodes go: the subject owner's (``owner``); the subject owner's derived from the erased
        events or in the conversation (``conversation``, ``event``); any owner's derived from the erased
        events or asserted by the speaker (``speaker``). A node is derived from the event its first
        evidence reference names (the message it was extracted from). A surviving claim that also cites
        an erased event (evidence a command added) keeps its content and loses the reference, which it
        lists under ``erased_evidence_refs`` (an EVIDENCE_ERASED operation, in the claim's own scope).
        """
        tenant = cmd.tenant_id
        erased_events: dict[str, set[str]] = {}
        for ref in cmd.event_ids:
            owner, sep, event_id = ref.partition("/")
            if sep and event_id:
                erased_events.setdefault(owner, set()).add(event_id)
        subject = cmd.subject_owner
        if cmd.kind == "owner" and subject is not None:
            mine = erased_events.setdefault(subject, set())
            mine.update(e for (t, o, e), _seen in store.iter_events() if t == tenant and o == subject)
        if cmd.kind == "speaker":
            pool = [n for n in store.iter_nodes() if n.tenant_id == tenant]
        else:
            pool = store.owner_nodes(tenant, subject) if subject is not None else []

        def goes(node: MemoryNode) -> bool:
            origin = node.evidence_refs[0] if node.evidence_refs else None
            events = erased_events.get(node.owner_id, ())
            if cmd.kind == "owner":
                return node.owner_id == subject
            if cmd.kind == "speaker":
                return origin in events or node.asserted_by.actor_id == cmd.speaker_id
            if cmd.kind == "conversation" and node.conversation_id == cmd.conversation_id:
                return True
            return origin in events

        erased = sorted((n for n in pool if goes(n)), key=lambda n: n.node_id)
        gone = {n.node_id for n in erased}
        for node in erased:  # what they were derived from goes with them
            if node.evidence_refs:
                erased_events.setdefault(node.owner_id, set()).add(node.evidence_refs[0])
        edges: set[str] = set()
        for node in erased:
            edges.update(e.edge_id for e in store.edges_of(node.node_id))
        for owner, events in erased_events.items():
            for edge in store.owner_edges(tenant, owner) if events else ():
                if edge.provenance_event_id in events:
                    edges.add(edge.edge_id)
        event_refs = sorted(
            f"{owner}/{event_id}"
            for owner, events in erased_events.items()
            for event_id in events
            if store.owner_events(tenant, owner, event_id)
        )
        requests = sorted(
            f"{key[1]}/{key[2]}"
            for key, record in store.iter_requests()
            if key[0] == tenant
            and ((cmd.kind == "owner" and key[1] == subject) or any(op.target_id in gone for op in record.operations))
        )
        survivors: list[tuple[MemoryNode, tuple[str, ...], tuple[str, ...]]] = []
        for owner, events in sorted(erased_events.items()):
            for node in store.owner_nodes(tenant, owner) if events else ():
                if node.node_id in gone:
                    continue
                cited = tuple(e for e in node.evidence_refs[1:] if e in events)
                if cited:
                    kept = tuple(e for e in node.evidence_refs if e not in cited)
                    survivors.append((node, kept, cited))
        payload: dict[str, Any] = {
            "policy": "erasure_v1",
            "erasure_id": cmd.erasure_id,
            "kind": cmd.kind,
            "nodes": [n.node_id for n in erased],
            "edges": sorted(edges),
            "events": event_refs,
            "requests": requests,
            "evidence_stripped": sorted(n.node_id for n, _k, _c in survivors),
            "counts": {
                "nodes": len(erased),
                "edges": len(edges),
                "events": len(event_refs),
                "requests": len(requests),
                "evidence_refs": sum(len(c) for _n, _k, c in survivors),
            },
        }
        for name in ("subject_owner", "speaker_id", "conversation_id"):
            value = getattr(cmd, name)
            if value is not None:
                payload[name] = value
        em.emit(
            OpType.ERASED, cmd.erasure_id, cmd.actor, payload,
            policy_version="erasure_v1", target_type=TargetType.ERASURE,
        )  # fmt: skip
        stripped = {n.node_id: (n, kept, cited) for n, kept, cited in survivors}
        # A survivor that an erased claim contested or retired: the operations that did so were the
        # erased input's and go with it, so the survivor is written again without the link (as a
        # replay of the shredded log would find it, which is what verifies the erasure).
        for node in pool if cmd.kind != "speaker" else store.iter_nodes():
            if node.node_id in gone or node.tenant_id != tenant:
                continue
            if node.superseded_by in gone or set(node.contradicts) & gone or set(node.supersedes) & gone:
                stripped.setdefault(node.node_id, (node, node.evidence_refs, ()))
        for node_id in sorted(stripped):
            node, kept, cited = stripped[node_id]
            changes: dict[str, Any] = {}
            if cited:
                changes.update(evidence_refs=kept, erased_evidence_refs=(*node.erased_evidence_refs, *cited))
            contradicts = tuple(c for c in node.contradicts if c not in gone)
            if contradicts != node.contradicts:
                changes["contradicts"] = contradicts
                if not contradicts and node.lifecycle is L.CONTESTED:
                    changes["lifecycle"] = L.TENTATIVE  # the contest was the erased claim's
            if node.superseded_by in gone:
                changes.update(superseded_by=None, valid_to=None, lifecycle=L.TENTATIVE)
            supersedes = tuple(c for c in node.supersedes if c not in gone)
            if supersedes != node.supersedes:
                changes["supersedes"] = supersedes
            after = _changed(node, cmd.issued_at, **changes)
            em.emit(
                OpType.EVIDENCE_ERASED, node.node_id, cmd.actor,
                {"policy": "erasure_v1", "erasure_id": cmd.erasure_id, "erased_evidence_refs": list(cited),
                 "erased_links": sorted(set(node.contradicts) & gone | set(node.supersedes) & gone
                                        | ({node.superseded_by} & gone))},
                policy_version="erasure_v1", before=node, after=after, scope=scope_of(node),
            )  # fmt: skip


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
