"""The extraction payload (``encoded_json``) against pydantic's JSON mode and ``canonical_json``.

The reducer journals an extraction result's JSON as the EXTRACTION_VALIDATED payload and hands
its canonical bytes to sealing, so both must be the reference's. Expectations come from
``model_dump(mode="json")`` and ``canonical_json``, never from the code under test.
"""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from engine_factories import claim, extraction, new_store
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.canonical_fast as fast
from engine.reducer import Reducer
from schemas.canonical import canonical_json
from schemas.claims import Claim, EvidenceSpan, ExtractionResult, Quantity, RejectedClaim
from schemas.enums import EpistemicType, NodeType, Polarity, SourceType, TemporalIntent

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)


def _same(model: Any, data: dict[str, Any], text: bytes) -> None:
    reference = model.model_dump(mode="json")
    assert data == reference
    assert json.dumps(data) == json.dumps(reference)  # same keys in the same order, same types
    assert text == canonical_json(reference).encode("utf-8")


@st.composite
def _claims(draw: st.DrawFn) -> Claim:
    et = draw(st.sampled_from([e for e in EpistemicType if e is not EpistemicType.DEPRECATED]))
    quote = draw(_text)
    return Claim(
        node_type=draw(st.sampled_from(list(NodeType))),
        subject=draw(_text),
        predicate=draw(_text),
        object=draw(st.none() | _text),
        polarity=draw(st.sampled_from(list(Polarity))),
        epistemic_type=et,
        source_type=draw(st.none() | st.sampled_from(list(SourceType))),
        condition="if " + draw(_text) if et is EpistemicType.CONDITIONAL else None,
        temporal_intent=draw(st.none() | st.sampled_from(list(TemporalIntent))),
        replaces_object=draw(st.none() | _text),
        evidence_quote=quote,
        evidence_span=draw(st.none() | st.just(EvidenceSpan(start=0, end=len(quote)))),
        claim_text=draw(st.none() | _text),
        classification_confidence=draw(st.floats(0.0, 1.0)),
        quantity=draw(st.none() | st.builds(Quantity, value=st.from_regex(r"\A-?[0-9]{1,6}(\.[0-9]{1,3})?\Z"),
                                             unit=_text, source_text=_text)),
        suggested_scope=draw(st.none() | _text),
        metadata=draw(st.dictionaries(_text, _json, max_size=3)),
    )


@settings(max_examples=120, deadline=None)
@given(
    claims=st.lists(_claims(), max_size=3),
    rejected=st.lists(st.builds(RejectedClaim, reason_code=_text, detail=_text,
                                claim=st.dictionaries(_text, _json, max_size=3)), max_size=2),
    failed=st.booleans(),
    model=st.none() | _text,
)
def test_extraction_results_match_pydantic(
    claims: list[Claim], rejected: list[RejectedClaim], failed: bool, model: str | None
) -> None:
    base = extraction(claim("s", "uses", "x"))
    result = ExtractionResult(
        event=base.event, extractor="x", extractor_version="1", model=model, grounding_policy_version="g",
        source_hash="0" * 64, claims=tuple(claims), rejected=tuple(rejected),
        status="failed" if failed else "ok", error_category="e" if failed else None,
    )
    _same(result, *fast.encoded_json(result))
    op = Reducer().apply(new_store(), result).operations[0]
    assert op.checksum == op.compute_checksum()
    assert fast.operation_bytes(op) == canonical_json(op.model_dump(mode="json")).encode("utf-8")


def test_values_of_other_types_than_declared_are_what_pydantic_makes_of_them() -> None:
    base = extraction(claim("s", "uses", "x"))
    odd_zone = base.event.model_copy(
        update={"occurred_at": datetime(2026, 1, 1, 9, tzinfo=timezone(timedelta(hours=-5)))}
    )
    cases: list[ExtractionResult] = [
        base.model_copy(update={"event": odd_zone}),  # a zone pydantic writes as an offset
        base.model_copy(update={"claims": [base.claims[0]]}),  # a list where a tuple is declared
        base.model_copy(update={"claims": (base.claims[0].model_copy(update={"classification_confidence": 1}),)}),
        base.model_copy(update={"claims": (base.claims[0].model_copy(update={"metadata": {"t": (1, 2e-7)}}),)}),
    ]

    class Sub(Claim):
        pass

    cases.append(base.model_copy(update={"claims": (Sub.model_construct(**base.claims[0].__dict__),)}))
    for case in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pydantic notes the unexpected types as it writes them
            _same(case, *fast.encoded_json(case))


def test_non_finite_floats_are_refused_as_the_reference_refuses_them() -> None:
    base = extraction(claim("s", "uses", "x"))
    odd = base.claims[0].model_copy(update={"classification_confidence": float("nan")})
    bad = base.model_copy(update={"claims": (odd,)})
    with pytest.raises(ValueError):
        canonical_json(bad.model_dump(mode="json"))
    with pytest.raises(ValueError):
        fast.encoded_json(bad)


def test_naive_and_utc_datetimes_are_written_as_pydantic_writes_them() -> None:
    base = extraction(claim("s", "uses", "x"))
    for when in (datetime(2026, 5, 17, 8, 30, 1, 250, tzinfo=UTC), datetime(1, 1, 1, tzinfo=UTC)):
        event = base.event.model_copy(update={"occurred_at": when, "recorded_at": when})
        result = base.model_copy(update={"event": event})
        _same(result, *fast.encoded_json(result))
