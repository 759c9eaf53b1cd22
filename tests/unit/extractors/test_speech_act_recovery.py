"""PRME-FACTS §8.2.8 recovery of missing targets: expected predicates, types and values come from the spec table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from extractors.recovery import recover_speech_acts
from extractors.validation import SourceText, validate_with_context
from schemas.claims import Claim
from schemas.enums import EpistemicType, Polarity, TemporalIntent
from schemas.events import ConversationEvent

EventFactory = Callable[..., ConversationEvent]


def uses(obj: str, quote: str, subject: str = "I") -> dict[str, Any]:
    return {"subject": subject, "predicate": "uses", "object": obj, "polarity": "positive",
            "epistemic_type": "ASSERTED", "evidence_quote": quote}


def recover(event: EventFactory, content: str, *proposals: dict[str, Any], role: str = "user") -> list[Claim]:
    ev = event(content, role=role)
    ctx = SourceText(content)
    outcome = validate_with_context(ev, list(proposals), ctx)
    return [*outcome.accepted, *recover_speech_acts(ev, list(proposals), outcome, ctx,
                                                     grounding_method="source_passage_v1")]


@pytest.mark.parametrize(
    ("clause", "predicate"),
    [
        ("I would like to use Redis", "wants_to_use"),
        ("I'd like to use Redis", "wants_to_use"),
        ("I'm trying to use Redis", "trying_to_use"),
        ("I tried to use Redis", "tried_to_use"),
        ("I try to use Redis", "tries_to_use"),
        ("I'm attempting to use Redis", "attempting_to_use"),
        ("I attempted to use Redis", "attempted_to_use"),
        ("I attempt to use Redis", "attempts_to_use"),
        ("We planned to adopt Redis", "plans_to_adopt"),
        ("I intend to deploy Redis", "intends_to_deploy"),
        ("I wanted to use Redis", "wants_to_use"),
        ("We need to migrate Redis", "needs_to_migrate"),
        ("I'm hoping to use Redis", "hopes_to_use"),
        ("We aim to use Redis", "aims_to_use"),
        ("I'm looking to use Redis", "looking_to_use"),
        ("We're working to replace Redis", "working_to_replace"),
    ],
)
def test_cue_table_gives_the_predicate(event: EventFactory, clause: str, predicate: str) -> None:
    content = f"{clause}."
    (c,) = recover(event, content, uses("Redis", clause))
    assert (c.predicate, c.object) == (predicate, "Redis")
    assert c.epistemic_type is EpistemicType.OBSERVED and c.condition is None
    assert c.polarity is Polarity.POSITIVE and c.classification_confidence == 1.0
    assert c.temporal_intent is TemporalIntent.ASSERTION


def test_an_explicit_condition_makes_it_conditional_to_the_end_of_the_clause(event: EventFactory) -> None:
    content = "I want to move our cache to Redis if the benchmark holds up well."
    quote = content.rstrip(".")
    (c,) = recover(event, content, uses("Redis", quote))
    assert (c.predicate, c.object) == ("wants_to_move", "Redis")
    assert c.epistemic_type is EpistemicType.CONDITIONAL
    assert c.condition == "if the benchmark holds up well"


def test_the_earliest_named_target_wins_and_the_longest_on_a_tie(event: EventFactory) -> None:
    content = "I'm trying to connect Redis Cluster to Kafka."
    quote = content.rstrip(".")
    (c,) = recover(event, content, uses("Kafka", quote), uses("Redis", quote), uses("Redis Cluster", quote))
    assert c.object == "Redis Cluster"


def test_nothing_is_added_when_the_model_kept_the_speech_act(event: EventFactory) -> None:
    content = "I'm trying to set up ESLint."
    kept = {**uses("ESLint", "I'm trying to set up ESLint"), "predicate": "trying_to_set_up"}
    (c,) = recover(event, content, kept)
    assert c.predicate == "trying_to_set_up"


def test_nothing_is_added_for_an_unnamed_target_or_a_negated_wish(event: EventFactory) -> None:
    assert recover(event, "I'm trying to set up ESLint.") == []
    assert recover(event, "I don't want to use Redis.", uses("Redis", "I don't want to use Redis")) == []


def test_a_recovered_claim_still_passes_validation(event: EventFactory) -> None:
    content = "I might want to use Redis."  # hedged: OBSERVED is not allowed, so nothing is recovered
    assert recover(event, content, uses("Redis", "I might want to use Redis")) == []
