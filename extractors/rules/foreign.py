"""A few first-person statements in German, French and Spanish: the tools a speaker uses.

The rule grammar is English. Admission already masks credentials said in these three languages
("Passwort ist ...", "mot de passe est ...", "contraseña es ..."), so a speaker who names where their
passwords live in one of them ("Ich speichere meine Passwörter in Proton Pass", "Mi gestor de
contraseñas es Dashlane") should keep that fact, as the English sentence does. Only plain statements
are read: a clause with a negation, a hedge, a condition or a question yields nothing (the English
validation's hedge and negation words do not cover these languages).
"""

from __future__ import annotations

import re
from typing import Final

from extractors.rules.proto import Proto
from schemas.enums import NodeType

I: Final = re.IGNORECASE  # noqa: E741 - reads like a regex flag

#: A product name: capitalised or digit-led words (Proton Pass, KeePassXC, 1Password), at most three.
_PRODUCT: Final = r"(?P<obj>(?-i:[A-Z0-9][\w.+-]*)(?:\s+(?-i:[A-Z0-9][\w.+-]*)){0,2})"
_END: Final = r"(?=\s*(?:[.,;!]|$|\s+(?:für|seit|zum|zur|pour|depuis|para|desde|y|et|und)\b))"

_PASSWORDS: Final = r"(?:passw(?:ö|oe)rter|kennw(?:ö|oe)rter|zugangsdaten|mots\s+de\s+passe|contraseñas|claves)"
_MANAGER: Final = (
    r"(?:passwort-?manager|kennwort-?manager|gestionnaire\s+de\s+mots\s+de\s+passe|"
    r"gestor\s+de\s+contraseñas|administrador\s+de\s+contraseñas)"
)

_SINCE: Final = r"(?:(?:schon\s+)?seit|depuis)\s+\w+(?:\s+\w+)?\s+"

#: (pattern, predicate): the speaker's use of a product, or their password manager.
_FORMS: Final = (
    # Ich nutze / benutze / verwende X; J'utilise X; (Yo) uso / utilizo X
    (re.compile(rf"^(?:ich\s+)?(?:nutze|benutze|verwende)\s+(?:{_SINCE})?{_PRODUCT}{_END}", I), "uses"),
    (re.compile(rf"^j(?:['\u2019]\s?|e\s+)utilise\s+(?:{_SINCE})?{_PRODUCT}{_END}", I), "uses"),
    (re.compile(rf"^(?:yo\s+)?(?:uso|utilizo)\s+{_PRODUCT}{_END}", I), "uses"),
    # Ich speichere meine Passwörter in X; Je garde mes mots de passe dans X; Guardo mis contraseñas en X
    (re.compile(rf"^ich\s+(?:speichere|verwalte|sichere|habe)\s+(?:alle\s+)?meine\s+{_PASSWORDS}"
                rf"\s+(?:in|mit|bei|im)\s+{_PRODUCT}{_END}", I), "uses"),
    (re.compile(rf"^je\s+(?:stocke|garde|range|gère|sauvegarde|mets)\s+(?:tous\s+)?mes\s+{_PASSWORDS}"
                rf"\s+(?:dans|avec|sur)\s+{_PRODUCT}{_END}", I), "uses"),
    (re.compile(rf"^(?:yo\s+)?(?:guardo|almaceno|gestiono)\s+(?:todas\s+)?mis\s+{_PASSWORDS}"
                rf"\s+(?:en|con)\s+{_PRODUCT}{_END}", I), "uses"),
    # Wir haben jetzt alle Zugangsdaten in X; J'ai migré de Y vers X; Las contraseñas del trabajo las guardo en X
    (re.compile(rf"^(?:wir|ich)\s+(?:haben|habe|hab)\s+(?:jetzt\s+|nun\s+|seit\s+\w+\s+)?(?:alle\s+)?"
                rf"(?:unsere\s+|meine\s+)?{_PASSWORDS}\s+(?:in|bei|im)\s+{_PRODUCT}{_END}", I), "uses"),
    (re.compile(rf"^j(?:['\u2019]\s?|e\s+)(?:ai|suis)\s+(?:enfin\s+|finalement\s+|d[ée]j[àa]\s+)?"
                rf"(?:migr[ée]|pass[ée]|chang[ée])\s+(?:de\s+[\w.+-]+(?:\s+[\w.+-]+)?\s+)?(?:vers|[àa]|pour|sur)\s+"
                rf"{_PRODUCT}{_END}", I), "uses"),
    (re.compile(rf"^(?:las|mis)\s+{_PASSWORDS}(?:\s+(?:del?|de\s+la)\s+\w+)?\s+las\s+(?:guardo|tengo|gestiono|"
                rf"almaceno)\s+en\s+{_PRODUCT}{_END}", I), "uses"),
    # Mein Passwortmanager ist X; Mon gestionnaire de mots de passe est X; Mi gestor de contraseñas es X
    (re.compile(rf"^(?:mein|mon|mi)\s+{_MANAGER}\s+(?:ist|est|c'est|es)\s+{_PRODUCT}{_END}", I), "password_manager"),
)

#: Negation, hedges, conditions and questions in the three languages: such a clause is not read.
_NOT_PLAIN: Final = re.compile(
    r"\b(?:nicht|kein\w*|nie|niemals|vielleicht|wahrscheinlich|eventuell|glaube|wenn|falls|ob|"
    r"ne|n['\u2019]|pas|jamais|plus|peut-être|probablement|si|quand|crois|"
    r"no|nunca|jamás|quizás?|tal\s+vez|probablemente|cuando|creo)\b|\?",
    I,
)

_CLAUSE_END: Final = re.compile(r"[,;.!]|\s[-\u2013\u2014]\s")
#: First words of the clauses above (a cheap test before the patterns).
_OPENERS: Final = frozenset({
    "ich", "nutze", "benutze", "verwende", "je", "yo", "uso", "utilizo", "guardo", "almaceno", "gestiono", "mein",
    "mon", "mi", "wir", "las", "mis",
})
#: What may open a message before its clause: a short label with a colon ("kurze info:"), a filler
#: word with a comma ("bon,", "pues,", "also,").
_LEAD: Final = re.compile(
    r"^(?:[\w'-]+(?:\s+[\w'-]+){0,2}\s*:\s+|(?:bon|alors|bref|donc|also|ok|okay|übrigens|pues|bueno|vale|"
    r"btw|fyi)\s*,?\s+)+",
    I,
)


def foreign_statement(text: str, owner: str) -> list[Proto]:
    """The claims of one clause in German, French or Spanish (see the module docstring); [] otherwise."""
    t = _LEAD.sub("", text.strip(), count=1)
    first = t.split(" ", 1)[0].lower() if t else ""
    if first not in _OPENERS and not first.startswith(("j'", "j\u2019")):
        return []
    if "?" in t:
        return []
    for pattern, predicate in _FORMS:
        m = pattern.match(t)
        if m is not None:
            # the clause read, to its end: a negation or hedge in a later clause ("…, no me preguntes por
            # qué") is that clause's own
            end = _CLAUSE_END.search(t, m.end())
            if _NOT_PLAIN.search(t[: end.start() if end else len(t)]) is not None:
                return []
            return [Proto(owner, predicate, m.group("obj"), NodeType.FACT)]
    return []
