"""The rule extractor: one message in, validated claims out; the role picks the rules.

Tool messages go to :mod:`extractors.rules.tool`; the others are walked sentence by segment
(:func:`extractors.rules.clauses.segments`) and each segment goes to its role's rules: the
assistant's (:mod:`extractors.rules.assistant`), a system prompt's parser
(:mod:`extractors.rules.system`) or the user's (:mod:`extractors.rules.user`). This module types
the proposals (epistemic type, temporal intent) and hands them to the validator.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from engine.attributes import DEFAULT_REGISTRY, AttributeRegistry, TenantAttributes
from extractors.rules.assistant import propose_assistant
from extractors.rules.clauses import Mode, Segment, segments
from extractors.rules.labelled import labelled_values
from extractors.rules.lexicon import sarcastic
from extractors.rules.proto import Proposal, Proto
from extractors.rules.system import SystemParser
from extractors.rules.tool import propose_tool
from extractors.rules.updates import (
    correcting,
    correction_clause,
    mark,
    not_value,
    only_actually,
    strip_marker,
    update_words,
)
from extractors.rules.user import StatementParser, UserParser
from extractors.validation import (
    DEFAULT_GROUNDING_METHOD,
    GROUNDING_POLICY_VERSION,
    SourceText,
    validate_with_context,
)
from schemas.canonical import sha256_hex
from schemas.claims import Claim, EventRef, ExtractionResult
from schemas.enums import EpistemicType, NodeType, Polarity, Role, Scope, TemporalIntent
from schemas.events import ConversationEvent
from schemas.roles import default_epistemic_type

EXTRACTOR_VERSION: Final = "1.0.0"
_RETIRING_TYPES: Final = frozenset({EpistemicType.ASSERTED, EpistemicType.OBSERVED})
#: Lower-case copulas: a title keeps its capitals ("This Is Us"), a misread clause does not.
_DANGLING: Final = frozenset({"is", "are", "was", "were", "am", "isn't", "aren't"})
#: The predicates whose objects the list reading fills ("uses X, Y and Z").
_LIST_PREDICATES: Final = frozenset({"uses", "likes", "has", "owns", "plays", "speaks", "knows"})


class RuleExtractor:
    """Regex extractor; deterministic and stateless, safe to share between threads."""

    name: str = "rules"
    version: str = EXTRACTOR_VERSION

    def __init__(
        self,
        grounding_method: str = DEFAULT_GROUNDING_METHOD,
        *,
        attributes: AttributeRegistry = DEFAULT_REGISTRY,
        tenant_attributes: Mapping[str, AttributeRegistry] | None = None,
    ) -> None:
        self.grounding_method = grounding_method
        #: The attribute registry's update words are read per tenant (a deployment may extend them).
        self.attributes = attributes
        self.tenant_attributes = dict(tenant_attributes or {})

    @classmethod
    def with_attribute_file(cls, extensions: TenantAttributes, **kw: Any) -> RuleExtractor:
        """An extractor reading a deployment's attribute extensions (``EPISTREAM_ATTRIBUTES_FILE``)."""
        common, tenants = extensions.registries(DEFAULT_REGISTRY)
        return cls(attributes=common, tenant_attributes=tenants, **kw)

    def extract(self, event: ConversationEvent) -> ExtractionResult:
        ctx = SourceText(event.text)
        proposed = self.propose(event, ctx)
        outcome = validate_with_context(event, proposed, ctx, grounding_method=self.grounding_method)
        # the digest of what was read: the original content's (kept by admission when it masked a
        # secret) when the text is the content, else the text's with its attachment lines
        source_hash = event.content_sha256 if not event.attachments else sha256_hex(event.text)
        # Every field below comes from an already validated event, claims the validator built, or constants,
        # so re-validating them would only cost time (about a tenth of the per-message budget).
        ref = EventRef.of(event, content_sha256=source_hash, trusted=True)
        return ExtractionResult.model_construct(
            event=ref,
            extractor=self.name,
            extractor_version=self.version,
            grounding_policy_version=GROUNDING_POLICY_VERSION,
            source_hash=source_hash,
            claims=tuple(outcome.accepted),
            rejected=tuple(outcome.rejected),
        )

    # -- proposing ---------------------------------------------------------------------
    def propose(self, event: ConversationEvent, ctx: SourceText | None = None) -> list[Claim]:
        ctx = ctx or SourceText(event.text)
        proposals = propose_tool(event) if event.role is Role.TOOL else self._conversational(event, ctx)
        claims: list[Claim] = []
        seen: set[tuple[str, str, str | None, bool]] = set()
        for prop in proposals:
            p = prop.proto
            key = (p.subject.lower(), p.predicate, (p.object or "").lower(), p.negative)
            if key in seen:
                continue
            seen.add(key)
            claims.append(self._to_claim(event, prop))
        return claims

    def _to_claim(self, event: ConversationEvent, prop: Proposal) -> Claim:
        p = prop.proto
        if prop.condition:
            etype = EpistemicType.CONDITIONAL
        elif prop.uncertain or p.hedge:
            etype = EpistemicType.HYPOTHETICAL
        elif p.epistemic is not None:
            etype = p.epistemic
        elif event.role is Role.ASSISTANT:
            etype = EpistemicType.INFERRED
        else:
            etype = default_epistemic_type(event.role, p.node_type)
            if event.role in (Role.USER, Role.HUMAN, Role.PARTICIPANT) and p.node_type is not NodeType.INSTRUCTION:
                # A speaker's own attempt/plan/need is first-hand (PRME-FACTS §8.8 recovery): OBSERVED.
                etype = EpistemicType.OBSERVED if p.speech_act else EpistemicType.ASSERTED
        return Claim(
            node_type=p.node_type,
            subject=p.subject,
            predicate=p.predicate,
            object=p.object,
            polarity=Polarity.NEGATIVE if p.negative else Polarity.POSITIVE,
            epistemic_type=etype,
            condition=prop.condition,
            temporal_intent=TemporalIntent.UPDATE if p.update else TemporalIntent.ASSERTION,
            # only settled claims can retire anything (§8.9); a hedged or inferred one names no old value
            replaces_object=p.replaces if p.update and etype in _RETIRING_TYPES else None,
            evidence_quote=prop.quote,
            source_type=prop.source_type,
            quantity=p.quantity,
            classification_confidence=0.7 if etype is EpistemicType.HYPOTHETICAL else 0.8,
            metadata=p.metadata,
        )

    def _conversational(self, event: ConversationEvent, ctx: SourceText) -> list[Proposal]:
        out: list[Proposal] = []
        if event.role is Role.ASSISTANT:
            for seg in segments(ctx):
                out.extend(Proposal(p, seg.quote, seg.condition, seg.uncertain) for p in propose_assistant(seg.text))
            return out
        if event.role in (Role.USER, Role.HUMAN, Role.PARTICIPANT) and sarcastic(ctx.content):
            return out  # sarcasm states nothing sincere: no claim rather than its opposite
        parser = _parser(event)
        words = update_words(self._registry(event.tenant_id))
        parser.words = words
        # a correcting message ("Correction: it's Capgemini, not Accenture") corrects with every claim it makes
        correction = event.role is not Role.SYSTEM and correcting(ctx.content)
        plain = correction and only_actually(ctx.content)
        for seg in segments(ctx):
            protos: list[Proto] = []
            if correction and not (seg.conditional or seg.uncertain):
                protos = _statement_not_value(parser, seg)
                if not protos:
                    protos = correction_clause(seg.text, parser.mode.first_person)
            if not protos:
                protos = parser.segment(strip_marker(seg.text) if correction else seg.text, seg.conditional)
            if event.role is not Role.SYSTEM:
                mark(protos, seg.text, words, correction=correction, plain=plain)
                protos.extend(labelled_values(seg.text, parser.subject_of_labels(), protos))
                # an object holding a lower-case copula ("using Zotero, citation style is apa") is a clause
                # the list reading took for an item; reported content keeps its clause (tool and system)
                protos = [p for p in protos if p.predicate not in _LIST_PREDICATES
                          or _DANGLING.isdisjoint((p.object or "").split())]
            out.extend(Proposal(p, seg.quote, seg.condition, seg.uncertain) for p in protos)
        return out

    def _registry(self, tenant_id: str) -> AttributeRegistry:
        return self.tenant_attributes.get(tenant_id, self.attributes)


def _statement_not_value(parser: StatementParser, seg: Segment) -> list[Proto]:
    """A correcting statement in a full clause, with the value it replaces ("my postcode is EH6 7QB, not
    EH7"): the statement grammar reads the clause, and each claim whose object is not the old value itself
    replaces it."""
    found = not_value(seg.text)
    if found is None:
        return []
    stmt, old = found
    protos = parser.segment(stmt, seg.conditional)
    for p in protos:
        if p.object is not None and old.lower() not in p.object.lower():
            p.replaces = old
    return protos if any(p.replaces is not None for p in protos) else []


def _parser(event: ConversationEvent) -> StatementParser:
    role = event.role
    if role in (Role.USER, Role.HUMAN):
        return UserParser(Mode("user", speaker=event.speaker))
    if role is Role.PARTICIPANT:
        # in a project a participant's "we" is the team, as the owner's is
        we = "user" if event.scope is Scope.PROJECT else None
        return UserParser(Mode(event.speaker or "participant", speaker=event.speaker, we=we))
    # what is left is a system prompt (tool and assistant messages have their own rules); it speaks to the
    # assistant: "you"/"your" are the assistant ("Your name is Tui")
    return SystemParser(Mode("assistant", attribution=True))
