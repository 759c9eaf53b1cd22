"""The rule extractor's vocabulary, as data: word lists, verb forms and the verb table.

Everything here is a set, a mapping or a table of words; the patterns that use them live with the
rules that use them. The speech-act cue verbs are not here: the validator needs them too, so they are
``extractors.text.SPEECH_ACT_FORMS``, the one list the clause pattern, the validator and this
package's clause parser all read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from schemas.enums import NodeType

I: Final = re.IGNORECASE  # noqa: E741 - reads like a regex flag


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- subjects -------------------------------------------------------------------------------------


SUBJ_STOP: Final = _words(
    """it this that there here he she they you what which who whom today tomorrow yesterday everyone everything
    nothing something anything
    reminder note context session tool memory user conversation request step
    everybody nobody someone somebody thanks thank hi hello hey sure yes no ok okay please also but and
    so well maybe perhaps the a an my our your his her their its if when because since just let can
    could would should do does did is are was were has have had not never always now then some most
    all every many any how why where great good nice cool awesome sorry wow oh anyway honestly actually
    basically monday tuesday wednesday thursday friday saturday sunday january february march
    july september october november december both each neither either none such other another one
    two three i'm i've i'll i'd sounds looks seems tastes smells feels got"""
)
RELATION: Final = (
    r"(?:wife|husband|partner|girlfriend|boyfriend|brother|sister|mom|mum|mother|dad|father|son|daughter|"
    r"kids?|children|boss|manager|friend|best friend|roommate|colleague|team|company|family|cat|dog)"
)
AMBIGUOUS_NAMES: Final = _words("will may hope june april august grace rose faith joy mark bill sue")
NAME_NOT_MODAL: Final = frozenset({"Will", "May"})
DET_WORDS: Final = _words("my our your his her their its the a an to of for in on at with from by")
NP_STOP: Final = frozenset(
    {"is", "are", "was", "were", "'s", "has", "have", "had", "will", "'ll", "would", "'d", "may", "might", "can",
     "could", "should", "must", "shall", "do", "does", "did", "don't", "doesn't", "didn't", "won't", "can't",
     "isn't", "aren't", "wasn't", "weren't", "never", "now", "also", "still", "always", "only", "no", "not",
     "just", "already", "usually", "often", "finally", "recently", "currently", "really", "cannot"}
)
BARE_NP_AUX: Final = _words("is are will must can may should")
COPULA_NEXT: Final = _words("is are was were has have had isn't aren't wasn't weren't hasn't haven't")
#: Modals that follow a noun sharing a verb's spelling ("Incident reports must be filed ...").
MODAL_NEXT: Final = _words("must should shall cannot")


# --- auxiliaries ----------------------------------------------------------------------------------

NEG_AUX: Final = frozenset({"'m not"}) | _words(
    """n't not never don't dont doesn't doesnt didn't didnt won't wont can't cant cannot isn't aren't
    wasn't weren't wouldn't shouldn't couldn't haven't hasn't ain't"""
) | {"no longer"}
HEDGE_AUX: Final = frozenset(
    {"might", "may", "could", "would", "'d", "probably", "maybe", "perhaps", "possibly", "likely", "most likely"}
)
BE_AUX: Final = frozenset(
    {"be", "'m", "'m not", "'re", "'s", "am", "is", "are", "was", "were", "been", "being", "isn't", "aren't", "ain't"}
    | {"wasn't", "weren't"}
)
MODAL_AUX: Final = frozenset({"might", "may", "could"})
PAST_AUX: Final = frozenset({"was", "were", "did", "didn't", "didnt", "had", "wasn't", "weren't"})
FUTURE_AUX: Final = frozenset({"will", "'ll", "shall", "won't", "wont"})
PERFECT_AUX: Final = frozenset({"have", "has", "'ve", "haven't", "hasn't"})
UPDATE_AUX: Final = frozenset({"now", "no longer", "recently", "finally", "officially"})


# --- objects --------------------------------------------------------------------------------------

DEMONSTRATIVES: Final = frozenset({"this", "that", "these", "those"})
BAD_OBJECT: Final = _words(
    """you me it them him her us this that these those something anything everything nothing one some thing
    things stuff lot bit there here what which who whom whether if how why where when way time mine
    yours ours so none all"""
)
KEEP_PP_HEAD: Final = _words(
    "job jobs offer offers position role internship interview contract apartment flat room table seat place")
#: Bare adverbs after a verb ("running late", "playing outside"): not an object without a preposition.
ADVERB_OBJECT: Final = _words(
    "now late early outside inside better worse soon later away together again today tonight tomorrow fast hard "
    "well alone here there so too fine yet either lately anymore"
)
THIRD_PERSON: Final = frozenset({"it", "them", "him", "her"})
DET_NEXT: Final = _words("the a an my our your his her their its this that these those some every each two three")


# --- the verb table: verb phrases -> predicates ---------------------------------------------------


@dataclass(frozen=True)
class Verb:
    """A verb table row: a pattern on the text after the auxiliaries, its predicate, and its options."""

    pattern: re.Pattern[str]
    predicate: str
    node_type: NodeType = NodeType.FACT
    lexneg: bool = False
    update: bool = False
    listy: bool = False
    needs_be: bool = False
    past_ok: bool = False
    needs_perfect: bool = False


def _v(pattern: str, predicate: str, node_type: NodeType = NodeType.FACT, **kw: Any) -> Verb:
    return Verb(re.compile(r"^(?:" + pattern + r")(?:\s+|$)", I), predicate, node_type, **kw)


#: Languages, for the verbs that take one ("know any German").
LANGUAGES: Final = _words(
    """english german french spanish italian portuguese dutch swedish norwegian danish finnish icelandic polish czech
    slovak hungarian romanian bulgarian greek turkish russian ukrainian serbian croatian arabic hebrew persian farsi
    hindi urdu bengali punjabi tamil telugu gujarati marathi japanese chinese mandarin cantonese korean vietnamese
    thai indonesian malay tagalog swahili amharic yoruba zulu afrikaans welsh gaelic irish catalan basque latin
    esperanto"""
)
PAST_FORMS: Final = _words(
    """lived resided worked loved liked enjoyed hated disliked used owned had spoke preferred studied drank
    ate played drove ran stayed adored"""
)
#: Tried in order from the first row ``VERB_RX`` finds; a row whose options do not fit is skipped.
VERBS: Final = (
    _v(r"(?:live|lives|living|lived|reside|resides|residing|resided|stay|stays|staying)\s+in", "lives_in"),
    _v(r"(?:based|located)\s+in", "lives_in", needs_be=True),
    _v(r"(?:moved|relocated)\s+(?:back\s+)?(?:from\s+(?P<old>.+?)\s+)?to", "lives_in", update=True, past_ok=True),
    _v(r"(?:move|relocate)\s+(?:back\s+)?(?:from\s+(?P<old>.+?)\s+)?to", "lives_in", update=True),
    # "work remotely for a bank", "work part time at a bakery": how one works stands between the verb and where
    _v(r"(?:work|works|working|worked)\s+(?:(?:remote(?:ly)?|part[- ]time|full[- ]time|from\s+home|freelance|"
       r"nights|weekends|shifts|hybrid|mostly|flexibly)\s+)?(?:at|for)", "works_at"),
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
    _v(r"(?:a\s+)?(?:big\s+|huge\s+|massive\s+)?fan\s+of", "likes", NodeType.PREFERENCE, needs_be=True),
    _v(r"into", "likes", NodeType.PREFERENCE, needs_be=True, listy=True),
    _v(r"(?:obsessed|hooked|smitten|in\s+love)\s+(?:with|on|w/?)(?=\s)", "likes", NodeType.PREFERENCE, needs_be=True,
       listy=True),
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
    # "I don't know any German", "I know a bit of Spanish": knowing a language is speaking it
    _v(r"(?:know|knows)(?:\s+(?:any|some|much|a\s+(?:word|lick|bit|little)(?:\s+of)?|basic))?"
       r"(?=\s+(?:" + "|".join(sorted(LANGUAGES)) + r")\b(?!\s+(?:people|friends|guys|girls|food|history)\b))",
       "speaks"),
    _v(r"(?:(?:pretty|very|totally|fully|completely|almost|nearly|basically)\s+)?fluent\s+in", "speaks", needs_be=True,
       listy=True),
    _v(r"on", "uses", needs_be=True),
    _v(r"(?:run|runs|running)\s+on", "uses"),
    # A progressive future ("I'm moving to Oakland") is a FACT about the plan, not a to-do (labels, node type).
    _v(r"(?:moving|relocating)\s+(?:back\s+)?(?:from\s+(?P<old>.+?)\s+)?to", "moving_to"),
    _v(r"(?:drop|ditch|dropped|ditched)", "uses", lexneg=True, update=True, past_ok=True),
    _v(r"(?:called|named)", "name", needs_be=True),
    _v(r"allergic\s+to", "allergic_to", needs_be=True, listy=True),
    # "heading to Kyoto for a conference": a trip, not an errand ("heading to bed", "heading to the gym")
    _v(r"(?:heading|headed)\s+(?:off\s+|over\s+|out\s+|back\s+)?to(?=\s)(?!\s+(?:bed|sleep|work|class|school|lunch|"
       r"dinner|breakfast|church|a\s+meeting|(?:the|my)\s+(?:office|gym|shops?|store|pub|bar|loo|toilet|bathroom|"
       r"kitchen|meeting|doctors?|dentists?|station|airport|car|room|bed))\b)", "go_to"),
    # "I'm back from Chiloé", "just got home from Oslo": a return from a place (not where the speaker is from)
    _v(r"(?:(?:just\s+)?(?:back|home)\s+from)", "back_from", needs_be=True),
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
    _v(r"(?:own|owns|have|has)", "has", listy=True),
    # chat "i got no tattoos": not having them (not "got no reply")
    _v(r"got(?=\s+(?:no|zero)\s+(?!(?:reply|replies|response|answer|idea|clue|time|sleep|choice|chance|luck|"
       r"signal|service|news|word|sense|patience|energy|help)\b))", "has", past_ok=True),
    _v(r"got", "has", needs_perfect=True),
)
#: All verb patterns in one alternation: finds the first candidate entry in one regex call.
VERB_RX: Final = re.compile(
    "|".join(f"(?P<v{i}>{re.sub(r'[(][?]P<[a-z]+>', '(?:', v.pattern.pattern)})" for i, v in enumerate(VERBS)), I
)
GERUND: Final = {
    "using": "uses", "eating": "eats", "drinking": "drinks", "smoking": "smokes", "playing": "plays",
    "driving": "drives", "running": "runs", "working": "works", "watching": "watches", "drink": "drinks",
    "taking": "take", "volunteering": "volunteer", "seeing": "see", "going": "go", "attending": "attend",
    "listening": "listen", "visiting": "visit", "freelancing": "freelance", "vaping": "vapes", "gaming": "plays",
    "subscribing": "subscribe", "paying": "pay", "wearing": "wear", "cooking": "cook", "buying": "buy",
}


# --- statement words ------------------------------------------------------------------------------

STATIVE_FUTURE: Final = _words("need be have know like want assume mind matter")
CHOICE_ACTIONS: Final = frozenset({"use", "go", "adopt", "pick", "choose", "stick", "switch", "move", "keep"})
BE_A_STOP: Final = _words(
    """bit little lot few couple pleasure question while sec second minute moment joke pain mess big huge
    good great nice fan total complete sure certain right correct wrong welcome kidding afraid glad happy sorry
    fine ok okay alright"""
)
#: Words before "person" that say what kind of person someone is, not what they like ("a private person", "a
#: morning person": a chronotype, kept a trait), so "a <word> person" stays ``is_a`` for them.
PERSON_TRAITS: Final = _words(
    """nice good bad kind shy private quiet calm chill simple normal young old real lay tall short big small smart
    clever dumb stupid weird strange rude polite honest open closed warm cold soft hard tough strong weak wise proud
    humble lonely sane fun cool bright dark deep mature modest gentle neat proper regular random certain particular
    single same different whole better worse best worst new one only other another very much more less most least
    happy lazy busy sporty outdoorsy nerdy geeky grumpy messy tidy crafty bubbly chatty moody sleepy angry lucky
    funny silly crazy needy nosy noisy techy artsy healthy wealthy pretty ugly worthy mean fair free late early
    morning night evening day daytime nighttime afternoon romantic dramatic energetic optimistic pessimistic
    realistic artistic athletic introverted extroverted extrovert introvert ambivert type kinda sort such
    patient decent grown wrong right terrible horrible awful lovely great"""
)
ADJECTIVES: Final = _words(
    """vegetarian vegan pescatarian left-handed right-handed married single divorced engaged retired
    diabetic colorblind colourblind pregnant unemployed self-employed freelance celiac
    lactose-intolerant"""
)
#: Nationalities (demonyms): "I'm Canadian" names the speaker's one nationality (``nationality``).
NATIONALITIES: Final = _words(
    """afghan albanian algerian american andorran angolan argentine argentinian armenian australian austrian
    azerbaijani bahraini bangladeshi belarusian belgian bolivian bosnian brazilian british bulgarian cambodian
    cameroonian canadian chilean chinese colombian congolese croatian cuban cypriot czech danish dominican dutch
    ecuadorian egyptian emirati english eritrean estonian ethiopian fijian filipino finnish french georgian german
    ghanaian greek guatemalan haitian honduran hungarian icelandic indian indonesian iranian iraqi irish israeli
    italian ivorian jamaican japanese jordanian kazakh kenyan korean kosovan kuwaiti kyrgyz lao latvian lebanese
    libyan lithuanian luxembourgish macedonian malagasy malawian malaysian maltese mexican moldovan mongolian
    montenegrin moroccan mozambican namibian nepalese nepali nicaraguan nigerian norwegian omani pakistani
    palestinian panamanian paraguayan peruvian polish portuguese qatari romanian russian rwandan salvadoran saudi
    scottish senegalese serbian singaporean slovak slovenian somali spanish sudanese swedish swiss syrian taiwanese
    tajik tanzanian thai tunisian turkish ugandan ukrainian uruguayan uzbek venezuelan vietnamese welsh yemeni
    zambian zimbabwean kiwi aussie brit"""
)
ATTR_STOP: Final = _words(
    """question problem point guess bad pleasure issue concern understanding idea plan goal hope worry fear
    thought opinion take feeling suggestion request answer code output error message bet"""
)
EVALUATIVE: Final = _words("such so quite very too really rather pretty the-best lovely beautiful")
GENERIC_BE_ADJ: Final = _words(
    """free open closed available busy away fluent remote vegan vegetarian allergic responsible new late early
    ready done sick pregnant broke home abroad"""
)
AS_ROLE_VERBS: Final = _words("work spend spent serve volunteer do pull train retire qualify moonlight start")
#: Giving something up: a negative claim on the object that retires it (labels: "sold X", "cancelled X").
GIVE_UP_VERBS: Final = frozenset({"sell", "cancel", "quit", "drop", "unsubscribe"})


# --- generic clause lexicon -----------------------------------------------------------------------
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
    belong smoke vape listen bind expose resolve forward rotate mount revert merge sit pull push encrypt
    redirect do save cost come""")
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
    "quit": "quit", "seeing": "see",
    "had": "have", "got": "get", "spent": "spend", "sat": "sit",
    "travelling": "travel", "did": "do", "came": "come",
    "drank": "drink", "drunk": "drink", "drove": "drive", "driven": "drive", "spoke": "speak", "spoken": "speak",
}
NOT_A_VERB: Final = _words(
    """the and but not also just really even still only all any some more less very too well then there
    this that these those help"""
)
PREPS: Final = _words("to into in at on for with from about by off of through via after before during")
PARTICLES: Final = _words("up out off back over down away")
#: Words after "do" that leave it an auxiliary ("I do love it", "do you know"), not the main verb ("I do yoga").
NOT_DONE: Final = _words(
    """not never you it that this so too both all also still really actually just always usually sometimes often
    now kind sort pretty and or but with to for in on at of what which whatever anything nothing something
    everything me him her them us we they i he she there here well""")
#: Qualifications whose "in X" names the field ("a PhD in glaciology"), not a place or a date.
QUALIFICATIONS: Final = _words(
    """phd phds doctorate degree degrees masters master's bachelors bachelor's diploma certificate certification
    major minor msc bsc mba apprenticeship qualification""")
#: Verbs that only state a fact with one of their particles: "I look after my dad", "we're looking for a flat",
#: "I get up at 4:30" (never "I look tired", "got home late"). form -> (lemma, the particles that make it a verb).
PHRASAL_VERBS: Final = {
    **{f: ("look", ("after", "for")) for f in ("look", "looks", "looked", "looking")},
    **{f: ("get", ("up",)) for f in ("get", "gets", "got", "getting")},
    **{f: ("wake", ("up",)) for f in ("wake", "wakes", "woke", "waking")},
}
#: Lower-case words that follow a subject without being its verb (adverbs, pronouns, fillers, mental verbs
#: whose "object" is a thought, not a thing): the morphological verb guess never takes them.
NOT_GUESSED: Final = NOT_A_VERB | _words(
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
NOT_GUESSED_ING: Final = frozenset(
    {w + "ing" for w in NOT_GUESSED if w.isalpha()} | {w[:-1] + "ing" for w in NOT_GUESSED if w.endswith("e")}
    | _words("kidding joking saying asking thinking hoping wondering guessing assuming feeling heading struggling")
)
S_DROP_ES: Final = ("sses", "shes", "ches", "xes", "zzes", "oes")


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


VERB_FORM: Final = _verb_forms()
#: Irregular participles outside the verb whitelist, for "Prices are shown in NZD" (only before a preposition).
EN_PARTICIPLES: Final = _words(
    "shown known given taken written chosen driven broken frozen hidden spoken stolen proven drawn withdrawn")
#: Generic predicates folded onto the verb table's names, so both paths give one triple.
GENERIC_PREDICATES: Final = {
    "live_in": "lives_in", "live": "lives_in", "work_at": "works_at", "work_for": "works_at", "use": "uses",
    "work_as": "works_as", "leave": "works_at", "have": "has", "study": "studies", "own": "has", "speak": "speaks",
}


# --- tool output keys -----------------------------------------------------------------------------

TOOL_SKIP_KEYS: Final = _words(
    """timestamp time ts took duration_ms latency latency_ms request_id trace_id span_id
    level log_level http_status status_code url endpoint method headers progress pct percent_done
    percent_complete attempt retry retries"""
)
#: Keys that only name what was asked about (the query, not the result): never a claim of their own.
TOOL_QUERY_KEYS: Final = _words(
    """city town country location place job branch domain host hostname number mount service event
    query q search term input repo repository project user username account path file filename endpoint_name
    from to source target page limit offset id uuid episode episode_id substance drug patient patient_id customer
    customer_id user_id order_id record record_id item item_id sku subject entity"""
)
#: Keys that name an input only when the tool also reports a result of its own ("currency.convert amount=250
#: GBP result=291.50 EUR"); in a record without one they are its fields ("amount: KES 184,500").
TOOL_INPUT_KEYS: Final = _words("amount")
#: Keys whose presence says the other fields were the tool's inputs.
TOOL_OUTPUT_KEYS: Final = _words("result results output converted answer")
#: Bare acknowledgements ({"ok": true}) carry no result.
TOOL_ACK_KEYS: Final = _words("ok success succeeded acknowledged ack done")
ENVELOPE_KEYS: Final = _words("from to cc bcc date sent sender reply-to received")
BODY_KEYS: Final = _words("body text message content")
#: First-position keys that are results, not selectors ("status=failed job=..." reports the status).
RESULT_KEYS: Final = _words(
    "status state result outcome verdict health ok error errors message summary forecast carrier condition reason tier"
)


# --- casual writing --------------------------------------------------------------------------------

#: Chat spellings of function words, read as written well ("dont" -> "don't", "im" -> "I'm"). Only words
#: that never carry a claim's object are listed, so every object still comes from the source's own words.
CASUAL_WORDS: Final = {
    "dont": "don't", "doesnt": "doesn't", "didnt": "didn't", "cant": "can't", "wont": "won't", "isnt": "isn't",
    "arent": "aren't", "wasnt": "wasn't", "werent": "weren't", "havent": "haven't", "hasnt": "hasn't",
    "wouldnt": "wouldn't", "couldnt": "couldn't", "shouldnt": "shouldn't", "im": "I'm", "ive": "I've",
    "i": "I", "u": "you", "ur": "your", "tmrw": "tomorrow", "tmr": "tomorrow", "2moro": "tomorrow",
    "definately": "definitely", "definitly": "definitely", "defo": "definitely", "usualy": "usually",
    "untill": "until", "recieved": "received", "recieve": "receive", "beleive": "believe", "wierd": "weird",
    "alot": "a lot", "gonna": "going to", "wanna": "want to", "prolly": "probably", "pls": "please",
    "plz": "please", "thru": "through", "cuz": "because", "coz": "because", "cos": "because",
    "bc": "because", "abt": "about", "def": "definitely", "deffo": "definitely", "srsly": "seriously",
    "rly": "really", "ppl": "people", "bcos": "because", "becuase": "because", "becasue": "because",
}
#: Chat tails that end an object ("own a car rn lol"): never part of what is said.
CASUAL_TAILS: Final = _words(
    "rn lol lmao haha hahaha tbh ngl fr imo imho atm omg ugh smh jk xd pls btw fyi lowkey highkey deadass"
)
#: Verbs whose bare form opening a user's message is a dropped "I" (a habit or a state: "Use a Pixel for work",
#: "dont own a car"), not an imperative.
DROPPED_I_VERBS: Final = _words(
    "use work play live hate love like adore enjoy own have speak drink eat wear drive prefer cycle run swim "
    "teach study smoke volunteer commute rent cook bake knit paint sing listen read watch support follow go "
    "know stay sleep train coach manage lead date miss avoid dislike"
)
#: Errand verbs whose bare form opening a user's message is a to-do of the user ("Buy a present for Chidi").
ERRAND_VERBS: Final = _words(
    "buy call ring phone text email book renew pay fix replace return cancel order schedule submit file clean "
    "water pack post collect pick drop finish sort print sign repair wash charge confirm reschedule ship "
    "register apply update backup invoice chase contact visit prepare organise organize arrange bring "
    "get take feed walk mow vacuum hoover tidy declutter defrost top"
)
#: Adjectives and states whose opening a user's message is a dropped "I'm" ("Allergic to shellfish").
DROPPED_IM_WORDS: Final = _words(
    "allergic intolerant vegan vegetarian pescatarian married single divorced engaged pregnant back off "
    "obsessed hooked retired unemployed self-employed freelance based originally currently fluent colourblind heading "
    "colour-blind "
    "color-blind asthmatic diabetic coeliac celiac left-handed right-handed"
)

#: An answer that judges what a one-phrase question before it named ("kombucha? hard pass", "sushi? love it", "thai
#: food? i really dislike it"): the speaker's taste in the topic. A bare "nah" only with a judgement after it,
#: since "coffee? nah, I'm good" declines an offer rather than judging coffee.
_JUDGE_IT: Final = (r"(?:I\s+)?(?:(?:really|honestly|absolutely|just|totally|genuinely|kinda|lowkey)\s+)*")
TOPIC_VERDICT: Final = re.compile(
    r"^(?:(?:honestly|oh|ugh|omg|god|man|ooh|yes+|yeah|ya)\b,?\s+)*(?:"
    r"(?P<bad>hard\s+pass|(?:a\s+)?(?:hard\s+)?(?:no|pass)\s+(?:from|for)\s+me|yu+ck|yuk|e+w+|gross|nasty|vile|"
    r"not\s+for\s+me|not\s+my\s+(?:thing|cup\s+of\s+tea|jam|vibe)|(?:I'm\s+)?not\s+(?:really\s+)?a\s+"
    r"(?:big\s+|huge\s+)?fan|overrated|overhyped|never\s+again|"
    + _JUDGE_IT + r"(?:hate|dislike|detest|loathe|can't\s+stand)\s+(?:it|them|the\s+stuff)|"
    r"(?:nah|nope|no|hell\s+no)(?=,?\s+.*\b(?:hard\s+pass|pass|yu+ck|gross|nasty|not\s+for\s+me|overrated|awful|"
    r"terrible|the\s+worst|disgusting|vile|horrible|can't\s+stand|(?:tastes?|smells?|looks?)\s+like)\b))"
    r"|(?P<good>" + _JUDGE_IT + r"(?:love|adore|like|enjoy)\s+(?:it|them|the\s+stuff)|(?:I'm\s+)?(?:so\s+)?"
    r"obsessed|yu+m+|so\s+good|the\s+best|underrated|elite|goated|(?:I'm\s+)?a\s+(?:big\s+|huge\s+)?fan)"
    r")(?:\s+(?:so\s+much|a\s+lot|honestly|though|tho|to\s+bits))*(?=\s*(?:[,;.!]|$))",
    I,
)


#: Sarcasm (the realistic sets' convention): a sarcastic message says nothing sincere, so it gives no claim.
#: 🙃 and 🙄, "/s", stock phrases ("love that for me", "my favourite thing", "just what I needed"), delight
#: in capitals in a message that is not shouting ("I'd LOVE to redo ..."), "just adore people who ...",
#: and mock praise closing a complaint ("Genius.", "Stellar service."); 🙃 or 🙄 only with delight words
#: (``SARCASM_FACE`` and ``DELIGHT``: an upside-down face alone can be wry about a real fact).
SARCASM: Final = re.compile(
    r"(?<!\w)/s\b|\b(?:love that for me|my fav(?:ou?rite)? thing|just what I needed|"
    r"(?:oh\s+)?joy of joys|what a treat|thanks a lot|great news everyone|(?:love|loving) how|love it when|"
    r"(?:just|absolutely|simply)\s+(?:love|adore)\s+(?:people|it when|how|when|that|being|getting|having|waiting|"
    r"spending|meetings)|(?:stellar|fantastic|brilliant|top-notch) service|genius[.!]|"
    r"(?:just\s+)?(?:what|exactly what) (?:I|we) (?:wanted|needed)|said no(?: ?one| ?body)(?: ever)?)\b",
    I,
)
#: Delight in capitals in a message that is not shouting.
SARCASM_CAPS: Final = re.compile(
    r"(?<![A-Z] )\b(?:LOVE|ADORE|AMAZING|FANTASTIC|WONDERFUL|THRILLED|BRILLIANT|GREAT|FAVOU?RITE)\b(?! [A-Z]{2})"
)
#: Words one of which every ``SARCASM`` phrase holds (lower case): a cheap test before the regex.
_SARCASM_ANCHORS: Final = ("/s", "love", "fav", "what ", "joy", "treat", "thanks a lot", "great news", "adore",
                           "service", "genius", "said no")
SARCASM_FACE: Final = re.compile("[\U0001F643\U0001F644]")
DELIGHT: Final = re.compile(
    r"\b(?:love|loving|adore|great|favou?rite|fun|thrilled|perfect|amazing|best|wonderful|excited|can't wait|"
    r"nothing (?:like|beats)|delightful|fantastic|brilliant|yay|hooray|joy)\b",
    I,
)


def sarcastic(text: str) -> bool:
    """Whether a user's message reads as sarcasm (see ``SARCASM``)."""
    low = text.lower()
    if any(a in low for a in _SARCASM_ANCHORS) and SARCASM.search(text) is not None:
        return True
    if SARCASM_CAPS.search(text) is not None:
        return True
    return SARCASM_FACE.search(text) is not None and DELIGHT.search(text) is not None
