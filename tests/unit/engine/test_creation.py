"""Creating nodes from extraction results."""

from __future__ import annotations

import pytest
from engine_factories import T0, at, claim, event_ref, extraction, new_store

from engine.config import EngineConfig
from engine.reducer import Reducer, apply
from schemas.canonical import derive_id
from schemas.claims import Claim, ExtractionResult, RejectedClaim, event_input_id
from schemas.enums import (
    ConditionState,
    DecayProfile,
    EpistemicType,
    LifecycleState,
    NodeType,
    OpType,
    Role,
    SourceType,
)

E = EpistemicType
S = SourceType


@pytest.mark.parametrize(
    ("et", "st", "expected"),
    [
        (E.OBSERVED, S.USER_STATED, 0.90), (E.OBSERVED, S.USER_DEMONSTRATED, 0.85),
        (E.OBSERVED, S.EXTERNAL_DOCUMENT, 0.75), (E.OBSERVED, S.TOOL_OUTPUT, 0.80),
        (E.ASSERTED, S.USER_STATED, 0.80), (E.ASSERTED, S.USER_DEMONSTRATED, 0.75),
        (E.ASSERTED, S.SYSTEM_INFERRED, 0.60), (E.ASSERTED, S.EXTERNAL_DOCUMENT, 0.65),
        (E.ASSERTED, S.TOOL_OUTPUT, 0.70), (E.INFERRED, S.USER_DEMONSTRATED, 0.60),
        (E.INFERRED, S.SYSTEM_INFERRED, 0.55), (E.INFERRED, S.EXTERNAL_DOCUMENT, 0.50),
        (E.INFERRED, S.TOOL_OUTPUT, 0.55), (E.HYPOTHETICAL, S.USER_STATED, 0.35),
        (E.HYPOTHETICAL, S.SYSTEM_INFERRED, 0.25), (E.HYPOTHETICAL, S.EXTERNAL_DOCUMENT, 0.30),
        (E.CONDITIONAL, S.USER_STATED, 0.45), (E.CONDITIONAL, S.SYSTEM_INFERRED, 0.30),
        (E.CONDITIONAL, S.EXTERNAL_DOCUMENT, 0.35), (E.CONDITIONAL, S.TOOL_OUTPUT, 0.40),
        (E.UNVERIFIED, S.SYSTEM_INFERRED, 0.20), (E.UNVERIFIED, S.EXTERNAL_DOCUMENT, 0.25),
        (E.UNVERIFIED, S.TOOL_OUTPUT, 0.30),
        # not in RFC-0003: filled by configuration for what a user reports someone else said (issue #25)
        (E.UNVERIFIED, S.USER_STATED, 0.25),
    ],
)
def test_matrix_cells(et: EpistemicType, st: SourceType, expected: float) -> None:
    store = new_store()
    kw = {"condition": "if asked"} if et is E.CONDITIONAL else {}
    res = apply(store, extraction(claim(epistemic=et, source_type=st, **kw)))  # type: ignore[arg-type]
    assert [o.op_type for o in res.operations] == [OpType.EXTRACTION_VALIDATED, OpType.ASSERT]
    node = store.get_node(res.outcome.node_ids[0])
    assert node is not None and node.confidence == expected and node.source_type is st


@pytest.mark.parametrize(
    ("et", "st"),
    [
        (E.OBSERVED, S.SYSTEM_INFERRED), (E.INFERRED, S.USER_STATED), (E.HYPOTHETICAL, S.USER_DEMONSTRATED),
        (E.HYPOTHETICAL, S.TOOL_OUTPUT), (E.CONDITIONAL, S.USER_DEMONSTRATED),
        (E.UNVERIFIED, S.USER_DEMONSTRATED), (E.ASSERTED, S.IMPORTED),
    ],
)
def test_should_not_occur_cells_fall_back_and_warn(et: EpistemicType, st: SourceType) -> None:
    store = new_store()
    kw = {"condition": "if asked"} if et is E.CONDITIONAL else {}
    res = apply(store, extraction(claim(epistemic=et, source_type=st, **kw)))  # type: ignore[arg-type]
    kinds = [o.op_type for o in res.operations]
    assert kinds == [OpType.EXTRACTION_VALIDATED, OpType.CONFIDENCE_MATRIX_WARNING, OpType.ASSERT]
    warning = res.operations[1]
    assert warning.payload["epistemic_type"] == et.value and warning.payload["source_type"] == st.value
    assert warning.target_id == res.operations[2].target_id
    node = store.get_node(res.outcome.node_ids[0])
    assert node is not None and node.confidence == 0.50


def test_every_cell_overridable_and_override_silences_warning() -> None:
    cfg = EngineConfig().with_overrides({"ASSERTED:tool_output": 0.72, "observed:system_inferred": 0.70})
    reducer = Reducer(cfg)
    store = new_store()
    res = reducer.apply(store, extraction(claim(source_type="TOOL_OUTPUT"), claim("Bob", epistemic=E.OBSERVED,
                                                                                   source_type="SYSTEM_INFERRED")))
    confidences = [store.get_node(n).confidence for n in res.outcome.node_ids]  # type: ignore[union-attr]
    assert confidences == [0.72, 0.70]
    assert OpType.CONFIDENCE_MATRIX_WARNING not in [o.op_type for o in res.operations]
    with pytest.raises(ValueError):
        EngineConfig().with_overrides({"asserted:nonsense": 0.5})
    with pytest.raises(ValueError):
        EngineConfig().with_overrides({"asserted:tool_output": 1.5})


@pytest.mark.parametrize(
    ("role", "source"),
    [(Role.USER, S.USER_STATED), (Role.PARTICIPANT, S.USER_STATED), (Role.ASSISTANT, S.SYSTEM_INFERRED),
     (Role.SYSTEM, S.SYSTEM_INFERRED), (Role.TOOL, S.TOOL_OUTPUT)],
)
def test_role_maps_to_source_type(role: Role, source: SourceType) -> None:
    store = new_store()
    res = apply(store, extraction(claim(), role=role))
    node = store.get_node(res.outcome.node_ids[0])
    assert node is not None and node.source_type is source and node.role is role


def test_conditional_starts_unknown_with_trimmed_condition() -> None:
    store = new_store()
    res = apply(store, extraction(claim(epistemic=E.CONDITIONAL, condition="  if it rains ")))
    node = store.get_node(res.outcome.node_ids[0])
    assert node is not None
    assert node.condition == "if it rains" and node.condition_state is ConditionState.UNKNOWN
    assert node.epistemic_type is E.CONDITIONAL


def test_creation_rules_rechecked_for_unvalidated_claims() -> None:
    bad_deprecated = Claim.model_construct(**{**claim().model_dump(), "epistemic_type": E.DEPRECATED})
    bad_conditional = Claim.model_construct(**{**claim().model_dump(), "epistemic_type": E.CONDITIONAL})
    bad_condition = Claim.model_construct(**{**claim().model_dump(), "condition": "if so"})
    store = new_store()
    claims = (bad_deprecated, claim("Bob"), bad_conditional, bad_condition)
    unchecked = extraction().model_copy(update={"claims": claims})
    res = apply(store, unchecked)
    assert res.outcome.skipped_claims == (0, 2, 3)
    assert len(res.outcome.node_ids) == 1
    assert res.outcome.node_ids[0] == derive_id(unchecked.input_id, "node", 1)


def test_node_fields_ids_times_and_versions() -> None:
    store = new_store()
    ref = event_ref("e-42", occurred=at(0), recorded=at(0, seconds=5), session_id="sess-1")
    res = apply(store, extraction(claim(node_type=NodeType.INSTRUCTION, epistemic=E.ASSERTED), event=ref))
    input_id = event_input_id("t1", "e-42")
    assert input_id == "event:t1/e-42"  # event ids are unique per tenant, not globally
    node_id = derive_id(input_id, "node", 0)
    assert res.outcome.node_ids == (node_id,)
    assert [o.op_id for o in res.operations] == [derive_id(input_id, 0), derive_id(input_id, 1)]
    node = store.get_node(node_id)
    assert node is not None
    assert node.version == 1 and node.lifecycle is LifecycleState.TENTATIVE
    assert node.valid_from == T0 and node.recorded_at == at(0, seconds=5) and node.created_at == at(0, seconds=5)
    assert node.evidence_refs == ("e-42",) and node.session_id == "sess-1"
    assert node.decay_profile is DecayProfile.SLOW  # instruction override
    assert all(o.occurred_at == at(0, seconds=5) for o in res.operations)


def test_extraction_journal_first_with_rejected_claims_and_empty_results() -> None:
    store = new_store()
    ref = event_ref("e-empty")
    rejected = RejectedClaim(reason_code="quote_not_found", claim={"subject": "x"})
    result = ExtractionResult(
        event=ref, extractor="rules", extractor_version="1", grounding_policy_version="g1", source_hash="h",
        rejected=(rejected,),
    )
    res = apply(store, result)
    assert len(res.operations) == 1
    op = res.operations[0]
    assert op.op_type is OpType.EXTRACTION_VALIDATED and op.target_id == "e-empty"
    assert ExtractionResult.model_validate(op.payload) == result
    (seen,) = store.owner_events("t1", ref.owner_id, "e-empty")
    assert seen.scope.same_scope(ref) and seen.input_id == result.input_id and seen.content_sha256 == ref.content_sha256
    assert store.owner_events("other-tenant", ref.owner_id, "e-empty") == ()
    assert store.owner_events("t1", "someone-else", "e-empty") == ()


def test_failed_extraction_is_journaled_but_creates_nothing() -> None:
    store = new_store()
    result = extraction(claim()).model_copy(update={"status": "failed", "error_category": "timeout"})
    res = apply(store, result)
    assert [o.op_type for o in res.operations] == [OpType.EXTRACTION_VALIDATED]
    assert res.outcome.node_ids == ()
