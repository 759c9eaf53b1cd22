"""Text primitives shared by the validation layer and the rule extractor.

Both sides must agree on what a sentence, a segment, a condition and a hedge
are; otherwise the rule extractor would propose claims its own validator
rejects. Everything here is a precompiled regex or a small pure function.

Deviations from PRME's grounding rules (PRME-FACTS §8.2), all deliberate:
- quote matching (§8.2.1) also collapses whitespace runs on both sides and
  treats guillemets, primes and low-9 marks as quote marks (models re-wrap
  lines and re-type quotes); the source's own span is still what is kept;
- a single line break also ends a sentence (chat messages are line-structured:
  bullet lists, one fact per line), and the point of a common abbreviation
  ("Dr.", "e.g.", "etc.") does not;
- "even if", "as if" and "what if" are not explicit conditions (concessive /
  comparative / suggestion, the claim does not depend on them); neither is the
  "if" of "(not) sure/certain if", "unsure if" or "tell me if" (indirect
  questions, like PRME's ask/check/see/wonder if); "providing that" is a marker
  like "provided that". The indirect-question exemption applies to a bare "if"
  only: "I'll ask only if ...", "let me know unless ..." are conditions;
- hedges (§8.2.7) also include "probably", "(un)likely", "considering",
  "weighing", "thinking about/of", "leaning toward(s)", "not sure/certain",
  "unsure" and "I think/guess/suppose/reckon/suspect/doubt"; "could not" /
  "couldn't" is a plain negation, not a hedge; "can/would/will/might you" and
  "if you could/can/would/might" are polite requests like "could you";
- speech-act clauses (§8.2.8) also take "would love to", an adverb or a
  negation after the subject ("I really want to", "I don't want to"), and end
  at a line break or before "because"/"since"/"whereas"; the admitted predicate
  stems add "tries"/"tried", which the cue table itself produces
  (``tries_to``, ``tried_to``) but which do not contain "try";
- cue checks (condition, hedge) run on the *segments* of the claim sentences
  that overlap the evidence quote, where segments are split only at
  contrastive joints (";", "but", "whereas", "although", "though", "while"),
  so "I love tea, but maybe not coffee" keeps the tea claim settled. A narrow
  quote cannot dodge a condition in its own segment.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, NamedTuple

# --- normalisation ----------------------------------------------------------

_QUOTE_MARKS: Final = "'\"\u2018\u2019\u201a\u201b\u2032\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"
_TO_DQUOTE: Final = str.maketrans(dict.fromkeys(_QUOTE_MARKS, '"'))
#: Same-length mapping used by the rule extractor so offsets stay valid.
APOSTROPHES: Final = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"'}
)
_WS_RUN: Final = re.compile(r"\s+")


def _normalise_with_map(text: str) -> tuple[str, list[int]]:
    """Quote marks -> '"', whitespace runs -> one space; map each output index to its source index."""
    out: list[str] = []
    idx: list[int] = []
    translated = text.translate(_TO_DQUOTE)
    prev_space = False
    for i, ch in enumerate(translated):
        if ch.isspace():
            if prev_space:
                continue
            out.append(" ")
            idx.append(i)
            prev_space = True
        else:
            out.append(ch)
            idx.append(i)
            prev_space = False
    return "".join(out), idx


def locate_quote(source: str, quote: str) -> tuple[int, int, int] | None:
    """Find ``quote`` in ``source``: ``(start, end, occurrences)`` in source offsets, or None.

    Exact substring first; otherwise after normalising whitespace and quote
    marks on both sides, returning the source's own span. ``occurrences`` is 1
    or 2 (meaning "more than one").
    """
    q = quote.strip()
    if not q:
        return None
    i = source.find(q)
    if i >= 0:
        return i, i + len(q), 1 if source.find(q, i + 1) < 0 else 2
    norm_src, index = _normalise_with_map(source)
    norm_q, _ = _normalise_with_map(q)
    j = norm_src.find(norm_q)
    if j < 0:
        return None
    count = 1 if norm_src.find(norm_q, j + 1) < 0 else 2
    return index[j], index[j + len(norm_q) - 1] + 1, count


# --- whole-word mentions ----------------------------------------------------


@lru_cache(maxsize=8192)
def _word_pattern(value: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)", re.IGNORECASE)


def mentions(text: str, value: str | None) -> bool:
    """Case-insensitive whole-word mention; "Ann" is not in "Marianne", "C++" is in "I use C++"."""
    if value is None:
        return False
    v = value.strip()
    if not v:
        return False
    if len(v) > 200:  # long values are rare: compile without filling the cache, keep the whole-word rule
        return re.search(r"(?<!\w)" + re.escape(v) + r"(?!\w)", text, re.IGNORECASE) is not None
    return _word_pattern(v).search(text) is not None


# --- paragraphs and sentences ------------------------------------------------

_PARA_BREAK: Final = re.compile(r"\n[^\S\n]*\n\s*")
_SENT_END: Final = re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*(?=\s|$)|\n")
_ABBREV: Final = re.compile(
    r"(?:\b(?:mr|mrs|ms|dr|prof|st|sr|jr|vs|etc|approx|no|nr|fig|ext|tel|apt|bldg|dept|ref|acct|vol|"
    r"e\.g|i\.e|u\.s|a\.m|p\.m)\.)$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int


def paragraph_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    pos = 0
    for m in _PARA_BREAK.finditer(text):
        if m.start() > pos:
            spans.append(Span(pos, m.start()))
        pos = m.end()
    if pos < len(text) or not spans:
        spans.append(Span(pos, len(text)))
    return spans


def _trimmed(text: str, start: int, end: int) -> Span | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start, end) if end > start else None


#: Where a statement gives way to a question inside one sentence: "I'm running Ubuntu 24.04 — any idea why
#: Bluetooth keeps dropping?", "my cat is 16, is it normal ...?". The question part is a sentence of its own.
_QUESTION_TAIL: Final = re.compile(
    r"(?:\s+[-\u2013\u2014]+\s+|\s*[;:]\s+|,\s+)(?:(?:so|but|and)\s+)?(?=(?:what|what's|whats|how|which|why|where|"
    r"when|who|is|are|can|could|should|would|will|does|do|did|has|have|any|anyone|anybody|thoughts|ideas|"
    r"recommendations|suggestions|tips)\b[^?]*\?\s*$)",
    re.IGNORECASE,
)


def _split_question(text: str, sp: Span) -> Iterator[Span]:
    """A sentence ending in "?" whose first part states something: the statement, then the question."""
    if text[sp.end - 1] != "?":
        yield sp
        return
    m = _QUESTION_TAIL.search(text, sp.start, sp.end)
    if m is None or m.start() - sp.start < 8:
        yield sp
        return
    head = _trimmed(text, sp.start, m.start())
    tail = _trimmed(text, m.end(), sp.end)
    if head is not None:
        yield head
    if tail is not None:
        yield tail


def sentence_spans(text: str, para: Span) -> Iterator[Span]:
    """Sentences of one paragraph: end at . ! ? (plus closing quotes/brackets) before whitespace, or a newline.

    A sentence that states something and then asks ("I drive a Leaf; how long does it take to charge?") is
    two: the statement is not a question.
    """
    pos = para.start
    chunk = text[para.start : para.end]
    for m in _SENT_END.finditer(chunk):
        end = para.start + m.end()
        dot = para.start + m.start()
        # the longest abbreviation ("approx") is six letters before its dot; closing marks after it do not count
        if m.group() != "\n" and _ABBREV.search(text, max(pos, dot - 6), dot + 1):
            continue
        sp = _trimmed(text, pos, end)
        if sp is not None:
            yield from _split_question(text, sp)
        pos = end
    sp = _trimmed(text, pos, para.end)
    if sp is not None:
        yield from _split_question(text, sp)


# --- segments ---------------------------------------------------------------

_SEGMENT_JOINT: Final = re.compile(
    r";\s+|,?\s+(?:but|whereas|although|though|while)\s+(?!only if|unless|provided|as long as|never|except)|"
    r",\s+(?:however)\b,?\s*",
    re.IGNORECASE,
)


def segment_spans(text: str, sent: Span) -> list[Span]:
    """Contrastive segments of a sentence (the joint words belong to the following segment)."""
    out: list[Span] = []
    pos = sent.start
    chunk = text[sent.start : sent.end]
    for m in _SEGMENT_JOINT.finditer(chunk):
        end = sent.start + m.start()
        sp = _trimmed(text, pos, end)
        if sp is not None:
            out.append(sp)
        pos = sent.start + m.start()
    sp = _trimmed(text, pos, sent.end)
    if sp is not None:
        out.append(sp)
    return out or [sent]


# --- cues -------------------------------------------------------------------

QUALIFIER_START: Final = re.compile(
    r"^(?:but\s+)?(?:only if|unless|provided that|as long as|never|except(?:\s+(?:if|when|for))?|however)\b",
    re.IGNORECASE,
)

_CONDITION_MARKER: Final = re.compile(
    r"\b(?:only if|if|unless|provided that|providing that|provided|as long as|whenever|when|in case)\b", re.IGNORECASE
)
_NOT_A_CONDITION_BEFORE: Final = re.compile(
    r"(?:\b(?:ask|asks|asked|asking|check|checks|checked|checking|curious|determine|determines|determined|"
    r"determining|find out|finding out|found out|finds out|know|knows|knew|knowing|see|sees|saw|seeing|"
    r"wonder|wonders|wondered|wondering|unsure|sure|certain|even|as|what|tell)"
    r"(?:\s+(?:me|us|you|them|him|her))?\s*)$",
    re.IGNORECASE,
)
#: A "when" that asks or relates rather than conditions: "no idea when", "remember when", "back when", "the day when".
_NOT_A_WHEN_BEFORE: Final = re.compile(
    r"\b(?:ask|asks|asked|asking|check|checking|know|knows|knew|remember|remembers|forget|forgot|idea|clue|sure|"
    r"unsure|certain|wonder|wondering|wondered|tell|told|decide|decided|say|said|see|back|since|until|till|from|"
    r"like|time|times|day|days|year|years|moment|point|period|week|month|season|morning|night|evening|"
    r"even|except|just|only|that's|thats|is|was)(?:\s+(?:me|us|you|them|him|her))?\s*$",
    re.IGNORECASE,
)
#: "when discussing incidents" (a circumstance of the act, not a condition on it), "when I was a kid" (a time),
#: "when my contract ended", "when we relocated to Denver" (a past event: when it happened, not a condition).
_NOT_A_WHEN_AFTER: Final = re.compile(
    r"\s+(?:[a-z]+ing\b|(?:I|we|he|she|they|you)\s+(?:was|were)\b|(?:I|we|he|she|they)\s+(?:first\s+)?"
    r"(?:started|moved|met|got|arrived|left|joined|came|went|began|heard|saw|found|told|asked|said)\b|"
    r"(?:(?:my|our|the|his|her|their)\s+(?:[a-z]+\s+){0,2}?|(?:I|we|he|she|they|it)\s+)(?:just\s+)?"
    r"(?:[a-z]{2,}ed|came|went|got|left|began|broke|fell|took|gave|ran|made|sold|paid|grew|flew|won|lost)\b"
    r"(?!\s+(?:to|into)\s+(?:be|do|go|have)\b))",
    re.IGNORECASE,
)
#: "provided" as a verb: "the data I provided", "provided by the host", "was provided to us".
_PROVIDED_VERB_BEFORE: Final = re.compile(
    r"\b(?:I|we|you|they|he|she|it|was|were|is|are|been|be|being|has|have|had|who|which|that)\s*$", re.IGNORECASE
)
_PROVIDED_VERB_AFTER: Final = re.compile(
    r"\s+(?:by|to|for|with|in|on|as|below|above|here|free|at|from)\b", re.IGNORECASE
)
#: A condition clause ends at punctuation, "then"/"so", a dash, or an inverted auxiliary that opens the main
#: clause ("Only if the beta goes well | will we launch").
_CLAUSE_END: Final = re.compile(
    r"[,;:!?]|\.(?:\s|$)|\s(?:then|so)\s|\s[-\u2013\u2014]+\s|\n|"
    r"\s(?=(?:will|shall|would|may|can|must|should|do|does)\s+(?:we|I|you|they)\b)",
    re.IGNORECASE,
)
#: In a message written all in lower case, without a comma, the main clause's first-person subject ends the
#: condition: "whenever i visit my dad in galway | we go to the same chipper". The condition's own first word
#: is never taken for it.
_MAIN_SUBJECT: Final = re.compile(
    r"(?<!\band)(?<!\bor)(?<!\bthan)(?<!\bthat)(?<!\bas)(?<!\bwhat)(?<!\bwho)(?<!\bwhere)(?<!\bbefore)"
    r"(?<!\bafter)(?<!\buntil)(?<!\bonce)(?<!\bsaid)(?<!\bknow)(?<!\bthink)(?<!\bif)(?<!&)"
    r"\s(?=(?:i|we)(?:'|\s+(?!(?:and|or|both|all|get|got|have|had|are|am|was|were|'re|'m)\b)[a-z]))",
    re.IGNORECASE
)
_OPEN_WORD: Final = re.compile(r"\s*(?:that\s+)?\S+")


#: "I love podcasts, especially when I'm driving": the claim holds anyway, the clause only says when most.
_EMPHASIS_BEFORE: Final = re.compile(
    r"\b(?:especially|particularly|specially|esp\.?|above\s+all|most\s+of\s+all|even\s+more|more\s+so)\s*$",
    re.IGNORECASE,
)


#: "I'm 34, if that matters", "if it helps": an aside about why the speaker says it, not a condition on it.
_ASIDE_IF: Final = re.compile(
    r"\s+(?:that|it|this)\s+(?:matters|helps|is\s+relevant|'s\s+relevant|makes\s+a\s+difference|is\s+useful|"
    r"'s\s+useful|changes\s+anything)\b|\s+(?:relevant|useful|needed|you\s+need\s+to\s+know|you\s+were\s+wondering|"
    r"you\s+must\s+know|anyone\s+asks|you're\s+curious|you\s+care)\b",
    re.IGNORECASE,
)


def _condition_marker_ok(text: str, m: re.Match[str]) -> bool:
    word = m.group().lower()
    before = text[max(0, m.start() - 40) : m.start()]
    if word == "if" and _ASIDE_IF.match(text, m.end()) is not None:
        return False
    if word in ("if", "when", "whenever") and _EMPHASIS_BEFORE.search(before) is not None:
        return False
    if word == "if":
        # Only a bare "if" can open an indirect question ("see if ..."); "ask only if", "know unless" are
        # conditions ("only if" is a marker of its own, so "commonly if" is a bare "if").
        return _NOT_A_CONDITION_BEFORE.search(before) is None
    if word in ("when", "whenever"):
        if word == "when" and _NOT_A_WHEN_BEFORE.search(before) is not None:
            return False
        return _NOT_A_WHEN_AFTER.match(text, m.end()) is None
    if word == "provided":
        return _PROVIDED_VERB_BEFORE.search(before) is None and _PROVIDED_VERB_AFTER.match(text, m.end()) is None
    return True


def find_conditions(text: str) -> list[tuple[int, int]]:
    """Explicit condition clauses in ``text``: (start, end) from the marker word to the end of its clause.

    Markers: if, only if, unless, provided (that), providing that, as long as, when, whenever and in case. A
    "when" that asks ("no idea when"), relates ("back when", "the day when"), dates ("when I was a kid") or
    names a circumstance with a gerund ("when discussing incidents") is none, and neither is "provided" used
    as a verb ("the data I provided").
    """
    out: list[tuple[int, int]] = []
    casual = text.islower()  # all lower case: commas are often missing too
    for m in _CONDITION_MARKER.finditer(text):
        if not _condition_marker_ok(text, m):
            continue
        end_m = _CLAUSE_END.search(text, m.end())
        end = end_m.start() if end_m else len(text)
        if casual:
            first = _OPEN_WORD.match(text, m.end())
            subj_m = _MAIN_SUBJECT.search(text, first.end() if first else m.end(), end)
            if subj_m is not None:
                end = subj_m.start()
        while end > m.end() and text[end - 1].isspace():
            end -= 1
        if end > m.end():
            out.append((m.start(), end))
    return out


def has_condition(text: str) -> bool:
    return bool(find_conditions(text))


_POLITE: Final = re.compile(
    r"\b(?:could|can|would|will|might)\s+you\b|\bmay\s+I\b|\bif\s+you\s+(?:could|can|would|might)\b|"
    r"\byou\s+(?:could|might|may)(?:\s+please)?(?:\s+also)?\s+"
    r"(?:help|suggest|recommend|explain|show|tell|give|provide|brainstorm)\b",
    re.IGNORECASE,
)
#: Hedges; "may" only in lower case: "May" is a name or a month.
_HEDGE: Final = re.compile(
    r"(?i:\b(?:might|could(?!n't|\s+not)|possibly|perhaps|maybe|probably|considering|weighing|(?:un)?likely|"
    r"thinking\s+(?:about|of)|leaning\s+(?:towards?|toward)|not\s+(?:sure|certain)|unsure)\b|"
    r"\bI\s+(?:think|guess|suppose|reckon|suspect|doubt)\b)|"
    # lower-case "may" is a hedge, except the month: "may 4th", "in may", "since may"
    r"(?<!\bin\s)(?<!\bof\s)(?<!\bsince\s)(?<!\buntil\s)(?<!\blast\s)(?<!\bnext\s)(?<!\bthis\s)(?<!\bearly\s)"
    r"(?<!\bmid\s)(?<!\blate\s)\bmay\b(?!\s+\d)"
)


#: "maybe 10 a day", "probably twice a week", "could eat it every day": an estimate of how much or an
#: enthusiast's hyperbole, not a hedge on the claim.
_NOT_A_HEDGE: Final = re.compile(
    r"\b(?:maybe|probably|possibly)\s+(?:like\s+|about\s+|around\s+)?(?:\d+|once|twice|a\s+(?:few|couple)|one|two|"
    r"three|four|five|ten)\b(?:\s*(?:-|to|or)\s*\d+)?(?=\s+(?:a|an|per|every|times?|days?|weeks?|months?|years?|"
    r"hours?|mins?|minutes?|cups?|drinks?|cigarettes?|pints?|glasses?)\b)|"
    r"\bcould\s+(?:eat|drink|watch|listen\s+to|live\s+on|play)\s+(?:it|them|that|this)\s+(?:every\s+(?:single\s+)?"
    r"(?:day|night|meal)|all\s+day|forever|for\s+days|on\s+repeat)\b",
    re.IGNORECASE,
)


def is_uncertain(text: str) -> bool:
    """Hedged wording after removing polite requests ("could you", "may I", ...) and estimates ("maybe 10
    a day")."""
    if _HEDGE.search(text) is None:
        return False
    return _HEDGE.search(_NOT_A_HEDGE.sub(" ", _POLITE.sub(" ", text))) is not None


CHOICE_VERB: Final = re.compile(
    r"\b(?:decid\w*|chose|chosen|select|selected|selects|opt|opted|opts|opting|agree|agreed|agrees|commit|committed|"
    r"commits|reject|rejected|rejects)\b",
    re.IGNORECASE,
)

# --- speech acts (PRME-FACTS §8.8) --------------------------------------------


class SpeechActForm(NamedTuple):
    """One form of a speech-act cue verb, the cue it gives, and where it opens a speech-act clause."""

    verb: str  #: the cue verb ("try" for "tried")
    form: str
    cue: str  #: the predicate prefix that keeps the act: "planning to use X" -> ``plans_to_use``
    constructions: frozenset[str]


def _form(verb: str, form: str, cue: str, constructions: str) -> SpeechActForm:
    return SpeechActForm(verb, form, cue, frozenset(constructions.split()))


#: The speech-act cue words, the one list of them: the clause pattern ``SPEECH_ACT``, the predicate stems,
#: the cue of a recovered clause (``speech_act_cue``) and the rule extractor's clause parser all read it.
#: A form opens a clause in the constructions named on its row:
#:   ``be``     after a form of "be"          "I'm trying to ...", "we're planning to ..."
#:   ``have``   after "have"                  "I've tried to ..."
#:   ``bare``   right after the subject       "I tried to ...", "we need to ..."
#:   ``would``  after "would"                 "I'd love to ...": a wish, ``wants_to``
#:   ``rule``   after any subject and auxiliaries, in the rule extractor's parser ("she's hoping to ...")
#: The row order is the order of the alternatives in ``SPEECH_ACT``.
SPEECH_ACT_FORMS: Final = (
    _form("try", "try", "tries_to", "bare rule"),
    _form("try", "tries", "tries_to", "rule"),
    _form("try", "tried", "tried_to", "have bare rule"),
    _form("try", "trying", "trying_to", "be rule"),
    _form("attempt", "attempt", "attempts_to", "bare rule"),
    _form("attempt", "attempts", "attempts_to", "rule"),
    _form("attempt", "attempted", "attempted_to", "have bare rule"),
    _form("attempt", "attempting", "attempting_to", "be rule"),
    _form("want", "want", "wants_to", "bare rule"),
    _form("want", "wants", "wants_to", "rule"),
    _form("want", "wanted", "wants_to", "bare rule"),
    _form("want", "wanna", "wants_to", "rule"),
    _form("need", "need", "needs_to", "bare rule"),
    _form("need", "needs", "needs_to", "rule"),
    _form("need", "needed", "needs_to", "bare rule"),
    _form("plan", "plan", "plans_to", "bare rule"),
    _form("plan", "plans", "plans_to", "rule"),
    _form("plan", "planned", "plans_to", "have bare rule"),
    _form("plan", "planning", "plans_to", "be rule"),
    _form("intend", "intend", "intends_to", "bare rule"),
    _form("intend", "intends", "intends_to", "rule"),
    _form("intend", "intended", "intends_to", "bare rule"),
    _form("intend", "intending", "intends_to", "rule"),
    _form("hope", "hope", "hopes_to", "bare rule"),
    _form("hope", "hopes", "hopes_to", "rule"),
    _form("hope", "hoped", "hopes_to", "have bare rule"),
    _form("hope", "hoping", "hopes_to", "be rule"),
    _form("aim", "aim", "aims_to", "bare rule"),
    _form("aim", "aims", "aims_to", "rule"),
    _form("aim", "aimed", "aims_to", "have bare rule"),
    _form("aim", "aiming", "aims_to", "be rule"),
    _form("look", "look", "looking_to", "bare rule"),
    _form("look", "looks", "looking_to", "rule"),
    _form("look", "looked", "looking_to", "bare rule"),
    _form("look", "looking", "looking_to", "be rule"),
    _form("work", "work", "working_to", "bare"),
    _form("work", "worked", "working_to", "bare"),
    _form("work", "working", "working_to", "be rule"),
    _form("like", "like", "wants_to", "would"),
    _form("love", "love", "wants_to", "would"),
)


def speech_act_forms(construction: str) -> tuple[str, ...]:
    """The forms that open a speech-act clause in ``construction`` (a tag of ``SPEECH_ACT_FORMS``), in row order."""
    return tuple(f.form for f in SPEECH_ACT_FORMS if construction in f.constructions)


def _alternatives(construction: str) -> str:
    return "|".join(speech_act_forms(construction))


#: First-person clause describing an action not yet done (PRME-FACTS §8.8).
SPEECH_ACT: Final = re.compile(
    r"(?<!\w)(?P<subj>I|we)(?:\s+(?:really|also|just|still|actually|definitely|desperately|originally|"
    r"initially|now|ultimately|eventually|first))?"
    r"(?:\s+(?:do not|don't|dont|did not|didn't|never|no longer|not))?"
    r"(?P<cue>(?:\s*'m|\s*'re|\s+am|\s+are)(?:\s+not)?(?:\s+(?:really|still|just|also|now|actually))?"
    r"\s+(?:" + _alternatives("be") + r")"
    r"|(?:\s*'ve|\s+have)\s+(?:" + _alternatives("have") + r")"
    r"|(?:\s*'d|\s+would)(?:\s+really)?\s+(?:" + _alternatives("would") + r")"
    r"|\s+(?:" + _alternatives("bare") + r"))"
    r"\s+to\s+(?P<body>[^!?;\n]{1,400}?)(?=[!?;\n]|\.(?:\s|$)|,\s*(?:but|and|so|although|though|however)\b|\s(?:because|since|whereas)\s|$)",
    re.IGNORECASE,
)
_CUE_OF_FORM: Final = {f.form: f.cue for f in SPEECH_ACT_FORMS}


def speech_act_cue(verb_phrase: str) -> str | None:
    """The cue of a ``SPEECH_ACT`` match's ``cue`` group ("'ve tried" -> ``tried_to``), from its last word."""
    words = verb_phrase.split()
    return _CUE_OF_FORM.get(words[-1].lower()) if words else None


def _cue_stems() -> tuple[str, ...]:
    """Each cue verb, plus the cues that do not spell their verb (``tries_to``, ``tried_to``, not "try")."""
    verbs = tuple(dict.fromkeys(f.verb for f in SPEECH_ACT_FORMS if f.constructions != {"would"}))
    spelled_apart = (f.cue.removesuffix("_to") for f in SPEECH_ACT_FORMS if not any(v in f.cue for v in verbs))
    return verbs + tuple(dict.fromkeys(spelled_apart))


#: Predicate stems of acts not (yet) done: a predicate containing one never claims the action happened.
#: The cue verbs' stems come from ``SPEECH_ACT_FORMS``; the rest name requests, proposals and
#: deliberation ("proposes_to_", "evaluating_"), which open no speech-act clause of their own.
SPEECH_ACT_STEMS: Final = (*_cue_stems(), "seek", "request", "ask", "propos", "consider", "evaluat", "explor")

# --- acknowledgements and questions -----------------------------------------

#: An assistant acknowledgement that opens a restatement of what the user said ("Noted — you're ...",
#: "Just to confirm, you don't eat pork"). Shared by the rule extractor and the role check.
ASSISTANT_ACK: Final = (
    r"(?:noted|understood|got it|gotcha|okay|ok|right|thanks|perfect|just to confirm|to confirm|so|sure|great|"
    r"alright|all right|good to know|thanks for letting me know|makes sense|duly noted|ah|oh)"
    r"(?:\s+that)?\s*[.,:!;\u2014\u2013-]*\s+(?:so,?\s+)?"
)
#: A firm acknowledgement, then a colon, comma or dash, then a fact about a third party the user just gave
#: ("Got it, the herd is now mostly Jerseys", "Noted: the warehouse closes at 6pm"). Generic advice and
#: explanations ("Noted: generally, pruning is best ...", "... the ferry is usually faster") are excluded
#: by their wording anywhere in the sentence.
ACK_THIRD_PARTY: Final = (
    r"(?:noted|duly noted|understood|got it|gotcha|okay|ok|good to know|thanks for letting me know|"
    r"just to confirm|to confirm|all right|alright)\s*[,:\u2014\u2013-]\s*(?:so,?\s+)?"
    r"(?=(?:the|your|our)\s+[\w-]+|(?-i:[A-Z][a-z]+)\s+(?-i:[a-z]))"
    r"(?![^.!?]*\b(?:usually|generally|typically|normally|often|tends?\s+to|best|most\s+people|many\s+people|"
    r"should|could|might|may|can|would|recommend|suggest|worth)\b)"
)
#: "you're"/"you are" after an acknowledgement restates the user, except stock phrases ("you're welcome").
ACK_YOU_ARE: Final = (
    r"you(?:'re|\s+are)\s+(?!(?:welcome|right|correct|wrong|kidding|going\s+to|able|free|all\s+set|in\s+good\s+hands|"
    r"not\s+alone|absolutely|totally|so|very|too)\b)"
)

_QUESTION_START: Final = re.compile(
    r"^(?:(?:hey|hi|ok|okay|so|and|but|also|btw|quick question)[,:]?\s+)*(?:"
    r"(?:who|what|where|why|how|which|whose)\b(?!\s+(?:I|we)\s+(?:love|like|hate|need|want)\b)"
    # "when" opens a question only before an inverted auxiliary: "When I travel, I ..." is a condition
    r"|when\s+(?:do|does|did|is|are|was|were|will|would|can|could|should|shall|am|has|have)\b"
    r"|(?:do|does|did|is|are|was|were|can|could|would|will|should|shall|may|have|has|am|isn't|aren't|"
    r"don't|doesn't|won't|wouldn't|shouldn't|can't)\s+(?:you|i|we|they|he|she|it|there|this|that|these|"
    r"those|anyone|someone|somebody|u|my|your|our)\b)",
    re.IGNORECASE,
)


#: A statement closed by a tag that asks for agreement, not for information: "grafana moved to 3300, ok?",
#: "i moved in march, right?", "die plz ist 10437, oder?", "c'est réglé, non ?". What it says is stated.
_AGREEMENT_TAG: Final = re.compile(
    r",\s*(?:ok|okay|k|right|yeah|yes|correct|innit|isn'?t\s+it|you\s+know|eh|ja|oder|gell|nicht\s+wahr|non|"
    r"hein|n'est-ce\s+pas|verdad|vale|no|vero|giusto|s[iì])\s*\?+[\s!?.)]*$",
    re.IGNORECASE,
)


def is_question(sentence: str) -> bool:
    s = sentence.rstrip()
    if _QUESTION_START.search(s) is not None:
        return True
    return s.endswith("?") and _AGREEMENT_TAG.search(s) is None
