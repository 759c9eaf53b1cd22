"""Excerpts in retrieval: their documents, their place in the ranking, how they are packed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from retrieval.fusion import Candidate, FusionConfig, fuse
from retrieval.packing import PackItem, pack
from retrieval.query_analysis import analyze_query
from retrieval.service import _one_slot_per_message
from schemas.common import ScopeRef
from schemas.enums import Role, Scope
from schemas.excerpts import Excerpt, excerpt_id_for
from sinks.documents import embedded_text, excerpt_document, excerpt_of, is_excerpt, lexical_texts

AT = datetime(2024, 5, 8, 18, 0, tzinfo=UTC)
STREAM = ScopeRef(tenant_id="t", owner_id="o", scope=Scope.PERSONAL)


def _excerpt(event_id: str, text: str, *, dates: tuple[str, ...] = (), context: tuple[str, ...] = ()) -> Excerpt:
    return Excerpt(tenant_id="t", owner_id="o", scope=Scope.PERSONAL, excerpt_id=excerpt_id_for(STREAM, event_id),
                   event_id=event_id, conversation_id="c", session_id="s", role=Role.PARTICIPANT, speaker="Jon",
                   speaker_id="jon", text=text, occurred_at=AT, recorded_at=AT, event_dates=dates,
                   context=context)  # fmt: skip


def test_an_excerpt_survives_its_index_document() -> None:
    excerpt = _excerpt("e1", "we got back from lisbon yesterday", dates=("2024-05-07",),
                       context=("Maya: how was the trip??",))  # fmt: skip
    doc = excerpt_document(excerpt)
    assert is_excerpt(doc) and doc.node_id == excerpt.excerpt_id and doc.evidence_refs == ("e1",)
    assert excerpt_of(doc) == excerpt


def test_an_excerpt_is_found_by_its_speaker_its_dates_and_what_it_answers() -> None:
    doc = excerpt_document(_excerpt("e1", "friday at sunset at the viewpoint", dates=("2024-05-03",),
                                    context=("Maya: so when did you propose??",)))  # fmt: skip
    assert "Jon" in lexical_texts(doc)["context"] and "friday 3 may 2024" in lexical_texts(doc)["context"]
    vector_text = embedded_text(doc)
    assert vector_text.endswith("Jon: friday at sunset at the viewpoint") and "when did you propose" in vector_text


@pytest.mark.parametrize(
    ("query", "asks"),
    [
        ("When did Jon propose?", True),
        ("what day did they land", True),
        ("how long after the move did she start", True),
        ("how many weeks ago was the race", True),
        ("Where does Jon work?", False),
        ("what does jon do now", False),
    ],
)
def test_questions_asking_when_are_recognised(query: str, asks: bool) -> None:
    assert analyze_query(query, AT).asks_when is asks


def test_for_a_question_asking_when_a_message_that_says_when_weighs_more() -> None:
    dated = excerpt_document(_excerpt("e1", "we landed yesterday", dates=("2024-05-07",)))
    plain = excerpt_document(_excerpt("e2", "we landed at last"))
    cands = [Candidate(node=plain, lexical_score=2.0, vector_score=0.8),
             Candidate(node=dated, lexical_score=1.9, vector_score=0.79)]  # fmt: skip
    cfg = FusionConfig(k=10, dated_boost=0.5)
    assert fuse(cands, config=cfg)[0].node.node_id == plain.node_id
    assert fuse(cands, config=cfg, asks_when=True)[0].node.node_id == dated.node_id
    assert fuse(cands, config=FusionConfig(k=10), asks_when=True)[0].node.node_id == plain.node_id


def test_one_slot_per_message_drops_an_excerpt_below_its_own_claim_never_a_claim() -> None:
    from retrieval.fusion import Fused
    from schemas.retrieval import ScoreTrace

    def fused(node: object, score: float) -> Fused:
        return Fused(node, score, ScoreTrace(paths=("lexical",), rrf_base=score, fused_score=score))  # type: ignore[arg-type]

    excerpt = excerpt_document(_excerpt("e1", "I live in Porto"))
    other = excerpt_document(_excerpt("e2", "I work at a bakery"))
    claim = excerpt.model_copy(update={"node_id": "claim-1", "metadata": {}})
    ranked = [fused(claim, 0.9), fused(excerpt, 0.8), fused(other, 0.7)]
    claim_ids = {excerpt.node_id: ("claim-1",), other.node_id: ()}
    assert [f.node.node_id for f in _one_slot_per_message(ranked, claim_ids)] == ["claim-1", other.node_id]
    ranked = [fused(excerpt, 0.9), fused(claim, 0.8)]
    assert [f.node.node_id for f in _one_slot_per_message(ranked, claim_ids)] == [excerpt.node_id, "claim-1"]


def test_excerpts_are_packed_as_quotes_after_the_facts() -> None:
    quote = excerpt_document(_excerpt("e1", "we got back from lisbon yesterday", dates=("2024-05-07",)))
    packed = pack([PackItem(node=quote, score=2.0, path_count=2, confidence=1.0)], 4096)
    assert packed.context.splitlines() == [
        "## what_was_said (quotes of messages, not facts: who said what, and when)",
        "- Jon (participant) on 2024-05-08 (about 2024-05-07): “we got back from lisbon yesterday” "
        f"| id:{quote.node_id}",
    ]
    assert "provenance_refs" not in packed.sections
