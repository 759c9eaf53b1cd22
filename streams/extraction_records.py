"""Wire form of ``memory.extractions`` records.

The extract agent takes events in batches; it writes the extraction results of
one batch that share a partition as **one** record,
``{"v":2,"results":[<ExtractionResult>, ...]}``, in input order. Every record on
Kafka costs the producer, the broker and the consuming agent a fixed amount of
work whatever its size, and the results of one partition are consumed in order
by the one materialize task that owns it, so nothing is gained by separate
records. A record with a single result object (the form before batching) is
still read, so a topic written by an older worker replays.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from schemas.claims import ExtractionResult
from streams.record_size import BATCH_RECORD_PREFIX, BATCH_RECORD_VERSION


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True)

    v: int = BATCH_RECORD_VERSION
    results: tuple[ExtractionResult, ...]


def dumps(results: Sequence[ExtractionResult]) -> bytes:
    """One record for ``results`` (non-empty, all bound for the same partition, in input order)."""
    if not results:
        raise ValueError("an extraction record needs at least one result")
    return _Record(results=tuple(results)).model_dump_json().encode("utf-8")


def loads(raw: bytes) -> list[ExtractionResult]:
    """The results of a record, either form; raises ``ValueError`` (pydantic's) on anything else."""
    if raw.startswith(BATCH_RECORD_PREFIX):
        return list(_Record.model_validate_json(raw).results)
    return [ExtractionResult.model_validate_json(raw)]
