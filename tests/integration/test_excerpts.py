"""Source excerpts on a real data directory: one per admitted message, linked to its claims, filtered
like them in DEFAULT mode, surviving restart and rebuilt from the raw events when their collection is lost."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from schemas.retrieval import RetrievalMode, RetrievalRequest
from sinks.documents import excerpt_of

pytestmark = pytest.mark.integration

AT = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def _event(i: int, content: str, *, role: str = "user", speaker: str = "Maya", speaker_id: str = "maya",
           at: str = "2024-02-{day:02d}T20:15:00-05:00", **extra: Any) -> str:  # fmt: skip
    body = {"event_id": f"x-{i}", "tenant_id": "t1", "owner_id": "maya", "scope": "personal",
            "conversation_id": "c1", "session_id": f"s{i // 4}", "role": role, "speaker": speaker,
            "speaker_id": speaker_id, "content": content, "occurred_at": at.format(day=i + 1), **extra}  # fmt: skip
    return json.dumps(body)


CONVERSATION = [
    _event(0, "hey jon! guess what, I started a pottery class yesterday"),
    _event(1, "no way, nice. I work at the hospital in Leeds now btw", role="participant", speaker="Jon",
           speaker_id="jon"),
    _event(2, "look at my first bowl", attachments=[{"kind": "image", "caption": "a wonky blue ceramic bowl"}]),
    _event(3, "I might move to Lisbon next year"),
    _event(4, "I live in Paris."),
    _event(5, "I moved from Paris to Berlin."),
    _event(6, "haha ok"),
]


def _ask(runner: Any, query: str, mode: RetrievalMode = RetrievalMode.DEFAULT, **kw: Any) -> Any:
    request = RetrievalRequest(query=query, tenant_id="t1", owner_id="maya", mode=mode, limit=20,
                               reference_time=AT, **kw)  # fmt: skip
    return runner.retrieve(request)


def _excerpts(response: Any) -> dict[str, Any]:
    return {item.event_id: item for item in response.items if item.kind == "excerpt"}


@pytest.fixture
def runner(embedded_runners: Callable[..., Any]) -> Any:
    r = embedded_runners("excerpts")
    report = r.ingest_lines(CONVERSATION)
    assert report.events == len(CONVERSATION)
    return r


def test_every_admitted_message_is_an_excerpt_with_speaker_text_and_dates(runner: Any) -> None:
    ids = [f"x-{i}" for i in range(len(CONVERSATION))]
    docs = {d.evidence_refs[0]: excerpt_of(d) for d in runner.excerpts.cited(ids, _flt(), limit=100)}
    assert sorted(docs) == sorted(ids)
    first = docs["x-0"]
    assert (first.speaker, first.speaker_id, first.role.value) == ("Maya", "maya", "user")
    # sent 20:15 at -05:00 on 1 Feb (01:15 UTC on the 2nd): "yesterday" is the sender's 31 January
    assert first.event_dates == ("2024-01-31",)
    assert docs["x-1"].speaker == "Jon"
    assert docs["x-2"].text == "look at my first bowl\n[image: a wonky blue ceramic bowl]"


def _flt() -> Any:
    from schemas.search import SearchFilter

    return SearchFilter(tenant_id="t1", owner_id="maya")


def test_excerpts_link_to_the_claims_taken_from_them(runner: Any) -> None:
    response = _ask(runner, "pottery class")
    excerpt = _excerpts(response)["x-0"]
    claims = [n for n in runner.store.owner_nodes("t1", "maya") if n.evidence_refs[0] == "x-0"]
    assert claims and excerpt.claim_ids == tuple(sorted(n.node_id for n in claims))
    # and the claim points back at the message
    assert all(runner.node(i, tenant_id="t1").evidence_refs[0] == "x-0" for i in excerpt.claim_ids)


def test_a_question_naming_a_person_meets_what_they_said(runner: Any) -> None:
    response = _ask(runner, "where does Jon work?")
    top = response.items[0]  # his claim (about Jon, not "user") or his words
    assert top.speaker == "Jon" and (top.event_id or top.label.evidence_event_ids[0]) == "x-1"
    said = _excerpts(_ask(runner, "where does Jon work?", sources="excerpts"))
    assert next(iter(said)) == "x-1"


def test_a_caption_is_part_of_what_was_said(runner: Any) -> None:
    response = _ask(runner, "what colour was the bowl", sources="excerpts")
    assert response.items[0].event_id == "x-2"


def test_default_leaves_out_an_excerpt_whose_claims_are_all_excluded(runner: Any) -> None:
    default = _excerpts(_ask(runner, "move to Lisbon"))
    assert "x-3" not in default  # its only claim is HYPOTHETICAL
    explicit = _ask(runner, "move to Lisbon", RetrievalMode.EXPLICIT, sources="excerpts")
    assert "x-3" in _excerpts(explicit)
    reasons = {e.node_id: e.reason for e in explicit.excluded}
    assert reasons[_excerpts(explicit)["x-3"].node_id] == "excerpt_claims_excluded:epistemic_filtered:hypothetical"
    # superseded: "I live in Paris" no longer holds, so its excerpt is not current context either
    assert "x-4" not in _excerpts(_ask(runner, "live in Paris", sources="excerpts"))
    assert "x-5" in _excerpts(_ask(runner, "live in Paris", sources="excerpts"))
    # in the full ranking an excerpt never comes below a claim taken from its message (the claim cites it)
    for query in ("live in Berlin", "live in Paris", "Jon hospital", "pottery"):
        cited: set[str] = set()
        for item in _ask(runner, query).items:
            if item.kind == "claim":
                cited.add(item.label.evidence_event_ids[0])
            else:
                assert item.event_id not in cited, (query, item.event_id)


def test_rebuilding_the_indexes_gives_the_same_answers(runner: Any) -> None:
    before = [i.node_id for i in _ask(runner, "pottery bowl Jon Berlin").items]
    assert runner.rebuild_indexes() == {"claims": len(runner.store), "excerpts": len(CONVERSATION)}
    assert [i.node_id for i in _ask(runner, "pottery bowl Jon Berlin").items] == before


def test_an_excerpt_without_claims_is_kept(runner: Any) -> None:
    assert "x-6" in _excerpts(_ask(runner, "haha ok", sources="excerpts"))


def test_the_packed_context_quotes_excerpts_after_the_facts(runner: Any) -> None:
    context = _ask(runner, "where does Jon work?").context
    assert "## what_was_said" in context
    facts, _, quotes = context.partition("## what_was_said")
    assert "Jon (participant) on 2024-02-03" in quotes and "hospital in Leeds" in quotes
    assert "Jon (participant)" not in facts


def test_excerpts_survive_restart_and_are_rebuilt_from_the_raw_events(
    runner: Any, embedded_runners: Callable[..., Any]
) -> None:
    data_dir, log = runner.data_dir, runner.log
    before = sorted(i.node_id for i in _ask(runner, "bowl pottery Paris Berlin Lisbon Jon", sources="excerpts").items)
    runner.close()
    from epistream.runner import EmbeddedRunner
    from schemas.settings import Settings
    from sinks.embedding import HashEmbedder

    def reopen() -> Any:
        return EmbeddedRunner(data_dir, Settings(data_dir=data_dir), embedder=HashEmbedder(), log=log,
                              clock=lambda: AT)  # fmt: skip

    again = reopen()
    try:
        assert len(again.excerpts) == len(CONVERSATION)
        assert sorted(i.node_id for i in _ask(again, "bowl pottery Paris Berlin Lisbon Jon",
                                              sources="excerpts").items) == before  # fmt: skip
        assert again.verify_replay() == []
    finally:
        again.close()
    shutil.rmtree(data_dir / "excerpts")
    rebuilt = reopen()
    try:
        assert len(rebuilt.excerpts) == len(CONVERSATION)
        assert sorted(i.node_id for i in _ask(rebuilt, "bowl pottery Paris Berlin Lisbon Jon",
                                              sources="excerpts").items) == before  # fmt: skip
    finally:
        rebuilt.close()
