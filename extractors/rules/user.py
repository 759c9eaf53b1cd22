"""Statements: the grammar of what a clause says, and the user's own clause kinds.

The statement grammar (:class:`StatementParser`) reads facts, preferences, decisions, tasks, updates
and speech acts after a clause's subject and auxiliaries; every conversational role's statements go
through it. :class:`UserParser` adds what only a user's, human's or participant's message holds:
subjectless negations, instructions to the assistant and reminders. The instruction pieces are
shared with system prompts (:mod:`extractors.rules.system`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import pairwise
from typing import ClassVar, Final

from engine.attributes import DEFAULT_REGISTRY
from extractors.rules.clauses import (
    ANYMORE,
    BARE_VERB,
    CLAUSE_SPLIT,
    GENERIC_PREP,
    INVERTED,
    LEAD_ADV,
    REASON_IT,
    REASON_OPENER,
    ClauseParser,
    Flags,
    clean_object,
    consume_aux,
    drop_subject_asides,
    generic_object,
    generic_object_prep,
    guess_verb,
    joint_subject,
    object_list,
    split_and_verb,
)
from extractors.rules.foreign import foreign_statement
from extractors.rules.lexicon import (
    ADJECTIVES,
    AS_ROLE_VERBS,
    ATTR_STOP,
    BAD_OBJECT,
    BE_A_STOP,
    CHOICE_ACTIONS,
    DET_WORDS,
    DROPPED_I_VERBS,
    DROPPED_IM_WORDS,
    EN_PARTICIPLES,
    ERRAND_VERBS,
    EVALUATIVE,
    GENERIC_BE_ADJ,
    GENERIC_PREDICATES,
    GERUND,
    GIVE_UP_VERBS,
    NATIONALITIES,
    NOT_A_VERB,
    NOT_GUESSED,
    NOT_GUESSED_ING,
    PARTICLES,
    PAST_FORMS,
    PERSON_TRAITS,
    PHRASAL_VERBS,
    PREPS,
    RELATION,
    STATIVE_FUTURE,
    SUBJ_STOP,
    THIRD_PERSON,
    TOPIC_VERDICT,
    VERB_FORM,
    VERB_RX,
    VERBS,
)
from extractors.rules.proto import Proto, snake
from extractors.rules.updates import (
    ACTIVITY_VERBS,
    UpdateWords,
    give_up_predicate,
    things_on,
    update_clause,
    update_words,
    usage,
    value_first,
)
from extractors.secrets import PLACEHOLDER
from extractors.text import SPEECH_ACT_FORMS
from extractors.validation import POINTER_WORDS
from schemas.claims import Quantity
from schemas.enums import EpistemicType, NodeType

I: Final = re.IGNORECASE  # noqa: E741 - reads like a regex flag


# --- instructions ---------------------------------------------------------------------------------

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
IMPERATIVE: Final = re.compile(
    r"^(?:answer|respond|reply|write|use|keep|be|act|speak|format|include|cite|refuse|decline|address|greet|"
    r"provide|follow|limit|stay|treat|prefer|call|send|remind|summari[sz]e|translate|explain|show|list|avoid|"
    r"refer|escalate|forward|direct|mention|notify|tell|suggest|offer|share|ask|redirect|recommend|add|log)\b",
    I,
)
#: "Never X, always Y": a second instruction after a comma.
_INSTR_PAIR_START: Final = re.compile(r"^(?:please\s+)?(?:always|never|don't|do not)\s", I)
_INSTR_PAIR_SPLIT: Final = re.compile(r",\s+(?:and\s+|but\s+)?(?=(?:please\s+)?(?:always|never|don't|do not)\s)", I)


def strip_vocative(t: str) -> str:
    """"Tadeo, please never ...": the addressee's name is not part of the instruction."""
    v = _VOCATIVE.match(t)
    return t[v.end() :] if v is not None else t


def marked_instruction(t: str) -> tuple[str, bool] | None:
    """(body, negative) of an instruction marked as one: "always/never/make sure ...", "... from now on"."""
    m = _INSTRUCTION.match(t)
    if m is not None:
        return m.group("body"), m.group("neg") is not None
    m2 = _PERSISTENT_TAIL.match(t)
    if m2 is not None and IMPERATIVE.match(m2.group("body")):
        return m2.group("body"), False
    return None


def polite_instruction(t: str) -> tuple[str, bool] | None:
    """(body, False) of a standing style request: "Please keep replies short", "Cite sources, please"."""
    ps = _POLITE_STYLE.match(t)
    return (ps.group("b") or ps.group("b2"), False) if ps is not None else None


def instruction(body: str, negative: bool) -> Proto | None:
    """The instruction claim for an instruction's body: subject "assistant", predicate "should"."""
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
    return Proto("assistant", "should", body, NodeType.INSTRUCTION, negative=negative)


def user_instruction(t: str) -> Proto | None:
    """An instruction in a user's message: marked by its wording, or a polite style request."""
    t = strip_vocative(t)
    found = marked_instruction(t) or polite_instruction(t)
    return instruction(*found) if found is not None else None


# --- speech acts, tasks and other cue-keeping actions ---------------------------------------------

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


#: A subject that is a thing, not a person: lower-case and no one's ("grafana", "db creds").
_THING_SUBJECT: Final = re.compile(r"^(?!user\b|assistant\b)[a-z0-9][^']*$")
#: A subject that is a setting or a measure, not something that ages ("the max uploads per user is 20").
_MEASURE_SUBJECT: Final = re.compile(
    r"\b(?:max|min|maximum|minimum|limit|limits|number|count|total|size|rate|budget|timeout|per|cap|quota|port|"
    r"version|threshold|retries|level|score|length|width|height|price|cost|amount|ttl|interval|batch|lot|code|id|"
    r"pin|floor|room|gate|seat|platform|step|stage|phase|round|chapter|page|line|row|column|tier)\b",
    I,
)
#: An -ing word opening a subject a copula soon follows ("baking bread is my therapy").
_GERUND_SUBJECT: Final = re.compile(
    r"^\w+ing\s+(?:(?!(?:which|that|who|because|and|but|so|when|while|if|is|are|was|were)\b)[\w'/.-]+\s+){1,4}"
    r"(?:is|are|was|were)\b",
    I,
)
_FIRST_PERSON_START: Final = re.compile(r"^\s*(?:i|i'm|im|i've|i'd|i'll|me|my|we|we're|our)\b", I)
#: Words that judge an experience ("had an amazing omakase", "had the worst time at the DMV").
_JUDGED: Final = (
    r"(?:(?:really|so|very|absolutely|such\s+an?|truly|pretty|super)\s+)*"
    r"(?:amazing|great|good|lovely|wonderful|brilliant|fantastic|awesome|incredible|excellent|superb|fun|nice|"
    r"perfect|magical|unforgettable|fab|epic|cracking|terrible|awful|horrible|dreadful|rough|bad|stressful|"
    r"crazy|wild|relaxing|delicious|memorable|best|worst|gorgeous|beautiful|glorious|stunning|spectacular|splendid|"
    r"cosy|cozy|lazy|busy|quiet|long|quick|massive|huge|tasty|yummy|fancy|cheeky|decent|proper|chill|hectic|"
    r"exhausting|disappointing|mediocre|lousy|miserable|mad|insane|fabulous|marvellous|marvelous|weird|strange)"
)
#: Past verbs of outings and things tried ("tried the new pho place", "did the Tongariro Crossing").
_OUTING_CLAUSE: Final = re.compile(
    r"^(?:(?P<s>I|we)\s+)?(?:(?:just|finally|also|recently|actually|eventually|only)\s+)*(?P<verb>tried|did|got)\s+"
    r"(?P<after>.+)$",
    I,
)
_OUTING_OBJECT: Final = re.compile(r"^(?:a|an|the|some|our|my)\s+(?!(?:best|most|least|same|bit|lot|thing)\b)\w", I)
#: "a named venue after the object: "... at Clayworks", "... on Spadina", "... in Porto".
_NAMED_VENUE: Final = re.compile(
    r"\s(?P<prep>at|on|in)\s+(?:the\s+)?(?!(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|"
    r"february|march|april|may|june|july|august|september|october|november|december|christmas|easter)\b)"
    r"(?P<venue>(?-i:[A-Z][\w'&-]*)(?:\s+(?-i:[A-Z][\w'&-]*)){0,3})",
    I,
)
#: A time word that ends where the speaker was ("... at Schiphol overnight", "back from work late").
_WHEN_TAIL: Final = r"(?:\s+(?:late|early|overnight|today|yesterday|tonight|again|last\s+\w+))?\s*(?:[,.!;].*)?$"
_GOT_BACK: Final = re.compile(
    r"^back\s+from\s+(?:(?:a|an|our|my|the)\s+(?:\w+\s+)?(?:week|weekend|fortnight|month|trip|holiday|vacation|"
    r"break|stay|tour)s?\s+(?:in|to|at|on|around)\s+)?(?P<where>[^,.!;]+?)" + _WHEN_TAIL,
    I,
)
_GOT_STUCK: Final = re.compile(
    r"^(?P<how>stuck|stranded|lost|delayed|snowed\s+in)\s+(?P<prep>at|in|on)\s+(?P<where>[^,.!;]+?)" + _WHEN_TAIL, I
)
_JUDGED_RX: Final = re.compile(rf"\b{_JUDGED}\b", I)
#: "had a great time hosting the barbecue", "had a brilliant week sailing round the Dodecanese", "had the worst
#: time at the DMV renewing my licence".
_HAD_TIME: Final = re.compile(
    rf"^(?:a|an|the|such\s+an?)\s+(?:{_JUDGED}\s+)?(?<=\s)(?P<what>time|blast|day|night|week|weekend|evening|morning|"
    r"afternoon|trip|holiday|vacation|experience)\b"
    r"(?:\s+(?:at|in)\s+(?P<place>(?:(?!\w+ing\b)[\w'&.-]+\s?){1,5}?))?"
    r"(?:\s+(?P<ing>[a-z]+ing)\b(?P<rest>.*))?\s*[.!]*$",
    I,
)
#: "had an amazing omakase at Sushi Saito", "had a lovely lunch in Deia".
_HAD_JUDGED: Final = re.compile(
    rf"^(?:a|an|the|some)\s+{_JUDGED}\s+(?P<thing>[\w-]+(?:\s+[\w-]+)?)\s+(?P<prep>at|in)\s+(?P<place>.+)$", I
)
#: A bound before a number ("at least 14", "no more than 3"): part of the value it bounds.
_BOUND: Final = re.compile(
    r"^(?:at\s+(?:least|most)|no\s+(?:more|less|fewer)\s+than|(?:more|less|fewer)\s+than|up\s+to|under|over)"
    r"\s+(?=\d)",
    I,
)


def action(body: str, prefix: str) -> tuple[str, str] | None:
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
    return snake(prefix, verb, part or ""), rest


_DUE: Final = re.compile(
    r"\s(?P<due>(?:by|before|until|till|on|next|this|tomorrow|today|tonight|later|soon|asap|at|in)\b.*)$", I
)
_LEAD_OBJ_PRONOUN: Final = re.compile(r"^(?:you|me|him|her|them|us|it)\s+(?=\S)", I)
#: What follows a verb's object rather than being one: after "call them" / "do it", a time or manner.
ADJUNCT_START: Final = re.compile(
    r"^(?:by|before|until|till|on|next|this|tomorrow|today|tonight|later|soon|asap|at|in|again|now|first|"
    r"right|every|after|once|when)\b",
    I,
)


def _mk(subject: str, predicate: str, obj: str | None, node: NodeType, f: Flags, *,
        lexneg: bool = False, update: bool = False, replaces: str | None = None) -> Proto | None:
    """The proto claim for a parsed verb phrase, with the negation, hedge and update its auxiliaries carry."""
    if lexneg and f.neg:
        return None  # "don't hate": double negation is not a claim we can type
    negative = lexneg or f.neg
    is_update = update or f.update
    if negative and f.update and replaces is None:
        replaces = obj
    return Proto(subject, predicate, obj, node, negative=negative, hedge=f.hedge or (f.would and not f.future),
                 update=is_update, replaces=replaces)


def cue_claim(
    subject: str, act: tuple[str, str] | None, f: Flags, node: NodeType, *, speech_act: bool = True
) -> list[Proto]:
    """The claim of a cue-keeping action (``act`` from :func:`action`): a task, a wish, a commitment."""
    if act is None:
        return []
    predicate, rest = act
    rest = rest.strip()
    bare = _LEAD_OBJ_PRONOUN.sub("", rest)
    if bare != rest and rest.split()[0].lower() in THIRD_PERSON and ADJUNCT_START.match(bare):
        return []  # "need to do it by Friday": the pronoun was the object, and it is named elsewhere
    rest = bare
    due = None
    if node is NodeType.TASK:
        dm = _DUE.search(" " + rest)
        if dm is not None:
            due = dm.group("due").strip().rstrip(".!")
    obj, det_neg = clean_object(rest) if rest else (None, False)
    if rest.strip() and obj is None and rest.split()[0].lower() in BAD_OBJECT:
        return []  # an action with an unusable object ("want to call you") is not a claim
    p = _mk(subject, predicate, obj, node, f)
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


# --- statement patterns ---------------------------------------------------------------------------

#: A number and its unit; a token that only starts with digits ("9f86d081...", "3b24-...") is no number.
_NUMBER: Final = re.compile(
    r"^(?P<n>[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[+-]?\d+(?:\.\d+)?)(?:\s*(?P<u>[A-Za-z%]+))?(?![\w-])"
)
_ATTR: Final = re.compile(
    r"^(?P<own>my|our|your|the user's|(?-i:[A-Z][a-z]+)'s)\s+(?P<attr>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?)"
    r"(?P<tov>\s+to\s+[a-z]+(?:\s+(?:to|at|on|in|with|about))?)?"
    r"(?P<when>\s+(?:(?:this|next|last)\s+(?:week|weekend|month|year|season|semester|term|quarter|time)|"
    r"today|tonight|right\s+now|rn|atm|these\s+days|nowadays|currently|at\s+the\s+moment))?"
    r"(?:\s+|(?='s\s))(?P<cop>is|are|was|'s)\s+(?P<neg>not\s+)?(?P<val>.+)$",
    I,
)
_REL_ATTR: Final = re.compile(
    rf"^(?P<own>my|our)\s+(?P<rel>{RELATION})'s\s+(?P<attr>[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)\s+(?:is|'s)\s+"
    r"(?P<neg>not\s+)?(?P<val>.+)$",
    I,
)
_BARE_FAVOURITE: Final = re.compile(
    r"^(?:my\s+)?(?P<attr>(?:all[- ]time\s+)?(?:favou?rite|fave?)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
    r"(?:\s+(?:of\s+all\s+time|ever|by\s+far))?(?=\s+(?:is|are|'s)\s)",
    I,
)
#: "(a) product designer at Meta": a role and where it is held.
_ROLE_AT: Final = re.compile(
    r"^(?P<role>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s+at\s+(?P<org>(?!(?:the|a|an|my|our|his|her|their|home|work|school|uni|university|"
    r"night|heart|best|least|most|first|times|all)\b)[\w&'.-]+(?:\s+[\w&'.-]+){0,2}?)\s*(?:[,;.!?]|$)",
    I,
)
_ROLE_HEADS: Final = frozenset(
    h for c in DEFAULT_REGISTRY.object_classes if c.attribute == "role" for h in c.heads
)
_STUDENT_HEADS: Final = frozenset({"student", "undergrad", "postgrad", "phd", "graduate", "fellow", "postdoc"})
_HOME_WORDS: Final = frozenset({"place", "home", "flat", "apartment", "house", "pad", "new place", "new flat"})
#: "basketball is the sport I dislike the most", "jazz is the music I love most": a ranked taste.
_RANKED_TASTE: Final = re.compile(
    r"^(?:the|a|an)\s+(?:[a-z][\w-]*\s+){1,2}?(?:that\s+)?(?:I|we)\s+(?:(?:really|just|honestly|truly|genuinely)\s+)*"
    r"(?P<neg>don't\s+|do\s+not\s+|never\s+)?(?:(?P<bad>dislike|hate|detest|loathe|can't\s+stand)|"
    r"(?P<good>love|like|enjoy|adore))(?:\s+(?:the\s+)?(?P<rank>most|least)\b|\s*(?:[,;.!?]|$))",
    I,
)
_RELATION_RX: Final = re.compile(RELATION, I)
_PERSON_NOUNS: Final = frozenset(DEFAULT_REGISTRY.person_nouns)
#: "only 1.65m tall", "about 180 cm tall", "5'9 tall": the speaker's height.
_HEIGHT: Final = re.compile(
    r"^(?:only\s+|about\s+|around\s+|roughly\s+|nearly\s+|almost\s+|exactly\s+|just\s+(?:under|over)\s+)?"
    r"(?P<h>\d(?:[.,]\d{1,2})?\s*m|\d{2,3}\s*cm|\d\s*(?:'|ft|foot|feet)\s*(?:\d{1,2}\s*(?:\"|in|inches)?)?)"
    r"\s+tall\b",
    I,
)
#: What may follow a nationality ("I'm Canadian, so ...", "australian, born and raised in perth").
_NATIONALITY_END: Final = re.compile(
    r"\s*(?:[,;.!?]|$|\s+(?:btw|tbh|lol|ngl|by\s+birth|originally|through\s+and\s+through)\b)", I
)
_ATTR_OF_MINE: Final = re.compile(
    r"^the\s+(?P<attr>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?)\s+(?:for|of|on|at)\s+(?P<own>my|our)\s+"
    r"(?P<thing>[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)\s+(?P<cop>is|are)\s+(?P<neg>not\s+)?(?P<val>.+)$",
    I,
)
_STORED_IN: Final = re.compile(
    r"^(?:stored|kept|saved|backed\s+up|synced|held)\s+(?:in|on|to|inside)\s+(?P<where>\S.*)$", I
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
    old, _ = clean_object(m.group("old"))
    return old


_PREFERENCE_ATTR: Final = re.compile(r"\b(?:favou?rite|preferred|fave?)\b", I)
#: "my go-to favourite drink", "my all-time favourite band": the favourite is the attribute (``favorite_drink``).
_FAVOURITE_LEAD: Final = re.compile(
    r"^(?:go_to|all_time|absolute|personal|number_one|top|ultimate|current|usual|very|big)_(?=(?:favou?rite|fave)_)"
)
#: How something was given up ("stopped drinking completely"): not what was given up.
_GIVEN_UP_HOW: Final = re.compile(
    r"^\s*(?:completely|entirely|altogether|totally|cold\s+turkey|for\s+good|for\s+now)\b\s*"
    r"|^\s*(?:in|since|last|this|around|about|over)\b.*$", I)
_SUBJECTLESS_LEAD: Final = re.compile(r"^(?:just|finally|recently|officially|also)\s+", I)
_STOPPED: Final = re.compile(r"^(?:stopped|quit|gave up|(?P<done>done|finished|through))\s+(?P<g>[a-z]+ing)\b\s*"
                             r"(?P<rest>.*)$", I)
#: A passive participle after "must be": "double-checked", "approved", "filed", "written".
_PARTICIPLE: Final = re.compile(
    r"^(?:[a-z]+-)?[a-z]{2,}(?:ed|en|wn)$|^(?:kept|sent|paid|held|built|made|set|put|sold)$"
)
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
_RATHER_VERB: Final = re.compile(
    r"^(?P<v>[a-z]+)\s+(?:(?:up|out|in|on|with|to|for|by|at|from)\s+)?(?=(?:the|a|an|my|our|some|\w+)\b)", I
)
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
_PREFER: Final = re.compile(
    r"^(?:prefer|prefers|preferred)\s+(?P<x>.+?)(?:\s+(?:over|to|rather than|instead of)\s+(?P<y>.+))?$", I
)
_LIKE_TO_WANT: Final = re.compile(r"^(?:like|love)\s+to\s+", I)
_DECIDE: Final = re.compile(
    r"^(?:decided|agreed|committed)\s+(?P<not>not\s+)?to\s+(?P<body>.+)$|"
    r"^(?:decided|agreed|settled)\s+(?P<on>on|against|upon)\s+(?P<obj>.+)$|"
    r"^(?:chose|chosen|choose|choosing|selected|picked|opted\s+for|opting\s+for|settled\s+on|settling\s+on|"
    r"going\s+with|go\s+with|gone\s+with|decided\s+on|deciding\s+on)\s+(?P<obj2>(?!(?:it|that|this|them|you|me|"
    r"us|him|her|my\s+(?:gut|instinct))\b).+)$|"
    r"^(?:opted)\s+(?P<not2>not\s+)?to\s+(?P<body2>.+)$|"
    r"^(?:rejected|ruled out|turned down)\s+(?P<obj3>.+)$",
    I,
)
#: "212 MB", "40 kg": a measurement, not an age.
_UNIT_AFTER: Final = re.compile(r"\s*(?:%|(?!(?:and|or|but|now|yo|so)\b)[A-Za-z]{1,3}\b)")
#: "Appointments are 45 minutes long": a number followed by a noun is a measure, not an age.
#: "The office address is 12 Main St": a number before a name is part of the name, not an age either.
_NOT_AGE_AFTER: Final = re.compile(
    r"\s+(?!(?i:and|or|but|now|so|next|this|today|in|on|at|since|until|with|already|soon|too|yet|years?|yo)\b)"
    r"[A-Za-z]{2,}\b"
)
_FOR_ME: Final = re.compile(r"^(?:for me|my (?:thing|cup of tea|jam|style))\s*$", I)
_BE_A: Final = re.compile(r"^(?:an?)\s+(?P<obj>.+)$", I)
_AGE: Final = re.compile(r"^(?P<n>\d{1,3})(?:\s+(?:years?\s+old|yo|y/o))?(?=[\s,!;]|\.(?:\s|$)|$)", I)
_FAN_OF: Final = re.compile(r"^an?\s+(?:(?:big|huge|massive)\s+)?fan\s+of\b", I)
_AS_ROLE: Final = re.compile(
    r"\bas\s+(?:an?\s+)?(?P<role>(?!(?:well|much|long|soon|far|usual|before|always)\b)[^,;.!?]+)", I
)
#: What may follow an activity verb without being its object: "I don't bake at all", "I never drive any more".
#: Verbs that say what happened to a thing without an object ("the parcel hasn't arrived").
_HAPPENING_VERBS: Final = frozenset({"arrive", "crash", "fail", "expire", "launch", "break", "leak", "ship"})
_STILL_YET: Final = re.compile(r"^\s*(?:yet|again|already|still|today|yesterday|last\s+night)?\s*(?:[,;.!?]|$)", I)
_ONLY_QUALIFIED: Final = re.compile(
    r"^\s*(?:at\s+all|much|any\s?more|these\s+days|nowadays|often|ever|really|very\s+much|a\s+lot|regularly|"
    r"anywhere|either)\b\s*(?:[,;.!?]|$)",
    I,
)
#: The verb-table predicates whose verb is also an activity without an object ("I don't drive").
_ACTIVITY_ROWS: Final = frozenset({"drives", "drinks", "plays", "eats", "studies"})
_INTENSIFIER: Final = (r"(?:(?:so|really|rly|very|pretty|kinda|kind\s+of|super|quite|just|honestly|absolutely|totally|"
                       r"incredibly|unbearably|extremely|a\s+bit|too|sooo+|actually|literally|genuinely|truly)\s+)*")
_BAD_TASTE: Final = (r"gross|nasty|disgusting|vile|revolting|awful|horrible|terrible|the\s+worst|overrated|overhyped|"
                     r"boring|dull|tedious|unbearable|annoying|grim|rank|trash|garbage|rubbish|torture|a\s+nightmare|"
                     r"not\s+for\s+me|the\s+devil|evil|yuck|yucky|bland|meh|mid|tasteless|pointless|overpriced|"
                     r"cringe|cringey|cringy|brain\s+rot|a\s+(?:chore|drag|snooze(?:fest)?|waste\s+of\s+time)|"
                     r"not\s+my\s+(?:thing|vibe|jam|cup\s+of\s+tea|style)|a\s+(?:hard\s+)?(?:no|pass)|sickening|"
                     r"lame|wack|whack|the\s+worst\s+\w+|insufferable|unwatchable|undrinkable|inedible")
_GOOD_TASTE: Final = (r"the\s+best|amazing|awesome|delicious|incredible|life|the\s+goat|goated|elite|fire|lush|"
                      r"underrated|my\s+jam|so\s+good|the\s+bomb|heaven|relaxing|fun|fascinating|addictive|yummy|tasty|"
                      r"entertaining|great|fantastic|brilliant|wonderful|peak(?:\s+\w+)?|the\s+best\s+\w+|"
                      r"my\s+(?:guilty\s+pleasure|comfort\s+\w+|happy\s+place|favou?rite(?:\s+\w+)?|"
                      r"everything|obsession)|a\s+vibe|a\s+banger|a\s+treat|top\s+tier|s[-\s]tier|lit")
#: "my gym membership was cancelled", "sublime is uninstalled", "the old laptop's been sold": a thing given up,
#: said in the passive. Only what the speaker owns ("my", "our") or a thing only its user uninstalls or deletes:
#: "the road was closed" and "the match was cancelled" give nothing up.
_GIVEN_UP: Final = re.compile(
    r"^(?:(?:been|now|officially|finally|just|already|also|all)\s+)*"
    r"(?P<verb>uninstalled|deleted|deactivated|cancell?ed|sold|scrapped|binned|discontinued|closed|"
    r"shut\s+(?:off|down)|decommissioned|given\s+away|rehomed)"
    r"(?:\s+(?:now|today|yesterday|last\s+\w+|this\s+\w+|for\s+good|at\s+last|finally|lol|tbh|thank\s+god|"
    r"in\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|in\s+\d{4}|on\s+\w+day|"
    r"(?:a|an|\w+)\s+(?:(?:few|couple(?:\s+of)?)\s+)?(?:days?|weeks?|months?|years?)\s+ago))*"
    r"\s*(?:[,;.!?]|$)",
    I,
)
_GIVEN_UP_BARE: Final = frozenset({"uninstalled", "deleted", "deactivated"})
#: A taste stated as a be-complement: only when nothing follows but punctuation or a chat tail.
_OPINION: Final = re.compile(
    r"^" + _INTENSIFIER + r"(?:(?P<bad>" + _BAD_TASTE + r")|(?P<good>" + _GOOD_TASTE + r"))"
    r"(?:\s+(?:honestly|tbh|ngl|imo|to\s+me|for\s+me|though|tho|lol|haha|no\s+joke|fr))*\s*(?:[,;.!?]|$|\s\s)",
    I,
)
#: Whose taste a be-complement may be: a bare noun phrase ("pineapple on pizza", "Taylor Swift"), never a
#: thing pointed at, owned or a person ("the weather", "my commute", "it", "she").
_OPINION_SUBJECT: Final = re.compile(
    r"^(?!(?:the|this|that|these|those|it|its|it's|he|she|they|we|you|there|here|everything|everyone|"
    r"everybody|something|nothing|someone|life|today|tonight|tomorrow|yesterday|work|a|an|one|what|which)\b)"
    r"(?!.*'s\b)[\w&+.'-]+(?:\s+[\w&+.'-]+){0,3}$",
    I,
)
#: A taste stated by a verb of a bare noun phrase ("camping sucks", "board games bore me", "this song slaps").
_TASTE_VERB: Final = re.compile(
    r"^(?P<np>[a-z][\w&+.'-]*(?:\s+[\w&+.'-]+){0,3}?)\s+" + _INTENSIFIER
    + r"(?:(?P<bad>sucks?|bores?\s+me(?:\s+(?:to\s+(?:death|tears)|stiff|senseless))?|"
    r"gross(?:es)?\s+me\s+out|disgusts?\s+me|(?:does|do)\s+nothing\s+for\s+me)|"
    r"(?P<good>slaps?|rocks?|rules?|hits\s+different))"
    r"(?:\s+(?:honestly|to\s+me|for\s+me|though|tho|so\s+hard|hard))*\s*(?:[,;.!?]|$|\s\s|\s+(?:lol|lmao|haha|tbh|ngl|imo)\b)",
    I,
)
#: "..., I love it", "..., I'm a big fan", "..., I'm not really a fan, way overhyped": a taste in what the clause
#: before named. A fan clause ends at "fan" ("not a fan of X" names its own object); a comment may follow a comma.
_TASTE_ANAPHOR: Final = re.compile(
    r"^(?:and\s+|so\s+)?I\s+(?:(?:really|honestly|absolutely|just|totally|genuinely|do)\s+)*"
    r"(?:(?P<good>love|adore|like|enjoy|dig)|(?P<bad>hate|dislike|detest|loathe|can't\s+stand))\s+(?:it|them)"
    r"(?:\s+(?:honestly|tbh|ngl|so\s+much|a\s+lot|lol|haha|to\s+bits))*\s*$"
    r"|^(?:(?:and|but|so|nah|nope|honestly|tbh|ngl)\b,?\s+)*(?:I'm\s+|I\s+am\s+)?"
    r"(?:(?P<not>not|never)\s+(?:(?:really|exactly|honestly|that|too|much\s+of)\s+)*)?"
    r"(?:a\s+)?(?:(?:big|huge|massive|total|great|real)\s+)?fan(?:\s+(?:honestly|tbh|ngl|tho|though|lol|tbf))*"
    r"\s*(?:[,;.!]\s*(?!of\b).*)?$",
    I,
)
#: A thing a copula clause described, which "it" in a taste after it can stand for ("crossfit is a cult"): a bare
#: lower-case noun phrase, as chat writes a thing, never a person ("mum is a nurse", "Tom is a chef").
_DESCRIBED_THING: Final = re.compile(
    rf"^(?!(?:{RELATION}|mum|mom|dad|nan|gran|grandma|grandpa|baby|bf|gf|hubby)\b)(?-i:[a-z])[\w&+.'-]*"
    r"(?:\s+[\w&+.'-]+){0,3}$",
    I,
)
#: "nothing beats a cold beer after work", "nothing compares to my mum's lasagne".
_NOTHING_BEATS: Final = re.compile(
    r"^nothing\s+(?:beats|tops|compares\s+to|comes\s+close\s+to)\s+(?P<x>[^,;.!?]+?)"
    r"(?:\s+(?:after|before|on|in|at|when|during|for)\s+[^,;.!?]+)?\s*(?:[,;.!?]|$|\s\s)",
    I,
)
#: "dark mode ftw", "tabs ftw": chat's "for the win".
_FTW: Final = re.compile(r"^(?P<x>[a-z][\w&+.'-]*(?:\s+[\w&+.'-]+){0,3}?)\s+ftw\b", I)
#: "I'm a tea lover", "a huge sushi fanatic": a taste named by what the speaker is ("a beach person" stays a
#: trait, ``is_a``).
_TASTE_PERSON: Final = re.compile(
    r"^an?\s+(?:(?:big|huge|massive|total|real|true|proper|diehard|die-hard|lifelong)\s+)?"
    r"(?P<x>[a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)\s+(?:lover|fanatic|addict|junkie|enthusiast|nut|snob|fiend)"
    r"(?:\s+(?:at\s+all|honestly|tbh|ngl|though|tho|lol|really))*\s*(?:[,;.!?]|$)",
    I,
)
#: "I'm a cat person", "not a beach person at all": the idiom names what the speaker likes (``likes cat``).
_NOUN_PERSON: Final = re.compile(
    r"^an?\s+(?:(?:big|huge|massive|total|true|proper|diehard|die-hard|complete)\s+)?"
    r"(?P<x>[a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)\s+person"
    r"(?:\s+(?:at\s+all|honestly|tbh|ngl|though|tho|lol|really|for\s+sure|through\s+and\s+through))*"
    r"\s*(?:[,;.!?]|$)",
    I,
)
#: The shape of an adjective before "person" ("a creative person", "a nervous person", "a caring person"): a
#: trait, not a taste.
_TRAIT_SHAPE: Final = re.compile(
    r"(?:ive|ful|ous|less|able|ible|ing|ed|tic|est|ly|al|\w{3}ish|\w{4}(?:ent|ant))$", I
)
_FIND_IT: Final = re.compile(
    r"^(?:find|finds)\s+(?P<x>(?!(?:it|that|this|them|myself|out|time|a|an|the\s+time)\b)[^,;.!?]+?)\s+"
    + _INTENSIFIER + r"(?:(?P<bad>" + _BAD_TASTE + r")|(?P<good>" + _GOOD_TASTE + r"))\b",
    I,
)
_GOT_DONE: Final = re.compile(
    r"^(?P<np>(?:my|our|the|his|her|their|a|an)\s+[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+"
    r"(?P<pp>[a-z]+(?:ed|built|done|made|fixed|cut|set|sold|paid|sent))(?:\s|$)",
    I,
)
_ING: Final = re.compile(r"^[a-z]{3,}[^aeiou\W]ing$")
_GOT_THING: Final = re.compile(r"^(?:(?:a|an|my|our|the|two|three|\d+)\s|(?-i:[A-Z]))", I)
_GETTING_MORE: Final = re.compile(r"^(?:new|extra|another|solar|fibre|fiber)\s+(?-i:[a-z])", I)
_SEE_MYSELF: Final = re.compile(r"^(?:myself|ourselves)\s+(?=\w+ing\b)", I)
#: What a be-complement object may start with: a word, a currency, or an identifier's sign ("#0d1117", "@lena",
#: "+44 20 7946 0958", "/etc/nginx", "~/.ssh").
_OBJECT_HEAD: Final = re.compile(r"^(?:[\w\d$\u00a3\u20ac]|[#@~]\w|\+\d|~?/[\w.])", re.UNICODE)
#: "We don't have a garden, just a small balcony": after a negated clause, what holds instead.
_JUST_INSTEAD: Final = re.compile(
    r",\s+(?:but\s+)?(?:just|only|merely|simply)\s+"
    # idioms, not a value: "only child", "just so you know", "just kidding", "just in case"
    r"(?!(?:so|saying|sayin|kidding|joking|in\s+case|child|once|for\s+now|now|then|because|cause|cos|wondering|"
    r"curious|asking|checking)\b)(?P<y>(?:(?!\b(?:is|are|was|were|am|be|fine)\b)[^,;]){1,40}?)\s*$", I
)
_NEGATED: Final = re.compile(r"\b(?:not|never|no)\b|n't\b|\bdont\b|\bcant\b", I)
#: ", pescatarian now" after a negated update ("I'm not vegetarian anymore, pescatarian now"): the new value,
#: stated without repeating subject and verb.
_ELLIPTIC_NEW: Final = re.compile(
    r",\s+(?:(?:but|and)\s+)?(?!(?:I|we|my|our|you|your|he|she|they|it|this|that|there|always|never|please|"
    r"don't|do)\b)"
    r"(?!(?:\d+|a|one|two|three|six)\s+(?:days?|weeks?|months?|years?)\b)(?![^,;]*\b(?:has|have|had|is|are|was|were)\b)"
    r"(?:(?:now|these days|nowadays)\s+(?P<a>[^,;]{1,40}?)|(?P<b>[^,;]{1,40}?)\s+(?:now|instead|these days|nowadays))"
    r"\s*$",
    I,
)


# --- the statement grammar ------------------------------------------------------------------------


_FIRST_PERSON_LEAD: Final = re.compile(r"^(?:I|we)\s", re.I)
#: A segment that answers a one-phrase question, the topic leading it ("kombucha? nah, ...").
_TOPIC_LEAD: Final = re.compile(r"^(?P<topic>[^?]{1,60})\?\s+(?P<rest>\S.*)$")


class StatementParser(ClauseParser):
    """What a clause states once its subject and auxiliaries are read: facts, preferences, decisions,
    tasks, updates and speech acts, for first-person and third-party subjects alike.

    Every role's statements go through it: the user's own, a system prompt's ("This workspace belongs
    to X"), and the assistant's restatements of the user ("you told me you live in Berlin").
    """

    #: A system prompt states policy: its "should" is a rule rather than a suggestion, and only lasting,
    #: present-tense statements are facts.
    speaks_policy: ClassVar[bool] = False
    #: A speaker's own taste in a topic they asked about ("sushi? love it"): a user's, not a system prompt's.
    speaks_taste: ClassVar[bool] = False
    #: The attribute registry's update words (the extractor sets a tenant's own).
    words: UpdateWords = update_words()
    #: The last claim of the segment read before (one parser reads one message), for "..., I love it".
    _last: Proto | None = None

    def _lead(
        self, t: str, inherited: str | None, hedge: bool, flip: bool, update_cue: bool
    ) -> tuple[list[Proto], str | None] | None:
        return self._attribute_clause(t, inherited, hedge, flip)

    def _attribute_clause(
        self, t: str, inherited: str | None, hedge: bool, flip: bool
    ) -> tuple[list[Proto], str | None] | None:
        attr = self._attribute(t)
        if attr is None:
            return None
        attr.hedge = attr.hedge or hedge
        attr.negative ^= flip
        # "My partner is called Sam and works as a nurse": the next clause is about the partner.
        carried = attr.subject if attr.predicate == "name" else inherited
        return [attr], carried

    def segment(self, seg: str, conditional: bool) -> list[Proto]:
        """Every clause of one segment (see :func:`extractors.rules.clauses.segments`), the subject carried over."""
        protos: list[Proto] = []
        subject: str | None = None
        asked = _TOPIC_LEAD.match(seg)
        if asked is not None:
            # "sushi? love it" (see :func:`extractors.rules.clauses.segments`): the taste in the topic, then the
            # answer read as a segment of its own
            seg = asked.group("rest")
            judged = self._topic_taste(asked.group("topic"), seg) if self.speaks_taste else None
            if judged is not None:
                protos.append(judged)
        if "(" in seg:
            seg = drop_subject_asides(seg)
        if conditional:
            seg = INVERTED.sub(lambda m: f"{m.group('s')} {m.group('a')} ", seg, count=1)
        elliptic = None
        if "," in seg:
            low = seg.lower()
            if "now" in low or "instead" in low or "these days" in low:
                elliptic = _ELLIPTIC_NEW.search(seg)
        if elliptic is not None:
            seg = seg[: elliptic.start()]
        contrast = _JUST_INSTEAD.search(seg) if "," in seg and _NEGATED.search(seg) else None
        if contrast is not None:
            seg = seg[: contrast.start()]
        parts = CLAUSE_SPLIT.split(joint_subject(seg))
        if _INSTR_PAIR_START.match(seg) and "," in seg:
            parts = _INSTR_PAIR_SPLIT.split(seg)
        for part in parts:
            rm = REASON_OPENER.match(part)
            if rm is not None:
                # "'cause I love baking", "since i work nights": a reason is a proposition of its own
                part = part[rm.end() :]
                subject = None
                im = REASON_IT.match(part)
                if im is not None:
                    if not protos or not protos[-1].object or protos[-1].subject != self._owner():
                        continue  # "because it ..." with nothing to stand for: unresolved, no claim
                    it = im.group().lower()
                    rest, flags = consume_aux(("is " if it in ("it's", "its") else "") + part[im.end() :].strip())
                    protos.extend(self._predicate(protos[-1].object, rest, flags))
                    continue
            am = _TASTE_ANAPHOR.match(part)
            if am is not None:
                # the clause before may be in this segment or end the segment before ("X, I love it")
                prev = protos[-1] if protos else self._last
                liked = self._anaphor_taste(prev, bad=am.group("bad") is not None or am.group("not") is not None)
                if liked is not None:
                    protos.append(liked)
                continue
            part = joint_subject(part)
            # "I fly to Amman on the 3rd and come back on the 17th": after I/we a bare verb agrees
            for clause in split_and_verb(part, base_ok=_FIRST_PERSON_LEAD.match(part) is not None):
                got, subject = self.parse(clause, subject)
                protos.extend(got)
        if elliptic is not None and protos and protos[-1].negative and protos[-1].update:
            new, _ = clean_object(LEAD_ADV.sub("", elliptic.group("a") or elliptic.group("b")))
            if new is not None:
                old = protos[-1]
                protos.append(Proto(old.subject, old.predicate, new, old.node_type, hedge=old.hedge, update=True))
        if (contrast is not None and protos and protos[-1].negative and not protos[-1].hedge
                and protos[-1].node_type is not NodeType.INSTRUCTION):
            # "we aren't married, just engaged": what holds instead, with the same predicate
            new, _ = clean_object(contrast.group("y"))
            old = protos[-1]
            if new is not None and (old.object or "").lower() != new.lower():
                protos.append(Proto(old.subject, old.predicate, new, old.node_type))
        self._last = protos[-1] if protos else None
        return protos

    def _topic_taste(self, topic: str, answer: str) -> Proto | None:
        """The speaker's taste in a topic asked and judged ("kombucha? hard pass"): only a bare noun phrase."""
        verdict = TOPIC_VERDICT.match(answer)
        obj = topic.strip()
        if verdict is None or _OPINION_SUBJECT.match(obj) is None:
            return None
        return Proto(self._owner(), "likes", obj, NodeType.PREFERENCE, negative=verdict.group("bad") is not None)

    def _anaphor_taste(self, prev: Proto | None, *, bad: bool) -> Proto | None:
        """The taste "I love it" / "I'm not a fan" states, in what the clause before named: the speaker's object
        ("been listening to jazz, I love it"), or a bare thing the clause before described ("crossfit is a
        cult and I'm not a fan"). None when nothing of the kind stands for "it" (unresolved, so no claim)."""
        if prev is None or prev.negative or prev.hedge or prev.metadata.get("attribute_form"):
            return None  # "my brother is a dentist, I'm not a fan": a value of the speaker's, not a thing done
        if prev.subject == self._owner() and prev.object:
            if prev.predicate == "likes":
                return None  # "I love jazz, I'm a big fan": the taste is already said
            return Proto(self._owner(), "likes", prev.object, NodeType.PREFERENCE, negative=bad)
        if _DESCRIBED_THING.match(prev.subject) and (prev.predicate == "is" or prev.predicate.startswith("is_")):
            return Proto(self._owner(), "likes", prev.subject, NodeType.PREFERENCE, negative=bad)
        return None

    def subject_of_labels(self) -> str:
        """Whose a labelled value is ("laptop serial C02…"): the speaker's, or in a project the team's,
        as "our" would say (:mod:`extractors.rules.labelled`)."""
        return self._we()

    # -- "my X is Y"
    def _attribute(self, t: str) -> Proto | None:
        fav = _BARE_FAVOURITE.match(t)
        if fav is not None:
            # "favorite band of all time = the beatles": chat drops the "my" and ranks within all time
            t = "my " + fav.group("attr") + " " + t[fav.end() :]
        m = _ATTR.match(t)
        if m is not None and m.group("tov") and not _PREFERENCE_ATTR.search(m.group("attr")):
            m = None  # "my way to relax is ...": only a favourite is ranked within "sport to watch"
        if m is None:
            return self._relative_attribute(t)
        own = m.group("own").lower()
        if own == "your" and not self.mode.attribution:
            return None
        words = m.group("attr").split()
        if words[-1][:1].isupper() or any(
            w[:1].isupper() and _RELATION_RX.fullmatch(before) for before, w in pairwise(words)
        ):
            return None  # "My brother Will is ...": a relative and their name, not an attribute called "brother will"
        # a brand or acronym before a lowercase head stays ("my IKEA order number is ...")
        attr = m.group("attr").lower()
        if attr.split()[-1] in ATTR_STOP or attr.split()[0] in ATTR_STOP:
            return None
        if m.group("cop") == "'s" and (_RELATION_RX.fullmatch(attr.split()[-1]) or attr.split()[-1] in _PERSON_NOUNS):
            # "my sister's in Berlin", "my partner's name is Jon": the relative is the subject
            return self._relative_attribute(t)
        if own == "our":
            subject = self._we()
        elif own in ("my", "your"):
            subject = self._owner()
        elif own == "the user's":
            subject = "user"
        else:
            named = self._named(m.group("own")[:-2])
            if named is None:
                return None
            subject = named
        val = m.group("val")
        masked = PLACEHOLDER.match(val.strip())
        if masked is not None:
            # "my password is [REDACTED:password]": proposed as it stands, so validation refuses it as a
            # secret value and the journal records that a secret was offered and not kept
            return Proto(subject, snake(attr), masked.group(0), NodeType.FACT)
        update = False
        lead = _ATTR_LEAD.match(val)
        if lead is not None:
            update = lead.group("upd") is not None
            val = val[lead.end() :]
        replaces = None
        inst = _INSTEAD_OF.search(val)
        if inst is not None:
            replaces, _ = clean_object(inst.group("old"))
            val = val[: inst.start()]
            update = True
        stored = _STORED_IN.match(val.strip())
        if stored is not None and not m.group("neg"):
            # "my passwords are kept in KeePassXC", "my photos are backed up to iCloud": where the thing
            # is, not what it is (and never the value of a credential)
            where, _ = clean_object(stored.group("where"))
            if where is None:
                return None
            return Proto(subject, snake(f"{attr} stored in"), where, NodeType.FACT, update=update)
        num = _NUMBER.match(val.strip())
        if m.group("cop").lower() == "was" and num is None:
            return None
        obj, _ = clean_object(val)
        if obj is None:
            return None
        node = NodeType.PREFERENCE if _PREFERENCE_ATTR.search(attr) else NodeType.FACT
        if attr in _HOME_WORDS and own == "my" and re.match(r"^\s*in\s", val, I):
            # "my place is in Munich": where the speaker lives
            return Proto(subject, "lives_in", obj, NodeType.FACT, negative=m.group("neg") is not None, update=update,
                         replaces=replaces)
        pred = _FAVOURITE_LEAD.sub("", snake(attr))
        if pred.startswith("fav_"):
            pred = "favorite_" + pred[4:]  # chat's "fav" (the registry knows favourite_ and fave_)
        called = re.match(r"^(?:called|named)\s+(?P<n>.+)$", obj, I)
        if called is not None and subject == self._owner():
            subject, pred, obj = f"{subject}'s {attr}", "name", called.group("n")
        proto = Proto(subject, pred, obj, node, negative=m.group("neg") is not None, update=update,
                      replaces=replaces)
        if pred != "name":
            # "my <attribute> is <value>" names the attribute's one value (the registry's attribute form)
            proto.metadata["attribute_form"] = True
        if num is not None and obj.startswith(num.group("n")):
            proto.quantity = Quantity(value=num.group("n"), unit=num.group("u") or "1", source_text=num.group("n"))
        return proto

    def _relative_attribute(self, t: str) -> Proto | None:
        """"My partner's name is Jon", "our manager's email is ...": an attribute of a relative."""
        m = _REL_ATTR.match(t)
        if m is None:
            return self._attribute_of_mine(t)
        obj, _ = clean_object(m.group("val"))
        if obj is None:
            return None
        holder = self._we() if m.group("own").lower() == "our" else self._owner()
        proto = Proto(f"{holder}'s {m.group('rel').lower()}", snake(m.group("attr")), obj,
                      negative=m.group("neg") is not None)
        proto.metadata["attribute_form"] = True
        return proto

    def _attribute_of_mine(self, t: str) -> Proto | None:
        """"The tracking number for my parcel is 1Z...", "the wifi name at our office is ...": an attribute of
        something the speaker has, named before it."""
        m = _ATTR_OF_MINE.match(t)
        if m is None:
            return None
        attr, thing = m.group("attr").lower(), m.group("thing")
        if attr.split()[-1] in ATTR_STOP or m.group("attr").split()[-1][:1].isupper():
            return None
        obj, _ = clean_object(m.group("val"))
        if obj is None:
            return None
        holder = self._we() if m.group("own").lower() == "our" else self._owner()
        proto = Proto(f"{holder}'s {thing}", snake(attr), obj, negative=m.group("neg") is not None)
        proto.metadata["attribute_form"] = True
        return proto

    # -- main predicate dispatch
    def _predicate(self, subject: str, rest: str, f: Flags) -> list[Proto]:
        """What ``subject`` is said to do or be: an update of an earlier state (:mod:`extractors.rules.updates`)
        when the clause is one, else the statement grammar's reading, plus the product a usage names."""
        if not rest:
            return []
        settled = not (f.neg or f.future or f.would or f.modal or f.should or f.must)
        if settled:
            changed = update_clause(subject, rest, self._owner(), self.words, passive=f.be)
            if changed is not None:
                for p in changed:
                    p.hedge = p.hedge or f.hedge
                return changed
        protos = self._statement(subject, rest, f)
        if settled and not f.past and not f.be:
            known = {(p.predicate, (p.object or "").lower()) for p in protos}
            for used in usage(subject, rest):
                if (used.predicate, (used.object or "").lower()) not in known:
                    used.hedge = f.hedge
                    protos.append(used)
        return protos

    def _statement(self, subject: str, rest: str, f: Flags) -> list[Proto]:
        low = rest.lower()
        if f.should and not self.speaks_policy:
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
            act = action(rest[_LIKE_TO_WANT.match(rest).end() :], "wants_to")  # type: ignore[union-attr]
            f.hedge = False
            return cue_claim(subject, act, f, NodeType.FACT)
        if f.would:
            m = _RATHER.match(rest)
            if m is not None:
                # "I'd rather X than Y" states a preference; "would" here is not a hedge
                x = m.group("x")
                vm = _RATHER_VERB.match(x)
                if vm is not None and guess_verb(vm.group("v"), "fp") is not None:
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
            return cue_claim(subject, action(rest[m.end() :], cue), f, node)
        m = _HAVE_TO.match(rest)
        if m is not None and re.match(r"^(?:have|has|had|'ve got|got|gotta)\s+to\s|^gotta\s", low):
            return cue_claim(subject, action(rest[m.end() :], "needs_to"), f, NodeType.TASK, speech_act=False)
        if f.must and f.be and subject not in (self._owner(), "user", "assistant"):
            w0 = rest.split(" ", 1)[0].lower()
            if _PARTICIPLE.match(w0):
                # "Controlled substances must be double-checked by two nurses": a standing constraint, not a to-do
                obj, prep = generic_object_prep(rest[len(w0) :])
                p = _mk(subject, snake("must_be", w0, prep or ""), obj, NodeType.FACT, f) if obj else None
                return [p] if p else []
            # "passwords must be at least 14 characters long", "the deadline must be friday": a constraint on
            # the thing's value (a bound before a number stays part of it)
            bound = _BOUND.match(rest)
            obj, _ = clean_object(rest[bound.end() :] if bound else rest)
            if obj is None or (bound is None and obj.split()[0].lower() in PREPS):
                return []
            p = _mk(subject, "must_be", f"{' '.join(bound.group().split())} {obj}" if bound else obj, NodeType.FACT, f)
            return [p] if p else []
        if f.must:
            # "I must be at the office by 9": the action is being somewhere, not "at"
            act = ("needs_to_be", rest) if f.be else action(rest, "needs_to")
            return cue_claim(subject, act, f, NodeType.TASK, speech_act=False)

        m = _DECIDE.match(rest)
        # "going with / we'll go with X" chooses; "I go with friends" does not
        go = low.startswith(("go ", "going ", "gone "))
        if m is not None and not (go and not (f.be or f.future or f.perfect)) and not (go and f.would):
            return self._decision(subject, m, f)
        m = _CHANGED_THING.match(rest) or _CHANGED_THING_TO_FROM.match(rest)
        if m is not None:
            new, _ = clean_object(m.group("new"))
            old, _ = clean_object(m.group("old"))
            if new is None:
                return []
            p = _mk(subject, snake(m.group("what")), new, NodeType.FACT, f, update=True, replaces=old)
            return [p] if p else []
        m = _FIND_IT.match(rest)
        if m is not None and not f.past:
            # "I find golf boring", "find cricket unbearably dull": a taste, its object what is found so
            obj, _ = clean_object(m.group("x"))
            if obj is None:
                return []
            found = _mk(subject, "likes", obj, NodeType.PREFERENCE, f, lexneg=m.group("bad") is not None)
            return [found] if found else []
        m = _PREFER.match(rest)
        if m is not None:
            if f.past and not f.perfect:
                return []
            return self._prefers(subject, m.group("x"), m.group("y"), f)

        if f.future and not f.would and rest.split()[0].lower() in STATIVE_FUTURE:
            # "we won't need a maintenance window", "I'll assume X": a state, not an action of the speaker
            act = action(rest, "will")
            return [] if act is None else cue_claim(subject, act, f, NodeType.FACT, speech_act=False)
        if f.future and not f.would:
            act = action(rest, "will")
            if act is None or act[0] in ("will_be", "will_have", "will_see", "will_think", "will_let", "will_do"):
                return []
            if act[0].startswith("will_try"):
                return []
            own = subject in (self._owner(), "user", "assistant")
            return cue_claim(subject, act, f, NodeType.TASK if own else NodeType.FACT, speech_act=False)

        m = _CONSIDER.match(rest)
        if m is not None:
            f2 = replace(f, hedge=True, be=False)
            sw = _A_SWITCH.match(m.group("rest"))
            if sw is not None:
                # "weighing a switch from Lightroom to Darktable": what is being considered is the target
                obj, _ = clean_object(sw.group("new"))
                p = _mk(subject, "considering", obj, NodeType.FACT, f2) if obj else None
                return [p] if p else []
            inner = self._predicate(subject, m.group("rest"), f2)
            if inner:
                return inner
            obj, _ = clean_object(m.group("rest"))
            considered = _mk(subject, "considering", obj, NodeType.FACT, f2) if obj else None
            return [considered] if considered else []

        m = _STOPPED.match(rest)
        if m is not None and m.group("g").lower() in GERUND and (f.be or not m.group("done")):
            given_up = _GIVEN_UP_HOW.sub("", _GIVEN_UP_HOW.sub("", m.group("rest") or ""))
            obj, _ = clean_object(given_up) if given_up.strip() else (None, False)
            predicate = GERUND[m.group("g").lower()]
            g = m.group("g").lower()
            lemma = next((c for c in (g[:-3], g[:-3] + "e", g[:-4]) if c in ACTIVITY_VERBS), "")
            if obj is None and lemma:
                predicate = lemma  # "quit smoking" meets "I smoke" (the activity's own predicate)
            stopped = _mk(subject, predicate, obj, NodeType.FACT, f, lexneg=True, update=True, replaces=obj)
            return [stopped] if stopped else []

        if f.be:
            complement = self._be_complement(subject, rest, f)
            if complement is not None:
                return complement

        first_hit = VERB_RX.match(rest)
        if first_hit is None:
            return self._generic(subject, rest, f)
        for verb in VERBS[int((first_hit.lastgroup or "v0")[1:]) :]:
            m = verb.pattern.match(rest)
            if m is None:
                continue
            if (verb.needs_be and not f.be) or (verb.needs_perfect and not (f.perfect or f.got)):
                continue
            first = low.split()[0] if low.split() else ""
            if first in PAST_FORMS and not (f.perfect or verb.past_ok):
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
            old_obj = clean_object(old)[0] if old else None
            instead = _instead_of(obj_text) if not (verb.lexneg or f.neg) else None
            if instead is not None:
                old_obj = old_obj or instead
            if verb.listy:
                items = object_list(obj_text)
            else:
                o, n = clean_object(obj_text)
                items = [(o, n)] if o is not None else []
            if not items and verb.predicate in _ACTIVITY_ROWS and (
                    not obj_text.strip() or _ONLY_QUALIFIED.match(obj_text)):
                return self._generic(subject, rest, f)  # "I don't drive", "i dont drink anymore": the activity
            out: list[Proto] = []
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
                predicate = verb.predicate
                if predicate == "lives_in" and low.startswith(("move", "relocat")) and _THING_SUBJECT.match(subject):
                    predicate = "moved_to"  # "grafana moved to 3300", "db creds moved to secret/…": no home
                made = _mk(subject, predicate, obj, verb.node_type, f, lexneg=negative_lex ^ det_neg,
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
    def _generic(self, subject: str, rest: str, f: Flags) -> list[Proto]:
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
        if words[0][-1:] in (",", ";") and after:
            after = ", " + after  # "I smoke, maybe 10 a day": the comma ends the verb phrase
        system = self.speaks_policy
        if system and (f.past or f.perfect):
            return []
        phrasal = PHRASAL_VERBS.get(w0)
        particle = after.split(None, 1)[0].lower() if after else ""
        if phrasal is not None and particle in phrasal[1] and f.be == w0.endswith("ing"):
            return self._phrasal(subject, phrasal[0], after, f, w0)
        if f.be:
            vf = VERB_FORM.get(w0)
            if vf is not None and vf[1] == "ing":
                return self._generic_verb(subject, vf[0], after, f)
            if w0 == "getting" and (_GOT_THING.match(after) is not None or _GETTING_MORE.match(after) is not None):
                # "the building is getting new windows", "we're getting a puppy": a thing to come (never "getting
                # tired", "getting there")
                return self._generic_verb(subject, "get", after, f)
            if w0 in NOT_GUESSED_ING:
                return []  # "I'm hoping so", "I'm wondering about X", "I'm asking for a friend": talk, not a state
            if vf is None and _ING.match(w0) and after and w0 not in NOT_GUESSED:
                # "the landlord is repainting the stairwell": a progressive of a verb the whitelist lacks
                stem = w0[:-3]
                if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
                    stem = stem[:-1]
                elif stem[-1] in "zvc" and stem[-2] in "aeiou":
                    stem += "e"  # "freezing" -> freeze, "reserving" -> reserve
                return self._generic_verb(subject, stem, after, f)
            if f.perfect and w0 == "to":
                obj, det_neg = generic_object(after)
                p = _mk(subject, "visited", obj, NodeType.FACT, f) if obj else None
                return [p] if p else []
            if w0 in PREPS:
                obj, det_neg = generic_object(after)
                if obj is None:
                    return []
                p = _mk(subject, snake("is", w0), obj, NodeType.FACT, f)
                return [p] if p else []
            if (vf is not None and vf[1] == "past") or (w0.endswith("ed") and len(w0) > 4) or (
                    w0 in EN_PARTICIPLES and GENERIC_PREP.match(after)):
                obj, prep = generic_object_prep(after)
                if obj is None:
                    if after.strip() or not BARE_VERB.match(words[0]) or w0 in NOT_GUESSED:
                        return []
                    # "The bridge is probably warped": the participle is the state
                    p = _mk(subject, "is", words[0], NodeType.FACT, f)
                    return [p] if p else []
                p = _mk(subject, snake(w0, prep or ""), obj, NodeType.FACT, f)
                return [p] if p else []
            if w0 in GENERIC_BE_ADJ:
                p = _mk(subject, "is", w0, NodeType.FACT, f)
                return [p] if p else []
            obj, det_neg = clean_object(rest)
            if obj is None or len(obj.split()) > 4 or obj.split()[0].lower() in BE_A_STOP:
                return []
            if obj.split()[0].lower() in EVALUATIVE:
                return []  # "May is such a lovely month": an exclamation, not a fact
            if not _OBJECT_HEAD.match(obj):
                return []
            p = _mk(subject, "is", obj, NodeType.FACT, f, lexneg=det_neg)
            num = _NUMBER.match(obj)
            if p is not None and num is not None and num.group("u") is not None and obj.startswith(num.group("n")):
                p.quantity = Quantity(value=num.group("n"), unit=num.group("u"), source_text=num.group("n"))
            return [p] if p else []
        if w0 in ("need", "needs") and not f.aux and after and not after.lower().startswith("to "):
            if subject in (self._owner(), "user", "assistant"):
                return []  # "I need a break": a want, not a fact worth keeping
            # "Expense claims above £200 need a receipt": a standing requirement
            obj, _ = generic_object_prep(after)
            p = _mk(subject, "needs", obj, NodeType.FACT, f) if obj else None
            return [p] if p else []
        vf = VERB_FORM.get(w0)
        if vf is None and f.modal and BARE_VERB.match(words[0]) and w0 not in NOT_A_VERB:
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
            done = []
            if subject == self._owner() and not (f.neg or f.modal or f.would):
                done = self._experience(subject, after, f)
            if not done and not (f.neg or f.modal or f.would or f.hedge):
                done = self._dated_event(subject, after, f)
            return done  # else "I had a dog": a past state, not a current one
        if system and kind == "past":
            return []
        third_party = subject.lower() not in ("user", "assistant") and subject != self._owner()
        if third_party and not f.aux and kind == "base":
            head = subject.split()[-1].lower()
            if not head.endswith("s") or head.endswith("ss"):
                return []  # "Tool call timed out": no agreement, not a clause
        return self._generic_verb(subject, lemma, after, f, habitual=kind == "s", kind=kind)

    def _phrasal(self, subject: str, lemma: str, after: str, f: Flags, form: str) -> list[Proto]:
        """A verb that is a fact only with its particle: "I look after my dad on Fridays" (look_after dad),
        "we're looking for a flat in Brunswick", "I get up at 4:30" (get_up_at 4:30)."""
        part, _, rest = after.partition(" ")
        obj, prep = generic_object_prep(rest) if rest.strip() else (None, None)
        if obj is None:
            return []
        if form.endswith(("ed", "ot", "oke")):
            if lemma != "look":
                return []  # "I woke up at 6 today": one morning, not a routine
            f = replace(f, past=True)
        pred = snake(lemma, part.lower(), prep or "")
        p = _mk(subject, pred, obj, NodeType.FACT, f)
        return [p] if p else []

    def _outing(self, subject: str, verb: str, after: str, f: Flags) -> list[Proto] | None:
        """Where the speaker went and what they did, said in the past: "tried the new pho place on Spadina",
        "did the Tongariro Crossing on Sunday", "just got back from a week in Zanzibar", "got stuck at
        Schiphol overnight". The place a named venue gives stays with the object. None: not this form."""
        if verb == "got":
            m = _GOT_BACK.match(after)
            if m is not None:
                where, _ = clean_object(m.group("where"))
                p = _mk(subject, "got_back_from", where, NodeType.FACT, f) if where else None
                return [p] if p else []
            m = _GOT_STUCK.match(after)
            if m is not None:
                where, _ = clean_object(m.group("where"))
                how = snake("got", m.group("how"), m.group("prep"))
                p = _mk(subject, how, where, NodeType.FACT, f) if where else None
                return [p] if p else []
            return None
        if not _OUTING_OBJECT.match(after):
            return None  # "tried to call", "did it", "did my best": not a thing done
        obj, _ = clean_object(after)
        if obj is None:
            return None
        at = _NAMED_VENUE.search(after)
        if at is not None and obj in after[: at.start()]:
            obj = f"{obj} {at.group('prep').lower()} {at.group('venue')}"
        p = _mk(subject, verb, obj, NodeType.FACT, f)
        return [p] if p else []

    def _experience(self, subject: str, after: str, f: Flags) -> list[Proto]:
        """What the speaker went through, said with "had" and a judgement: "had a great time hosting the
        barbecue" (what they did), "had an amazing omakase at Sushi Saito" (what, and where). A bare "had a
        dog" stays a past state, not a claim."""
        m = _HAD_TIME.match(after)
        if m is not None and m.group("what").lower() != "blast" and _JUDGED_RX.search(after[: m.end("what")]) is None:
            m = None  # "had a day off", "had a week in Lisbon": no judgement, so no experience said
        if m is not None:
            ing = m.group("ing")
            lemma = VERB_FORM.get(ing.lower(), ("", "")) if ing else ("", "")
            if ing and lemma[1] != "ing":
                stem = ing.lower()[:-3]
                known = next((c for c in (stem, stem + "e", stem[:-1]) if c in ACTIVITY_VERBS), None)
                lemma = (known, "ing") if known else lemma  # "camping", "skiing": an activity the table lacks
            if lemma[1] == "ing":
                done = self._generic_verb(subject, lemma[0], m.group("rest"), replace(f, past=True))
                if done or not m.group("place"):
                    return done
            place, _ = clean_object(m.group("place") or "")
            if place is None:
                return []
            p = _mk(subject, snake("had", m.group("what"), "at"), place, NodeType.FACT, f)
            return [p] if p else []
        m = _HAD_JUDGED.match(after)
        if m is None:
            return []
        thing, _ = clean_object(m.group("thing"))
        place, _ = clean_object(m.group("place"))
        if thing is None or place is None:
            return []
        p = _mk(subject, "had", f"{thing} {m.group('prep').lower()} {place}", NodeType.FACT, f)
        return [p] if p else []

    def _dated_event(self, subject: str, after: str, f: Flags) -> list[Proto]:
        """What happened to someone, said with "had" and when: "my father had bypass surgery last year", "had a
        fall in 2023". The date makes it an event of the past rather than a state that no longer holds."""
        m = _HAD_WHEN.match(after)
        if m is None:
            return []
        thing, _ = clean_object(m.group("thing"))
        if thing is None:
            return []
        p = _mk(subject, "had", thing, NodeType.FACT, f)
        return [p] if p else []

    def _guess(self, subject: str, word: str, f: Flags) -> tuple[str, str] | None:
        """Shape-based verb guess for the fallback parse when the whitelist does not know the word."""
        own = subject == self._owner() or subject in ("user", "assistant")
        if own:
            return guess_verb(word, "any" if f.aux else "fp")
        g = guess_verb(word, "s")
        head = subject.split()[-1].lower()
        plural = head.endswith("s") and not head.endswith(("ss", "us", "is"))
        if g is None and (f.aux or plural) and not word.lower().endswith("s"):
            g = guess_verb(word, "any")  # "Lena doesn't babysit ...", "the beehives face ..."
        return g

    def _generic_verb(
        self, subject: str, lemma: str, after: str, f: Flags, *, habitual: bool = False, kind: str = ""
    ) -> list[Proto]:
        role = _AS_ROLE.search(after) if lemma in AS_ROLE_VERBS else None
        if role is not None:
            # "I work night shifts as a paramedic", "spent 30 years as a civil engineer": the role is the point
            obj, _ = clean_object(role.group("role"))
            p = _mk(subject, "works_as", obj, NodeType.FACT, f) if obj else None
            if p is not None and (f.past or lemma == "spend"):
                p.predicate = "worked_as"
            return [p] if p else []
        if lemma in ("get", "have"):
            gm = _GOT_DONE.match(after)
            if gm is not None:
                # "got my motorbike rebuilt": the thing is the object, the participle names what happened
                obj, _ = clean_object(gm.group("np"))
                p = _mk(subject, snake("got", gm.group("pp")), obj, NodeType.FACT, f) if obj else None
                return [p] if p else []
            if lemma == "get" and _GOT_THING.match(after) is None and _GETTING_MORE.match(after) is None:
                return []  # "I got distracted", "got home late": a state or a trip, not a thing obtained
        part = ""
        aw = after.split()
        if aw and aw[0].lower() in PARTICLES:
            part = aw[0].lower()
            after = after[len(aw[0]) :].strip()
            if part == "up" and after.lower().startswith("on "):
                after = after[3:]
        if after.lstrip().startswith((",", ";")):
            after = ""  # "I never bake, the oven is for storage": the comma ends the verb phrase
        sm = _SEE_MYSELF.match(after) if lemma == "see" else None
        if sm is not None:
            return self._predicate(subject, after[sm.end() :], replace(f, be=False))
        obj, prep = generic_object_prep(after)
        if obj is not None and _ONLY_QUALIFIED.match(after):
            obj = None  # "I don't smoke anymore": a qualifier, not what is smoked
        if obj is None:
            if (not after.strip() or _ONLY_QUALIFIED.match(after)) and not part and subject == self._owner() \
                    and lemma in ACTIVITY_VERBS and not (
                    f.future or f.would or f.modal or f.must or f.should):
                # "I don't run", "I never cook": the activity itself, with no object (it meets "I run every morning")
                done = _mk(subject, lemma, None, NodeType.FACT, f)
                return [done] if done else []
            if (not after.strip() or _ONLY_QUALIFIED.match(after) or _STILL_YET.match(after)) and not part \
                    and subject not in (self._owner(), "user", "assistant") and lemma in _HAPPENING_VERBS \
                    and not (f.future or f.would or f.modal or f.must or f.should):
                # "the Amazon order 302-... still hasn't arrived", "the nightly build failed again": what happened
                # to a thing, with no object
                done = _mk(subject, lemma, None, NodeType.FACT, f)
                return [done] if done else []
            return []
        if lemma == "go" and prep is None and obj.endswith("ing") and " " not in obj:
            # "went kayaking in Milford Sound": where the outing was is the point
            end = re.search(r"[,;!?]|\.(?:\s|$)|\s(?:and|but|with|because|so|on|last|this|yesterday|today)\b",
                            after)
            whole = after[: end.start()] if end else after
            if len(whole.split()) <= 6:
                obj = whole.strip()
        # "sold the camper" gives it up; "the bakery (no longer) sells momos" is a habit, negated only by the aux
        # a bare present without an auxiliary ("you sell the honey at the market") is a habit too
        bare_present = kind == "base" and not f.aux
        lexneg = (lemma in GIVE_UP_VERBS and not habitual and not bare_present) or (lemma == "give" and part == "up")
        pred = snake(lemma, part, prep or "")
        instead = None if lexneg or f.neg else _instead_of(after)
        p = _mk(subject, GENERIC_PREDICATES.get(pred, pred), obj, NodeType.FACT, f, lexneg=lexneg,
                update=lexneg or instead is not None, replaces=obj if lexneg else instead)
        return [p] if p else []

    def _prefers(self, subject: str, x: str, y: str | None, f: Flags) -> list[Proto]:
        obj, _ = clean_object(x)
        if obj is None:
            return []
        p = _mk(subject, "prefers", obj, NodeType.PREFERENCE, f)
        if p is None:
            return []
        if y:
            other, _ = clean_object(y)
            if other:
                p.metadata["over"] = other
        return [p]

    def _decision(self, subject: str, m: re.Match[str], f: Flags) -> list[Proto]:
        negative = False
        body = m.group("body") or m.group("body2")
        if body is not None:
            negative = bool(m.group("not") or m.group("not2"))
            act = action(body, "decided_to")
            if act is None:
                return []
            predicate, rest = act
            verb = predicate[len("decided_to_") :].split("_")[0]
            update = verb in ("switch", "move")
            if verb in CHOICE_ACTIONS:
                predicate = "chose"
                rest = re.sub(r"^(?:with|to|for|on)\s+", "", rest.strip(), flags=I)
            obj, _ = clean_object(rest)
            if obj is None:
                return []
            p = _mk(subject, predicate, obj, NodeType.DECISION, f, lexneg=negative, update=update)
            return [p] if p else []
        if m.group("on") is not None:
            negative = m.group("on").lower() == "against"
            raw = m.group("obj")
        elif m.group("obj2") is not None:
            raw = m.group("obj2")
        else:
            negative = True
            raw = m.group("obj3")
        obj, _ = clean_object(raw)
        if obj is None:
            return []
        p = _mk(subject, "chose", obj, NodeType.DECISION, f, lexneg=negative)
        return [p] if p else []

    @staticmethod
    def _one_value(rest: str, first: str) -> tuple[str, str] | None:
        """"I'm 1.80m tall" (``height``), "I'm Canadian" (``nationality``): a be-complement that names the
        speaker's one value of an attribute, so a second value contradicts it."""
        m = _HEIGHT.match(rest)
        if m is not None:
            return "height", " ".join(m.group("h").split())
        word = rest.split()[0].rstrip(".,!;?") if rest.split() else ""
        if first in NATIONALITIES and _NATIONALITY_END.match(rest, len(word)) is not None:
            return "nationality", word
        return None

    @staticmethod
    def _liked_kind(words: str) -> bool:
        """Whether "a <words> person" names a thing liked ("a dog person") rather than a trait ("a shy person", "a
        morning person") or where one is from ("a Welsh person")."""
        return all(w not in PERSON_TRAITS and w not in NATIONALITIES and w not in BE_A_STOP and w not in DET_WORDS
                   and not _TRAIT_SHAPE.search(w) for w in words.lower().split())

    def _given_up_thing(self, subject: str, rest: str, f: Flags) -> list[Proto] | None:
        """The negative update of a thing said given up in the passive (see ``_GIVEN_UP``), or None."""
        m = _GIVEN_UP.match(rest.strip())
        if m is None or f.neg or f.hedge:
            return None
        owner = self._owner()
        for holder in (owner, self._we()):
            if subject.startswith(f"{holder}'s "):
                thing = subject[len(holder) + 3 :]
                break
        else:
            bare = m.group("verb").lower() in _GIVEN_UP_BARE and _OPINION_SUBJECT.match(subject) is not None
            if not bare or subject in (owner, "user", "assistant"):
                return None
            thing, holder = subject, owner
        if not thing or thing.split()[-1].lower() in _PERSON_NOUNS:
            return None  # "my flatmate was sold on it" is someone, not a thing
        predicate = give_up_predicate(m.group("verb"))
        return [Proto(holder, predicate, thing, NodeType.FACT, negative=True, update=True, replaces=thing)]

    def _be_complement(self, subject: str, rest: str, f: Flags) -> list[Proto] | None:
        ended = self._given_up_thing(subject, rest, f)
        if ended is not None:
            return ended
        m = _OPINION.match(rest)
        if m is not None and _OPINION_SUBJECT.match(subject) and subject not in (self._owner(), "user", "assistant"):
            # "coriander is gross", "bananas r the worst", "cheese is life": the speaker's taste in a bare noun
            p = _mk(self._owner(), "likes", subject, NodeType.PREFERENCE, f, lexneg=m.group("bad") is not None)
            return [p] if p else []
        if _FOR_ME.match(rest) and subject not in (self._owner(), "user", "assistant"):
            p = _mk(self._owner(), "likes", subject, NodeType.PREFERENCE, f)
            return [p] if p else []
        m = _AGE.match(rest)
        if (m is not None and _UNIT_AFTER.match(rest, m.end()) is None and _NOT_AGE_AFTER.match(rest, m.end()) is None
                and _MEASURE_SUBJECT.search(subject) is None):
            n = m.group("n")
            obj = rest[: m.end()].strip()
            p = _mk(subject, "age", obj, NodeType.FACT, f)
            if p is None:
                return []
            p.quantity = Quantity(value=n, unit="years", source_text=n)
            return [p]
        first = rest.split()[0].lower().rstrip(".,!") if rest.split() else ""
        stuck = _STUCK_WITH.match(rest)
        if stuck is not None:
            # "at work I'm stuck with Windows 11": what someone has to use is what they use
            used, _ = clean_object(stuck.group("obj"))
            made = _mk(subject, "uses", used, NodeType.FACT, f) if used else None
            return [made] if made else []
        if subject in (self._owner(), "user"):
            measured = self._one_value(rest, first)
            if measured is not None:
                p = _mk(subject, measured[0], measured[1], NodeType.FACT, f)
                if p is not None:
                    p.metadata["attribute_form"] = True  # one value at a time
                return [p] if p else []
        if first in ADJECTIVES:
            obj = rest.split()[0].rstrip(".,!")
            p = _mk(subject, "is", obj, NodeType.FACT, f)
            return [p] if p else []
        m = _RANKED_TASTE.match(rest)
        if m is not None and _OPINION_SUBJECT.match(subject) and subject not in (self._owner(), "user", "assistant"):
            negative = (m.group("bad") is not None) != ((m.group("rank") or "").lower() == "least")
            negative = negative != (m.group("neg") is not None)
            p = _mk(self._owner(), "likes", subject, NodeType.PREFERENCE, f, lexneg=negative)
            return [p] if p else []
        m = _TASTE_PERSON.match(rest)
        if m is not None and subject in (self._owner(), "user") and m.group("x").split()[0].lower() not in BE_A_STOP:
            # "I'm a tea lover", "not a coffee snob": the speaker's taste in tea, in coffee
            p = _mk(self._owner(), "likes", m.group("x"), NodeType.PREFERENCE, f)
            return [p] if p else []
        m = _NOUN_PERSON.match(rest)
        if m is not None and subject in (self._owner(), "user") and self._liked_kind(m.group("x")):
            # "I'm not a cat person", "honestly I'm a beach person": the speaker's taste in cats, in the beach
            p = _mk(self._owner(), "likes", m.group("x"), NodeType.PREFERENCE, f)
            return [p] if p else []
        if _FAN_OF.match(rest):
            return None  # handled by the verb table
        m = _BE_A.match(rest)
        if m is not None:
            noun, _ = clean_object(m.group("obj"))
            if noun is None or noun.split()[0].lower() in BE_A_STOP or len(noun.split()) > 4:
                return []
            p = _mk(subject, "is_a", noun, NodeType.FACT, f)
            at = _ROLE_AT.match(m.group("obj"))
            if p is not None and at is not None and at.group("role").split()[-1].lower() in _ROLE_HEADS:
                # "a product designer at Meta": the role and the employer
                org, _ = clean_object(at.group("org"))
                studies = at.group("role").split()[-1].lower() in _STUDENT_HEADS
                employer = _mk(subject, "studies_at" if studies else "works_at", org, NodeType.FACT, f) if org else None
                return [p, employer] if employer else [p]
            return [p] if p else []
        return None


# --- the user's own clauses -----------------------------------------------------------------------

_REMIND_ME: Final = re.compile(
    r"^(?:please\s+)?(?:remind me to|don't let me forget to)\s+|^(?:todo|to-do|to do|reminder to self)\s*:\s*", I
)
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


#: Reported speech (PRME-FACTS §1.1: unverified testimony): who said it, then what they said. "Apparently",
#: "I heard", "word is" name no source; "my manager said", "according to Lindiwe", "the vet told me" do.
_REPORTER_VERB: Final = (
    r"(?:says|said|say|reckons|reckoned|thinks|thought|claims|claimed|swears|insists|insisted|mentioned|"
    r"mentions|reports|reported|tells\s+me|told\s+(?:me|us|him|her|them)|let\s+(?:me|us)\s+know|"
    r"informed\s+(?:me|us)|warned\s+(?:me|us)|confirmed|announced|wrote|texted(?:\s+(?:me|us))?|"
    r"emailed(?:\s+(?:me|us))?)(?:\s+that)?,?\s+"
)
_REPORTED: Final = re.compile(
    r"^(?:(?P<none>apparently|supposedly|allegedly|reportedly|rumou?r\s+(?:has\s+it|is)|word\s+(?:is|has\s+it)|"
    r"(?:I|we)(?:'ve|\s+have)?\s+(?:heard|read(?=\s+(?:that|somewhere|online)\b))|heard|the\s+word\s+is|i\s+hear|"
    r"I'm\s+told|we're\s+told)"
    r"(?:\s+that)?,?\s+"
    r"|according\s+to\s+(?P<acc>(?:my|our|the)\s+[\w-]+(?:\s+[\w-]+)?|(?-i:[A-Z][\w.-]+)(?:\s+(?-i:[A-Z][\w.-]+))?)"
    r",\s+"
    r"|(?P<src>(?:(?:my|our|the)\s+(?-i:[a-zA-Z][\w-]+)(?:\s+(?-i:[a-zA-Z][\w-]+))?)|"
    r"(?-i:[A-Z][\w.-]+)(?:\s+(?-i:[A-Z][\w.-]+))?)\s+" + _REPORTER_VERB + r")(?P<rest>\S.*)$",
    I,
)
_REPORTER_NOT: Final = frozenset({"i", "we", "you", "he", "she", "they", "it", "this", "that", "there"})


#: Quantifier negations: "Nobody in the choir reads music", "None of my flatmates drink alcohol": a negative
#: claim whose subject is the group.
_NOBODY: Final = re.compile(
    r"^(?:nobody|no\s*-?\s*one|none|not\s+one|not\s+a\s+single\s+(?:one|person|soul)|neither)\s+"
    r"(?P<rel>in|on|at|of|from)\s+(?P<group>.+)$",
    I,
)
_GROUP_DET: Final = re.compile(r"^(?P<det>my|our|the|your)\s+", I)


#: "Need to book the vet", "gotta ring the council", "Must email Dr Okafor": the speaker's own to-do, said
#: without a subject.
_BARE_TODO: Final = re.compile(
    r"^(?:need\s+to|needs\s+to|have\s+to|has\s+to|got\s+to|gotta|must|should)\s+(?=[a-z])|"
    r"^(?:todo|to-do|to do|note to self|to self|reminder|reminder to self)(?:\s+(?:this|next)\s+\w+|\s+list)?\s*"
    r"(?::|-+|\u2013|\u2014)\s*|^(?:please\s+)?remind\s+me\s+(?:\w+\s+){0,3}?to\s+",
    I,
)
#: "dont own a car", "Can't eat gluten": a negated habit with the "I" dropped ("Don't use jargon" instructs).
_DONT_HABIT: Final = frozenset({
    "eat", "drink", "own", "smoke", "drive", "cook", "watch", "play", "live", "work", "have", "like", "speak",
    "ride", "swim", "run", "wear", "stand", "bear", "stomach",
})
_DONT: Final = frozenset({"don't", "can't", "cannot", "haven't"})
_NOT_AN_ERRAND_NEXT: Final = re.compile(r"^\S+\s+(?:me|us|you|it|this|that|these|those|a\s+look)\b", I)


#: "stuck with Windows", "forced to use Teams": what someone has to use.
_STUCK_WITH: Final = re.compile(
    r"^(?:stuck\s+(?:with|on|using)|forced\s+to\s+use|made\s+to\s+use)\s+(?P<obj>\S.*)$", re.I
)
#: "had <something> <when>": an event of the past, dated ("had surgery last year", "had a baby in 2022").
_HAD_WHEN: Final = re.compile(
    r"^(?P<thing>(?:(?:a|an|the|some|my|his|her|their|our)\s+)?[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+"
    r"(?=(?:last\s+(?:year|month|week|night|summer|winter|spring|fall|autumn|time)|in\s+(?:19|20)\d\d|yesterday|"
    r"(?:\d+|a|an|two|three|few)\s+(?:days?|weeks?|months?|years?)\s+ago|this\s+(?:morning|week|month|year)|"
    r"on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b)",
    re.I,
)
#: Verbs whose past form is their base form: with a past time ("reset my pin today") a dropped-"I" report.
_SAME_PAST: Final = frozenset({"reset", "set", "put", "cut", "hit", "quit", "shut", "upset", "cast", "read", "spread"})
_PAST_TIME: Final = re.compile(
    r"\b(?:yesterday|today|this (?:morning|afternoon|week)|last (?:night|week|month|year|time)|earlier|"
    r"ago|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b",
    re.I,
)


#: "at google now", "on linux these days": a place, employer or tool the speaker is at now,
#: named without a determiner; "at the gym now", "in bed now" and "on holiday now" say where someone is today.
_NOW_AT: Final = re.compile(
    r"^(?:at|on|in)\s+(?!(?:the|a|an|my|our|home|work|school|uni|church|hospital|bed|lunch|dinner|breakfast|"
    r"holiday|vacation|leave|break|call|time|it|shift|site|board|duty|town|trouble|love|charge|here|there|"
    r"mine|least|last|first|fact|general|case|total|person)\b)[\w&+.'-]+(?:\s+[\w&+.'-]+)?\s+"
    r"(?:now|these\s+days|nowadays)\b",
    I,
)
#: A short bare noun phrase, then a copula ("roasted brussels sprouts are ...", "smoked salmon is ...").
_JUDGED_NP: Final = re.compile(r"^(?P<np>[a-z][\w'-]*(?:\s+[\w&+.'-]+){1,3}?)\s+(?:is|are)\s+(?P<rest>\S.*)$", I)


def _judged_np(t: str) -> bool:
    """Whether a clause is a bare noun phrase judged by an opinion after its copula (see ``_JUDGED_NP``): then a
    participle or verb opening it is an adjective of the subject, not a verb with the speaker dropped."""
    m = _JUDGED_NP.match(t)
    if m is None or _OPINION.match(m.group("rest")) is None or _OPINION_SUBJECT.match(m.group("np")) is None:
        return False
    return not any(w in SUBJ_STOP or w in DET_WORDS for w in m.group("np").lower().split())


class UserParser(StatementParser):
    """A user's, a human's or a participant's clauses: statements, plus what only the speaker's own
    messages hold: subjectless negations ("Not a fan of horror films", "No more coffee for me"),
    instructions to the assistant, and reminders ("remind me to call the bank")."""

    speaks_taste: ClassVar[bool] = True

    def _implicit_subject(self, t: str) -> str:
        """A dropped "I": "Went kayaking ...", "Heading to Kyoto", "Allergic to shellfish", "dont own a car".

        Only the shapes a chat message takes when its subject is the speaker: a past form, an -ing form, a
        habit or state verb, a state adjective, or a negated habit verb; an errand verb is a to-do
        (:meth:`_lead`), and an instruction, a report of what someone said or a quantifier negation keeps
        its own reading.
        """
        if _JUDGED_NP.match(t) is not None and _judged_np(t):
            return t  # "roasted brussels sprouts are elite": the participle opens the subject an opinion judges
        written = self._dropped(t)
        if written is t:
            w0 = t.split(None, 1)[0].lower() if t.split() else ""
            if w0 in _SAME_PAST and _PAST_TIME.search(t):
                return "I " + t  # "reset my bank pin at the branch today": a past form, not an instruction
            return t
        if t[:1] in "dDcChH" and written.startswith("I ") and t.split(None, 1)[0].lower() in _DONT:
            return written  # "dont own a car": a negated habit, which no instruction has
        if user_instruction(t) is not None or _REPORTED.match(t) is not None or _NOBODY.match(t) is not None:
            return t
        return written

    def _dropped(self, t: str) -> str:
        lead = _SUBJECTLESS_LEAD.match(t)
        after = t[lead.end() :].lower() if lead is not None else ""
        if lead is not None and after.strip() and (not after.startswith("back") or after.startswith("back from")):
            # "just got a new bike", "finally adopted a dog": the adverb stands where the "I" was dropped
            rest = t[lead.end() :]
            written = self._dropped(rest)
            if written is not rest and written.startswith(("I ", "I'm ", "I've ")):
                head, tail = written.split(" ", 1)
                return f"{head} {t[: lead.end()]}{tail}"
            return t
        words = t.split(None, 2)
        w0 = words[0].lower().rstrip(",")
        w1 = words[1].lower() if len(words) > 1 else ""
        if w0 in ("don't", "can't", "cannot", "haven't") and w1 in _DONT_HABIT:
            return "I " + t
        if w0 == "been" and w1:
            return "I've " + t
        if (w0 in DROPPED_IM_WORDS and w1 and w0 != "back") or (w0 == "back" and w1 in ("from", "in", "home")):
            return "I'm " + t
        if w0 == "not" and w1 in ("a", "an", "into", "vegan", "vegetarian", "allergic", "married", "on"):
            return "I'm " + t
        if _NOW_AT.match(t) is not None:
            return "I'm " + t  # "at netflix now", "on linux now": where the speaker is now, the "I'm" dropped
        vf = VERB_FORM.get(w0)
        if not w1 or w0 in NOT_A_VERB:
            return t
        if w0.endswith("ing") and (w1 in ("is", "was", "isn't", "wasn't") or _GERUND_SUBJECT.match(t)):
            return t  # "Running is the worst", "signing cert for the portal is at ...": the gerund opens the subject

        if (vf is not None and vf[1] == "past") or (vf is None and w0.endswith("ed") and len(w0) > 4
                                                    and guess_verb(w0, "any") is not None):
            return "I " + t
        if w0.endswith("ing") and w0 not in NOT_GUESSED_ING and (
                (vf is not None and vf[1] == "ing") or (vf is None and len(w0) > 5 and w1 in PREPS)):
            return "I'm " + t
        if w0 in DROPPED_I_VERBS and (w0 != "use" or w1 in ("a", "an", "my", "our", "two", "both")) and (
                w1 not in ("that", "this", "it", "your", "these", "those", "the", "you", "them")):
            return "I " + t
        return t

    def _nobody(self, t: str, hedge: bool) -> list[Proto] | None:
        """"Nobody in my building has fibre": what the group does, negated, with the group as subject."""
        m = _NOBODY.match(t)
        if m is None:
            return None
        words = m.group("group").split()
        for i in range(1, min(len(words), 8)):
            w = words[i].lower()
            if words[i - 1].lower() in ("my", "our", "the", "a", "an", "your", "this", "that"):
                continue  # "my book club": the word after a determiner is the group's noun
            vf = VERB_FORM.get(w)
            if not (w in ("has", "have", "had", "is", "are", "was", "were", "does", "do", "did", "can", "will",
                          "knows", "wants", "likes") or (vf is not None and vf[1] in ("s", "base", "past"))
                    or (vf is None and i >= 1 and guess_verb(w, "s") is not None and w.endswith("s")
                        and words[i - 1].lower() not in ("the", "my", "our", "a"))):
                continue
            group = " ".join(words[:i])
            rest = " ".join(words[i:])
            dm = _GROUP_DET.match(group)
            if group.lower() in ("us", "them", "you"):
                subject = self._owner() if group.lower() == "us" else None
            elif dm is not None and dm.group("det").lower() in ("my", "our"):
                subject = f"{self._owner()}'s {group[dm.end():]}"
            elif dm is not None:
                subject = group[dm.end() :]
            else:
                subject = group
            if subject is None:
                return []
            rest, flags = consume_aux(rest)
            flags.neg = not flags.neg
            flags.hedge = flags.hedge or hedge
            protos = self._predicate(subject, rest, flags)
            for p in protos:
                p.metadata["quantifier"] = "none"
            return protos
        return []

    def _reported(self, t: str, hedge: bool) -> list[Proto] | None:
        """What someone else said, as UNVERIFIED claims naming the reported source (``metadata``)."""
        m = _REPORTED.match(t)
        if m is None:
            return None
        raw = m.group("acc") or m.group("src")
        source: str | None = None
        if raw is not None:
            words = raw.split()
            if words[0].lower() in _REPORTER_NOT or (len(words) > 1 and words[1].lower() in ("said", "says")):
                return None
            det = words[0].lower()
            if det in ("my", "our"):
                source = f"{self._owner()}'s {' '.join(words[1:])}"
            elif det == "the":
                source = " ".join(words[1:])
            else:
                named = self._named(raw)
                if named is None or named == self._owner():
                    return None
                source = named
        protos, _ = self.parse(m.group("rest"), None)
        if not _FIRST_PERSON_START.match(m.group("rest")):
            # "Tom thinks pizza is great": the taste a bare opinion names is the reporter's, not the speaker's
            for p in [p for p in protos if p.subject == self._owner() and p.predicate == "likes"]:
                if source is None:
                    protos.remove(p)
                else:
                    p.subject = source
        for p in protos:
            p.epistemic = EpistemicType.UNVERIFIED
            p.hedge = p.hedge or hedge
            p.update = False
            p.replaces = None
            if p.node_type is NodeType.TASK:
                p.node_type = NodeType.FACT  # someone else's report of a plan is a fact about it, not the user's to-do
            p.speech_act = False
            if source is not None:
                p.metadata["reported_source"] = source
        return protos

    def _lead(
        self, t: str, inherited: str | None, hedge: bool, flip: bool, update_cue: bool
    ) -> tuple[list[Proto], str | None] | None:
        if inherited is None and t[:1] in "nN":
            nobody = self._nobody(t, hedge)
            if nobody is not None:
                return nobody, inherited
        if inherited is None and t[:1].isalpha():
            said = self._reported(t, hedge)
            if said is not None:
                return said, inherited
        if not (hedge or flip):
            om = _OUTING_CLAUSE.match(t)
            if om is not None and (om.group("s") is not None or inherited is None):
                # a dropped subject ("Tried the new pho place ...", "Just got back from ...") is the speaker
                subject = self._we() if (om.group("s") or "").lower() == "we" else self._owner()
                outing = self._outing(subject, om.group("verb").lower(), om.group("after"), Flags())
                if outing is not None:
                    return outing, subject
        if inherited is None:
            todo = self._todo(t)
            if todo is not None:
                return todo, inherited
        if t[0] in "nN":
            found = self._elliptic(t, hedge, flip, update_cue)
            if found is not None:
                return found
        instr = user_instruction(t)
        if instr is not None:
            instr.hedge = instr.hedge or hedge
            return [instr], inherited
        rm = _REMIND_ME.match(t)
        if rm is not None:
            act = action(t[rm.end() :], "needs_to")
            return cue_claim(self._owner(), act, Flags(), NodeType.TASK, speech_act=False), inherited
        held = things_on(t, self._we()) if inherited is None else None
        if held is not None:
            for p in held:
                p.hedge, p.negative = hedge, flip
            return held, inherited
        taste = self._taste_verb(t, hedge, flip) if inherited is None else None
        if taste is not None:
            return taste, inherited
        ranked = value_first(t, self._owner(), self._we())
        if ranked is not None:
            for p in ranked:
                p.hedge = p.hedge or hedge
                p.negative ^= flip
            return ranked, inherited
        if self.words.subjectless.match(t):
            # chat style drops the subject of what the speaker did: "sold the Vespa last week"
            f = Flags(update=True, hedge=hedge, neg=flip)
            protos = self._predicate(self._owner(), t, f)
            lead = _SUBJECTLESS_LEAD.match(t)
            if not protos and lead is not None:
                # "just moved from Toronto to Vancouver": the adverb is the verb table's to skip
                protos = self._predicate(self._owner(), t[lead.end() :], replace(f, past=True))
            return protos, self._owner()
        return self._attribute_clause(t, inherited, hedge, flip)

    def _taste_verb(self, t: str, hedge: bool, flip: bool) -> list[Proto] | None:
        """A taste said by a verb of a bare noun ("camping sucks", "board games bore me", "this song slaps"),
        or by chat's stock praise ("nothing beats a cold beer", "dark mode ftw")."""
        praise = _NOTHING_BEATS.match(t) or _FTW.match(t)
        if praise is not None:
            obj, _ = clean_object(praise.group("x"))
            if obj is None or obj.split()[0].lower() in SUBJ_STOP:
                return None
            p = _mk(self._owner(), "likes", obj, NodeType.PREFERENCE, Flags(hedge=hedge), lexneg=flip)
            return [p] if p else []
        m = _TASTE_VERB.match(t)
        if m is None:
            return None
        np = m.group("np")
        tokens = np.lower().split()
        if (_OPINION_SUBJECT.match(np) is None or tokens[0] in DET_WORDS or tokens[-1] in DET_WORDS
                or any(tok in SUBJ_STOP for tok in tokens)):
            return None
        p = _mk(self._owner(), "likes", np, NodeType.PREFERENCE, Flags(hedge=hedge),
                lexneg=(m.group("bad") is not None) != flip)
        return [p] if p else []

    def _todo(self, t: str) -> list[Proto] | None:
        """A to-do said without a subject: "Need to book the vet", "todo: renew the domain", "Buy descaler"."""
        m = _BARE_TODO.match(t)
        body = t[m.end() :] if m is not None else None
        if body is None:
            w0 = t.split(" ", 1)[0].lower()
            if w0 not in ERRAND_VERBS or _NOT_AN_ERRAND_NEXT.match(t) or " " not in t:
                return None
            body = t
        out: list[Proto] = []
        # "to do this week — fix the gutter, book flights to Nairobi": one task per item
        for item in re.split(r",\s+(?:and\s+)?|\s+and\s+(?=(?:" + "|".join(sorted(ERRAND_VERBS)) + r")\b)", body):
            act = action(item, "needs_to")
            out.extend(cue_claim(self._owner(), act, Flags(), NodeType.TASK, speech_act=False))
        return out

    def _elliptic(self, t: str, hedge: bool, flip: bool, update_cue: bool) -> tuple[list[Proto], str | None] | None:
        em = _ELLIPTIC_NOT.match(t)
        if em is not None:
            f = Flags(neg=not flip, be=True, aux=True, hedge=hedge,
                      update=update_cue or ANYMORE.search(t) is not None)
            return self._predicate(self._owner(), em.group("rest"), f), self._owner()
        bm = _ELLIPTIC_BEEN.match(t)
        if bm is not None:
            f = Flags(neg=not flip, be=True, perfect=True, aux=True, hedge=hedge)
            return self._predicate(self._owner(), t[bm.end() :], f), self._owner()
        nm = _NO_MORE.match(t)
        if nm is not None:
            obj, _ = clean_object(nm.group("x"))
            made = _mk(self._owner(), "uses", obj, NodeType.FACT, Flags(hedge=hedge), lexneg=True,
                       update=True, replaces=obj) if obj else None
            return ([made] if made else []), self._owner()
        return None

    def segment(self, seg: str, conditional: bool) -> list[Proto]:
        if conditional and IMPERATIVE.match(seg):
            # "If I ask for code, use Python": the main clause is an instruction under the condition
            body = seg.strip().rstrip(".!")
            return [Proto("assistant", "should", body, NodeType.INSTRUCTION)]
        if not conditional:
            foreign = foreign_statement(seg, self._owner())
            if foreign:
                return foreign
        return super().segment(seg, conditional)
