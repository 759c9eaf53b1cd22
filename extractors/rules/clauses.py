"""The clause parser every role shares: segments, clauses, subjects, auxiliaries, objects.

It owns what is the same whoever speaks: the walk over sentences and contrastive segments (pasted
material, examples and questions skipped, condition clauses blanked but kept as the claim's
condition, hedges noted), the split of a segment into clauses, clause openers and hedge prefixes
(with their negation: "I don't think ..."), subjects, the auxiliary group (negation, modality, tense,
update cues) and the trimming of an object phrase to its head noun phrase. What a clause says after
its verb group is the statement grammar's (:mod:`extractors.rules.user`); each role adds the clause
kinds only it has (:mod:`extractors.rules.system`, :mod:`extractors.rules.assistant`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from extractors.rules.lexicon import (
    ADVERB_OBJECT,
    AMBIGUOUS_NAMES,
    BAD_OBJECT,
    BARE_NP_AUX,
    BE_AUX,
    CASUAL_TAILS,
    CASUAL_WORDS,
    COPULA_NEXT,
    DEMONSTRATIVES,
    DET_NEXT,
    DET_WORDS,
    FUTURE_AUX,
    HEDGE_AUX,
    KEEP_PP_HEAD,
    MODAL_AUX,
    MODAL_NEXT,
    NAME_NOT_MODAL,
    NEG_AUX,
    NOT_DONE,
    NOT_GUESSED,
    NP_STOP,
    PARTICLES,
    PAST_AUX,
    PERFECT_AUX,
    PREPS,
    QUALIFICATIONS,
    RELATION,
    S_DROP_ES,
    SUBJ_STOP,
    TOPIC_VERDICT,
    UPDATE_AUX,
    VERB_FORM,
    VERB_RX,
)
from extractors.rules.proto import Proto
from extractors.text import APOSTROPHES, QUALIFIER_START
from extractors.validation import SourceText

I: Final = re.IGNORECASE  # noqa: E741 - reads like a regex flag


# --- pre-processing: things that are not the speaker's own statements -----------------------------

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


# --- segments and clauses -------------------------------------------------------------------------

_LEAD_JOINT: Final = re.compile(r"^\s*[,;]?\s*(?:but|whereas|although|though|while|however)\b,?\s*", I)
_LEAD_COMMA: Final = re.compile(r"^[,;\s]+")
_COMMA_GAP: Final = re.compile(r"\s*,\s+,\s*")
#: "Only if X will we launch": after the condition is blanked, the inverted auxiliary comes first.
INVERTED: Final = re.compile(r"^(?P<a>will|shall|would|may|can|must|should|do|does)\s+(?P<s>we|I|you)\s+", I)


#: A cheap test before the rewrite: a lower-case start, or a word only chat spells that way.
_CASUAL_HINT: Final = re.compile(r"^[a-z]|'cause|'cos|(?<![\w'])(?:dont|cant|im|ive|i|u|cause|cuz|cos|ill|wont|"
                                 r"didnt|doesnt|isnt|rn|lol|tbh|ngl|fr|pls|tmrw|haha|lmao|ugh|definately|usualy|untill|recieved|gonna|"
                                 r"wanna|imo|atm|bc|abt|prolly|lowkey|highkey|def|luv|lo+o+ve|ha+a+te|r)(?![\w'])"
                                 r"|\s=\s", I)
_CASUAL: Final = re.compile(
    r"(?<![\w'])(?:(?P<w>" + "|".join(sorted((re.escape(w) for w in CASUAL_WORDS), key=len, reverse=True)) + r")"
    r"|(?P<cause>'?cause|'cos|cuz)(?=\s+(?:I|i|we|it|it's|my|our|the|he|she|they|you|there)\b)"
    r"|(?P<ill>ill)(?=\s+(?:be|bring|do|go|have|take|call|get|make|send|pick|check|try|need|see|text|let)\b)"
    r"|(?P<tail>" + "|".join(sorted(CASUAL_TAILS)) + r")"
    # stretched taste verbs ("looove", "luv", "haaate"): read as the verb, whatever the stretch
    r"|(?P<love>lo+o+ve+|lu+v+|lu+ve|wuv)(?P<love_s>s)?|(?P<hate>ha+a+te+)(?P<hate_s>s)?"
    # "bananas r gross", "they r the best": the chat spelling of "are" after a plural or a pronoun
    r"|(?<=(?-i:[a-z])s\s|we\s|ey\s|ou\s)(?P<are>r)(?=\s+(?-i:[a-z]))"
    # "brussels sprouts = gross", "favorite band = the beatles": chat's "=" is the copula
    r"|(?<=\w\s)(?P<eq>=)(?=\s+\w))(?![\w'-])",
    I,
)


def casual(text: str) -> str:
    """Chat spelling read as well written: "dont own a car rn lol" -> "don't own a car", "im" -> "I'm".

    Only the working text changes; quotes and objects still come from the source, and the words rewritten
    are function words, so an object never holds a rewritten word.
    """
    def fix(m: re.Match[str]) -> str:
        if m.group("tail") is not None:
            return ""
        if m.group("cause") is not None:
            return "because"
        if m.group("ill") is not None:
            return "I'll"
        if m.group("love") is not None:
            return "loves" if m.group("love_s") else "love"
        if m.group("hate") is not None:
            return "hates" if m.group("hate_s") else "hate"
        if m.group("are") is not None:
            return "are"
        if m.group("eq") is not None:
            return "is"
        word = m.group("w")
        if word == "I":
            return word
        if word.lower() == "u" and m.start() > 0 and m.string[m.start() - 1] in "-/":
            return word
        return CASUAL_WORDS.get(word.lower(), word)

    return _CASUAL.sub(fix, text)


#: A question that only names a topic ("kombucha?", "thai food?"): one to four words, then the question mark.
_TOPIC_QUESTION: Final = re.compile(r"^\s*(?P<np>[\w&+.'-]+(?:\s+[\w&+.'-]+){0,3})\s*\?+\s*$")


def topic_question(text: str) -> str | None:
    """The topic a one-phrase question names ("kombucha?"); None for a question that asks something ("want
    some?", "seen it?", "why?"), whose words are a pronoun, an auxiliary or a verb form."""
    m = _TOPIC_QUESTION.match(text)
    if m is None:
        return None
    words = m.group("np").lower().split()
    if any(w in SUBJ_STOP or w in NP_STOP or w in CASUAL_TAILS for w in words):
        return None
    kind = VERB_FORM.get(words[0], ("", "base"))[1]
    if kind != "base" and not (kind == "ing" and len(words) == 1):
        return None  # "seen it?", "coming tonight?": a question with its subject dropped ("running?" names one)
    return m.group("np")


@dataclass(frozen=True, slots=True)
class Segment:
    """One contrastive segment of a sentence, as a role's rules read it."""

    text: str  #: working text: pasted material and condition clauses blanked, joints and end marks trimmed
    quote: str  #: the segment's own source text: the evidence quote of its claims
    condition: str | None  #: the first condition in scope (the segment, and a qualifying next sentence)
    uncertain: bool  #: hedged wording in scope
    conditional: bool  #: some condition is in scope


def segments(ctx: SourceText) -> Iterator[Segment]:
    """The segments of a conversational message worth parsing, with their condition and hedge."""
    content = ctx.content
    work = content.translate(APOSTROPHES) if _NEEDS_TRANSLATE.search(content) else content
    if _MAY_BE_PASTED.search(work):
        work = _PASTED.sub(lambda m: " " * len(m.group()), work)
    sentences = ctx.sentences
    topic: tuple[str, int] | None = None  # a one-phrase question just before, and where it starts
    for si, sent in enumerate(sentences):
        s_work = work[sent.span.start : sent.span.end]
        asked = topic
        topic = None
        if s_work.strip() and ctx.question(s_work):
            np = topic_question(s_work)
            topic = (np, sent.span.start) if np is not None else None
            continue
        if asked is not None and sentences[si - 1].para != sent.para:
            asked = None
        if not s_work.strip() or _EXAMPLE_START.match(s_work):
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
            text = _LEAD_JOINT.sub("", seg_work)
            text = text.strip().rstrip(".!").strip()
            text = _LEAD_COMMA.sub("", text)
            if _CASUAL_HINT.search(text):
                text = casual(text).strip()
            if asked is not None and text and TOPIC_VERDICT.match(text):
                # "kombucha? nah, tastes like vinegar, hard pass": the answer judges the topic asked; the topic
                # leads the text ("kombucha? ...") and the quote holds both
                text = f"{asked[0]}? {text}"
                quote = content[asked[1] : seg.end].strip()
            asked = None
            if text:
                yield Segment(text, quote, condition, uncertain, bool(conds))


#: Where a segment splits into clauses: before a new subject, or before "and" + a second verb.
CLAUSE_SPLIT: Final = re.compile(
    r",?\s+(?=(?:because|since)\s+(?:I|we|my|our|the|it|it's|its|he|she|they|you|there|(?-i:[A-Z][a-z]))\b|"
    # "because parking near the hospital costs a fortune": "because" opens a clause whatever its subject
    r"because\s+(?!of\b)(?-i:[a-z])[\w'-]+\s+(?:[\w'-]+\s+){0,3}?(?:is|are|was|were|has|have|had|costs?|gets?|"
    r"takes?|makes?|needs?|wants?|knows?|goes|keeps?|starts?|ends?|closes?|opens?|runs?|works?|lives?|comes?|[a-z]+ed)\b)|"
    r",\s+(?:so\s+|then\s+)?(?=(?:and\s+)?(?:I|we|my|our|you|your)\b)|"
    # "..., and in my free time I restore rugs", "..., yet at work I'm stuck with Windows": a setting
    # phrase opens the next clause, whose own subject follows it
    r",\s+(?:and\s+|but\s+|yet\s+)?(?=(?:in|at|on|for|during|after|before|over)\s+"
    r"(?:(?!(?:and|but|or|so)\s)[\w'-]+\s+){0,3}(?-i:I|[Ww]e|i)(?:'|\s))|"
    r"\s+[-\u2013\u2014]+\s+(?:so\s+|and\s+)?(?=(?:I|we|my|our)\b)|"
    # "and Tom works at X" opens a clause; "Italian at home and English at work" is another item
    r",?\s+and\s+(?=(?:I|we|my|our|you|your|(?-i:[A-Z][a-z]+)(?!\s+(?:at|in|on|with|for|from)\s))\s|"
    r"(?:I|we|you)'(?:m|re|ve|d|ll)\s)|"
    r",?\s+and\s+(?=(?:don't|doesn't|do not|never|also|now|loves?|likes?|hates?|uses?|works?|lives?|prefers?|"
    r"speaks?|have|has|owns?|joined|left|moved|switched|enjoys?|dislikes?|can't stand|runs?|plays?|studies|"
    r"study|drinks?|eats?|ditched|dropped|sold|cancell?ed|quit|gave\s+up|got\s+rid\s+of|stopped|swapped|"
    r"replaced|upgraded|downgraded)\b)|"
    # "been trying padel, not a fan": a fan clause after a comma, its subject dropped, is a taste of its own
    r",\s+(?=(?:(?:honestly|nah|so)\s+)?not\s+(?:(?:really|exactly|that|too|much\s+of)\s+)*(?:a\s+)?"
    r"(?:(?:big|huge|massive|total|great|real)\s+)?fan\b(?!\s+of\b))|"
    # "zero musical training, can't play the piano": a negated verb after a comma, the subject dropped
    r",\s+(?=(?:can't|cannot|can\s+not)\s+(?:play|speak|drive|swim|cook|eat|drink|stand)\b)|"
    # "got an iPhone now, ditched the Pixel": a give-up verb after a comma is a clause with the subject dropped
    r",\s+(?=(?:ditched|dropped|sold|cancell?ed|quit|gave\s+up|got\s+rid\s+of|binned|scrapped|uninstalled|"
    r"deleted|unsubscribed\s+from)\s)|"
    # "verified the download, sha256 matched …": a name with a digit and its verb open a clause of their own
    r",\s+(?=(?=[a-z]*\d)[a-z][\w.-]*\s+[a-z]{2,}(?:ed|s)\s)",
    I,
)
_AND_VERB: Final = re.compile(r",?\s+and\s+(?:then\s+)?(?P<w>[a-z]+)\b", I)


#: A reason clause's own opener ("because I love baking"): the reason is a proposition of its own.
REASON_OPENER: Final = re.compile(
    r"^(?:because|since)\s+(?=(?:I|we|my|our|the|it|it's|its|he|she|they|you|there|(?-i:[A-Z][a-z]))\b)|"
    r"^because\s+(?!of\b)(?=(?-i:[a-z]))", I
)
#: "because it gives me palpitations": "it" is the previous clause's object.
REASON_IT: Final = re.compile(r"^(?:it|it's|its)(?=\s|$)", I)


def split_and_verb(clause: str, *, base_ok: bool = False) -> list[str]:
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
        vf = VERB_FORM.get(m.group("w").lower())
        if vf is None or vf[1] not in kinds:
            continue
        out.append(clause[pos : m.start()])
        pos = m.start("w")
    out.append(clause[pos:])
    return out


# --- clause openers -------------------------------------------------------------------------------

_DISCOURSE: Final = re.compile(
    r"^(?:(?:well|so|also|actually|honestly|btw|by the way|oh|and|but|anyway|plus|fyi|ok|okay|yeah|yes|"
    r"no(?!\s+(?:more|longer|one|-one)\b)|nope|nah|"
    r"sure|then|just so you know|for the record|fun fact|to be honest|tbh|however|though|whereas|although|while|"
    r"heads up|psa|yet|"
    r"omg|ngl|lowkey|highkey|tbf|to be fair|truth be told|real talk|fr|srsly|seriously|"
    r"(?:please\s+)?(?:remember|note|keep in mind)(?:\s+that)?|"
    r"(?P<now>now|these days|nowadays|currently|recently|lately))\b[,:]?\s*)+",
    I,
)
#: The speaker joined with someone else as a subject: "me and <someone> ..." and "<someone> and me/I ...".
_ME_AND: Final = re.compile(r"(?:me|myself)\s+(?:and|&)\s+", I)
_AND_ME: Final = re.compile(r"\s+(?:and|&)\s+(?:me|I|myself)\s+(?=[\w'])", I)
_JOINT_DET: Final = frozenset({"my", "our", "the", "a", "an"})
#: Auxiliaries and adverbs that may open the predicate of a joint subject ("me and Tom are moving").
_JOINT_VERB_NEXT: Final = frozenset({"are", "were", "have", "had", "both", "will", "usually", "always", "never",
                                      "often", "sometimes", "just", "also", "still", "don't", "didn't", "won't",
                                      "can", "can't", "used", "'re", "'ve", "'ll"})


def _opens_predicate(word: str) -> bool:
    w = word.lower()
    return w in _JOINT_VERB_NEXT or VERB_FORM.get(w, ("", ""))[1] in ("base", "past")


def _other_person(words: list[str]) -> bool:
    """Whether ``words`` are a short phrase for someone ("my roommate", "the kids", "Tom"), with no verb in it
    ("my wife teaches chemistry" is a clause)."""
    if not words or len(words) > 4:
        return False
    if words[0].lower() in _JOINT_DET:
        body = words[1:]
        return 1 <= len(body) <= 3 and all(w.lower() not in VERB_FORM and w.lower() not in NP_STOP
                                           and _PLAIN_TOKEN.match(w) for w in body)
    return len(words) <= 2 and all(re.fullmatch(r"(?-i:[A-Z][a-z]+)", w) for w in words)


def joint_subject(clause: str) -> str:
    """"me and my roommate watch horror movies", "my sister and me play squash": a subject that joins the speaker
    and someone else is read as "we", so the clause is the speaker's as a "we" clause is. Only before a verb or
    an auxiliary ("me and my sister's flat" is no subject)."""
    m = _DISCOURSE.match(clause)
    lead = clause[: m.end()] if m else ""
    body = clause[len(lead) :]
    me = _ME_AND.match(body)
    if me is not None:
        words = body[me.end() :].split(" ")
        for k in range(1, min(len(words), 5)):
            if _opens_predicate(words[k]) and _other_person(words[:k]):
                return f"{lead}we {' '.join(words[k:])}"
        return clause
    am = _AND_ME.search(body)
    if am is None or not _other_person(body[: am.start()].split()):
        return clause
    rest = body[am.end() :]
    return f"{lead}we {rest}" if _opens_predicate(rest.split(" ", 1)[0]) else clause


_HEDGE_PREFIX: Final = re.compile(
    r"^(?:(?:maybe|perhaps|probably|possibly|(?:most\s+)?likely)\b,?\s*|"
    r"I\s+(?:think|guess|suppose|believe|reckon|suspect)(?:\s+that)?\s+|"
    r"it(?:'s|\s+is)\s+(?:possible|likely|probable)\s+(?:that\s+)?|chances\s+are(?:\s+that)?\s+|"
    r"it\s+(?:might|could|may)\s+(?:well\s+)?be\s+that\s+|"
    r"(?:I'm|I am)?\s*not\s+sure\s+(?:if|whether|that)?\s*|"
    r"I\s+(?:(?P<neg>don't|do not)\s+think|(?P<doubt>doubt))(?:\s+(?:that|whether|if))?\s+)",
    I,
)
#: Leading participial clauses that are not conditions ("Assuming nothing changes, ...").
_LEAD_PARTICIPLE: Final = re.compile(r"^(?:assuming|barring|weather permitting)\b[^,]{0,80},\s*", I)
#: A short label before a colon and a first-person clause ("quick one for the meal plan: I don't eat pork").
#: "quick one for the meal plan: I don't eat pork", "Company policy: passwords must be ...": a label before a
#: clause with its own subject (first person, a determiner, or a noun before a modal or a copula).
#: "<label>: <identifier>", a value written after its name ("tracking no for the lamp: 1Z999AA10123456784").
_LABELLED_VALUE: Final = re.compile(
    r"^(?P<label>(?:(?:the|my|our)\s+)?[A-Za-z][\w'-]*(?:\s+[\w'-]+){0,5})\s*:\s+"
    r"(?P<value>(?=\S*\d)[\w][\w.:/@#+-]{2,}[\w])\s*[.!]?$"
)
_LABEL_STOP: Final = re.compile(
    r"\b(?:i|we|you|he|she|they|it|me|us|what|why|how|who|when|where|which|is|are|was|were|update|note|edit|"
    r"re|fyi|ps|btw|step|q|a|eta|time|at|around)\b",
    I,
)
_LEAD_LABEL: Final = re.compile(
    r"^[^:;,.!?]{1,40}:\s+(?=(?-i:I|[Ww]e|[Mm]y|[Oo]ur)(?:'|\s)|(?:(?-i:[Tt]he)\s+)?(?-i:[a-z][\w-]*)\s+(?:are|is)\s|"
    r"(?-i:[Aa]ll)\s+(?:the|my|our)\s)|"
    r"^(?:[\w'-]+\s+){0,2}(?!re:)[\w'-]+:\s+(?=(?-i:[Tt]he)\s|[\w-]+\s+(?:must|should|are|is|have\s+to|has\s+to)\s)"
)
#: A short leading time/setting phrase directly before a first-person subject ("In winter I swim ...").
_LEAD_PHRASE: Final = re.compile(
    r"^(?:for|from|in|on|at|by|since|until|after|during|over|this|next|last|every|each|starting|as\s+of)\s+"
    r"(?:(?!(?:I|we|you|he|she|they|it|if|case)\b)[\w$'-]+\s+){0,2}(?!(?:I|we|you|he|she|they|it|if|case)\b)"
    r"[\w$'-]+,?\s+(?=(?-i:[Ii]|[Ww]e)(?:'|\s))",
    I,
)
_LEAD_PHRASE_INITIALS: Final = frozenset("FfIiOoBbSsUuAaDdTtNnLlEe")
#: Words that add a value rather than change one ("now I play the drums too").
_ADDED: Final = re.compile(r"\b(?:too|as well|also|either|in addition)\b", I)
ANYMORE: Final = re.compile(r"\b(?:anymore|any more|these days|nowadays)\b", I)


# --- auxiliaries ----------------------------------------------------------------------------------

_AUX: Final = re.compile(
    r"\s*(?P<a>'m not|'m|'re|'s|'ve|be|'ll|'d|n't|am|is|are|was|were|been|being|do|does|did|both|"
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


#: "do"/"did" followed by what it does (a determiner, a number or a word that is no verb) is the main verb; an
#: emphasis or a question's "do" is followed by a verb ("I do love it", "I did go").
_NEXT_WORD: Final = re.compile(r"\s+([\w'-]+)")


def _does_a_thing(rest: str, pos: int) -> bool:
    m = _NEXT_WORD.match(rest, pos)
    if m is None:
        return False
    w = m.group(1).lower()
    if w in DET_NEXT or w[:1].isdigit():
        return True
    return (w not in VERB_FORM and w not in NOT_GUESSED and w not in NOT_DONE and w not in NP_STOP
            and not w.endswith(("n't", "ly")) and _AUX.match(rest, pos) is None)


@dataclass
class Flags:
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


def consume_aux(rest: str) -> tuple[str, Flags]:
    f = Flags()
    pos = 0
    while True:
        m = _AUX.match(rest, pos)
        if m is None:
            break
        a = m.group("a").lower()
        if a in ("do", "does", "did") and _does_a_thing(rest, m.end()):
            break  # "I do aqua jogging", "I did a half marathon": "do" is the verb, not an emphasis
        if a == "be" and not (f.modal or f.should or f.must):
            break  # "I'll be in Paris" stays a future; only "might/could/should be X" is a hedged copula
        if a in NEG_AUX:
            f.neg = not f.neg
        if a in ("never", "no longer"):
            f.neg = True
        if a in HEDGE_AUX:
            f.hedge = True
        if a in ("would", "'d"):
            f.would = True
        if a in MODAL_AUX:
            f.modal = True
        if a == "should":
            f.should = True
        if a in BE_AUX:
            f.be = True
        if a in PAST_AUX:
            f.past = True
        if a in FUTURE_AUX:
            f.future = True
        if a in PERFECT_AUX or a.startswith(("have", "has")):
            f.perfect = True
        if a == "must":
            f.must = True
        if a in UPDATE_AUX:
            f.update = True
        if a == "'ve got":
            f.got = True
        if a == "been":
            f.past = False
        f.aux = True
        pos = m.end()
    return rest[pos:].lstrip(), f


# --- subjects -------------------------------------------------------------------------------------

_NAME: Final = r"(?-i:[A-Z][a-z][A-Za-z'-]*(?:\s+[A-Z][a-z][A-Za-z'-]*)?)"


def _subject_pattern(fp: str, poss: str) -> re.Pattern[str]:
    return re.compile(
        rf"^(?:(?P<fp>{fp})(?=[\s']|$)|(?P<user>the user)\b|(?P<poss>{poss})\s+(?P<rel>{RELATION})\b"
        r"(?:\s+(?-i:[A-Z]\w+)(?=\s+[a-z]))?|"
        rf"(?P<name>{_NAME})(?=[\s']))",
        I,
    )


_SUBJECT: Final = _subject_pattern(r"I|we", r"my|our")
_SUBJECT_ATTRIBUTION: Final = _subject_pattern(r"you", r"your")
_NOUN_THEN_COPULA: Final = re.compile(
    r"\s+(?!(?:is|are|was|were|has|have|had|and|or|will|can|may|might|must|should|would|could|does|do|did|also|"
    r"still|really|never|always|now|just|only)\b)(?P<n1>(?-i:[a-z][\w-]*))(?:\s+(?P<n2>(?-i:[a-z][\w-]*)))?\s+(?:is|are|was|were|isn't|aren't|must|should|"
    r"shall|cannot)\b",
    I,
)
_LOWER_START: Final = re.compile(r"^[a-z']")
#: A lower-case name with a digit opening a clause ("sha256 matched ...", "k8s handles ..."): its own subject.
_DIGIT_NAME: Final = re.compile(r"^(?=[a-z]*\d)(?=\w*[a-z])[a-z\d][\w.-]*\s")


_INTERJECTIONS: Final = frozenset({"ok", "okay", "yeah", "yes", "yep", "nope", "no", "well", "so", "oh", "hey", "hmm"})


def _bare_name(word: str) -> bool:
    """A lower-case word that can be a subject on its own: a product or a thing, not chat filler."""
    return len(word) >= 3 and word not in CASUAL_TAILS and word not in _INTERJECTIONS and word not in VERB_FORM


def _noun_then_copula(t: str, pos: int) -> bool:
    """"Horror movies are ...", "Artifact retention window is ...": a capitalised word that opens a noun phrase
    (one or two lower-case nouns before a copula), not a person; "Maya said lunch is ready" keeps Maya."""
    m = _NOUN_THEN_COPULA.match(t, pos)
    if m is None:
        return False
    return m.group("n2") is None or m.group("n1").lower() not in VERB_FORM
_NP_DET: Final = re.compile(r"^(?:all\s+(?:of\s+)?(?=(?:the|my|our|your)\s))?(?P<det>my|our|your|the|all)\s+(?=\S)", I)
_NP_TOKEN: Final = re.compile(r"^[\w][\w'+./-]*$")
_PLAIN_TOKEN: Final = re.compile(r"^[A-Za-z][\w'+.-]*$")


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
        if raw in NAME_NOT_MODAL and (nxt in COPULA_NEXT or _third_person(nxt)):
            continue  # "my neighbour Will helps me": a capitalised name, not the modal
        if w in NP_STOP or w.endswith("n't"):
            return " ".join(words[:i]), " ".join(words[i:]), None
        vf = VERB_FORM.get(w)
        if vf is not None and vf[1] in ("s", "base") and (nxt in COPULA_NEXT or nxt in MODAL_NEXT):
            continue  # "the iOS build is ...": a noun that shares a verb's spelling
        if vf is not None and vf[1] in ("s", "base") and _noun_before_copula(words, i):
            continue  # "the failing run id is ...", "the release tarball is ...": a noun before the head noun
        if (vf is not None and vf[1] in ("past", "base") and words[i - 1].lower() in _REL_PRONOUNS and i >= 2
                and _verb_follows(words, i)):
            continue  # "the flour I bought is from lot 230517A": a relative clause inside the subject
        if vf is not None and vf[1] in ("s", "past", "base"):
            return " ".join(words[:i]), " ".join(words[i:]), vf[1]
        if vf is None and nxt and nxt not in COPULA_NEXT and nxt not in NP_STOP:
            kind = _np_verb_kind(raw, words[i - 1], words[i + 1])
            # "roasted brussels sprouts are elite": a word of unknown kind before the head noun a copula follows
            # is a modifier in the subject, not its verb
            if kind is not None and not _prep_then_copula(words, i) and not _noun_before_copula(words, i):
                return " ".join(words[:i]), " ".join(words[i:]), kind
        if raw.endswith(",") or not (_PLAIN_TOKEN.match(raw) or _NP_TOKEN.match(raw)):
            return None
    return None


_ASIDE: Final = re.compile(r"\s+\((?P<a>[^()]{1,80})\)(?=\s+(?P<next>[\w']+))")
_ASIDE_KEEP: Final = re.compile(
    r"\b(?:not|no|never|if|unless|when|whenever|provided|as long as|maybe|perhaps|probably|think|guess|might|may|"
    r"could|would|should|unsure|sure)\b|n't", I
)


def drop_subject_asides(text: str) -> str:
    """"My SSH public key (public, fine to share) is ...", "my car (the old one) is a Golf": a bracketed aside
    between a subject and its verb is left out, so the subject meets its verb. An aside that hedges, negates or
    states a condition stays, since it changes what the clause says."""

    def drop(m: re.Match[str]) -> str:
        nxt = m.group("next").lower()
        verb = nxt in COPULA_NEXT or nxt in MODAL_NEXT or VERB_FORM.get(nxt, ("", ""))[1] in ("s", "past")
        if not verb or _ASIDE_KEEP.search(m.group("a")) is not None:
            return m.group()
        return ""

    return _ASIDE.sub(drop, text)


_AUX_ADVERBS: Final = frozenset({"still", "never", "just", "already", "also", "always", "really", "finally"})
_NOUN_AUX: Final = frozenset({"will", "would", "can", "could", "should", "must", "may", "might", "do", "does", "did"})


def _noun_before_copula(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` (spelled like a verb) modifies the one or two noun tokens that an auxiliary follows
    ("the release tarball is", "the Amazon order 302-... still hasn't arrived")."""
    for gap in (1, 2):
        if i + gap + 1 >= len(words):
            continue
        j = i + gap + 1
        while j + 1 < len(words) and words[j].lower() in _AUX_ADVERBS:
            j += 1
        aux = words[j].lower()
        if aux not in COPULA_NEXT and aux not in _NOUN_AUX and not aux.endswith("n't"):
            continue
        between = words[i + 1 : i + gap + 1]
        return all(w.lower() not in DET_NEXT and w.lower() not in NP_STOP and w.lower() not in VERB_FORM
                   and _NP_TOKEN.match(w) is not None for w in between)  # fmt: skip
    return False


_NP_PREPS: Final = frozenset({"of", "for", "per", "on", "in", "at"})


def _verb_follows(words: list[str], i: int) -> bool:
    """Whether the relative clause that ``words[i]`` opens ends in the main verb within four words ("the card
    I use for amazon ends in 3390", "the flour I bought is from ...")."""
    for j in range(i + 1, min(i + 5, len(words))):
        w = words[j].lower()
        if w in _COPULAS or VERB_FORM.get(w, ("", ""))[1] == "s":
            return True
        if not _PLAIN_TOKEN.match(words[j]) or w in NP_STOP:
            return False
    return False


def _inner_prep_word(tokens: list[str], k: int) -> bool:
    """Whether ``tokens[k]`` belongs to a short phrase inside a noun phrase: "for", "of", "per" between its
    words, or the determiner right after one ("sha256 of the iso")."""
    if not 0 < k < len(tokens) - 1:
        return False
    return tokens[k] in _NP_PREPS or (tokens[k] in ("the", "a", "an", "my", "our") and tokens[k - 1] in _NP_PREPS)


def _prep_then_copula(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` heads a noun phrase a short prepositional phrase and a copula follow ("the max
    tokens per request is 4096", "the checksums for the installer are"): a noun, not the verb."""
    if i + 2 >= len(words) or words[i + 1].lower() not in _NP_PREPS:
        return False
    for j in (i + 2, i + 3, i + 4):
        if j < len(words) and words[j].lower() in _COPULAS:
            return all(_PLAIN_TOKEN.match(w) for w in words[i + 2 : j])
    return False


_COPULAS: Final = frozenset({"is", "are", "was", "were"})
_REL_PRONOUNS: Final = frozenset({"i", "we", "you", "they"})


def _np_verb_kind(raw: str, prev: str, nxt_raw: str) -> str | None:
    """Kind of an unknown word that ends a noun phrase and opens its predicate, judged by shape.

    "the co-op stocks oat milk" (an -s form after a singular head), "the beehives face the orchard"
    (a bare form after a plural head, before a determiner), "the landlord renovated the flat" (-ed
    before a determiner or a name). Anything less clear stays part of the noun phrase.
    """
    if not BARE_VERB.match(raw):
        return None
    nxt = nxt_raw.lower()
    obj_next = nxt in DET_NEXT or nxt_raw[:1].isupper() or nxt[:1].isdigit()
    p = prev.lower()
    if raw.endswith("ed"):
        g = guess_verb(raw, "any")
        return "past" if g is not None and obj_next else None
    if raw.endswith("s"):
        g = guess_verb(raw, "s")
        plural_prev = p.endswith("s") and not p.endswith(("ss", "us", "is"))
        return "s" if g is not None and not plural_prev and nxt not in VERB_FORM else None
    if p.endswith("s") and not p.endswith(("ss", "us", "is")) and obj_next and guess_verb(raw, "any") is not None:
        return "base"
    return None


def _third_person(word: str) -> bool:
    """A lower-case -s form right after a capitalised "Will"/"May" marks them as names ("Will helps")."""
    vf = VERB_FORM.get(word)
    if vf is not None:
        return vf[1] == "s"
    return len(word) > 3 and word.isalpha() and word.islower() and word.endswith("s") and not word.endswith(
        ("ss", "us", "is"))


# --- verbs the whitelist does not know ------------------------------------------------------------

BARE_VERB: Final = re.compile(r"^(?-i:[a-z]{3,})$")


def guess_verb(word: str, agree: str) -> tuple[str, str] | None:
    """(lemma, kind) for a word the whitelist does not know, judged by shape and the subject it follows.

    ``agree`` is "fp" after I/we (a bare or past form), "s" after a singular third party (an -s or -ed
    form), "any" after an auxiliary (a bare form or a participle). The caller has already ruled out
    every specific pattern, so this only widens the fallback parse; the validator still checks the
    object is in the source.
    """
    w = word.lower()
    known = VERB_FORM.get(w)
    if known is not None:
        return known
    if not BARE_VERB.match(word) or w in NOT_GUESSED or w.endswith("ly") or w in PREPS or w in PARTICLES:
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
        return (w[:-2] if w.endswith(S_DROP_ES) else w[:-1]), "s"
    if agree == "fp" and w.endswith("s") and not w.endswith("ss"):
        return None  # "I tasks ...": not an agreeing verb
    return w, "base"


# --- objects --------------------------------------------------------------------------------------

_OBJ_CUT: Final = re.compile(
    r"\s{2,}|\sre:|[;()\[\]!?\"]|(?<!\d),|,(?!\d{3}(?!\d))|:(?!\d|//)|(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bSt)(?<!\bProf)(?<!\bext)(?<!\bExt)(?<!\bapt)"
    r"(?<!\bApt)(?<!\btel)(?<!\bTel)\.(?:\s|$)|"
    r"\s[-\u2013\u2014]+\s|\s(?:because|since|so that|so|which|who|whom|where|"
    r"when|whenever|but|although|though|while|whereas|if|unless|provided|as long as|only if|except|until|till|"
    r"before|after|then|with|for|in|at|on|from|during|via|instead of|rather than|over|than|now|nowadays|"
    r"these days|anymore|any more|at the moment|right now|currently|too|as well|a lot|so much|very much|"
    r"most (?:days|mornings|evenings|nights|weekends|weeks|of the time)|"
    r"(?:the|that) same (?:day|week|month|year|time|night|morning|evening|summer|winter)|"
    r"really|lately|recently|again|every|each|tomorrow|today|tonight|yesterday|next|last|this|by|around|almost|"
    r"and|either|anyway|though|honestly|to be honest|as|yet|along|later|someday|soon|together|fluently|remotely|per|"
    r"once|twice|overnight)\b|"
    r"\.$",
    I,
)
_DET: Final = re.compile(r"^(?:(?P<no>no)|the|a|an|my|our|your|his|her|their|its|some|any|this|that|these|those)\s+", I)
LEAD_PREP: Final = re.compile(r"^(?:to|into|in|at|on|for|with|from|about)\s+", I)
_LIST_SPLIT: Final = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+", I)
#: "job at Figma", and in lowercase chat "job at canva", "offer from stripe" (not "job at night").
_EMPLOYER_PP: Final = re.compile(
    r"\s(?:(?:at|from|with)\s+(?-i:[A-Z])\S*|(?:at|from)\s+(?!(?:the|a|an|my|our|your|his|her|their|its|home|work|"
    r"school|uni|night|nights|least|most|all|last|first|some|any|this|that|once|times|weekends?|noon|midnight|"
    r"dawn|dusk|lunch|dinner|breakfast|short|long|around|about|least)\b)(?-i:[a-z])[\w&.-]+)"
)
#: A preposition before an identifier ("workers from ami-08d4ac5b", "completions at 2,048 tokens").
_ID_PP: Final = re.compile(
    r"\s(?:over\s+to|over|to|at|from|with|in|on|via)\s+(?:the\s+)?(?:(?=[\w.:/@-]*[a-z])(?=[\w.:/@-]*\d)[\w][\w.:/@-]{4,}"
    r"|\d{1,3}(?:,\d{3})+(?:\s+[a-z]+)?|\d{3,}\s+(?:tokens|requests|rps|rpm|qps|connections|rows|items|mb|gb|tb|"
    r"kb|ms))(?=[\s,.;!?)]|$)",
    I,
)
#: "prop for Ponsonby", "a store on Mannerheimintie", "a studio in the River Arts District": a phrase naming a
#: place, team or organisation after a common noun is part of what the object is. Dates and times are not.
_NAMED_PP: Final = re.compile(
    r"\s(?:for|at|on|in|from)\s+(?:the\s+)?(?!(?:January|February|March|April|May|June|July|August|September|"
    r"October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|Monday|Tuesday|Wednesday|Thursday|"
    r"Friday|Saturday|Sunday|Mondays|Tuesdays|Wednesdays|Thursdays|Fridays|Saturdays|Sundays|Christmas|Easter|"
    r"I|I'm)\b)(?-i:[A-Z])[\w'&.-]*(?:\s+(?-i:[A-Z])[\w'&.-]*){0,3}(?=[\s,.;!?)]|$)"
)
#: "a PhD in glaciology", "a diploma in nursing": the field is what the qualification is.
_FIELD_PP: Final = re.compile(r"\sin\s+(?!(?:the|a|an|my|our)\b|\d)", I)
_CLAUSE_LEVEL_END: Final = re.compile(
    r"[;()!?\",]|:(?!\d)|\.(?:\s|$)|\s[-\u2013\u2014]+\s|\s(?:because|since|but|although|though|while|whereas|"
    r"if|unless|provided|as long as|only if|when|which|who|so|and|or|especially|except|instead of|rather than)\b",
    I,
)


def clean_object(text: str, *, keep_lists: bool = False) -> tuple[str | None, bool]:
    """Trim a raw object phrase to its head noun phrase; returns (object, negated_by_'no')."""
    t = text.strip()
    t = LEAD_PREP.sub("", t, count=1)
    negated = False
    m = _DET.match(t)
    if m:
        negated = m.group("no") is not None
        t = t[m.end() :]
        if m.group().split()[0].lower() in DEMONSTRATIVES and _OBJ_CUT.match(" " + t):
            return None, negated  # "using this for years": the demonstrative was the whole object
    first = t.split(" ", 1)[0].lower()
    if first.endswith("ing") and VERB_FORM.get(first, ("", ""))[1] == "ing":
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
        idp = _ID_PP.match(t, cut.start())
        if pp is not None and head.split() and head.split()[-1].lower() in KEEP_PP_HEAD:
            # "job at Figma", "offer from Stripe": the organisation is the point of the object
            nxt = _OBJ_CUT.search(t, pp.end())
            t = t[: nxt.start()] if nxt else t
        elif (field := _FIELD_PP.match(t, cut.start())) is not None and head.split() and \
                head.split()[-1].lower() in QUALIFICATIONS:
            nxt = _OBJ_CUT.search(t, field.end())
            t = t[: nxt.start()] if nxt else t
        elif idp is not None and head.strip():
            # "launched the workers from ami-08d4ac5b634553e16": the identifier is the fact worth keeping
            t = t[: idp.end()]
        elif (
            (named := _NAMED_PP.match(t, cut.start())) is not None and head.strip()[:1].islower()
            and len(t[: named.end()].split()) <= 6
        ):
            t = t[: named.end()]  # "prop for Ponsonby": the named place, team or organisation stays
        else:
            t = head
    t = t.strip().rstrip(".!?,;:'\"")
    t = t.strip()
    if not t or t.lower() in BAD_OBJECT or len(t.split()) > 6:
        return None, negated
    # a long identifier (a public key, a hash, a URL) is a value of its own; long prose is not an object
    if len(t) > (200 if len(t.split()) <= 5 and max(map(len, t.split())) >= 30 else 80):
        return None, negated
    if t.split()[0].lower() in BAD_OBJECT and len(t.split()) == 1:
        return None, negated
    return t, negated


def object_list(text: str) -> list[tuple[str, bool]]:
    """Split "tea, coffee and juice" into items (each cleaned)."""
    raw = text.strip()
    end = re.search(
        r"[;()!?\"]|:(?!\d)|\.(?:\s|$)|\s[-\u2013\u2014]+\s|\s(?:because|since|but|although|though|while|whereas|"
        r"if|unless|provided|as long as|only if|when|which|who|so|especially|except)\b|"
        r",\s+(?=(?:it|that|this|i|we|so|which|they|he|she|you|but|though)\b)|"
        # "a dog and she hates the vet", "a meeting and then lunch": a clause or a sequence, not another item
        r",?\s+and\s+(?=(?:it|it's|its|that|this|i|i'm|we|we're|they|they're|he|he's|she|she's|you|then|so|now)\b)|"
        # "meat daily, not vegetarian in any way": a negated clause, not an item
        r",\s+(?=(?:not|could|would|can|might|should|will|gonna)\s)|"
        # "coriander, tastes like soap": a clause about the item with its subject dropped, not another item
        r",\s+(?=(?:is|was|has|does|tastes|smells|looks|sounds|feels|seems|reminds|makes|gives|keeps|costs|"
        r"takes|gets)\s)|"
        # "kombucha, the ginger one is great": a clause of its own, not an item
        r",\s+(?=(?:the|my|our|his|her|their)\s+[\w'-]+(?:\s+[\w'-]+)?\s+(?:is|are|was|were)\b)",
        raw,
        I,
    )
    if end is not None:
        raw = raw[: end.start()]
    out: list[tuple[str, bool]] = []
    for part in _LIST_SPLIT.split(raw):
        obj, neg = clean_object(part)
        if obj is not None:
            out.append((obj, neg))
    return out


def strip_det(text: str) -> str:
    m = _DET.match(text)
    return text[m.end() :] if m else text


LEAD_ADV: Final = re.compile(
    r"^(?:(?:early|late|remotely|together|again|fully|finally|still|also|regularly|usually|often|always|"
    r"mostly|only|even|just|already|now|first|back|along|up to|around|about|roughly|nearly)\s+)+", I
)
#: A pronoun object before the real one ("gave us a discount"); "us-east-1" is a region, not "us".
_OBJ_PRONOUN: Final = re.compile(
    r"^(?:us|me|him|her|them|you|it|myself|ourselves|himself|herself|themselves)\b(?!-)\s*", I
)
GENERIC_PREP: Final = re.compile(
    r"^(?P<p>up to|to|into|in|at|on|for|with|from|about|by|off|of|through|via|after|before|during|under|within)\s+",
    I,
)
_CLAUSE_WORD: Final = re.compile(
    r"^(?:when|whenever|if|because|since|while|until|before|after|as|so|though|although|unless|whether|"
    r"that|which|who|where|how|why|what)\b",
    I,
)


_UNTIL: Final = re.compile(r"^(?:till|until|til|'til)\b", I)


def generic_object_prep(text: str) -> tuple[str | None, str | None]:
    """Head noun phrase of a verb complement, skipping adverbs and object pronouns; plus a leading preposition."""
    t = text.strip()
    prep: str | None = None
    for _ in range(4):
        before = t
        t = LEAD_ADV.sub("", t)
        m = _OBJ_PRONOUN.match(t)
        if m is not None and t[m.end() :].strip():
            t = t[m.end() :]
        m = GENERIC_PREP.match(t)
        if m is not None:
            prep = m.group("p").lower().replace(" ", "_")
            t = t[m.end() :]
        if t == before:
            break
    bare = t.strip().rstrip(".!,;")
    low = bare.lower()
    if prep is None and _UNTIL.match(t):
        return None, prep  # "danced till 3": how long, not what
    if (_CLAUSE_WORD.match(t) or low in PREPS or low in PARTICLES or (prep is None and low in ADVERB_OBJECT)
            or (bare.endswith("ly") and bare.isalpha() and bare.islower())):
        # "feeds them when I travel", "was snowed in", "buzzes constantly": no object follows the verb
        return None, prep
    obj, _ = clean_object(t)
    return obj, prep


def generic_object(text: str) -> tuple[str | None, bool]:
    obj, _ = generic_object_prep(text)
    return obj, False


# --- the clause parser ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Mode:
    """Who the clauses' first person is, for one message."""

    first_person: str  # subject for I/we (or "you" in attribution mode)
    attribution: bool = False  # "you" is the first person (assistant restating the user)
    speaker: str | None = None
    #: Subject for "we"/"our" when it is not the first person's: a participant's "we" in a project is the
    #: team, the subject the owner's own "we" has ("user"), so team facts meet whoever states them.
    we: str | None = None


class ClauseParser:
    """Parses one clause into proto claims for a given speaker mode.

    This base reads what every role's clauses share: discourse openers, a hedge prefix and its
    negation, the subject and the auxiliary group. What the rest of the clause says is the statement
    grammar's (``_predicate``), and the clause kinds one role has and the others lack (a system
    prompt's "You are X", a user's "remind me to ...") are tried first (``_lead``).
    """

    def __init__(self, mode: Mode) -> None:
        self.mode = mode
        self._subject = _SUBJECT_ATTRIBUTION if mode.attribution else _SUBJECT

    # -- helpers
    def _owner(self) -> str:
        return self.mode.first_person

    def _we(self) -> str:
        return self.mode.we or self.mode.first_person

    def _name_ok(self, name: str, rest: str) -> bool:
        """"May/Will/Hope ..." is a person only when a verb or copula follows ("Will is our designer")."""
        first = name.split()[0].lower()
        if first not in AMBIGUOUS_NAMES:
            return True
        nxt = rest.split()[0].lower() if rest.split() else ""
        if nxt.startswith("'s") or nxt in ("is", "was", "has", "had", "and", "can", "could", "will", "won't",
                                           "can't", "should", "might", "must", "would"):
            return True
        vf = VERB_FORM.get(nxt)
        return (vf is not None and vf[1] in ("s", "past")) or (
            nxt.endswith("s") and VERB_RX.match(rest.lstrip()) is not None
        )

    def _np_subject(self, t: str) -> tuple[str, str] | None:
        """Generic noun-phrase subjects: "my/our X", "the X", a bare "X" before an auxiliary."""
        m = _NP_DET.match(t)
        if m is not None:
            det = m.group("det").lower()
            if det == "your" and not self.mode.attribution:
                return None
            split = _split_np(t[m.end() :], max_words=7)
            if split is None:
                return None
            np, rest, _ = split
            if np.split()[0].lower() in SUBJ_STOP:
                return None
            if det == "our":
                return f"{self._we()}'s {np}", rest
            if det == "my" or (det == "your" and self.mode.attribution):
                return f"{self._owner()}'s {np}", rest
            return np, rest
        split = _split_np(t, max_words=5)
        if split is None:
            return None
        np, rest, kind = split
        tokens = np.lower().split()
        if len(tokens) > 4 and not any(tok in _NP_PREPS for tok in tokens[1:-1]) and not (
                kind is None and rest.split()[0].lower() in ("is", "are")):
            return None  # five bare words with no phrase inside and no copula: a fragment, not a subject
        copula = kind is None and rest.split()[0].lower() in _COPULAS
        of_phrase = copula and len(tokens) >= 3
        if tokens[0] in AMBIGUOUS_NAMES or any(
            (tok in SUBJ_STOP or tok in DET_WORDS) and not (of_phrase and _inner_prep_word(tokens, k))
            for k, tok in enumerate(tokens)
        ):
            # "vault path for stripe is ...", "sha256 of the iso is ...": a short "of"/"for" phrase inside a
            # bare noun phrase before a copula is still its subject
            return None
        named = len(tokens) == 1 and any(c.isdigit() for c in np) and any(c.isalpha() for c in np)
        if named:
            return np, rest  # "sha256 matched ...", "gpt-4.1 has ...": a name with a digit is never a verb
        if kind is None and np[:1].islower() and rest.split()[0].lower() not in BARE_NP_AUX and not (
                rest.split()[0].lower() in ("was", "were") and (len(tokens) >= 2 or not tokens[0].isalpha())):
            return None  # "x-request-id was …", "last known good deploy was …": a past value of a thing
        plural = tokens[-1].endswith("s") and not tokens[-1].endswith(("ss", "us", "is")) and _bare_name(tokens[-1])
        if kind is not None and np[:1].islower() and not (
            (kind == "s" and (len(tokens) >= 2 or _bare_name(tokens[0]))) or (kind == "base" and plural)
            or (kind == "past" and _bare_name(tokens[-1]) and tokens[0] not in _INTERJECTIONS and len(rest.split()) > 1)
        ):
            # a bare lower-case noun before a verb is usually an imperative or a fragment; before an -s form it
            # is a subject ("postgres runs on port 5432")
            return None
        return np, rest

    def _named(self, name: str) -> str | None:
        if name.split()[0].lower() in SUBJ_STOP:
            return None
        if self.mode.speaker and name.lower() == self.mode.speaker.lower():
            return self._owner()
        return name

    # -- what the roles and the statement grammar supply
    def _implicit_subject(self, t: str) -> str:
        """The clause with a dropped subject written out ("Went kayaking" -> "I went kayaking"); as is here."""
        return t

    def _lead(
        self, t: str, inherited: str | None, hedge: bool, flip: bool, update_cue: bool
    ) -> tuple[list[Proto], str | None] | None:
        """A clause kind of this role, tried before the subject is looked for; None when none fits.

        ``hedge``/``flip`` come from a hedge prefix ("maybe", "I don't think"), ``update_cue`` from a
        "now"/"these days" opener.
        """
        return None

    def _predicate(self, subject: str, rest: str, f: Flags) -> list[Proto]:
        """Proto claims for what ``subject`` is said to do or be in ``rest`` (after the auxiliaries)."""
        raise NotImplementedError

    def parse(self, clause: str, inherited: str | None) -> tuple[list[Proto], str | None]:
        t = clause.strip().strip("-*\u2022 ").strip()
        update_cue = False
        m = _DISCOURSE.match(t)
        if m:
            # "now I like Korean food too": an addition, not a change
            update_cue = m.group("now") is not None and _ADDED.search(t) is None
            t = t[m.end() :]
        m = _LEAD_PARTICIPLE.match(t)
        if m:
            t = t[m.end() :]
        m = _LABELLED_VALUE.match(t)
        if m and _LABEL_STOP.search(m.group("label")) is None:
            t = f"{m.group('label')} is {m.group('value')}"  # "digest for the release image: sha256:0b4f…"
        m = _LEAD_LABEL.match(t)
        if m:
            t = t[m.end() :]  # "quick one for the meal plan: I don't eat pork"
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
        if inherited is None:
            t = self._implicit_subject(t)
        led = self._lead(t, inherited, hedge, flip, update_cue)
        if led is not None:
            return led

        sm = self._subject.match(t)
        if sm is not None and sm.group("name") and not self._name_ok(sm.group("name"), t[sm.end() :]):
            sm = None
        if sm is not None and sm.group("name") and _noun_then_copula(t, sm.end()):
            sm = None  # "Horror movies are ...": a capitalised noun phrase, not a person
        subject: str | None
        if sm is None and (inherited is None or _NP_DET.match(t) or _DIGIT_NAME.match(t)):
            gen = self._np_subject(t)
            if gen is not None:
                subject, rest = gen
                rest, flags = consume_aux(rest)
                flags.hedge = flags.hedge or hedge
                flags.update = flags.update or update_cue or ANYMORE.search(rest) is not None
                if flip:
                    flags.neg = not flags.neg
                return self._predicate(subject, rest, flags), subject
        if sm is not None:
            if sm.group("fp"):
                subject = self._we() if sm.group("fp").lower() == "we" else self._owner()
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
                rest, flags = consume_aux(rest)
                flags.hedge = flags.hedge or hedge
                flags.update = flags.update or update_cue or ANYMORE.search(rest) is not None
                if flip:
                    flags.neg = not flags.neg
                return self._predicate(subject, rest, flags), subject
            rest = t[sm.end() :]
        elif inherited is not None and _LOWER_START.match(t):
            subject, rest = inherited, t
        else:
            return [], inherited

        rest, flags = consume_aux(rest)
        flags.hedge = flags.hedge or hedge
        flags.update = flags.update or update_cue or ANYMORE.search(rest) is not None
        if flip:
            flags.neg = not flags.neg
        protos = self._predicate(subject, rest, flags)
        return protos, subject
