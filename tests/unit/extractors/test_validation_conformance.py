"""PRME-FACTS §8 rule by rule: expected values come from the spec text, each with the near miss that must pass.

Complements test_validation.py (one case per reason code) with the parts of each rule a plausible bug
would break: every listed cue word, the exact matching rules, default values and role mappings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError
from test_validation import claim

from extractors import reasons
from extractors.text import CHOICE_VERB, find_conditions, is_uncertain, locate_quote, mentions, sentence_spans
from extractors.text import paragraph_spans as paras
from extractors.validation import validate_claims
from schemas.claims import Quantity
from schemas.enums import EpistemicType, NodeType, Polarity, SourceType
from schemas.events import ConversationEvent

EventFactory = Callable[..., ConversationEvent]


def run(event: EventFactory, content: str, *claims: dict[str, Any], role: str = "user", **ev: Any):
    return validate_claims(event(content, role=role, **ev), list(claims))


def code(outcome: Any) -> str | None:
    return outcome.rejected[0].reason_code if outcome.rejected else None


# --- §8.1 defaults --------------------------------------------------------------------------------


def test_epistemic_type_defaults_to_asserted_and_is_case_insensitive(event: EventFactory) -> None:
    data = claim()
    del data["epistemic_type"]
    (c,) = run(event, "I live in Berlin.", data).accepted
    assert c.epistemic_type is EpistemicType.ASSERTED
    (h,) = run(event, "I might live in Berlin.", claim(epistemic_type="hypothetical",
                                                      evidence_quote="I might live in Berlin")).accepted
    assert h.epistemic_type is EpistemicType.HYPOTHETICAL
    deprecated = run(event, "I live in Berlin.", claim(epistemic_type="deprecated"))
    assert code(deprecated) == reasons.MALFORMED_CLAIM


def test_fact_type_defaults_to_fact_and_confidence_to_one_half(event: EventFactory) -> None:
    (c,) = run(event, "I live in Berlin.", claim()).accepted
    assert c.node_type is NodeType.FACT
    assert c.classification_confidence == 0.5
    (given,) = run(event, "I live in Berlin.", claim(classification_confidence=0.9)).accepted
    assert given.classification_confidence == 0.9


# --- §8.2.1 the quote must be in the source ---------------------------------------------------------


def test_quote_match_is_case_sensitive() -> None:
    assert locate_quote("I live in Berlin.", "i live in berlin") is None


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("I\u2019m in Berlin", "I'm in Berlin"),  # curly apostrophe in the source
        ("I'm in Berlin", "I\u2019m in Berlin"),  # curly apostrophe in the quote
        ("She said \u201cyes\u201d to Berlin", 'She said "yes" to Berlin'),
        ('She said "yes" to Berlin', "She said \u2018yes\u2019 to Berlin"),  # single curly vs straight double
    ],
)
def test_quote_marks_are_interchangeable_and_the_source_span_is_used(source: str, quote: str) -> None:
    found = locate_quote(source, quote)
    assert found is not None
    assert found[:2] == (0, len(source))


def test_a_quote_spanning_two_paragraphs_keeps_both_paragraphs(event: EventFactory) -> None:
    content = "Intro line.\n\nI live in\n\nBerlin now.\n\nOutro."
    (c,) = run(event, content, claim(evidence_quote="I live in\n\nBerlin")).accepted
    assert c.evidence_span is not None
    assert content[c.evidence_span.start : c.evidence_span.end] == "I live in\n\nBerlin now."


def test_a_quote_inside_one_paragraph_keeps_only_that_paragraph(event: EventFactory) -> None:
    content = "Hello.\n\nI live in Berlin. It is big.\n\nBye."
    (c,) = run(event, content, claim()).accepted
    assert c.evidence_span is not None
    assert content[c.evidence_span.start : c.evidence_span.end] == "I live in Berlin. It is big."
    assert c.evidence_quote == "I live in Berlin"


# --- §8.2.2 whole-word mentions -----------------------------------------------------------------------


def test_long_values_are_still_whole_word_mentions() -> None:
    value = "Ann " + "and the team " * 20 + "of Acme"  # longer than any fast-path cut-off
    assert len(value) > 200
    assert mentions(f"Yes, {value}, works here", value)
    assert mentions(f"yes, {value.upper()}.", value)
    assert not mentions(f"Mari{value}", value)
    assert not mentions(f"{value}corp", value)


def test_unicode_word_characters_bound_mentions_on_both_sides() -> None:
    assert not mentions("Zoë works here", "ë works")
    assert mentions("I met Zoë today", "Zoë")
    assert not mentions("I met Zoëlla today", "Zoë")


# --- §8.2.4 sentences and qualifier sentences ------------------------------------------------------------


def test_a_point_inside_a_number_does_not_end_a_sentence() -> None:
    text = "I paid 3.5 euros. Fine? Yes!"
    assert [text[s.start : s.end] for s in sentence_spans(text, paras(text)[0])] == [
        "I paid 3.5 euros.", "Fine?", "Yes!",
    ]


@pytest.mark.parametrize(
    "follow",
    [
        "Only if it is sunny.",
        "Unless it rains.",
        "Provided that it is sunny.",
        "As long as it is sunny.",
        "Never on Sundays.",
        "Except on Sundays.",
        "Except when it rains.",
        "Except if it rains.",
        "Except for Sundays.",
        "However, not on Sundays.",
        "But never on Sundays.",
        "But only if it is sunny.",
    ],
)
def test_qualifier_sentences_join_the_claim_passage(event: EventFactory, follow: str) -> None:
    content = f"I walk to Berlin. {follow} We talk daily."
    cond = find_conditions(follow)
    extra: dict[str, Any] = {}
    if cond:
        extra = {"epistemic_type": "CONDITIONAL", "condition": follow[cond[0][0] : cond[0][1]]}
    out = run(event, content, claim(predicate="walks_to", evidence_quote="I walk to Berlin", **extra))
    (c,) = out.accepted
    assert c.claim_text == f"I walk to Berlin. {follow}"


def test_a_qualifier_after_a_paragraph_break_is_not_part_of_the_passage(event: EventFactory) -> None:
    content = "I walk to Berlin.\n\nUnless it rains."
    (c,) = run(event, content, claim(predicate="walks_to", evidence_quote="I walk to Berlin")).accepted
    assert c.claim_text == "I walk to Berlin."
    cond = run(event, content, claim(predicate="walks_to", evidence_quote="I walk to Berlin",
                                     epistemic_type="CONDITIONAL", condition="Unless it rains"))
    assert code(cond) == reasons.CONDITION_NOT_IN_PASSAGE


# --- §8.2.5 polarity --------------------------------------------------------------------------------------


@pytest.mark.parametrize("etype", ["ASSERTED", "HYPOTHETICAL", "CONDITIONAL"])
def test_polarity_passes_through_whatever_the_type(event: EventFactory, etype: str) -> None:
    content = "I might not move to Berlin if I get the job."
    extra: dict[str, Any] = {"condition": "if I get the job"} if etype == "CONDITIONAL" else {}
    out = run(event, "I do not live in Berlin." if etype == "ASSERTED" else content,
              claim(polarity="negative", epistemic_type=etype,
                    evidence_quote="I do not live in Berlin" if etype == "ASSERTED" else content.rstrip("."),
                    **extra))
    if etype == "HYPOTHETICAL":  # the passage carries an explicit condition: only CONDITIONAL fits
        assert code(out) == reasons.CONDITION_NOT_TYPED_CONDITIONAL
        return
    (c,) = out.accepted
    assert c.polarity is Polarity.NEGATIVE


# --- §8.2.6 conditions ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I'll ask if they have it",
        "I'll ask them if they have it",
        "I'm curious if it works",
        "We need to determine if it scales",
        "Let's find out if it scales",
        "I don't know if it scales",
        "Let's see if they have information",
        "I wonder if it scales",
        "Please check if it scales",
    ],
)
def test_indirect_question_if_is_not_a_condition(text: str) -> None:
    assert find_conditions(text) == []


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("I'll ask only if I get stuck", "only if I get stuck"),
        ("Let me know unless it is urgent", "unless it is urgent"),
        ("I'll check provided that I have time", "provided that I have time"),
        ("We'll see as long as it is cheap", "as long as it is cheap"),
    ],
)
def test_only_a_bare_if_after_a_question_verb_is_exempt(text: str, condition: str) -> None:
    assert [text[s:e] for s, e in find_conditions(text)] == [condition]


def test_a_hedged_passage_with_a_condition_must_be_conditional_not_hypothetical(event: EventFactory) -> None:
    content = "I might move to Berlin if I get the job."
    quote = content.rstrip(".")
    hyp = run(event, content, claim(predicate="moves_to", epistemic_type="HYPOTHETICAL", evidence_quote=quote))
    assert code(hyp) == reasons.CONDITION_NOT_TYPED_CONDITIONAL
    cond = run(event, content, claim(predicate="moves_to", epistemic_type="CONDITIONAL",
                                     condition="if I get the job", evidence_quote=quote))
    (c,) = cond.accepted
    assert c.epistemic_type is EpistemicType.CONDITIONAL and c.condition == "if I get the job"


# --- §8.2.7 hedges and decisions ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We could use Redis", True),
        ("Possibly we use Redis", True),
        ("PERHAPS we use Redis", True),
        ("MAYBE we use Redis", True),
        ("It may rain", True),
        ("You could please explain Redis", False),
        ("You could please also show me Redis", False),
        ("you might brainstorm names", False),
        ("I met May at Redis Conf", False),
    ],
)
def test_uncertainty_words(text: str, expected: bool) -> None:
    assert is_uncertain(text) is expected


@pytest.mark.parametrize("etype", ["ASSERTED", "OBSERVED", "INFERRED", "UNVERIFIED"])
def test_hedged_passage_rejects_every_settled_type(event: EventFactory, etype: str) -> None:
    out = run(event, "Maybe I live in Berlin.", claim(epistemic_type=etype, evidence_quote="Maybe I live in Berlin"))
    assert code(out) == reasons.UNCERTAIN_CLAIM_TYPED_AS_FACT


@pytest.mark.parametrize(
    "verb",
    ["decide", "decided", "chose", "chosen", "select", "selected", "selects", "opt", "opted", "opts",
     "agree", "agreed", "agrees", "commit", "committed", "commits", "reject", "rejected", "rejects"],
)
def test_every_choice_verb_is_recognised(verb: str) -> None:
    assert CHOICE_VERB.search(f"we might {verb} Postgres") is not None


@pytest.mark.parametrize("text", ["we might go with Postgres", "we might prefer Postgres", "optics matter",
                                  "a selection of tools", "a committee met"])
def test_choice_verb_look_alikes_are_not_choices(text: str) -> None:
    assert CHOICE_VERB.search(text) is None


def test_conditional_decision_needs_a_choice_verb(event: EventFactory) -> None:
    content = "We will go with Postgres if the budget allows."
    bad = run(event, content, claim(node_type="DECISION", subject="we", predicate="chose", object="Postgres",
                                    epistemic_type="CONDITIONAL", condition="if the budget allows",
                                    evidence_quote=content.rstrip(".")))
    assert code(bad) == reasons.DECISION_WITHOUT_CHOICE_VERB
    content2 = "We will select Postgres if the budget allows."
    ok = run(event, content2, claim(node_type="DECISION", subject="we", predicate="chose", object="Postgres",
                                    epistemic_type="CONDITIONAL", condition="if the budget allows",
                                    evidence_quote=content2.rstrip(".")))
    assert ok.accepted and ok.accepted[0].node_type is NodeType.DECISION


def test_settled_decision_needs_no_choice_verb(event: EventFactory) -> None:
    content = "We go with Postgres."
    out = run(event, content, claim(node_type="DECISION", subject="we", predicate="chose", object="Postgres",
                                    evidence_quote="We go with Postgres"))
    assert out.accepted


# --- §8.2.8 speech acts ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        "I am trying to use Redis.",
        "We're attempting to use Redis.",
        "I'm planning to use Redis.",
        "We are hoping to use Redis.",
        "I'm aiming to use Redis.",
        "I'm looking to use Redis.",
        "We're working to use Redis.",
        "I have tried to use Redis.",
        "I've attempted to use Redis.",
        "We've planned to use Redis.",
        "I have hoped to use Redis.",
        "I've aimed to use Redis.",
        "I would like to use Redis.",
        "I'd like to use Redis.",
        "I try to use Redis.",
        "I tried to use Redis.",
        "We attempt to use Redis.",
        "We attempted to use Redis.",
        "I want to use Redis.",
        "I wanted to use Redis.",
        "We need to use Redis.",
        "We needed to use Redis.",
        "We plan to use Redis.",
        "We planned to use Redis.",
        "I intend to use Redis.",
        "I intended to use Redis.",
        "I hope to use Redis.",
        "I hoped to use Redis.",
        "We aim to use Redis.",
        "We aimed to use Redis.",
        "I look to use Redis.",
        "I looked to use Redis.",
        "We work to use Redis.",
        "We worked to use Redis.",
    ],
)
def test_every_speech_act_cue_blocks_a_completed_predicate(event: EventFactory, content: str) -> None:
    quote = content.rstrip(".")
    out = run(event, content, claim(predicate="uses", object="Redis", evidence_quote=quote))
    assert code(out) == reasons.SPEECH_ACT_COMPLETED_PREDICATE


@pytest.mark.parametrize(
    "predicate",
    ["trying_to_use", "tries_to_use", "tried_to_use", "attempting_to_use", "plans_to_use", "intends_to_use",
     "wants_to_use", "needs_to_use", "hopes_to_use", "aims_to_use", "looking_to_use", "working_to_use",
     "seeks", "requested", "asks_about", "proposes", "considering", "evaluating", "exploring"],
)
def test_a_speech_act_predicate_stem_is_admitted(event: EventFactory, predicate: str) -> None:
    out = run(event, "I'm trying to use Redis.", claim(predicate=predicate, object="Redis",
                                                       evidence_quote="I'm trying to use Redis"))
    assert out.accepted and not out.rejected


def test_a_third_party_named_in_the_clause_cannot_be_said_to_use_it(event: EventFactory) -> None:
    content = "I'm trying to get Alice to use Rust."
    out = run(event, content, claim(subject="Alice", predicate="uses", object="Rust",
                                    evidence_quote=content.rstrip(".")))
    assert code(out) == reasons.SPEECH_ACT_COMPLETED_PREDICATE


def test_relationships_between_tools_inside_an_attempt_are_rejected(event: EventFactory) -> None:
    content = "I'm trying to use ESLint with Prettier."
    out = run(event, content, claim(subject="ESLint", predicate="used_with", object="Prettier",
                                    evidence_quote=content.rstrip(".")))
    assert code(out) == reasons.SPEECH_ACT_COMPLETED_PREDICATE


@pytest.mark.parametrize(
    "content",
    [
        "I want to try Kafka; we use Redis.",
        "I want to try Kafka! We use Redis.",
        "I want to try Kafka? We use Redis.",
        "I want to try Kafka. We use Redis.",
        "I want to try Kafka, and we use Redis.",
        "I want to try Kafka, so we use Redis.",
        "I want to try Kafka, although we use Redis.",
        "I want to try Kafka, though we use Redis.",
        "I want to try Kafka, however we use Redis.",
    ],
)
def test_a_speech_act_clause_ends_at_its_boundary(event: EventFactory, content: str) -> None:
    out = run(event, content, claim(subject="we", predicate="uses", object="Redis", evidence_quote="we use Redis"
                                    if "we use" in content else "We use Redis"))
    assert out.accepted and not out.rejected


def test_a_speech_act_after_a_line_wrapped_to(event: EventFactory) -> None:
    content = "I'm trying to\tuse Redis."
    out = run(event, content, claim(predicate="uses", object="Redis", evidence_quote="I'm trying to\tuse Redis"))
    assert code(out) == reasons.SPEECH_ACT_COMPLETED_PREDICATE


# --- §8.2.10 role -> source type ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "expected"),
    [("user", SourceType.USER_STATED), ("human", SourceType.USER_STATED),
     ("participant", SourceType.USER_STATED), ("system", SourceType.SYSTEM_INFERRED),
     ("tool", SourceType.TOOL_OUTPUT)],
)
def test_source_type_follows_the_role_table(event: EventFactory, role: str, expected: SourceType) -> None:
    content = "Berlin is the office city."
    out = run(event, content, claim(subject="office city", predicate="is", object="Berlin",
                                    evidence_quote="Berlin is the office city"), role=role)
    (c,) = out.accepted
    assert c.source_type is expected


@pytest.mark.parametrize("node_type", ["DECISION", "EVENT", "NOTE", "TASK"])
def test_system_messages_give_only_policies_constraints_identities_instructions(
    event: EventFactory, node_type: str
) -> None:
    content = "The assistant is Atlas."
    out = run(event, content, claim(node_type=node_type, subject="assistant", predicate="is", object="Atlas",
                                    epistemic_type="INFERRED", evidence_quote="The assistant is Atlas"),
              role="system")
    assert code(out) == reasons.ROLE_NOT_ADMITTED


# --- §8.2.12 quantities ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["3", "-3.5", "+7", "1,200", "1,200,000.25", "0.5", "1200"])
def test_one_signed_decimal_with_optional_thousand_separators(value: str) -> None:
    assert Quantity(value=value, source_text=value).value == value


@pytest.mark.parametrize("value", ["2-3", "~5", "about 5", "1e3", "3,5", "12,34", "1,2345", "5 10", "", "five"])
def test_ranges_approximations_scientific_and_decimal_commas_are_not_quantities(value: str) -> None:
    with pytest.raises(ValidationError):
        Quantity(value=value, source_text=value or "x")


def test_quantity_source_text_must_be_in_object_and_passage(event: EventFactory) -> None:
    ok = run(event, "I have 3 cats.", claim(predicate="has", object="3 cats", evidence_quote="I have 3 cats",
                                            quantity={"value": "3", "unit": "cats", "source_text": "3"}))
    assert ok.accepted[0].quantity is not None and ok.accepted[0].quantity.unit == "cats"
    not_in_object = run(event, "I have 3 cats.", claim(predicate="has", object="cats", evidence_quote="I have 3 cats",
                                                       quantity={"value": "3", "unit": "1", "source_text": "3"}))
    assert not_in_object.accepted[0].quantity is None
    assert not_in_object.accepted[0].metadata["quantity_dropped"] == reasons.INVALID_QUANTITY


@pytest.mark.parametrize(
    ("content", "obj", "source_text"),
    [
        ("My exam is on 2026-05-04.", "2026-05-04", "2026"),
        ("We run Postgres 16.2.1 here.", "Postgres 16.2.1", "16"),
        ("My number is +44 20 7946 0958.", "+44 20 7946 0958", "44"),
        ("I finished 3rd in the race.", "3rd", "3"),
        ("The ticket is JIRA-4521 today.", "JIRA-4521", "4521"),
        ("I drive a GPT4 model.", "GPT4", "4"),
    ],
)
def test_dates_versions_phones_ordinals_ids_and_model_names_are_not_quantities(
    event: EventFactory, content: str, obj: str, source_text: str
) -> None:
    quote = content.rstrip(".")
    out = run(event, content, claim(predicate="has", object=obj, evidence_quote=quote,
                                    quantity={"value": source_text, "unit": "1", "source_text": source_text}))
    (c,) = out.accepted
    assert c.quantity is None


# --- §5.6 the EXTRACTION_VALIDATED record -------------------------------------------------------------------------


def test_the_journal_record_names_source_owner_scope_hash_and_versions_even_when_empty(event: EventFactory) -> None:
    from extractors.rules import RuleExtractor
    from extractors.validation import GROUNDING_POLICY_VERSION
    from schemas.canonical import sha256_hex

    ev = event("Hi there!", scope_id="home")
    res = RuleExtractor().extract(ev)
    assert (res.claims, res.rejected, res.status) == ((), (), "ok")  # an empty result is still a record
    assert (res.event.tenant_id, res.event.owner_id, res.event.scope.value, res.event.scope_id) == (
        "t1", "o1", "personal", "home")
    assert res.source_hash == res.event.content_sha256 == sha256_hex("Hi there!")
    assert res.grounding_policy_version == GROUNDING_POLICY_VERSION and res.schema_version == 1
    assert (res.extractor, res.extractor_version) == ("rules", RuleExtractor.version)


def test_every_rejection_in_the_record_carries_a_known_reason_code(event: EventFactory) -> None:
    content = "I might move to Paris. I'm trying to set up ESLint. My password is hunter2."
    out = run(
        event, content,
        claim(object="Paris", evidence_quote="I might move to Paris"),
        claim(predicate="uses", object="ESLint", evidence_quote="I'm trying to set up ESLint"),
        claim(predicate="password", object="hunter2", evidence_quote="My password is hunter2"),
        claim(evidence_quote="I live in Rome"),
        {"subject": "user"},
    )
    assert [r.reason_code for r in out.rejected] == [
        reasons.UNCERTAIN_CLAIM_TYPED_AS_FACT, reasons.SPEECH_ACT_COMPLETED_PREDICATE, reasons.SECRET_VALUE,
        reasons.QUOTE_NOT_IN_SOURCE, reasons.MALFORMED_CLAIM,
    ]
    assert {r.reason_code for r in out.rejected} <= reasons.REJECTION_CODES
    assert reasons.INVALID_QUANTITY not in reasons.REJECTION_CODES  # a dropped quantity never drops its claim
    assert "hunter2" not in str([r.claim for r in out.rejected])
