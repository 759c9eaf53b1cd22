"""Node index layout: template, versioned concrete indices behind an alias, and alias migration.

Readers and writers only ever name the alias (``epistream-nodes``); the data
lives in ``epistream-nodes-v<N>``. A mapping change creates ``v<N+1>``, copies
the documents with external versioning and moves the alias in one atomic
``_aliases`` call, so searches never see a missing or half-built index.

The ``knn_vector`` field always names the Lucene engine: the k-NN plugin
defaults to faiss, whose native libraries are absent here, and a faiss field
only fails later, at the first flush. ``check_vector_mapping`` guards that.
"""

from __future__ import annotations

import re
from typing import Any, Final

from opensearchpy import OpenSearch
from opensearchpy.exceptions import RequestError

from schemas.errors import BackendUnavailable, ValidationFailed
from sinks.documents import TEXT_FIELDS
from sinks.opensearch_client import guarded, server_error_type

DEFAULT_ALIAS = "epistream-nodes"
#: Increment when the mapping below changes shape; recorded in the index ``_meta``.
MAPPING_SCHEMA = 3
VECTOR_FIELD = "embedding"
VECTOR_ENGINE = "lucene"
VECTOR_SPACE = "cosinesimil"

KEYWORD_FIELDS = (
    "node_id",
    "tenant_id",
    "owner_id",
    "scope",
    "scope_id",
    "epistemic_type",
    "source_type",
    "lifecycle",
    "condition_state",
    "node_type",
    "polarity",
    "predicate",
    "content_hash",
    "embedding_model",
    "embedding_model_version",
    "evidence_refs",
    "visibility",
)
DATE_FIELDS = ("valid_from", "valid_to", "recorded_at", "created_at", "updated_at")


def index_name(alias: str, version: int) -> str:
    if version < 1:
        raise ValidationFailed("index version must be >= 1", field="version")
    return f"{alias}-v{version}"


def vector_mapping(dimension: int, *, m: int = 16, ef_construction: int = 100) -> dict[str, Any]:
    if dimension < 1:
        raise ValidationFailed("embedding dimension must be >= 1", field="dimension")
    return {
        "type": "knn_vector",
        "dimension": dimension,
        "method": {
            "name": "hnsw",
            "engine": VECTOR_ENGINE,
            "space_type": VECTOR_SPACE,
            "parameters": {"m": m, "ef_construction": ef_construction},
        },
    }


def mappings(dimension: int, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    props: dict[str, Any] = {name: {"type": "text", "analyzer": "english"} for name in TEXT_FIELDS}
    props.update({name: {"type": "keyword"} for name in KEYWORD_FIELDS})
    props.update({name: {"type": "date"} for name in DATE_FIELDS})
    # double, not float: the UNVERIFIED threshold is "strictly above 0.30" and a
    # float32 round trip would move values next to the threshold across it.
    props["confidence"] = {"type": "double"}
    props["salience"] = {"type": "double"}
    props["version"] = {"type": "long"}
    if dimension > 0:  # 0 = an embedder without vectors (NoopEmbedder): lexical only
        props[VECTOR_FIELD] = vector_mapping(dimension)
    # The complete node for get(); kept in _source only, never indexed.
    props["node"] = {"type": "object", "enabled": False}
    return {
        "dynamic": "strict",
        "_meta": {"mapping_schema": MAPPING_SCHEMA, "embedding_dimension": dimension, **(meta or {})},
        "properties": props,
    }


#: How soon a written document becomes searchable. OpenSearch's own default is 1 s; memory written
#: from one chat turn should be retrievable by the next, and at 1 s the refresh alone added up to a
#: second to the publish-to-retrievable latency (p95 ≈ 1.5 s of it at 500 events/s on the 2-core
#: bench box); 250 ms cost about 0.15 ms of OpenSearch CPU per event there. Raise it for bulk loads.
DEFAULT_REFRESH_INTERVAL: Final = "250ms"
_TIME_VALUE = re.compile(r"^(-1|\d+(ms|s|m|h))$")


def valid_refresh_interval(value: str) -> str:
    """An OpenSearch time value (``250ms``, ``1s``, ``-1`` = never): refused here, not by the cluster."""
    if not _TIME_VALUE.match(value):
        raise ValidationFailed("refresh interval must be an OpenSearch time value such as 250ms or 1s",
                               field="refresh_interval")
    return value


def settings(
    *, shards: int = 1, replicas: int = 0, refresh_interval: str = DEFAULT_REFRESH_INTERVAL
) -> dict[str, Any]:
    return {
        "index": {
            "knn": True,
            "number_of_shards": shards,
            "number_of_replicas": replicas,
            "refresh_interval": refresh_interval,
        }
    }


def check_vector_mapping(body: dict[str, Any]) -> None:
    """Refuse any knn_vector field that does not name the Lucene engine explicitly."""
    for name, spec in body.get("mappings", {}).get("properties", {}).items():
        if spec.get("type") == "knn_vector" and spec.get("method", {}).get("engine") != VECTOR_ENGINE:
            raise ValidationFailed("knn_vector fields must set method.engine to lucene", field=name)


def embedder_meta(model_name: str | None, model_version: str | None) -> dict[str, Any]:
    if model_name is None:
        return {}
    return {"embedding_model": model_name, "embedding_model_version": model_version or ""}


def _index_body(
    dimension: int, meta: dict[str, Any], *, shards: int, replicas: int, refresh_interval: str
) -> dict[str, Any]:
    body = {
        "settings": settings(shards=shards, replicas=replicas, refresh_interval=refresh_interval),
        "mappings": mappings(dimension, meta),
    }
    check_vector_mapping(body)
    return body


def put_template(
    client: OpenSearch,
    alias: str,
    dimension: int,
    *,
    meta: dict[str, Any] | None = None,
    shards: int = 1,
    replicas: int = 0,
    refresh_interval: str = DEFAULT_REFRESH_INTERVAL,
    timeout: float = 30.0,
) -> None:
    """Any ``<alias>-v*`` index (e.g. a reindex target created by hand) gets the right layout."""
    body = _index_body(dimension, meta or {}, shards=shards, replicas=replicas, refresh_interval=refresh_interval)
    with guarded("put_index_template", alias=alias):
        client.indices.put_index_template(
            name=f"{alias}-template",
            body={"index_patterns": [f"{alias}-v*"], "priority": 100, "template": body},
            request_timeout=timeout,
        )


def indices_of(client: OpenSearch, alias: str, *, timeout: float = 30.0) -> list[str]:
    with guarded("get_alias", alias=alias):
        if not client.indices.exists_alias(name=alias, request_timeout=timeout):
            return []
        found = client.indices.get_alias(name=alias, request_timeout=timeout)
    return sorted(found)


def current_index(client: OpenSearch, alias: str, *, timeout: float = 30.0) -> str | None:
    names = indices_of(client, alias, timeout=timeout)
    return names[-1] if names else None


def read_meta(client: OpenSearch, alias: str, *, timeout: float = 30.0) -> dict[str, Any]:
    with guarded("get_mapping", alias=alias):
        found = client.indices.get_mapping(index=alias, request_timeout=timeout)
    for body in found.values():
        meta = body.get("mappings", {}).get("_meta", {})
        return dict(meta) if isinstance(meta, dict) else {}
    return {}


def write_meta(client: OpenSearch, alias: str, meta: dict[str, Any], *, timeout: float = 30.0) -> None:
    """``_meta`` is replaced as a whole by put_mapping, so merge before writing."""
    merged = {**read_meta(client, alias, timeout=timeout), **meta}
    with guarded("put_mapping", alias=alias):
        client.indices.put_mapping(index=alias, body={"_meta": merged}, request_timeout=timeout)


def create_version(
    client: OpenSearch,
    alias: str,
    version: int,
    dimension: int,
    *,
    meta: dict[str, Any] | None = None,
    shards: int = 1,
    replicas: int = 0,
    refresh_interval: str = DEFAULT_REFRESH_INTERVAL,
    timeout: float = 30.0,
) -> str:
    """Create ``<alias>-v<version>`` (no alias yet); idempotent."""
    name = index_name(alias, version)
    full_meta = {**(meta or {}), "index_version": version}
    body = _index_body(dimension, full_meta, shards=shards, replicas=replicas, refresh_interval=refresh_interval)
    put_template(
        client,
        alias,
        dimension,
        meta=full_meta,
        shards=shards,
        replicas=replicas,
        refresh_interval=refresh_interval,
        timeout=timeout,
    )
    with guarded("create_index", index=name):
        if not client.indices.exists(index=name, request_timeout=timeout):
            try:
                client.indices.create(
                    index=name, body=body, params={"wait_for_active_shards": "1"}, request_timeout=timeout
                )
            except RequestError as exc:
                # Two workers starting on a fresh deployment both saw no index; the other one created
                # it (from the same template and body) between our check and our create.
                if server_error_type(exc) != "resource_already_exists_exception":
                    raise
    return name


def ensure_index(
    client: OpenSearch,
    alias: str = DEFAULT_ALIAS,
    dimension: int = 384,
    version: int = 1,
    *,
    embedding_model: str | None = None,
    embedding_model_version: str | None = None,
    shards: int = 1,
    replicas: int = 0,
    refresh_interval: str = DEFAULT_REFRESH_INTERVAL,
    timeout: float = 30.0,
) -> str:
    """Make ``alias`` usable and return the concrete index it points at.

    When the alias already exists it is left where it is (a later ``migrate_alias``
    may have moved it past ``version``); otherwise ``<alias>-v<version>`` is
    created and the alias attached to it.
    """
    valid_refresh_interval(refresh_interval)
    existing = current_index(client, alias, timeout=timeout)
    if existing is not None:
        sync_refresh_interval(client, existing, refresh_interval, timeout=timeout)
        add_new_fields(client, existing, dimension, timeout=timeout)
        return existing
    name = create_version(
        client,
        alias,
        version,
        dimension,
        meta=embedder_meta(embedding_model, embedding_model_version),
        shards=shards,
        replicas=replicas,
        refresh_interval=refresh_interval,
        timeout=timeout,
    )
    with guarded("put_alias", alias=alias):
        client.indices.update_aliases(
            body={"actions": [{"add": {"index": name, "alias": alias, "is_write_index": True}}]},
            request_timeout=timeout,
        )
    return name


def add_new_fields(client: OpenSearch, index: str, dimension: int, *, timeout: float = 30.0) -> None:
    """Add the fields a newer mapping has to an index created by an older one (adding fields is allowed
    in place; documents written before them lack the field until ``epistream rebuild-index``)."""
    props = mappings(dimension)["properties"]
    with guarded("get_mapping", index=index):
        found = client.indices.get_mapping(index=index, request_timeout=timeout)
    body: dict[str, Any] = next(iter(found.values()), {})
    have: dict[str, Any] = body.get("mappings", {}).get("properties", {})
    missing = {name: spec for name, spec in props.items() if name not in have and name != VECTOR_FIELD}
    if missing:
        with guarded("put_mapping", index=index):
            client.indices.put_mapping(index=index, body={"properties": missing}, request_timeout=timeout)


def sync_refresh_interval(client: OpenSearch, index: str, refresh_interval: str, *, timeout: float = 30.0) -> None:
    """Apply a changed ``refresh_interval`` to an index that already exists (a dynamic setting).

    Without this a deployment that changed the setting would keep the interval its index was
    created with, and nothing would say so.
    """
    with guarded("get_settings", index=index):
        found = client.indices.get_settings(
            index=index, name="index.refresh_interval", params={"include_defaults": "true"}, request_timeout=timeout
        )
    body = found.get(index, {})
    current = (body.get("settings") or {}).get("index", {}).get("refresh_interval") or (
        body.get("defaults") or {}
    ).get("index", {}).get("refresh_interval")
    if current == refresh_interval:
        return
    with guarded("put_settings", index=index):
        client.indices.put_settings(
            index=index, body={"index": {"refresh_interval": refresh_interval}}, request_timeout=timeout
        )


def swap_alias(client: OpenSearch, alias: str, new_index: str, *, timeout: float = 30.0) -> None:
    """Point ``alias`` at ``new_index`` only, in one atomic ``_aliases`` request."""
    old = [name for name in indices_of(client, alias, timeout=timeout) if name != new_index]
    actions: list[dict[str, Any]] = [{"remove": {"index": name, "alias": alias}} for name in old]
    actions.append({"add": {"index": new_index, "alias": alias, "is_write_index": True}})
    with guarded("swap_alias", alias=alias):
        client.indices.update_aliases(body={"actions": actions}, request_timeout=timeout)


def copy_documents(client: OpenSearch, source: str, dest: str, *, timeout: float = 600.0) -> dict[str, int]:
    """``_reindex`` keeping each document's version; an equal or newer target doc wins.

    Reindex reads through search, which sees only refreshed documents, so the
    source is refreshed first or the latest writes would be silently left behind.
    """
    with guarded("reindex", source=source, dest=dest):
        client.indices.refresh(index=source, request_timeout=timeout)
        result = client.reindex(
            body={
                "conflicts": "proceed",
                "source": {"index": source},
                "dest": {"index": dest, "version_type": "external"},
            },
            params={"refresh": "true", "wait_for_completion": "true"},
            request_timeout=timeout,
        )
    failures = result.get("failures") or []
    if failures:
        raise BackendUnavailable(
            "OpenSearch reindex reported failures", operation="reindex", failures=len(failures), dest=dest
        )
    return {key: int(result.get(key, 0)) for key in ("total", "created", "updated", "version_conflicts")}


def migrate_alias(
    client: OpenSearch,
    alias: str,
    new_version: int,
    *,
    shards: int = 1,
    replicas: int = 0,
    refresh_interval: str = DEFAULT_REFRESH_INTERVAL,
    delete_old: bool = False,
    timeout: float = 600.0,
) -> str:
    """Move ``alias`` to a freshly created ``<alias>-v<new_version>`` without downtime.

    Copy, swap, then copy again: documents written to the old index between the
    first copy and the swap are caught up by the second pass, and external
    versioning makes both passes unable to regress a document the new index
    already holds. The embedder recorded in ``_meta`` carries over; an embedder
    change needs new vectors, i.e. ``rebuild_from_snapshots`` into a new version
    followed by ``swap_alias``.
    """
    old = current_index(client, alias)
    if old is None:
        raise ValidationFailed("alias does not exist; create it with ensure_index", field="alias")
    meta = read_meta(client, alias)
    dim = int(meta.get("embedding_dimension", 0))
    carried = {k: v for k, v in meta.items() if k not in {"index_version", "embedding_dimension", "mapping_schema"}}
    new = create_version(
        client,
        alias,
        new_version,
        dim,
        meta=carried,
        shards=shards,
        replicas=replicas,
        refresh_interval=refresh_interval,
    )
    if new == old:
        return new
    copy_documents(client, old, new, timeout=timeout)
    swap_alias(client, alias, new)
    copy_documents(client, old, new, timeout=timeout)
    if delete_old:
        with guarded("delete_index", index=old):
            client.indices.delete(index=old, request_timeout=timeout)
    return new
