"""Assistant messages: restatements of the user, commitments and completed actions.

Everything the assistant says is INFERRED (it is not the user's testimony). Three kinds of sentence
yield claims: a restatement of what the user said ("You mentioned you live in Berlin", "Noted — you're
vegetarian"), parsed with the user's statement grammar where "you" is the first person; a
commitment ("I'll send the agenda tomorrow", a TASK of subject "assistant"); and a completed action
("I've booked a table for two"). Anything else from the assistant (advice, explanations) is no claim.
"""

from __future__ import annotations

import re
from typing import Final

from extractors.rules.clauses import CLAUSE_SPLIT, LEAD_PREP, Flags, Mode, split_and_verb, strip_det
from extractors.rules.lexicon import BAD_OBJECT
from extractors.rules.proto import Proto, snake
from extractors.rules.user import ADJUNCT_START, StatementParser, action, cue_claim
from extractors.text import ACK_THIRD_PARTY, ACK_YOU_ARE, ASSISTANT_ACK
from schemas.enums import EpistemicType, NodeType

I: Final = re.IGNORECASE  # noqa: E741 - reads like a regex flag


# --- restatements of the user ---------------------------------------------------------------------

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
#: "You prefer window seats", "Your team rejected X": a fact the assistant states about the user.
_DIRECT_ATTRIBUTION: Final = re.compile(
    rf"^(?:{ASSISTANT_ACK})?"
    r"(?P<clause>(?:you|your\s+[\w-]+(?:\s+[\w-]+)?)\s+"
    r"(?!(?:could|should|might|may|can|would|will|must|need|want|'ll|'d|'re|are|were|have to|got)\b).+)$|"
    rf"^{ASSISTANT_ACK}(?P<clause2>{ACK_YOU_ARE}.+)$|"
    # after an acknowledgement, "you want to / you've been / you need to" restate the user too
    rf"^{ASSISTANT_ACK}(?P<clause4>you(?:'ve|\s+have)\s+(?!(?:got\s+this|done\s+it)\b).+|"
    r"you\s+(?:want|need|plan|intend|hope|are\s+planning|'re\s+planning)\s+to\s+.+)$|"
    rf"^{ACK_THIRD_PARTY}(?P<clause3>.+)$",
    I,
)
#: Inside a restatement, "and the/your/you ..." opens the next restated fact.
_RESTATE_AND: Final = re.compile(r",?\s+and\s+(?=(?:the|your|you)\s)", I)
#: The assistant restating the user: the user's statement grammar, with "you" as the first person.
_RESTATING: Final = StatementParser(Mode("user", attribution=True))


# --- commitments and completed actions ------------------------------------------------------------

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
_COMPLETED_TAIL: Final = re.compile(
    r",|;|\s(?:so|because|since|and I|but|which|as you|if|unless|below|above|here)\b|\.(?:\s|$)", I
)


# --- proposals ------------------------------------------------------------------------------------

#: Where an assistant sentence turns to its own commitment or completed action: ", so I'll", " — I'll", "; I've".
_ASSISTANT_JOINT: Final = re.compile(
    r"\s*(?:,|;|\s[-\u2013\u2014]+|[-\u2013\u2014]+)\s*(?:(?:so|and|then|and\s+then)\s+)?"
    r"(?=I(?:'ll|\s+will|\s+shall|'m\s+going\s+to|\s+am\s+going\s+to|'ve|\s+have)\s)",
)


def propose_assistant(seg: str) -> list[Proto]:
    """Proto claims of one segment of an assistant message."""
    if "I" in seg:
        parts = _ASSISTANT_JOINT.split(seg)
        if len(parts) > 1:
            # "You said the venue holds 80, so I'll draft a plan", "Noted — I'll send it": each part stands alone
            return [p for part in parts if part.strip() for p in _assistant_one(part.strip())]
    return _assistant_one(seg)


#: "you're opening a bakery because you love baking": the reason is a restated fact of its own.
_RESTATE_REASON: Final = re.compile(r"\s+(?:because|since)\s+(?=you(?:'re|'ve|\s)|your\s)", I)


def _restated(clause: str) -> list[Proto]:
    """Every fact of a restatement ("you keep bees, and you sell the honey"), the subject carried over."""
    reasons = _RESTATE_REASON.split(clause)
    if len(reasons) > 1:
        return [p for part in reasons for p in _restated(part)]
    if " and " not in clause and "," not in clause:
        return _RESTATING.parse(clause, None)[0]
    protos: list[Proto] = []
    subject: str | None = None
    for part in CLAUSE_SPLIT.split(clause):
        for sub in _RESTATE_AND.split(part):
            for one in split_and_verb(sub, base_ok=True):
                got, subject = _RESTATING.parse(one, subject)
                protos.extend(got)
    return protos


#: "Got it: Mochi is your shiba inu", "OK, so restoring Persian rugs is your weekend hobby": the user's thing
#: named. The name is the object; what it is of the user's is the subject.
_X_IS_YOUR: Final = re.compile(
    rf"^(?:{ASSISTANT_ACK}|(?:it\s+)?(?:sounds|seems|looks)\s+like\s+)(?:so,?\s+)?(?P<x>(?!(?:you|it|this|that|there)\b)"
    r"[^,;:]{1,60}?)\s+(?:is|are)\s+(?:now\s+)?your\s+(?P<what>[\w-]+(?:\s+[\w-]+){0,3}?)"
    r"(?=\s+(?:and|for|into|to|now|then)\b|[.,;!]|$)(?P<tail>.*)$",
    I,
)


def _x_is_your(seg: str) -> list[Proto]:
    m = _X_IS_YOUR.match(seg)
    if m is None:
        return []
    x = strip_det(m.group("x").strip())
    if not x or x.lower() in BAD_OBJECT:
        return []
    out = [Proto(f"user's {m.group('what').lower()}", "is", x, NodeType.FACT, epistemic=EpistemicType.INFERRED)]
    tail = re.sub(r"^[,\s]*and\s+", "", m.group("tail"), flags=I).strip()
    if tail.lower().startswith("you"):
        out.extend(p for p in _restated(tail) if p.subject != "assistant")
        for p in out:
            p.epistemic = EpistemicType.INFERRED
    return out


def _assistant_one(seg: str) -> list[Proto]:
    """A restatement, else a commitment, else a completed action; anything else is no claim."""
    named = _x_is_your(seg)
    if named:
        return named
    m = _ATTRIBUTION.search(seg)
    if m is None:
        m = _DIRECT_ATTRIBUTION.match(seg)
    if m is not None:
        found = m.groupdict()
        clause = (found.get("clause") or found.get("clause2") or found.get("clause3") or found.get("clause4")
                  or found.get("sub") or "")
        protos = _restated(clause)
        for p in protos:
            p.epistemic = EpistemicType.INFERRED
        return [p for p in protos if p.subject != "assistant"]
    m = _COMMITMENT.match(seg)
    if m is not None:
        body = m.group("body")
        km = _KEEP_WATCH.match(body)
        # "I'll keep an eye on the shipment": the watched thing is the object, not "eye"
        act = (snake("will_keep", km.group("how"), km.group("prep")), body[km.end() :]) if km else action(
            body, "will")
        if act is None:
            return []
        protos = cue_claim("assistant", act, Flags(), NodeType.TASK)
        # "I'll continue": with any verb allowed, a commitment must name what it is about
        return [p for p in protos if p.object is not None]
    m = _COMPLETED.match(seg)
    if m is not None:
        said = m.group("rest").strip()
        rest = re.sub(r"^(?:you|it)\s+(?=\S)", "", said, flags=I)
        if said[:3].lower() == "it " and (ADJUNCT_START.match(rest) or LEAD_PREP.match(rest)):
            return []  # "I booked it for Friday": what was booked is named in an earlier message
        if re.search(r"\b(?:below|above)\b", rest, I):
            return []  # "I've summarised the risks below": describes this very message
        # A completed action keeps its whole complement ("a table for two at Cantina 31 on Friday"):
        # the details are the point, and the quote check still ties every word to the source.
        tail = _COMPLETED_TAIL.search(rest)
        full = strip_det(rest[: tail.start()] if tail else rest).strip().rstrip(".!")
        obj = full if full and len(full.split()) <= 12 and full.lower() not in BAD_OBJECT else None
        if obj is None:
            return []
        return [Proto("assistant", snake(m.group("verb")), obj, NodeType.FACT)]
    return []
