"""OpenSearchIndex queries against the real OpenSearch: isolation, pushed-down filters, ranks.

The filter tests compare the backend with ``retrieval.policy.node_matches_filter``
(the reference semantics) over a corpus where every node matches the query
text, so any difference is the filter translation's fault.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opensearchpy import OpenSearch
from test_opensearch_support import T0, WordEmbedder, drop_alias, make_node, opensearch_client, unique_alias

from retrieval.policy import (
    DEFAULT_CONDITION_STATES,
    DEFAULT_EPISTEMIC_TYPES,
    DEFAULT_LIFECYCLES,
    UNVERIFIED_THRESHOLD,
    node_matches_filter,
)
from schemas.canonical import iso
from schemas.enums import (
    ConditionState,
    EpistemicType,
    LifecycleState,
    NodeType,
    Scope,
    SourceType,
)
from schemas.nodes import MemoryNode
from schemas.search import SearchFilter
from sinks.opensearch_index import OpenSearchIndex

pytestmark = pytest.mark.integration

ALICE = SearchFilter(tenant_id="t1", owner_id="alice")
DEFAULT = ALICE.model_copy(
    update={
        "epistemic_types": DEFAULT_EPISTEMIC_TYPES,
        "lifecycles": DEFAULT_LIFECYCLES,
        "condition_states": DEFAULT_CONDITION_STATES,
        "unverified_min_confidence": UNVERIFIED_THRESHOLD,
    }
)


@pytest.fixture(scope="module")
def client() -> OpenSearch:
    return opensearch_client()


@pytest.fixture
def alias(client: OpenSearch) -> Iterator[str]:
    name = unique_alias("it-search")
    yield name
    drop_alias(client, name)


def _ids(hits: list) -> list[str]:
    return [h.node_id for h in hits]


# ----------------------------------------------------------------------------- isolation


def test_lexical_never_returns_another_owner_or_tenant(client: OpenSearch, alias: str) -> None:
    index = OpenSearchIndex(client, alias, WordEmbedder())
    query = "favourite tea oolong"
    index.upsert(
        [
            make_node("bob-1", "favourite tea oolong favourite tea oolong", owner_id="bob"),
            make_node("t2-1", "favourite tea oolong favourite tea oolong", tenant_id="t2"),
            make_node("alice-1", "alice drinks tea in the morning"),
            make_node("alice-2", "alice drinks coffee"),
        ]
    )
    index.refresh()
    assert _ids(index.lexical(query, ALICE, 10)) == ["alice-1"]
    assert _ids(index.lexical(query, ALICE.model_copy(update={"owner_id": "bob"}), 10)) == ["bob-1"]
    assert _ids(index.lexical(query, ALICE.model_copy(update={"tenant_id": "t2"}), 10)) == ["t2-1"]
    assert index.lexical("   ", ALICE, 10) == [] and index.lexical(query, ALICE, 0) == []


def test_filtered_knn_returns_k_results_from_the_owner_despite_closer_foreign_vectors(
    client: OpenSearch, alias: str
) -> None:
    embedder = WordEmbedder()
    index = OpenSearchIndex(client, alias, embedder)
    query = "where does alice keep the spare house key"
    foreign = [make_node(f"bob-{i}", query, owner_id="bob") for i in range(40)]
    foreign += [make_node(f"t2-{i}", query, tenant_id="t2") for i in range(10)]
    mine = [make_node(f"alice-{i}", f"alice keeps item {i} somewhere") for i in range(6)]
    index.upsert(foreign + mine)
    index.refresh()

    # Without a filter the nearest neighbours are all someone else's: a post-filter would come back empty.
    vec = embedder.embed([query])[0].tolist()
    raw = client.search(index=alias, body={"size": 5, "query": {"knn": {"embedding": {"vector": vec, "k": 5}}}})
    assert all(not h["_id"].startswith("alice-") for h in raw["hits"]["hits"])

    hits = index.vector(query, ALICE, 5)
    assert len(hits) == 5 and all(h.node_id.startswith("alice-") for h in hits)
    assert set(_ids(index.vector(query, ALICE, 50))) == {n.node_id for n in mine}
    assert all(-1.0 <= h.score < 0.99 for h in hits)
    assert set(_ids(index.vector(query, ALICE.model_copy(update={"owner_id": "bob"}), 5))) <= {
        n.node_id for n in foreign
    }


def test_competition_ranks_and_cosine_scores(client: OpenSearch, alias: str) -> None:
    index = OpenSearchIndex(client, alias, WordEmbedder())
    index.upsert(
        [
            make_node("a", "alice grows basil"),
            make_node("b", "alice grows basil"),
            make_node("c", "alice grows basil"),
            make_node("d", "alice grows tomatoes and basil on the balcony"),
        ]
    )
    index.refresh()
    lexical = index.lexical("basil", ALICE, 10)
    assert [(h.node_id, h.rank) for h in lexical] == [("a", 1), ("b", 1), ("c", 1), ("d", 4)]
    vector = index.vector("alice grows basil", ALICE, 3)
    assert [(h.node_id, h.rank) for h in vector] == [("a", 1), ("b", 1), ("c", 1)]
    assert vector[0].score == pytest.approx(1.0, abs=1e-5)


# ----------------------------------------------------------------------------- epistemic filters


def _corpus() -> list[MemoryNode]:
    """Every node mentions tea, so the query matches all of them and only filters decide."""
    nodes: list[MemoryNode] = []
    add = nodes.append
    for i, etype in enumerate(EpistemicType):
        if etype in (EpistemicType.CONDITIONAL, EpistemicType.UNVERIFIED):
            continue
        add(make_node(f"type-{etype.value.lower()}", f"alice tea fact {i}", epistemic_type=etype))
    for state in LifecycleState:
        add(make_node(f"life-{state.value.lower()}", "alice tea lifecycle", lifecycle=state))
    for i, conf in enumerate((0.1, 0.30, 0.30000001, 0.31, 0.9)):
        add(make_node(f"unv-{i}", "alice tea rumour", epistemic_type=EpistemicType.UNVERIFIED, confidence=conf))
    add(make_node("asserted-0.30", "alice tea low confidence", confidence=0.30))
    for state in ConditionState:
        add(
            make_node(
                f"cond-{state.value.lower()}",
                "alice tea if it rains",
                epistemic_type=EpistemicType.CONDITIONAL,
                condition_state=state,
            )
        )
    cond = EpistemicType.CONDITIONAL
    add(make_node("cond-meta-true", "alice tea if sunny", epistemic_type=cond, condition_state=None,
                  metadata={"condition_state": "TRUE"}))
    add(make_node("cond-meta-bad", "alice tea if windy", epistemic_type=cond, condition_state=None,
                  metadata={"condition_state": "MAYBE"}))
    add(make_node("cond-none", "alice tea if cold", epistemic_type=cond, condition_state=None))
    for i, ntype in enumerate((NodeType.PREFERENCE, NodeType.DECISION, NodeType.TASK)):
        add(make_node(f"ntype-{i}", "alice tea kinds", node_type=ntype, source_type=list(SourceType)[i + 1]))
    add(make_node("proj-1", "alice tea project", scope=Scope.PROJECT, scope_id="p1"))
    add(make_node("proj-2", "alice tea project", scope=Scope.PROJECT, scope_id="p2"))
    # time: valid 10..20 days after T0; open-ended from day 15; learned late
    add(make_node("closed", "alice tea closed interval", days=10, valid_to=T0 + timedelta(days=20)))
    add(make_node("open-late", "alice tea open interval", days=15))
    add(make_node("learned-late", "alice tea learned", valid_from=T0, recorded_at=T0 + timedelta(days=30)))
    # never visible to alice
    add(make_node("bob-tea", "alice tea tea tea", owner_id="bob"))
    add(make_node("t2-tea", "alice tea tea tea", tenant_id="t2"))
    return nodes


CORPUS = _corpus()


@pytest.fixture(scope="module")
def corpus_index(client: OpenSearch) -> Iterator[OpenSearchIndex]:
    name = unique_alias("it-filters")
    index = OpenSearchIndex(client, name, WordEmbedder())
    index.upsert(CORPUS)
    index.refresh()
    yield index
    drop_alias(client, name)


def _expected(flt: SearchFilter) -> set[str]:
    return {n.node_id for n in CORPUS if node_matches_filter(n, flt)}


def _check(index: OpenSearchIndex, flt: SearchFilter) -> None:
    want = _expected(flt)
    assert set(_ids(index.lexical("tea", flt, 200))) == want
    assert set(_ids(index.vector("alice tea", flt, 200))) == want


def test_default_mode_filter_is_pushed_down(corpus_index: OpenSearchIndex) -> None:
    got = set(_ids(corpus_index.lexical("tea", DEFAULT, 200)))
    assert got == _expected(DEFAULT)
    # the boundary cases, spelled out
    # 0.30000001 is above 0.30; a float32 confidence field would round both to the same value
    assert {"unv-2", "unv-3", "unv-4"} <= got and not {"unv-0", "unv-1"} & got
    assert "asserted-0.30" in got  # the threshold applies to UNVERIFIED only
    assert {"cond-true", "cond-meta-true"} <= got
    assert not {"cond-unknown", "cond-false", "cond-expired", "cond-meta-bad", "cond-none"} & got
    assert not {"type-hypothetical", "type-deprecated", "life-superseded", "life-archived"} & got
    assert not {"bob-tea", "t2-tea"} & got
    assert set(_ids(corpus_index.vector("alice tea", DEFAULT, 200))) == got


def test_empty_sets_exclude_everything_and_times_are_respected(corpus_index: OpenSearchIndex) -> None:
    assert corpus_index.lexical("tea", ALICE.model_copy(update={"lifecycles": frozenset()}), 50) == []
    at_day_12 = ALICE.model_copy(update={"valid_at": iso(T0 + timedelta(days=12))})
    got = set(_ids(corpus_index.lexical("tea", at_day_12, 200)))
    assert "closed" in got and "open-late" not in got
    at_day_20 = ALICE.model_copy(update={"valid_at": iso(T0 + timedelta(days=20))})
    got = set(_ids(corpus_index.lexical("tea", at_day_20, 200)))
    assert "closed" not in got and "open-late" in got  # valid_to is exclusive
    cutoff = ALICE.model_copy(update={"recorded_before": iso(T0 + timedelta(days=29))})
    assert "learned-late" not in set(_ids(corpus_index.lexical("tea", cutoff, 200)))
    window = ALICE.model_copy(
        update={"time_from": iso(T0 + timedelta(days=10)), "time_to": iso(T0 + timedelta(days=15))}
    )
    assert set(_ids(corpus_index.lexical("tea", window, 200))) == {"closed"}


_TIMES = st.sampled_from([None, *(iso(T0 + timedelta(days=d)) for d in (0, 5, 10, 15, 20, 31))])


def _subset(values: list) -> st.SearchStrategy:
    return st.one_of(st.none(), st.frozensets(st.sampled_from(values)))


filters = st.builds(
    SearchFilter,
    tenant_id=st.just("t1"),
    owner_id=st.just("alice"),
    scope=st.sampled_from([None, Scope.PERSONAL, Scope.PROJECT]),
    scope_id=st.sampled_from([None, "p1"]),
    node_types=_subset(list(NodeType)),
    source_types=_subset(list(SourceType)),
    epistemic_types=_subset(list(EpistemicType)),
    lifecycles=_subset(list(LifecycleState)),
    condition_states=_subset(list(ConditionState)),
    unverified_min_confidence=st.sampled_from([None, 0.0, 0.30, 0.30000001, 0.5]),
    valid_at=_TIMES,
    recorded_before=_TIMES,
    time_from=_TIMES,
    time_to=_TIMES,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flt=filters)
def test_every_filter_combination_matches_the_reference_semantics(
    corpus_index: OpenSearchIndex, flt: SearchFilter
) -> None:
    _check(corpus_index, flt)
