"""Credentials written as sentences, in English, German, French, Spanish (and Italian, Portuguese).

"The password for my home router is Copper-Kettle-77!", "Bank card PIN is 4821", "door code
7731#", "das Kennwort lautet „Zugspitze_2962!“", "le mot de passe est …", "la contraseña es …",
"creds: deploy / Hunter2-Bravo", "the vault passphrase: lemon river stone 42" (a passphrase is
masked to the end of its clause), "2fa backup codes: 8311-4420 5592-0183 …".

A credential word is only a label when something *gives* its value: a connector (is, =, :, ist,
lautet, est, es, è, é …), possibly after a complement ("for my home router", "für den Router",
"du NAS", "del banco"), or a parenthesis, or a value that could only be a secret right after the
word ("password Hunter2-Tango!", "PIN 0612"). Compounds whose head is another noun are not labels
("password manager", "token budget", "API key rotation policy", "PIN-pad"), nor are plurals
("passwords must be 14 characters"), nor values that are words of the sentence ("my password is
stored in KeePassXC").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

Span = tuple[int, int, str]

# ---------------------------------------------------------------- credential words, by what they label
_PASSWORD_WORDS: Final = (
    r"(?:wi-?fi\s+|wlan[\s-]?|admin(?:istrator)?\s+|root\s+|master\s+|login\s+|account\s+|app\s+|user\s+)?"
    r"(?:password|passwd|pwd|pw|passcode|pass\s+code|wifi\s+key|wi-fi\s+key|network\s+key|wpa2?\s+key|"
    r"pre-?shared\s+key|psk)"
    r"|passwort|kennwort|wlan-schlüssel|wlan-key|geheimwort"
    r"|mot\s+de\s+passe|mdp|cl[ée]\s+(?:wifi|wi-fi|wpa2?)"
    r"|contraseñ?a|contrasena|clave"
    r"|parola\s+d['’]ordine|chiave\s+(?:wifi|wi-fi)"
    r"|senha|palavra-passe"
)
_PASSPHRASE_WORDS: Final = (
    r"(?:master\s+|vault\s+|secret\s+)?pass\s?phrase|seed(?:\s+phrase)?|recovery\s+phrase|secret\s+phrase|"
    r"mnemonic(?:\s+phrase)?|phrase\s+secr[èe]te|frase\s+(?:semilla|de\s+recuperaci[óo]n)|"
    r"wiederherstellungsphrase|merksatz"
)
_CODE_WORDS: Final = (
    r"(?:(?:bank\s+)?card\s+|sim\s+|phone\s+|debit\s+|credit\s+|atm\s+)?pin(?:\s+(?:code|number))?|"
    r"(?:card['’]?s\s+)?secret\s+number|"
    r"pin-(?:code|nummer|nr\.?|number)|puk|geheimnummer|code\s+confidentiel|(?:karten|bank|handy|sim|ec)-?pin|"
    r"(?:(?:door|gate|locker|lockbox|lock\s+box|key\s+box|keybox|alarm|disarm|access|entry|security|pickup|"
    r"pick-up|garage|building|keypad|safe|bike(?:\s+lock)?|padlock|lock|unlock|house|front\s+door|back\s+door|"
    r"intercom|buzzer|wifi|wi-fi|gym|office)\s+)+code|"
    r"code(?:\s+(?:wifi|wi-fi|d['’]acc[èe]s|de\s+la\s+porte|porte|pin|secret|d['’]entr[ée]e))?|"
    r"combination|combo|lock\s+combination|key\s?code|keypad|lock\s?box|key\s?safe|key\s?box|"
    r"türcode|zugangscode|zahlencode|geheimzahl|alarmcode|tor-?code|"
    r"c[óo]digo(?:\s+(?:pin|de\s+(?:acceso|la\s+puerta|seguridad|desbloqueo)))?|codice(?:\s+(?:pin|di\s+accesso))?|"
    r"digicode"
)
_OTP_WORDS: Final = (
    r"one[\s-]time\s+(?:code|password|passcode|pin)|otp(?:\s+code)?|2fa(?:\s+code)?|mfa(?:\s+code)?|totp(?:\s+code)?|"
    r"verification\s+code|confirmation\s+code|login\s+code|sign-?in\s+code|auth(?:entication)?\s+code|"
    r"sms\s+code|security\s+code|(?:2fa\s+|mfa\s+|authenticator\s+|totp\s+)?setup\s+key|authenticator\s+(?:key|secret)|"
    r"(?:2fa|mfa|totp)\s+secret|best[äa]tigungscode|verifizierungscode|sicherheitscode|einmalcode|"
    r"code\s+de\s+(?:v[ée]rification|confirmation|s[ée]curit[ée])|c[óo]digo\s+de\s+(?:verificaci[óo]n|confirmaci[óo]n)"
)
_CODE_LIST_WORDS: Final = (
    r"(?:2fa\s+|mfa\s+|google\s+|github\s+)?(?:backup|recovery|scratch|emergency|rescue)\s+codes|"
    r"(?:2fa|mfa|one-time)\s+codes|backup-codes|wiederherstellungscodes|notfallcodes|codes\s+de\s+(?:secours|"
    r"r[ée]cup[ée]ration)|c[óo]digos\s+de\s+(?:respaldo|recuperaci[óo]n|seguridad)"
)
_TOKEN_WORDS: Final = (
    r"(?:api|access|auth|bearer|session|refresh|bot|personal\s+access|deploy|registration|oauth|app|id|service|"
    r"integration|webhook|signing|secret|private|master|encryption|client|license|account|admin|root|ci|"
    r"runner|github|gitlab|slack|discord|stripe|aws|azure|gcp)\s+(?:token|key|secret)|token|secret|"
    r"client\s+secret|secret\s+key|signing\s+key|private\s+key|encryption\s+key|master\s+key|webhook\s+secret|"
    r"api-?key|apikey|jeton|clé(?:\s+(?:api|secr[èe]te|priv[ée]e))?|schlüssel|api-schlüssel|llave|chiave"
)
_CREDS_WORDS: Final = (
    r"creds|credentials|login(?:\s+(?:details|info))?|logins|account|user(?:name)?|benutzer(?:name)?|"
    r"wi-?fi|wlan|ssid|network|netzwerk|réseau|"
    r"zugangsdaten|anmeldedaten|identifiants?|usuario|credenciales|acceso|credenziali|utente|credenciais"
)

_KINDS: Final = (
    ("passphrase", _PASSPHRASE_WORDS),
    ("otp", _OTP_WORDS),
    ("code_list", _CODE_LIST_WORDS),
    ("password", _PASSWORD_WORDS),
    ("pin", _CODE_WORDS),
    ("token", _TOKEN_WORDS),
)
_KEYWORD: Final = re.compile(
    r"(?i)(?<![\w@./])(?:" + "|".join(f"(?P<{k}>{w})" for k, w in _KINDS) + r")(?!\w|-(?!\d))"
)
#: "SSID HomeNet pass Kastanie-2019": ``pass`` right before a value that can only be a password.
_PASS_DIRECT: Final = re.compile(r"(?i)(?<![\w@./-])(?:pass|kennung|clave)[ \t]+(?=\S*\d)(?=\S*[A-Za-z])")
_PASS_LABEL: Final = re.compile(r"(?i)(?<![\w@./-])pass(?=\s*[:=]|\s+(?:is|was)\s)")

#: Head nouns after a credential word: the compound is about something else.
_HEAD_NOUN: Final = re.compile(
    r"(?i)^[\s-]*(?:managers?|policy|policies|rules?|requirements?|reset|resets|length|hint|strength|change|"
    r"changes|expiry|expiration|generator|field|fields|prompt|protection|protected|less|free|rotation|budget|"
    r"budgets|limit|limits|count|counts|usage|cost|costs|window|pad|pads|badge|badges|board|collection|"
    r"collector|number\s+of|ids?\b|name|names|type|types|format|rotation|ring|store|stores|vault|vaults|"
    r"file\s+path|holder|holders|ingredient|sauce|recipe|garden|agent|service|santa|sharing|handling|"
    r"management|gestor|gestionnaire|verwaltung|safe\b(?!\s+code)|spec|doc|docs|page|screen|dialog|form|"
    r"input|box\b(?!\s+code)|reader|entry\s+field|keeper|app\b|application|tool|tools|bucket|refresh|"
    r"exchange|endpoint|url|server|lifetime|ttl|expires?|scopes?|permissions?|access\s+level|owner|cache|"
    r"store|stores|storage|is\s+(?:stored|saved|kept|managed|in)\b|manager-|"
    r"mac(?:\s+address)?\b|ip(?:\s+address)?\b|address|adapter|chip|router|signal|speed|band|channel|extender|"
    r"settings?\b|coverage|dongle)"
)
_BEFORE_NOT_LABEL: Final = re.compile(
    r"(?i)(?:gestor\s+de|gestionnaire\s+de|manager\s+for|zip|post(?:al)?|area|country|status|error|exit|return|"
    r"response|http|source|product|discount|promo|coupon|airport|bar|qr|colou?r|language|currency|dial(?:ing)?|"
    r"iso|tracking|tax|sku|item|article|part|model|program(?:me)?|zone|city|branch|sort|routing|swift|bic|ean|"
    r"upc|vat|course|class|morse|dress|source|machine|byte|op|short|reference|booking|order|invite|invitation|"
    r"referral|voucher|gift|redeem|promotion|cheat|secret\s+santa|the\s+secret\s+(?:to|of|is\s+to))[\s-]+$"
)
#: Words before a credential word that usually mean no value follows ("forgot my password", "a new
#: PIN", "without a token"): the word is then a label only when a connector names its value ("new pin
#: after the reset: 9034", "I reset my PIN to 8264"), never by a value merely standing next to it.
_BEFORE_WEAK_LABEL: Final = re.compile(
    r"(?i)(?:no|without|forgot(?:ten)?\s+(?:my|the|your)|reset\s+(?:my|the|your)|change\s+(?:my|the|your)|"
    r"new)[\s-]+$"
)

# ---------------------------------------------------------------- what follows the word
_PREP: Final = (
    r"for|of|to|on|at|from|in|into|with|chez|"
    r"für|fürs|zum|zur|vom|von|des|der|im|am|bei|"
    r"pour|du|de|de\s+la|des|d['’]|au|aux|"
    r"del|de|para|en|"
    r"della|dello|di|per|nel|"
    r"do|da|dos|das|no|na|"
    r"meiner|meines|deiner|deines|seiner|ihrer|unserer|eurer"
)
_CONNECTOR: Final = (
    r"(?:(?<![\wÀ-ÿ])(?:(?:(?:is|was|has\s+been|is\s+now|got|been)\s+)?(?:set|changed|reset|updated|switched)\s+to|"
    r"is|was|are|will\s+be|should\s+be|would\s+be|has\s+been|is\s+now|is\s+still|now\s+is|became|being|"
    r"ist|lautet|war|wäre|ist\s+jetzt|heißt|"
    r"est|c['’]est|était|sera|"
    r"es|era|será|sería|"
    r"è|e['’]|sarà|"
    r"é|foi)(?![\wÀ-ÿ])|['’]s(?![\w])|=|:=|:|->|→|=>|—|–|-(?=[ \t]))"
)
#: The same connectors without "'s": after a complement that holds a possessive ("the pin for mum's card
#: is 5521"), the "'s" is the owner's, not "is".
_CONNECTOR_NO_POSSESSIVE: Final = _CONNECTOR.replace(r"|['’]s(?![\w])", "")
#: Words between a connector and the value: "is literally hunter2", "es el 4821", "c'est le 1234".
_FILLER: Final = re.compile(
    r"(?i)(?:(?:just|simply|literally|actually|basically|still|now|currently|always|einfach|immer\s+noch|jetzt|"
    r"simplement|toujours|solo|sólo|ahora|siempre|ainda|ancora|el|la|le|il|lo|o|los|las|the)[ \t]+)+"
    r"(?=\S)"
)
#: Connectors after which a language puts adjectives behind the noun ("mot de passe administrateur
#: du NAS est", "la contraseña maestra es"): one such word may stand between the noun and the rest.
_ROMANCE: Final = r"(?:est|es|è|é|ist|lautet|c['’]est|était|era)(?![\wÀ-ÿ])"
#: adjective, complement (non-greedy), then a connector: "for my home router is", "fürs Firmen-VPN:",
#: "administrateur du NAS est".
_COMPLEMENT_CONNECTOR: Final = re.compile(
    rf"(?i)(?:\s+[A-Za-zÀ-ÿ-]+(?=\s+(?:{_PREP})\s[^\n:=.!?()]{{0,48}}?\s{_ROMANCE}|\s+{_ROMANCE}))?"
    rf"(?:\s+(?:{_PREP})\s*[^\n:=.!?()]{{0,48}}?)?"
    rf"\s*(?:\([^()\n]{{1,40}}\))?[ \t]*{_CONNECTOR}[ \t]*"
)
_COMPLEMENT_POSSESSIVE: Final = re.compile(
    rf"(?i)(?:\s+(?:{_PREP})\s*[^\n:=.!?()]{{0,48}}?['’]s\b[^\n:=.!?()]{{0,24}}?)"
    rf"\s*(?:\([^()\n]{{1,40}}\))?[ \t]*{_CONNECTOR_NO_POSSESSIVE}[ \t]*"
)
#: A relative clause between the word and its connector: "the atm pin i set today is 1147", "the
#: PIN I use for everything is 0000", "the password that we picked was …".
_RELATIVE_CONNECTOR: Final = re.compile(
    r"(?i)\s+(?:(?:that|which)\s+)?(?:i|we|you|he|she|they|my\s+\w+|the\s+\w+)\s+(?:[\w'’-]+\s+){0,5}?"
    r"(?:is|was|will\s+be|has\s+been|is\s+now)(?![\w])[ \t]*(?::[ \t]*)?"
)
#: The value answering the word's own question: "my card pin? it's 1379".
_ANSWER: Final = re.compile(
    r"(?i)\s*\?+[ \t]*(?:(?:it['’]?s|it\s+is|that['’]s|es|c['’]est|ist\s+es|sie\s+ist)[ \t]+(?::[ \t]*)?)?"
)
#: A code read out digit by digit in words: "four eight two one", "zero-six one two".
_SPELLED_DIGITS: Final = re.compile(
    r"(?i)(?:(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)[ \t-]+){3,}"
    r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)\b"
)
#: A code said as a number in words: "forty eight twenty one", "nineteen eighty four" (a tens or teens word).
_NUMBER_WORDS: Final = (
    r"zero|oh|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fourty|fifty|sixty|seventy|eighty|ninety|hundred"
)
_SPELLED_NUMBER: Final = re.compile(rf"(?i)(?:(?:{_NUMBER_WORDS})[ \t-]+)+(?:{_NUMBER_WORDS})\b")
_TENS: Final = re.compile(r"(?i)teen|ty\b|\bten\b|eleven|twelve|hundred")
#: Further codes after the first: "PIN for both cards: 4821 and 1184", "pins 1234, 5678".
_MORE_CODES: Final = re.compile(
    r"(?i)[ \t]*(?:,|&|/|\band\b|\bor\b|\bund\b|\bet\b|\by\b)[ \t]*(?P<v>\d{3,8})(?![\w-])"
)
_CHANGED_TO: Final = re.compile(r"(?i)\b(?:changed|set|reset|updated|switched|geändert|changé|cambiado|cambiata)\b")
#: "changed the pin to …", "set the pin on the new card as …": an optional complement, then the value's word.
_TO: Final = re.compile(r"(?i)(?:\s+(?:for|on|of|at)\s[^\n:=.!?()]{0,40}?)?\s+(?:to|as|auf|en|a|à|in)\s+")
_DIRECT: Final = re.compile(r"[ \t]*(?:#|no\.?|nr\.?)?[ \t]*")
_PAREN: Final = re.compile(r"[^\n()`]{0,60}?[(`]\s*")
_APPOSITIVE: Final = re.compile(rf"(?i)(?:\s+(?:{_PREP})\s+[^\n,]{{0,40}}?|\s+[^\n,.:;]{{1,40}}?)?,\s*")
_COLON_LATER: Final = re.compile(r"[^\n:=]{0,70}?:\s*")

_OPEN_QUOTE: Final = "\"'‘“„«`‹"
_CLOSE_FOR: Final = {'"': "\"”“", "'": "'’", "‘": "’'", "“": "”“\"", "„": "“”\"", "«": "»", "`": "`", "‹": "›"}
_TOKEN: Final = re.compile(r"[^\s]+")
_SPACED: Final = re.compile(r"(?:(?:[^\s] ){4,}[^\s]|(?:\d ){3,}\d)(?=\s*(?:$|\n|[.,;)!?#*]|\s+\w))")
_GROUPS: Final = re.compile(
    r"(?:[A-Z0-9]{3,8}[ -]){2,}[A-Z0-9]{3,8}\b|\d{3}[ -]\d{3}\b|\d{2}[ .]\d{2}(?:[ .]\d{2})?\b"
)
_TRAIL: Final = ".,;:)]}>\"'”’»…"
_CLAUSE_END: Final = re.compile(r"\n|[.;!?](?=\s|$)|\s[—–-]\s|,\s|\s\(|$")

#: Words that follow a credential word without being its value ("my password is stored in ...").
_STOPWORDS: Final = frozenset(
    [
        "is", "was", "are", "be", "been", "being", "the", "a", "an", "my", "your", "his", "her", "our", "their",
        "this", "that", "these", "those", "it", "its", "in", "on", "at", "of", "for", "to", "from", "with", "by",
        "and", "or", "but", "not", "no", "never", "also", "still", "now", "just", "only", "very", "too", "so",
        "same", "different", "correct", "incorrect", "wrong", "right", "invalid", "valid", "expired", "expiring",
        "weak", "strong", "long", "short", "secure", "insecure", "safe", "unsafe", "required", "needed", "optional",
        "stored", "saved", "kept", "written", "managed", "set", "changed", "reset", "updated", "rotated",
        "generated", "encrypted", "hashed", "hidden", "shared", "sent", "attached", "below", "above", "here",
        "there", "somewhere", "missing", "empty", "blank", "sensitive", "case-sensitive", "unknown", "forgotten",
        "lost", "locked", "protected", "enabled", "disabled", "mandatory", "easy", "hard", "simple", "complex",
        "complicated", "something", "anything", "nothing", "what", "which", "who", "how", "why", "where", "when",
        "read", "loaded", "pulled", "fetched", "taken", "provided", "injected", "supplied", "defined", "configured",
        "located", "available", "inside", "under", "via", "using", "used", "unused", "different", "same", "like",
        "such", "one", "two", "three", "four", "five", "six", "ok", "okay", "fine", "good", "bad", "new", "old",
        "same", "secret", "private", "public", "personal", "temporary", "default", "usual", "standard", "needed",
        "already", "again", "either", "neither", "both", "ist", "der", "die", "das", "den", "dem", "nicht", "im",
        "gespeichert", "geändert", "falsch", "richtig", "sicher", "unsicher", "abgelaufen", "mein", "dein", "sein",
        "ihr", "unser", "euer", "ein", "eine", "noch", "schon", "auch", "nur", "sehr", "zu", "est", "le", "la",
        "les", "un", "une", "dans", "pas", "sur", "enregistré", "changé", "faux", "bon", "sûr", "mon", "ton", "son",
        "notre", "votre", "es", "el", "los", "las", "en", "guardada", "guardado", "cambiada", "cambiado", "segura",
        "seguro", "mi", "tu", "su", "nuestro", "è", "il", "lo", "gli", "nel", "non", "mio", "tuo", "é", "o", "os",
        "as", "um", "uma", "não", "meu", "teu"
    ]
)
_WORD_ONLY: Final = re.compile(r"[a-zà-ÿ]+(?:ed|ing|ly)$")
_PLACEHOLDER: Final = re.compile(r"\[REDACTED(?::[a-z_]+)?\]")


def _strip(value: str) -> str:
    while value and value[-1] in _TRAIL:
        value = value[:-1]
    while value and value[0] in "(\"'‘“„«`<[":
        value = value[1:]
    return value


#: The algorithm names that open an OpenSSH public key line (the key after them is public by nature).
_PUBLIC_KEY_TYPE: Final = re.compile(
    r"ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com"
)


def _plausible(value: str, label: str, strict: bool) -> bool:
    v = value.strip()
    if not v or _PLACEHOLDER.search(v) or v.startswith("[REDACTED"):
        return False
    low = v.lower()
    participle = v.isalpha() and v.islower() and _WORD_ONLY.fullmatch(v) is not None and len(v) > 3
    if low in _STOPWORDS or (participle and not strict):
        return False
    if low.startswith(("http://", "https://")) and label != "token":
        return False
    if _PUBLIC_KEY_TYPE.fullmatch(low):
        return False  # "our signing key is ssh-ed25519 AAAA...": the type that opens a public key line
    digits = sum(c.isdigit() for c in v)
    letters = sum(c.isalpha() for c in v)
    symbols = len(v) - digits - letters
    if label in ("pin", "otp"):
        # a code is mostly digits (door code 7731#, 2468-1357) or a short code-like token
        if digits >= 3 and digits >= letters:
            return True
        return label == "otp" and len(v) >= 6 and digits >= 2 and v.isalnum()
    if label == "token":
        return len(v) >= 8 and digits >= 1 and letters >= 1 and not v.isdigit()
    if strict and label == "password" and v.isdigit() and len(v) >= 4:
        return True  # "passcode 4821", "wifi password 80412277": a numeric passcode
    if strict:
        return (len(v) >= 6 and letters >= 1 and (digits >= 1 or symbols >= 1) and not v.isdigit()) or (
            len(v) >= 8 and any(c.isupper() for c in v[1:]) and any(c.islower() for c in v)
        )
    return len(v) >= 3


def _quoted(text: str, pos: int) -> tuple[int, int] | None:
    if pos < len(text) and text[pos] in _OPEN_QUOTE:
        closers = _CLOSE_FOR[text[pos]]
        end = pos + 1
        limit = min(len(text), pos + 201)
        while end < limit and text[end] not in closers and text[end] != "\n":
            end += 1
        if end < limit and text[end] in closers and end > pos + 1:
            return pos + 1, end
    return None


def _clause(text: str, pos: int) -> tuple[int, int]:
    m = _CLAUSE_END.search(text, pos)
    end = m.start() if m is not None else len(text)
    while end > pos and text[end - 1] in " \t":
        end -= 1
    return pos, end


def _value_at(text: str, pos: int, label: str, strict: bool) -> tuple[int, int] | None:
    """The value that starts at ``pos`` (after a connector), or None when nothing secret starts there."""
    found = _value_here(text, pos, label, strict)
    if found is None:
        filler = _FILLER.match(text, pos)
        if filler is not None:
            found = _value_here(text, filler.end(), label, strict)
    if found is not None and label == "password":
        found = _more_words(text, found)
    return found


#: Plain words that may continue an unquoted multi-word password ("purple monkey dishwasher"), up
#: to the end of its clause; a clause that goes on ("… and my username is bob") stops it.
_WORD_RUN: Final = re.compile(r"(?:[ ]+[A-Za-zÀ-ÿ0-9!@#$%&*_+-]{2,24}){1,4}(?=[ \t]*(?:$|\n|[.,;!?)](?:\s|$)))")
_ENDS_RUN: Final = frozenset(
    [
        "and", "but", "or", "so", "because", "if", "for", "to", "in", "on", "at", "the", "my", "your", "then",
        "which", "that", "when", "while", "with", "from",
    ]
)


def _more_words(text: str, found: tuple[int, int]) -> tuple[int, int]:
    start, end = found
    value = text[start:end]
    if not value.isalpha() or text[end : end + 1] != " ":
        return found
    m = _WORD_RUN.match(text, end)
    if m is None or any(w.lower() in _ENDS_RUN or w.lower() in _STOPWORDS for w in m.group(0).split()):
        return found
    return start, m.end()


def _value_here(text: str, pos: int, label: str, strict: bool) -> tuple[int, int] | None:
    q = _quoted(text, pos)
    if q is not None:
        start, end = q
        return (start, end) if _plausible(text[start:end], label, strict=False) or " " in text[start:end] else None
    if label == "passphrase":
        start, end = _clause(text, pos)
        words = text[start:end].split()
        if words and not (len(words) == 1 and not _plausible(words[0], label, strict)):
            if words[0].lower() in _STOPWORDS:
                return None
            return start, end
        return None
    if label in ("pin", "otp"):
        spelled = _SPELLED_DIGITS.match(text, pos)
        if spelled is not None:
            return spelled.start(), spelled.end()
        spelled = _SPELLED_NUMBER.match(text, pos)
        if spelled is not None and _TENS.search(spelled.group()) is not None:
            return spelled.start(), spelled.end()
    spaced = _SPACED.match(text, pos)
    if spaced is not None and label in ("password", "pin", "token"):
        return spaced.start(), spaced.end()
    if label in ("otp", "pin", "token"):
        groups = _GROUPS.match(text, pos)
        if (groups is not None and sum(c.isdigit() for c in groups.group(0)) >= 3) or (
            groups is not None and label in ("otp", "token")
        ):
            return groups.start(), groups.end()
    m = _TOKEN.match(text, pos)
    if m is None:
        return None
    raw = m.group(0)
    value = _strip(raw)
    if not value or not _plausible(value, label, strict):
        return None
    offset = raw.find(value)
    return m.start() + offset, m.start() + offset + len(value)


def _label_of(m: re.Match[str]) -> str:
    for kind, _ in _KINDS:
        if m.group(kind) is not None:
            return kind
    return "password"


_KIND_OUT: Final = {
    "password": "password",
    "passphrase": "passphrase",
    "pin": "pin",
    "otp": "otp_code",
    "code_list": "otp_code",
    "token": "api_key",
}


def _code_list(text: str, pos: int) -> Iterator[Span]:
    """Every code-like token after "backup codes", up to a blank line (a list of one-time codes)."""
    stop = text.find("\n\n", pos)
    end = min(len(text), pos + 800) if stop < 0 else min(stop, pos + 800)
    for m in re.finditer(r"(?<![\w-])[A-Za-z0-9]{3,10}(?:[- ][A-Za-z0-9]{3,10})?(?![\w-])", text[pos:end]):
        token = m.group(0)
        if sum(c.isdigit() for c in token) >= 3 and not re.fullmatch(r"\d{1,2}", token):
            parts = token.split(" ")
            if len(parts) == 2 and not all(sum(c.isdigit() for c in p) >= 2 for p in parts):
                token_start = pos + m.start()
                first = parts[0] if sum(c.isdigit() for c in parts[0]) >= 3 else None
                if first is not None:
                    yield token_start, token_start + len(first), "otp_code"
                continue
            yield pos + m.start(), pos + m.end(), "otp_code"


_CREDS: Final = re.compile(
    rf"(?i)(?<![\w-])(?:{_CREDS_WORDS})\b[^\n.;]{{0,60}}?[\s:]\s*(?P<u>[^\s/,;:()]{{2,64}})[ \t]*/[ \t]*(?P<p>[^\s/]+)"
    rf"|(?<![\w-])(?:{_CREDS_WORDS})\b[^\n.;]{{0,40}}?[\s:]\s*[^\s:/@]{{2,64}}:(?P<p2>[^\s/@]{{3,}})(?=\s|$)"
)


#: The code before its label, as verification texts put it: "G-482913 is your Google verification code".
_CODE_FIRST: Final = re.compile(
    r"(?i)(?<![\w-])(?P<v>(?:[A-Z]-)?\d{4,8}|\d{3}[ -]\d{3})\s+(?:is|est|ist|es|è|é)\s+"
    r"(?:your|votre|ihr|dein|tu|su|il\s+tuo|o\s+seu|my|our|the|mon|ma|notre|le|la|mein|meine|unser|der|die|"
    r"mi|nuestro|el|il\s+mio|o\s+meu|a\s+minha)\s+"
    r"(?:[\w-]+\s+){0,3}?(?:code|pin|otp|passcode|password|combination|combo|puk|código|codice|"
    r"code\s+de\s+\w+|bestätigungscode|einmalcode|türcode|geheimzahl)\b"
)


#: A code, then its label in brackets: "it's 1234 (the pin)", "use 8812 (door code)".
_CODE_THEN_LABEL: Final = re.compile(
    r"(?i)(?<![\w-])(?P<v>\d{3,8})\s*\(\s*(?:(?:the|my|our|your|his|her|their)\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:pin|passcode|code|puk|combination|combo)\s*\)"
)


#: A code, then what it is as an afterthought: "it's 4471 for the card, the pin i mean", "2580 — the door code",
#: "type 3321 at the atm, that's the pin".
_CODE_AFTERTHOUGHT: Final = re.compile(
    r"(?i)(?<![\w.,:/-])(?P<v>\d{4,8})(?![\w.,:/-]\d)[^\n.;?!\d]{0,40}?(?:,|\s[-\u2013\u2014])\s*"
    r"(?:(?:that['’]?s|that\s+is|which\s+is|this\s+is)\s+)?(?:(?:the|my|our|your|his|her|their)\s+)"
    r"(?:[\w'’-]+\s+){0,2}?(?:pin|passcode|pin\s+code|pin\s+number|door\s+code|combination|combo|password)\b"
    r"(?=\s*(?:$|[,.;!?)]|\s+(?:i|we)\s+mean\b|\s+(?:btw|lol|fyi)\b))"
)


#: A code a speaker says to use as one: "use 4471 as the pin on the blue card", "enter 8812 for the door code".
_CODE_AS: Final = re.compile(
    r"(?i)\b(?:use|used|using|try|tried|enter|entered|type|typed|punch\s+in|key\s+in|put\s+in)\s+"
    r"(?P<v>\d{3,8})\s+(?:as|for)\s+(?!(?:an?\s+|the\s+)?(?:example|dummy|sample|placeholder|test|fake|demo)\b)"
    r"(?:(?:the|my|our|your|his|her|their|a)\s+)?(?:[\w'’-]+\s+){0,2}?"
    r"(?:pin|passcode|code|puk|combination|combo|password|otp)\b(?!\s*(?:manager|policy|rules?|reset)\b)"
)


#: What may follow a sent code: the end of a clause or a small word, never a noun it counts ("sent me 2000
#: dollars", "texted me 1200 photos").
_CODE_ENDS: Final = (
    r"(?=\s*(?:$|[,.;:!?)\u2013\u2014-])|\s+(?:from|and|but|so|which|that|lol|pls|please|just|earlier|now|"
    r"again|can|could|it|as|via|if|when|before|after|haha|thx|thanks)\b)"
)
#: A code someone just sent: "the bank just texted me 739204", "they sent me the code: 4410-92", "got a text
#: with 582013". A number a person is sent by text or mail and asked to use is a one-time code.
_CODE_SENT: Final = re.compile(
    r"(?i)\b(?:texted|sent|messaged|emailed|sms['’]?e?d|whatsapped|dm['’]?e?d|pinged)\s+(?:me|us|you|him|her|them)\s+"
    r"(?:(?:a|an|the|this|that|my|our|their|its)\s+)?(?:(?:new|one-time|login|verification|security|sms|text|"
    r"confirmation|6-digit|four-digit|six-digit)\s+)?(?:(?:code|otp|pin|number|passcode)\s*)?(?:[:=-]\s*)?"
    r"(?P<v>\d{3}[ -]?\d{3}|\d{4,8})(?![\w-])" + _CODE_ENDS +
    r"|\b(?:got|received|get|getting)\s+(?:a|an|the|this|that)\s+(?:text|sms|message|email|mail)\s+"
    r"(?:with|saying|that\s+says)\s+(?:(?:a|the)\s+(?:code\s+)?)?(?P<w>\d{3}[ -]?\d{3}|\d{4,8})(?![\w-])"
    + _CODE_ENDS
)


#: What follows "pin" the verb: what is pinned ("pin the base image", "pin it to 3.11", "pin versions").
_PIN_VERB: Final = re.compile(
    r"(?i)\s+(?:the|a|an|it|this|that|these|those|our|my|your|their|them|all|every|versions?|deps|"
    r"dependencies|packages?|images?|down|against)\b"
)
_PIN_NOUN_BEFORE: Final = re.compile(r"(?i)\b(?:the|my|your|our|his|her|their|a|new|old|same)\s+$")
#: Hex groups joined by colons (a MAC or IPv6 address, a fingerprint): never "user:password".
_HEX_GROUPS: Final = re.compile(r"(?:[0-9A-Fa-f]{1,4}:){2,}[0-9A-Fa-f]{1,4}")


def prose(text: str) -> Iterator[Span]:
    """Spans of credential values given in sentences (see the module docstring)."""
    for m in _CODE_FIRST.finditer(text):
        yield m.start("v"), m.end("v"), "otp_code"
    for m in _CODE_SENT.finditer(text):
        g = "v" if m.group("v") is not None else "w"
        yield m.start(g), m.end(g), "otp_code"
    for m in _CODE_THEN_LABEL.finditer(text):
        yield m.start("v"), m.end("v"), "pin"
    for m in _CODE_AS.finditer(text):
        yield m.start("v"), m.end("v"), "pin"
    for m in _CODE_AFTERTHOUGHT.finditer(text):
        yield m.start("v"), m.end("v"), "pin"
    for m in _KEYWORD.finditer(text):
        label = _label_of(m)
        kw_start, kw_end = m.start(), m.end()
        if _HEAD_NOUN.match(text, kw_end) or _BEFORE_NOT_LABEL.search(text, max(0, kw_start - 30), kw_start):
            continue
        weak = _BEFORE_WEAK_LABEL.search(text, max(0, kw_start - 30), kw_start) is not None
        if label == "code_list":
            yield from _code_list(text, kw_end)
            continue
        found: tuple[int, int] | None = None
        if (label == "pin" and m.group(0).lower() in ("pin", "pins") and _PIN_VERB.match(text, kw_end)
                and not _PIN_NOUN_BEFORE.search(text, max(0, kw_start - 12), kw_start)):
            found = _after(text, kw_end, label)
            if found is None or not re.fullmatch(r"\d{3,8}", text[found[0] : found[1]]):
                continue  # "we pin the base image by digest": the verb, not a code
            if weak:
                found = None  # looked for again below, named values only
        if label == "pin" and re.search(r"(?i)wi-?fi|wlan", m.group(0)):
            label = "password"  # a Wi-Fi "code" is a password, not a number
        kind = _KIND_OUT[label]
        if found is None:
            found = _after(text, kw_end, label, named_only=weak)
        if found is not None:
            yield found[0], found[1], kind
            if label in ("pin", "otp"):
                end = found[1]
                while (more := _MORE_CODES.match(text, end)) is not None:
                    yield more.start("v"), more.end("v"), kind
                    end = more.end()
    for m in _PASS_LABEL.finditer(text):
        c = _COMPLEMENT_CONNECTOR.match(text, m.end())
        if c is not None:  # "pass is …" only with a value that could be nothing else (a bus pass is valid)
            v = _value_at(text, c.end(), "password", strict=c.group(0).strip() in ("is", "was"))
            if v is not None:
                yield v[0], v[1], "password"
    for m in _PASS_DIRECT.finditer(text):
        v = _value_at(text, m.end(), "password", strict=True)
        if v is not None:
            yield v[0], v[1], "password"
    for m in _CREDS.finditer(text):
        g = "p" if m.group("p") is not None else "p2"
        raw = m.group(g)
        if g == "p2":
            start_tok = text.rfind(" ", 0, m.start(g)) + 1
            if _HEX_GROUPS.fullmatch(text[start_tok : m.end(g)].rstrip(_TRAIL)):
                continue  # "wifi mac is a4:83:e7:2b:9c:10"
        value = _strip(raw)
        if value and _plausible(value, "password", strict=g == "p") and value.lower() not in ("or", "and"):
            start = m.start(g) + raw.find(value)
            yield start, start + len(value), "password"


def _after(text: str, pos: int, label: str, *, named_only: bool = False) -> tuple[int, int] | None:
    """The value a credential word at ``pos`` introduces; ``named_only``: only through a connector."""
    c = _COMPLEMENT_CONNECTOR.match(text, pos)
    if c is not None:
        # a dash or "'s" ("the password's length") gives a value only when it could be nothing else
        loose = c.group(0).strip()
        strict = label == "token" or loose in ("—", "–", "-") or loose.endswith(("'s", "’s")) or named_only
        v = _value_at(text, c.end(), label, strict=strict)
        if v is not None:
            return v
        if loose.endswith(("'s", "’s")):
            owner = _COMPLEMENT_POSSESSIVE.match(text, pos)
            if owner is not None:
                v = _value_at(text, owner.end(), label, strict=named_only)
                if v is not None:
                    return v
    if label in ("password", "pin", "otp", "token"):
        to = _TO.match(text, pos)
        if to is not None and _CHANGED_TO.search(text, max(0, pos - 40), pos):
            v = _value_at(text, to.end(), label, strict=False)
            if v is not None:
                return v
    if label in ("password", "pin", "otp", "token"):
        for route in (_RELATIVE_CONNECTOR, _ANSWER):
            r = route.match(text, pos)
            if r is not None:
                v = _value_at(text, r.end(), label, strict=True)
                if v is not None:
                    return v
    if named_only:
        cl = _COLON_LATER.match(text, pos)
        if cl is not None and label in ("password", "pin", "token"):
            return _value_at(text, cl.end(), label, strict=True)
        return None
    d = _DIRECT.match(text, pos)
    if (d is not None and d.end() > pos) or (d is not None and label in ("pin",)):
        v = _value_at(text, d.end(), label, strict=True)
        if v is not None:
            return v
    p = _PAREN.match(text, pos)
    if p is not None:
        end = text.find(")" if text[p.end() - 1] == "(" else "`", p.end())
        if 0 < end - p.end() <= 60:
            inner = text[p.end() : end].strip()
            if inner and _plausible(inner, label, strict=True):
                return p.end(), p.end() + len(text[p.end() : end].rstrip())
    a = _APPOSITIVE.match(text, pos)
    if a is not None:
        v = _value_at(text, a.end(), label, strict=True)
        if v is not None and text[v[1] : v[1] + 1] in (",", ")", " ", ""):
            return v
    cl = _COLON_LATER.match(text, pos)
    if cl is not None and label in ("password", "passphrase", "token", "pin"):
        v = _value_at(text, cl.end(), label, strict=label != "passphrase")
        if v is not None:
            return v
    return None
