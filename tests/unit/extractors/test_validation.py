"""The validation layer: every reason code fires on a realistic case and not on its near miss."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from extractors import reasons
from extractors.validation import validate_claims
from schemas.claims import Claim
from schemas.enums import EpistemicType, NodeType, Polarity, SourceType
from schemas.events import ConversationEvent

EventFactory = Callable[..., ConversationEvent]


def claim(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "subject": "user",
        "predicate": "lives_in",
        "object": "Berlin",
        "polarity": "positive",
        "epistemic_type": "ASSERTED",
        "evidence_quote": "I live in Berlin",
    }
    base.update(kw)
    return base


def run(event: EventFactory, content: str, *claims: dict[str, Any] | Claim, role: str = "user", **ev: Any):
    return validate_claims(event(content, role=role, **ev), list(claims), grounding_method="source_passage_v1")


def reject_code(outcome: Any) -> str | None:
    return outcome.rejected[0].reason_code if outcome.rejected else None


# --- malformed ---------------------------------------------------------------------------


def test_malformed_claims_are_dropped_one_at_a_time(event: EventFactory) -> None:
    out = run(
        event,
        "I live in Berlin. I work at Acme.",
        claim(),
        {"subject": "user", "predicate": "works_at"},  # no type, no quote
        claim(epistemic_type="DEPRECATED"),
        claim(epistemic_type="CONDITIONAL"),  # no condition text
        claim(predicate="works_at", object="Acme", evidence_quote="I work at Acme"),
    )
    assert [c.predicate for c in out.accepted] == ["lives_in", "works_at"]
    assert [r.reason_code for r in out.rejected] == [reasons.MALFORMED_CLAIM] * 3


def test_malformed_quantity_is_dropped_but_claim_kept(event: EventFactory) -> None:
    out = run(
        event,
        "I have 2 cats.",
        claim(predicate="has", object="2 cats", evidence_quote="I have 2 cats",
              quantity={"value": "2-3", "unit": "cats", "source_text": "2"}),
    )
    assert out.rejected == []
    assert out.accepted[0].quantity is None
    assert out.accepted[0].metadata["quantity_dropped"] == reasons.INVALID_QUANTITY


def test_valid_quantity_kept_and_not_a_quantity_dropped(event: EventFactory) -> None:
    ok = run(event, "I have 2 cats.", claim(predicate="has", object="2 cats", evidence_quote="I have 2 cats",
                                            quantity={"value": "2", "unit": "cats", "source_text": "2"}))
    assert ok.accepted[0].quantity is not None and ok.accepted[0].quantity.value == "2"
    version = run(event, "We run Postgres 16.2.1 now.",
                  claim(predicate="uses", object="Postgres 16.2.1", evidence_quote="We run Postgres 16.2.1",
                        quantity={"value": "16.2", "unit": "1", "source_text": "16.2"}))
    assert version.accepted[0].quantity is None
    assert version.accepted[0].metadata["quantity_dropped"] == reasons.INVALID_QUANTITY


# --- quotes and spans ---------------------------------------------------------------------


def test_quote_not_in_source(event: EventFactory) -> None:
    out = run(event, "I live in Berlin.", claim(evidence_quote="I live in Munich", object="Berlin"))
    assert reject_code(out) == reasons.QUOTE_NOT_IN_SOURCE
    blank = run(event, "I live in Berlin.", claim(evidence_quote="   "))
    assert reject_code(blank) == reasons.QUOTE_NOT_IN_SOURCE


def test_quote_matches_after_normalising_and_span_is_the_paragraph(event: EventFactory) -> None:
    content = "Hi there!\n\nI\u2019m  based in\nBerlin these days. I love it.\n\nBye."
    out = run(event, content, claim(evidence_quote="I'm based in Berlin"))
    (c,) = out.accepted
    assert c.evidence_quote == "I\u2019m  based in\nBerlin"  # the source's own text
    assert c.evidence_span is not None
    assert content[c.evidence_span.start : c.evidence_span.end] == "I\u2019m  based in\nBerlin these days. I love it."
    assert c.claim_text == "I\u2019m  based in\nBerlin these days."


def test_repeated_quote_keeps_the_whole_source(event: EventFactory) -> None:
    content = "I live in Berlin.\n\nYes really, I live in Berlin."
    (c,) = run(event, content, claim()).accepted
    assert (c.evidence_span.start, c.evidence_span.end) == (0, len(content))  # type: ignore[union-attr]


def test_claim_text_is_shortest_run_plus_qualifier(event: EventFactory) -> None:
    content = "Hi. My sister lives in Rome now. Only if the job works out. We talk daily."
    out = run(
        event, content,
        claim(subject="user's sister", object="Rome", evidence_quote=content,
              epistemic_type="CONDITIONAL", condition="Only if the job works out"),
    )
    (c,) = out.accepted
    assert c.claim_text == "My sister lives in Rome now. Only if the job works out."
    assert c.evidence_span is not None and (c.evidence_span.start, c.evidence_span.end) == (0, len(content))


def test_claim_text_spans_sentences_when_one_does_not_mention_both(event: EventFactory) -> None:
    content = "My sister moved last year. She lives in Rome now. Anyway."
    out = run(event, content, claim(subject="user's sister", object="Rome",
                                    evidence_quote="My sister moved last year. She lives in Rome now."))
    (c,) = out.accepted
    assert c.claim_text == "My sister moved last year. She lives in Rome now."
    alone = run(event, content, claim(subject="user's sister", object="Rome", evidence_quote="She lives in Rome now"))
    assert reject_code(alone) == reasons.MENTION_NOT_WHOLE_WORD


def test_source_type_from_role_unless_given(event: EventFactory) -> None:
    (a,) = run(event, "temp=21", claim(subject="tool", predicate="temp", object="21", evidence_quote="temp=21"),
               role="tool").accepted
    assert a.source_type is SourceType.TOOL_OUTPUT
    (b,) = run(event, "I live in Berlin.", claim(source_type="EXTERNAL_DOCUMENT")).accepted
    assert b.source_type is SourceType.EXTERNAL_DOCUMENT
    assert b.grounding_method == "source_passage_v1"


def test_missing_polarity_becomes_unknown(event: EventFactory) -> None:
    data = claim()
    del data["polarity"]
    (c,) = run(event, "I live in Berlin.", data).accepted
    assert c.polarity is Polarity.UNKNOWN


# --- mentions -----------------------------------------------------------------------------


def test_mention_not_whole_word(event: EventFactory) -> None:
    out = run(event, "Marianne works at Acme.",
              claim(subject="Ann", predicate="works_at", object="Acme", evidence_quote="Marianne works at Acme"))
    assert reject_code(out) == reasons.MENTION_NOT_WHOLE_WORD
    near = run(event, "Ann works at Acme.",
               claim(subject="Ann", predicate="works_at", object="Acme", evidence_quote="Ann works at Acme"))
    assert near.accepted and not near.rejected


def test_object_must_be_in_the_claim_passage_not_elsewhere(event: EventFactory) -> None:
    out = run(event, "I live in Berlin. Paris is lovely.", claim(object="Paris"))
    assert reject_code(out) == reasons.MENTION_NOT_WHOLE_WORD


# --- conditions ---------------------------------------------------------------------------


def test_condition_not_in_passage(event: EventFactory) -> None:
    content = "I'll use Postgres if the budget allows it."
    bad = run(event, content, claim(predicate="uses", object="Postgres", evidence_quote="I'll use Postgres",
                                    epistemic_type="CONDITIONAL", condition="if we get funding"))
    assert reject_code(bad) == reasons.CONDITION_NOT_IN_PASSAGE
    good = run(event, content, claim(predicate="uses", object="Postgres", evidence_quote="I'll use Postgres",
                                     epistemic_type="CONDITIONAL", condition="if the budget allows it"))
    assert good.accepted[0].condition == "if the budget allows it"


def test_explicit_condition_must_be_typed_conditional(event: EventFactory) -> None:
    content = "I'll use Postgres if the budget allows it."
    out = run(event, content, claim(predicate="uses", object="Postgres", evidence_quote="I'll use Postgres"))
    assert reject_code(out) == reasons.CONDITION_NOT_TYPED_CONDITIONAL
    indirect = "I was wondering if Postgres is good. We use Postgres today."
    ok = run(event, indirect, claim(predicate="uses", object="Postgres", evidence_quote="We use Postgres today"))
    assert ok.accepted


def test_condition_in_following_qualifier_sentence_counts(event: EventFactory) -> None:
    content = "I'll join the hike. Only if it doesn't rain."
    out = run(event, content, claim(predicate="will_join", object="hike", evidence_quote="I'll join the hike"))
    assert reject_code(out) == reasons.CONDITION_NOT_TYPED_CONDITIONAL


def test_condition_on_non_conditional(event: EventFactory) -> None:
    out = run(event, "I live in Berlin.", claim(condition="if ever"))
    assert reject_code(out) == reasons.CONDITION_ON_NON_CONDITIONAL


def test_contrastive_segment_shields_a_settled_claim(event: EventFactory) -> None:
    content = "I live in Berlin, but I'd move to Paris if I got the job."
    out = run(event, content, claim())
    assert out.accepted and not out.rejected


# --- hedges and decisions --------------------------------------------------------------------


def test_uncertain_claim_typed_as_fact(event: EventFactory) -> None:
    out = run(event, "I might move to Paris.",
              claim(object="Paris", evidence_quote="I might move to Paris", temporal_intent="update"))
    assert reject_code(out) == reasons.UNCERTAIN_CLAIM_TYPED_AS_FACT
    hyp = run(event, "I might move to Paris.",
              claim(object="Paris", evidence_quote="I might move to Paris", epistemic_type="HYPOTHETICAL"))
    assert hyp.accepted[0].epistemic_type is EpistemicType.HYPOTHETICAL


def test_name_may_and_polite_requests_are_not_hedges(event: EventFactory) -> None:
    out = run(event, "May lives in Paris.",
              claim(subject="May", object="Paris", evidence_quote="May lives in Paris"))
    assert out.accepted
    polite = run(event, "I live in Berlin, could you suggest a cafe.", claim(evidence_quote="I live in Berlin"))
    assert polite.accepted


def test_uncertain_decision_needs_a_choice_verb(event: EventFactory) -> None:
    out = run(event, "We will probably go with Postgres.",
              claim(node_type="DECISION", predicate="chose", object="Postgres", epistemic_type="HYPOTHETICAL",
                    evidence_quote="We will probably go with Postgres"))
    assert reject_code(out) == reasons.DECISION_WITHOUT_CHOICE_VERB
    near = run(event, "We will probably decide on Postgres.",
               claim(node_type="DECISION", predicate="chose", object="Postgres", epistemic_type="HYPOTHETICAL",
                     evidence_quote="We will probably decide on Postgres"))
    assert near.accepted[0].node_type is NodeType.DECISION


# --- unresolved references ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "proposal", "part"),
    [
        ("I like it.", claim(predicate="likes", object="it", evidence_quote="I like it"), "object"),
        ("I love that one.", claim(predicate="loves", object="that one", evidence_quote="I love that one"),
         "object"),
        ("She works at Acme.", claim(subject="She", predicate="works_at", object="Acme",
                                     evidence_quote="She works at Acme"), "subject"),
        ("Never do that again.", claim(node_type="INSTRUCTION", subject="assistant", predicate="should",
                                       object="do that again", polarity="negative", epistemic_type="OBSERVED",
                                       evidence_quote="Never do that again."), "object"),
        ("Always use.", claim(node_type="INSTRUCTION", subject="assistant", predicate="should", object="use",
                              epistemic_type="OBSERVED", evidence_quote="Always use."), "object"),
        ("My plan is to buy it.", claim(subject="user's plan", predicate="is_to", object="buy it",
                                        evidence_quote="My plan is to buy it."), "object"),
        ("I have two of them.", claim(predicate="has", object="two of them", evidence_quote="I have two of them"),
         "object"),
        ("I prefer the other one.", claim(predicate="prefers", object="the other one",
                                          evidence_quote="I prefer the other one"), "object"),
        ("I have both.", claim(predicate="has", object="both", evidence_quote="I have both"), "object"),
    ],
)
def test_unresolved_reference(event: EventFactory, content: str, proposal: dict[str, Any], part: str) -> None:
    out = run(event, content, proposal)
    assert out.accepted == []
    assert (out.rejected[0].reason_code, out.rejected[0].detail) == (reasons.UNRESOLVED_REFERENCE, part)


@pytest.mark.parametrize(
    ("content", "proposal"),
    [
        ("I love her car.", claim(predicate="loves", object="her car", evidence_quote="I love her car")),
        ("Always call me Sam.", claim(node_type="INSTRUCTION", subject="assistant", predicate="should",
                                      object="call me Sam", epistemic_type="OBSERVED",
                                      evidence_quote="Always call me Sam.")),
        ("Always answer.", claim(node_type="INSTRUCTION", subject="assistant", predicate="should",
                                 object="answer", epistemic_type="OBSERVED", evidence_quote="Always answer.")),
        ("They moved to Oslo.", claim(subject="they", predicate="lives_in", object="Oslo",
                                      evidence_quote="They moved to Oslo")),
        ("My plan is to buy a tent.", claim(subject="user's plan", predicate="is_to", object="buy a tent",
                                            evidence_quote="My plan is to buy a tent.")),
        ("My favorite number is seven.", claim(predicate="favorite_number", object="seven",
                                               evidence_quote="My favorite number is seven")),
        ("I have three kids.", claim(predicate="has", object="three kids", evidence_quote="I have three kids")),
        ("We chose the second option.", claim(subject="we", predicate="chose", object="second option",
                                              evidence_quote="We chose the second option")),
    ],
)
def test_named_things_beside_pronouns_are_not_unresolved(
    event: EventFactory, content: str, proposal: dict[str, Any]
) -> None:
    out = run(event, content, proposal)
    assert out.rejected == [], out.rejected
    assert len(out.accepted) == 1


# --- speech acts -----------------------------------------------------------------------------


def test_speech_act_completed_predicate(event: EventFactory) -> None:
    content = "I'm trying to set up ESLint for the repo."
    bad = run(event, content, claim(predicate="uses", object="ESLint", evidence_quote=content))
    assert reject_code(bad) == reasons.SPEECH_ACT_COMPLETED_PREDICATE
    good = run(event, content, claim(predicate="trying_to_set_up", object="ESLint", evidence_quote=content))
    assert good.accepted


def test_speech_act_clause_ends_before_an_independent_statement(event: EventFactory) -> None:
    content = "We plan to run Kafka, but we use Postgres today."
    out = run(event, content, claim(predicate="uses", object="Postgres", evidence_quote="we use Postgres today"))
    assert out.accepted


# --- roles -----------------------------------------------------------------------------------


def test_assistant_recommendation_is_not_admitted(event: EventFactory) -> None:
    content = "Postgres is a great fit; you should use Postgres for this."
    out = run(event, content,
              claim(predicate="uses", object="Postgres", evidence_quote="you should use Postgres"), role="assistant")
    assert reject_code(out) == reasons.ROLE_NOT_ADMITTED


def test_assistant_attribution_admitted_as_inferred(event: EventFactory) -> None:
    content = "You told me you live in Berlin."
    out = run(event, content, claim(evidence_quote=content), role="assistant")
    (c,) = out.accepted
    assert c.epistemic_type is EpistemicType.INFERRED
    assert c.source_type is SourceType.SYSTEM_INFERRED
    assert c.metadata["epistemic_coerced_from"] == "ASSERTED"


@pytest.mark.parametrize(
    "content",
    ["Noted that you live in Berlin.", "Understood, you live in Berlin.", "As you told me, you live in Berlin."],
)
def test_assistant_acknowledged_attribution_is_admitted(event: EventFactory, content: str) -> None:
    out = run(event, content, claim(evidence_quote=content.rstrip(".")), role="assistant")
    (c,) = out.accepted
    assert c.epistemic_type is EpistemicType.INFERRED


@pytest.mark.parametrize(
    ("content", "obj"),
    [
        ("Got it — you've lived in Lisbon since 2019.", "Lisbon"),
        ("Noted, you want to learn Welsh before the trip.", "Welsh"),
        ("Ok, so pottery is your thing on Sundays.", "pottery"),
        ("Sounds like the tram is your usual way to work.", "tram"),
    ],
)
def test_acknowledged_restatements_in_other_shapes_are_admitted(event: EventFactory, content: str, obj: str) -> None:
    out = run(event, content, claim(object=obj, evidence_quote=content.rstrip(".")), role="assistant")
    (c,) = out.accepted
    assert c.epistemic_type is EpistemicType.INFERRED


@pytest.mark.parametrize(
    ("content", "obj"),
    [
        ("Ok, you want to preheat the oven first.", "oven"),
        ("Got it — you've to book the ferry early.", "ferry"),
        ("Sure, the best option is your local pharmacy.", "pharmacy"),
        ("Ok, so the fix could be your router settings.", "router"),
    ],
)
def test_acknowledged_advice_in_restatement_shapes_is_not_admitted(event: EventFactory, content: str,
                                                                   obj: str) -> None:
    out = run(event, content, claim(object=obj, evidence_quote=content.rstrip(".")), role="assistant")
    assert reject_code(out) == reasons.ROLE_NOT_ADMITTED


def test_acknowledged_advice_is_still_not_an_attribution(event: EventFactory) -> None:
    content = "Understood, you could live in Berlin."
    out = run(event, content, claim(epistemic_type="HYPOTHETICAL", evidence_quote=content), role="assistant")
    assert reject_code(out) == reasons.ROLE_NOT_ADMITTED


def test_assistant_commitment_admitted_but_own_fact_without_cue_is_not(event: EventFactory) -> None:
    ok = run(event, "I will send you the summary tomorrow.",
             claim(subject="assistant", node_type="TASK", predicate="will_send", object="summary",
                   epistemic_type="INFERRED", evidence_quote="I will send you the summary tomorrow"),
             role="assistant")
    assert ok.accepted
    bad = run(event, "I am a large language model.",
              claim(subject="assistant", predicate="is_a", object="large language model", epistemic_type="INFERRED",
                    evidence_quote="I am a large language model"), role="assistant")
    assert reject_code(bad) == reasons.ROLE_NOT_ADMITTED


def test_tool_logs_and_preferences_not_admitted(event: EventFactory) -> None:
    log = "2026-03-01 12:00:01 INFO cache=warm"
    out = run(event, log, claim(subject="tool", predicate="cache", object="warm", evidence_quote=log), role="tool")
    assert reject_code(out) == reasons.ROLE_NOT_ADMITTED
    pref = run(event, "likes: tea", claim(subject="tool", node_type="PREFERENCE", predicate="likes", object="tea",
                                         evidence_quote="likes: tea"), role="tool")
    assert reject_code(pref) == reasons.ROLE_NOT_ADMITTED
    fact = run(event, "cache: warm", claim(subject="tool", predicate="cache", object="warm",
                                          evidence_quote="cache: warm"), role="tool")
    assert fact.accepted


def test_system_task_not_admitted_instruction_is(event: EventFactory) -> None:
    content = "Always respond in English."
    task = run(event, content, claim(subject="assistant", node_type="TASK", predicate="will_respond",
                                     object="English", epistemic_type="INFERRED", evidence_quote=content),
               role="system")
    assert reject_code(task) == reasons.ROLE_NOT_ADMITTED
    instr = run(event, content, claim(subject="assistant", node_type="INSTRUCTION", predicate="should",
                                      object="respond in English", epistemic_type="INFERRED", evidence_quote=content),
                role="system")
    assert instr.accepted


def test_request_for_recommendation_is_not_a_preference(event: EventFactory) -> None:
    content = "I like sci-fi, can you recommend a book"
    out = run(event, content, claim(node_type="PREFERENCE", predicate="likes", object="sci-fi",
                                    evidence_quote=content))
    assert reject_code(out) == reasons.ROLE_NOT_ADMITTED
    near = run(event, "I like sci-fi.", claim(node_type="PREFERENCE", predicate="likes", object="sci-fi",
                                              evidence_quote="I like sci-fi"))
    assert near.accepted


def test_question_is_not_a_claim(event: EventFactory) -> None:
    out = run(event, "Do I live in Berlin?", claim(evidence_quote="I live in Berlin"))
    assert reject_code(out) == reasons.QUESTION_NOT_CLAIM


# --- secrets -------------------------------------------------------------------------------


def test_secret_values_rejected_and_masked_in_the_rejection(event: EventFactory) -> None:
    content = "My password is hunter2 and my key is sk-proj-Abc123def456ghi789jkl012mno."
    out = run(
        event, content,
        claim(predicate="password", object="hunter2", evidence_quote="My password is hunter2"),
        claim(predicate="has_key", object="sk-proj-Abc123def456ghi789jkl012mno", evidence_quote="my key is"),
    )
    assert [r.reason_code for r in out.rejected] == [reasons.SECRET_VALUE, reasons.SECRET_VALUE]
    dumped = str([r.claim for r in out.rejected])
    assert "hunter2" not in dumped and "sk-proj-Abc" not in dumped


def test_password_value_hidden_behind_innocent_predicate_is_rejected(event: EventFactory) -> None:
    out = run(event, "My password is hunter2.",
              claim(predicate="secret_word_is", object="hunter2", evidence_quote="My password is hunter2"))
    assert reject_code(out) == reasons.SECRET_VALUE


def test_accepted_claim_texts_are_masked(event: EventFactory) -> None:
    content = "I use Postgres at postgres://app:Sup3rSecret@db:5432/main for work."
    (c,) = run(event, content, claim(predicate="uses", object="Postgres", evidence_quote=content)).accepted
    assert "Sup3rSecret" not in c.evidence_quote and "Sup3rSecret" not in (c.claim_text or "")
    assert "[REDACTED:connection_string]" in c.evidence_quote


# --- updates --------------------------------------------------------------------------------


def test_replaces_object_dropped_when_not_in_passage(event: EventFactory) -> None:
    (c,) = run(event, "We switched to Postgres.",
               claim(predicate="uses", object="Postgres", evidence_quote="We switched to Postgres",
                     temporal_intent="update", replaces_object="MySQL")).accepted
    assert c.replaces_object is None
    (d,) = run(event, "We switched from MySQL to Postgres.",
               claim(predicate="uses", object="Postgres", evidence_quote="We switched from MySQL to Postgres",
                     temporal_intent="update", replaces_object="MySQL")).accepted
    assert d.replaces_object == "MySQL"


def test_assistant_direct_statement_about_the_user_is_admitted_but_advice_is_not(event: EventFactory) -> None:
    ok = run(
        event, "You prefer aisle seats.",
        claim(predicate="prefers", object="aisle seats", evidence_quote="You prefer aisle seats",
              epistemic_type="INFERRED", node_type="PREFERENCE"),
        role="assistant",
    )
    assert len(ok.accepted) == 1 and not ok.rejected
    advice = run(
        event, "You could book aisle seats.",
        claim(predicate="prefers", object="aisle seats", evidence_quote="You could book aisle seats",
              epistemic_type="HYPOTHETICAL", node_type="PREFERENCE"),
        role="assistant",
    )
    assert reject_code(advice) == reasons.ROLE_NOT_ADMITTED
