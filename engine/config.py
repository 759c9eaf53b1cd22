"""Tunable numbers of the epistemic model, in one immutable, versioned object.

Every value PRME marks as an untested default ([H] in PRME-FACTS) lives here so a
deployment can override it without code changes; ``policy_version`` is written on
every operation so a log always says which numbers produced it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engine.attributes import DEFAULT_REGISTRY, AttributeRegistry, TenantAttributes
from schemas.enums import DecayProfile, EpistemicType, NodeType, SignalType, SourceType

E = EpistemicType
S = SourceType

#: RFC-0003 §4 plus the late-2026 CONDITIONAL row. Cells the RFC marks "should
#: not occur" are absent on purpose: looking them up yields the fallback and a
#: CONFIDENCE_MATRIX_WARNING operation. (The PRME code fills OBSERVED ×
#: SYSTEM_INFERRED with 0.70; override ``"observed:system_inferred"`` to get that.)
#:
#: One cell the spec leaves empty is filled here: UNVERIFIED × USER_STATED, a human's message that
#: relays what someone else said ("my sister says the café shut"). It does occur, and the 0.50
#: fallback would put it above the DEFAULT retrieval threshold (0.30) as if it were checked; 0.25
#: keeps it out of DEFAULT answers until corroborated, one step above SYSTEM_INFERRED hearsay (0.20).
DEFAULT_MATRIX: dict[str, float] = {
    "observed:user_stated": 0.90,
    "observed:user_demonstrated": 0.85,
    "observed:external_document": 0.75,
    "observed:tool_output": 0.80,
    "asserted:user_stated": 0.80,
    "asserted:user_demonstrated": 0.75,
    "asserted:system_inferred": 0.60,
    "asserted:external_document": 0.65,
    "asserted:tool_output": 0.70,
    "inferred:user_demonstrated": 0.60,
    "inferred:system_inferred": 0.55,
    "inferred:external_document": 0.50,
    "inferred:tool_output": 0.55,
    "hypothetical:user_stated": 0.35,
    "hypothetical:system_inferred": 0.25,
    "hypothetical:external_document": 0.30,
    "conditional:user_stated": 0.45,
    "conditional:system_inferred": 0.30,
    "conditional:external_document": 0.35,
    "conditional:tool_output": 0.40,
    "unverified:user_stated": 0.25,  # what the user reports someone else said ("my manager said ...")
    "unverified:system_inferred": 0.20,
    "unverified:external_document": 0.25,
    "unverified:tool_output": 0.30,
}

DEFAULT_SIGNAL_WEIGHTS: dict[SignalType, float] = {
    SignalType.REFERENCED: 0.08,
    SignalType.CONFIRMED: 0.15,
    SignalType.TASK_COMPLETED_WITH: 0.12,
    SignalType.CORROBORATED_BY_EXTERNAL: 0.10,
    SignalType.CORRECTED: 0.25,
    SignalType.CONTRADICTED_BY_OBSERVATION: 0.20,
    SignalType.TASK_FAILED_WITH: 0.10,
    SignalType.IGNORED_REPEATEDLY: 0.05,
    SignalType.UNUSED: 0.0,
}

#: RFC-0008 §7. DEPRECATED has no ceiling because it can never be reinforced.
DEFAULT_TYPE_CEILINGS: dict[EpistemicType, float] = {
    E.OBSERVED: 0.97,
    E.ASSERTED: 0.92,
    E.INFERRED: 0.85,
    E.HYPOTHETICAL: 0.65,
    E.CONDITIONAL: 0.85,
    E.UNVERIFIED: 0.50,
}

DEFAULT_DECAY_LAMBDA: dict[DecayProfile, float] = {
    DecayProfile.PERMANENT: 0.0,
    DecayProfile.SLOW: 0.005,
    DecayProfile.MEDIUM: 0.020,
    DecayProfile.FAST: 0.070,
    DecayProfile.RAPID: 0.200,
}

DEFAULT_TYPE_PROFILE: dict[EpistemicType, DecayProfile] = {
    E.OBSERVED: DecayProfile.SLOW,
    E.ASSERTED: DecayProfile.MEDIUM,
    E.INFERRED: DecayProfile.FAST,
    E.HYPOTHETICAL: DecayProfile.RAPID,
    E.CONDITIONAL: DecayProfile.MEDIUM,
    E.UNVERIFIED: DecayProfile.RAPID,
    E.DEPRECATED: DecayProfile.PERMANENT,
}

#: PRME-FACTS §1.4: default time to live by node type; types not listed (entity, fact, preference,
#: instruction) never expire.
DEFAULT_NODE_TTL_DAYS: dict[NodeType, float] = {
    NodeType.EVENT: 365.0,
    NodeType.DECISION: 180.0,
    NodeType.TASK: 90.0,
    NodeType.SUMMARY: 365.0,
    NodeType.NOTE: 90.0,
}


def matrix_key(epistemic_type: EpistemicType, source_type: SourceType) -> str:
    return f"{epistemic_type.value.lower()}:{source_type.value.lower()}"


def _normalise_cell_key(key: str) -> str:
    left, sep, right = key.partition(":")
    if not sep:
        raise ValueError("matrix keys look like 'asserted:tool_output'")
    return matrix_key(EpistemicType(left), SourceType(right))


class EngineConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    #: engine_v4 (issue #29): evidence kinds decide who may retire or contest established claims, and
    #: retrieval feedback moves usefulness, not truth. engine_v3: claims meet through the attribute
    #: registry (synonyms, cardinality, object cores). engine_v2 filled the UNVERIFIED x USER_STATED
    #: cell (0.25). engine_v1 left it to the fallback and matched only identical subject, predicate and
    #: object text. :data:`POLICIES` keeps the rules older logs were written under.
    policy_version: str = "engine_v4"
    #: The evidence-kind rules (``engine.trust``); None = none (before engine_v4: any claim of an
    #: authoritative type may supersede or contest, any actor may retire a claim).
    trust_policy: str | None = "evidence_kinds_v1"
    #: TRUST-FACTS §1 (refinement of RFC-0008 §4): signals that say a claim was useful or not, not
    #: whether it is true. They move salience only, never confidence or epistemic type.
    usefulness_signals: frozenset[SignalType] = frozenset({SignalType.REFERENCED, SignalType.IGNORED_REPEATEDLY})
    confidence_policy: str = "confidence_v1"
    lifecycle_policy: str = "lifecycle_transitions_v1"
    #: Written on SUPERSEDENCE_APPLIED, followed by the registry's version ("+attributes_v1").
    supersedence_policy: str = "registry_supersedence_v2"
    condition_policy: str = "explicit_condition_evaluation_v1"

    matrix: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_MATRIX))
    fallback_confidence: float = Field(default=0.50, gt=0.0, le=1.0)
    initial_salience: float = Field(default=0.50, ge=0.0, le=1.0)

    signal_weights: dict[SignalType, float] = Field(default_factory=lambda: dict(DEFAULT_SIGNAL_WEIGHTS))
    type_ceilings: dict[EpistemicType, float] = Field(default_factory=lambda: dict(DEFAULT_TYPE_CEILINGS))
    global_ceiling: float = Field(default=0.97, gt=0.0, le=1.0)
    session_gamma_cap: float = Field(default=0.40, ge=0.0)
    correlation_discount: float = Field(default=0.4, ge=0.0, le=1.0)
    #: RFC-0008 §5: unknown provenance counts as correlated (discount applied, logged).
    discount_unknown_provenance: bool = True
    corrected_floor: float = Field(default=0.05, ge=0.0, le=1.0)
    #: Numerical floor so repeated non-CORRECTED penalties keep confidence strictly positive.
    min_confidence: float = Field(default=1e-6, gt=0.0, le=0.05)
    #: Penalty applied to a claim that repeats a value explicitly rejected before.
    reassertion_delta: float = Field(default=0.5, ge=0.0, lt=1.0)

    decay_lambda: dict[DecayProfile, float] = Field(default_factory=lambda: dict(DEFAULT_DECAY_LAMBDA))
    type_decay_profile: dict[EpistemicType, DecayProfile] = Field(default_factory=lambda: dict(DEFAULT_TYPE_PROFILE))
    boost_decay_rho: float = 0.10
    confidence_decay_mu_multiplier: float = 0.5
    observed_confidence_grace_days: float = 180.0

    unverified_threshold: float = Field(default=0.30, ge=0.0, le=1.0)
    node_ttl_days: dict[NodeType, float] = Field(default_factory=lambda: dict(DEFAULT_NODE_TTL_DAYS))
    auto_promotion_age_days: float = Field(default=7.0, ge=0.0)
    auto_promotion_min_evidence: int = Field(default=1, ge=0)

    #: How claims meet (engine/attributes.json); ``AttributeRegistry.disabled()`` is the engine_v1 rule.
    attributes: AttributeRegistry = DEFAULT_REGISTRY
    #: Tenants whose registry a deployment extended (EPISTREAM_ATTRIBUTES_FILE): tenant id -> registry.
    tenant_attributes: dict[str, AttributeRegistry] = Field(default_factory=dict)

    @field_validator("matrix", mode="before")
    @classmethod
    def _cells(cls, value: Any) -> dict[str, float]:
        if not isinstance(value, Mapping):
            raise ValueError("matrix must be a mapping")
        out: dict[str, float] = {}
        for key, cell in value.items():
            number = float(cell)
            if not 0.0 < number <= 1.0:
                raise ValueError("matrix cells must be in (0, 1]")
            out[_normalise_cell_key(str(key))] = number
        return out

    def with_overrides(self, cells: Mapping[str, float] | None = None, **fields: Any) -> EngineConfig:
        """Copy with some matrix cells and/or other fields replaced (validated)."""
        data = self.model_dump()
        if cells:
            data["matrix"] = {**data["matrix"], **{_normalise_cell_key(k): v for k, v in cells.items()}}
        data.update(fields)
        return EngineConfig.model_validate(data)

    def with_attribute_file(self, extensions: TenantAttributes) -> EngineConfig:
        """Copy whose registry carries a deployment's extensions (for every tenant and per tenant)."""
        common, tenants = extensions.registries(self.attributes)
        return self.model_copy(update={"attributes": common, "tenant_attributes": tenants})

    def registry_for(self, tenant_id: str) -> AttributeRegistry:
        """The attribute registry that decides how ``tenant_id``'s claims meet."""
        return self.tenant_attributes.get(tenant_id, self.attributes)

    def starting_confidence(self, epistemic_type: EpistemicType, source_type: SourceType) -> float | None:
        """The matrix cell, or None for a combination that should not occur."""
        return self.matrix.get(matrix_key(epistemic_type, source_type))

    def ceiling(self, epistemic_type: EpistemicType) -> float:
        return min(self.type_ceilings.get(epistemic_type, self.global_ceiling), self.global_ceiling)

    def expires_at(self, node_type: NodeType, last_reinforced_at: datetime) -> datetime | None:
        """When a node of ``node_type`` outlives its TTL, or None for a type that never expires.

        The clock is the one decay uses (PRME-FACTS §7): it starts when the node is created and
        restarts when it is reinforced, because a memory used again is still current.
        """
        ttl = self.node_ttl_days.get(node_type)
        return None if ttl is None else last_reinforced_at + timedelta(days=ttl)

    def decay_profile(self, epistemic_type: EpistemicType, node_type: NodeType) -> DecayProfile:
        if epistemic_type is EpistemicType.DEPRECATED:
            return DecayProfile.PERMANENT
        if node_type is NodeType.INSTRUCTION:
            return DecayProfile.SLOW
        return self.type_decay_profile.get(epistemic_type, DecayProfile.MEDIUM)


DEFAULT_CONFIG = EngineConfig()
#: The first logs' rules: no evidence-kind rules, REFERENCED / IGNORED_REPEATEDLY move confidence
#: (RFC-0008 §4 as written), no UNVERIFIED x USER_STATED cell, claims meet on identical text only.
ENGINE_V1 = EngineConfig(
    policy_version="engine_v1",
    trust_policy=None,
    usefulness_signals=frozenset(),
    supersedence_policy="explicit_supersedence_v1",
    matrix={k: v for k, v in DEFAULT_MATRIX.items() if k != "unverified:user_stated"},
    attributes=AttributeRegistry.disabled(),
)
#: engine_v1 with the UNVERIFIED x USER_STATED cell (logs written between issues #25 and #29).
ENGINE_V2 = ENGINE_V1.with_overrides(policy_version="engine_v2", matrix=dict(DEFAULT_MATRIX))
#: Each pinned policy version's rules, so inputs of an old log re-run under the policy that wrote them.
POLICIES: dict[str, EngineConfig] = {"engine_v1": ENGINE_V1, "engine_v2": ENGINE_V2, "engine_v4": DEFAULT_CONFIG}
