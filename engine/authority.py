"""Memory is context, never authority (TRUST-FACTS §7): which claims would grant authority.

A remembered "you may deploy to prod" must never become a permission an agent finds in memory and
acts on, so a claim that would grant authority (a permission, an authorisation, an access grant, a
delegation, production access, a payment or spending approval) is refused at ingestion with the
reason ``authority_grant``; nothing in epistream reads memory to authorise anything. Mentions of
security tools and policies ("my password manager is 1Password", "our key rotation policy is 90
days") are ordinary claims: they say what is used, and grant nothing.

The patterns are data (``GRANT_FORMS``, ``OUTRIGHT_GRANTS``, ``AGENT_ADDRESSEE``,
``OPERATIONAL``): a grant form ("allowed to", "has access", "can deploy", "delegate") counts when it
addresses the assistant (an agent, "you" in a person's message) or an operational domain
(production, payments, credentials, admin rights); an outright grant (admin access, "authorise
payments", a spending approval with a limit) counts whoever it names.
"""

from __future__ import annotations

import re
from typing import Final

#: A pattern with the substrings one of which its match must contain: the cheap test that keeps the
#: expressions off the many claims that cannot match (validation runs this on every claim). Texts are
#: lower-cased once, so the expressions need no case folding.
Form = tuple[str, tuple[str, ...], re.Pattern[str]]

#: A permission, access or delegation phrased as a standing grant.
GRANT_FORMS: Final[tuple[Form, ...]] = (
    ("delegation", ("delegat", "hand", "behalf"),
     re.compile(r"\b(delegat(e|es|ed|ing)|hand(ing|ed)?\s+over)\b|\bon\s+my\s+behalf\b")),
    ("permission", ("allowed", "permitted", "authori", "entitled", "cleared", "free"),
     re.compile(r"\b(allowed|permitted|authori[sz]ed|entitled|cleared|free)\s+to\b")),
    ("access_grant", ("permission", "access", "authori", "clearance", "rights", "privileges", "keys"),
     re.compile(r"\b(have|has|had|got|get|gets|give|gives|giving|gave|grant|grants|granted|granting)\b[^.!?\n]{0,40}?"
                r"\b(permission|permissions|access|authori[sz]ation|clearance|rights|privileges|the\s+keys)\b")),
    ("access_grant", ("permission", "authori", "go-ahead", "green"),
     re.compile(r"\b(permission|authori[sz]ation|go-ahead|green\s+light)\s+to\b")),
    ("permission", ("may", "can", "could", "free", "ahead"),
     re.compile(r"\b(may|can|could|feel\s+free\s+to|go\s+ahead\s+and)\s+(now\s+|also\s+|always\s+)?"
                r"(deploy|push|merge|release|ship|spend|pay|buy|purchase|order|transfer|wire|approve|sign|delete|drop|"
                r"refund|charge|access|log\s+in|use\s+my)\b")),
)  # fmt: skip

#: Grant forms that count only when they address the assistant: "allow users to export CSV" in a
#: product's instructions describes the product, "I allow you to merge" grants the assistant.
AGENT_GRANT_FORMS: Final[tuple[Form, ...]] = (
    ("permission", ("allow", "permit", "authori"),
     re.compile(r"\b(allow|allows|permit|permits|authori[sz]e|authori[sz]es)\s+(you|the\s+\w+|\w+)\s+to\b")),
)  # fmt: skip

#: Grants whoever they name: privileged access, payment authorisations, approvals with a limit.
OUTRIGHT_GRANTS: Final[tuple[Form, ...]] = (
    ("production_access", ("access", "rights", "privileges", "permission"),
     re.compile(r"\b(admin|administrator|root|sudo|superuser|write|full|production|prod)\s+"
                r"(access|rights|privileges|permissions?)\b")),
    ("payment_approval", ("authori", "approv"),
     re.compile(r"\b(authori[sz]e|authori[sz]es|authori[sz]ed|authori[sz]ing|pre-?approve[sd]?|approve[sd]?)\b"
                r"[^.!?\n]{0,40}?"
                r"\b(payments?|spending|purchases?|transfers?|charges?|refunds?|expenses?|transactions?|invoices?)\b"
                r"[^.!?\n]{0,20}?\b(up\s+to|under|below|less\s+than|of\s+up\s+to|without)\b")),
    ("payment_approval", ("authori",),
     re.compile(r"\b(authori[sz]e|authori[sz]es|authori[sz]ing)\s+(all\s+|any\s+)?"
                r"(payments?|spending|purchases?|transfers?|charges?|refunds?|transactions?)\b")),
    ("payment_approval", ("approv",), re.compile(r"\bpre-?approv")),
)  # fmt: skip

#: The grant addresses the assistant: "you" in a person's message, or a named agent.
AGENT_ADDRESSEE: Final = re.compile(
    r"\b(you|you're|youre|your|yourself|u|bot|the\s+bot|assistant|the\s+assistant|agent|the\s+agent|ai|copilot)\b"
)
#: Domains where a grant is operational authority, whoever holds it.
OPERATIONAL: Final = re.compile(
    r"\b(prod|production|deploy\w*|admin|root|sudo|superuser|payments|spending|purchases|transfers?|refunds?|bank|"
    r"card|wallet|credentials?|passwords?|api\s+keys?|secrets?|contracts?|servers?|database|repo|repository|"
    r"main\s+branch|billing|invoices?|expenses?|funds)\b|\$\s?\d"
)


def _match(forms: tuple[Form, ...], low: str) -> str | None:
    for kind, needs, pattern in forms:
        if any(n in low for n in needs) and pattern.search(low):
            return kind
    return None


def authority_grant(
    subject: str, predicate: str, obj: str | None, text: str | None, *, negative: bool = False
) -> str | None:
    """The kind of authority a claim would grant (``permission``, ``access_grant``, ``delegation``,
    ``production_access``, ``payment_approval``), or None for an ordinary claim.

    A negative claim ("nobody in the club has write access") denies authority and grants none.

    ``text`` is the claim's own passage (its sentence run); the triple is read as words too, so a
    claim without a passage is judged by what it says.
    """
    if negative:
        return None
    triple = f"{subject} {predicate.replace('_', ' ')} {obj or ''}"
    for candidate in (triple, text or ""):
        low = candidate.lower()
        kind = _match(OUTRIGHT_GRANTS, low)
        if kind is not None:
            return kind
        kind = _match(GRANT_FORMS, low)
        if kind is not None and (AGENT_ADDRESSEE.search(low) or OPERATIONAL.search(low)):
            return kind
        kind = _match(AGENT_GRANT_FORMS, low)
        if kind is not None and AGENT_ADDRESSEE.search(low):
            return kind
    return None
