"""The one validation layer every extractor goes through (PRME-FACTS §8).

A model (or a regex) proposes; this code disposes. A claim is accepted only if
its evidence quote is in the source, its subject and object are mentioned as
whole words in the claim passage, its epistemic type agrees with the hedges and
conditions in that passage, a trying/planning/wanting clause was not turned into
a completed fact, the source role may produce it, and it carries no secret.
Each failure is a :class:`RejectedClaim` with a stable code from
:mod:`extractors.reasons`; siblings of a bad claim are unaffected.

Accepted claims are rewritten, never re-judged downstream:
- ``evidence_span``: source offsets of the paragraph(s) holding the quote (the
  whole source when the quote occurs more than once);
- ``evidence_quote``: the source's own text of the quote, secrets masked;
- ``claim_text``: the shortest run of sentences mentioning subject and object,
  plus a following qualifier sentence, secrets masked (falls back to the
  quote's sentences when no run mentions both);
- ``source_type``: from the role unless the proposer set one;
- ``grounding_method``: the caller's value;
- assistant claims typed OBSERVED/ASSERTED become INFERRED (a restatement is
  system-inferred evidence, §8.10), noted in ``metadata["epistemic_coerced_from"]``.

"Self" subjects ("user", "I", "we", "me", "assistant", the speaker's name,
"they") need no mention in the passage: PRME allows the literals as they are
and the extractor maps first-person pronouns to them.

Mapping proposals that leave a §8.1 default out get it here: polarity
``unknown``, epistemic type ASSERTED, classification confidence 0.5.

Deliberate differences from PRME-FACTS §8.2 (see also ``extractors.text``):
- node content (``claim_text``) is always the claim's own sentences, as PRME's
  optional ``claim_sentences_v1`` would store them, whatever the grounding
  label; the paragraph(s) PRME's default ``source_passage_v1`` stores as content
  are kept as ``evidence_span``. When no run of sentences mentions both subject
  and object, ``claim_text`` falls back to the quote's sentences instead of
  being empty. Runs are at most four sentences long.
- PRME's legacy-path repairs (drop a condition that is not in the passage, then
  downgrade a CONDITIONAL claim left without one to HYPOTHETICAL) are not
  applied: every proposer here is held to the built-in provider's rules and
  such a claim is rejected (``condition_not_in_passage`` / ``malformed_claim``).
- A question is not a claim (``question_not_claim``), values that carry a
  secret are rejected (``secret_value``), and so is a subject or object that
  only points elsewhere ("it", "two of them", "do that again", an instruction
  verb with no object: ``unresolved_reference``); none of these rules is in §8.
- The speech-act recovery of §8.2.8 is done by ``extractors.recovery`` for
  model output (the rule extractor proposes those claims itself); the numeric
  recovery is not done for model output.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from pydantic import ValidationError

from engine.authority import authority_grant
from extractors import reasons
from extractors.dates import TimeMention, find_times, local_time
from extractors.secrets import (
    SecretMatch,
    find_secrets,
    has_placeholder,
    is_secret_predicate,
    mask,
    may_contain_secret,
)
from extractors.task_state import task_state_claim
from extractors.text import (
    ACK_THIRD_PARTY,
    ACK_YOU_ARE,
    ASSISTANT_ACK,
    CHOICE_VERB,
    QUALIFIER_START,
    SPEECH_ACT,
    SPEECH_ACT_STEMS,
    Span,
    find_conditions,
    is_question,
    is_uncertain,
    locate_quote,
    mentions,
    paragraph_spans,
    segment_spans,
    sentence_spans,
)
from schemas.claims import Claim, EvidenceSpan, Quantity, RejectedClaim
from schemas.enums import EpistemicType, NodeType, Polarity, Role
from schemas.events import ConversationEvent
from schemas.roles import source_type_for_role

GROUNDING_POLICY_VERSION: Final = "epistream-grounding/1"
DEFAULT_GROUNDING_METHOD: Final = "source_passage_v1"
#: Claims one event may yield, and proposals validated for it. A chat message of a few KiB yields a
#: handful; a message of a thousand one-line statements would otherwise become one extraction
#: record and one operations record of several MiB, beyond what Kafka accepts by default, and stall
#: its partition. The first ones in proposal order are kept; one ``too_many_claims`` rejection
#: records how many were dropped.
MAX_CLAIMS_PER_EVENT: Final = 64
MAX_PROPOSALS_PER_EVENT: Final = 4 * MAX_CLAIMS_PER_EVENT
#: PRME-FACTS §8.1: an extracted claim that states no confidence gets 0.5.
DEFAULT_CLASSIFICATION_CONFIDENCE: Final = 0.5

#: Subjects that stand for a conversation party rather than a named entity.
SELF_SUBJECTS: Final = frozenset({"user", "i", "me", "we", "us", "they", "assistant", "participant", "tool"})
_ASSISTANT_SELF: Final = frozenset({"assistant", "i", "me"})
_PRONOUN_MENTION: Final = re.compile(r"\b(?:I|me|my|mine|myself|we|us|our|ours|you|your|yours)\b", re.IGNORECASE)

_COMMITMENT_CUE: Final = re.compile(
    r"\bI(?:\s*'ll|\s+will|\s+shall|\s*'m\s+going\s+to|\s+am\s+going\s+to)\b", re.IGNORECASE
)
_COMPLETED_CUE: Final = re.compile(
    r"\bI(?:\s*'ve|\s+have)\s+(?:just\s+|already\s+|now\s+|successfully\s+)?(?:\w+ed|sent|set|made|written|put|"
    r"built|done|left|kept|found)\b|\bI\s+(?:just\s+|already\s+|successfully\s+)?(?:\w+ed|sent|set up|made|wrote|"
    r"put|built)\b|^(?:done|all set)\b",
    re.IGNORECASE,
)
_ATTRIBUTION_CUE: Final = re.compile(
    r"\byou(?:\s*'ve|\s+have)?\s+(?:told|said|mentioned|noted|shared|indicated|stated|explained|let me know)\b|"
    r"\bas you(?:'ve|\s+have)?\s+(?:said|mentioned|noted|told|explained|shared|indicated|stated)\b|"
    r"\bI(?:\s*'ve|\s+have)\s+noted\s+that\b|"
    r"\bI(?:\s*'ll|\s+will)\s+remember\s+that\b|\baccording to you\b|\b(?:since|because|given that)\s+you\b|"
    r"\b(?:sounds|seems|looks)\s+like\s+you(?:'ve|'re|\s+(?!(?:could|should|might|may|can|would|will|must|need|"
    r"want|'ll|'d)\b))|"
    # a direct statement about the user ("You prefer ...", "Your team rejected ..."), not advice ("You could ...")
    rf"^(?:{ASSISTANT_ACK})?"
    r"(?:you|your\s+[\w-]+(?:\s+[\w-]+)?)\s+(?!(?:could|should|might|may|can|would|will|must|"
    r"need|want|'ll|'d|'re|are|were|have to|got)\b)|"
    rf"^{ASSISTANT_ACK}{ACK_YOU_ARE}|^{ACK_THIRD_PARTY}|"
    # after an acknowledgement, what the user has done or wants ("Got it — you've been vegetarian for years",
    # "Noted, you want to learn Yoruba"), not how-to advice ("ok, you want to preheat the oven first")
    rf"^{ASSISTANT_ACK}you(?:'ve|\s+have)\s+(?!(?:to|got\s+to)\b)|"
    rf"^{ASSISTANT_ACK}you\s+(?:want|plan|hope|intend)\s+to\s+(?!(?:make\s+sure|check|double-check|avoid|keep|"
    r"use|be|start\s+by|preheat|wait|call|ask|look|consider)\b)|"
    # "OK, so restoring rugs is your weekend hobby", "sounds like the e-bike is your main way in"
    rf"^(?:{ASSISTANT_ACK}|(?:sounds|seems|looks)\s+like\s+)(?![^.!?]*\b(?:best|safest|easiest|option|bet|"
    r"should|could|might|may|can|would|recommend|suggest)\b)[^.!?]{1,60}?\b(?:is|are|was|were)\s+your\b",
    re.IGNORECASE,
)
_RECOMMENDATION_REQUEST: Final = re.compile(
    r"\b(?:recommend|suggest|suggestions?|recommendations?|any ideas|what should I|which should I)\b", re.IGNORECASE
)
_LOG_LINE: Final = re.compile(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?(?:DEBUG|INFO|WARN|WARNING|ERROR|TRACE|FATAL)\b\]?)"
)
_NOT_A_QUANTITY: Final = re.compile(
    r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?|\bv?\d+\.\d+\.\d+|\b\d+(?:st|nd|rd|th)\b|"
    r"\+?\d[\d\s().-]{7,}\d|#\d+|\b[A-Za-z]+-?\d+[A-Za-z]*\b",
)
_STEMS: Final = re.compile("|".join(SPEECH_ACT_STEMS))
#: Cheap pre-check for SPEECH_ACT: "to" between any whitespace (a tab or line wrap counts, as in the regex).
_TO_WORD: Final = re.compile(r"\sto\s", re.IGNORECASE)
_SYSTEM_NODE_TYPES: Final = frozenset({NodeType.INSTRUCTION, NodeType.FACT, NodeType.PREFERENCE})
_TOOL_NODE_TYPES: Final = frozenset({NodeType.FACT, NodeType.TASK})
_SETTLED_TYPES: Final = frozenset({EpistemicType.OBSERVED, EpistemicType.ASSERTED, EpistemicType.INFERRED})
_UNCERTAIN_OK: Final = frozenset({EpistemicType.HYPOTHETICAL, EpistemicType.CONDITIONAL})


@dataclass
class ValidationOutcome:
    accepted: list[Claim] = field(default_factory=list)
    rejected: list[RejectedClaim] = field(default_factory=list)


class _Reject(Exception):
    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(code)
        self.code = code
        self.detail = detail


@dataclass(frozen=True, slots=True)
class _Sentence:
    span: Span
    para: int
    segments: tuple[Span, ...]


class SourceText:
    """Per-event view of the content: paragraphs, sentences, segments and secrets, computed once."""

    __slots__ = ("_memo", "content", "paragraphs", "secret_free", "secrets", "sentences")

    def __init__(self, content: str) -> None:
        self.content = content
        self.paragraphs = paragraph_spans(content)
        sentences: list[_Sentence] = []
        for pi, para in enumerate(self.paragraphs):
            for sp in sentence_spans(content, para):
                sentences.append(_Sentence(sp, pi, tuple(segment_spans(content, sp))))
        self.sentences = sentences
        #: Secret-shaped values still in the content (admission masked the rest into placeholders).
        self.secrets: list[SecretMatch] = find_secrets(content)
        #: No secret marker anywhere in the content, so none in any slice of it: masking slices is a no-op.
        self.secret_free = not may_contain_secret(content) and not has_placeholder(content)
        self._memo: dict[tuple[int, str], Any] = {}

    # Cue detectors memoised per event: the proposer and the validator ask about the same passages.
    def conditions(self, text: str) -> list[tuple[int, int]]:
        key = (0, text)
        if key not in self._memo:
            self._memo[key] = find_conditions(text)
        result: list[tuple[int, int]] = self._memo[key]
        return result

    def uncertain(self, text: str) -> bool:
        key = (1, text)
        if key not in self._memo:
            self._memo[key] = is_uncertain(text)
        return bool(self._memo[key])

    def question(self, text: str) -> bool:
        key = (2, text)
        if key not in self._memo:
            self._memo[key] = is_question(text)
        return bool(self._memo[key])

    def text(self, span: Span) -> str:
        return self.content[span.start : span.end]

    def times(self, event: ConversationEvent) -> list[TimeMention]:
        """The message's time expressions, resolved against its sender's local time (once per event)."""
        key = (3, "")
        if key not in self._memo:
            self._memo[key] = find_times(self.content, local_time(event.occurred_at, event.utc_offset_minutes))
        found: list[TimeMention] = self._memo[key]
        return found

    def run_text(self, idxs: list[int]) -> str:
        """Exact source text from the first to the last of consecutive sentences."""
        return self.content[self.sentences[idxs[0]].span.start : self.sentences[idxs[-1]].span.end]

    def sentence_indexes(self, start: int, end: int) -> list[int]:
        out = [i for i, s in enumerate(self.sentences) if s.span.start < end and s.span.end > start]
        if not out:  # quote made only of whitespace between sentences: nearest sentence
            out = [i for i, s in enumerate(self.sentences) if s.span.end >= start][:1]
        return out

    def with_qualifiers(self, idxs: list[int]) -> list[int]:
        """Add following qualifier sentences ("Only if ...", "Unless ...", "But never ...") in the same paragraph."""
        if not idxs:
            return idxs
        out = list(idxs)
        j = idxs[-1] + 1
        para = self.sentences[idxs[-1]].para
        while j < len(self.sentences) and self.sentences[j].para == para:
            if QUALIFIER_START.search(self.text(self.sentences[j].span)) is None:
                break
            out.append(j)
            j += 1
        return out


_POSSESSIVE: Final = re.compile(r"^(?P<owner>.+?)'s\s+(?P<rel>.+)$")


def _is_self(subject: str, speaker: str | None) -> bool:
    s = subject.strip().lower()
    return s in SELF_SUBJECTS or (speaker is not None and s == speaker.strip().lower())


def _subject_mentioned(passage: str, subject: str, speaker: str | None) -> bool:
    """Self subjects need no mention; "user's sister" needs "sister"; anything else needs itself."""
    if _is_self(subject, speaker) or mentions(passage, subject):
        return True
    m = _POSSESSIVE.match(subject.strip())
    return m is not None and _is_self(m.group("owner"), speaker) and mentions(passage, m.group("rel"))


def _sentence_mentions_subject(text: str, subject: str, speaker: str | None) -> bool:
    if _is_self(subject, speaker):
        return (
            subject.strip().lower() == "tool"
            or _PRONOUN_MENTION.search(text) is not None
            or mentions(text, subject)
            or (speaker is not None and mentions(text, speaker))
        )
    return _subject_mentioned(text, subject, speaker)


_VALUE_KEYS: Final = ("subject", "object", "condition", "replaces_object", "quantity")


def _claim_dict(raw: Claim | Mapping[str, Any], ctx: SourceText, code: str) -> dict[str, Any]:
    """The rejected proposal as JSON with every secret hidden (shape-based and known source secrets)."""
    data = raw.model_dump(mode="json") if isinstance(raw, Claim) else dict(raw)
    masked: dict[str, Any] = _mask_json(data, ctx)
    if code == reasons.SECRET_VALUE:
        for key in _VALUE_KEYS:
            if masked.get(key) not in (None, "") and (
                key != "subject" or not _is_self(str(masked[key]), None)
            ):
                masked[key] = "[REDACTED:secret_value]"
    return masked


def _mask_str(text: str, ctx: SourceText) -> str:
    out = mask(text)[0]
    for sm in ctx.secrets:
        secret = ctx.content[sm.start : sm.end]
        if secret and secret in out:
            out = out.replace(secret, f"[REDACTED:{sm.kind}]")
    return out


def _mask_json(value: Any, ctx: SourceText) -> Any:
    if isinstance(value, str):
        return _mask_str(value, ctx)
    if isinstance(value, dict):
        return {str(k): _mask_json(v, ctx) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mask_json(v, ctx) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return _mask_str(str(value), ctx)


def _parse(raw: Claim | Mapping[str, Any]) -> tuple[Claim, str | None]:
    """Validate a proposal; a malformed quantity is dropped while its claim is kept."""
    if isinstance(raw, Claim):
        return raw, None
    if not isinstance(raw, Mapping):
        raise _Reject(reasons.MALFORMED_CLAIM, "claim must be an object")
    data = dict(raw)
    dropped: str | None = None
    if data.get("quantity") is not None:
        try:
            Quantity.model_validate(data["quantity"])
        except ValidationError:
            data.pop("quantity")
            dropped = reasons.INVALID_QUANTITY
    if "polarity" not in data:
        data["polarity"] = Polarity.UNKNOWN  # legacy/custom proposers that say nothing (§8.5)
    # §8.1 defaults of an extracted fact; Claim objects built in code set their own.
    if data.get("epistemic_type") is None:
        data["epistemic_type"] = EpistemicType.ASSERTED
    if data.get("classification_confidence") is None:
        data["classification_confidence"] = DEFAULT_CLASSIFICATION_CONFIDENCE
    try:
        return Claim.model_validate(data), dropped
    except ValidationError as exc:
        first = exc.errors(include_input=False, include_url=False)[0]
        loc = ".".join(str(p) for p in first["loc"]) or "claim"
        raise _Reject(reasons.MALFORMED_CLAIM, f"{loc}: {first['type']}") from None


def _check_secrets(claim: Claim, ctx: SourceText) -> None:
    if is_secret_predicate(claim.predicate):
        raise _Reject(reasons.SECRET_VALUE, "predicate names a credential")
    values = [claim.subject, claim.object, claim.condition, claim.replaces_object]
    if claim.quantity is not None:
        values.append(claim.quantity.source_text)
    if any(v and has_placeholder(v) for v in values):
        raise _Reject(reasons.SECRET_VALUE, "value is a secret masked at admission")
    if not ctx.secrets and not find_secrets("\n".join(v for v in values if v)):
        return
    secret_texts = [ctx.content[s.start : s.end] for s in ctx.secrets]
    for v in values:
        if not v:
            continue
        if find_secrets(v):
            raise _Reject(reasons.SECRET_VALUE, "value has a secret shape")
        vs = v.strip()
        if vs and any(vs in st or st in vs for st in secret_texts):
            raise _Reject(reasons.SECRET_VALUE, "value is a secret in the source")


def _check_role(claim: Claim, role: Role, scope_text: str, speaker: str | None) -> None:
    if role is Role.ASSISTANT:
        subj = claim.subject.strip().lower()
        if subj in _ASSISTANT_SELF or (speaker is not None and subj == speaker.strip().lower()):
            if not (_COMMITMENT_CUE.search(scope_text) or _COMPLETED_CUE.search(scope_text)):
                raise _Reject(reasons.ROLE_NOT_ADMITTED, "assistant: not a commitment or completed action")
        elif not _ATTRIBUTION_CUE.search(scope_text):
            raise _Reject(reasons.ROLE_NOT_ADMITTED, "assistant: not a fact attributed to the user")
    elif role is Role.SYSTEM:
        if claim.node_type not in _SYSTEM_NODE_TYPES:
            raise _Reject(reasons.ROLE_NOT_ADMITTED, f"system: {claim.node_type.value} not admitted")
    elif role is Role.TOOL:
        if claim.node_type not in _TOOL_NODE_TYPES:
            raise _Reject(reasons.ROLE_NOT_ADMITTED, f"tool: {claim.node_type.value} not admitted")
        if _LOG_LINE.search(scope_text):
            raise _Reject(reasons.ROLE_NOT_ADMITTED, "tool: log line")
    elif claim.node_type is NodeType.PREFERENCE and _RECOMMENDATION_REQUEST.search(scope_text):
        raise _Reject(reasons.ROLE_NOT_ADMITTED, "a request for a recommendation is not a preference")


def speech_act_stem(predicate: str) -> bool:
    """The predicate keeps a trying/planning/wanting stem, so it never claims the action was done."""
    return _STEMS.search(predicate.lower()) is not None


#: Words that only point at something named elsewhere ("they" is a self subject, see SELF_SUBJECTS).
POINTER_WORDS: Final = frozenset(
    {
        "it", "its", "itself", "this", "that", "these", "those", "them", "him", "her", "he", "she", "there",
        "here", "one", "ones", "same", "such", "so", "other", "another",
    }
)
#: Words that add nothing to what a pointer names: "do that again", "the same", "all of it".
_FILLERS: Final = frozenset(
    {
        "a", "an", "the", "all", "of", "again", "anymore", "ever", "too", "also", "just", "please", "any",
        "more", "now", "then",
    }
)
#: Verbs an instruction cannot end on: "always use", "never be", "don't include" name no behaviour.
_NEEDS_OBJECT: Final = frozenset(
    {
        "use", "be", "do", "have", "get", "make", "include", "mention", "add", "call", "avoid", "prefer",
        "send", "tell", "show", "give", "put", "take", "bring", "let", "provide", "follow", "treat", "cite",
        "offer", "share", "recommend", "suggest", "address", "greet", "keep", "limit", "format", "list",
        "refer", "forward", "direct", "notify", "remind", "stick", "stay", "act", "try", "say",
    }
)
#: Words that count or pick out of what a pointer names: "two of them", "the first one".
_PICKS: Final = frozenset(
    {
        "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "first", "second", "third",
        "last", "both", "few", "many", "some", "several", "most", "each", "either", "neither", "half", "none",
    }
)
#: Picks that stand alone for what was named before ("I have both"); a number alone may be the value.
_STAND_INS: Final = frozenset({"both", "few", "many", "some", "several", "most", "each", "either", "neither", "none"})
_WORDS: Final = re.compile(r"\w+(?:'\w+)?")


def _points_elsewhere(words: list[str]) -> bool:
    """Only pointers, or pointers picked out by a count or an ordinal ("two of them", "first one")."""
    if len(words) == 1 and words[0] in _STAND_INS:
        return True
    return bool(words) and words[-1] in POINTER_WORDS and all(w in POINTER_WORDS or w in _PICKS for w in words)


def _unresolved_part(claim: Claim) -> str | None:
    """Which part of the claim (``subject`` / ``object``) names nothing the message itself says.

    A later reader of the memory has only the claim and its passage: "user likes it" or "assistant
    should not do that again" cannot be read without the message before it, and "assistant should
    use" not at all. Objects of instructions and of ``..._to`` predicates are verb phrases, so their
    first word (the verb) is set aside before looking for a named thing.
    """
    if _points_elsewhere([w for w in _WORDS.findall(claim.subject.lower()) if w not in _FILLERS]):
        return "subject"
    if claim.object is None or not claim.object.strip():
        return None
    words = [w for w in _WORDS.findall(claim.object.lower()) if w not in _FILLERS]
    if not words or _points_elsewhere(words):
        return "object"
    if claim.node_type is NodeType.INSTRUCTION or claim.predicate.endswith("_to"):
        verb, rest = words[0], words[1:]
        if (not rest and claim.node_type is NodeType.INSTRUCTION and verb in _NEEDS_OBJECT) or _points_elsewhere(rest):
            return "object"
    return None


def _speech_act_violation(claim: Claim, passage: str, speaker: str | None) -> bool:
    if speech_act_stem(claim.predicate) or _TO_WORD.search(passage) is None:
        return False
    for m in SPEECH_ACT.finditer(passage):
        clause = m.group(0)
        subj_ok = _is_self(claim.subject, speaker) or mentions(clause, claim.subject)
        obj_ok = claim.object is not None and mentions(clause, claim.object)
        if subj_ok and obj_ok:
            return True
    return False


def _quantity_ok(q: Quantity, obj: str | None, passage: str) -> bool:
    if obj is None or q.source_text not in obj or q.source_text not in passage:
        return False
    if _NOT_A_QUANTITY.search(q.source_text):
        return False
    i = obj.find(q.source_text)
    around = obj[max(0, i - 12) : i + len(q.source_text) + 12]
    return _NOT_A_QUANTITY.search(around) is None or q.source_text.strip() == obj.strip()


def _shortest_run(ctx: SourceText, claim: Claim, idxs: list[int], speaker: str | None) -> list[int] | None:
    """Shortest run of sentences (in the quote's paragraphs) mentioning subject and object; prefer the quote's."""
    for i in idxs:  # common case: one of the quote's own sentences mentions both
        text = ctx.text(ctx.sentences[i].span)
        if _sentence_mentions_subject(text, claim.subject, speaker) and (
            claim.object is None or mentions(text, claim.object)
        ):
            return [i]
    paras = {ctx.sentences[i].para for i in idxs}
    pool = [i for i, s in enumerate(ctx.sentences) if s.para in paras]
    for length in range(1, min(len(pool), 4) + 1):
        best: list[int] | None = None
        for k in range(len(pool) - length + 1):
            run = pool[k : k + length]  # always consecutive: the quote's paragraphs are, so the pool is
            joined = ctx.run_text(run)
            if not _sentence_mentions_subject(joined, claim.subject, speaker):
                continue
            if claim.object is not None and not mentions(joined, claim.object):
                continue
            if best is None or (set(run) & set(idxs) and not set(best) & set(idxs)):
                best = run
        if best is not None:
            return best
    return None


def _validate_one(
    raw: Claim | Mapping[str, Any], event: ConversationEvent, ctx: SourceText, grounding_method: str
) -> Claim:
    claim, quantity_dropped = _parse(raw)
    content = ctx.content
    speaker = event.speaker
    tool_name = event.metadata.get("tool_name") if event.role is Role.TOOL else None
    if speaker is None and isinstance(tool_name, str):
        speaker = tool_name
    _check_secrets(claim, ctx)

    located = locate_quote(content, claim.evidence_quote)
    if located is None:
        raise _Reject(reasons.QUOTE_NOT_IN_SOURCE, "empty quote" if not claim.evidence_quote.strip() else "")
    q_start, q_end, occurrences = located

    base_idx = ctx.sentence_indexes(q_start, q_end)
    sent_idx = ctx.with_qualifiers(base_idx)
    passage = ctx.run_text(sent_idx)
    # Cue scope: segments of the quote's sentences that overlap the quote, plus qualifier sentences.
    scope_parts: list[str] = []
    for i in base_idx:
        segs = [s for s in ctx.sentences[i].segments if s.start < q_end and s.end > q_start]
        scope_parts.extend(ctx.text(s) for s in (segs or ctx.sentences[i].segments))
    scope_parts.extend(ctx.text(ctx.sentences[i].span) for i in sent_idx if i not in base_idx)
    scope = " ".join(scope_parts)

    _check_role(claim, event.role, scope, speaker)
    if all(ctx.question(ctx.text(ctx.sentences[i].span)) for i in base_idx):
        raise _Reject(reasons.QUESTION_NOT_CLAIM)
    # Memory is context, never authority: before any other reading of the claim (TRUST-FACTS §7).
    granted = authority_grant(
        claim.subject, claim.predicate, claim.object, passage, negative=claim.polarity is Polarity.NEGATIVE
    )
    if granted is not None:
        raise _Reject(reasons.AUTHORITY_GRANT, granted)

    if not _subject_mentioned(passage, claim.subject, speaker):
        raise _Reject(reasons.MENTION_NOT_WHOLE_WORD, "subject")
    if claim.object is not None and claim.object.strip() and not mentions(passage, claim.object):
        raise _Reject(reasons.MENTION_NOT_WHOLE_WORD, "object")
    unresolved = _unresolved_part(claim)
    if unresolved is not None:
        raise _Reject(reasons.UNRESOLVED_REFERENCE, unresolved)

    etype = claim.epistemic_type
    if etype is EpistemicType.CONDITIONAL:
        if claim.condition is None or claim.condition.strip() not in passage:
            raise _Reject(reasons.CONDITION_NOT_IN_PASSAGE)
    else:
        if claim.condition is not None and claim.condition.strip():
            raise _Reject(reasons.CONDITION_ON_NON_CONDITIONAL)
        if ctx.conditions(scope):
            raise _Reject(reasons.CONDITION_NOT_TYPED_CONDITIONAL)
    uncertain = ctx.uncertain(scope)
    if uncertain and etype not in _UNCERTAIN_OK:
        raise _Reject(reasons.UNCERTAIN_CLAIM_TYPED_AS_FACT)
    if (
        claim.node_type is NodeType.DECISION
        and (uncertain or etype in _UNCERTAIN_OK)
        and CHOICE_VERB.search(passage) is None
    ):
        raise _Reject(reasons.DECISION_WITHOUT_CHOICE_VERB)
    if _speech_act_violation(claim, passage, speaker):
        raise _Reject(reasons.SPEECH_ACT_COMPLETED_PREDICATE)

    # --- accepted: rewrite derived fields ---------------------------------
    metadata: dict[str, Any] = dict(claim.metadata)
    update: dict[str, Any] = {}
    if quantity_dropped:
        metadata["quantity_dropped"] = quantity_dropped
    if claim.quantity is not None and not _quantity_ok(claim.quantity, claim.object, passage):
        update["quantity"] = None
        metadata["quantity_dropped"] = reasons.INVALID_QUANTITY
    if claim.replaces_object is not None and not mentions(passage, claim.replaces_object):
        update["replaces_object"] = None
        metadata["replaces_object_dropped"] = reasons.REPLACES_OBJECT_NOT_IN_PASSAGE
    if event.role is Role.ASSISTANT and etype in (EpistemicType.OBSERVED, EpistemicType.ASSERTED):
        update["epistemic_type"] = EpistemicType.INFERRED
        metadata["epistemic_coerced_from"] = etype.value

    if occurrences > 1:
        span = EvidenceSpan.model_construct(start=0, end=len(content))
    else:
        paras = [p for p in ctx.paragraphs if p.start <= q_end and p.end >= q_start] or ctx.paragraphs
        span = EvidenceSpan.model_construct(start=paras[0].start, end=paras[-1].end)
    metadata["quote_span"] = [q_start, q_end]

    run = _shortest_run(ctx, claim, base_idx, speaker)
    run_idx = ctx.with_qualifiers(run) if run is not None else sent_idx
    claim_text = ctx.run_text(run_idx)
    times = ctx.times(event)
    if times:
        lo, hi = ctx.sentences[run_idx[0]].span.start, ctx.sentences[run_idx[-1]].span.end
        dates = tuple(dict.fromkeys(t.resolved for t in times if t.start >= lo and t.end <= hi))
        if dates:
            update["event_dates"] = dates

    update.update(
        evidence_quote=content[q_start:q_end] if ctx.secret_free else mask(content[q_start:q_end])[0],
        evidence_span=span,
        claim_text=claim_text if ctx.secret_free else mask(claim_text)[0],
        grounding_method=grounding_method,
        metadata=metadata,
    )
    if claim.source_type is None:
        update["source_type"] = source_type_for_role(event.role)
    return claim.model_copy(update=update)


def validate_with_context(
    event: ConversationEvent,
    proposed: Sequence[Claim | Mapping[str, Any]],
    ctx: SourceText,
    *,
    grounding_method: str = DEFAULT_GROUNDING_METHOD,
) -> ValidationOutcome:
    """``validate_claims`` reusing an already built :class:`SourceText` (the rule extractor's fast path)."""
    outcome = ValidationOutcome()
    dropped = max(0, len(proposed) - MAX_PROPOSALS_PER_EVENT)
    for raw in proposed[:MAX_PROPOSALS_PER_EVENT]:
        if len(outcome.accepted) >= MAX_CLAIMS_PER_EVENT:
            dropped += 1
            continue
        try:
            outcome.accepted.append(_validate_one(raw, event, ctx, grounding_method))
        except _Reject as rej:
            if isinstance(raw, Claim | Mapping):
                claim_json = _claim_dict(raw, ctx, rej.code)
            else:
                claim_json = {"value": _mask_json(repr(raw), ctx)}
            outcome.rejected.append(RejectedClaim(reason_code=rej.code, detail=rej.detail, claim=claim_json))
    if dropped:
        outcome.rejected.append(
            RejectedClaim(
                reason_code=reasons.TOO_MANY_CLAIMS,
                detail=f"{dropped} proposals beyond the first {MAX_CLAIMS_PER_EVENT} accepted claims were not kept",
                claim={"dropped": dropped},
            )
        )
    capsule = task_state_claim(event)  # a typed payload, not prose: whichever extractor read the text
    if capsule is not None:
        # a capsule is context, never authority (TRUST-FACTS §5, §7): one whose words would grant it is
        # refused, and the refusal journaled, like any claim's
        granted = authority_grant(capsule.subject, capsule.predicate, capsule.object, capsule.claim_text)
        if granted is None:
            outcome.accepted.append(capsule)
        else:
            outcome.rejected.append(RejectedClaim(reason_code=reasons.AUTHORITY_GRANT, detail=granted,
                                                  claim={"task_id": capsule.subject}))  # fmt: skip
    return outcome


def validate_claims(
    event: ConversationEvent,
    proposed: Sequence[Claim | Mapping[str, Any]],
    *,
    grounding_method: str = DEFAULT_GROUNDING_METHOD,
) -> ValidationOutcome:
    """Split proposals into accepted (rewritten) and rejected claims; see the module docstring."""
    return validate_with_context(event, proposed, SourceText(event.text), grounding_method=grounding_method)
