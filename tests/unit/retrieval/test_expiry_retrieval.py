"""An expired claim is not silently reused (TRUST-FACTS §4): DEFAULT retrieval leaves it out with the
reason ``expired``, as it drops a claim whose condition EXPIRED (PRME-FACTS §4); EXPLICIT shows it flagged.
Assertion state says the same at its ``valid_at``."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from fake_backend import T0, FakeBackend, make_node

from engine.assertion_state import assertion_state
from retrieval.policy import apply_policy, default_exclusion_reason, default_flags
from retrieval.service import Retriever
from schemas import EventCodes, parse_event
from schemas.enums import EpistemicType
from schemas.errors import InvalidEvent
from schemas.retrieval import RetrievalMode, RetrievalRequest

EXPIRY = T0 + timedelta(days=3)


def _req(ref: object, mode: str = "default") -> RetrievalRequest:
    return RetrievalRequest(query="green tea", tenant_id="t1", owner_id="alice", reference_time=ref,
                            mode=mode)  # type: ignore[arg-type]  # fmt: skip


def test_the_policy_drops_an_expired_claim_only_after_its_expiry() -> None:
    node = make_node("a", "alice likes green tea", expires_at=EXPIRY)
    assert default_exclusion_reason(node, at=EXPIRY) is None
    assert default_exclusion_reason(node, at=EXPIRY + timedelta(seconds=1)) == "expired"
    assert default_exclusion_reason(node) is None  # no reference time, no expiry rule
    # an earlier rule keeps its reason
    hypo = make_node("h", "alice might like tea", expires_at=EXPIRY, epistemic_type=EpistemicType.HYPOTHETICAL)
    assert default_exclusion_reason(hypo, at=EXPIRY + timedelta(days=1)) == "epistemic_filtered:hypothetical"
    assert default_flags(node, EXPIRY + timedelta(seconds=1)) == ("expired", "not_default")
    assert default_flags(node, EXPIRY) == ()
    kept, excluded = apply_policy([node], RetrievalMode.EXPLICIT, at=EXPIRY + timedelta(seconds=1))
    assert kept == [node] and [(e.reason, e.included) for e in excluded] == [("expired", True)]


def test_default_retrieval_leaves_out_an_expired_claim_and_explicit_flags_it() -> None:
    backend = FakeBackend([make_node("a", "alice likes green tea", expires_at=EXPIRY),
                           make_node("b", "alice likes green tea with honey")])  # fmt: skip
    before = Retriever(backend).retrieve(_req(EXPIRY))
    assert {i.node_id for i in before.items} == {"a", "b"}
    [a] = [i for i in before.items if i.node_id == "a"]
    assert a.expires_at == EXPIRY and "expired" not in a.flags

    after = Retriever(backend).retrieve(_req(EXPIRY + timedelta(days=1)))
    assert [i.node_id for i in after.items] == ["b"]
    assert "id:a" in before.context and "id:a" not in after.context and "id:b" in after.context

    explicit = Retriever(backend).retrieve(_req(EXPIRY + timedelta(days=1), "explicit"))
    [a] = [i for i in explicit.items if i.node_id == "a"]
    assert "expired" in a.flags and "not_default" in a.flags
    assert ("a", "expired") in {(e.node_id, e.reason) for e in explicit.excluded}


def test_assertion_state_excludes_an_expired_claim_at_its_valid_at() -> None:
    node = make_node("a", "green tea", expires_at=EXPIRY)
    current = assertion_state([node], [], subject="alice", predicate="likes", valid_at=EXPIRY)
    assert current.status == "single"
    later = assertion_state([node], [], subject="alice", predicate="likes", valid_at=EXPIRY + timedelta(hours=1))
    assert later.status == "unknown"
    assert later.timeline[0].exclusion_reasons == ("expired",)


def _event(**over: object) -> str:
    base: dict[str, object] = {
        "event_id": "evt-1", "tenant_id": "acme", "owner_id": "alice", "scope": "personal", "role": "user",
        "content": "The door code is 4711 until Friday.", "occurred_at": "2026-03-01T10:00:00+01:00",
    }  # fmt: skip
    return json.dumps({**base, **over})


def test_an_event_carries_its_expiry_and_one_not_after_it_was_said_is_refused() -> None:
    event = parse_event(_event(expires_at="2026-03-06T18:00:00+01:00"))
    assert event.expires_at is not None and event.expires_at.isoformat() == "2026-03-06T17:00:00+00:00"
    assert "expires_at" not in parse_event(_event()).model_dump(mode="json")  # unset: the same bytes as before
    for bad, code in (
        ("2026-03-01T10:00:00+01:00", EventCodes.EXPIRES_BEFORE_OCCURRED),
        ("2026-02-01T00:00:00Z", EventCodes.EXPIRES_BEFORE_OCCURRED),
        ("2026-03-06T18:00:00", EventCodes.NAIVE_TIMESTAMP),
        ("friday", EventCodes.INVALID_TIMESTAMP),
    ):
        with pytest.raises(InvalidEvent) as info:
            parse_event(_event(expires_at=bad))
        assert info.value.code == code, bad
