"""LLM extractor: any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama) via instructor.

Why it is shaped this way:

* The model proposes, the shared validation layer disposes. The response schema
  (``extractors.llm_schema``) requires quote, polarity, types and triple, and
  runs ``validate_claims`` as a pydantic validator with the source event as
  context, so instructor's bounded retry loop feeds every rejection back to the
  model. Whatever still fails after the last retry is salvaged claim by claim:
  well-formed claims go through ``validate_claims`` and are accepted or
  rejected with its reason codes; malformed ones are rejected one at a time
  (``malformed_claim``) without taking their siblings down. An attempt, plan or
  wish the model turned into a completed fact (and so lost) is recovered as
  PRME does (``extractors.recovery``, PRME-FACTS §8.2.8).
* A provider failure must never lose the event or leak anything. ``extract``
  and ``aextract`` never raise for provider or model trouble: they return a
  ``status="failed"`` result carrying only a sanitised ``error_category``. The
  raw event is stored upstream regardless, so it stays searchable and can be
  re-extracted. Provider bodies and API keys never enter results or logs:
  instructor's log lines (which embed provider error bodies and model output)
  and the openai client's DEBUG request dumps (raw content) are cut down to
  their prefix.
* Instructor mode: ``Mode.TOOLS`` by default (a forced function call; served by
  OpenAI, vLLM and Ollama). ``Mode.JSON`` (``response_format=json_object``),
  ``Mode.JSON_SCHEMA`` (structured outputs) and ``Mode.MD_JSON`` (fenced JSON in
  plain text) are available for servers without tool calling. The openai
  client's own retries are disabled so the retry budget is exactly
  ``max_retries`` and a 429/5xx fails fast; the stream layer decides about
  redelivery. Worst-case latency of one extraction is therefore
  ``(max_retries + 1) * timeout_s``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

import instructor
import openai
from instructor import Mode
from instructor.core.exceptions import IncompleteOutputException, InstructorRetryException
from pydantic import JsonValue, SecretStr, ValidationError

from extractors.llm_prompt import PROMPT_VERSION, build_messages
from extractors.llm_schema import CONTEXT_EVENT, CONTEXT_GROUNDING_METHOD, ExtractedClaims, LLMClaim
from extractors.reasons import MALFORMED_CLAIM
from extractors.recovery import recover_speech_acts
from extractors.secrets import mask
from extractors.validation import (
    DEFAULT_GROUNDING_METHOD,
    GROUNDING_POLICY_VERSION,
    SourceText,
    validate_with_context,
)
from schemas.claims import EventRef, ExtractionResult, RejectedClaim
from schemas.events import ConversationEvent

if TYPE_CHECKING:
    from schemas.settings import Settings

logger = logging.getLogger(__name__)

EXTRACTOR_NAME: Final = "llm"
EXTRACTOR_VERSION: Final = f"1.0.0-{PROMPT_VERSION}"
SUPPORTED_MODES: Final = frozenset({Mode.TOOLS, Mode.JSON, Mode.MD_JSON, Mode.JSON_SCHEMA})
#: Used when no key is configured: local servers (Ollama, vLLM) ignore it, and
#: an explicit value keeps the client from picking up OPENAI_API_KEY.
_NO_KEY: Final = "EMPTY"


class ErrorCategory(StrEnum):
    """Sanitised failure categories: the only failure detail a result ever carries.

    ``malformed_output``: the last answer was not JSON (or not a chat completion
    at all); ``retries_exhausted``: it was JSON but never had the ``claims``
    envelope. Claims that are individually bad after the last retry are *not*
    a failure: they are rejected one by one and the result stays ``ok``.
    """

    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    PROVIDER_ERROR = "provider_error"
    MALFORMED_OUTPUT = "malformed_output"
    RETRIES_EXHAUSTED = "retries_exhausted"
    CONNECTION_ERROR = "connection_error"
    EXTRACTOR_ERROR = "extractor_error"


class LLMExtractor:
    """Extractor ``"llm"``: structured extraction with bounded, validator-driven retries."""

    name: str = EXTRACTOR_NAME
    version: str = EXTRACTOR_VERSION

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        temperature: float = 0.0,
        max_retries: int = 3,
        timeout_s: float = 30.0,
        *,
        mode: Mode = Mode.TOOLS,
        grounding_method: str = DEFAULT_GROUNDING_METHOD,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if timeout_s <= 0:
            raise ValueError("timeout_s must be > 0")
        if mode not in SUPPORTED_MODES:
            raise ValueError(f"unsupported instructor mode: {mode}")
        self.base_url = base_url
        self.model = model
        self.temperature = temperature
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        self.mode = mode
        self.grounding_method = grounding_method
        # The key lives only inside the openai client options, never in a public attribute or repr.
        self._api_key = SecretStr(api_key or _NO_KEY)
        self._openai = openai.OpenAI(**self._client_options())
        self._client = instructor.from_openai(self._openai, mode=mode)
        self._async_openai: openai.AsyncOpenAI | None = None  # built on first aextract
        self._aclient: Any = None

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> LLMExtractor:
        params: dict[str, Any] = {
            "base_url": settings.llm_base_url,
            "model": settings.llm_model,
            "api_key": settings.llm_api_key.get_secret_value(),
            "temperature": settings.llm_temperature,
            "max_retries": settings.llm_max_retries,
            "timeout_s": settings.llm_timeout_s,
        }
        params.update(overrides)
        return cls(**params)

    def __repr__(self) -> str:
        return f"LLMExtractor(model={self.model!r}, mode={self.mode.value!r})"

    # --- extraction --------------------------------------------------------
    def extract(self, event: ConversationEvent) -> ExtractionResult:
        try:
            parsed = self._client.create(**self._request(event))
        except Exception as exc:
            return self._from_failure(event, exc)
        return self._from_parsed(event, parsed)

    async def aextract(self, event: ConversationEvent) -> ExtractionResult:
        try:
            if self._aclient is None:
                self._async_openai = openai.AsyncOpenAI(**self._client_options())
                self._aclient = instructor.from_openai(self._async_openai, mode=self.mode)
            parsed = await self._aclient.create(**self._request(event))
        except Exception as exc:
            return self._from_failure(event, exc)
        return self._from_parsed(event, parsed)

    def close(self) -> None:
        self._openai.close()

    async def aclose(self) -> None:
        if self._async_openai is not None:
            await self._async_openai.close()
        self._openai.close()

    def _client_options(self) -> dict[str, Any]:
        return {
            "base_url": self.base_url,
            "api_key": self._api_key.get_secret_value(),
            "timeout": float(self.timeout_s),
            "max_retries": 0,  # the retry budget is instructor's max_retries, nothing hidden
        }

    def _request(self, event: ConversationEvent) -> dict[str, Any]:
        return {
            "response_model": ExtractedClaims,
            "messages": build_messages(event),
            "model": self.model,
            "temperature": self.temperature,
            "max_retries": self.max_retries,
            "strict": False,
            "context": {CONTEXT_EVENT: event, CONTEXT_GROUNDING_METHOD: self.grounding_method},
        }

    # --- outcomes ----------------------------------------------------------
    def _from_parsed(self, event: ConversationEvent, parsed: Any) -> ExtractionResult:
        if not isinstance(parsed, ExtractedClaims):
            return self._failed(event, ErrorCategory.MALFORMED_OUTPUT, cause=parsed)
        return self._validated(event, [c.to_claim_dict() for c in parsed.claims], [])

    def _from_failure(self, event: ConversationEvent, exc: Exception) -> ExtractionResult:
        category = _provider_category(exc)
        if category is not None:
            return self._failed(event, category, cause=exc)
        if isinstance(exc, InstructorRetryException):
            completion = getattr(exc, "last_completion", None)
            if completion is not None:
                return self._salvage(event, completion)
            if any(isinstance(e, ValueError) for e in _chain(exc)[1:]):
                # The HTTP body itself was not a chat completion (JSONDecodeError and ValidationError are ValueErrors).
                return self._failed(event, ErrorCategory.MALFORMED_OUTPUT, cause=exc)
        return self._failed(event, ErrorCategory.EXTRACTOR_ERROR, cause=exc)

    def _salvage(self, event: ConversationEvent, completion: Any) -> ExtractionResult:
        """Retries are spent: keep each well-formed claim, reject the rest one by one."""
        text = _completion_text(completion)
        if text is None:
            return self._failed(event, ErrorCategory.MALFORMED_OUTPUT)
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return self._failed(event, ErrorCategory.MALFORMED_OUTPUT)
        items = data.get("claims") if isinstance(data, dict) else None
        if not isinstance(items, list):
            return self._failed(event, ErrorCategory.RETRIES_EXHAUSTED)
        proposals: list[dict[str, Any]] = []
        rejected: list[RejectedClaim] = []
        for item in items:
            try:
                claim = LLMClaim.model_validate(item)
            except ValidationError as err:
                rejected.append(_malformed(item, err))
            else:
                proposals.append(claim.to_claim_dict())
        return self._validated(event, proposals, rejected)

    def _validated(
        self, event: ConversationEvent, proposals: Sequence[dict[str, Any]], rejected: list[RejectedClaim]
    ) -> ExtractionResult:
        try:
            ctx = SourceText(event.text)
            outcome = validate_with_context(event, proposals, ctx, grounding_method=self.grounding_method)
            recovered = recover_speech_acts(event, proposals, outcome, ctx, grounding_method=self.grounding_method)
        except Exception as exc:
            return self._failed(event, ErrorCategory.EXTRACTOR_ERROR, cause=exc)
        claims = (*outcome.accepted, *recovered)
        return self._result(event, claims=claims, rejected=(*rejected, *outcome.rejected))

    def _failed(self, event: ConversationEvent, category: ErrorCategory, cause: object = None) -> ExtractionResult:
        root = _root_cause(cause) if isinstance(cause, BaseException) else None
        status_code = getattr(root, "status_code", None)
        logger.warning(
            "llm extraction failed: event_id=%s category=%s cause=%s http_status=%s",
            event.event_id,
            category.value,
            type(root).__name__ if root is not None else "-",
            status_code if isinstance(status_code, int) else "-",
        )
        return self._result(event, status="failed", error_category=category.value)

    def _result(self, event: ConversationEvent, **fields: Any) -> ExtractionResult:
        return ExtractionResult(
            event=EventRef.of(event),
            extractor=self.name,
            extractor_version=self.version,
            model=self.model,
            grounding_policy_version=GROUNDING_POLICY_VERSION,
            source_hash=event.content_sha256,
            **fields,
        )


def create_extractor(settings: Settings) -> LLMExtractor:
    """Factory used by ``extractors.base.get_extractor("llm", settings)``."""
    return LLMExtractor.from_settings(settings)


# --- failure classification -------------------------------------------------
def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not s for s in seen) and len(seen) < 16:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _root_cause(exc: BaseException) -> BaseException:
    chain = _chain(exc)
    for candidate in chain:  # prefer the provider error over instructor's wrapper
        if isinstance(candidate, openai.APIError):
            return candidate
    return chain[-1]


def _provider_category(exc: BaseException) -> ErrorCategory | None:
    """Category of a transport or provider failure anywhere in the cause chain."""
    for err in _chain(exc):
        if isinstance(err, (openai.APITimeoutError, TimeoutError)):
            return ErrorCategory.TIMEOUT
        if isinstance(err, (openai.APIConnectionError, ConnectionError)):
            return ErrorCategory.CONNECTION_ERROR
        if isinstance(err, openai.APIStatusError):
            return ErrorCategory.RATE_LIMITED if err.status_code == 429 else ErrorCategory.PROVIDER_ERROR
        if isinstance(err, openai.APIResponseValidationError):
            return ErrorCategory.MALFORMED_OUTPUT
        if isinstance(err, openai.APIError):
            return ErrorCategory.PROVIDER_ERROR
        if isinstance(err, IncompleteOutputException):
            return ErrorCategory.MALFORMED_OUTPUT
    return None


# --- salvage helpers --------------------------------------------------------
_FENCE = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.DOTALL)


def _completion_text(completion: Any) -> str | None:
    """The JSON text of a chat completion: the forced tool call's arguments, else the content."""
    try:
        message = completion.choices[0].message
    except (AttributeError, IndexError, TypeError):
        return None
    tool_calls = getattr(message, "tool_calls", None) or []
    if tool_calls:
        args = tool_calls[0].function.arguments
        return args if isinstance(args, str) else None
    content = getattr(message, "content", None)
    if not isinstance(content, str):
        return None
    fenced = _FENCE.search(content)
    return fenced.group(1) if fenced else content


def _malformed(item: Any, err: ValidationError) -> RejectedClaim:
    # pydantic messages name fields and allowed values, never the input.
    problems = sorted(
        {
            f"{'.'.join(str(p) for p in e['loc']) or 'claim'}: {e['msg']}"
            for e in err.errors(include_input=False, include_url=False, include_context=False)
        }
    )
    return RejectedClaim(reason_code=MALFORMED_CLAIM, detail="; ".join(problems)[:1000], claim=_masked_json(item))


def _masked_json(item: Any) -> dict[str, JsonValue]:
    """The proposal as stored in the journal: JSON-safe, secrets masked in every string."""

    def walk(value: Any, depth: int = 0) -> JsonValue:
        if depth > 8:
            return None
        if isinstance(value, str):
            return mask(value)[0]
        if isinstance(value, bool | int | float) or value is None:
            return value
        if isinstance(value, dict):
            return {mask(str(k))[0]: walk(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [walk(v, depth + 1) for v in value]
        return mask(str(value))[0]

    walked = walk(item)
    return walked if isinstance(walked, dict) else {"value": walked}


# --- keep third-party log lines free of provider bodies, keys and content ---------
class _TrimRecords(logging.Filter):
    """Cut a library's log lines to their prefix.

    Instructor logs ``"API call failed on attempt 1: <exception>"``, where the
    exception text embeds the provider's error body (which may echo the key),
    and validation errors embed the model's output. The openai client logs
    whole request payloads at DEBUG ("Request options: ..."), i.e. the raw
    message content, secrets included. Only the part before the first colon
    survives; ``only`` limits trimming to messages starting with one of its
    prefixes.
    """

    def __init__(self, only: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.only = only

    def filter(self, record: logging.LogRecord) -> bool:
        if self.only and not (isinstance(record.msg, str) and record.msg.startswith(self.only)):
            return True
        message = record.getMessage()
        head, sep, _ = message.partition(":")
        record.msg = f"{head[:160]}: [detail withheld]" if sep else message[:160]
        record.args = None
        record.exc_info = None
        record.exc_text = None
        return True


def _install_log_filters() -> None:
    # Every logger instructor's OpenAI path uses (its other modules are batch/distil tools).
    trimmed: dict[str, tuple[str, ...]] = {
        name: () for name in ("instructor", "instructor.v2", "instructor.v2.retry", "instructor.cache")
    }
    trimmed.update({n: () for n in logging.root.manager.loggerDict if n.startswith("instructor")})
    trimmed["openai._base_client"] = ("Request options",)
    for name, only in trimmed.items():
        target = logging.getLogger(name)
        if not any(isinstance(f, _TrimRecords) for f in target.filters):
            target.addFilter(_TrimRecords(only))


_install_log_filters()
