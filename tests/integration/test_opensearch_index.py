"""OpenSearchIndex writes and index administration against the real OpenSearch 2.19 + k-NN.

Mapping and template, external versioning, embedding reuse, get(), embedder
mismatch, alias migration, rebuild from snapshots and error wrapping. Each
test uses its own alias (uuid suffix) and deletes its indices afterwards.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from opensearchpy import OpenSearch
from test_opensearch_support import (
    WordEmbedder,
    create_mismatched_index,
    drop_alias,
    make_node,
    opensearch_client,
    unique_alias,
)

from schemas.enums import EpistemicType, LifecycleState, Scope
from schemas.errors import BackendUnavailable, DocumentRejected, ValidationFailed
from schemas.search import SearchBackend, SearchFilter
from schemas.settings import Settings
from sinks.opensearch_index import OpenSearchIndex, rebuild_from_snapshots
from sinks.opensearch_mapping import (
    DEFAULT_REFRESH_INTERVAL,
    check_vector_mapping,
    create_version,
    ensure_index,
    indices_of,
    migrate_alias,
    read_meta,
    swap_alias,
)

pytestmark = pytest.mark.integration

ALICE = SearchFilter(tenant_id="t1", owner_id="alice")


@pytest.fixture(scope="module")
def client() -> OpenSearch:
    return opensearch_client()


@pytest.fixture
def alias(client: OpenSearch) -> Iterator[str]:
    name = unique_alias()
    yield name
    drop_alias(client, name)


def _index(client: OpenSearch, alias: str, embedder: WordEmbedder | None = None, **kw: Any) -> OpenSearchIndex:
    return OpenSearchIndex(client, alias, embedder or WordEmbedder(), **kw)


def _stored(client: OpenSearch, alias: str, node_id: str) -> dict[str, Any]:
    doc: dict[str, Any] = client.get(index=alias, id=node_id)
    return doc


# ----------------------------------------------------------------------------- mapping


def test_mapping_template_and_alias(client: OpenSearch, alias: str) -> None:
    index = _index(client, alias, WordEmbedder(dimension=48))
    assert isinstance(index, SearchBackend)
    assert indices_of(client, alias) == [f"{alias}-v1"]
    found = client.indices.get(index=alias)
    assert list(found) == [f"{alias}-v1"]
    body = found[f"{alias}-v1"]
    props = body["mappings"]["properties"]
    vec = props["embedding"]
    assert vec["type"] == "knn_vector" and vec["dimension"] == 48
    assert vec["method"]["engine"] == "lucene"
    assert vec["method"]["name"] == "hnsw" and vec["method"]["space_type"] == "cosinesimil"
    for name in ("content", "subject", "object", "condition"):
        assert props[name] == {"type": "text", "analyzer": "english"}
    for name in ("node_id", "tenant_id", "owner_id", "scope", "scope_id", "epistemic_type", "source_type",
                 "lifecycle", "condition_state", "node_type", "polarity", "embedding_model",
                 "embedding_model_version"):
        assert props[name] == {"type": "keyword"}, name
    for name in ("valid_from", "valid_to", "recorded_at", "created_at"):
        assert props[name]["type"] == "date"
    assert props["confidence"]["type"] == "double"
    assert props["node"] == {"type": "object", "enabled": False}
    assert body["mappings"]["dynamic"] == "strict"
    meta = body["mappings"]["_meta"]
    assert meta["embedding_model"] == "it-words" and meta["embedding_dimension"] == 48
    index_settings = body["settings"]["index"]
    assert index_settings["knn"] == "true" and index_settings["number_of_replicas"] == "0"
    template = client.indices.get_index_template(name=f"{alias}-template")["index_templates"][0]
    assert template["index_template"]["index_patterns"] == [f"{alias}-v*"]
    assert template["index_template"]["template"]["mappings"]["properties"]["embedding"]["method"]["engine"] == "lucene"


def test_template_applies_to_an_index_created_by_name(client: OpenSearch, alias: str) -> None:
    ensure_index(client, alias, dimension=16)
    client.indices.create(index=f"{alias}-v9")  # no body: everything must come from the template
    props = client.indices.get_mapping(index=f"{alias}-v9")[f"{alias}-v9"]["mappings"]["properties"]
    assert props["embedding"]["method"]["engine"] == "lucene" and props["embedding"]["dimension"] == 16


def test_vector_mapping_without_lucene_engine_is_refused() -> None:
    body = {"mappings": {"properties": {"v": {"type": "knn_vector", "dimension": 4, "method": {"name": "hnsw"}}}}}
    with pytest.raises(ValidationFailed):
        check_vector_mapping(body)


def test_ensure_index_is_idempotent_and_keeps_a_moved_alias(client: OpenSearch, alias: str) -> None:
    assert ensure_index(client, alias, dimension=8) == f"{alias}-v1"
    assert ensure_index(client, alias, dimension=8) == f"{alias}-v1"
    new = create_version(client, alias, 2, 8)
    swap_alias(client, alias, new)
    assert ensure_index(client, alias, dimension=8, version=1) == f"{alias}-v2"
    assert indices_of(client, alias) == [f"{alias}-v2"]


def _refresh_interval(client: OpenSearch, alias: str) -> str:
    found = client.indices.get_settings(index=alias, name="index.refresh_interval")
    return str(next(iter(found.values()))["settings"]["index"]["refresh_interval"])


def test_the_refresh_interval_is_set_on_creation_and_follows_the_setting_later(client: OpenSearch, alias: str) -> None:
    _index(client, alias)
    assert _refresh_interval(client, alias) == DEFAULT_REFRESH_INTERVAL == Settings().opensearch_refresh_interval
    # A deployment that changes the setting: the existing index takes it (no silent mismatch).
    ensure_index(client, alias, dimension=16, refresh_interval="2s")
    assert _refresh_interval(client, alias) == "2s"
    _index(client, alias, refresh_interval="500ms")
    assert _refresh_interval(client, alias) == "500ms"
    with pytest.raises(ValidationFailed):
        ensure_index(client, alias, dimension=16, refresh_interval="half a second")
    assert _refresh_interval(client, alias) == "500ms"


def test_an_index_opened_from_settings_takes_their_url_alias_and_refresh_interval(
    client: OpenSearch, alias: str
) -> None:
    url = f"http://{client.transport.hosts[0]['host']}:{client.transport.hosts[0]['port']}"
    settings = Settings(opensearch_url=url, opensearch_index=alias, opensearch_refresh_interval="3s")
    index = OpenSearchIndex.from_settings(settings, WordEmbedder())
    assert index.alias == alias and _refresh_interval(client, alias) == "3s"
    with pytest.raises(ValidationFailed):
        OpenSearchIndex.from_settings(Settings(opensearch_url=None), WordEmbedder())


def test_a_document_is_searchable_within_the_refresh_interval(client: OpenSearch, alias: str) -> None:
    index = _index(client, alias)
    index.upsert([make_node("n1", "alice keeps bees on the roof")])
    # No explicit refresh: the scheduled one (250 ms) must make it searchable well within a second.
    deadline = time.monotonic() + 5
    while not index.lexical("bees roof", ALICE, 5):
        assert time.monotonic() < deadline, "never became searchable"
        time.sleep(0.05)


# ----------------------------------------------------------------------------- versioning


def test_external_versioning_refuses_stale_and_repeated_writes(client: OpenSearch, alias: str) -> None:
    index = _index(client, alias)
    v1 = make_node("n1", "alice drinks green tea")
    first = index.upsert_report([v1])
    assert (first.written, first.stale) == (1, 0)

    repeated = index.upsert_report([v1])
    assert (repeated.written, repeated.stale) == (0, 1)
    assert _stored(client, alias, "n1")["_version"] == 1

    v3 = v1.model_copy(update={"version": 3, "content": "alice drinks black coffee"})
    assert index.upsert_report([v3]).written == 1
    v2 = v1.model_copy(update={"version": 2, "content": "alice drinks oolong"})
    stale = index.upsert_report([v2])
    assert (stale.written, stale.stale) == (0, 1)
    doc = _stored(client, alias, "n1")
    assert doc["_version"] == 3 and doc["_source"]["content"] == "alice drinks black coffee"
    assert index.get(["n1"]) == [v3]


def test_server_refuses_stale_write_when_the_read_check_raced(
    client: OpenSearch, alias: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two writers: the pre-read saw nothing, a newer version landed meanwhile; OpenSearch must refuse."""
    index = _index(client, alias)
    newer = make_node("n1", "the deploy window is friday", version=5)
    index.upsert([newer])
    monkeypatch.setattr(index, "_stored", lambda ids: {})
    older = newer.model_copy(update={"version": 4, "content": "the deploy window is monday"})
    same = newer.model_copy(update={"content": "the deploy window is sunday"})
    report = index.upsert_report([older])
    assert (report.written, report.stale, report.failed) == (0, 1, [])
    report = index.upsert_report([same])
    assert (report.written, report.stale, report.failed) == (0, 1, [])
    assert index.get(["n1"]) == [newer]


def test_batch_with_several_versions_of_one_node_keeps_the_newest(client: OpenSearch, alias: str) -> None:
    index = _index(client, alias, batch_size=2)
    base = make_node("n1", "alice plays chess")
    versions = [base.model_copy(update={"version": v, "content": f"alice plays chess level {v}"}) for v in (2, 5, 3, 1)]
    report = index.upsert_report(versions)
    assert (report.received, report.written, report.stale) == (4, 1, 3)
    assert index.get(["n1"]) == [versions[1]]


def test_embeddings_computed_only_when_content_changes(client: OpenSearch, alias: str) -> None:
    embedder = WordEmbedder()
    index = _index(client, alias, embedder, embed_batch=3)
    nodes = [make_node(f"n{i}", f"alice collects stamps from country {i}") for i in range(7)]
    first = index.upsert_report(nodes)
    assert first.embedded == 7 and embedder.calls == [3, 3, 1]

    reinforced = [n.model_copy(update={"version": 2, "confidence": 0.9}) for n in nodes]
    edited = nodes[0].model_copy(update={"version": 3, "content": "alice sold her stamp collection"})
    second = index.upsert_report([edited, *reinforced[1:]])
    assert second.written == 7 and second.embedded == 1 and second.reused_vectors == 6
    index.refresh()
    stored = _stored(client, alias, "n3")["_source"]
    assert stored["confidence"] == 0.9
    assert stored["embedding"] == pytest.approx(embedder.embed([nodes[3].content])[0].tolist(), abs=1e-6)
    top = index.vector("alice sold her stamp collection", ALICE, 1)
    assert [h.node_id for h in top] == ["n0"]


def _count_reads(index: OpenSearchIndex, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The ids of every mget the index sends (the real call still runs)."""
    reads: list[list[str]] = []
    real = index.client.mget

    def mget(*args: Any, **kwargs: Any) -> Any:
        reads.append(list(kwargs["body"]["ids"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(index.client, "mget", mget)
    return reads


def test_new_nodes_and_versions_written_from_here_need_no_read_back(
    client: OpenSearch, alias: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = WordEmbedder()
    index = _index(client, alias, embedder)
    reads = _count_reads(index, monkeypatch)
    nodes = [make_node(f"n{i}", f"alice grows tomato variety {i}") for i in range(5)]
    assert index.upsert_report(nodes).written == 5
    reinforced = [n.model_copy(update={"version": 2, "confidence": 0.8}) for n in nodes]
    again = index.upsert_report(reinforced)
    assert (again.written, again.embedded, again.reused_vectors) == (5, 0, 5)
    assert reads == []  # neither the new nodes nor their next versions were read back
    index.refresh()
    stored = _stored(client, alias, "n2")["_source"]
    assert stored["confidence"] == 0.8
    assert stored["embedding"] == pytest.approx(embedder.embed([nodes[2].content])[0].tolist(), abs=1e-6)
    # A redelivered version is refused by OpenSearch itself, not by a read.
    repeated = index.upsert_report([reinforced[0], nodes[1]])
    assert (repeated.written, repeated.stale) == (0, 2) and reads == []
    assert _stored(client, alias, "n0")["_version"] == 2


def test_a_node_this_writer_has_not_written_is_read_back_for_its_vector(
    client: OpenSearch, alias: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = WordEmbedder()
    _index(client, alias, embedder).upsert([make_node("n1", "alice repairs old radios")])
    other = _index(client, alias, embedder)  # a restarted worker: nothing cached
    reads = _count_reads(other, monkeypatch)
    v2 = make_node("n1", "alice repairs old radios", version=2)
    report = other.upsert_report([v2])
    assert (report.written, report.embedded, report.reused_vectors) == (1, 0, 1)
    assert reads == [["n1"], ["n1"]]  # stored hash, then the vector itself
    # Its content changed under a newer version written elsewhere: the 409 drops the cached vector.
    _index(client, alias, embedder).upsert([make_node("n1", "alice sells old radios", version=4)])
    assert other.upsert_report([make_node("n1", "alice repairs old radios", version=3)]).stale == 1
    reads.clear()
    v5 = make_node("n1", "alice repairs old radios", version=5)
    report = other.upsert_report([v5])
    assert report.written == 1 and reads[0] == ["n1"]
    assert report.embedded == 1  # the stored text differs, so the stored vector was not reused


def test_the_vector_cache_is_bounded(client: OpenSearch, alias: str, monkeypatch: pytest.MonkeyPatch) -> None:
    index = _index(client, alias, vector_cache=2)
    reads = _count_reads(index, monkeypatch)
    nodes = [make_node(f"n{i}", f"alice paints harbour scene {i}") for i in range(4)]
    index.upsert(nodes)
    report = index.upsert_report([n.model_copy(update={"version": 2}) for n in nodes])
    assert report.written == 4 and report.reused_vectors == 4 and report.embedded == 0
    assert reads[0] == ["n0", "n1"]  # the two oldest were evicted and had to be read back


def test_precomputed_vectors_are_used_instead_of_the_embedder(client: OpenSearch, alias: str) -> None:
    embedder = WordEmbedder(dimension=8)
    index = _index(client, alias, embedder)
    vec = [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    report = index.upsert_report([make_node("n1", "alice bakes bread")], vectors={"n1": vec})
    assert report.embedded == 0 and embedder.calls == []
    assert _stored(client, alias, "n1")["_source"]["embedding"] == vec
    with pytest.raises(ValidationFailed):
        index.upsert([make_node("n2", "alice bakes cake")], vectors={"n2": [1.0, 0.0]})


# ----------------------------------------------------------------------------- get


def test_get_returns_full_nodes_in_request_order_within_the_tenant(client: OpenSearch, alias: str) -> None:
    index = _index(client, alias)
    rich = make_node(
        "c1",
        "alice will hike if it is sunny",
        epistemic_type=EpistemicType.CONDITIONAL,
        lifecycle=LifecycleState.TENTATIVE,
        metadata={"source": "chat", "tags": ["a", "b"]},
        supersedes=("old-1",),
        signal_counts={"alice|CONFIRMED": 2},
    )
    other_tenant = make_node("x1", "bob likes jazz", tenant_id="t2", owner_id="bob")
    index.upsert([make_node("a1"), rich, other_tenant])
    assert index.get(["c1", "missing", "a1", "c1"]) == [rich, make_node("a1")]
    assert index.get(["x1", "a1"], tenant_id="t1") == [make_node("a1")]
    scoped = _index(client, alias, tenant_id="t1")
    assert scoped.get(["x1", "c1"]) == [rich]
    assert index.get([]) == []


# ----------------------------------------------------------------------------- embedder mismatch


def test_embedding_mismatch_disables_vectors_but_not_lexical(client: OpenSearch, alias: str) -> None:
    index = _index(client, alias, WordEmbedder(model_version="1"))
    index.upsert([make_node("n1", "alice runs marathons")])
    assert index.embedding_mismatch is False

    newer_model = WordEmbedder(model_version="2")
    other = _index(client, alias, newer_model)
    assert other.embedding_mismatch is True
    report = other.upsert_report([make_node("n2", "alice runs sprints")])
    assert report.written == 1 and report.vectors_omitted == 1 and newer_model.calls == []
    other.refresh()
    assert other.vector("alice runs", ALICE, 5) == []
    assert {h.node_id for h in other.lexical("runs", ALICE, 5)} == {"n1", "n2"}
    assert "embedding" not in _stored(client, alias, "n2")["_source"]
    # the index still belongs to the first embedder
    assert [h.node_id for h in index.vector("alice runs marathons", ALICE, 5)] == ["n1"]


# ----------------------------------------------------------------------------- alias migration


def test_migrate_alias_copies_with_versions_and_swaps(client: OpenSearch, alias: str) -> None:
    index = _index(client, alias)
    nodes = [make_node(f"n{i}", f"alice owns {i} bicycles", version=i + 1) for i in range(20)]
    index.upsert(nodes)  # no refresh: the migration must not miss unrefreshed writes

    new = migrate_alias(client, alias, 2, delete_old=True)
    assert new == f"{alias}-v2" and indices_of(client, alias) == [new]
    assert not client.indices.exists(index=f"{alias}-v1")
    assert read_meta(client, alias)["embedding_model"] == "it-words"
    assert read_meta(client, alias)["index_version"] == 2

    moved = _index(client, alias)
    assert moved.embedding_mismatch is False
    assert moved.count() == 20
    assert _stored(client, new, "n7")["_version"] == 8
    stale = moved.upsert_report([nodes[7].model_copy(update={"version": 8, "content": "regressed"})])
    assert stale.stale == 1 and moved.get(["n7"]) == [nodes[7]]
    assert [h.node_id for h in moved.vector("alice owns 7 bicycles", ALICE, 1)] == ["n7"]
    assert {h.node_id for h in moved.lexical("bicycles", ALICE, 50)} == {n.node_id for n in nodes}


def test_migrate_alias_catches_up_writes_that_raced_the_copy(client: OpenSearch, alias: str) -> None:
    """A write to the old index after the first copy must still reach the new one."""
    ensure_index(client, alias, dimension=64, embedding_model="it-words", embedding_model_version="1")
    index = _index(client, alias)
    index.upsert([make_node("n1", "first"), make_node("n2", "second")])
    old = f"{alias}-v1"
    # Simulate: the new index already got v1 copies, and a later n1 v2 landed on the old index.
    create_version(client, alias, 2, 64, meta={"embedding_model": "it-words", "embedding_model_version": "1"})
    client.indices.refresh(index=old)
    client.reindex(
        body={"source": {"index": old}, "dest": {"index": f"{alias}-v2", "version_type": "external"}},
        params={"refresh": "true"},
    )
    index.upsert([make_node("n1", "first, edited", version=2)])
    migrate_alias(client, alias, 2)
    moved = _index(client, alias)
    assert [n.content for n in moved.get(["n1", "n2"])] == ["first, edited", "second"]
    assert indices_of(client, alias) == [f"{alias}-v2"]


# ----------------------------------------------------------------------------- rebuild


def test_rebuild_from_snapshots_is_idempotent_and_order_insensitive(client: OpenSearch, alias: str) -> None:
    index = _index(client, alias)
    latest = [make_node(f"n{i}", f"alice visited city {i}", version=3) for i in range(25)]
    older = [n.model_copy(update={"version": 2, "content": "outdated"}) for n in latest]

    def snapshots() -> Iterator[Any]:
        yield from latest[:10]
        yield from older  # an older snapshot arriving after the newer one must not win
        yield from latest[10:]

    report = rebuild_from_snapshots(index, snapshots(), batch=7)
    # n10..n24: the older snapshot lands first and is then replaced; n0..n9: the older one is refused
    assert (report.received, report.written, report.stale, report.failed) == (50, 40, 10, [])
    assert index.count() == 25
    assert index.get([n.node_id for n in latest]) == latest
    again = rebuild_from_snapshots(index, iter(latest), batch=100)
    assert again.written == 0 and again.stale == 25 and again.embedded == 0


# ----------------------------------------------------------------------------- errors


def test_unreachable_cluster_raises_backend_unavailable() -> None:
    index = OpenSearchIndex("http://127.0.0.1:9", "nowhere", WordEmbedder(), create=False, timeout=1.0)
    with pytest.raises(BackendUnavailable) as caught:
        index.lexical("alice secret diary", ALICE, 5)
    assert caught.value.code == "backend_unavailable"
    with pytest.raises(BackendUnavailable):
        index.upsert([make_node("n1", "alice secret diary")])
    assert "secret" not in str(caught.value) and "secret" not in repr(caught.value.to_dict())


def test_server_errors_are_wrapped_without_echoing_content(client: OpenSearch, alias: str) -> None:
    index = _index(client, alias)
    drop_alias(client, alias)
    with pytest.raises(BackendUnavailable) as caught:
        index.lexical("alice secret diary", ALICE, 5)
    assert caught.value.details["error_type"] == "index_not_found_exception"
    assert "secret" not in repr(caught.value.to_dict())
    with pytest.raises(BackendUnavailable):
        index.upsert([make_node("n1", "alice secret diary")])


# ----------------------------------------------------------------------------- project embedders


def test_works_with_the_project_hash_embedder_including_featureless_text(client: OpenSearch, alias: str) -> None:
    from sinks.embedding import HashEmbedder

    index = OpenSearchIndex(client, alias, HashEmbedder(dimension=32))
    report = index.upsert_report([make_node("n1", "alice prefers window seats"), make_node("n2", "?!")])
    assert (report.written, report.embedded, report.vectors_omitted) == (2, 2, 1)
    index.refresh()
    assert [h.node_id for h in index.vector("window seats", ALICE, 5)] == ["n1"]
    assert index.vector("?!", ALICE, 5) == []
    assert "embedding" not in _stored(client, alias, "n2")["_source"]


def test_noop_embedder_gives_a_lexical_only_index(client: OpenSearch, alias: str) -> None:
    from sinks.embedding import NoopEmbedder

    index = OpenSearchIndex(client, alias, NoopEmbedder())
    assert "embedding" not in client.indices.get_mapping(index=alias)[f"{alias}-v1"]["mappings"]["properties"]
    index.upsert([make_node("n1", "alice prefers aisle seats")])
    index.refresh()
    assert index.vector("aisle seats", ALICE, 5) == []
    assert [h.node_id for h in index.lexical("aisle", ALICE, 5)] == ["n1"]


def test_owner_nodes_lists_one_owner_only_at_the_newest_version(client: OpenSearch, alias: str) -> None:
    index = _index(client, alias)
    mine = [make_node(f"a{i}") for i in range(5)] + [make_node("p1", scope=Scope.PROJECT, scope_id="p")]
    others = [make_node("b1", owner_id="bob"), make_node("t2a", tenant_id="t2")]
    index.upsert(mine + others)
    index.upsert([make_node("a2", "alice likes tea now", version=2)])
    index.refresh()
    got = index.owner_nodes(tenant_id="t1", owner_id="alice")
    assert [n.node_id for n in got] == ["a0", "a1", "a2", "a3", "a4", "p1"]
    assert next(n for n in got if n.node_id == "a2").version == 2
    personal = index.owner_nodes(tenant_id="t1", owner_id="alice", scope=Scope.PERSONAL)
    assert "p1" not in {n.node_id for n in personal} and len(personal) == 5
    assert index.owner_nodes(tenant_id="t2", owner_id="bob") == []
    assert [n.node_id for n in index.owner_nodes(tenant_id="t1", owner_id="alice", limit=2)] == ["a0", "a1"]


def test_workers_creating_the_same_fresh_index_at_once_all_succeed(client: OpenSearch) -> None:
    """Two workers on a new deployment both find no index and both create it; neither may fail."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    aliases = [unique_alias() for _ in range(4)]
    try:
        for alias in aliases:
            start = threading.Barrier(3)

            def create(alias: str = alias, start: threading.Barrier = start) -> str:
                start.wait()
                return ensure_index(client, alias, dimension=8)

            with ThreadPoolExecutor(3) as pool:
                names = [f.result() for f in [pool.submit(create) for _ in range(3)]]
            assert len(set(names)) == 1
            assert indices_of(client, alias) == [names[0]]
    finally:
        for alias in aliases:
            drop_alias(client, alias)


# ----------------------------------------------------------------------------- refused documents


def test_a_refused_document_is_reported_and_does_not_hold_back_the_rest(client: OpenSearch, alias: str) -> None:
    embedder = WordEmbedder()
    create_mismatched_index(client, alias, embedder, "predicate")
    index = _index(client, alias, embedder)  # the worker's path: the existing alias is used as it is
    fits = [make_node(f"ok{i}", f"alice rated film {i}", predicate=str(40 + i)) for i in range(3)]
    refused = make_node("bad", "alice secret diary entry", predicate="likes")
    report = index.upsert_report([fits[0], refused, *fits[1:]])
    assert report.written == 3 and report.failed == []
    assert [node_id for node_id, _ in report.rejected] == ["bad"]
    assert report.rejected[0][1] in {"mapper_parsing_exception", "document_parsing_exception"}
    assert index.get([n.node_id for n in fits]) == fits
    assert index.get(["bad"]) == []

    again = index.upsert_report([*fits, refused])  # a retry: the written ones are stale, the refusal stands
    assert (again.written, again.stale, [i for i, _ in again.rejected]) == (0, 3, ["bad"])

    with pytest.raises(DocumentRejected) as caught:  # the plain upsert never drops a document silently
        index.upsert([refused])
    err = caught.value
    assert err.code == "document_rejected"
    assert err.details == {"count": 1, "node_ids": ["bad"], "error_types": [again.rejected[0][1]]}
    assert "secret" not in repr(err.to_dict()) and "likes" not in repr(err.to_dict())


def test_rebuild_reports_refused_documents(client: OpenSearch, alias: str) -> None:
    embedder = WordEmbedder()
    create_mismatched_index(client, alias, embedder, "predicate")
    index = _index(client, alias, embedder)
    nodes = [make_node("n1", "alice rated film", predicate="5"), make_node("n2", "alice likes tea")]
    report = rebuild_from_snapshots(index, iter(nodes))
    assert report.written == 1 and [node_id for node_id, _ in report.rejected] == ["n2"]
