"""System prompts: identities, policies and standing instructions.

A system prompt speaks to the assistant, so "you"/"your" are the assistant ("Your name is Tui"), its
"should" is a rule and only lasting, present-tense statements are facts. Beyond the shared statement
grammar it has its own clause kinds: "You are X" identities, "This workspace belongs to X",
policies whose subject is a modified noun phrase ("Refunds over $500 must be approved by ..."), and
instructions given without a marker word ("Answer in French", "Responses must cite sources").
"""

from __future__ import annotations

import re
from typing import Final

from extractors.rules.clauses import consume_aux
from extractors.rules.proto import Proto
from extractors.rules.user import (
    IMPERATIVE,
    StatementParser,
    instruction,
    marked_instruction,
    polite_instruction,
    strip_vocative,
)

I: Final = re.IGNORECASE  # noqa: E741 - reads like a regex flag


# --- identities and policies ----------------------------------------------------------------------

_YOU_ARE: Final = re.compile(
    r"^you are (?:(?:the|an?)\s+)?(?P<obj>(?!(?:not|going|able|allowed|free|welcome|here)\b)[\w][^,;]{0,80}?)"
    r"(?:,|\.(?:\s|$)|;|$)",
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


# --- instructions ---------------------------------------------------------------------------------

#: Operating instructions in system prompts: "You must ...", "Responses should ...", "You may share ...".
_SYSTEM_MODAL: Final = re.compile(
    r"^(?:you|(?:your\s+|all\s+|the\s+)?(?:responses|answers|replies|messages|outputs?|summaries)|the assistant|"
    r"assistant)\s+(?:must|should|will|shall|may|can|are to|need to|have to)\s+(?P<n>not\s+|never\s+)?"
    r"(?:always\s+)?(?P<b>.+)$",
    I,
)


def system_instruction(t: str) -> Proto | None:
    """An instruction in a system prompt: marked ones as a user's, and also a bare imperative or a modal."""
    t = strip_vocative(t)
    found = marked_instruction(t)
    if found is None and IMPERATIVE.match(t):
        found = t, False
    if found is None:
        found = polite_instruction(t)
    if found is None:
        ms = _SYSTEM_MODAL.match(t)
        if ms is not None:
            found = ms.group("b"), ms.group("n") is not None
    return instruction(*found) if found is not None else None


# --- the system prompt's parser -------------------------------------------------------------------


class SystemParser(StatementParser):
    """A system prompt's clauses."""

    speaks_policy = True

    def _lead(
        self, t: str, inherited: str | None, hedge: bool, flip: bool, update_cue: bool
    ) -> tuple[list[Proto], str | None] | None:
        ym = _YOU_ARE.match(t)
        if ym is not None:
            return [Proto("assistant", "is", ym.group("obj").strip())], inherited
        instr = system_instruction(t)
        if instr is not None:
            instr.hedge = instr.hedge or hedge
            return [instr], inherited
        if (pp := _PP_SUBJECT.match(t)) is not None:
            # "Datasets in this project are released under ...", "Refunds over $500 must be approved by ...":
            # the subject is the whole modified noun phrase
            rest, flags = consume_aux(pp.group("rest"))
            return self._predicate(pp.group("np"), rest, flags), pp.group("np")
        tm = _SYSTEM_THIS.match(t)
        if tm is not None:
            # "This workspace belongs to X", "This assistant serves Y": identity of the deployment
            what = tm.group("what").lower()
            deployment = "assistant" if what in ("assistant", "bot", "agent") else what
            rest, flags = consume_aux(tm.group("rest"))
            return self._predicate(deployment, rest, flags), deployment
        return self._attribute_clause(t, inherited, hedge, flip)
