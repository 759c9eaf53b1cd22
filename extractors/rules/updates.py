"""Updates, negative updates, corrections and favourites: what replaces, ends or ranks an earlier state.

The statement grammar (:mod:`extractors.rules.user`) reads what a clause says; this module reads the
clauses that *change* what was said before, so the engine's attribute registry can retire or contest
the right claim:

* **updates** name a new value and often the old one: "went from Vodafone to giffgaff", "moved off
  Gmail onto Fastmail", "traded in the Focus for a Niro", "dropped Slack in favour of Teams", "got
  promoted to ward sister", "just turned 40", "changed my default shell to fish", "my new car is a
  Honda Jazz". The claim carries ``update`` and, when the old value is named, ``replaces``;
* **negative updates** give a value up: "sold the Vespa", "cancelled my Guardian subscription",
  "left the choir", "got rid of the ThinkPad", "deleted Instagram". The claim is negative, an update,
  and names its own object, so it retires the earlier positive claim whatever its predicate;
* **corrections** replace what the speaker said before: "Correction: it's Capgemini, not Accenture",
  "I meant Maple Avenue", "scratch that, the offsite is in Seville", "my bad, it's 11:15". Every claim
  of a correcting message is an update marked ``metadata["correction"]``;
* **favourites and attributes in the other order**: "Mango is my favourite fruit" is the user's
  ``favorite_fruit``, "dark roast is my favourite" a like, "Marcus is our tech lead" the team's
  ``tech_lead``, so they meet "I don't like mango" and "our tech lead is Priya".

A message written in chat style often drops the subject ("sold the Vespa last week"): such a clause
starting with a past-tense update word is the speaker's. The update and negative-update words come
from the attribute registry (``updates`` in ``engine/attributes.json``), so a deployment's extension
reaches the extractor too; the constructions around them are this module's patterns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from engine.attributes import DEFAULT_REGISTRY, AttributeRegistry
from extractors.rules.clauses import clean_object
from extractors.rules.proto import Proto, snake
from schemas.enums import NodeType

I: Final = re.IGNORECASE  # noqa: E741 - reads like a regex flag

#: What ends an object inside these constructions (the general object trimmer does the rest).
_END = r"(?=\s*(?:[,;.!?()]|\s[-\u2013\u2014]\s|$|\s(?:when|because|since|after|before|as|so|but|and|which|" \
       r"last|this|yesterday|today|over|on|at|in|for|from|with|ago|back|finally|recently)\b))"
_NP = r"(?P<{name}>(?:the|my|our|a|an|his|her|their)?\s*[\w'’.&+#-]+(?:\s+[\w'’.&+#-]+){{0,4}}?)"


#: "quit Twitter for good", "left it for a while": a duration, not what replaced it.
_NOT_A_TIME = (r"(?!(?:good|now|ever|years?|months?|weeks?|days?|ages|a\s+(?:while|bit|year|month|week|day)|the\s+"
               r"(?:day|week|weekend|summer|winter)|me|us|them|it|that|this)\b)")


def _np(name: str) -> str:
    return _NP.format(name=name)


# --- updates that name both values --------------------------------------------------------------

#: "migrated off Netlify to Cloudflare Pages", "moved off Gmail onto Fastmail", "moved away from X to Y".
_OFF_TO: Final = re.compile(
    rf"^(?:moved|migrated|switched|gone|went|jumped|ported|transferred|shifted|swapped)\s+(?:over\s+)?"
    rf"(?:off(?:\s+of)?|away\s+from|out\s+of)\s+{_np('old')}\s+(?:(?:and\s+)?(?:on)?to|onto|into|over\s+to|for)\s+"
    rf"{_NOT_A_TIME}{_np('new')}{_END}",
    I,
)
#: "exported everything out of LastPass into Bitwarden", "moved the docs out of Confluence and into Notion".
_THING_OUT_OF: Final = re.compile(
    rf"^(?:moved|migrated|exported|transferred|shifted|ported|copied)\s+(?P<what>(?:the|my|our|all\s+(?:my|our|the))?"
    rf"\s*[\w'-]+(?:\s+[\w'-]+)?)\s+(?:out\s+of|off(?:\s+of)?|away\s+from|from)\s+{_np('old')}\s+"
    rf"(?:and\s+)?(?:(?:in)?to|onto|over\s+to)\s+{_np('new')}{_END}",
    I,
)
#: "migrated CI from Travis to GitHub Actions", "switched broadband from BT to Hyperoptic" (no determiner).
_BARE_THING_FROM_TO: Final = re.compile(
    rf"^(?:moved|migrated|switched|changed|swapped|ported|transferred|upgraded)\s+(?P<what>(?-i:[A-Za-z][\w-]*))\s+"
    rf"from\s+{_np('old')}\s+to\s+{_np('new')}{_END}",
    I,
)
#: "traded in the focus for a used kia niro", "traded my Corolla in for a Leaf".
_TRADED_IN: Final = re.compile(
    rf"^(?:traded|part[- ]exchanged|swapped)\s+(?:in\s+)?{_np('old')}\s+(?:in\s+)?for\s+{_NOT_A_TIME}"
    rf"{_np('new')}{_END}",
    I,
)
#: "dropped Slack in favour of Teams", "given up the flat white in favour of green tea".
_IN_FAVOUR: Final = re.compile(
    rf"^(?:dropped|ditched|given\s+up|gave\s+up|abandoned|dumped|binned|left|quit|retired|replaced|swapped\s+out)\s+"
    rf"{_np('old')}\s+in\s+favou?r\s+of\s+{_np('new')}{_END}",
    I,
)
#: "got bumped from junior designer to mid-level", "was promoted to ward sister".
_PROMOTED: Final = re.compile(
    rf"^(?:got\s+|been\s+|was\s+|just\s+got\s+|finally\s+got\s+)?(?:promoted|bumped(?:\s+up)?|moved\s+up|made\s+up)"
    rf"\s+(?:from\s+{_np('old')}\s+)?to\s+{_np('new')}{_END}",
    I,
)
#: "left KPMG for Revolut": the employer changed.
_LEFT_FOR: Final = re.compile(
    rf"^(?:left|quit)\s+(?P<old>(?-i:[A-Z])[\w'’.&+-]*(?:\s+(?-i:[A-Z])[\w'’.&+-]*){{0,2}})\s+(?:to\s+join|for)\s+"
    rf"{_NOT_A_TIME}{_np('new')}{_END}",
    I,
)


# --- updates that name the new value ----------------------------------------------------------------

#: "turned 40", "just turned forty": the age changed.
_TURNED: Final = re.compile(r"^(?:just\s+|finally\s+|officially\s+)?turned\s+(?P<n>\d{1,3})(?=\s|[,.!;]|$)", I)
#: "got married", "got engaged": the marital status changed.
_GOT_STATUS: Final = re.compile(
    r"^(?:just\s+|finally\s+|officially\s+)?(?P<v>got|getting|been|became)\s+(?P<s>married|engaged|divorced|hitched|"
    r"separated)\b",
    I,
)
_GETTING_WHERE: Final = re.compile(r"\s+(?:in|at)\s+(?P<np>[^,.;!?]+)", I)
#: "went blonde", "dyed my hair red", "have gone grey": the speaker's hair colour changed.
_HAIR: Final = re.compile(
    r"^(?:went|gone|going|turned|dyed(?:\s+(?:my|our)\s+hair)?|coloured\s+my\s+hair|colored\s+my\s+hair)\s+"
    r"(?:(?:platinum|bright|dark|light|ash|strawberry|jet|silver)\s+)?(?P<c>blonde?|brunette|brown|black|red|ginger|"
    r"grey|gray|auburn|pink|blue|purple|green|white|silver|bleach\s+blonde)\b",
    I,
)
#: "renamed the default branch to main": the thing's name changed.
_RENAMED: Final = re.compile(
    rf"^renamed\s+(?P<what>(?:the|our|my)\s+[\w-]+(?:\s+[\w-]+){{0,2}}?)\s+to\s+{_np('new')}{_END}", I
)
#: "changed my default shell to fish", "set my timezone to CET" (no old value named).
_CHANGED_MY_TO: Final = re.compile(
    rf"^(?:changed|switched|set|updated|moved)\s+(?:my|our)\s+(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,2}}?)\s+"
    rf"(?:over\s+)?to\s+{_np('new')}{_END}",
    I,
)
#: "rent a flat in Lisbon", "bought a house in Leeds", "(I'm) renting in Edinburgh": where the speaker lives.
_HOME_IN: Final = re.compile(
    rf"^(?:(?:rent|renting|rented|own|bought|buy|have|share|sharing)\s+(?:a|an|the|my|our)\s+(?:little\s+|small\s+|"
    rf"tiny\s+)?(?:flat|house|apartment|place|room|studio|home|bungalow|cottage)|renting|rent)\s+in\s+"
    rf"{_np('new')}{_END}",
    I,
)
#: "Home for me is Glasgow", "home is Leeds these days".
_HOME_IS: Final = re.compile(rf"^home(?:\s+for\s+(?:me|us))?\s+is\s+(?:now\s+|still\s+)?{_np('new')}{_END}", I)
#: "(the release is) due on the 12th".
_DUE: Final = re.compile(rf"^due\s+(?:on|by|for|in|at)\s+{_np('new')}{_END}", I)


#: "joined Canva this week as a senior engineer": the employer and the role changed.
_JOINED_AS: Final = re.compile(
    r"^(?:joined|started\s+at)\s+(?P<org>(?-i:[A-Z])[\w'’.&+-]*(?:\s+(?-i:[A-Z])[\w'’.&+-]*){0,2})"
    r"(?:\s+(?:this|last|on|in)\s+\w+)?\s+as\s+(?:an?\s+)?(?P<role>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
    rf"{_END}",
    I,
)
#: "ported my number to Three".
_PORTED: Final = re.compile(rf"^(?:ported|moved|transferred)\s+(?:my|our)\s+(?:phone\s+)?number\s+(?:over\s+)?to\s+"
                            rf"{_np('new')}{_END}", I)
#: "(I'm) with EE for mobile", "(we're) with Octopus for energy": who provides a service (after "be").
_PROVIDER: Final = re.compile(
    r"^with\s+(?P<new>(?-i:[A-Z0-9])[\w'’.&+-]*(?:\s+(?-i:[A-Z0-9])[\w'’.&+-]*){0,2})\s+for\s+"
    r"(?P<kind>my\s+phone|my\s+mobile|mobile|phone|broadband|internet|energy|electricity|gas|insurance|banking|"
    r"my\s+bank(?:ing)?|car\s+insurance|home\s+insurance)\b",
    I,
)
#: "(I'm) a member at the climbing wall", "(I'm) a member of the book club" (after "be").
_MEMBER: Final = re.compile(
    rf"^(?:an?\s+)?(?:paying\s+|proud\s+|long-?time\s+|full\s+|founding\s+)?member\s+(?:at|of|with)\s+"
    rf"{_np('new')}{_END}",
    I,
)
#: Products the registry names by kind (``value_kinds``: spotify, notion, aws, ...): known in lower-case chat too.
_KNOWN_PRODUCTS: Final = r"(?:" + "|".join(
    re.escape(v) for v in sorted({v for vs in DEFAULT_REGISTRY.value_kinds.values() for v in vs}, key=len, reverse=True)
) + r")(?![\w'’.&+-])"
#: "(our stuff is) hosted on AWS", "(everything's) on gcp now": where the speaker's things run (after "be").
_HOSTED_ON: Final = re.compile(
    r"^(?:(?:hosted|deployed|running|stored|kept|built)\s+)?(?:on|in|with)\s+(?P<tool>" + _KNOWN_PRODUCTS + r")", I
)
_THINGS_HELD: Final = re.compile(r"^(?:everything|it\s+all|all\s+of\s+it|(?:\w+'s\s+)?(?:stuff|things|everything))$", I)
#: The same said as a whole clause: "our stuff is hosted on aws", "everything's on gcp now".
_THINGS_ON: Final = re.compile(
    r"^(?:(?:my|our)\s+(?:stuff|things|code|site|app|apps|servers?|infra(?:structure)?|website|services)|everything|"
    r"it\s+all)(?:'s|\s+is|\s+are)\s+(?:(?P<now>now|currently|all|all\s+now)\s+)?"
    r"(?:(?:hosted|deployed|running|stored|kept)\s+)?(?:on|in|with)\s+(?P<tool>" + _KNOWN_PRODUCTS + r")"
    r"(?P<now2>\s+now)?",
    I,
)


def things_on(t: str, owner: str) -> list[Proto] | None:
    """"our stuff is hosted on aws", "everything's on gcp now": the speaker's things run on a known product."""
    m = _THINGS_ON.match(t.strip())
    if m is None:
        return None
    tool = _obj(m.group("tool"))
    now = bool(m.group("now2")) or (m.group("now") or "").lower().endswith("now")
    return [] if tool is None else [Proto(owner, "uses", tool, update=now)]
#: A verb of using a product for something, then the product: "keep all my notes in Evernote".
_USES_IN: Final = re.compile(
    r"^(?:write|code|draft|keep|store|track|manage|plan|run|host|build|deploy|back\s+up|sync|edit|design|read|"
    r"listen\s+to|watch|stream|organi[sz]e|save|share|bank)(?:s|es)?\s+"
    r"(?:everything|all\s+(?:my|our|the)\s+[\w-]+|most\s+(?:of\s+)?(?:my|our|the)\s+[\w-]+|(?:my|our|the)\s+"
    r"[\w-]+(?:\s+[\w-]+)?|stuff|things|it\s+all|music|podcasts|notes|photos|files|code)\s+(?:in|on|with|through|via)\s+"
    r"(?!(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|(?:jan|febr)uary\b|march\b|april\b|may\b|june?\b|july\b|"
    r"august\b|(?:septem|octo|novem|decem)ber\b|christmas\b|weekends?\b)"
    r"(?P<tool>(?-i:[A-Z])[\w'’.&+-]*(?:\s+(?-i:[A-Z0-9])[\w'’.&+-]*){0,2}|" + _KNOWN_PRODUCTS + r")",
    I,
)
#: "(I'm) in a book club", "(I'm) on the marketing team": a group the speaker belongs to (after "be").
_IN_GROUP: Final = re.compile(
    r"^(?:in|part\s+of)\s+(?:a|an|the|my|our)\s+(?P<new>(?:[\w'-]+\s+){0,2}?(?:club|choir|band|orchestra|league|"
    r"society|ensemble|troupe|crew|squad|guild|union|collective|book\s+group|running\s+group|quiz\s+team))\b"
    r"|^on\s+(?:the|a|an|our)\s+(?P<team>(?:[\w'-]+\s+){1,2}?team)\b",
    I,
)
#: "transferred from marketing to the product team": the team changed.
_TEAM_FROM_TO: Final = re.compile(
    rf"^(?:transferred|moved|switched|changed)\s+(?:teams\s+)?from\s+(?:the\s+)?(?P<old>[\w'-]+(?:\s+[\w'-]+)??)"
    rf"(?:\s+team)?\s+(?:on)?to\s+(?:the\s+)?(?P<new>[\w'-]+(?:\s+[\w'-]+)?\s+team){_END}",
    I,
)
#: "started a new job at Stripe", "landed a job with Monzo": the employer changed.
_NEW_JOB_AT: Final = re.compile(
    rf"^(?:started|starting|landed|got|took|accepted|began)\s+(?:a\s+|my\s+)?(?:new\s+)?(?:job|role|position|gig)\s+"
    rf"(?:at|with)\s+{_np('new')}{_END}",
    I,
)
#: "handed in my notice at Starbucks", "resigned from Deloitte", "quit my job at IBM": the employer is given up.
_LEFT_JOB_AT: Final = re.compile(
    rf"^(?:handed\s+in\s+my\s+notice|gave\s+(?:my\s+)?notice|resigned|quit\s+my\s+job|left\s+my\s+job)\s+"
    rf"(?:at|from|with)\s+{_np('old')}{_END}",
    I,
)
#: "closed everything at Wells Fargo", "closed my account with Monzo": the provider is given up.
_CLOSED_AT: Final = re.compile(
    rf"^(?:closed|shut)\s+(?:down\s+)?(?:everything|all\s+my\s+accounts?|(?:my|our)\s+(?:[\w-]+\s+)?accounts?)\s+"
    rf"(?:at|with)\s+{_np('old')}{_END}",
    I,
)
#: "signed a lease in Seattle", "signed for a flat in Leeds": where the speaker lives now.
_LEASE_IN: Final = re.compile(
    rf"^signed\s+(?:a\s+lease|for\s+(?:a|an)\s+(?:flat|house|apartment|place))\s+(?:on\s+(?:a|an)\s+[\w-]+\s+)?"
    rf"in\s+{_np('new')}{_END}",
    I,
)
#: "gave my guitar to my nephew", "gave away the old bike": something the speaker no longer has.
_GAVE_AWAY: Final = re.compile(
    r"^(?:gave|given)\s+(?:away\s+)?(?:my|our|the)\s+(?:old\s+)?(?P<old>[\w'-]+(?:\s+[\w'-]+)?)\s+"
    r"(?:away\b|to\s+(?:my|our|a|an|the|his|her)\b)",
    I,
)
_NOT_A_THING: Final = frozenset({"everything", "all", "it", "stuff", "things", "them", "him", "her"})


# --- negative updates -------------------------------------------------------------------------------

#: What a negative-update verb gives up, by verb: the predicate of the negative claim.
_GIVE_UP_PREDICATE: Final = {
    "sold": "has", "rehomed": "has", "got rid of": "has", "binned": "has", "scrapped": "uses",
    "unsubscribed": "subscribed_to", "unsubscribed from": "subscribed_to",
    "left": "member_of", "quit": "member_of", "packed in": "does", "given away": "has",
}
_GIVE_UP_DEFAULT: Final = "uses"


def give_up_predicate(verb: str) -> str:
    """The predicate a thing given up by ``verb`` was held by ("sold" the car one has, "cancelled" a plan one uses)."""
    return _GIVE_UP_PREDICATE.get(" ".join(verb.lower().split()), _GIVE_UP_DEFAULT)
#: Objects that are not a thing given up ("left early", "quit it").
_NOT_GIVEN_UP: Final = re.compile(
    r"^(?:it|that|this|them|him|her|me|us|early|late|home|work|school|there|here|now|again|soon|because|so|and|but"
    r"|for|at|on|in|to|with|off|up|down|out|away|over|by|behind)\b",
    I,
)
_EXCHANGE_OR_PLACE: Final = re.compile(
    r"^\s*(?:for(?!\s+(?:good|ever|now|real|a\s+while|the\s+(?:time\s+being|last\s+time))\b)|"
    r"in\s+favou?r\s+of|at|on|off|by|into|onto|under|round|behind|outside|inside)\b", I
)


# --- corrections ------------------------------------------------------------------------------------

#: A message that corrects the speaker's earlier claim (the marker may follow "oh", "ugh", "sorry", ...).
_CORRECTING: Final = re.compile(
    r"\b(?:correction|correcting myself|to correct myself|let me correct (?:that|myself)|scratch that|strike that|"
    r"(?:i\s+should|let\s+me|to|just\s+to)\s+clarify|let\s+me\s+(?:fix|rephrase)\s+that|(?:typed|wrote|put|said)\s+"
    r"[\w'.:-]+(?:\s+[\w'.:-]+)?\s+by\s+mistake|"
    r"i\s+meant|i\s+mean(?=\s+(?:the\s+)?(?-i:[A-Z0-9]))|meant\s+to\s+say|my\s+bad|my\s+mistake|my\s+error|"
    r"i\s+(?:had|got)\s+(?:that|it|this)\s+(?:wrong|mixed\s+up|backwards)|i\s+was\s+wrong|i\s+misspoke|misspoke|"
    r"mis-?typed|typo(?:\s+earlier)?|wrong\s+(?:date|day|time|number|name)|(?:that|it)\s+was\s+a\s+typo|"
    r"no,?\s+wait|wait,?\s+no|ignore\s+(?:that|what\s+i\s+said|my\s+last)|disregard\s+(?:that|what\s+i\s+said|my\s+last)|"
    r"i\s+(?:mixed|muddled|got)\s+(?:it|them|that|those)\s+(?:up|mixed\s+up|muddled\s+up)|"
    r"(?:that|this)\s+(?:was|is)\s+(?:wrong|incorrect|a\s+mistake)|wrong\s+(?:one|year|month|address)|"
    r"sorry,?\s+(?:it'?s|it\s+(?:is|was)|i\s+meant|make\s+that|i'?m\s+(?=\d)|(?:she|he|they)'?(?:s|re)\s+(?=\d)|"
    r"(?:she|he|they)\s+(?:is|are)\s+(?=\d))|make\s+that|w?h?oops|woops)\b",
    I,
)
#: "Actually, ..." opening a message corrects what came before it (a contradiction is stated plainly).
_ACTUALLY_FIRST: Final = re.compile(r"^\W*(?:(?:oh|ah|um+|er+m?|hm+|sorry|oops|wait)\W+)*actually\b", I)
#: "I said X but I meant Y".
_SAID_MEANT: Final = re.compile(
    rf"\bi\s+(?:said|wrote|put|typed|told\s+you)\s+{_np('old')}\s+(?:but|when)\s+(?:i\s+)?(?:meant|mean)\s+"
    rf"{_np('new')}{_END}",
    I,
)
#: "I meant Y, not X" / "it's Y, not X" / "it was Y we spoke at home, not X" / "Y, not X".
_NOT_X: Final = re.compile(
    rf"(?:\b(?:i\s+meant|i\s+mean|meant|it(?:'s|\s+is|\s+was)|that(?:'s|\s+is|\s+was)|(?:she|he|they)(?:'s|\s+is|"
    rf"\s+was|\s+are|\s+were)|i'?m|i\s+am)\s+|^)(?P<new>(?:the|a|an|my|our)?\s*[\w'’.&+#:-]+(?:\s+[\w'’.&+#:-]+){{0,4}}?)"
    rf"(?:\s+[a-z]+(?:\s+[a-z]+){{0,3}}?)?,?\s+(?:and\s+)?not\s+(?:a\s+|an\s+|the\s+|on\s+|in\s+|at\s+)?"
    rf"(?P<old>[\w'’.&+#:-]+(?:\s+[\w'’.&+#:-]+){{0,3}}?){_END}",
    I,
)
#: "I meant Y" / "it's Y" / "she's 7": the corrected value alone.
_VALUE_ONLY: Final = re.compile(
    rf"(?:^|\b)(?:i\s+meant|i\s+mean|meant|it(?:'s|\s+is|\s+was)|that(?:'s|\s+is)|(?:she|he|they)(?:'s|\s+is|\s+are)|"
    rf"(?:it|she|he|they)\s+(?:lands?|leaves?|starts?|arrives?|ends?|opens?|closes?|departs?|begins?|finishes|"
    rf"gets\s+in|comes\s+in|kicks\s+off|is|was)\s+(?:at|on|in|by)?)\s+"
    rf"(?P<new>(?:the|a|an)?\s*[\w'’.&+#:-]+(?:\s+[\w'’.&+#:-]+){{0,3}}?){_END}",
    I,
)
#: "it's cashews I'm allergic to": the clause after a clefted value.
_CLEFT_TAIL: Final = re.compile(r"\s+(?:that\s+|who\s+)?(?:i|i'm|i\s+am|we|we're|you|he|she|they)\b.*$", I)
#: "almonds are fine": the value that was wrong.
_FINE: Final = re.compile(
    r"\b(?P<old>[\w'’-]+(?:\s+[\w'’-]+)?)\s+(?:are|is)\s+(?:totally\s+|actually\s+|perfectly\s+)?(?:fine|ok|okay|"
    r"no\s+problem|not\s+a\s+problem)\b",
    I,
)
_MARKER_LEAD: Final = re.compile(
    r"^\W*(?:(?:oh|ah|ugh|um+|er+m?|hm+|sorry|oops|wait|no|ok|okay|so|small|quick|actually|correction|make\s+that|"
    r"let me correct (?:that|myself)|scratch that|my bad|my mistake|typo(?:\s+earlier)?|i\s+misspoke(?:\s+earlier)?)"
    r"\W+)+",
    I,
)


@dataclass(frozen=True)
class UpdateWords:
    """The registry's update words, compiled for the rule extractor (one per registry)."""

    cue: re.Pattern[str]
    subjectless: re.Pattern[str]
    give_up: re.Pattern[str]
    words: tuple[str, ...] = field(default=())


def _alternation(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(set(words), key=len, reverse=True))


_COMPILED: dict[int, tuple[AttributeRegistry, UpdateWords]] = {}
_MOTION: Final = ("went", "gone", "jumped", "bumped", "turned", "became", "started", "joined", "renamed", "traded",
                  "exchanged", "promoted")


def update_words(registry: AttributeRegistry = DEFAULT_REGISTRY) -> UpdateWords:
    """The update vocabulary of ``registry`` as patterns (compiled once per registry)."""
    hit = _COMPILED.get(id(registry))
    if hit is None or hit[0] is not registry:
        if len(_COMPILED) > 64:
            _COMPILED.clear()
        hit = (registry, _compile(registry))
        _COMPILED[id(registry)] = hit
    return hit[1]


def _compile(registry: AttributeRegistry) -> UpdateWords:
    """A segment's update cue, a subjectless update clause's opening word, and a negative-update verb
    with its object, from the registry's update words."""
    positive = tuple(registry.updates.update_verbs)
    negative = tuple(registry.updates.negative_update_verbs)
    # only words of a present change mark a whole segment; a give-up verb's own claim is already an update, and
    # "a retired teacher" or "since I started" in a plain statement change nothing
    cue = re.compile(rf"\b(?:{_alternation(positive)}|(?:my|our)\s+new|any\s?more|these\s+days|nowadays)\b", I)
    # a subjectless clause may also open with a verb of motion whose update is its construction ("went from X
    # to Y"); as a cue for the whole segment those words say too little ("the furthest I've gone")
    past = tuple(w for w in positive + negative + _MOTION if " " in w or w.endswith(("ed", "t", "ne", "nt", "ld")))
    subjectless = re.compile(
        rf"^(?:just\s+|finally\s+|recently\s+|officially\s+|also\s+)?(?:{_alternation(past)}|got\s+(?:rid|promoted|"
        r"bumped|married|engaged|divorced)|been\s+promoted)\b",
        I,
    )
    give_up = re.compile(
        rf"^(?P<verb>{_alternation(negative)})(?:\s+from)?\s+(?P<rest>\S.*)$", I
    )
    return UpdateWords(cue, subjectless, give_up, positive + negative)


def _obj(text: str | None) -> str | None:
    if not text:
        return None
    obj, _ = clean_object(text)
    return obj


def update_clause(
    subject: str, rest: str, owner: str, words: UpdateWords, *, passive: bool = False
) -> list[Proto] | None:
    """The claims of an update or negative-update clause (``rest`` follows the subject and auxiliaries),
    or None when ``rest`` is none of this module's constructions. After a form of "be" (``passive``: "the
    road was closed") a give-up verb is a state, not something the subject gave up."""
    t = rest.strip()
    for rx in (_OFF_TO, _TRADED_IN, _IN_FAVOUR):
        m = rx.match(t)
        if m is not None:
            new, old = _obj(m.group("new")), _obj(m.group("old"))
            if new is None or old is None:
                return []
            return [Proto(subject, "uses", new, update=True, replaces=old)]
    m = _THING_OUT_OF.match(t) or _BARE_THING_FROM_TO.match(t)
    if m is not None:
        new, old = _obj(m.group("new")), _obj(m.group("old"))
        what = _obj(m.group("what"))
        if new is None or old is None:
            return []
        # "we moved the ledger service from MongoDB to Postgres": the service's store changed
        # "migrated all my notes from Notion to Obsidian": the speaker's own things, so the speaker's tool
        own = m.group("what") is not None and re.match(r"^\s*(?:all\s+)?(?:my|our)\b", m.group("what"), I) is not None
        holder = subject if what is None or what.lower() in _NOT_A_THING or own else f"{subject}'s {what}"
        return [Proto(holder, "uses", new, update=True, replaces=old)]
    m = _TEAM_FROM_TO.match(t)
    if m is not None:
        new, old = _obj(m.group("new")), _obj(m.group("old"))
        return [] if new is None else [Proto(subject, "member_of", new, update=True, replaces=old)]
    m = _NEW_JOB_AT.match(t)
    if m is not None:
        new = _obj(m.group("new"))
        return [] if new is None else [Proto(subject, "works_at", new, update=True)]
    for rx, predicate in ((_LEFT_JOB_AT, "works_at"), (_CLOSED_AT, "uses"), (_GAVE_AWAY, "has")):
        m = rx.match(t)
        if m is not None:
            old = _obj(m.group("old"))
            return [] if old is None else [Proto(subject, predicate, old, negative=True, update=True, replaces=old)]
    m = _LEASE_IN.match(t)
    if m is not None:
        new = _obj(m.group("new"))
        return [] if new is None else [Proto(subject, "lives_in", new, update=True)]
    m = _JOINED_AS.match(t)
    if m is not None:
        org, role = _obj(m.group("org")), _obj(m.group("role"))
        out = [Proto(subject, "works_at", org, update=True)] if org else []
        return out + ([Proto(subject, "role", role, update=True)] if role else [])
    m = _PORTED.match(t)
    if m is not None:
        new = _obj(m.group("new"))
        return [] if new is None else [Proto(subject, "mobile_network", new, update=True)]
    m = _PROMOTED.match(t)
    if m is not None:
        new = _obj(m.group("new"))
        return [] if new is None else [Proto(subject, "role", new, update=True, replaces=_obj(m.group("old")))]
    m = _LEFT_FOR.match(t)
    if m is not None:
        new = _obj(m.group("new"))
        return [] if new is None else [Proto(subject, "works_at", new, update=True, replaces=_obj(m.group("old")))]
    m = _HAIR.match(t) if subject == owner else None
    if m is not None:
        hair = Proto(subject, "hair", m.group("c"), update=True)
        hair.metadata["attribute_form"] = True  # one colour at a time, as "my hair is brown"
        return [hair]
    m = _TURNED.match(t)
    if m is not None:
        return [Proto(subject, "age", m.group("n"), update=True)]
    m = _GOT_STATUS.match(t)
    if m is not None:
        status = "married" if m.group("s").lower() == "hitched" else m.group("s").lower()
        if m.group("v").lower() == "getting":
            # "my sister's getting married in Tuscany next June": an event to come, not the status yet
            where = _GETTING_WHERE.match(t, m.end())
            place = _obj(where.group("np")) if where is not None else None
            if place is not None:
                return [Proto(subject, f"getting_{status}_in", place)]
            return [Proto(subject, "getting", status)]
        return [Proto(subject, "is", status, update=True)]
    m = _RENAMED.match(t)
    if m is not None:
        new, what = _obj(m.group("new")), _obj(m.group("what"))
        if new is None or what is None:
            return []
        return [Proto(f"{owner}'s {what}" if subject == owner else subject, "name", new, update=True)]
    m = _CHANGED_MY_TO.match(t)
    if m is not None and " from " not in t.lower():
        new, what = _obj(m.group("new")), m.group("what")
        if new is None:
            return []
        made = Proto(subject, snake(what), new, update=True)
        made.metadata["attribute_form"] = True
        return [made]
    m = _HOME_IN.match(t)
    if m is not None:
        new = _obj(m.group("new"))
        return [] if new is None else [Proto(subject, "lives_in", new)]
    m = _DUE.match(t) if passive else None
    if m is not None:
        new = _obj(m.group("new"))
        return [] if new is None else [Proto(subject, "due_on", new)]
    m = _PROVIDER.match(t) if passive else None
    if m is not None:
        new = _obj(m.group("new"))
        kind = m.group("kind").lower()
        phone = kind in ("mobile", "phone", "my phone", "my mobile")
        predicate = "mobile_network" if phone else snake(kind, "provider")
        return [] if new is None else [Proto(subject, predicate, new)]
    m = _MEMBER.match(t) if passive else None
    if m is not None:
        new = _obj(m.group("new"))
        return [] if new is None else [Proto(subject, "member_of", new)]
    m = _HOSTED_ON.match(t) if passive and _THINGS_HELD.match(subject) else None
    if m is not None:
        # "our stuff is hosted on aws", "everything's on gcp now": the speaker's own things
        tool = _obj(m.group("tool"))
        return [] if tool is None else [Proto(owner, "uses", tool)]
    m = _IN_GROUP.match(t) if passive else None
    if m is not None:
        new = _obj(m.group("new") or m.group("team"))
        return [] if new is None else [Proto(subject, "member_of", new)]
    return None if passive else _give_up(subject, t, words)


def usage(subject: str, rest: str) -> list[Proto]:
    """"I keep all my notes in Evernote", "we host the marketing site on Netlify": the named product is used
    (a claim beside what the statement grammar reads from the verb)."""
    m = _USES_IN.match(rest.strip())
    if m is None:
        return []
    tool = _obj(m.group("tool"))
    return [] if tool is None else [Proto(subject, "uses", tool)]


def _give_up(subject: str, t: str, words: UpdateWords) -> list[Proto] | None:
    m = words.give_up.match(t)
    if m is None:
        return None
    verb = " ".join(m.group("verb").lower().split())
    rest = m.group("rest")
    if verb in ("no longer",) or rest.lower().split()[0].rstrip(",;.!?").endswith("ing"):
        return None  # "no longer X" and "stopped drinking X" are the statement grammar's (a negated verb)
    if _NOT_GIVEN_UP.match(rest):
        return None
    if verb in ("left", "quit") and rest[:1].isupper():
        return None  # "left KPMG": the verb table's employer rule
    obj = _obj(rest)
    if obj is None:
        return None
    after = rest[rest.find(obj) + len(obj) :] if obj in rest else ""
    if _EXCHANGE_OR_PLACE.match(after):
        # "ditched Jenkins for GitHub Actions" is an exchange (the verb table's); "dropped the kids at
        # school", "left my bag on the train" put something somewhere
        return None
    predicate = give_up_predicate(verb)
    return [Proto(subject, predicate, obj, NodeType.FACT, negative=True, update=True, replaces=obj)]


# --- favourites and attributes stated value first ---------------------------------------------------

_VALUE_FIRST: Final = re.compile(
    r"^(?P<x>(?!(?:it|this|that|there|he|she|they|i|we|you|what|which|who|here)\b)[\w'’.&+#-]+(?:\s+[\w'’.&+#-]+){0,4}?)"
    r"\s+(?:is|are|'s|has\s+(?:always\s+)?been|remains?|was\s+always)\s+(?:still\s+|always\s+|definitely\s+|easily\s+|"
    r"probably\s+|honestly\s+|officially\s+)?(?P<own>my|our)\s+(?:(?P<fav>(?:all[- ]time\s+|absolute\s+|personal\s+|"
    r"number\s+one\s+|top\s+|go-to\s+|ultimate\s+)?(?:favou?rite|fave|fav)|(?P<use>go-to|daily\s+driver))"
    r"(?:\s+(?P<cat>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?))?|(?P<attr>(?!(?:favou?rite|fave|fav)\b)[a-z][\w-]*"
    r"(?:\s+[a-z][\w-]*){0,2}?))"
    r"(?:\s+(?:of\s+all\s+time|ever|by\s+far|in\s+the\s+world|on\s+(?:a|the)\s+\w+|of\s+the\s+\w+|to\s+\w+|"
    r"(?:as\s+of|from|since|starting)\s+.+|now))?\s*$",
    I,
)
#: "horror films aren't for me", "kdramas arent my thing", "jazz is my jam": a taste stated value first.
_TASTE_ADV = r"(?:\s+(?:just|really|honestly|totally|simply|kinda|definitely|so|never|ever|truly))*"
_FOR_ME: Final = re.compile(
    r"^(?P<x>(?!(?:it|this|that|there|he|she|they|i|we|you|what|which|who|here)\b)[\w'’.&+#-]+"
    r"(?:\s+[\w'’.&+#-]+){0,4}?)" + _TASTE_ADV
    + r"(?:(?:\s+(?:is|are)|['’]s)" + _TASTE_ADV + r"(?P<neg>\s+(?:not|never))?|(?P<neg2>\s+(?:isn'?t|aren'?t)))"
    + _TASTE_ADV + r"\s+(?:for\s+me|my\s+(?:thing|cup\s+of\s+tea|jam|kind\s+of\s+thing|scene|vibe|style))\s*$",
    I,
)
_CLAUSE_END: Final = re.compile(r"\s*(?:[,;:!?()]|\s[-\u2013\u2014]+\s)\s*")
#: "my favourite sport to watch is cricket": the infinitive qualifies the category.
_FAV_TO_VERB: Final = re.compile(r"^(?P<cat>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+to\s+[a-z]+$", I)
_ATTR_NOT_VALUE: Final = frozenset({
    "thing", "problem", "point", "issue", "question", "idea", "worry", "concern", "fault", "job", "guess", "bad",
    "pleasure", "way", "life", "day", "week",
})


def value_first(t: str, owner: str, we: str) -> list[Proto] | None:
    """ "Mango is my favourite fruit" -> (owner, favorite_fruit, Mango); "Catan is my favourite" -> a like;
    "Firefox is my go-to" -> uses; "Marcus is our tech lead as of this sprint" -> (we, tech_lead, Marcus);
    "Home for me is Glasgow" -> lives_in. None when ``t`` is not of that shape."""
    home = _HOME_IS.match(t.strip())
    if home is not None:
        place = _obj(home.group("new"))
        return [] if place is None else [Proto(owner, "lives_in", place)]
    taste = _FOR_ME.match(_CLAUSE_END.split(t.strip(), maxsplit=1)[0].rstrip(".!"))
    if taste is not None:
        liked = _obj(taste.group("x"))
        negative = bool(taste.group("neg") or taste.group("neg2"))
        return [] if liked is None else [Proto(owner, "likes", liked, NodeType.PREFERENCE, negative=negative)]
    m = _VALUE_FIRST.match(_CLAUSE_END.split(t.strip(), maxsplit=1)[0].rstrip(".!"))
    if m is None:
        return None
    x = _obj(m.group("x"))
    if x is None:
        return []
    holder = owner if m.group("own").lower() == "my" else we
    update = re.search(r"\b(?:as\s+of|from|since|starting|now)\b", t, I) is not None
    if m.group("use"):
        return [Proto(holder, "uses", x, update=update)]
    if m.group("fav"):
        cat = m.group("cat")
        if not cat:
            return [Proto(holder, "likes", x, NodeType.PREFERENCE, update=update)]
        fm = _FAV_TO_VERB.match(cat)
        if fm is not None:
            cat = fm.group("cat")
        made = Proto(holder, snake("favorite", cat), x, NodeType.PREFERENCE, update=update)
        made.metadata["attribute_form"] = True
        return [made]
    attr = m.group("attr").lower()
    if not update or attr.split()[-1] in _ATTR_NOT_VALUE or attr.split()[0] in _ATTR_NOT_VALUE:
        # "June is our new accountant" stays a fact about June; only a stated change ("Marcus is our tech
        # lead as of this sprint") is read as the attribute's new value
        return None
    made = Proto(holder, snake(attr), x, update=update)
    made.metadata["attribute_form"] = True
    return [made]


# --- activities -----------------------------------------------------------------------------------

#: Verbs that name a habit or pastime by themselves: "I don't run" is a claim about running (it meets "I run
#: every morning"), where "I don't know" or "I don't mind" says nothing to keep.
ACTIVITY_VERBS: Final = frozenset({
    "run", "swim", "cook", "bake", "smoke", "drink", "drive", "cycle", "meditate", "dance", "sing", "knit", "garden",
    "hike", "climb", "ski", "surf", "skate", "paint", "draw", "fish", "golf", "jog", "walk", "vape", "gamble", "box",
    "row", "sail", "read", "write", "travel", "fly", "camp", "exercise", "train", "lift", "snowboard", "skydive",
    "volunteer", "pray", "journal", "sew", "crochet", "commute",
})


# --- corrections ----------------------------------------------------------------------------------


def correcting(text: str) -> bool:
    """Whether a message corrects the speaker's earlier claim ("Correction: ...", "I meant ...", "Actually ...",
    "Sorry, I work at Initech, not Globex", "Not 3.8 — we're on 3.11")."""
    if _CORRECTING.search(text) is not None or _ACTUALLY_FIRST.match(text) is not None:
        return True
    first = text.strip().rstrip(".!")
    if _NOT_HEAD.match(first) is not None:
        return True
    return _APOLOGY_FIRST.match(first) is not None and _NOT_TAIL.match(_MARKER_LEAD.sub("", first)) is not None


def strip_marker(segment: str) -> str:
    """A correcting segment without its marker ("scratch that, the offsite is in Seville" -> the claim)."""
    return _MARKER_LEAD.sub("", segment).strip()


#: A "new" value that is a clause ("my birthday is june 21", "we"): the statement grammar reads it instead.
_CLAUSE_NOT_VALUE: Final = re.compile(
    r"^\s*(?:i|we|you|they|he|she|it|from|in|at|on|to|with|for|of|by)\s*$|\s(?:is|are|was|were|'s|'re|have|has)\s|^\s*(?:my|our)\s+\w+\s+(?:is|are|'s)\b",
    I,
)
#: What follows "not" without being a value ("not my fault", "not sure", "not using Slack anymore").
_NOT_OLD_STOP: Final = (
    r"(?!(?:\w+ing|any\s*more|yet|really|sure|quite|much|bad|great|so|too|very|even|all|at\s+all|a\s+fan|for|"
    r"a\s+big\s+deal|everyone|everything|anything|anyone|today|now|always|ever|that|this|my|our|your|his|their|me|"
    r"you|him|her|them|us|only|just|necessarily|exactly|entirely)\b)"
)
#: "my niece is called Aoife, not Eva", "I have two cats, not three": a statement, then the value it replaces.
_NOT_TAIL: Final = re.compile(
    r"^(?P<stmt>.*\S)\s*,?\s+(?:and\s+)?not\s+" + _NOT_OLD_STOP + r"(?:the\s+|a\s+|an\s+|on\s+|in\s+|at\s+)?"
    r"(?P<old>(?:[\w'’.&+#:€$£-]|,(?=\d{3}))+(?:\s+[\w'’.&+#:-]+){0,3}?)\s*$",
    I,
)
#: "Sorry, ...", "Oops, ...": an apology that opens a message, which a "not X" tail makes a correction.
_APOLOGY_FIRST: Final = re.compile(r"^\W*(?:sorry|oops|whoops|apologies|my apologies)\b", I)
#: "Not Python 3.8 — we're actually on 3.11": the value replaced first, then the statement.
_NOT_HEAD: Final = re.compile(
    r"^not\s+" + _NOT_OLD_STOP + r"(?P<old>[\w'’.&+#:€$£-]+(?:\s+[\w'’.&+#:-]+){0,3}?)\s*(?:[,;:]|\s[-–—]+)\s+"
    r"(?P<stmt>\S.*)$",
    I,
)
#: A statement the correction grammar reads better than the statement grammar: "it's Y", "I meant Y".
_PRONOUN_VALUE: Final = re.compile(r"^(?:i\s+meant?|meant|it|it's|its|that|that's|she|he|they|she's|he's)\b", I)


def not_value(segment: str) -> tuple[str, str] | None:
    """(statement, replaced value) of a correcting segment that states the new value in a full clause and
    names the old one with "not" ("my flight lands at 14:20, not 16:20"; "not 3.8 — we're on 3.11"), or None
    when the segment is not of that shape or its statement is one the correction grammar reads."""
    text = strip_marker(segment).rstrip(".!")
    m = _NOT_TAIL.match(text) or _NOT_HEAD.match(text)
    if m is None:
        return None
    stmt, old = m.group("stmt").strip(" ,;:-–—"), _obj(m.group("old"))
    if old is None or not stmt or _PRONOUN_VALUE.match(stmt) is not None:
        return None
    return stmt, old


def correction_clause(segment: str, owner: str) -> list[Proto]:
    """The corrected value of one segment of a correcting message, when it is said without a clause the
    statement grammar reads: "I said X but I meant Y", "I meant Y, not X", "it's Y", "she's 7"; "X is fine"
    beside it names the value corrected ("it's cashews I'm allergic to, almonds are fine")."""
    text = strip_marker(segment).rstrip(".!")
    m = _SAID_MEANT.search(text)
    if m is not None:
        new, old = _obj(m.group("new")), _obj(m.group("old"))
        return [] if new is None else [Proto(owner, "corrected_to", new, update=True, replaces=old)]
    m = _NOT_X.search(text)
    if m is not None and _CLAUSE_NOT_VALUE.search(m.group("new")) is None:
        new, old = _obj(m.group("new")), _obj(m.group("old"))
        if new is not None and old is not None and new.lower() != old.lower():
            return [Proto(owner, "corrected_to", new, update=True, replaces=old)]
    m = _VALUE_ONLY.search(text)
    if m is not None:
        new = _obj(_CLEFT_TAIL.sub("", m.group("new")))
        if new is not None:
            fine = _FINE.search(text, m.end())
            old = _obj(fine.group("old")) if fine is not None else None
            return [Proto(owner, "corrected_to", new, update=True, replaces=old)]
    return []


#: "now I like Korean food too", "I also use Zed now": a value added, not a change (an update verb still types
#: its own claim: "I've also switched to Zed").
_ADDITION: Final = re.compile(r"\b(?:too|as well|also|in addition)\b", I)


def only_actually(text: str) -> bool:
    """Whether a correcting message is marked by nothing but its opening "Actually" ("Actually, I like coffee"):
    such a message restates a value, and where it only flips a polarity it contradicts plainly."""
    return _CORRECTING.search(text) is None and _ACTUALLY_FIRST.match(text) is not None


def mark(protos: list[Proto], segment: str, words: UpdateWords, *, correction: bool, plain: bool = False) -> None:
    """Type the claims of one segment: a correcting message's claims are corrections (updates), and a
    segment with update wording ("Relocated to Singapore, so I'm on SGT") makes its claims updates.
    ``plain``: the message is marked only by an opening "Actually" (see :func:`only_actually`)."""
    if not protos:
        return
    worded = words.cue.search(segment) is not None and _ADDITION.search(segment) is None
    cue = correction or worded
    for p in protos:
        if correction:
            p.update = True
            p.metadata["correction"] = True
            if plain and not worded:
                p.metadata["correction_marker"] = "actually"
        elif cue and not p.hedge:
            p.update = True
