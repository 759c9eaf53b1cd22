"""Stable reason codes for rejected claims.

They are written to the EXTRACTION_VALIDATED journal, printed by the CLI and
counted by the evaluation benchmark, so they are part of the wire contract:
add codes, never rename them.
"""

from __future__ import annotations

from typing import Final

#: The proposal is not a valid Claim (missing field, wrong type, DEPRECATED at creation, ...).
MALFORMED_CLAIM: Final = "malformed_claim"
#: A subject, object, condition or quantity carries a secret-shaped value, or the predicate names a credential.
SECRET_VALUE: Final = "secret_value"
#: The evidence quote is empty or is not in the source, even after normalising whitespace and quote marks.
QUOTE_NOT_IN_SOURCE: Final = "quote_not_in_source"
#: The role of the source message may not produce this kind of claim (PRME-FACTS §8.10).
ROLE_NOT_ADMITTED: Final = "role_not_admitted"
#: The claim's passage is a question; questions assert nothing.
QUESTION_NOT_CLAIM: Final = "question_not_claim"
#: Subject or object is not mentioned as a whole word in the claim passage.
MENTION_NOT_WHOLE_WORD: Final = "mention_not_whole_word"
#: A CONDITIONAL claim's condition text is not an exact substring of the claim passage.
CONDITION_NOT_IN_PASSAGE: Final = "condition_not_in_passage"
#: The passage states an explicit condition but the claim is not typed CONDITIONAL.
CONDITION_NOT_TYPED_CONDITIONAL: Final = "condition_not_typed_conditional"
#: A claim that is not CONDITIONAL carries condition text.
CONDITION_ON_NON_CONDITIONAL: Final = "condition_on_non_conditional"
#: The passage is hedged ("might", "maybe", ...) but the claim is typed as settled.
UNCERTAIN_CLAIM_TYPED_AS_FACT: Final = "uncertain_claim_typed_as_fact"
#: A trying/planning/wanting clause was turned into a completed predicate (``uses`` instead of ``trying_to_use``).
SPEECH_ACT_COMPLETED_PREDICATE: Final = "speech_act_completed_predicate"
#: An uncertain or conditional DECISION without an explicit choice verb in its passage.
DECISION_WITHOUT_CHOICE_VERB: Final = "decision_without_choice_verb"

#: The subject or object only points outside the message ("it", "that", "them", "do that again") or an
#: instruction is a verb left without its object ("always use"): stored, it would be a claim about nothing.
UNRESOLVED_REFERENCE: Final = "unresolved_reference"

#: More claims were proposed for one event than it may yield (``validation.MAX_CLAIMS_PER_EVENT``): the
#: first ones in proposal order are kept and one rejection records how many were dropped.
TOO_MANY_CLAIMS: Final = "too_many_claims"

#: Not a rejection: recorded in ``claim.metadata["quantity_dropped"]`` when a malformed quantity is
#: removed and its claim kept (PRME-FACTS §8.11, §8.12).
INVALID_QUANTITY: Final = "invalid_quantity"
#: Not a rejection: recorded in ``claim.metadata["replaces_object_dropped"]`` when the replaced value
#: is not mentioned in the passage (PRME-FACTS §8.9).
REPLACES_OBJECT_NOT_IN_PASSAGE: Final = "replaces_object_not_in_passage"

#: The claim would grant authority (a permission, an access grant, a delegation, production access, a
#: payment or spending approval): memory is context, never authority (TRUST-FACTS §7, ``engine.authority``).
AUTHORITY_GRANT: Final = "authority_grant"

REJECTION_CODES: Final = frozenset(
    {
        MALFORMED_CLAIM,
        SECRET_VALUE,
        QUOTE_NOT_IN_SOURCE,
        ROLE_NOT_ADMITTED,
        QUESTION_NOT_CLAIM,
        MENTION_NOT_WHOLE_WORD,
        CONDITION_NOT_IN_PASSAGE,
        CONDITION_NOT_TYPED_CONDITIONAL,
        CONDITION_ON_NON_CONDITIONAL,
        UNCERTAIN_CLAIM_TYPED_AS_FACT,
        SPEECH_ACT_COMPLETED_PREDICATE,
        DECISION_WITHOUT_CHOICE_VERB,
        UNRESOLVED_REFERENCE,
        TOO_MANY_CLAIMS,
        AUTHORITY_GRANT,
    }
)
