"""One event yields at most MAX_CLAIMS_PER_EVENT claims: a message of a thousand statements must not
become Kafka records too large to send (which would stall its partition for good)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime

from extractors import reasons
from extractors.base import get_extractor
from extractors.validation import MAX_CLAIMS_PER_EVENT, MAX_PROPOSALS_PER_EVENT, validate_claims
from schemas.events import ConversationEvent
from streams import extraction_records


def _content(n: int) -> str:
    return " ".join(f"I like tea number {i}." for i in range(n))


def _proposal(i: int) -> dict[str, object]:
    return {"subject": "user", "predicate": "likes", "object": f"tea number {i}", "polarity": "positive",
            "epistemic_type": "ASSERTED", "evidence_quote": f"I like tea number {i}."}  # fmt: skip


def test_proposals_beyond_the_cap_are_dropped_and_counted_once(event: Callable[..., ConversationEvent]) -> None:
    n = MAX_PROPOSALS_PER_EVENT + 40
    out = validate_claims(event(_content(n)), [_proposal(i) for i in range(n)])
    assert [c.object for c in out.accepted] == [f"tea number {i}" for i in range(MAX_CLAIMS_PER_EVENT)]
    [summary] = [r for r in out.rejected if r.reason_code == reasons.TOO_MANY_CLAIMS]
    assert summary.claim == {"dropped": n - MAX_CLAIMS_PER_EVENT}
    assert len(out.rejected) == 1  # every other proposal was valid


def test_at_the_cap_nothing_is_dropped(event: Callable[..., ConversationEvent]) -> None:
    out = validate_claims(event(_content(MAX_CLAIMS_PER_EVENT)), [_proposal(i) for i in range(MAX_CLAIMS_PER_EVENT)])
    assert len(out.accepted) == MAX_CLAIMS_PER_EVENT and out.rejected == []


def test_a_message_of_a_thousand_statements_stays_a_small_extraction_record() -> None:
    """The case that stalled a partition: ~1,245 sentences in one 31 KiB message."""
    content = _content(1245)
    assert len(content.encode()) < 32 * 1024  # admitted by the default content limit
    ev = ConversationEvent(event_id="big", tenant_id="t", owner_id="u", scope="personal", role="user",
                           content=content, occurred_at=datetime(2026, 1, 1, tzinfo=UTC))  # fmt: skip
    result = get_extractor("rules").extract(ev)
    assert len(result.claims) == MAX_CLAIMS_PER_EVENT
    assert reasons.TOO_MANY_CLAIMS in {r.reason_code for r in result.rejected}
    record = extraction_records.dumps([result])
    assert len(record) < 512 * 1024, len(record)  # streams.record_size.MAX_RECORD_BYTES: one record, sendable
    assert json.loads(record)  # and well-formed
