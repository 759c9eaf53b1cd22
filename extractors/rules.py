"""Deterministic rule-based extractor: English chat statements -> claims, no model.

Every proposal goes through :mod:`extractors.validation`, so the rules can be
generous and the validator keeps them honest; rejected proposals are reported.

Conventions (the engine matches claims on normalised subject + predicate +
object, so the same fact phrased twice must give the same triple):

Subjects
  - owner roles (user, human): "I", "we", "me" -> ``"user"`` (whatever the
    speaker field says; a named subject equal to the speaker is also "user");
  - participant: first person -> the speaker's name, else ``"participant"``;
  - named third parties keep their name as written ("Alice", "May");
    "my sister" -> ``"user's sister"``; he/she/they are never resolved (no claim);
  - assistant commitments and completed actions -> ``"assistant"``; facts the
    assistant attributes to the user ("you told me you live in Berlin") -> "user";
  - instructions -> subject ``"assistant"``, predicate ``"should"``, object the
    instructed action ("answer in French"); "never"/"don't" give negative polarity;
  - tool results -> the tool's speaker name, ``metadata["tool_name"]``, else "tool".

Predicates (snake_case, synonyms folded)
  lives_in (live/reside/based in/moved to), works_at (work at|for, employed
  at|by, joined, left), works_as, likes (love/like/enjoy/adore/fan of/into;
  hate/dislike/detest/can't stand are ``likes`` with NEGATIVE polarity, so
  "I love tea" / "I hate tea" contradict), prefers (object = preferred thing,
  ``metadata["over"]`` = the other), uses (use/using/rely on/switched to/
  replaced X with), has (have/own/'ve got), speaks, allergic_to, is_from,
  born_in, studies, studies_at, eats, drinks, plays, drives, is_a, is, age,
  married_to, and ``<attribute>`` for "my <attribute> is <value>"
  (favourite -> favorite, colour -> color). Decisions (DECISION nodes, explicit
  choice verbs only): ``chose`` (chose/selected/opted for/decided on|to use/go
  with; rejected/decided against -> negative) and ``decided_to_<verb>``. Tasks
  (TASK nodes): ``needs_to_<verb>`` (need to/have to/must/remind me to),
  ``will_<verb>`` (first-person future; a third party's "will" is a FACT about that party, and the
  assistant's "I'll <any action verb> <object>" is its commitment). Speech acts keep their cue:
  ``trying_to_<verb>``, ``plans_to_<verb>``, ``wants_to_<verb>``, ... and
  never become ``uses``/``runs``.

Epistemic defaults
  settled user/participant statements are ASSERTED; the speaker's own
  attempts, plans, wants and needs (speech-act predicates) are OBSERVED, as
  PRME's speech-act recovery types them (§8.8); instructions follow the role
  table (user -> OBSERVED, system -> INFERRED); tool results ASSERTED;
  everything from the assistant INFERRED. Hedges -> HYPOTHETICAL, explicit
  conditions -> CONDITIONAL with the condition text from the marker word to the
  end of its clause. OBSERVED is not used for plain statements: a chat message
  is testimony, not a measurement. might/may/could (and a non-system "should") + any
  bare verb is a hypothetical clause even when the verb is outside the generic whitelist.

Temporal intent: ``update`` for now/no longer/anymore/recently/moved/switched/
joined/left/started/stopped/replaced (with ``replaces_object`` when the old
value is named; a negative update names its own object), else ``assertion``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Final

from extractors.text import (
    ACK_THIRD_PARTY,
    ACK_YOU_ARE,
    APOSTROPHES,
    ASSISTANT_ACK,
    QUALIFIER_START,
    SPEECH_ACT_FORMS,
)
from extractors.validation import (
    DEFAULT_GROUNDING_METHOD,
    GROUNDING_POLICY_VERSION,
    POINTER_WORDS,
    SourceText,
    validate_with_context,
)
from schemas.canonical import sha256_hex
from schemas.claims import Claim, EventRef, ExtractionResult, Quantity
from schemas.enums import EpistemicType, NodeType, Polarity, Role, SourceType, TemporalIntent
from schemas.events import ConversationEvent
from schemas.roles import default_epistemic_type

EXTRACTOR_VERSION: Final = "1.0.0"
I: Final = re.IGNORECASE  # noqa: E741 - reads like a regex flag


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())

# --- pre-processing: things that are not the speaker's own statements ------------

_PASTED: Final = re.compile(
    r"```[\s\S]*?(?:```|\Z)|`[^`\n]+`|\"[^\"\n]{1,400}\"|^[ \t]*>.*$", re.MULTILINE
)
_NEEDS_TRANSLATE: Final = re.compile("[\u2018\u2019\u201b\u2032\u201c\u201d\u201e]")
_MAY_BE_PASTED: Final = re.compile(r"[`\"]|^[ \t]*>", re.MULTILINE)
_EXAMPLE_START: Final = re.compile(
    r"^\s*(?:e\.g\.|eg\b|i\.e\.|for example|for instance|example|such as|like this|something like)", I
)
_INDIRECT_Q: Final = re.compile(
    r"\b(?:wonder(?:ing|ed)?|curious|not sure|unsure)\s+(?:if|whether|what|how|why|where|when|who|which)\b", I
)

# --- clause openers -----------------------------------------------------------------

_DISCOURSE: Final = re.compile(
    r"^(?:(?:well|so|also|actually|honestly|btw|by the way|oh|and|but|anyway|plus|fyi|ok|okay|yeah|yes|"
    r"no(?!\s+(?:more|longer)\b)|nope|nah|"
    r"sure|then|just so you know|for the record|fun fact|to be honest|tbh|however|though|whereas|although|while|"
    r"(?:please\s+)?(?:remember|note|keep in mind)(?:\s+that)?|"
    r"(?P<now>now|these days|nowadays|currently|recently|lately))\b[,:]?\s*)+",
    I,
)
_HEDGE_PREFIX: Final = re.compile(
    r"^(?:(?:maybe|perhaps|probably|possibly|(?:most\s+)?likely)\b,?\s*|"
    r"I\s+(?:think|guess|suppose|believe|reckon|suspect)(?:\s+that)?\s+|"
    r"it(?:'s|\s+is)\s+(?:possible|likely|probable)\s+(?:that\s+)?|chances\s+are(?:\s+that)?\s+|"
    r"it\s+(?:might|could|may)\s+(?:well\s+)?be\s+that\s+|"
    r"(?:I'm|I am)?\s*not\s+sure\s+(?:if|whether|that)?\s*|"
    r"I\s+(?:(?P<neg>don't|do not)\s+think|(?P<doubt>doubt))(?:\s+(?:that|whether|if))?\s+)",
    I,
)
_INSTRUCTION: Final = re.compile(
    r"^(?:please\s+)?(?:"
    r"(?P<pos>always|from now on,?|going forward,?|in (?:the )?future,?|make sure (?:to|you)|be sure to|only|"
    r"(?:I\s+(?:really\s+)?(?:want|need|expect|would like|'d like)\s+you\s+to\s+always))"
    r"|(?P<neg>never|don't|do not|dont|avoid|(?:I\s+(?:don't|do not)\s+want\s+you\s+to)|"
    r"(?:under\s+no\s+circumstances|at\s+no\s+(?:point|time)|in\s+no\s+case)(?:\s+(?:should|may|must|can|will|"
    r"are)\s+you(?:\s+to)?)?,?|"
    r"(?:I\s+(?:want|need|would like|'d like)\s+you\s+to\s+never)))"
    r"\s+(?P<body>.+)$",
    I,
)
_PERSISTENT_TAIL: Final = re.compile(
    r"^(?:please\s+)?(?P<body>.+?),?\s+(?:from now on|going forward|in (?:the )?future|every time|at all times)$", I
)
#: A leading vocative before an instruction word ("Nia, always copy me ...").
_VOCATIVE: Final = re.compile(
    r"^(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?),\s+(?=(?:please\s+)?(?:always|never|don't|do not|from now on|"
    r"going forward|make sure|be sure|avoid|only)\b)",
    I,
)
#: "Please keep replies short", "Keep the summaries under 200 words, please": a standing style instruction.
_STYLE_VERB: Final = (
    r"(?:keep|answer|reply|respond|write|format|address|call me|limit|stick to|speak|cite|use)\b"
    r"(?!\s+(?:that|this|it|those|these)\s+in\s+mind)"
)
_POLITE_STYLE: Final = re.compile(
    rf"^(?P<b>{_STYLE_VERB}[^,]*?),?\s+please[.!]*$|^please\s+(?P<b2>{_STYLE_VERB}.*)$",
    I,
)
_INSTRUCTION_SKIP: Final = re.compile(
    r"^(?:worry|mind|forget|hesitate|be afraid|apologi[sz]e|bother|sweat|panic|get me wrong|been|had|seen|done|"
    r"gone|tried|heard|met|liked|used)\b",
    I,
)
_IMPERATIVE: Final = re.compile(
    r"^(?:answer|respond|reply|write|use|keep|be|act|speak|format|include|cite|refuse|decline|address|greet|"
    r"provide|follow|limit|stay|treat|prefer|call|send|remind|summari[sz]e|translate|explain|show|list|avoid|"
    r"refer|escalate|forward|direct|mention|notify|tell|suggest|offer|share|ask|redirect|recommend|add|log)\b",
    I,
)

_SUBJ_STOP: Final = _words(
    """it this that there here he she they you what which who whom today tomorrow yesterday everyone everything
    nothing something anything
    reminder note context session tool memory user conversation request step
    everybody nobody someone somebody thanks thank hi hello hey sure yes no ok okay please also but and
    so well maybe perhaps the a an my our your his her their its if when because since just let can
    could would should do does did is are was were has have had not never always now then some most
    all every many any how why where great good nice cool awesome sorry wow oh anyway honestly actually
    basically monday tuesday wednesday thursday friday saturday sunday january february march
    july september october november december both each neither either none such other another one
    two three i'm i've i'll i'd sounds looks seems got"""
)
_NAME: Final = r"(?-i:[A-Z][a-z][A-Za-z'-]*(?:\s+[A-Z][a-z][A-Za-z'-]*)?)"
_RELATION: Final = (
    r"(?:wife|husband|partner|girlfriend|boyfriend|brother|sister|mom|mum|mother|dad|father|son|daughter|"
    r"kids?|children|boss|manager|friend|best friend|roommate|colleague|team|company|family|cat|dog)"
)

# --- auxiliaries ----------------------------------------------------------------------

_AUX: Final = re.compile(
    r"\s*(?P<a>'m not|'m|'re|'s|'ve|be|'ll|'d|n't|am|is|are|was|were|been|being|do|does|did|"
    r"will|shall|would|should|can|could|may|might|must|not|never|no longer|also|still|really|actually|"
    r"currently|now|just|only|usually|generally|mostly|totally|absolutely|definitely|certainly|truly|"
    r"honestly|already|recently|finally|officially|even|always|probably|maybe|perhaps|possibly|sometimes|"
    r"often|basically|mainly|primarily|exclusively|seriously|literally|kind of|sort of|pretty much|(?:most\s+)?likely|"
    r"don't|dont|doesn't|doesnt|didn't|didnt|won't|wont|cant|isn't|aren't|wasn't|weren't|"
    r"wouldn't|shouldn't|couldn't|haven't|hasn't|ain't|"
    r"(?:can't|cannot|can not)(?!\s+(?:stand|bear)\b)|"
    r"(?:have|has|had)(?=\s+(?:been|got|gotten|just|already|never|always|not|recently|finally|officially|also|"
    r"still|now|[a-z]+ed|chosen|spoken|made|left|quit|done|gone|run|begun|become|known|eaten|drunk|written|"
    r"driven|grown|taken|given)\b))(?=\s|$)",
    I,
)
_NEG_AUX: Final = frozenset({"'m not"}) | _words(
    """n't not never don't dont doesn't doesnt didn't didnt won't wont can't cant cannot isn't aren't
    wasn't weren't wouldn't shouldn't couldn't haven't hasn't ain't"""
) | {"no longer"}
_HEDGE_AUX: Final = frozenset(
    {"might", "may", "could", "would", "'d", "probably", "maybe", "perhaps", "possibly", "likely", "most likely"}
)
_BE_AUX: Final = frozenset(
    {"be", "'m", "'m not", "'re", "'s", "am", "is", "are", "was", "were", "been", "being", "isn't", "aren't", "ain't"}
    | {"wasn't", "weren't"}
)
_MODAL_AUX: Final = frozenset({"might", "may", "could"})
_PAST_AUX: Final = frozenset({"was", "were", "did", "didn't", "didnt", "had", "wasn't", "weren't"})
_FUTURE_AUX: Final = frozenset({"will", "'ll", "shall", "won't", "wont"})
_PERFECT_AUX: Final = frozenset({"have", "has", "'ve", "haven't", "hasn't"})
_UPDATE_AUX: Final = frozenset({"now", "no longer", "recently", "finally", "officially"})


@dataclass
class _Flags:
    neg: bool = False
    hedge: bool = False
    be: bool = False
    past: bool = False
    future: bool = False
    perfect: bool = False
    would: bool = False
    must: bool = False
    update: bool = False
    got: bool = False
    aux: bool = False
    modal: bool = False  # might/may/could: the next word is a verb, whatever it is
    should: bool = False


def _consume_aux(rest: str) -> tuple[str, _Flags]:
    f = _Flags()
    pos = 0
    while True:
        m = _AUX.match(rest, pos)
        if m is None:
            break
        a = m.group("a").lower()
        if a == "be" and not (f.modal or f.should or f.must):
            break  # "I'll be in Paris" stays a future; only "might/could/should be X" is a hedged copula
        if a in _NEG_AUX:
            f.neg = not f.neg
        if a in ("never", "no longer"):
            f.neg = True
        if a in _HEDGE_AUX:
            f.hedge = True
        if a in ("would", "'d"):
            f.would = True
        if a in _MODAL_AUX:
            f.modal = True
        if a == "should":
            f.should = True
        if a in _BE_AUX:
            f.be = True
        if a in _PAST_AUX:
            f.past = True
        if a in _FUTURE_AUX:
            f.future = True
        if a in _PERFECT_AUX or a.startswith(("have", "has")):
            f.perfect = True
        if a == "must":
            f.must = True
        if a in _UPDATE_AUX:
            f.update = True
        if a == "'ve got":
            f.got = True
        if a == "been":
            f.past = False
        f.aux = True
        pos = m.end()
    return rest[pos:].lstrip(), f


# --- objects ----------------------------------------------------------------------------

_OBJ_CUT: Final = re.compile(
    r"\s{2,}|[,;()\[\]!?\"]|:(?!\d)|(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bSt)(?<!\bProf)\.(?:\s|$)|"
    r"\s[-\u2013\u2014]+\s|\s(?:because|since|so that|so|which|who|whom|where|"
    r"when|whenever|but|although|though|while|whereas|if|unless|provided|as long as|only if|except|until|till|"
    r"before|after|then|with|for|in|at|on|from|during|via|instead of|rather than|over|than|now|nowadays|"
    r"these days|anymore|any more|at the moment|right now|currently|too|as well|a lot|so much|very much|"
    r"really|lately|recently|again|every|each|tomorrow|today|tonight|yesterday|next|last|this|by|around|almost|"
    r"and|either|anyway|though|honestly|to be honest|as|yet|along|later|someday|soon|together|fluently|remotely|per|"
    r"once)\b|"
    r"\.$",
    I,
)
_DET: Final = re.compile(r"^(?:(?P<no>no)|the|a|an|my|our|your|his|her|their|its|some|any|this|that|these|those)\s+", I)
_DEMONSTRATIVES: Final = frozenset({"this", "that", "these", "those"})
_LEAD_PREP: Final = re.compile(r"^(?:to|into|in|at|on|for|with|from|about)\s+", I)
_BAD_OBJECT: Final = _words(
    """you me it them him her us this that these those something anything everything nothing one some thing
    things stuff lot bit there here what which who whom whether if how why where when way time mine
    yours ours so none all"""
)
_DUE: Final = re.compile(
    r"\s(?P<due>(?:by|before|until|till|on|next|this|tomorrow|today|tonight|later|soon|asap|at|in)\b.*)$", I
)
_LIST_SPLIT: Final = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+", I)
_NUMBER: Final = re.compile(r"^(?P<n>[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[+-]?\d+(?:\.\d+)?)(?:\s*(?P<u>[A-Za-z%]+))?")


def _clean_object(text: str, *, keep_lists: bool = False) -> tuple[str | None, bool]:
    """Trim a raw object phrase to its head noun phrase; returns (object, negated_by_'no')."""
    t = text.strip()
    t = _LEAD_PREP.sub("", t, count=1)
    negated = False
    m = _DET.match(t)
    if m:
        negated = m.group("no") is not None
        t = t[m.end() :]
        if m.group().split()[0].lower() in _DEMONSTRATIVES and _OBJ_CUT.match(" " + t):
            return None, negated  # "using this for years": the demonstrative was the whole object
    first = t.split(" ", 1)[0].lower()
    if first.endswith("ing") and _VERB_FORM.get(first, ("", ""))[1] == "ing":
        # a gerund phrase keeps its own complement ("driving on motorways"), up to the clause end
        end = _CLAUSE_LEVEL_END.search(t)
        g = (t[: end.start()] if end else t).strip().rstrip(".!?,;:'\"").strip()
        if g and len(g.split()) <= 6:
            return g, negated
    cut = _OBJ_CUT.search(" " + t if keep_lists else t)
    if keep_lists:
        cut = _OBJ_CUT.search(t)
        if cut is not None and cut.group().strip() in (",",):
            cut = None
    if cut is not None:
        head = t[: cut.start()]
        pp = _EMPLOYER_PP.match(t, cut.start())
        if pp is not None and head.split() and head.split()[-1].lower() in _KEEP_PP_HEAD:
            # "job at Figma", "offer from Stripe": the organisation is the point of the object
            nxt = _OBJ_CUT.search(t, pp.end())
            t = t[: nxt.start()] if nxt else t
        else:
            t = head
    t = t.strip().rstrip(".!?,;:'\"")
    t = t.strip()
    if not t or t.lower() in _BAD_OBJECT or len(t) > 80 or len(t.split()) > 6:
        return None, negated
    if t.split()[0].lower() in _BAD_OBJECT and len(t.split()) == 1:
        return None, negated
    return t, negated


_EMPLOYER_PP: Final = re.compile(r"\s(?:at|from|with)\s+(?-i:[A-Z])\S*")
_CLAUSE_LEVEL_END: Final = re.compile(
    r"[;()!?\",]|:(?!\d)|\.(?:\s|$)|\s[-\u2013\u2014]+\s|\s(?:because|since|but|although|though|while|whereas|"
    r"if|unless|provided|as long as|only if|when|which|who|so|and|or|especially|except|instead of|rather than)\b",
    I,
)


def _object_list(text: str) -> list[tuple[str, bool]]:
    """Split "tea, coffee and juice" into items (each cleaned)."""
    raw = text.strip()
    end = re.search(
        r"[;()!?\"]|:(?!\d)|\.(?:\s|$)|\s[-\u2013\u2014]+\s|\s(?:because|since|but|although|though|while|whereas|"
        r"if|unless|provided|as long as|only if|when|which|who|so|especially|except)\b|"
        r",\s+(?=(?:it|that|this|i|we|so|which|they|he|she|you|but|though)\b)",
        raw,
        I,
    )
    if end is not None:
        raw = raw[: end.start()]
    out: list[tuple[str, bool]] = []
    for part in _LIST_SPLIT.split(raw):
        obj, neg = _clean_object(part)
        if obj is not None:
            out.append((obj, neg))
    return out


def _snake(*words: str) -> str:
    text = "_".join(w for w in words if w)
    text = _NON_ALNUM.sub("_", text.lower()).strip("_")
    return text.replace("favourite", "favorite").replace("colour", "color")


# --- proto claims ---------------------------------------------------------------------


@dataclass
class _Proto:
    subject: str
    predicate: str
    object: str | None
    node_type: NodeType = NodeType.FACT
    negative: bool = False
    hedge: bool = False
    update: bool = False
    replaces: str | None = None
    quantity: Quantity | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    epistemic: EpistemicType | None = None
    speech_act: bool = False


@dataclass(frozen=True)
class _Mode:
    role: Role
    first_person: str  # subject for I/we (or "you" in attribution mode)
    attribution: bool = False  # "you" is the first person (assistant restating the user)
    speaker: str | None = None


#: A "want" needs no "to" ("wanna go", "want pizza").
_TO_OPTIONAL: Final = frozenset({"wants_to"})


def _cue_pattern() -> re.Pattern[str]:
    forms: dict[str, list[str]] = {}
    for f in SPEECH_ACT_FORMS:
        if "rule" in f.constructions:
            forms.setdefault(f.cue, []).append(f.form)
    alternatives = []
    for cue, words in forms.items():
        to = r"(?:to\s+)?" if cue in _TO_OPTIONAL else r"to\s+"
        alternatives.append(f"(?P<{cue}>^(?:{'|'.join(words)})\\s+{to})")
    return re.compile("|".join(alternatives), I)


#: Predicates that keep a speech act: "<cue form> to <action>" -> ``<cue>_<action>`` ("planning to use X" ->
#: ``plans_to_use``), for the forms ``extractors.text.SPEECH_ACT_FORMS`` gives the rule parser; one
#: named group per cue, so ``match().lastgroup`` is the cue.
_CUE_RX: Final = _cue_pattern()
_ACTION: Final = re.compile(
    r"^(?P<verb>[a-z]+)(?:\s+(?P<part>up|out|off|back|over|down|away|into|rid of|started with|started on|"
    r"used to|familiar with))?(?=\s|$)\s*(?P<rest>.*)$",
    I,
)


def _action(body: str, prefix: str) -> tuple[str, str] | None:
    """``prefix`` + first action word (+ particle) and the remaining text, for cue-keeping predicates."""
    m = _ACTION.match(body.strip())
    if m is None:
        return None
    verb = m.group("verb").lower()
    rest = m.group("rest")
    if verb in POINTER_WORDS:
        return None  # "I'll do that tomorrow" with "do" read as emphasis: "that" is no action
    if rest.lower().startswith(("if ", "whether ", "what ", "how ", "why ", "where ", "when ", "who ")):
        return None
    part = m.group("part")
    if part is None and verb in ("know", "see", "say", "ask", "think"):
        return None  # "want to know if ...", "need to see": no object worth a claim
    return _snake(prefix, verb, part or ""), rest


# Verb table: (pattern on the text after auxiliaries, predicate, options)
@dataclass(frozen=True)
class _Verb:
    pattern: re.Pattern[str]
    predicate: str
    node_type: NodeType = NodeType.FACT
    lexneg: bool = False
    update: bool = False
    listy: bool = False
    needs_be: bool = False
    past_ok: bool = False
    needs_perfect: bool = False


def _v(pattern: str, predicate: str, node_type: NodeType = NodeType.FACT, **kw: Any) -> _Verb:
    return _Verb(re.compile(r"^(?:" + pattern + r")(?:\s+|$)", I), predicate, node_type, **kw)


_PAST_FORMS: Final = _words(
    """lived resided worked loved liked enjoyed hated disliked used owned had spoke preferred studied drank
    ate played drove ran stayed adored"""
)
_VERBS: Final = (
    _v(r"(?:live|lives|living|lived|reside|resides|residing|resided|stay|stays|staying)\s+in", "lives_in"),
    _v(r"(?:based|located)\s+in", "lives_in", needs_be=True),
    _v(r"(?:moved|relocated)\s+(?:back\s+)?(?:from\s+(?P<old>.+?)\s+)?to", "lives_in", update=True, past_ok=True),
    _v(r"(?:move|relocate)\s+(?:back\s+)?(?:from\s+(?P<old>.+?)\s+)?to", "lives_in", update=True),
    _v(r"(?:work|works|working|worked)\s+(?:at|for)", "works_at"),
    _v(r"employed\s+(?:at|by)", "works_at", needs_be=True),
    _v(r"(?:work|works|working|worked)\s+as(?:\s+an?)?", "works_as"),
    _v(r"(?:joined|started\s+(?:working\s+)?at)", "works_at", update=True, past_ok=True),
    _v(r"(?:join|joining)(?=\s+(?-i:[A-Z]))", "works_at", update=True),
    _v(r"(?:left|quit)(?=\s+(?-i:[A-Z]))", "works_at", lexneg=True, update=True, past_ok=True),
    _v(r"(?:hate|hates|dislike|dislikes|detest|detests|loathe|loathes|despise|despises|can't stand|"
       r"cannot stand|can not stand|can't bear|avoid|avoids)", "likes", NodeType.PREFERENCE, lexneg=True, listy=True),
    _v(r"(?:love|loves|like|likes|enjoy|enjoys|adore|adores|dig)(?!\s+to\b)", "likes", NodeType.PREFERENCE,
       listy=True),
    _v(r"(?:love|loves|like|likes|enjoy|enjoys)\s+to", "likes", NodeType.PREFERENCE),
    _v(r"(?:a\s+)?(?:big\s+|huge\s+|massive\s+)?fan\s+of", "likes", NodeType.PREFERENCE, needs_be=True,
       listy=True),
    _v(r"into", "likes", NodeType.PREFERENCE, needs_be=True, listy=True),
    _v(r"(?:keen|big|mad|crazy)\s+(?:on|about)", "likes", NodeType.PREFERENCE, needs_be=True, listy=True),
    _v(r"(?:use|uses|using|used|utilize|utilizes|rely on|relies on|relying on)", "uses", listy=True),
    _v(r"(?:switched|switching|migrated|migrating|changed|moved\s+over|converted|upgraded|downgraded)\s+"
       r"(?:over\s+)?(?:from\s+(?P<old>.+?)\s+)?to", "uses", update=True, past_ok=True),
    _v(r"(?:switch|migrate)\s+(?:over\s+)?(?:from\s+(?P<old>.+?)\s+)?to", "uses", update=True),
    _v(r"(?:replaced|swapped)\s+(?P<old>.+?)\s+(?:with|for)", "uses", update=True, past_ok=True),
    # "ditched Jenkins for GitHub Actions", "traded my Corolla for a Leaf": one construction, Y replaces X
    _v(r"(?:ditched|dropped|traded|exchanged|dumped|abandoned)\s+(?P<old>(?-i:[A-Z])[\w.+-]*(?:\s+[\w.+-]+){0,2}?|"
       r"(?:my|our|the)\s+[\w.+-]+(?:\s+[\w.+-]+){0,2}?)\s+for(?=\s+(?!(?:good|now|ever|years?|months?|weeks?|"
       r"days?|a\s+(?:while|bit|year|month|week|day)|the\s+(?:day|week|weekend|summer|winter)|me|us|them|it|that|"
       r"this)\b))",
       "uses", update=True, past_ok=True),
    # "went from Scrum to Kanban", "have gone from Android to iOS": "from X to Y" names the old value
    _v(r"(?:went|gone|going|go|goes|moved\s+on|moving\s+on)\s+from\s+(?P<old>.+?)\s+to", "uses", update=True,
       past_ok=True),
    # "I'm done with Facebook", "we're finished with Heroku": giving something up
    _v(r"(?:done|finished|through)\s+with", "uses", needs_be=True, lexneg=True, update=True),
    _v(r"(?:started|began)\s+using", "uses", update=True, past_ok=True),
    _v(r"(?:stopped|quit|gave up|ditched|dropped|abandoned)\s+using", "uses", lexneg=True, update=True,
       past_ok=True),
    _v(r"(?:speak|speaks|speaking)", "speaks", listy=True),
    _v(r"on", "uses", needs_be=True),
    _v(r"(?:run|runs|running)\s+on", "uses"),
    # A progressive future ("I'm moving to Oakland") is a FACT about the plan, not a to-do (labels, node type).
    _v(r"(?:moving|relocating)\s+(?:back\s+)?(?:from\s+(?P<old>.+?)\s+)?to", "moving_to"),
    _v(r"(?:drop|ditch|dropped|ditched)", "uses", lexneg=True, update=True, past_ok=True),
    _v(r"(?:called|named)", "name", needs_be=True),
    _v(r"allergic\s+to", "allergic_to", needs_be=True, listy=True),
    _v(r"(?:from|originally from)", "is_from", needs_be=True),
    _v(r"(?:come|comes)\s+from", "is_from"),
    _v(r"born\s+in", "born_in", needs_be=True, past_ok=True),
    _v(r"married\s+to", "married_to", needs_be=True),
    _v(r"(?:study|studies|studying)\s+at", "studies_at"),
    _v(r"(?:study|studies|studying)", "studies"),
    _v(r"(?:eat|eats)", "eats", listy=True),
    _v(r"(?:drink|drinks)", "drinks", listy=True),
    _v(r"(?:play|plays)", "plays", listy=True),
    _v(r"(?:drive|drives)", "drives"),
    _v(r"(?:own|owns|have|has)", "has"),
    _v(r"got", "has", needs_perfect=True),
)
#: All verb patterns in one alternation: finds the first candidate entry in one regex call.
_VERB_RX: Final = re.compile(
    "|".join(f"(?P<v{i}>{re.sub(r'[(][?]P<[a-z]+>', '(?:', v.pattern.pattern)})" for i, v in enumerate(_VERBS)), I
)
_GERUND: Final = {
    "using": "uses", "eating": "eats", "drinking": "drinks", "smoking": "smokes", "playing": "plays",
    "driving": "drives", "running": "runs", "working": "works", "watching": "watches", "drink": "drinks",
}
_STOPPED: Final = re.compile(r"^(?:stopped|quit|gave up)\s+(?P<g>[a-z]+ing)\b\s*(?P<rest>.*)$", I)
_REMIND_ME: Final = re.compile(
    r"^(?:please\s+)?(?:remind me to|don't let me forget to)\s+|^(?:todo|to-do|to do|reminder to self)\s*:\s*", I
)
_YOU_ARE: Final = re.compile(
    r"^you are (?:(?:the|an?)\s+)?(?P<obj>(?!(?:not|going|able|allowed|free|welcome|here)\b)[\w][^,;]{0,80}?)"
    r"(?:,|\.(?:\s|$)|;|$)",
    I,
)
_FAN_OF: Final = re.compile(r"^an?\s+(?:(?:big|huge|massive)\s+)?fan\s+of\b", I)
#: Subjectless first-person negations after "nope"/"nah" ("Not a fan of horror films", "Not into golf").
_ELLIPTIC_NOT: Final = re.compile(
    r"^not\s+(?:really\s+|that\s+|too\s+|much\s+of\s+)?(?P<rest>(?:a\s+(?:big\s+|huge\s+)?fan\s+of|into|"
    r"(?:keen|big|mad|crazy)\s+(?:on|about)|(?:using|living|working|eating|drinking|playing|driving|running|"
    r"speaking|studying)\b|on\b(?=.*\b(?:anymore|any more|these days|nowadays)\b))\s+\S.*)$",
    I,
)
#: Subjectless "never been to X" / "not been to X": the speaker has not visited X.
_ELLIPTIC_BEEN: Final = re.compile(r"^(?:never|not\s+yet|not)\s+been\s+(?=(?:to|in)\s+\S)", I)
#: "No more X (for me)": the speaker gave X up; a negative update that names its own object.
_NO_MORE: Final = re.compile(
    r"^no\s+more\s+(?!(?:questions?|worries|problems?|issues?|excuses|comments?|complaints?|need)\b)"
    r"(?P<x>.+?)(?:\s+for\s+(?:me|us)\b.*)?$",
    I,
)
_SYSTEM_THIS: Final = re.compile(
    r"^(?:this|the)\s+(?P<what>workspace|assistant|bot|agent|deployment|channel|tenant|instance|account|space|"
    r"server|service|organi[sz]ation|project|app|application|chat|helpdesk)\s+(?P<rest>\S.*)$",
    I,
)
#: A system policy's subject: a noun (phrase) with one prepositional modifier, before its verb group.
_PP_SUBJECT: Final = re.compile(
    r"^(?P<np>(?-i:[A-Z])[\w-]*(?:\s+(?-i:[a-z])[\w-]*)?\s+(?:in|on|for|over|under|from|of|at|with|above|below)\s+"
    r"(?:(?:this|the|our|all|any|every|each)\s+)?[\w$\u00a3\u20ac.%-]+(?:\s+(?-i:[a-z])[\w-]*)?)\s+"
    r"(?P<rest>(?:are|is|must|should|shall|will|cannot|can|may|need|needs)\s.*)$",
    I,
)
#: A passive participle after "must be": "double-checked", "approved", "filed", "written".
_PARTICIPLE: Final = re.compile(
    r"^(?:[a-z]+-)?[a-z]{2,}(?:ed|en|wn)$|^(?:kept|sent|paid|held|built|made|set|put|sold)$"
)
_ANYMORE: Final = re.compile(r"\b(?:anymore|any more|these days|nowadays)\b", I)
_CONSIDER: Final = re.compile(
    r"^(?:considering|weighing|thinking\s+(?:about|of)|leaning\s+(?:towards?|toward))\s+(?P<rest>.+)$", I
)
_A_SWITCH: Final = re.compile(
    r"^(?:a|the|an)\s+(?:possible\s+|potential\s+)?(?:switch|move|change|transition|migration|shift|jump|upgrade|"
    r"return)\s+(?:(?:back\s+)?from\s+.+?\s+)?to\s+(?P<new>\S.*)$",
    I,
)
_TO_FROM: Final = re.compile(r"^\s*\S[^,;]{0,60}?\s+from\s+(?P<old>[^,;]+)", I)
_USED_TO: Final = re.compile(r"^used\s+to\s+(?P<rest>[a-z].*)$", I)
_GOING_TO: Final = re.compile(r"^going\s+to\s+(?!(?:the|a|an|my|our|be)\b)(?=(?-i:[a-z]))", I)
_HAVE_TO: Final = re.compile(r"^(?:have|has|had|'ve got|got|gotta)\s+(?:to\s+)?(?=[a-z])", I)
_RATHER: Final = re.compile(r"^rather\s+(?P<x>.+?)(?:\s+than\s+(?P<y>.+))?$", I)
#: "moved the repo from GitLab to GitHub", "changed my gym from X to Y": attribute <thing> updated to Y.
_CHANGED_THING: Final = re.compile(
    r"^(?:moved|changed|switched|migrated|upgraded|swapped)\s+(?:the|my|our|your)\s+(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
    r"\s+from\s+(?P<old>.+?)\s+to\s+(?P<new>.+)$",
    I,
)
#: The same with the old value last: "moved the offsite to Nagarkot from Dhulikhel".
_CHANGED_THING_TO_FROM: Final = re.compile(
    r"^(?:moved|changed|switched|migrated|upgraded|swapped)\s+(?:the|my|our|your)\s+"
    r"(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+to\s+(?P<new>.+?)\s+from\s+(?P<old>.+)$",
    I,
)
#: A short leading time/setting phrase directly before a first-person subject ("In winter I swim ...").
_LEAD_PHRASE: Final = re.compile(
    r"^(?:for|from|in|on|by|since|until|after|during|over|this|next|last|every|each|starting|as\s+of)\s+"
    r"(?:(?!(?:I|we|you|he|she|they|it|if|case)\b)[\w$'-]+\s+){0,2}(?!(?:I|we|you|he|she|they|it|if|case)\b)"
    r"[\w$'-]+,?\s+(?=(?-i:I|[Ww]e)(?:'|\s))",
    I,
)
_LEAD_PHRASE_INITIALS: Final = frozenset("FfIiOoBbSsUuAaDdTtNnLlEe")
#: "Never X, always Y": a second instruction after a comma.
_INSTR_PAIR_START: Final = re.compile(r"^(?:please\s+)?(?:always|never|don't|do not)\s", I)
_INSTR_PAIR_SPLIT: Final = re.compile(r",\s+(?:and\s+|but\s+)?(?=(?:please\s+)?(?:always|never|don't|do not)\s)", I)
#: Leading participial clauses that are not conditions ("Assuming nothing changes, ...").
_LEAD_PARTICIPLE: Final = re.compile(r"^(?:assuming|barring|weather permitting)\b[^,]{0,80},\s*", I)
_KEEP_PP_HEAD: Final = _words(
    "job jobs offer offers position role internship interview contract apartment flat room table seat place")
_STATIVE_FUTURE: Final = _words("need be have know like want assume mind matter")
_RATHER_VERB: Final = re.compile(
    r"^(?P<v>[a-z]+)\s+(?:(?:up|out|in|on|with|to|for|by|at|from)\s+)?(?=(?:the|a|an|my|our|some|\w+)\b)", I
)
_PREFER: Final = re.compile(
    r"^(?:prefer|prefers|preferred)\s+(?P<x>.+?)(?:\s+(?:over|to|rather than|instead of)\s+(?P<y>.+))?$", I
)
_LIKE_TO_WANT: Final = re.compile(r"^(?:like|love)\s+to\s+", I)
_DECIDE: Final = re.compile(
    r"^(?:decided|agreed|committed)\s+(?P<not>not\s+)?to\s+(?P<body>.+)$|"
    r"^(?:decided|agreed|settled)\s+(?P<on>on|against|upon)\s+(?P<obj>.+)$|"
    r"^(?:chose|chosen|selected|picked|opted\s+for)\s+(?P<obj2>.+)$|"
    r"^(?:opted)\s+(?P<not2>not\s+)?to\s+(?P<body2>.+)$|"
    r"^(?:rejected|ruled out|turned down)\s+(?P<obj3>.+)$",
    I,
)
_CHOICE_ACTIONS: Final = frozenset({"use", "go", "adopt", "pick", "choose", "stick", "switch", "move", "keep"})
#: "212 MB", "40 kg": a measurement, not an age.
_UNIT_AFTER: Final = re.compile(r"\s*(?:%|(?!(?:and|or|but|now|yo|so)\b)[A-Za-z]{1,3}\b)")
#: "Appointments are 45 minutes long": a number followed by a noun is a measure, not an age.
_NOT_AGE_AFTER: Final = re.compile(
    r"\s+(?!(?:and|or|but|now|so|next|this|today|in|on|at|since|until|with|already|soon|too|yet|years?|yo)\b)"
    r"[a-z]{2,}\b"
)
_FOR_ME: Final = re.compile(r"^(?:for me|my (?:thing|cup of tea|jam|style))\s*$", I)
_BE_A: Final = re.compile(r"^(?:an?)\s+(?P<obj>.+)$", I)
_BE_A_STOP: Final = _words(
    """bit little lot few couple pleasure question while sec second minute moment joke pain mess big huge
    good great nice fan total complete sure certain right correct wrong welcome kidding afraid glad happy sorry
    fine ok okay alright"""
)
_ADJECTIVES: Final = _words(
    """vegetarian vegan pescatarian left-handed right-handed married single divorced engaged retired
    diabetic colorblind colourblind pregnant unemployed self-employed freelance celiac
    lactose-intolerant"""
)
_AGE: Final = re.compile(r"^(?P<n>\d{1,3})(?:\s+(?:years?\s+old|yo|y/o))?(?=[\s,!;]|\.(?:\s|$)|$)", I)
_ATTR: Final = re.compile(
    r"^(?P<own>my|our|your|the user's|(?-i:[A-Z][a-z]+)'s)\s+(?P<attr>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?)\s+"
    r"(?P<cop>is|are|was|'s)\s+(?P<neg>not\s+)?(?P<val>.+)$",
    I,
)
_ATTR_LEAD: Final = re.compile(r"^(?:(?P<upd>now|currently|no longer)|still|also|actually)\s+", I)
_INSTEAD_OF: Final = re.compile(r"\s+instead of\s+(?P<old>.+)$", I)
#: "Y instead of X" anywhere after the object: one claim on Y that names X as the value it replaces.
_INSTEAD_OF_OLD: Final = re.compile(r"\b(?:instead\s+of|rather\s+than)\s+(?P<old>[^,;!?()]+)", I)


def _instead_of(text: str) -> str | None:
    if "instead" not in text and "rather" not in text:
        return None
    m = _INSTEAD_OF_OLD.search(text)
    if m is None:
        return None
    old, _ = _clean_object(m.group("old"))
    return old


_PREFERENCE_ATTR: Final = re.compile(r"\b(?:favou?rite|preferred|fave)\b", I)
_ATTR_STOP: Final = _words(
    """question problem point guess bad pleasure issue concern understanding idea plan goal hope worry fear
    thought opinion take feeling suggestion request answer code output error message bet"""
)


# --- generic clause lexicon ---------------------------------------------------------------
# A whitelist of content verbs lets the generic "<subject> <verb> <object>" fallback tell a verb
# from a noun without a tagger. Forms are generated once at import; lookups are dict hits.

_GENERIC_VERBS: Final = _words(
    """accept accrue add adopt allow apply approve arrive attend bake book borrow bring build buy call cancel
    change charge cite climb close coach collect commute contain cook cost cover cycle delay deliver deploy
    design develop die drop earn end expire fail finish fix fly follow go grow handle hike host include
    install join keep knit land launch lead learn lend maintain manage meet mentor migrate miss move offer open
    order organize organise own paint pay pick postpone practice practise prepare publish raise read receive
    release renew rent repair replace report require retire return ride run sail schedule sell send serve ship
    sing skip sleep start stay store study subscribe support surf swim take teach track train travel
    unsubscribe upgrade downgrade visit live see give leave use love like hate enjoy prefer speak work play
    eat drink drive switch join dislike adore avoid volunteer wake walk watch wear win write bring cover cancel close
    expect finish hold host rebuild renovate run sign sponsor host target translate block back bike help quit
    belong""")
_IRREGULAR: Final = {
    "went": "go", "gone": "go", "goes": "go", "took": "take", "taken": "take", "bought": "buy", "sold": "sell",
    "built": "build", "ran": "run", "kept": "keep", "brought": "bring", "flew": "fly", "flown": "fly",
    "flies": "fly", "grew": "grow", "grown": "grow", "led": "lead", "met": "meet", "paid": "pay", "sent": "send",
    "taught": "teach", "won": "win", "wrote": "write", "written": "write", "wore": "wear", "worn": "wear",
    "rode": "ride", "ridden": "ride", "slept": "sleep", "held": "hold", "lent": "lend", "studies": "study",
    "studied": "study", "died": "die", "dying": "die", "lying": "lie", "swam": "swim", "swum": "swim",
    "sang": "sing", "sung": "sing", "woke": "wake", "woken": "wake", "read": "read", "cost": "cost",
    "rebuilt": "rebuild", "began": "begin", "begun": "begin", "gave": "give", "given": "give", "saw": "see",
    "seen": "see", "left": "leave", "leaving": "leave", "lives": "live", "ate": "eat", "eaten": "eat",
    "quit": "quit",
    "had": "have", "got": "get", "spent": "spend",
    "drank": "drink", "drunk": "drink", "drove": "drive", "driven": "drive", "spoke": "speak", "spoken": "speak",
}
#: Giving something up: a negative claim on the object that retires it (labels: "sold X", "cancelled X").
_GIVE_UP_VERBS: Final = frozenset({"sell", "cancel", "quit", "drop", "unsubscribe"})
_BARE_VERB: Final = re.compile(r"^(?-i:[a-z]{3,})$")
_NOT_A_VERB: Final = _words(
    """the and but not also just really even still only all any some more less very too well then there
    this that these those help"""
)
_PREPS: Final = _words("to into in at on for with from about by off of through via after before during")
#: Lower-case words that follow a subject without being its verb (adverbs, pronouns, fillers, mental verbs
#: whose "object" is a thought, not a thing): the morphological verb guess never takes them.
_NOT_GUESSED: Final = _NOT_A_VERB | _words(
    """too myself ourselves yourself himself herself themselves alone here there again both all each who which
    that what whose so or nor yet mean meant guess guessed hope hoped wonder wondered know knew see saw think
    thought feel felt bet suppose supposed reckon believe believed understand understood agree agreed disagree
    appreciate apologise apologize promise swear doubt imagine assume assumed realise realize realised realized
    notice noticed recall remember remembered forget forgot wish wished hear heard say said tell told ask asked
    thank thanks thankfully hereby mentioned noted figured am is are was were be been being get gets got gotten
    let lets suggest suggested recommend recommended want wants wanted try tries tried plan plans
    let's yes no not nope yeah okay ok sure please probably maybe perhaps possibly currently usually today
    tomorrow yesterday tonight everyday anyway anymore seem seems seemed appear appears appeared sound sounds
    sounded look looks looked feel feels happen happens somewhat much many more most less least few lot lots
    very quite rather pretty kind sort bit whole own same other another such one two three first last next"""
)
_NOT_GUESSED_ING: Final = frozenset(
    {w + "ing" for w in _NOT_GUESSED if w.isalpha()} | {w[:-1] + "ing" for w in _NOT_GUESSED if w.endswith("e")}
    | _words("kidding joking saying asking thinking hoping wondering guessing assuming feeling heading struggling")
)
_DET_NEXT: Final = _words("the a an my our your his her their its this that these those some every each two three")
_S_DROP_ES: Final = ("sses", "shes", "ches", "xes", "zzes", "oes")


def _guess_verb(word: str, agree: str) -> tuple[str, str] | None:
    """(lemma, kind) for a word the whitelist does not know, judged by shape and the subject it follows.

    ``agree`` is "fp" after I/we (a bare or past form), "s" after a singular third party (an -s or -ed
    form), "any" after an auxiliary (a bare form or a participle). The caller has already ruled out
    every specific pattern, so this only widens the fallback parse; the validator still checks the
    object is in the source.
    """
    w = word.lower()
    known = _VERB_FORM.get(w)
    if known is not None:
        return known
    if not _BARE_VERB.match(word) or w in _NOT_GUESSED or w.endswith("ly") or w in _PREPS or w in _PARTICLES:
        return None
    if w.endswith("ed") and len(w) > 4:
        return w, "past"
    if w.endswith("ing"):
        return None
    if agree == "s":
        if not w.endswith("s") or w.endswith(("ss", "us", "is", "ous")) or len(w) < 4:
            return None
        if w.endswith("ies"):
            return w[:-3] + "y", "s"
        return (w[:-2] if w.endswith(_S_DROP_ES) else w[:-1]), "s"
    if agree == "fp" and w.endswith("s") and not w.endswith("ss"):
        return None  # "I tasks ...": not an agreeing verb
    return w, "base"
_PARTICLES: Final = _words("up out off back over down away")


def _verb_forms() -> dict[str, tuple[str, str]]:
    """form -> (lemma, kind) with kind one of base, s, past, ing."""
    out: dict[str, tuple[str, str]] = {}
    for v in _GENERIC_VERBS:
        out[v] = (v, "base")
        if v.endswith(("s", "sh", "ch", "x", "o")):
            out[v + "es"] = (v, "s")
        elif v.endswith("y") and v[-2] not in "aeiou":
            out[v[:-1] + "ies"] = (v, "s")
        else:
            out[v + "s"] = (v, "s")
        stem = v[:-1] if v.endswith("e") else v
        if v.endswith("y") and v[-2] not in "aeiou":
            out[v[:-1] + "ied"] = (v, "past")
        else:
            out[stem + "ed"] = (v, "past")
        out[stem + "ing"] = (v, "ing")
        if len(v) <= 4 and v[-1] not in "aeiouwxy" and v[-2] in "aeiou" and v[-3:-2] not in ("a", "e", "i", "o", "u"):
            out[v + v[-1] + "ed"] = (v, "past")
            out[v + v[-1] + "ing"] = (v, "ing")
    for form, lemma in _IRREGULAR.items():
        kind = "s" if form.endswith("s") and form not in ("grown",) else "ing" if form.endswith("ing") else "past"
        out[form] = (lemma, kind)
    out["cancelled"] = ("cancel", "past")
    out["travelled"] = ("travel", "past")
    out["labelled"] = ("label", "past")
    return out


_VERB_FORM: Final = _verb_forms()
_GENERIC_BE_ADJ: Final = _words(
    """free open closed available busy away fluent remote vegan vegetarian allergic responsible new late early
    ready done sick pregnant broke home abroad"""
)
_NP_STOP: Final = frozenset(
    {"is", "are", "was", "were", "'s", "has", "have", "had", "will", "'ll", "would", "'d", "may", "might", "can",
     "could", "should", "must", "shall", "do", "does", "did", "don't", "doesn't", "didn't", "won't", "can't",
     "isn't", "aren't", "wasn't", "weren't", "never", "now", "also", "still", "always", "only", "no", "not",
     "just", "already", "usually", "often", "finally", "recently", "currently", "really", "cannot"}
)
_LEAD_ADV: Final = re.compile(
    r"^(?:(?:early|late|remotely|together|again|fully|finally|still|also|regularly|usually|often|always|"
    r"mostly|only|even|just|already|now|first|back|along|up to|around|about|roughly|nearly)\s+)+", I
)
_OBJ_PRONOUN: Final = re.compile(r"^(?:us|me|him|her|them|you|it|myself|ourselves|himself|herself|themselves)\b\s*", I)
_PLAIN_TOKEN: Final = re.compile(r"^[A-Za-z][\w'+.-]*$")


def _np_verb_kind(raw: str, prev: str, nxt_raw: str) -> str | None:
    """Kind of an unknown word that ends a noun phrase and opens its predicate, judged by shape.

    "the co-op stocks oat milk" (an -s form after a singular head), "the beehives face the orchard"
    (a bare form after a plural head, before a determiner), "the landlord renovated the flat" (-ed
    before a determiner or a name). Anything less clear stays part of the noun phrase.
    """
    if not _BARE_VERB.match(raw):
        return None
    nxt = nxt_raw.lower()
    obj_next = nxt in _DET_NEXT or nxt_raw[:1].isupper() or nxt[:1].isdigit()
    p = prev.lower()
    if raw.endswith("ed"):
        g = _guess_verb(raw, "any")
        return "past" if g is not None and obj_next else None
    if raw.endswith("s"):
        g = _guess_verb(raw, "s")
        plural_prev = p.endswith("s") and not p.endswith(("ss", "us", "is"))
        return "s" if g is not None and not plural_prev and nxt not in _VERB_FORM else None
    if p.endswith("s") and not p.endswith(("ss", "us", "is")) and obj_next and _guess_verb(raw, "any") is not None:
        return "base"
    return None


def _split_np(text: str, max_words: int = 5) -> tuple[str, str, str | None] | None:
    """Split "<noun phrase> <verb/aux ...>" at the first auxiliary or known verb form.

    Returns (noun phrase, rest starting at the verb, verb kind or None for an auxiliary).
    """
    words = text.split(" ")
    for i, raw in enumerate(words[: max_words + 1]):
        w = raw.lower().rstrip(",")
        if i == 0:
            if not _PLAIN_TOKEN.match(raw):
                return None
            continue
        nxt = words[i + 1].lower() if i + 1 < len(words) else ""
        if raw in _NAME_NOT_MODAL and (nxt in _COPULA_NEXT or _third_person(nxt)):
            continue  # "my neighbour Will helps me": a capitalised name, not the modal
        if w in _NP_STOP or w.endswith("n't"):
            return " ".join(words[:i]), " ".join(words[i:]), None
        vf = _VERB_FORM.get(w)
        if vf is not None and vf[1] in ("s", "base") and (nxt in _COPULA_NEXT or nxt in _MODAL_NEXT):
            continue  # "the iOS build is ...": a noun that shares a verb's spelling
        if vf is not None and vf[1] in ("s", "past", "base"):
            return " ".join(words[:i]), " ".join(words[i:]), vf[1]
        if vf is None and nxt and nxt not in _COPULA_NEXT and nxt not in _NP_STOP:
            kind = _np_verb_kind(raw, words[i - 1], words[i + 1])
            if kind is not None:
                return " ".join(words[:i]), " ".join(words[i:]), kind
        if raw.endswith(",") or not (_PLAIN_TOKEN.match(raw) or _NP_TOKEN.match(raw)):
            return None
    return None


_NAME_NOT_MODAL: Final = frozenset({"Will", "May"})
_COPULA_NEXT: Final = _words("is are was were has have had isn't aren't wasn't weren't hasn't haven't")
#: Irregular participles outside the verb whitelist, for "Prices are shown in NZD" (only before a preposition).
_EN_PARTICIPLES: Final = _words(
    "shown known given taken written chosen driven broken frozen hidden spoken stolen proven drawn withdrawn")
#: Modals that follow a noun sharing a verb's spelling ("Incident reports must be filed ...").
_MODAL_NEXT: Final = _words("must should shall cannot")
_NP_TOKEN: Final = re.compile(r"^[\w][\w'+./-]*$")


def _third_person(word: str) -> bool:
    """A lower-case -s form right after a capitalised "Will"/"May" marks them as names ("Will helps")."""
    vf = _VERB_FORM.get(word)
    if vf is not None:
        return vf[1] == "s"
    return len(word) > 3 and word.isalpha() and word.islower() and word.endswith("s") and not word.endswith(
        ("ss", "us", "is"))


_AMBIGUOUS_NAMES: Final = _words("will may hope june april august grace rose faith joy mark bill sue")
_NP_DET: Final = re.compile(r"^(?P<det>my|our|your|the|all)\s+(?=\S)", I)
_DET_WORDS: Final = _words("my our your his her their its the a an to of for in on at with from by")
_BARE_NP_AUX: Final = _words("is are will must can may should")


#: Generic predicates folded onto the verb table's names, so both paths give one triple.
_GENERIC_PREDICATES: Final = {
    "live_in": "lives_in", "live": "lives_in", "work_at": "works_at", "work_for": "works_at", "use": "uses",
    "work_as": "works_as", "leave": "works_at", "have": "has", "study": "studies", "own": "has", "speak": "speaks",
}
_AS_ROLE_VERBS: Final = _words("work spend spent serve volunteer do pull train retire qualify moonlight start")
_AS_ROLE: Final = re.compile(
    r"\bas\s+(?:an?\s+)?(?P<role>(?!(?:well|much|long|soon|far|usual|before|always)\b)[^,;.!?]+)", I
)
_GOT_DONE: Final = re.compile(
    r"^(?P<np>(?:my|our|the|his|her|their|a|an)\s+[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+"
    r"(?P<pp>[a-z]+(?:ed|built|done|made|fixed|cut|set|sold|paid|sent))(?:\s|$)",
    I,
)
_EVALUATIVE: Final = _words("such so quite very too really rather pretty the-best lovely beautiful")
_ING: Final = re.compile(r"^[a-z]{3,}[^aeiou\W]ing$")
_GOT_THING: Final = re.compile(r"^(?:(?:a|an|my|our|the|two|three|\d+)\s|(?-i:[A-Z]))", I)
_SEE_MYSELF: Final = re.compile(r"^(?:myself|ourselves)\s+(?=\w+ing\b)", I)
_OBJECT_HEAD: Final = re.compile(r"^[\w\d$\u00a3\u20ac]", re.UNICODE)
_GENERIC_PREP: Final = re.compile(
    r"^(?P<p>up to|to|into|in|at|on|for|with|from|about|by|off|of|through|via|after|before|during|under|within)\s+",
    I,
)


def _generic_object_prep(text: str) -> tuple[str | None, str | None]:
    """Head noun phrase of a verb complement, skipping adverbs and object pronouns; plus a leading preposition."""
    t = text.strip()
    prep: str | None = None
    for _ in range(4):
        before = t
        t = _LEAD_ADV.sub("", t)
        m = _OBJ_PRONOUN.match(t)
        if m is not None and t[m.end() :].strip():
            t = t[m.end() :]
        m = _GENERIC_PREP.match(t)
        if m is not None:
            prep = m.group("p").lower().replace(" ", "_")
            t = t[m.end() :]
        if t == before:
            break
    bare = t.strip().rstrip(".!,;")
    low = bare.lower()
    if (_CLAUSE_WORD.match(t) or low in _PREPS or low in _PARTICLES or (prep is None and low in _ADVERB_OBJECT)
            or (bare.endswith("ly") and bare.isalpha() and bare.islower())):
        # "feeds them when I travel", "was snowed in", "buzzes constantly": no object follows the verb
        return None, prep
    obj, _ = _clean_object(t)
    return obj, prep


#: Bare adverbs after a verb ("running late", "playing outside"): not an object without a preposition.
_ADVERB_OBJECT: Final = _words(
    "now late early outside inside better worse soon later away together again today tonight tomorrow fast hard "
    "well alone here there so too fine"
)
_CLAUSE_WORD: Final = re.compile(
    r"^(?:when|whenever|if|because|since|while|until|before|after|as|so|though|although|unless|whether|"
    r"that|which|who|where|how|why|what)\b",
    I,
)


def _generic_object(text: str) -> tuple[str | None, bool]:
    obj, _ = _generic_object_prep(text)
    return obj, False


def _strip_det(text: str) -> str:
    m = _DET.match(text)
    return text[m.end() :] if m else text


def _subject_pattern(fp: str, poss: str) -> re.Pattern[str]:
    return re.compile(
        rf"^(?:(?P<fp>{fp})(?=[\s']|$)|(?P<user>the user)\b|(?P<poss>{poss})\s+(?P<rel>{_RELATION})\b"
        r"(?:\s+(?-i:[A-Z]\w+)(?=\s+[a-z]))?|"
        rf"(?P<name>{_NAME})(?=[\s']))",
        I,
    )


_SUBJECT: Final = _subject_pattern(r"I|we", r"my|our")
_SUBJECT_ATTRIBUTION: Final = _subject_pattern(r"you", r"your")
_NOUN_THEN_COPULA: Final = re.compile(
    r"\s+(?!(?:is|are|was|were|has|have|had|and|or|will|can|may|might|must|should|would|could|does|do|did|also|"
    r"still|really|never|always|now|just|only)\b)(?-i:[a-z][\w-]*)\s+(?:is|are|was|were|isn't|aren't|must|should|"
    r"shall|cannot)\b",
    I,
)
_LOWER_START: Final = re.compile(r"^[a-z']")
_LEAD_JOINT: Final = re.compile(r"^\s*[,;]?\s*(?:but|whereas|although|though|while|however)\b,?\s*", I)
_LEAD_COMMA: Final = re.compile(r"^[,;\s]+")
_LEAD_OBJ_PRONOUN: Final = re.compile(r"^(?:you|me|him|her|them|us|it)\s+(?=\S)", I)
_THIRD_PERSON: Final = frozenset({"it", "them", "him", "her"})
#: What follows a verb's object rather than being one: after "call them" / "do it", a time or manner.
_ADJUNCT_START: Final = re.compile(
    r"^(?:by|before|until|till|on|next|this|tomorrow|today|tonight|later|soon|asap|at|in|again|now|first|"
    r"right|every|after|once|when)\b",
    I,
)
_NON_ALNUM: Final = re.compile(r"[^a-z0-9]+")


class _Parser:
    """Parses one clause into proto claims for a given speaker mode."""

    def __init__(self, mode: _Mode) -> None:
        self.mode = mode
        self._subject = _SUBJECT_ATTRIBUTION if mode.attribution else _SUBJECT

    # -- helpers
    def _owner(self) -> str:
        return self.mode.first_person

    def _name_ok(self, name: str, rest: str) -> bool:
        """"May/Will/Hope ..." is a person only when a verb or copula follows ("Will is our designer")."""
        first = name.split()[0].lower()
        if first not in _AMBIGUOUS_NAMES:
            return True
        nxt = rest.split()[0].lower() if rest.split() else ""
        if nxt.startswith("'s") or nxt in ("is", "was", "has", "had", "and", "can", "could", "will", "won't",
                                           "can't", "should", "might", "must", "would"):
            return True
        vf = _VERB_FORM.get(nxt)
        return (vf is not None and vf[1] in ("s", "past")) or (
            nxt.endswith("s") and _VERB_RX.match(rest.lstrip()) is not None
        )

    def _np_subject(self, t: str) -> tuple[str, str] | None:
        """Generic noun-phrase subjects: "my/our X", "the X", a bare "X" before an auxiliary."""
        m = _NP_DET.match(t)
        if m is not None:
            det = m.group("det").lower()
            if det == "your" and not self.mode.attribution:
                return None
            split = _split_np(t[m.end() :])
            if split is None:
                return None
            np, rest, _ = split
            if np.split()[0].lower() in _SUBJ_STOP:
                return None
            if det in ("my", "our") or (det == "your" and self.mode.attribution):
                return f"{self._owner()}'s {np}", rest
            return np, rest
        split = _split_np(t, max_words=3)
        if split is None:
            return None
        np, rest, kind = split
        tokens = np.lower().split()
        if tokens[0] in _AMBIGUOUS_NAMES or any(tok in _SUBJ_STOP or tok in _DET_WORDS for tok in tokens):
            return None
        if (kind is None and np[:1].islower() and
                                                   rest.split()[0].lower() not in _BARE_NP_AUX):
            return None
        if kind is not None and np[:1].islower() and not (kind == "s" and len(tokens) >= 2):
            return None  # a bare lower-case noun before a verb is usually an imperative or a fragment
        return np, rest

    def _named(self, name: str) -> str | None:
        if name.split()[0].lower() in _SUBJ_STOP:
            return None
        if self.mode.speaker and name.lower() == self.mode.speaker.lower():
            return self._owner()
        return name

    def parse(self, clause: str, inherited: str | None) -> tuple[list[_Proto], str | None]:
        t = clause.strip().strip("-*\u2022 ").strip()
        update_cue = False
        m = _DISCOURSE.match(t)
        if m:
            update_cue = m.group("now") is not None
            t = t[m.end() :]
        m = _LEAD_PARTICIPLE.match(t)
        if m:
            t = t[m.end() :]
        if not self.mode.attribution and t[:1] in _LEAD_PHRASE_INITIALS:
            m = _LEAD_PHRASE.match(t)
            if m:
                t = t[m.end() :]  # "For 2027 we're capping ...": a time or setting phrase before the subject
        hedge = False
        flip = False
        m = _HEDGE_PREFIX.match(t)
        if m:
            hedge = True
            flip = m.group("neg") is not None or m.group("doubt") is not None
            t = t[m.end() :]
        if not t:
            return [], inherited
        if t[0] in "nN" and not self.mode.attribution and self.mode.role is not Role.SYSTEM:
            em = _ELLIPTIC_NOT.match(t)
            if em is not None:
                f = _Flags(neg=not flip, be=True, aux=True, hedge=hedge,
                           update=update_cue or _ANYMORE.search(t) is not None)
                return self._predicate(self._owner(), em.group("rest"), f), self._owner()
            bm = _ELLIPTIC_BEEN.match(t)
            if bm is not None:
                f = _Flags(neg=not flip, be=True, perfect=True, aux=True, hedge=hedge)
                return self._predicate(self._owner(), t[bm.end() :], f), self._owner()
            nm = _NO_MORE.match(t)
            if nm is not None:
                obj, _ = _clean_object(nm.group("x"))
                made = self._mk(self._owner(), "uses", obj, NodeType.FACT, _Flags(hedge=hedge), lexneg=True,
                                update=True, replaces=obj) if obj else None
                return ([made] if made else []), self._owner()

        if self.mode.role is Role.SYSTEM:
            ym = _YOU_ARE.match(t)
            if ym is not None:
                return [_Proto("assistant", "is", ym.group("obj").strip())], inherited
        if (not self.mode.attribution or self.mode.role is Role.SYSTEM) and self.mode.role is not Role.ASSISTANT:
            instr = self._instruction(t)
            if instr is not None:
                instr.hedge = instr.hedge or hedge
                return [instr], inherited
        if self.mode.role is Role.SYSTEM and (pp := _PP_SUBJECT.match(t)) is not None:
            # "Datasets in this project are released under ...", "Refunds over $500 must be approved by ...":
            # the subject is the whole modified noun phrase
            rest, flags = _consume_aux(pp.group("rest"))
            return self._predicate(pp.group("np"), rest, flags), pp.group("np")
        if self.mode.role is Role.SYSTEM:
            tm = _SYSTEM_THIS.match(t)
            if tm is not None:
                # "This workspace belongs to X", "This assistant serves Y": identity of the deployment
                what = tm.group("what").lower()
                deployment = "assistant" if what in ("assistant", "bot", "agent") else what
                rest, flags = _consume_aux(tm.group("rest"))
                return self._predicate(deployment, rest, flags), deployment

        rm = _REMIND_ME.match(t)
        if rm is not None and not self.mode.attribution and self.mode.role is not Role.ASSISTANT:
            act = _action(t[rm.end() :], "needs_to")
            return self._cue_claim(self._owner(), act, _Flags(), NodeType.TASK, speech_act=False), inherited

        attr = self._attribute(t)
        if attr is not None:
            attr.hedge = attr.hedge or hedge
            attr.negative ^= flip
            # "My partner is called Sam and works as a nurse": the next clause is about the partner.
            carried = attr.subject if attr.predicate == "name" else inherited
            return [attr], carried

        sm = self._subject.match(t)
        if sm is not None and sm.group("name") and not self._name_ok(sm.group("name"), t[sm.end() :]):
            sm = None
        if sm is not None and sm.group("name") and _NOUN_THEN_COPULA.match(t, sm.end()):
            sm = None  # "Horror movies are ...": a capitalised noun phrase, not a person
        subject: str | None
        if sm is None and (inherited is None or _NP_DET.match(t)):
            gen = self._np_subject(t)
            if gen is not None:
                subject, rest = gen
                rest, flags = _consume_aux(rest)
                flags.hedge = flags.hedge or hedge
                flags.update = flags.update or update_cue or _ANYMORE.search(rest) is not None
                if flip:
                    flags.neg = not flags.neg
                return self._predicate(subject, rest, flags), subject
        if sm is not None:
            if sm.group("fp"):
                subject = self._owner()
            elif sm.group("user"):
                subject = "user"
            elif sm.group("rel"):
                subject = f"{self._owner()}'s {sm.group('rel').lower()}"
            else:
                subject = self._named(sm.group("name"))
            if subject is None:
                gen = self._np_subject(t) if inherited is None else None
                if gen is None:
                    return [], inherited
                subject, rest = gen
                rest, flags = _consume_aux(rest)
                flags.hedge = flags.hedge or hedge
                flags.update = flags.update or update_cue or _ANYMORE.search(rest) is not None
                if flip:
                    flags.neg = not flags.neg
                return self._predicate(subject, rest, flags), subject
            rest = t[sm.end() :]
        elif inherited is not None and _LOWER_START.match(t):
            subject, rest = inherited, t
        else:
            return [], inherited

        rest, flags = _consume_aux(rest)
        flags.hedge = flags.hedge or hedge
        flags.update = flags.update or update_cue or _ANYMORE.search(rest) is not None
        if flip:
            flags.neg = not flags.neg
        protos = self._predicate(subject, rest, flags)
        return protos, subject

    # -- instructions
    def _instruction(self, t: str) -> _Proto | None:
        if self.mode.role not in (Role.USER, Role.HUMAN, Role.PARTICIPANT, Role.SYSTEM):
            return None
        v = _VOCATIVE.match(t)
        if v is not None:
            t = t[v.end() :]  # "Tadeo, please never ...": the addressee's name is not part of the instruction
        m = _INSTRUCTION.match(t)
        negative = False
        body: str | None = None
        if m is not None:
            body = m.group("body")
            negative = m.group("neg") is not None
            lead = (m.group("pos") or m.group("neg") or "").lower()
            if lead in ("only",):
                pass
        else:
            m2 = _PERSISTENT_TAIL.match(t)
            if m2 is not None and _IMPERATIVE.match(m2.group("body")):
                body = m2.group("body")
            elif self.mode.role is Role.SYSTEM and _IMPERATIVE.match(t):
                body = t
            elif (ps := _POLITE_STYLE.match(t)) is not None:
                body = ps.group("b") or ps.group("b2")
            else:
                ms = _SYSTEM_MODAL.match(t)
                if ms is not None and self.mode.role is Role.SYSTEM:
                    body, negative = ms.group("b"), ms.group("n") is not None
        if body is None:
            return None
        body = re.sub(r"^(?:always|ever|please)\s+", "", body.strip(), flags=I)
        if _INSTRUCTION_SKIP.match(body):
            return None
        tail = re.search(r",?\s+(?:from now on|going forward|in (?:the )?future|please|at all times|ever again)?"
                         r"\s*[.!]*$", body, I)
        if tail is not None:
            body = body[: tail.start()]
        body = body.strip().rstrip(".!,;")
        if not body or len(body.split()) > 20:
            return None
        return _Proto("assistant", "should", body, NodeType.INSTRUCTION, negative=negative)

    # -- "my X is Y"
    def _attribute(self, t: str) -> _Proto | None:
        m = _ATTR.match(t)
        if m is None:
            return None
        own = m.group("own").lower()
        if own == "your" and not self.mode.attribution:
            return None
        if any(w[:1].isupper() for w in m.group("attr").split()):
            return None  # "My brother Will is ...": a relative and their name, not an attribute called "brother will"
        attr = m.group("attr").lower()
        if attr.split()[-1] in _ATTR_STOP or attr.split()[0] in _ATTR_STOP:
            return None
        if own in ("my", "our", "your"):
            subject = self._owner()
        elif own == "the user's":
            subject = "user"
        else:
            named = self._named(m.group("own")[:-2])
            if named is None:
                return None
            subject = named
        val = m.group("val")
        update = False
        lead = _ATTR_LEAD.match(val)
        if lead is not None:
            update = lead.group("upd") is not None
            val = val[lead.end() :]
        replaces = None
        inst = _INSTEAD_OF.search(val)
        if inst is not None:
            replaces, _ = _clean_object(inst.group("old"))
            val = val[: inst.start()]
            update = True
        num = _NUMBER.match(val.strip())
        if m.group("cop").lower() == "was" and num is None:
            return None
        obj, _ = _clean_object(val)
        if obj is None:
            return None
        node = NodeType.PREFERENCE if _PREFERENCE_ATTR.search(attr) else NodeType.FACT
        pred = _snake(attr)
        called = re.match(r"^(?:called|named)\s+(?P<n>.+)$", obj, I)
        if called is not None and subject == self._owner():
            subject, pred, obj = f"{subject}'s {attr}", "name", called.group("n")
        proto = _Proto(subject, pred, obj, node, negative=m.group("neg") is not None, update=update,
                       replaces=replaces)
        if num is not None and obj.startswith(num.group("n")):
            proto.quantity = Quantity(value=num.group("n"), unit=num.group("u") or "1", source_text=num.group("n"))
        return proto

    # -- main predicate dispatch
    def _predicate(self, subject: str, rest: str, f: _Flags) -> list[_Proto]:
        low = rest.lower()
        if not rest:
            return []
        if f.should and self.mode.role is not Role.SYSTEM:
            # "We should migrate X" is a suggestion, not a settled fact (system "should" is policy)
            f.hedge = f.modal = True
        if f.be and _GOING_TO.match(rest):
            rest = rest[_GOING_TO.match(rest).end() :]  # type: ignore[union-attr]
            f.future = True
            low = rest.lower()
        m = _USED_TO.match(rest)
        if m is not None:
            f2 = replace(f, neg=not f.neg, update=True)
            protos = self._predicate(subject, m.group("rest"), f2)
            for used in protos:
                used.replaces = used.object
            return protos
        # wants_to from "would like/love to"
        if f.would and _LIKE_TO_WANT.match(rest):
            act = _action(rest[_LIKE_TO_WANT.match(rest).end() :], "wants_to")  # type: ignore[union-attr]
            f.hedge = False
            return self._cue_claim(subject, act, f, NodeType.FACT)
        if f.would:
            m = _RATHER.match(rest)
            if m is not None:
                # "I'd rather X than Y" states a preference; "would" here is not a hedge
                x = m.group("x")
                vm = _RATHER_VERB.match(x)
                if vm is not None and _guess_verb(vm.group("v"), "fp") is not None:
                    x = x[vm.end() :]  # "I'd rather take the train than fly": the preference is the train
                return self._prefers(subject, x, m.group("y"), replace(f, hedge=False, would=False))
            if low.startswith(("prefer ", "like ", "love ")) and not f.hedge:
                return []
        m = _CUE_RX.match(rest)
        if m is not None:
            cue = m.lastgroup or ""
            if cue in ("working_to", "looking_to") and not (f.be or f.perfect):
                return []  # "I work to live" is not "working to"
            if cue == "needs_to" and f.past:
                return []
            node = NodeType.TASK if cue == "needs_to" else NodeType.FACT
            return self._cue_claim(subject, _action(rest[m.end() :], cue), f, node)
        m = _HAVE_TO.match(rest)
        if m is not None and re.match(r"^(?:have|has|had|'ve got|got|gotta)\s+to\s|^gotta\s", low):
            return self._cue_claim(subject, _action(rest[m.end() :], "needs_to"), f, NodeType.TASK, speech_act=False)
        if f.must and f.be and subject not in (self._owner(), "user", "assistant"):
            w0 = rest.split(" ", 1)[0].lower()
            if _PARTICIPLE.match(w0):
                # "Controlled substances must be double-checked by two nurses": a standing constraint, not a to-do
                obj, prep = _generic_object_prep(rest[len(w0) :])
                p = self._mk(subject, _snake("must_be", w0, prep or ""), obj, NodeType.FACT, f) if obj else None
                return [p] if p else []
        if f.must:
            return self._cue_claim(subject, _action(rest, "needs_to"), f, NodeType.TASK, speech_act=False)

        m = _DECIDE.match(rest)
        if m is not None:
            return self._decision(subject, m, f)
        m = _CHANGED_THING.match(rest) or _CHANGED_THING_TO_FROM.match(rest)
        if m is not None:
            new, _ = _clean_object(m.group("new"))
            old, _ = _clean_object(m.group("old"))
            if new is None:
                return []
            p = self._mk(subject, _snake(m.group("what")), new, NodeType.FACT, f, update=True, replaces=old)
            return [p] if p else []
        m = _PREFER.match(rest)
        if m is not None:
            if f.past and not f.perfect:
                return []
            return self._prefers(subject, m.group("x"), m.group("y"), f)

        if f.future and not f.would and rest.split()[0].lower() in _STATIVE_FUTURE:
            # "we won't need a maintenance window", "I'll assume X": a state, not an action of the speaker
            act = _action(rest, "will")
            return [] if act is None else self._cue_claim(subject, act, f, NodeType.FACT, speech_act=False)
        if f.future and not f.would:
            act = _action(rest, "will")
            if act is None or act[0] in ("will_be", "will_have", "will_see", "will_think", "will_let", "will_do"):
                return []
            if act[0].startswith("will_try"):
                return []
            own = subject in (self._owner(), "user", "assistant")
            return self._cue_claim(subject, act, f, NodeType.TASK if own else NodeType.FACT, speech_act=False)

        m = _CONSIDER.match(rest)
        if m is not None:
            f2 = replace(f, hedge=True, be=False)
            sw = _A_SWITCH.match(m.group("rest"))
            if sw is not None:
                # "weighing a switch from Lightroom to Darktable": what is being considered is the target
                obj, _ = _clean_object(sw.group("new"))
                p = self._mk(subject, "considering", obj, NodeType.FACT, f2) if obj else None
                return [p] if p else []
            inner = self._predicate(subject, m.group("rest"), f2)
            if inner:
                return inner
            obj, _ = _clean_object(m.group("rest"))
            considered = self._mk(subject, "considering", obj, NodeType.FACT, f2) if obj else None
            return [considered] if considered else []

        m = _STOPPED.match(rest)
        if m is not None and m.group("g").lower() in _GERUND:
            obj, _ = _clean_object(m.group("rest")) if m.group("rest") else (None, False)
            stopped = self._mk(subject, _GERUND[m.group("g").lower()], obj, NodeType.FACT, f, lexneg=True,
                               update=True, replaces=obj)
            return [stopped] if stopped else []

        if f.be:
            complement = self._be_complement(subject, rest, f)
            if complement is not None:
                return complement

        first_hit = _VERB_RX.match(rest)
        if first_hit is None:
            return self._generic(subject, rest, f)
        for verb in _VERBS[int((first_hit.lastgroup or "v0")[1:]) :]:
            m = verb.pattern.match(rest)
            if m is None:
                continue
            if (verb.needs_be and not f.be) or (verb.needs_perfect and not (f.perfect or f.got)):
                continue
            first = low.split()[0] if low.split() else ""
            if first in _PAST_FORMS and not (f.perfect or verb.past_ok):
                return []
            if f.past and not (f.perfect or verb.past_ok or (verb.needs_be and verb.predicate == "born_in")):
                return []
            if verb.predicate == "has" and (f.be or re.match(r"^(?:have|has|got)\s+(?:to|been)\b", low)):
                continue
            obj_text = rest[m.end() :]
            old = m.groupdict().get("old")
            if old is None and verb.update and " from " in obj_text:
                fm = _TO_FROM.search(obj_text)  # "moved to Hetzner from DigitalOcean": the old value comes last
                old = fm.group("old") if fm is not None else None
            old_obj = _clean_object(old)[0] if old else None
            instead = _instead_of(obj_text) if not (verb.lexneg or f.neg) else None
            if instead is not None:
                old_obj = old_obj or instead
            if verb.listy:
                items = _object_list(obj_text)
            else:
                o, n = _clean_object(obj_text)
                items = [(o, n)] if o is not None else []
            out: list[_Proto] = []
            for obj, det_neg in items:
                if verb.predicate == "has" and obj.split()[0].lower() in ("question", "questions", "idea", "problem",
                                                                         "problems", "issue", "issues", "feeling",
                                                                         "look", "minute", "second", "chance",
                                                                         "clue", "doubt", "doubts", "time", "fun"):
                    continue
                replaces = old_obj
                is_update = verb.update or instead is not None
                negative_lex = verb.lexneg
                if (negative_lex or f.neg) and (is_update or f.update):
                    replaces = replaces or obj
                made = self._mk(subject, verb.predicate, obj, verb.node_type, f, lexneg=negative_lex ^ det_neg,
                               update=is_update, replaces=replaces)
                if made is None:
                    continue
                if verb.predicate == "has":
                    num = _NUMBER.match(obj)
                    if num is not None and num.group("u") is not None:
                        made.quantity = Quantity(value=num.group("n"), unit=num.group("u"), source_text=num.group("n"))
                out.append(made)
            return out
        return self._generic(subject, rest, f)

    # -- generic "<subject> <verb> <object>" fallback
    def _generic(self, subject: str, rest: str, f: _Flags) -> list[_Proto]:
        """Any whitelisted verb (or a copula complement) with an object, when no specific rule fits.

        Predicates are the verb lemma plus a leading preposition ("expire_in"); the object is the head
        noun phrase. Third-party subjects need subject-verb agreement ("Memory sync completed" is a
        log line, not a claim) and system messages only state lasting, present-tense facts.
        """
        words = rest.split()
        if not words:
            return []
        w0 = words[0].lower().rstrip(".,!;:")
        after = rest.strip()[len(words[0]) :].strip()
        system = self.mode.role is Role.SYSTEM
        if system and (f.past or f.perfect):
            return []
        if f.be:
            vf = _VERB_FORM.get(w0)
            if vf is not None and vf[1] == "ing":
                return self._generic_verb(subject, vf[0], after, f)
            if w0 in _NOT_GUESSED_ING:
                return []  # "I'm hoping so", "I'm wondering about X", "I'm asking for a friend": talk, not a state
            if vf is None and _ING.match(w0) and after and w0 not in _NOT_GUESSED:
                # "the landlord is repainting the stairwell": a progressive of a verb the whitelist lacks
                stem = w0[:-3]
                if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
                    stem = stem[:-1]
                elif stem[-1] in "zvc" and stem[-2] in "aeiou":
                    stem += "e"  # "freezing" -> freeze, "reserving" -> reserve
                return self._generic_verb(subject, stem, after, f)
            if f.perfect and w0 == "to":
                obj, det_neg = _generic_object(after)
                p = self._mk(subject, "visited", obj, NodeType.FACT, f) if obj else None
                return [p] if p else []
            if w0 in _PREPS:
                obj, det_neg = _generic_object(after)
                if obj is None:
                    return []
                p = self._mk(subject, _snake("is", w0), obj, NodeType.FACT, f)
                return [p] if p else []
            if (vf is not None and vf[1] == "past") or (w0.endswith("ed") and len(w0) > 4) or (
                    w0 in _EN_PARTICIPLES and _GENERIC_PREP.match(after)):
                obj, prep = _generic_object_prep(after)
                if obj is None:
                    if after.strip() or not _BARE_VERB.match(words[0]) or w0 in _NOT_GUESSED:
                        return []
                    # "The bridge is probably warped": the participle is the state
                    p = self._mk(subject, "is", words[0], NodeType.FACT, f)
                    return [p] if p else []
                p = self._mk(subject, _snake(w0, prep or ""), obj, NodeType.FACT, f)
                return [p] if p else []
            if w0 in _GENERIC_BE_ADJ:
                p = self._mk(subject, "is", w0, NodeType.FACT, f)
                return [p] if p else []
            obj, det_neg = _clean_object(rest)
            if obj is None or len(obj.split()) > 4 or obj.split()[0].lower() in _BE_A_STOP:
                return []
            if obj.split()[0].lower() in _EVALUATIVE:
                return []  # "May is such a lovely month": an exclamation, not a fact
            if not _OBJECT_HEAD.match(obj):
                return []
            p = self._mk(subject, "is", obj, NodeType.FACT, f, lexneg=det_neg)
            num = _NUMBER.match(obj)
            if p is not None and num is not None and num.group("u") is not None and obj.startswith(num.group("n")):
                p.quantity = Quantity(value=num.group("n"), unit=num.group("u"), source_text=num.group("n"))
            return [p] if p else []
        if w0 in ("need", "needs") and not f.aux and after and not after.lower().startswith("to "):
            if subject in (self._owner(), "user", "assistant"):
                return []  # "I need a break": a want, not a fact worth keeping
            # "Expense claims above £200 need a receipt": a standing requirement
            obj, _ = _generic_object_prep(after)
            p = self._mk(subject, "needs", obj, NodeType.FACT, f) if obj else None
            return [p] if p else []
        vf = _VERB_FORM.get(w0)
        if vf is None and f.modal and _BARE_VERB.match(words[0]) and w0 not in _NOT_A_VERB:
            # "We could partition X", "I might swap X": after a modal the next word is a bare verb,
            # so the whitelist is not needed to tell it from a noun.
            vf = (w0, "base")
        if vf is None:
            vf = self._guess(subject, words[0], f)
        if vf is None:
            return []
        lemma, kind = vf
        if kind == "ing":
            return []
        if lemma == "have" and kind == "past" and not f.perfect:
            return []  # "I had a dog": a past state, not a current one
        if system and kind == "past":
            return []
        third_party = subject.lower() not in ("user", "assistant") and subject != self._owner()
        if third_party and not f.aux and kind == "base":
            head = subject.split()[-1].lower()
            if not head.endswith("s") or head.endswith("ss"):
                return []  # "Tool call timed out": no agreement, not a clause
        return self._generic_verb(subject, lemma, after, f, habitual=kind == "s", kind=kind)

    def _guess(self, subject: str, word: str, f: _Flags) -> tuple[str, str] | None:
        """Shape-based verb guess for the fallback parse when the whitelist does not know the word."""
        own = subject == self._owner() or subject in ("user", "assistant")
        if own:
            return _guess_verb(word, "any" if f.aux else "fp")
        g = _guess_verb(word, "s")
        head = subject.split()[-1].lower()
        plural = head.endswith("s") and not head.endswith(("ss", "us", "is"))
        if g is None and (f.aux or plural) and not word.lower().endswith("s"):
            g = _guess_verb(word, "any")  # "Lena doesn't babysit ...", "the beehives face ..."
        return g

    def _generic_verb(
        self, subject: str, lemma: str, after: str, f: _Flags, *, habitual: bool = False, kind: str = ""
    ) -> list[_Proto]:
        role = _AS_ROLE.search(after) if lemma in _AS_ROLE_VERBS else None
        if role is not None:
            # "I work night shifts as a paramedic", "spent 30 years as a civil engineer": the role is the point
            obj, _ = _clean_object(role.group("role"))
            p = self._mk(subject, "works_as", obj, NodeType.FACT, f) if obj else None
            if p is not None and (f.past or lemma == "spend"):
                p.predicate = "worked_as"
            return [p] if p else []
        if lemma in ("get", "have"):
            gm = _GOT_DONE.match(after)
            if gm is not None:
                # "got my motorbike rebuilt": the thing is the object, the participle names what happened
                obj, _ = _clean_object(gm.group("np"))
                p = self._mk(subject, _snake("got", gm.group("pp")), obj, NodeType.FACT, f) if obj else None
                return [p] if p else []
            if lemma == "get" and _GOT_THING.match(after) is None:
                return []  # "I got distracted", "got home late": a state or a trip, not a thing obtained
        part = ""
        aw = after.split()
        if aw and aw[0].lower() in _PARTICLES:
            part = aw[0].lower()
            after = after[len(aw[0]) :].strip()
            if part == "up" and after.lower().startswith("on "):
                after = after[3:]
        sm = _SEE_MYSELF.match(after) if lemma == "see" else None
        if sm is not None:
            return self._predicate(subject, after[sm.end() :], replace(f, be=False))
        obj, prep = _generic_object_prep(after)
        if obj is None:
            return []
        # "sold the camper" gives it up; "the bakery (no longer) sells momos" is a habit, negated only by the aux
        # a bare present without an auxiliary ("you sell the honey at the market") is a habit too
        bare_present = kind == "base" and not f.aux
        lexneg = (lemma in _GIVE_UP_VERBS and not habitual and not bare_present) or (lemma == "give" and part == "up")
        pred = _snake(lemma, part, prep or "")
        instead = None if lexneg or f.neg else _instead_of(after)
        p = self._mk(subject, _GENERIC_PREDICATES.get(pred, pred), obj, NodeType.FACT, f, lexneg=lexneg,
                     update=lexneg or instead is not None, replaces=obj if lexneg else instead)
        return [p] if p else []

    def _mk(self, subject: str, predicate: str, obj: str | None, node: NodeType, f: _Flags, *,
            lexneg: bool = False, update: bool = False, replaces: str | None = None) -> _Proto | None:
        if lexneg and f.neg:
            return None  # "don't hate": double negation is not a claim we can type
        negative = lexneg or f.neg
        is_update = update or f.update
        if negative and f.update and replaces is None:
            replaces = obj
        return _Proto(subject, predicate, obj, node, negative=negative, hedge=f.hedge or (f.would and not f.future),
                      update=is_update, replaces=replaces)

    def _cue_claim(
        self, subject: str, act: tuple[str, str] | None, f: _Flags, node: NodeType, *, speech_act: bool = True
    ) -> list[_Proto]:
        if act is None:
            return []
        predicate, rest = act
        rest = rest.strip()
        bare = _LEAD_OBJ_PRONOUN.sub("", rest)
        if bare != rest and rest.split()[0].lower() in _THIRD_PERSON and _ADJUNCT_START.match(bare):
            return []  # "need to do it by Friday": the pronoun was the object, and it is named elsewhere
        rest = bare
        due = None
        if node is NodeType.TASK:
            dm = _DUE.search(" " + rest)
            if dm is not None:
                due = dm.group("due").strip().rstrip(".!")
        obj, det_neg = _clean_object(rest) if rest else (None, False)
        if rest.strip() and obj is None and rest.split()[0].lower() in _BAD_OBJECT:
            return []  # an action with an unusable object ("want to call you") is not a claim
        p = self._mk(subject, predicate, obj, node, f)
        if p is None:
            return []
        if predicate.startswith("wants_to") and f.would:
            p.hedge = f.hedge and not f.would
        # Only the §8.8 cue verbs (try/plan/want/need/...) are speech acts; "have to", "must" and
        # "remind me to" are plain obligations, typed by the role table like any statement.
        p.speech_act = speech_act and not predicate.startswith("will_")
        if due:
            p.metadata["due"] = due
        p.negative ^= det_neg
        return [p]

    def _prefers(self, subject: str, x: str, y: str | None, f: _Flags) -> list[_Proto]:
        obj, _ = _clean_object(x)
        if obj is None:
            return []
        p = self._mk(subject, "prefers", obj, NodeType.PREFERENCE, f)
        if p is None:
            return []
        if y:
            other, _ = _clean_object(y)
            if other:
                p.metadata["over"] = other
        return [p]

    def _decision(self, subject: str, m: re.Match[str], f: _Flags) -> list[_Proto]:
        negative = False
        body = m.group("body") or m.group("body2")
        if body is not None:
            negative = bool(m.group("not") or m.group("not2"))
            act = _action(body, "decided_to")
            if act is None:
                return []
            predicate, rest = act
            verb = predicate[len("decided_to_") :].split("_")[0]
            update = verb in ("switch", "move")
            if verb in _CHOICE_ACTIONS:
                predicate = "chose"
                rest = re.sub(r"^(?:with|to|for|on)\s+", "", rest.strip(), flags=I)
            obj, _ = _clean_object(rest)
            if obj is None:
                return []
            p = self._mk(subject, predicate, obj, NodeType.DECISION, f, lexneg=negative, update=update)
            return [p] if p else []
        if m.group("on") is not None:
            negative = m.group("on").lower() == "against"
            raw = m.group("obj")
        elif m.group("obj2") is not None:
            raw = m.group("obj2")
        else:
            negative = True
            raw = m.group("obj3")
        obj, _ = _clean_object(raw)
        if obj is None:
            return []
        p = self._mk(subject, "chose", obj, NodeType.DECISION, f, lexneg=negative)
        return [p] if p else []

    def _be_complement(self, subject: str, rest: str, f: _Flags) -> list[_Proto] | None:
        if _FOR_ME.match(rest) and subject not in (self._owner(), "user", "assistant"):
            p = self._mk(self._owner(), "likes", subject, NodeType.PREFERENCE, f)
            return [p] if p else []
        m = _AGE.match(rest)
        if m is not None and _UNIT_AFTER.match(rest, m.end()) is None and _NOT_AGE_AFTER.match(rest, m.end()) is None:
            n = m.group("n")
            obj = rest[: m.end()].strip()
            p = self._mk(subject, "age", obj, NodeType.FACT, f)
            if p is None:
                return []
            p.quantity = Quantity(value=n, unit="years", source_text=n)
            return [p]
        first = rest.split()[0].lower().rstrip(".,!") if rest.split() else ""
        if first in _ADJECTIVES:
            obj = rest.split()[0].rstrip(".,!")
            p = self._mk(subject, "is", obj, NodeType.FACT, f)
            return [p] if p else []
        if _FAN_OF.match(rest):
            return None  # handled by the verb table
        m = _BE_A.match(rest)
        if m is not None:
            noun, _ = _clean_object(m.group("obj"))
            if noun is None or noun.split()[0].lower() in _BE_A_STOP or len(noun.split()) > 3:
                return []
            p = self._mk(subject, "is_a", noun, NodeType.FACT, f)
            return [p] if p else []
        return None


# --- role-specific proposers -----------------------------------------------------------

#: "you" opening a settled statement, not advice ("you could ...", "you should ...").
_YOU_SETTLED: Final = (
    r"(?=\s+you(?:'ve|'re|\s+(?!(?:could|should|might|may|can|would|will|must|need|want|'ll|'d)\b)))"
)
_ATTRIBUTION: Final = re.compile(
    r"\b(?:you(?:'ve|\s+have)?\s+(?:told|said|mentioned|noted|shared|indicated|stated)(?:\s+(?:to\s+)?me)?"
    r"(?:\s+(?:earlier|before|previously|last time))?,?(?:\s+that)?|as you(?:'ve|\s+have)?\s+"
    r"(?:said|mentioned|noted|told\s+(?:me|us)|explained|shared|indicated|stated)"
    r"(?:\s+(?:earlier|before))?,?|I(?:'ve|\s+have)\s+noted\s+that|I(?:'ll|\s+will)\s+remember\s+that|"
    r"according to you,?|(?:it\s+)?(?:sounds|seems|looks)\s+like" + _YOU_SETTLED + r")\s+(?P<clause>.+)$|"
    r"^(?:since|because|given that|as)\s+(?P<sub>you(?:'re|'ve|\s)[^,]+?),",
    I,
)
_INTERJECTION: Final = r"^(?:(?:ok(?:ay)?|sure|of course|certainly|absolutely|got it|great|no problem|will do|" \
    r"sounds good|done|all set|perfect|alright|understood|noted)[,.!:]?\s+)*"
_COMMITMENT: Final = re.compile(
    _INTERJECTION + r"I(?:'ll|\s+will|\s+shall|'m\s+going\s+to|\s+am\s+going\s+to)\s+"
    r"(?:also\s+|now\s+|then\s+|definitely\s+|go ahead and\s+)?"
    # any action verb: "I'll post ...", "I'll open a ticket ..." -- except verbs that announce talk, a
    # state or an attempt rather than an act ("I'll explain", "I'll be", "I'll try", "I'll assume")
    r"(?P<body>(?:keep\s+(?:an\s+eye|tabs|track)\s+(?:on|of)\s|"
    r"(?!(?:be|have|need|let|see|think|try|assume|explain|walk|note|guess|bet|admit|say|mention|"
    r"describe|outline|summari[sz]e|clarify|answer|help|do|keep|take|start|begin|go|get|give|leave|point|"
    r"just|happily|gladly|probably|maybe|also|not|never)\b)(?-i:[a-z]{2,})\b).*)$",
    I,
)
_KEEP_WATCH: Final = re.compile(r"^keep\s+(?:an\s+)?(?P<how>eye|tabs|track)\s+(?P<prep>on|of)\s+", I)
_COMPLETED: Final = re.compile(
    _INTERJECTION + r"I(?:'ve|\s+have)?\s+(?:just\s+|already\s+|now\s+|successfully\s+)?"
    r"(?P<verb>set up|set|sent|made|put|built|paid|(?!(?:summari[sz]|list|outlin|explain|includ|highlight|not|"
    r"attach|mention|assum|decid|tri|wonder|want|need|check|look|ask)ed\b)[a-z]{2,}ed)"
    r"\s+(?P<rest>.+)$",
    I,
)
#: "You prefer window seats", "Your team rejected X": a fact the assistant states about the user.
_DIRECT_ATTRIBUTION: Final = re.compile(
    rf"^(?:{ASSISTANT_ACK})?"
    r"(?P<clause>(?:you|your\s+[\w-]+(?:\s+[\w-]+)?)\s+"
    r"(?!(?:could|should|might|may|can|would|will|must|need|want|'ll|'d|'re|are|were|have to|got)\b).+)$|"
    rf"^{ASSISTANT_ACK}(?P<clause2>{ACK_YOU_ARE}.+)$|"
    rf"^{ACK_THIRD_PARTY}(?P<clause3>.+)$",
    I,
)
#: Inside a restatement, "and the/your/you ..." opens the next restated fact.
_RESTATE_AND: Final = re.compile(r",?\s+and\s+(?=(?:the|your|you)\s)", I)
_COMPLETED_TAIL: Final = re.compile(
    r",|;|\s(?:so|because|since|and I|but|which|as you|if|unless|below|above|here)\b|\.(?:\s|$)", I
)


#: Where an assistant sentence turns to its own commitment or completed action: ", so I'll", " — I'll", "; I've".
_ASSISTANT_JOINT: Final = re.compile(
    r"\s*(?:,|;|\s[-\u2013\u2014]+|[-\u2013\u2014]+)\s*(?:(?:so|and|then|and\s+then)\s+)?"
    r"(?=I(?:'ll|\s+will|\s+shall|'m\s+going\s+to|\s+am\s+going\s+to|'ve|\s+have)\s)",
)


_COMMA_GAP: Final = re.compile(r"\s*,\s+,\s*")
#: ", pescatarian now" after a negated update ("I'm not vegetarian anymore, pescatarian now"): the new value,
#: stated without repeating subject and verb.
_ELLIPTIC_NEW: Final = re.compile(
    r",\s+(?:(?:but|and)\s+)?(?!(?:I|we|my|our|you|your|he|she|they|it|this|that|there|always|never|please|"
    r"don't|do)\b)"
    r"(?:(?:now|these days|nowadays)\s+(?P<a>[^,;]{1,40}?)|(?P<b>[^,;]{1,40}?)\s+(?:now|instead|these days|nowadays))"
    r"\s*$",
    I,
)
_AND_VERB: Final = re.compile(r",?\s+and\s+(?:then\s+)?(?P<w>[a-z]+)\b", I)
#: "Only if X will we launch": after the condition is blanked, the inverted auxiliary comes first.
_INVERTED: Final = re.compile(r"^(?P<a>will|shall|would|may|can|must|should|do|does)\s+(?P<s>we|I|you)\s+", I)


def _split_and_verb(clause: str, *, base_ok: bool = False) -> list[str]:
    """Split "sold X and bought Y" at "and" + a past/-s verb form: two propositions with one subject.

    ``base_ok`` also splits at a bare form ("you cycle to work and take the train"), for clauses whose
    subject is "you"/"I"/"we", where the bare form is the agreeing one.
    """
    if " and " not in clause:
        return [clause]
    out: list[str] = []
    pos = 0
    kinds = ("past", "s", "base") if base_ok else ("past", "s")
    for m in _AND_VERB.finditer(clause):
        vf = _VERB_FORM.get(m.group("w").lower())
        if vf is None or vf[1] not in kinds:
            continue
        out.append(clause[pos : m.start()])
        pos = m.start("w")
    out.append(clause[pos:])
    return out


#: Operating instructions in system prompts: "You must ...", "Responses should ...", "You may share ...".
_SYSTEM_MODAL: Final = re.compile(
    r"^(?:you|(?:your\s+|all\s+|the\s+)?(?:responses|answers|replies|messages|outputs?|summaries)|the assistant|"
    r"assistant)\s+(?:must|should|will|shall|may|can|are to|need to|have to)\s+(?P<n>not\s+|never\s+)?"
    r"(?:always\s+)?(?P<b>.+)$",
    I,
)


def _line_spans(text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        out.append((pos, pos + len(line)))
        pos += len(line) + 1
    return out


_TOOL_SKIP_KEYS: Final = _words(
    """timestamp time ts took elapsed duration duration_ms latency latency_ms request_id trace_id span_id
    level log_level http_status status_code url endpoint method headers progress eta pct percent_done
    percent_complete attempt retry retries"""
)
#: Keys that only name what was asked about (the query, not the result): never a claim of their own.
_TOOL_QUERY_KEYS: Final = _words(
    """city town country location place job branch domain host hostname number amount mount service event
    query q search term input repo repository project user username account path file filename endpoint_name
    from to source target page limit offset id uuid episode episode_id substance drug patient patient_id customer
    customer_id user_id order_id record record_id item item_id sku subject entity"""
)
#: Bare acknowledgements ({"ok": true}) carry no result.
_TOOL_ACK_KEYS: Final = _words("ok success succeeded acknowledged ack done")
_FORWARDED: Final = r"(?:forwarded|fwd)\s+(?:e-?mail|mail|promo(?:tion)?|message|newsletter|offer|tip|flyer)\b"
_RELAY: Final = re.compile(
    r"^\s*(?P<src>[\w .\-/]{1,60}?)\s*\((?P<paren>[^()\n]{0,120}?\b(?:unverified|unofficial|third[- ]party|"
    r"external|forwarded|scraped|user[- ]generated)\b[^()\n]{0,80})\)\s*:\s*(?P<body>.+)$|"
    r"^\s*(?P<src2>(?:forwarded email|scraped[_ ]page|web[_ ]search(?: result)?|rss(?: item)?|review[_ ]site|"
    r"news\.fetch))\s*(?:\((?P<paren2>[^()\n]{0,120})\))?\s*:\s*(?P<body2>.+)$|"
    r"^\s*(?P<src3>[\w.\-/]{1,40})\s+" + _FORWARDED + r"[^:\n]{0,60}:\s*(?P<body3>\S.*)$",
    I,
)
#: The first line of a relayed message spread over several lines ("mail.forward (forwarded email)").
_RELAY_HEAD: Final = re.compile(
    r"[ \t]*(?P<src>[\w .\-/]{1,60}?)\s*\([^()\n]{0,120}?\b(?:unverified|unofficial|third[- ]party|external|"
    r"forwarded|scraped|user[- ]generated)\b[^()\n]{0,80}\)\s*:?[ \t]*$|"
    r"[ \t]*(?P<src2>[\w.\-/]{1,40})\s+" + _FORWARDED + r"[^:\n]{0,60}:?[ \t]*$",
    I,
)
#: A relayed statement's envelope ("From Harbour Gear — ", "Fwd: "): who sent it, not what it says.
_RELAY_ENVELOPE: Final = re.compile(
    r"^(?:(?:fwd?|fw|re)\s*:\s*)*(?:from:?\s+[^\u2014\u2013:\n]{1,60}?\s*(?:[\u2014\u2013:]|\s-)\s*)?", I
)
_ENVELOPE_KEYS: Final = _words("from to cc bcc date sent sender reply-to received")
_BODY_KEYS: Final = _words("body text message content")
#: A command-style first line: a dotted or underscored tool name, then its arguments ("ci.build_status build=482").
_COMMAND_HEAD: Final = re.compile(r"^\s*[a-z][\w-]*(?:[._][\w-]+)+\s+[A-Za-z_][\w.\-]*=")
_RELAY_STATEMENT: Final = re.compile(r"\"(?P<q>[^\"\n]{3,300})\"|\u201c(?P<q2>[^\u201d\n]{3,300})\u201d")
_ID_KEY: Final = re.compile(r"(?:^|_)(?:id|uuid|version|phone|zip|postcode|year|date|sha|hash|port)$")
_KV_EQ: Final = re.compile(r"(?P<key>[A-Za-z_][\w.\-]{0,40})=(?P<val>\"[^\"\n]*\"|[^\s,;]+)")
_KV_COLON: Final = re.compile(r"^\s*(?:[-*]\s+)?(?P<key>[A-Za-z][\w .\-/]{0,40}?)\s*:\s+(?P<val>\S.*?)\s*$")
_LOGLIKE: Final = re.compile(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?(?:DEBUG|INFO|WARN|WARNING|ERROR|TRACE|FATAL)\b)"
)
_FORMATTING: Final = re.compile(r"^[\s\-=*_|+#>`~.:]*$")
_TOOL_NUMBER: Final = re.compile(r"^(?P<n>[+-]?\d+(?:\.\d+)?)\s*(?P<u>[A-Za-z%\u00b0][A-Za-z/\u00b0]*)?$")


#: Progress bars ("[=====>   ] 50%", "████░░ 80%") and step counters ("step 3/5", "Downloading... 3/10").
_PROGRESS_LINE: Final = re.compile(
    r"[\[|][=#>\-.\u2588\u2591\u2592\u2593 ]{3,}[\]|]|[\u2588\u2591\u2592\u2593]{3,}|"
    r"\d\s*(?:[KMGT]i?B|[kMG]?bytes|[kMG]?b)/s(?:ec)?\b|\beta[=:]?\s*\d|^\s*(?:rsync|wget|curl|scp|pip|npm)\b|"
    r"\b(?:sent|received|transferred|copied|downloaded|uploaded)\s+[\d,.]+\s*(?:[KMGT]i?B|bytes|files)\b|"
    r"^\s*(?:step|stage|batch|chunk|page)\s+\d+\s*/\s*\d+|^\s*\w+ing\b[^=:\n]*?(?:\.{2,}|\u2026)\s*\d+\s*(?:/\s*\d+|%)",
    I,
)
_MEASURE_VALUE: Final = re.compile(r"^[+-]?\d[\d,]*(?:\.\d+)?\s*(?:%|[A-Za-z/\u00b0]{1,5})?$")
#: First-position keys that are results, not selectors ("status=failed job=..." reports the status).
_RESULT_KEYS: Final = _words(
    "status state result outcome verdict health ok error errors message summary forecast carrier condition reason tier"
)


def _is_selector(key: str, value: str) -> bool:
    """Whether the first ``key=value`` of a line only names the thing queried (``warehouse=north-2 stock=412``).

    Decided by shape: tools echo what they were asked about before the result fields, under a bare
    one-word key (results are usually compound: ``crash_rate``, ``p99_latency_ms``) with a non-numeric
    value. Later pairs are results even when they look like codes (``region=eu-west-1``).
    """
    k = key.lower()
    return k.isalpha() and k not in _RESULT_KEYS and _MEASURE_VALUE.match(value) is None


@dataclass
class _Proposal:
    proto: _Proto
    quote: str
    condition: str | None
    uncertain: bool
    source_type: SourceType | None = None


_RETIRING_TYPES: Final = frozenset({EpistemicType.ASSERTED, EpistemicType.OBSERVED})


class RuleExtractor:
    """Regex extractor; deterministic and stateless, safe to share between threads."""

    name: str = "rules"
    version: str = EXTRACTOR_VERSION

    def __init__(self, grounding_method: str = DEFAULT_GROUNDING_METHOD) -> None:
        self.grounding_method = grounding_method

    def extract(self, event: ConversationEvent) -> ExtractionResult:
        ctx = SourceText(event.content)
        proposed = self.propose(event, ctx)
        outcome = validate_with_context(event, proposed, ctx, grounding_method=self.grounding_method)
        source_hash = sha256_hex(event.content)
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
        ctx = ctx or SourceText(event.content)
        proposals = self._tool(event) if event.role is Role.TOOL else self._conversational(event, ctx)
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

    def _to_claim(self, event: ConversationEvent, prop: _Proposal) -> Claim:
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

    def _conversational(self, event: ConversationEvent, ctx: SourceText) -> list[_Proposal]:
        role = event.role
        if role in (Role.USER, Role.HUMAN):
            mode = _Mode(role, "user", speaker=event.speaker)
        elif role is Role.PARTICIPANT:
            mode = _Mode(role, event.speaker or "participant", speaker=event.speaker)
        elif role is Role.SYSTEM:
            # a system prompt speaks to the assistant: "you"/"your" are the assistant ("Your name is Tui")
            mode = _Mode(role, "assistant", attribution=True)
        else:
            mode = _Mode(role, "assistant", speaker=event.speaker)
        parser = _Parser(mode)
        attrib = _Parser(_Mode(role, "user", attribution=True)) if role is Role.ASSISTANT else None
        content = ctx.content
        work = content.translate(APOSTROPHES) if _NEEDS_TRANSLATE.search(content) else content
        if _MAY_BE_PASTED.search(work):
            work = _PASTED.sub(lambda m: " " * len(m.group()), work)
        out: list[_Proposal] = []
        sentences = ctx.sentences
        for si, sent in enumerate(sentences):
            s_work = work[sent.span.start : sent.span.end]
            if not s_work.strip() or ctx.question(s_work) or _EXAMPLE_START.match(s_work):
                continue
            if _INDIRECT_Q.search(s_work):
                continue
            qual_text = ""
            if si + 1 < len(sentences) and sentences[si + 1].para == sent.para:
                nxt = ctx.text(sentences[si + 1].span)
                if QUALIFIER_START.search(nxt):
                    qual_text = nxt
            for seg in sent.segments:
                seg_src = content[seg.start : seg.end]
                seg_work = work[seg.start : seg.end]
                scope = seg_src + (" " + qual_text if qual_text else "")
                conds = ctx.conditions(scope)
                condition = None
                if conds:
                    c0 = conds[0]
                    condition = scope[c0[0] : c0[1]]
                uncertain = ctx.uncertain(scope)
                # Blank the condition clauses of this segment so they are not parsed as statements.
                blanked = ctx.conditions(seg_src)
                for cs, ce in blanked:
                    seg_work = seg_work[:cs] + " " * (ce - cs) + seg_work[ce:]
                if blanked and "," in seg_work:
                    # "My sister, if her flight lands, will join us": the main clause closes over the gap
                    seg_work = _COMMA_GAP.sub(" ", seg_work)
                quote = seg_src.strip()
                protos = self._segment_protos(seg_work, parser, attrib, role, bool(conds))
                out.extend(_Proposal(p, quote, condition, uncertain) for p in protos)
        return out

    _CLAUSE_SPLIT: Final = re.compile(
        r",\s+(?:so\s+|then\s+)?(?=(?:and\s+)?(?:I|we|my|our|you|your)\b)|"
        r"\s+[-\u2013\u2014]+\s+(?:so\s+|and\s+)?(?=(?:I|we|my|our)\b)|"
        r",?\s+and\s+(?=(?:I|we|my|our|you|your|(?-i:[A-Z][a-z]+))\s)|"
        r",?\s+and\s+(?=(?:don't|doesn't|do not|never|also|now|loves?|likes?|hates?|uses?|works?|lives?|prefers?|"
        r"speaks?|have|has|owns?|joined|left|moved|switched|enjoys?|dislikes?|can't stand|runs?|plays?|studies|"
        r"study|drinks?|eats?)\b)",
        I,
    )

    def _segment_protos(
        self, seg: str, parser: _Parser, attrib: _Parser | None, role: Role, conditional: bool
    ) -> list[_Proto]:
        seg = _LEAD_JOINT.sub("", seg)
        seg = seg.strip().rstrip(".!").strip()
        seg = _LEAD_COMMA.sub("", seg)
        if not seg:
            return []
        if role is Role.ASSISTANT:
            return self._assistant(seg, parser, attrib)
        if conditional and role in (Role.USER, Role.HUMAN, Role.PARTICIPANT) and _IMPERATIVE.match(seg):
            body = seg.strip().rstrip(".!")
            return [_Proto("assistant", "should", body, NodeType.INSTRUCTION)]
        protos: list[_Proto] = []
        subject: str | None = None
        if conditional:
            seg = _INVERTED.sub(lambda m: f"{m.group('s')} {m.group('a')} ", seg, count=1)
        elliptic = None
        if "," in seg:
            low = seg.lower()
            if "now" in low or "instead" in low or "these days" in low:
                elliptic = _ELLIPTIC_NEW.search(seg)
        if elliptic is not None:
            seg = seg[: elliptic.start()]
        parts = self._CLAUSE_SPLIT.split(seg)
        if _INSTR_PAIR_START.match(seg) and "," in seg:
            parts = _INSTR_PAIR_SPLIT.split(seg)
        for part in parts:
            for clause in _split_and_verb(part):
                got, subject = parser.parse(clause, subject)
                protos.extend(got)
        if elliptic is not None and protos and protos[-1].negative and protos[-1].update:
            new, _ = _clean_object(_LEAD_ADV.sub("", elliptic.group("a") or elliptic.group("b")))
            if new is not None:
                old = protos[-1]
                protos.append(_Proto(old.subject, old.predicate, new, old.node_type, hedge=old.hedge, update=True))
        return protos

    def _assistant(self, seg: str, parser: _Parser, attrib: _Parser | None) -> list[_Proto]:
        if "I" in seg:
            parts = _ASSISTANT_JOINT.split(seg)
            if len(parts) > 1:
                # "You said the venue holds 80, so I'll draft a plan", "Noted — I'll send it": each part stands alone
                return [p for part in parts if part.strip() for p in self._assistant_one(part.strip(), parser, attrib)]
        return self._assistant_one(seg, parser, attrib)

    def _restated(self, clause: str, attrib: _Parser) -> list[_Proto]:
        """Every fact of a restatement ("you keep bees, and you sell the honey"), the subject carried over."""
        if " and " not in clause and "," not in clause:
            return attrib.parse(clause, None)[0]
        protos: list[_Proto] = []
        subject: str | None = None
        for part in self._CLAUSE_SPLIT.split(clause):
            for sub in _RESTATE_AND.split(part):
                for one in _split_and_verb(sub, base_ok=True):
                    got, subject = attrib.parse(one, subject)
                    protos.extend(got)
        return protos

    def _assistant_one(self, seg: str, parser: _Parser, attrib: _Parser | None) -> list[_Proto]:
        m = _ATTRIBUTION.search(seg)
        if m is None and attrib is not None:
            m = _DIRECT_ATTRIBUTION.match(seg)
        if m is not None and attrib is not None:
            found = m.groupdict()
            clause = found.get("clause") or found.get("clause2") or found.get("clause3") or found.get("sub") or ""
            protos = self._restated(clause, attrib)
            for p in protos:
                p.epistemic = EpistemicType.INFERRED
            return [p for p in protos if p.subject != "assistant"]
        m = _COMMITMENT.match(seg)
        if m is not None:
            body = m.group("body")
            km = _KEEP_WATCH.match(body)
            # "I'll keep an eye on the shipment": the watched thing is the object, not "eye"
            act = (_snake("will_keep", km.group("how"), km.group("prep")), body[km.end() :]) if km else _action(
                body, "will")
            if act is None:
                return []
            protos = parser._cue_claim("assistant", act, _Flags(), NodeType.TASK)
            # "I'll continue": with any verb allowed, a commitment must name what it is about
            return [p for p in protos if p.object is not None]
        m = _COMPLETED.match(seg)
        if m is not None:
            said = m.group("rest").strip()
            rest = re.sub(r"^(?:you|it)\s+(?=\S)", "", said, flags=I)
            if said[:3].lower() == "it " and (_ADJUNCT_START.match(rest) or _LEAD_PREP.match(rest)):
                return []  # "I booked it for Friday": what was booked is named in an earlier message
            if re.search(r"\b(?:below|above)\b", rest, I):
                return []  # "I've summarised the risks below": describes this very message
            # A completed action keeps its whole complement ("a table for two at Cantina 31 on Friday"):
            # the details are the point, and the quote check still ties every word to the source.
            tail = _COMPLETED_TAIL.search(rest)
            full = _strip_det(rest[: tail.start()] if tail else rest).strip().rstrip(".!")
            obj = full if full and len(full.split()) <= 12 and full.lower() not in _BAD_OBJECT else None
            if obj is None:
                return []
            return [_Proto("assistant", _snake(m.group("verb")), obj, NodeType.FACT)]
        return []

    # -- tool output ---------------------------------------------------------------------
    def _tool(self, event: ConversationEvent) -> list[_Proposal]:
        content = event.content
        tool_name = event.speaker or (event.metadata.get("tool_name") if event.metadata else None)
        subject = str(tool_name) if isinstance(tool_name, str) and tool_name.strip() else "tool"
        out: list[_Proposal] = []
        relay = _RELAY.match(content)
        if relay is not None:
            self._tool_relay(out, relay)
            return out
        lines = _line_spans(content)
        head = next(((ls, le) for ls, le in lines if content[ls:le].strip()), None)
        if head is not None and ("forward" in content or "(" in content):
            hm = _RELAY_HEAD.match(content, head[0], head[1])
            if hm is not None:
                self._tool_relay_lines(out, hm.group("src") or hm.group("src2"), content, lines, head)
                return out
        stripped = content.strip()
        if stripped.startswith("{"):
            try:
                data = json.loads(stripped)
            except ValueError:
                data = None
            if isinstance(data, dict):
                for key, value in data.items():
                    if isinstance(value, dict | list) or value is None:
                        continue
                    lit = json.dumps(value, ensure_ascii=False)
                    m = re.search(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:\s*" + re.escape(lit), content)
                    if m is None:
                        continue
                    val = value if isinstance(value, str) else lit
                    self._tool_pair(out, subject, key, str(val), m.group())
                return out
        multi = len([1 for ls, le in lines if content[ls:le].strip()]) > 1
        for ls, le in lines:
            line = content[ls:le]
            if not line.strip() or _LOGLIKE.search(line) or _FORMATTING.match(line):
                continue
            if _PROGRESS_LINE.search(line):
                continue  # progress bars and step counters are logs, not results
            pairs = list(_KV_EQ.finditer(line))
            if pairs:
                # "ci.build_status build=482" over "key: value" lines: the header names the record queried
                header = multi and head is not None and ls == head[0] and _COMMAND_HEAD.match(line) is not None
                for i, pm in enumerate(pairs):
                    key, val = pm.group("key"), pm.group("val").strip('"')
                    if i == 0 and len(pairs) > 1 and _is_selector(key, val):
                        continue
                    if header and (_ID_KEY.search(key.lower()) or (key.isalpha() and key.lower() not in _RESULT_KEYS)):
                        continue
                    self._tool_pair(out, subject, key, val, pm.group())
                continue
            cm = _KV_COLON.match(line)
            if cm is not None:
                self._tool_pair(out, subject, cm.group("key"), cm.group("val"), line.strip())
        return out

    def _tool_relay(self, out: list[_Proposal], m: re.Match[str]) -> None:
        """A tool relaying an outside source (search hit, scraped page, forwarded mail): what the source *says*.

        The statement is not the tool's own measurement, so it is typed UNVERIFIED with source
        EXTERNAL_DOCUMENT; the claim is "<source> reports <statement>" rather than the statement's
        own triple, because nothing vouches for it.
        """
        src = (m.group("src") or m.group("src2") or m.group("src3") or "source").strip()
        body = m.group("body") or m.group("body2") or m.group("body3") or ""
        statements = [q.group("q") or q.group("q2") for q in _RELAY_STATEMENT.finditer(body)] or [body]
        for st in statements:
            self._relay_statement(out, src, st)

    def _tool_relay_lines(
        self, out: list[_Proposal], src: str, content: str, lines: list[tuple[int, int]], head: tuple[int, int]
    ) -> None:
        """A relayed message over several lines: its body (or subject) lines are what the source says.

        Envelope fields (from, to, date, ...) only say where it came from, and a subject line is a
        headline, used only when there is no body.
        """
        bodies: list[tuple[str, str]] = []  # (statement, quote)
        subjects: list[tuple[str, str]] = []
        for ls, le in lines:
            if ls <= head[0]:
                continue
            line = content[ls:le].strip()
            if not line or _FORMATTING.match(line) or _LOGLIKE.search(line):
                continue
            cm = _KV_COLON.match(line)
            key = cm.group("key").strip().lower() if cm is not None else ""
            if key in _ENVELOPE_KEYS:
                continue
            text = cm.group("val") if cm is not None and key in _BODY_KEYS | {"subject"} else line
            # the quote runs from the header (which names the source) to the statement's line
            (subjects if key == "subject" else bodies).append((text, content[head[0] : le].strip()))
        for st, quote in bodies or subjects:
            self._relay_statement(out, src.strip(), st, quote)

    def _relay_statement(self, out: list[_Proposal], src: str, statement: str, quote: str | None = None) -> None:
        text = _RELAY_ENVELOPE.sub("", statement.strip()).strip().rstrip(".!").strip()
        if not text or len(text) > 200 or len(text.split()) < 2:
            return
        proto = _Proto(src, "reports", text, NodeType.FACT, epistemic=EpistemicType.UNVERIFIED)
        proto.metadata["relayed_source"] = src
        out.append(_Proposal(proto, quote or text, None, False, SourceType.EXTERNAL_DOCUMENT))

    def _tool_pair(self, out: list[_Proposal], subject: str, key: str, value: str, quote: str) -> None:
        pred = _snake(key)
        value = value.strip()
        if not pred or not value or pred in _TOOL_SKIP_KEYS or len(value) > 200:
            return
        if pred in _TOOL_QUERY_KEYS or (pred in _TOOL_ACK_KEYS and value.lower() in ("true", "false", "yes", "1")):
            return
        # Status/state values are reported results ("status=failed"), typed FACT like other fields.
        proto = _Proto(subject, pred, value, NodeType.FACT)
        num = _TOOL_NUMBER.match(value)
        if num is not None and _ID_KEY.search(pred) is None:
            proto.quantity = Quantity(value=num.group("n"), unit=num.group("u") or "1", source_text=num.group("n"))
        out.append(_Proposal(proto, quote, None, False))
