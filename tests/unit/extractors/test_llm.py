"""LLM extractor end to end: real instructor + real openai/httpx against a local fake server.

Every scenario the issue names is scripted on ``tests/fakes/openai_server.py``:
valid output, an ungrounded quote corrected on retry, malformed JSON, a reply
slower than the client timeout, 429 and 500. A socket guard makes any
non-loopback connection fail the test, so nothing reaches the network.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr, ValidationError

_ROOT = Path(__file__).resolve().parents[3]
if str(_ROOT) not in sys.path:  # tests/ is not a package on the default pytest path
    sys.path.insert(0, str(_ROOT))


from extractors.base import Extractor, get_extractor  # noqa: E402
from extractors.llm import EXTRACTOR_VERSION, LLMExtractor, Mode  # noqa: E402
from extractors.llm_schema import LLMClaim  # noqa: E402
from extractors.reasons import MALFORMED_CLAIM  # noqa: E402
from extractors.validation import GROUNDING_POLICY_VERSION  # noqa: E402
from schemas import ConversationEvent, EpistemicType, Polarity, Role, Scope, sha256_hex  # noqa: E402
from schemas.settings import Settings  # noqa: E402
from tests.fakes.openai_server import (  # noqa: E402
    FakeOpenAIServer,
    http_error,
    non_json_body,
    raw,
    structured,
)

API_KEY = "sk-test-DO-NOT-LEAK-0123456789abcdef"
BODY_MARKER = "PROVIDER-BODY-MARKER-7731"
MODEL = "test-model-7b"
CONTENT = "I work at Acme Corp. I might move to Berlin if the offer is good."

WORKS_AT: dict[str, Any] = {
    "evidence_quote": "I work at Acme Corp.",
    "polarity": "positive",
    "epistemic_type": "ASSERTED",
    "node_type": "FACT",
    "subject": "I",
    "predicate": "works_at",
    "object": "Acme Corp",
    "condition": None,
}
MOVES_TO: dict[str, Any] = {
    "evidence_quote": "I might move to Berlin if the offer is good.",
    "polarity": "positive",
    "epistemic_type": "CONDITIONAL",
    "node_type": "FACT",
    "subject": "I",
    "predicate": "moves_to",
    "object": "Berlin",
    "condition": "if the offer is good",
}
UNGROUNDED = {**WORKS_AT, "evidence_quote": "I am employed by Acme Corporation."}


# --- fixtures ------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail loudly if anything tries to connect beyond 127.0.0.1."""
    original = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        if isinstance(address, tuple) and address[0] not in {"127.0.0.1", "::1", "localhost"}:
            raise AssertionError(f"test tried to reach the network: {address[0]}")
        return original(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def server(fake: FakeOpenAIServer) -> Iterator[FakeOpenAIServer]:
    fake.reset()
    yield fake
    fake.reset()


def _event(content: str = CONTENT, role: Role = Role.USER) -> ConversationEvent:
    return ConversationEvent(
        event_id="evt-42",
        tenant_id="acme",
        owner_id="alice",
        scope=Scope.PERSONAL,
        role=role,
        content=content,
        occurred_at=datetime(2026, 3, 1, 12, 0, tzinfo=UTC),
    )


def _extractor(server: FakeOpenAIServer, **kw: Any) -> LLMExtractor:
    params: dict[str, Any] = {"base_url": server.base_url, "model": MODEL, "api_key": API_KEY, "timeout_s": 0.5}
    params.update(kw)
    return LLMExtractor(**params)


def _messages_text(request_body: dict[str, Any]) -> str:
    return json.dumps(request_body["messages"])


def _assert_no_leak(result_json: str, *extra: str) -> None:
    for text in (result_json, *extra):
        assert API_KEY not in text
        assert BODY_MARKER not in text


# --- success paths ----------------------------------------------------------------
def test_valid_output_is_accepted_and_the_request_is_deterministic(server: FakeOpenAIServer) -> None:
    server.enqueue(structured({"claims": [WORKS_AT, MOVES_TO]}))
    event = _event()
    result = _extractor(server).extract(event)

    assert result.status == "ok" and result.error_category is None
    assert [(c.subject, c.predicate, c.object) for c in result.claims] == [
        ("I", "works_at", "Acme Corp"),
        ("I", "moves_to", "Berlin"),
    ]
    works, moves = result.claims
    assert works.epistemic_type is EpistemicType.ASSERTED and works.polarity is Polarity.POSITIVE
    assert moves.epistemic_type is EpistemicType.CONDITIONAL and moves.condition == "if the offer is good"
    assert all(c.evidence_quote in CONTENT for c in result.claims)
    assert result.rejected == ()
    # the journal record identifies what produced it and from what
    assert (result.extractor, result.extractor_version, result.model) == ("llm", EXTRACTOR_VERSION, MODEL)
    assert result.grounding_policy_version == GROUNDING_POLICY_VERSION
    assert result.source_hash == sha256_hex(CONTENT) == result.event.content_sha256
    assert result.event.event_id == "evt-42"

    (request,) = server.chat_requests
    body = request.body
    assert body["model"] == MODEL and body["temperature"] == 0.0
    assert body["tool_choice"]["function"]["name"] == body["tools"][0]["function"]["name"]
    required = set(body["tools"][0]["function"]["parameters"]["$defs"]["LLMClaim"]["required"])
    assert {"evidence_quote", "polarity", "epistemic_type", "node_type", "subject", "predicate", "object"} <= required
    assert CONTENT in body["messages"][-1]["content"]  # the content itself is sent unmasked
    assert request.headers["authorization"] == f"Bearer {API_KEY}"  # the key goes to the provider only
    _assert_no_leak(result.model_dump_json())


def test_ungrounded_quote_is_fed_back_and_the_corrected_answer_wins(server: FakeOpenAIServer) -> None:
    server.enqueue(structured({"claims": [UNGROUNDED]}), structured({"claims": [WORKS_AT]}))
    result = _extractor(server).extract(_event())

    assert result.status == "ok"
    assert [c.evidence_quote for c in result.claims] == ["I work at Acme Corp."]
    assert result.rejected == ()
    first, second = server.chat_requests
    assert "quote_not_in_source" not in _messages_text(first.body)
    feedback = [m for m in second.body["messages"] if m["role"] == "tool"]
    assert len(feedback) == 1
    assert "claims[0]" in feedback[0]["content"] and "quote_not_in_source" in feedback[0]["content"]
    # the failed attempt is replayed to the model with the same settings
    assert second.body["temperature"] == 0.0 and second.body["model"] == MODEL
    assert len(second.body["messages"]) == len(first.body["messages"]) + 2


def test_a_quote_never_fixed_is_rejected_but_its_sibling_survives(server: FakeOpenAIServer) -> None:
    server.enqueue(*[structured({"claims": [UNGROUNDED, MOVES_TO]})] * 3)
    result = _extractor(server, max_retries=2).extract(_event())

    assert len(server.chat_requests) == 3  # 1 attempt + max_retries, then stop
    assert server.pending == 0
    assert result.status == "ok"
    assert [(c.predicate, c.object) for c in result.claims] == [("moves_to", "Berlin")]
    assert [r.reason_code for r in result.rejected] == ["quote_not_in_source"]
    assert result.rejected[0].claim["evidence_quote"] == UNGROUNDED["evidence_quote"]


def test_missing_required_fields_are_fed_back_then_rejected_one_at_a_time(server: FakeOpenAIServer) -> None:
    no_polarity = {k: v for k, v in WORKS_AT.items() if k != "polarity"}
    conditional_without_condition = {**MOVES_TO, "condition": None}
    payload = {"claims": [no_polarity, conditional_without_condition, WORKS_AT]}
    server.enqueue(structured(payload), structured(payload))
    result = _extractor(server, max_retries=1).extract(_event())

    assert len(server.chat_requests) == 2
    feedback = _messages_text(server.chat_requests[1].body)
    assert "polarity" in feedback and "CONDITIONAL claim needs" in feedback
    assert result.status == "ok"
    assert [c.predicate for c in result.claims] == ["works_at"]
    assert [r.reason_code for r in result.rejected] == [MALFORMED_CLAIM, MALFORMED_CLAIM]
    assert "polarity" in result.rejected[0].detail
    assert "condition" in result.rejected[1].detail


def test_malformed_json_then_valid_recovers(server: FakeOpenAIServer) -> None:
    server.enqueue(raw('{"claims": [{"evidence_quote": "I work'), structured({"claims": [WORKS_AT]}))
    result = _extractor(server).extract(_event())

    assert result.status == "ok" and [c.predicate for c in result.claims] == ["works_at"]
    assert len(server.chat_requests) == 2
    feedback = next(m for m in server.chat_requests[1].body["messages"] if m["role"] == "tool")
    assert "json" in feedback["content"].lower()


def test_malformed_json_every_time_fails_without_losing_the_event(server: FakeOpenAIServer) -> None:
    server.enqueue(*[raw("Sure! Here are the claims: none")] * 4)
    event = _event()
    result = _extractor(server, max_retries=3).extract(event)

    assert len(server.chat_requests) == 4
    assert (result.status, result.error_category) == ("failed", "malformed_output")
    assert result.claims == () and result.rejected == ()
    assert result.event.event_id == event.event_id and result.source_hash == event.content_sha256


def test_a_body_that_is_not_a_chat_completion_is_malformed_output(server: FakeOpenAIServer) -> None:
    server.enqueue(*[non_json_body()] * 2)
    result = _extractor(server, max_retries=1).extract(_event())

    assert (result.status, result.error_category) == ("failed", "malformed_output")
    assert len(server.chat_requests) == 2  # bounded like any other unparseable answer


def test_wrong_envelope_every_time_is_retries_exhausted(server: FakeOpenAIServer) -> None:
    server.enqueue(*[structured({"facts": [WORKS_AT]})] * 2)
    result = _extractor(server, max_retries=1).extract(_event())

    assert len(server.chat_requests) == 2
    assert (result.status, result.error_category) == ("failed", "retries_exhausted")


def test_empty_claim_list_is_a_successful_empty_result(server: FakeOpenAIServer) -> None:
    server.enqueue(structured({"claims": []}))
    result = _extractor(server).extract(_event("Hi there, how are you?"))
    assert (result.status, result.claims, result.rejected) == ("ok", (), ())
    assert len(server.chat_requests) == 1


# --- provider failures ------------------------------------------------------------
@pytest.mark.parametrize(
    ("status", "category"),
    [(429, "rate_limited"), (500, "provider_error"), (503, "provider_error"), (401, "provider_error")],
)
def test_provider_errors_fail_fast_with_a_sanitised_category(
    server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture, status: int, category: str
) -> None:
    body = {"error": {"message": f"{BODY_MARKER}: rejected key {API_KEY}", "type": "server_error"}}
    server.enqueue(http_error(status, body, headers={"Retry-After": "0"}))
    caplog.set_level(logging.DEBUG)
    result = _extractor(server).extract(_event())

    assert (result.status, result.error_category) == ("failed", category)
    assert len(server.chat_requests) == 1  # no hidden client-side retries
    assert result.claims == () and result.source_hash == sha256_hex(CONTENT)
    _assert_no_leak(result.model_dump_json(), caplog.text)
    assert f"category={category}" in caplog.text and f"http_status={status}" in caplog.text


def test_a_reply_slower_than_the_timeout_is_a_timeout(server: FakeOpenAIServer) -> None:
    server.enqueue(structured({"claims": [WORKS_AT]}, delay_s=3.0))
    result = _extractor(server, timeout_s=0.3).extract(_event())

    assert (result.status, result.error_category) == ("failed", "timeout")
    assert len(server.chat_requests) == 1


def test_connection_refused_is_a_connection_error() -> None:
    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    extractor = LLMExtractor(base_url=f"http://127.0.0.1:{port}/v1", model=MODEL, api_key=API_KEY, timeout_s=0.5)
    result = extractor.extract(_event())
    assert (result.status, result.error_category) == ("failed", "connection_error")
    _assert_no_leak(result.model_dump_json())


def test_provider_error_on_a_retry_fails_the_extraction(server: FakeOpenAIServer) -> None:
    server.enqueue(structured({"claims": [UNGROUNDED]}), http_error(500, {"error": {"message": BODY_MARKER}}))
    result = _extractor(server).extract(_event())
    assert (result.status, result.error_category) == ("failed", "provider_error")
    assert len(server.chat_requests) == 2


def test_logs_never_carry_keys_provider_bodies_or_model_output(
    server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    leaky_claim = {**UNGROUNDED, "evidence_quote": f"{BODY_MARKER} quote"}
    server.enqueue(
        structured({"claims": [leaky_claim]}),
        raw(f"{BODY_MARKER} not json"),
        http_error(500, {"error": {"message": f"{BODY_MARKER} {API_KEY}"}}),
    )
    caplog.set_level(logging.DEBUG)
    result = _extractor(server).extract(_event())

    assert result.error_category == "provider_error"
    assert any(r.name.startswith("instructor") for r in caplog.records)  # instructor did log; we trimmed it
    _assert_no_leak(result.model_dump_json(), caplog.text)


# --- modes, async, settings -------------------------------------------------------------
@pytest.mark.parametrize(
    ("mode", "fenced", "response_format"),
    [(Mode.JSON, False, "json_object"), (Mode.MD_JSON, True, None), (Mode.JSON_SCHEMA, False, "json_schema")],
)
def test_json_modes_work_against_servers_without_tools(
    server: FakeOpenAIServer, mode: Mode, fenced: bool, response_format: str | None
) -> None:
    server.enqueue(structured({"claims": [UNGROUNDED]}, fence_json=fenced))
    server.enqueue(structured({"claims": [WORKS_AT]}, fence_json=fenced))
    result = _extractor(server, mode=mode).extract(_event())

    assert result.status == "ok" and [c.predicate for c in result.claims] == ["works_at"]
    first, second = server.chat_requests
    assert "tools" not in first.body
    assert first.body.get("response_format", {}).get("type") == response_format
    assert "quote_not_in_source" in second.body["messages"][-1]["content"]


def test_async_extract_matches_sync_behaviour(server: FakeOpenAIServer) -> None:
    server.enqueue(
        structured({"claims": [UNGROUNDED]}),
        structured({"claims": [WORKS_AT]}),
        http_error(429, {"error": {"message": BODY_MARKER}}),
    )
    extractor = _extractor(server)

    async def run() -> tuple[Any, Any]:
        try:
            return await extractor.aextract(_event()), await extractor.aextract(_event())
        finally:
            await extractor.aclose()

    ok, limited = asyncio.run(run())
    assert ok.status == "ok" and [c.predicate for c in ok.claims] == ["works_at"]
    assert "quote_not_in_source" in _messages_text(server.chat_requests[1].body)
    assert (limited.status, limited.error_category) == ("failed", "rate_limited")
    _assert_no_leak(limited.model_dump_json())


def test_from_settings_uses_the_configured_endpoint_model_and_key(server: FakeOpenAIServer) -> None:
    settings = Settings(
        llm_base_url=server.base_url,
        llm_model="settings-model",
        llm_api_key=SecretStr(API_KEY),
        llm_temperature=0.0,
        llm_max_retries=1,
        llm_timeout_s=0.5,
    )
    extractor = LLMExtractor.from_settings(settings)
    server.enqueue(structured({"claims": [UNGROUNDED]}), structured({"claims": [UNGROUNDED]}))
    result = extractor.extract(_event())

    assert len(server.chat_requests) == 2  # llm_max_retries=1
    assert {r.body["model"] for r in server.chat_requests} == {"settings-model"}
    assert server.chat_requests[0].headers["authorization"] == f"Bearer {API_KEY}"
    assert result.model == "settings-model" and [r.reason_code for r in result.rejected] == ["quote_not_in_source"]
    assert API_KEY not in repr(extractor) and API_KEY not in str(vars(extractor))


def test_the_registry_builds_a_working_llm_extractor_from_settings(server: FakeOpenAIServer) -> None:
    settings = Settings(llm_base_url=server.base_url, llm_model=MODEL, llm_api_key=SecretStr(API_KEY))
    extractor = get_extractor("llm", settings)
    assert isinstance(extractor, Extractor) and isinstance(extractor, LLMExtractor)
    assert (extractor.name, extractor.timeout_s, extractor.max_retries, extractor.temperature) == ("llm", 30.0, 3, 0.0)
    server.enqueue(structured({"claims": [WORKS_AT]}))
    assert [c.predicate for c in extractor.extract(_event()).claims] == ["works_at"]


def test_an_unset_key_never_falls_back_to_the_environment(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    server.enqueue(structured({"claims": []}))
    _extractor(server, api_key="").extract(_event())
    assert API_KEY not in server.chat_requests[0].headers.get("authorization", "")


# --- the response schema itself -----------------------------------------------------
@pytest.mark.parametrize(
    "field", ["evidence_quote", "polarity", "epistemic_type", "node_type", "subject", "predicate", "object"]
)
def test_every_core_field_is_required(field: str) -> None:
    with pytest.raises(ValidationError) as info:
        LLMClaim.model_validate({k: v for k, v in WORKS_AT.items() if k != field})
    assert any(e["loc"] == (field,) and e["type"] == "missing" for e in info.value.errors())


@pytest.mark.parametrize(
    ("override", "needle"),
    [
        ({"epistemic_type": "CONDITIONAL", "condition": None}, "needs `condition`"),
        ({"epistemic_type": "CONDITIONAL", "condition": "   "}, "needs `condition`"),
        ({"epistemic_type": "ASSERTED", "condition": "if the offer is good"}, "must be null"),
        ({"epistemic_type": "DEPRECATED"}, "epistemic_type"),
        ({"polarity": "unknown"}, "polarity"),
        ({"evidence_quote": "  "}, "evidence_quote"),
    ],
)
def test_schema_rejects_shapes_the_rules_forbid(override: dict[str, Any], needle: str) -> None:
    with pytest.raises(ValidationError) as info:
        LLMClaim.model_validate({**MOVES_TO, **override})
    assert needle in str(info.value)


def test_schema_normalises_case_and_drops_only_a_bad_quantity() -> None:
    claim = LLMClaim.model_validate(
        {**WORKS_AT, "epistemic_type": "asserted", "polarity": "Negative", "quantity": {"value": "about 3"}}
    )
    assert (claim.epistemic_type, claim.polarity, claim.quantity) == ("ASSERTED", "negative", None)
    good = LLMClaim.model_validate({**WORKS_AT, "quantity": {"value": "1,200", "unit": "USD", "source_text": "1,200"}})
    assert good.to_claim_dict()["quantity"] == {"value": "1,200", "unit": "USD", "source_text": "1,200"}
    unparseable = LLMClaim.model_validate({**WORKS_AT, "quantity": {"value": "3-4", "source_text": "3-4"}})
    assert "quantity" not in unparseable.to_claim_dict()


# --- the shared validation layer has the last word ---------------------------------
def test_every_validation_reason_is_fed_back_not_only_quotes(server: FakeOpenAIServer) -> None:
    content = "I might switch to Rust next year."
    hedged = {**WORKS_AT, "evidence_quote": content, "predicate": "switches_to", "object": "Rust"}
    retyped = {**hedged, "epistemic_type": "HYPOTHETICAL"}
    server.enqueue(structured({"claims": [hedged]}), structured({"claims": [retyped]}))
    result = _extractor(server).extract(_event(content))

    assert "uncertain_claim_typed_as_fact" in _messages_text(server.chat_requests[1].body)
    assert result.status == "ok" and result.rejected == ()
    assert [c.epistemic_type for c in result.claims] == [EpistemicType.HYPOTHETICAL]


def test_secrets_are_sent_to_the_model_but_never_stored_in_the_result(server: FakeOpenAIServer) -> None:
    secret = "sk-live-abcdef0123456789ABCDEF"
    content = f"Our staging key is {secret}. I use Postgres."
    leaked = {**WORKS_AT, "evidence_quote": f"Our staging key is {secret}.", "predicate": "has_key", "object": secret}
    uses = {**WORKS_AT, "evidence_quote": "I use Postgres.", "predicate": "uses", "object": "Postgres"}
    malformed = {k: v for k, v in leaked.items() if k != "polarity"}
    server.enqueue(*[structured({"claims": [malformed, leaked, uses]})] * 2)
    result = _extractor(server, max_retries=1).extract(_event(content))

    assert secret in server.chat_requests[0].body["messages"][-1]["content"]  # content goes out unmasked
    assert result.status == "ok"
    assert [(c.predicate, c.object) for c in result.claims] == [("uses", "Postgres")]
    assert sorted(r.reason_code for r in result.rejected) == [MALFORMED_CLAIM, "secret_value"]
    assert secret not in result.model_dump_json()
    assert "[REDACTED:" in json.dumps([r.claim for r in result.rejected])


def test_a_speech_act_the_model_never_fixes_is_rejected_and_recovered(server: FakeOpenAIServer) -> None:
    content = "I'm trying to set up ESLint for the repo."
    completed = {**WORKS_AT, "evidence_quote": "I'm trying to set up ESLint", "predicate": "uses", "object": "ESLint"}
    server.enqueue(structured({"claims": [completed]}), structured({"claims": [completed]}))
    result = _extractor(server, max_retries=1).extract(_event(content))

    assert "speech_act_completed_predicate" in _messages_text(server.chat_requests[1].body)
    assert [r.reason_code for r in result.rejected] == ["speech_act_completed_predicate"]
    (recovered,) = result.claims  # PRME §8.2.8: cue + first action word, OBSERVED, confidence 1.0
    assert (recovered.subject, recovered.predicate, recovered.object) == ("I", "trying_to_set", "ESLint")
    assert recovered.epistemic_type is EpistemicType.OBSERVED and recovered.classification_confidence == 1.0
