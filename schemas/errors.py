"""One exception hierarchy for the whole product.

Every error carries a stable, machine-readable ``code`` so callers (HTTP
clients, dead-letter consumers, the CLI's ``--json`` output) can branch on it
without parsing prose. Messages never contain stored memory content or secrets:
they name fields and ids, not values.
"""

from __future__ import annotations

from typing import Any


class EpistreamError(Exception):
    """Base of every error raised on purpose by epistream."""

    code: str = "epistream_error"
    http_status: int = 500

    def __init__(self, message: str, *, code: str | None = None, **details: Any) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.details: dict[str, Any] = details

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "details": self.details}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


class ValidationFailed(EpistreamError):
    """Input did not satisfy a contract (schema, limits, formats)."""

    code = "validation_failed"
    http_status = 422


class InvalidEvent(ValidationFailed):
    """A conversation event could not be admitted; ``code`` says why."""

    code = "invalid_event"


class InvalidCommand(ValidationFailed):
    code = "invalid_command"


class QueryRejected(ValidationFailed):
    """An analyst's SQL was not a read (``read_only``) or ClickHouse could not run it (``sql_error``)."""

    code = "query_rejected"


class NotFound(EpistreamError):
    code = "not_found"
    http_status = 404


class NodeNotFound(NotFound):
    code = "node_not_found"


class Conflict(EpistreamError):
    code = "conflict"
    http_status = 409


class RequestIdConflict(Conflict):
    """The same request id was reused with different content."""

    code = "request_id_conflict"


class EventIdConflict(Conflict):
    """An event id already used in this stream (tenant/owner/scope) for different content."""

    code = "event_id_conflict"


class InvalidTransition(Conflict):
    """An epistemic or lifecycle transition that the rules forbid."""

    code = "invalid_transition"


class InvalidEpistemicTransition(InvalidTransition):
    code = "invalid_epistemic_transition"


class InvalidLifecycleTransition(InvalidTransition):
    code = "invalid_lifecycle_transition"


class RuleViolation(Conflict):
    """A command that is well-formed but not allowed by the epistemic rules."""

    code = "rule_violation"


class ScopeMismatch(RuleViolation):
    """Evidence or targets belong to a different tenant/owner/scope."""

    code = "scope_mismatch"


class NotAuthoritative(RuleViolation):
    """A model suggestion (an agent channel, a model's actor) tried to change established context
    (TRUST-FACTS §3): promoting, resolving, contesting, re-typing, correcting or retiring a human
    statement or a measurement needs a human channel."""

    code = "channel_not_authoritative"


class IntegrityError(EpistreamError):
    """A stored record does not verify (checksum, identity, replay mismatch)."""

    code = "integrity_error"


class ChecksumMismatch(IntegrityError):
    code = "checksum_mismatch"


class AuthError(EpistreamError):
    code = "unauthenticated"
    http_status = 401


class PermissionDenied(EpistreamError):
    code = "permission_denied"
    http_status = 403


class BackendUnavailable(EpistreamError):
    """A backing service (ClickHouse, OpenSearch, Kafka, LLM) failed or timed out."""

    code = "backend_unavailable"
    http_status = 503


class NotConfigured(EpistreamError):
    """What a call needs is not configured in this process (``details["setting"]`` names the setting).

    Raised instead of an answer from the wrong place: a distributed API without the workers' ClickHouse
    server has no log to answer provenance from, and a 404 or an "exhaustive" unknown would be a lie.
    """

    code = "not_configured"
    http_status = 503


class StorageFull(BackendUnavailable):
    """The disk under the log or an index is full: what was stored is kept and verified, the rest waits.

    Raised with what the command did so far (``details["report"]`` where there is one); run it again
    once there is room and it completes the work (events already reduced are not reduced twice, and the
    indexes catch up with the log when the data directory is opened).
    """

    code = "storage_full"
    http_status = 507


class DeliveryFailed(BackendUnavailable):
    """The broker never acknowledged a record a worker produced; its inputs stay uncommitted."""

    code = "delivery_failed"


class DocumentRejected(EpistreamError):
    """A search backend refused a document for good (e.g. a mapping conflict); retrying cannot help.

    The worker dead-letters such documents (reason ``index_rejected``) instead of stalling; the
    node snapshot stays in ClickHouse, so ``epistream rebuild-index`` re-feeds it once fixed.
    """

    code = "document_rejected"
    http_status = 502


class ExtractionFailed(EpistreamError):
    """An extractor could not produce a result; ``code`` is a sanitised category."""

    code = "extraction_failed"
    http_status = 502


class ReadOnlyRunner(Conflict):
    """A runner in distributed mode was asked to write: the stream workers are the only writers."""

    code = "read_only_runner"


class DataDirLocked(EpistreamError):
    code = "data_dir_locked"
    http_status = 409


class RateLimited(EpistreamError):
    """A caller exceeded its request rate; ``details.retry_after_s`` says when to retry."""

    code = "rate_limited"
    http_status = 429


class PayloadTooLarge(ValidationFailed):
    code = "payload_too_large"
    http_status = 413


class InvalidConfiguration(ValidationFailed):
    """A configured file (such as the attribute registry's extension) cannot be read or is malformed."""

    code = "invalid_configuration"


class ContentErased(NotFound):
    """The content asked for was erased on request: its key is destroyed, only ids and counts remain."""

    code = "content_erased"


class KeyUnavailable(IntegrityError):
    """A sealed record names a data key the key store does not hold (and no erasure destroyed it)."""

    code = "key_unavailable"


class MissingExtra(EpistreamError):
    """A command needs an optional part that is not installed; the message names the one to install.

    Raised instead of an ``ImportError`` traceback: ``pip install epistream`` is the embedded product,
    and the parts for external services are extras (``schemas/extras.py``).
    """

    code = "missing_extra"
    http_status = 501
