"""The index mapping and the event hash chain, checked without services (issue 5, PRME-FACTS 5.1)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from schemas.errors import ValidationFailed
from sinks.opensearch_mapping import check_vector_mapping, mappings

T = datetime(2026, 1, 15, 9, 30, 0, 123456, tzinfo=UTC)


def test_mapping_types_are_the_ones_the_issue_names() -> None:
    body = mappings(16)
    props = body["properties"]
    assert body["dynamic"] == "strict"
    for name in ("content", "subject", "object", "condition"):
        assert props[name] == {"type": "text", "analyzer": "english"}
    for name in ("tenant_id", "owner_id", "scope", "epistemic_type", "source_type", "lifecycle", "condition_state",
                 "node_type"):
        assert props[name] == {"type": "keyword"}
    for name in ("valid_from", "valid_to", "recorded_at"):
        assert props[name] == {"type": "date"}
    vec = props["embedding"]
    assert vec["type"] == "knn_vector" and vec["dimension"] == 16
    assert vec["method"]["name"] == "hnsw"
    assert vec["method"]["engine"] == "lucene"
    assert vec["method"]["space_type"] == "cosinesimil"
    check_vector_mapping({"mappings": body})


def test_a_lexical_only_mapping_has_no_vector_field() -> None:
    assert "embedding" not in mappings(0)["properties"]


@pytest.mark.parametrize("engine", [None, "faiss", "nmslib"])
def test_a_vector_field_on_another_engine_is_refused(engine: str | None) -> None:
    method: dict[str, Any] = {"name": "hnsw", "space_type": "cosinesimil"}
    if engine is not None:
        method["engine"] = engine
    with pytest.raises(ValidationFailed):
        check_vector_mapping({"mappings": {"properties": {"v": {"type": "knn_vector", "dimension": 4,
                                                                "method": method}}}})
