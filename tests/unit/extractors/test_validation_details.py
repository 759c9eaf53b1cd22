"""What the validation layer records about a refusal, written out: the code, the detail, the claim.

A refused claim is journalled (its code and detail tell an operator why) and the proposal itself
is kept with every secret hidden, whatever the secret's shape and wherever in the proposal it sits.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from extractors import reasons
from extractors.validation import ValidationOutcome, validate_claims
from schemas.events import ConversationEvent

KEY = "sk-proj-Abc123def456ghi789jkl012mno"


def _event(content: str, role: str = "user", speaker: str | None = None, **extra: Any) -> ConversationEvent:
    return ConversationEvent(
        event_id="ev-1", tenant_id="t1", owner_id="o1", scope="personal", role=role, speaker=speaker,
        content=content, occurred_at=datetime(2026, 3, 1, 12, 0, tzinfo=UTC), **extra,
    )  # fmt: skip


def _claim(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "subject": "user", "predicate": "uses", "object": "Postgres", "polarity": "positive",
        "epistemic_type": "ASSERTED", "evidence_quote": "I use Postgres",
    }  # fmt: skip
    base.update(kw)
    return base


def _one_refusal(outcome: ValidationOutcome) -> tuple[str, str, dict[str, Any]]:
    assert outcome.accepted == []
    (rejected,) = outcome.rejected
    return rejected.reason_code, rejected.detail, dict(rejected.claim)


# --- roles ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "speaker", "content", "claim", "detail"),
    [
        ("assistant", None, "I think Postgres is nice.",
         _claim(subject="assistant", predicate="likes", evidence_quote="I think Postgres is nice"),
         "assistant: not a commitment or completed action"),
        ("assistant", "Ava", "Ava thinks Postgres is nice.",
         _claim(subject="Ava", predicate="likes", evidence_quote="Ava thinks Postgres is nice"),
         "assistant: not a commitment or completed action"),
        ("assistant", None, "Postgres is a database.",
         _claim(subject="Postgres", predicate="is_a", object="database", evidence_quote="Postgres is a database"),
         "assistant: not a fact attributed to the user"),
        ("system", None, "Task: use Postgres.",
         _claim(node_type="TASK", subject="system", evidence_quote="Task: use Postgres"), "system: TASK not admitted"),
        ("tool", None, "Postgres prefers SSDs.",
         _claim(node_type="PREFERENCE", subject="Postgres", predicate="prefers", object="SSDs",
                evidence_quote="Postgres prefers SSDs"), "tool: PREFERENCE not admitted"),
        ("tool", None, "[INFO] Postgres is up.",
         _claim(subject="Postgres", predicate="is", object="up", evidence_quote="Postgres is up"), "tool: log line"),
        ("user", None, "Can you recommend Postgres hosting I like?",
         _claim(node_type="PREFERENCE", predicate="likes", object="Postgres hosting",
                evidence_quote="Can you recommend Postgres hosting I like"),
         "a request for a recommendation is not a preference"),
    ],
)  # fmt: skip
def test_each_role_refusal_says_why(role: str, speaker: str | None, content: str, claim: dict[str, Any],
                                    detail: str) -> None:  # fmt: skip
    code, said, _ = _one_refusal(validate_claims(_event(content, role, speaker), [claim]))
    assert (code, said) == (reasons.ROLE_NOT_ADMITTED, detail)


def test_the_assistant_may_commit_under_its_own_speaker_name() -> None:
    content = "I will book the Postgres training."
    claim = _claim(subject="Ava", predicate="will_book", object="Postgres training",
                   evidence_quote="I will book the Postgres training")  # fmt: skip
    outcome = validate_claims(_event(content, "assistant", "Ava"), [claim])
    assert [c.subject for c in outcome.accepted] == ["Ava"]


# --- secrets ----------------------------------------------------------------------------------------


def test_a_secret_shaped_value_is_refused_even_when_the_source_holds_no_secret() -> None:
    code, detail, kept = _one_refusal(validate_claims(_event("I use Postgres."), [_claim(object=KEY)]))
    assert (code, detail) == (reasons.SECRET_VALUE, "value has a secret shape")
    assert kept["object"] == "[REDACTED:secret_value]"
    assert kept["subject"] == "user"  # a self subject is no secret
    assert KEY not in str(kept)


@pytest.mark.parametrize("obj", ["hunter2xyz", "hunter2", "the hunter2xyz one"])
def test_a_value_that_is_part_of_a_source_secret_or_holds_one_is_refused(obj: str) -> None:
    content = "my password is hunter2xyz. I use it daily."
    claim = _claim(predicate="uses", object=obj, evidence_quote="I use it daily")
    code, detail, kept = _one_refusal(validate_claims(_event(content), [claim]))
    assert (code, detail) == (reasons.SECRET_VALUE, "value is a secret in the source")
    assert "hunter2" not in str(kept)


def test_a_secret_in_a_quantity_is_refused() -> None:
    claim = _claim(object="3 keys", quantity={"value": "3", "unit": "key", "source_text": KEY})
    code, detail, kept = _one_refusal(validate_claims(_event("I use 3 keys."), [claim]))
    assert (code, detail) == (reasons.SECRET_VALUE, "value has a secret shape")
    assert kept["quantity"] == "[REDACTED:secret_value]"


def test_a_credential_predicate_is_refused_and_its_value_hidden() -> None:
    claim = _claim(predicate="wifi_password", object="Blue-Fox-42", evidence_quote="the wifi is Blue-Fox-42")
    code, detail, kept = _one_refusal(validate_claims(_event("the wifi is Blue-Fox-42"), [claim]))
    assert (code, detail) == (reasons.SECRET_VALUE, "predicate names a credential")
    assert kept["object"] == "[REDACTED:secret_value]"


def test_secrets_are_hidden_anywhere_in_a_refused_proposal() -> None:
    content = "my password is hunter2xyz."
    claim = _claim(object="Postgres", evidence_quote="nowhere in the source",
                   metadata={"note": f"key {KEY}", "list": ["ok", "hunter2xyz"], "n": 3, "flag": True, "none": None})
    code, _, kept = _one_refusal(validate_claims(_event(content), [claim]))
    assert code == reasons.QUOTE_NOT_IN_SOURCE
    assert kept["object"] == "Postgres"  # only secret_value refusals hide the values themselves
    assert kept["metadata"] == {"note": "key [REDACTED:api_key]", "list": ["ok", "[REDACTED:password]"], "n": 3,
                                "flag": True, "none": None}  # fmt: skip


# --- malformed --------------------------------------------------------------------------------------


def test_a_proposal_that_is_not_an_object_is_malformed() -> None:
    code, detail, _ = _one_refusal(validate_claims(_event("I use Postgres."), ["I use Postgres"]))  # type: ignore[list-item]
    assert (code, detail) == (reasons.MALFORMED_CLAIM, "claim must be an object")


def test_a_malformed_proposal_names_the_first_bad_field() -> None:
    code, detail, _ = _one_refusal(validate_claims(_event("I use Postgres."), [_claim(subject="")]))
    assert (code, detail) == (reasons.MALFORMED_CLAIM, "subject: string_too_short")


# --- mentions, quotes and the claim's own text ------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "claim", "code", "detail"),
    [
        ("I use Postgres.", _claim(evidence_quote="   "), reasons.QUOTE_NOT_IN_SOURCE, "empty quote"),
        ("I use Postgres.", _claim(evidence_quote="I use MySQL"), reasons.QUOTE_NOT_IN_SOURCE, ""),
        ("Bob uses Postgres.", _claim(subject="Ann", evidence_quote="Bob uses Postgres"),
         reasons.MENTION_NOT_WHOLE_WORD, "subject"),
        ("I use MySQL.", _claim(evidence_quote="I use MySQL"), reasons.MENTION_NOT_WHOLE_WORD, "object"),
    ],
)  # fmt: skip
def test_quote_and_mention_refusals_say_which_part(content: str, claim: dict[str, Any], code: str,
                                                   detail: str) -> None:  # fmt: skip
    assert _one_refusal(validate_claims(_event(content), [claim]))[:2] == (code, detail)


def test_an_accepted_claim_records_its_quote_span_and_grounding_method() -> None:
    outcome = validate_claims(_event("Intro.\n\nI use Postgres.\n\nBye."), [_claim()], grounding_method="gm-x")
    (c,) = outcome.accepted
    assert c.metadata["quote_span"] == [8, 22]
    assert (c.evidence_span.start, c.evidence_span.end) == (8, 23)  # the quote's paragraph
    assert c.grounding_method == "gm-x"
    assert c.claim_text == "I use Postgres."


@pytest.mark.parametrize("meta", [{"tool_name": "weather"}, {}])
def test_a_tool_speaks_as_its_name_or_as_tool_without_being_mentioned(meta: dict[str, Any]) -> None:
    subject = meta.get("tool_name", "Tool")
    content = "It is 20 degrees in Lisbon."
    claim = _claim(subject=subject, predicate="reports", object="20 degrees", evidence_quote=content[:-1])
    event = _event(content, "tool", **({"metadata": meta} if meta else {}))
    assert [c.subject for c in validate_claims(event, [claim]).accepted] == [subject]


@pytest.mark.parametrize(
    ("content", "claim_text"),
    [
        ("Ana is my friend. She is kind. Ana lives in Rome.", "Ana lives in Rome."),
        ("Ana is my friend. Rome is where she lives.", "Ana is my friend. Rome is where she lives."),
        ("Ana is my friend. She is kind. She is fun. Rome is her home.",
         "Ana is my friend. She is kind. She is fun. Rome is her home."),
    ],
)  # fmt: skip
def test_claim_text_is_the_shortest_run_of_sentences_naming_subject_and_object(content: str, claim_text: str) -> None:
    claim = _claim(subject="Ana", predicate="lives_in", object="Rome", evidence_quote=content)
    (c,) = validate_claims(_event(content), [claim]).accepted
    assert c.claim_text == claim_text


def test_of_two_equal_runs_the_one_holding_the_quote_is_the_claim_text() -> None:
    content = "Ana lives in Rome. I like tea. Ana lives in Rome, she says."
    claim = _claim(subject="Ana", predicate="lives_in", object="Rome", evidence_quote="Ana lives in Rome, she says")
    (c,) = validate_claims(_event(content), [claim]).accepted
    assert c.claim_text == "Ana lives in Rome, she says."


# --- what is kept of a refused proposal, and of an accepted one ----------------------------------


def test_a_refused_claim_object_is_kept_as_json() -> None:
    from schemas.claims import Claim

    claim = Claim.model_validate({**_claim(object=KEY), "node_type": "FACT"})
    code, _, kept = _one_refusal(validate_claims(_event("I use Postgres."), [claim]))
    assert code == reasons.SECRET_VALUE
    assert (kept["node_type"], kept["epistemic_type"], kept["polarity"]) == ("FACT", "ASSERTED", "positive")


def test_a_refused_secret_value_hides_a_named_subject_too() -> None:
    claim = _claim(subject="Bob", object=KEY, condition="", evidence_quote="Bob uses Postgres")
    _, _, kept = _one_refusal(validate_claims(_event("Bob uses Postgres."), [claim]))
    assert kept["subject"] == "[REDACTED:secret_value]"
    assert kept["object"] == "[REDACTED:secret_value]"
    assert kept["condition"] == ""  # nothing to hide stays as it was


def test_a_proposal_that_is_not_json_is_kept_as_its_text_masked() -> None:
    odd = {"subject": "user", "predicate": "uses", "note": {KEY}}  # a set: no JSON form
    _, _, kept = _one_refusal(validate_claims(_event("I use Postgres."), [odd]))
    assert kept["note"] == "{'[REDACTED:api_key]'}"
    _, _, text = _one_refusal(validate_claims(_event("I use Postgres."), ["I use Postgres"]))  # type: ignore[list-item]
    assert text == {"value": "'I use Postgres'"}


def test_a_nested_malformed_field_and_a_whole_claim_error_are_named() -> None:
    nested = _claim(evidence_span={"start": "x", "end": 3})
    assert _one_refusal(validate_claims(_event("I use Postgres."), [nested]))[1] == "evidence_span.start: int_parsing"
    whole = _claim(epistemic_type="CONDITIONAL")  # no condition text: the model's own check
    assert _one_refusal(validate_claims(_event("I use Postgres."), [whole]))[1] == "claim: value_error"


def test_the_claim_text_is_masked_when_the_source_holds_a_secret() -> None:
    content = "I use Postgres with password: hunter2xyz."
    (c,) = validate_claims(_event(content), [_claim(evidence_quote="I use Postgres")]).accepted
    assert c.claim_text == "I use Postgres with password: [REDACTED:password]."
    assert c.evidence_quote == "I use Postgres"


def test_a_tool_speaker_keeps_its_own_name_over_the_tool_name() -> None:
    event = _event("It is 20 degrees in Lisbon.", "tool", "Bot", metadata={"tool_name": "weather"})
    claim = _claim(subject="Bot", predicate="reports", object="20 degrees", evidence_quote="It is 20 degrees in Lisbon")
    assert [c.subject for c in validate_claims(event, [claim]).accepted] == ["Bot"]


@pytest.mark.parametrize("content", ["Yesterday I moved to Rome.", "I moved to Rome yesterday."])
def test_a_date_at_either_end_of_the_claim_text_is_kept(content: str) -> None:
    claim = _claim(predicate="moved_to", object="Rome", evidence_quote=content[:-1])
    (c,) = validate_claims(_event(content), [claim]).accepted
    assert c.event_dates == ("2026-02-28",)


def _claim_text(content: str, quote: str, subject: str = "Ana", **event: Any) -> str | None:
    claim = _claim(subject=subject, predicate="lives_in", object="Rome", evidence_quote=quote)
    (c,) = validate_claims(_event(content, **event), [claim]).accepted
    return c.claim_text


def test_the_claim_text_run_stays_inside_the_quotes_paragraphs() -> None:
    content = "Ana lives in Rome.\n\nAna is my friend. Rome is her home."
    assert _claim_text(content, "Ana is my friend. Rome is her home.") == "Ana is my friend. Rome is her home."


def test_the_last_run_of_a_paragraph_is_looked_at() -> None:
    content = "I like tea. Ana is my friend. Rome is her home."
    assert _claim_text(content, "Ana is my friend. Rome is her home.") == "Ana is my friend. Rome is her home."


def test_a_run_is_four_sentences_at_most_else_the_quotes_sentences_are_the_claim_text() -> None:
    content = "Ana is my friend. She is kind. She is fun. She is smart. Rome is her home. It is sunny."
    assert _claim_text(content, content.rstrip(".")) == content


def test_the_speaker_is_mentioned_by_i_in_a_run_of_sentences() -> None:
    content = "I moved in May. Rome is home now. The weather is nice."
    got = _claim_text(content, content.rstrip("."), subject="Dana", role="participant", speaker="Dana")
    assert got == "I moved in May. Rome is home now."


def test_of_two_runs_of_the_same_length_the_one_holding_the_quote_wins() -> None:
    content = "Ana is here. Rome is nice. I like tea. Ana is here. Rome is great."
    assert _claim_text(content, "Ana is here. Rome is great") == "Ana is here. Rome is great."


@pytest.mark.parametrize(
    "field",
    [
        {"subject": "[REDACTED:password]"},
        {"object": "[REDACTED:api_key]"},
        {"epistemic_type": "CONDITIONAL", "condition": "if [REDACTED:pin] works"},
        {"temporal_intent": "UPDATE", "replaces_object": "[REDACTED:password]"},
        {"object": "4 digits", "quantity": {"value": "4", "unit": "1", "source_text": "[REDACTED:pin]"}},
    ],
)  # fmt: skip
def test_a_placeholder_in_any_claim_field_is_refused_as_a_masked_secret(field: dict[str, Any]) -> None:
    code, detail, _ = _one_refusal(validate_claims(_event("I use Postgres."), [_claim(**field)]))
    assert (code, detail) == (reasons.SECRET_VALUE, "value is a secret masked at admission")


@pytest.mark.parametrize(
    ("subject", "event", "content", "claim_text"),
    [
        # the tool speaks in every sentence of its output: the one naming the object is enough
        ("tool", {"role": "tool"}, "Report follows. Rome is sunny. Done.", "Rome is sunny."),
        # the speaker is named in the run, the object one sentence later
        ("user", {"role": "participant", "speaker": "Dana"}, "Dana here. Rome is home now. The weather is nice.",
         "Dana here. Rome is home now."),
        # a relative of the speaker is mentioned by the relation alone
        ("Dana's sister", {"role": "participant", "speaker": "Dana"}, "My sister is great. Rome is her home. Ok.",
         "My sister is great. Rome is her home."),
    ],
)  # fmt: skip
def test_who_counts_as_mentioned_in_a_run_of_sentences(
    subject: str, event: dict[str, Any], content: str, claim_text: str
) -> None:
    assert _claim_text(content, content.rstrip("."), subject=subject, **event) == claim_text


def test_the_source_texts_memory_keeps_each_text_apart() -> None:
    from extractors.validation import SourceText

    ctx = SourceText("If it rains I read. Do you read?")
    assert ctx.conditions("If it rains I read.") == [(0, 18)]
    assert ctx.conditions("I read.") == []
    assert ctx.question("Do you read?") is True
    assert ctx.question("I read.") is False


def test_a_refused_claim_is_kept_in_its_json_form() -> None:
    import json

    from schemas.claims import Claim

    claim = Claim.model_validate({**_claim(object=KEY), "node_type": "FACT"})
    _, _, kept = _one_refusal(validate_claims(_event("I use Postgres."), [claim]))
    assert type(kept["node_type"]) is str and type(kept["epistemic_type"]) is str
    assert json.loads(json.dumps(kept)) == kept


def test_dates_resolve_in_the_senders_local_time() -> None:
    # 23:30 UTC is already the next day for a sender two hours ahead: their "yesterday" is 1 March
    event = ConversationEvent(
        event_id="ev-1", tenant_id="t1", owner_id="o1", scope="personal", role="user",
        content="I moved to Rome yesterday.", occurred_at=datetime(2026, 3, 1, 23, 30, tzinfo=UTC),
        utc_offset_minutes=120,
    )  # fmt: skip
    claim = _claim(predicate="moved_to", object="Rome", evidence_quote="I moved to Rome yesterday")
    (c,) = validate_claims(event, [claim]).accepted
    assert c.event_dates == ("2026-03-01",)


def test_proposals_beyond_the_claim_cap_are_refused_once_with_their_count() -> None:
    from extractors.validation import MAX_CLAIMS_PER_EVENT

    content = "I use Postgres."
    out = validate_claims(_event(content), [_claim() for _ in range(MAX_CLAIMS_PER_EVENT + 3)])
    assert len(out.accepted) == MAX_CLAIMS_PER_EVENT
    [cap] = [r for r in out.rejected if r.claim.get("dropped") is not None]
    assert cap.claim == {"dropped": 3}
    assert cap.detail == f"3 proposals beyond the first {MAX_CLAIMS_PER_EVENT} accepted claims were not kept"
