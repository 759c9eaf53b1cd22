from __future__ import annotations

from datetime import timedelta

from fake_backend import T0, FakeBackend, make_node

from retrieval.fusion import Candidate, fuse
from retrieval.presentation import leads, present
from retrieval.service import Retriever
from schemas.enums import EpistemicType, LifecycleState
from schemas.retrieval import RetrievalRequest


def _pair(conf_a: float, days_a: int, conf_b: float, days_b: int) -> tuple:
    a = make_node("a", "alice lives in paris", confidence=conf_a, days=days_a, contradicts=("b",),
                  lifecycle=LifecycleState.CONTESTED)
    b = make_node("b", "alice lives in rome", confidence=conf_b, days=days_b, contradicts=("a",),
                  lifecycle=LifecycleState.CONTESTED)
    return a, b


def _present(*nodes):  # type: ignore[no-untyped-def]
    fused = fuse([Candidate(n, lexical_score=float(len(nodes) - i)) for i, n in enumerate(nodes)])
    return present(fused)


def test_higher_confidence_first_outside_the_window() -> None:
    a, b = _pair(0.70, 10, 0.80, 0)  # a newer but 0.10 less confident
    out = _present(a, b)
    assert [p.fused.node.node_id for p in out] == ["b", "a"]
    assert [p.conflict_flag for p in out] == [False, True]
    assert out[0].contradicts_ids == ("a",) and out[1].contradicts_ids == ("b",)


def test_newer_first_within_point_zero_five() -> None:
    a, b = _pair(0.76, 10, 0.80, 0)
    assert [p.fused.node.node_id for p in _present(b, a)] == ["a", "b"]
    exact = _pair(0.75, 10, 0.80, 0)  # exactly 0.05 apart counts as within
    assert leads(exact[0], exact[1])
    wider = _pair(0.74, 10, 0.80, 0)
    assert not leads(wider[0], wider[1])


def test_group_takes_the_position_of_its_best_member() -> None:
    a, b = _pair(0.9, 0, 0.5, 0)
    other = make_node("c", "alice likes jazz")
    out = _present(other, b, a)  # b ranked above a, but a leads
    assert [p.fused.node.node_id for p in out] == ["c", "a", "b"]
    assert out[1].group == ("a", "b")


def test_resolved_contradiction_is_not_a_conflict() -> None:
    a, b = _pair(0.9, 0, 0.5, 0)
    loser = b.model_copy(update={"lifecycle": LifecycleState.DEPRECATED, "epistemic_type": EpistemicType.DEPRECATED})
    out = _present(a, loser)
    assert all(not p.conflict_flag and not p.contradicts_ids for p in out)


def test_three_way_conflict_flags_every_pairwise_loser() -> None:
    a = make_node("a", confidence=0.9, contradicts=("b", "c"))
    b = make_node("b", confidence=0.6, contradicts=("a",))
    c = make_node("c", confidence=0.3, contradicts=("a",))
    out = _present(c, b, a)
    assert [p.fused.node.node_id for p in out] == ["a", "b", "c"]
    assert [p.conflict_flag for p in out] == [False, True, True]
    assert out[0].contradicts_ids == ("b", "c")


REF = T0 + timedelta(days=30)


def _req(query: str, mode: str = "default") -> RetrievalRequest:
    return RetrievalRequest(query=query, tenant_id="t1", owner_id="alice", reference_time=REF, mode=mode)


def test_retriever_fetches_the_missing_side_of_a_pair() -> None:
    a, b = _pair(0.6, 5, 0.9, 0)  # b leads on confidence but does not match the query
    backend = FakeBackend([a, b])
    response = Retriever(backend).retrieve(_req("paris"))
    assert [i.node_id for i in response.items] == ["b", "a"]
    lead, lower = response.items
    assert (lead.conflict_flag, lower.conflict_flag) == (False, True)
    assert (lead.contradicts_id, lower.contradicts_id) == ("a", "b")
    assert lead.trace.paths == ("contradiction",)
    assert ["b"] in backend.get_calls
    assert "CONFLICT" in response.context
    assert response.sections["contested_claims"] == ("b", "a")
    assert "[conflict]" in next(line for line in response.context.splitlines() if "id:a" in line)


def test_the_other_side_of_a_conflict_is_added_beyond_the_limit() -> None:
    """docs/model.md: a conflict is never shown half, so ``limit 1`` answers both sides of it."""
    a, b = _pair(0.6, 5, 0.9, 0)
    other = make_node("c", "alice drinks tea in paris")
    response = Retriever(FakeBackend([a, b, other])).retrieve(
        RetrievalRequest(query="paris", tenant_id="t1", owner_id="alice", reference_time=REF, limit=1, sources="claims")
    )
    assert sorted(i.node_id for i in response.items) == ["a", "b"]
    added = next(i for i in response.items if "contradiction" in i.trace.paths)
    assert added.node_id == "b"


def test_partner_of_another_owner_or_tenant_is_never_shown() -> None:
    mine = make_node("a", "alice lives in paris", contradicts=("x", "y"), lifecycle=LifecycleState.CONTESTED)
    theirs = make_node("x", "bob lives in rome", owner_id="bob", contradicts=("a",))
    foreign = make_node("y", "alice lives in rome", tenant_id="t2", contradicts=("a",))
    response = Retriever(FakeBackend([mine, theirs, foreign])).retrieve(_req("paris", "explicit"))
    assert [i.node_id for i in response.items] == ["a"]
    assert "id:x" not in response.context and "id:y" not in response.context
    assert response.items[0].contradicts_id is None


def test_default_mode_does_not_pull_in_an_excluded_partner() -> None:
    a = make_node("a", "alice lives in paris", contradicts=("h",))
    h = make_node("h", "alice lives in rome", contradicts=("a",), epistemic_type=EpistemicType.HYPOTHETICAL)
    default = Retriever(FakeBackend([a, h])).retrieve(_req("paris"))
    assert [i.node_id for i in default.items] == ["a"]
    explicit = Retriever(FakeBackend([a, h])).retrieve(_req("paris", "explicit"))
    assert {i.node_id for i in explicit.items} == {"a", "h"}
    assert any(i.conflict_flag for i in explicit.items)
