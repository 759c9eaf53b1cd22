"""Shared helpers for the OpenSearch integration tests (no tests here).

Node factory, a deterministic bag-of-words embedder (vectors are controlled by
the words in the text, so tests can place neighbours on purpose), and access to
the real OpenSearch started by deploy/local/services.py. ``ensure_up`` raises
when OpenSearch or k-NN cannot be made healthy, so these tests fail, never skip.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from opensearchpy import OpenSearch

from schemas.common import ActorRef
from schemas.enums import (
    ActorType,
    ConditionState,
    DecayProfile,
    EpistemicType,
    LifecycleState,
    NodeType,
    Scope,
    SourceType,
)
from schemas.nodes import MemoryNode

_SERVICES_PY = Path(__file__).resolve().parents[2] / "deploy" / "local" / "services.py"
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
_WORD = re.compile(r"[a-z0-9]+")


def load_services() -> ModuleType:
    name = "epistream_local_services"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, _SERVICES_PY)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def opensearch_client() -> OpenSearch:
    svc = load_services()
    info = svc.ensure_up()  # raises ServiceError -> test error, not skip
    assert info["knn"], "the k-NN plugin must be loaded for these tests"
    return OpenSearch(hosts=[info["opensearch"]], timeout=30)


def create_mismatched_index(client: OpenSearch, alias: str, embedder: Any, field: str) -> None:
    """An alias over an index (another version's, say) where ``field`` is numeric.

    OpenSearch refuses, for good, every node document whose ``field`` holds text and takes the rest.
    """
    from sinks.opensearch_mapping import embedder_meta, index_name, mappings, settings

    mapping = mappings(embedder.dimension, embedder_meta(embedder.model_name, embedder.model_version))
    mapping["properties"][field] = {"type": "long"}
    client.indices.create(
        index=index_name(alias, 1),
        body={"settings": settings(), "mappings": mapping, "aliases": {alias: {"is_write_index": True}}},
    )


def unique_alias(prefix: str = "it-nodes") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def drop_alias(client: OpenSearch, alias: str) -> None:
    """Delete every ``<alias>-v*`` index and the alias's template."""
    client.indices.delete(index=f"{alias}-v*", params={"ignore_unavailable": "true", "expand_wildcards": "all"})
    if client.indices.exists_index_template(name=f"{alias}-template"):
        client.indices.delete_index_template(name=f"{alias}-template")


class WordEmbedder:
    """Hashed bag of words plus a constant component (never a zero vector), L2-normalised."""

    def __init__(self, dimension: int = 64, model_name: str = "it-words", model_version: str = "1") -> None:
        self.model_name = model_name
        self.model_version = model_version
        self.dimension = dimension
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(len(texts))
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, 0] = 0.05
            for word in _WORD.findall(text.lower()):
                digest = hashlib.sha256(word.encode()).digest()
                out[row, 1 + digest[0] % (self.dimension - 1)] += 1.0
            out[row] /= np.linalg.norm(out[row])
        return out

    @property
    def embedded_texts(self) -> int:
        return sum(self.calls)


def make_node(node_id: str, content: str | None = None, **overrides: Any) -> MemoryNode:
    """A valid node; ``days`` shifts every timestamp relative to T0."""
    when = T0 + timedelta(days=overrides.pop("days", 0))
    text = content if content is not None else f"alice likes {node_id}"
    fields: dict[str, Any] = {
        "tenant_id": "t1",
        "owner_id": "alice",
        "scope": Scope.PERSONAL,
        "node_id": node_id,
        "version": 1,
        "node_type": NodeType.FACT,
        "subject": "alice",
        "predicate": "likes",
        "object": node_id,
        "content": text,
        "epistemic_type": EpistemicType.ASSERTED,
        "source_type": SourceType.USER_STATED,
        "confidence": 0.8,
        "salience": 0.5,
        "lifecycle": LifecycleState.STABLE,
        "decay_profile": DecayProfile.SLOW,
        "asserted_by": ActorRef(actor_id="alice", actor_type=ActorType.HUMAN_USER),
        "valid_from": when,
        "recorded_at": when,
        "created_at": when,
        "updated_at": when,
        "last_reinforced_at": when,
        "evidence_refs": (f"ev-{node_id}",),
    }
    fields.update(overrides)
    if fields["epistemic_type"] is EpistemicType.CONDITIONAL:
        fields.setdefault("condition", "if it is sunny")
        fields.setdefault("condition_state", ConditionState.UNKNOWN)
    return MemoryNode(**fields)
