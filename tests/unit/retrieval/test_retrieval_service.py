from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import timedelta

import pytest
from fake_backend import T0, FakeBackend, make_node
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval.policy import default_exclusion_reason
from retrieval.service import ReferenceTimeRequired, Retriever
from schemas.enums import ConditionState, EpistemicType, LifecycleState, NodeType
from schemas.errors import BackendUnavailable
from schemas.retrieval import Intent, RetrievalRequest
from schemas.search import SearchFilter, SearchHit

REF = T0 + timedelta(days=30)


def _req(query: str = "green tea", **kw: object) -> RetrievalRequest:
    fields: dict[str, object] = {"query": query, "tenant_id": "t1", "owner_id": "alice", "reference_time": REF}
    fields.update(kw)
    return RetrievalRequest(**fields)  # type: ignore[arg-type]


class LeakyBackend(FakeBackend):
    """Ignores every filter: the retriever's own guard must still hold."""

    def lexical(self, query: str, flt: SearchFilter, k: int) -> list[SearchHit]:
        return super().lexical(query, SearchFilter(tenant_id="*", owner_id="*"), k)

    def vector(self, query: str, flt: SearchFilter, k: int) -> list[SearchHit]:
        return super().vector(query, SearchFilter(tenant_id="*", owner_id="*"), k)

    def _matching(self, flt: SearchFilter):  # type: ignore[no-untyped-def]
        return list(self._nodes.values())


class FailingVector(FakeBackend):
    def vector(self, query: str, flt: SearchFilter, k: int) -> list[SearchHit]:
        raise BackendUnavailable("vector index down")


def test_embedding_mismatch_falls_back_to_lexical_with_flags() -> None:
    backend = FakeBackend([make_node("a", "alice likes green tea")], embedding_mismatch=True)
    response = Retriever(backend).retrieve(_req(min_score=0.5))
    assert response.embedding_mismatch and response.min_score_skipped
    assert [kind for kind, _ in backend.calls] == ["lexical"]
    assert response.items[0].trace.paths == ("lexical",)
    assert response.items[0].score == 0.5


def test_vector_failure_degrades_to_lexical() -> None:
    response = Retriever(FailingVector([make_node("a", "alice likes green tea")])).retrieve(_req(min_score=0.9))
    assert [i.node_id for i in response.items] == ["a"]
    assert response.min_score_skipped and "VECTOR_PATH_FAILED" in response.warnings
    assert not response.embedding_mismatch


def test_min_score_compares_semantic_relevance() -> None:
    exact = make_node("exact", "green tea")
    loose = make_node("loose", "alice drinks green tea every single morning before work")
    retriever = Retriever(FakeBackend([exact, loose]))
    everything = retriever.retrieve(_req(mode="explicit"))
    rel = {i.node_id: i.trace.semantic_relevance for i in everything.items}
    assert rel["exact"] == pytest.approx(1.0)
    assert 0 < rel["loose"] < 0.99
    cut = retriever.retrieve(_req(mode="explicit", min_score=0.99))
    assert [i.node_id for i in cut.items] == ["exact"]
    assert [e.reason.split(":")[0] for e in cut.excluded] == ["below_min_score"]
    assert not cut.min_score_skipped


def test_reference_time_comes_from_request_or_injected_clock() -> None:
    backend = FakeBackend([make_node("a", "green tea")])
    request = RetrievalRequest(query="green tea", tenant_id="t1", owner_id="alice")
    with pytest.raises(ReferenceTimeRequired):
        Retriever(backend).retrieve(request)
    response = Retriever(backend, clock=lambda: REF).retrieve(request)
    assert response.reference_time == REF


def test_fingerprint_is_deterministic_and_request_sensitive() -> None:
    retriever = Retriever(FakeBackend([make_node("a", "green tea")]))
    one = retriever.retrieve(_req())
    assert one.request_fingerprint == retriever.retrieve(_req()).request_fingerprint
    assert one.request_fingerprint != retriever.retrieve(_req("black tea")).request_fingerprint
    assert one == retriever.retrieve(_req())


def test_label_trace_and_context_of_an_item() -> None:
    node = make_node("a", "alice likes green tea", epistemic_type=EpistemicType.OBSERVED, confidence=0.9,
                     evidence_refs=("ev1", "ev2"))
    response = Retriever(FakeBackend([node])).retrieve(_req("what green tea does alice like now"))
    (item,) = response.items
    assert response.intent is Intent.CURRENT_STATE
    assert item.label.epistemic_type is EpistemicType.OBSERVED
    assert item.label.evidence_event_ids == ("ev1", "ev2")
    assert item.label.confidence == 0.9
    assert item.trace.paths == ("lexical", "vector")
    assert item.score == 1.0 and item.in_context
    assert "- a <- ev1, ev2" in response.context
    assert response.tokens_used <= response.token_budget


def test_limit_and_budget_error() -> None:
    nodes = [make_node(f"n{i}", f"alice likes green tea variety {i}") for i in range(30)]
    retriever = Retriever(FakeBackend(nodes))
    assert len(retriever.retrieve(_req(limit=5)).items) == 5
    broke = retriever.retrieve(_req(token_budget=0))
    assert broke.context == "" and broke.tokens_used == 0 and "BUDGET_ERROR" in broke.warnings
    assert not any(i.in_context for i in broke.items)


def test_guard_holds_when_the_backend_ignores_filters() -> None:
    nodes = [
        make_node("mine", "alice likes green tea"),
        make_node("bob", "bob likes green tea", owner_id="bob"),
        make_node("t2", "alice likes green tea", tenant_id="t2"),
        make_node("hypo", "alice might like green tea", epistemic_type=EpistemicType.HYPOTHETICAL),
        make_node("proj", "alice likes green tea at work", scope="project", scope_id="p1"),
    ]
    retriever = Retriever(LeakyBackend(nodes))
    assert [i.node_id for i in retriever.retrieve(_req(scope="personal")).items] == ["mine"]
    explicit = retriever.retrieve(_req(mode="explicit"))
    assert {i.node_id for i in explicit.items} == {"mine", "hypo", "proj"}
    assert all("bob" not in e.node_id and e.node_id != "t2" for e in explicit.excluded)


# --- property: DEFAULT mode never shows an excluded kind or two plain sides of a conflict --------------------

WORDS = ["tea", "coffee", "paris", "rome", "jazz", "hiking", "alice", "likes", "lives", "now"]
KINDS = st.fixed_dictionaries(
    {
        # Biased towards live kinds so contested pairs often survive the filter and get checked.
        "epistemic_type": st.sampled_from([*EpistemicType, EpistemicType.ASSERTED, EpistemicType.OBSERVED]),
        "lifecycle": st.sampled_from([*LifecycleState, LifecycleState.STABLE, LifecycleState.CONTESTED]),
        "condition_state": st.sampled_from(list(ConditionState)),
        "confidence": st.sampled_from([0.1, 0.3, 0.31, 0.5, 0.76, 0.8, 0.81, 0.95]),
        "node_type": st.sampled_from([NodeType.FACT, NodeType.PREFERENCE, NodeType.TASK, NodeType.INSTRUCTION]),
        "owner_id": st.sampled_from(["alice", "alice", "alice", "bob"]),
        "days": st.integers(min_value=0, max_value=20),
        "words": st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
    }
)


def _corpus(specs: Sequence[dict], pairs: Sequence[tuple[int, int]]) -> list:  # type: ignore[type-arg]
    contradicts: dict[int, set[int]] = {}
    for a, b in pairs:
        if a < len(specs) and b < len(specs) and a != b:
            contradicts.setdefault(a, set()).add(b)
            contradicts.setdefault(b, set()).add(a)
    nodes = []
    for i, spec in enumerate(specs):
        spec = dict(spec)
        words = spec.pop("words")
        state = spec.pop("condition_state")
        conditional = spec["epistemic_type"] is EpistemicType.CONDITIONAL
        nodes.append(
            make_node(
                f"n{i:02d}",
                " ".join(words),
                condition="if it rains" if conditional else None,
                condition_state=state if conditional else None,
                contradicts=tuple(f"n{j:02d}" for j in sorted(contradicts.get(i, ()))),
                **spec,
            )
        )
    return nodes


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    specs=st.lists(KINDS, min_size=1, max_size=14),
    pairs=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=6),
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
    budget=st.sampled_from([0, 40, 120, 400, 4096]),
    leaky=st.booleans(),
)
def test_default_mode_never_leaks_excluded_kinds_or_plain_conflicts(
    specs: list, pairs: list, query: str, budget: int, leaky: bool  # type: ignore[type-arg]
) -> None:
    nodes = _corpus(specs, pairs)
    backend = (LeakyBackend if leaky else FakeBackend)(nodes)
    response = Retriever(backend).retrieve(_req(query, token_budget=budget, limit=50))
    by_id = {n.node_id: n for n in nodes}
    context_ids = set(re.findall(r"id:(n\d\d)", response.context))
    shown = {i.node_id for i in response.items}
    assert context_ids <= shown
    for node_id in shown:
        node = by_id[node_id]
        assert node.owner_id == "alice"
        assert default_exclusion_reason(node) is None, node_id
    assert response.tokens_used <= max(budget, 0)
    items = {i.node_id: i for i in response.items}
    for a, b in pairs:
        ia, ib = items.get(f"n{a:02d}"), items.get(f"n{b:02d}")
        if ia is None or ib is None or a == b:
            continue
        assert ia.conflict_flag or ib.conflict_flag
        assert ia.contradicts_id is not None and ib.contradicts_id is not None
        both_in_context = ia.node_id in context_ids and ib.node_id in context_ids
        if both_in_context:
            flagged = ia if ia.conflict_flag else ib
            line = next(x for x in response.context.splitlines() if f"id:{flagged.node_id}" in x)
            assert "[conflict]" in line
