"""Embedders: shape, normalisation, determinism, and one real MiniLM semantic check."""

from __future__ import annotations

import numpy as np
import pytest

from sinks.embedding import (
    Embedder,
    EmbedderUnavailable,
    HashEmbedder,
    MiniLMEmbedder,
    NoopEmbedder,
    embedder_identity,
)


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(batch_size=4)


def test_minilm_puts_related_sentences_closer_than_unrelated_ones(minilm: MiniLMEmbedder) -> None:
    v = minilm.embed(["I adore green tea", "favourite drink tea", "car engine"])
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.2


def test_minilm_batches_and_order_do_not_change_vectors(minilm: MiniLMEmbedder) -> None:
    texts = ["short", "a much longer sentence about the weather in Lisbon this week", "tea", ""]
    together = minilm.embed(texts)
    alone = np.vstack([minilm.embed([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-4)
    assert minilm.embed([]).shape == (0, 384)


def test_minilm_identity_names_the_model_file(minilm: MiniLMEmbedder) -> None:
    assert isinstance(minilm, Embedder)
    ident = embedder_identity(minilm)
    assert ident["model_name"] == "all-MiniLM-L6-v2-onnx-int8" and ident["dimension"] == 384
    assert "sha256:8199be6f699a" in ident["model_version"]


def test_missing_model_files_fail_clearly_without_a_download(tmp_path: object) -> None:
    with pytest.raises(EmbedderUnavailable) as err:
        MiniLMEmbedder(model_path="/nonexistent/model.onnx", tokenizer_path="/nonexistent/tokenizer.json")
    assert err.value.code == "embedder_unavailable"


def test_hash_embedder_is_deterministic_normalised_and_word_sensitive() -> None:
    a, b = HashEmbedder(128), HashEmbedder(128)
    v = a.embed(["Green tea, please", "green TEA please", "diesel engine", ""])
    assert np.array_equal(v, b.embed(["Green tea, please", "green TEA please", "diesel engine", ""]))
    assert np.allclose(np.linalg.norm(v[:3], axis=1), 1.0, atol=1e-6)
    assert not v[3].any()  # no words, no direction
    assert float(v[0] @ v[1]) == pytest.approx(1.0, abs=1e-6)
    assert float(v[0] @ v[2]) < 0.5
    assert HashEmbedder(64).model_version != HashEmbedder(128).model_version


def test_noop_embedder_has_no_dimensions() -> None:
    out = NoopEmbedder().embed(["a", "b"])
    assert out.shape == (2, 0)
