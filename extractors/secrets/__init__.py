"""Secret detection and masking: secret-shaped values never become claims and are masked everywhere.

Memory is searchable and quoted back to models, so a credential that slips into a claim leaks on
every retrieval. One masking pass runs at admission (:func:`extractors.secrets.admission.mask_event`)
before anything is stored or extracted; every later stage sees only ``[REDACTED:<kind>]`` where a
secret was, and the validation layer rejects claims whose values carry one.

Modules, one concern each:

* :mod:`~extractors.secrets.normalise`: invisible characters removed, NFKC, the way back to offsets;
* :mod:`~extractors.secrets.detectors`: vendor formats (detect-secrets' plugins and more),
  assignments, headers, URLs, command lines, private keys, high entropy;
* :mod:`~extractors.secrets.prose`: credentials in sentences (EN, DE, FR, ES, IT, PT);
* :mod:`~extractors.secrets.checksums`: card numbers (Luhn), IBANs (mod 97), BIP-39 seed phrases;
* :mod:`~extractors.secrets.masking`: the screen, the merge, the placeholders;
* :mod:`~extractors.secrets.admission`: whole events, JSON values and dead-letter bytes.

See ``docs/security.md`` for what is detected and what is not.
"""

from __future__ import annotations

import re
from typing import Final

from extractors.secrets.masking import PLACEHOLDER, SecretMatch, find_secrets, mask, may_contain_secret
from extractors.secrets.normalise import strip_invisible

__all__ = [
    "PLACEHOLDER",
    "SecretMatch",
    "contains_secret",
    "find_secrets",
    "has_placeholder",
    "is_secret_predicate",
    "mask",
    "mask_text",
    "may_contain_secret",
    "strip_invisible",
]

#: Predicates (snake_case) that name a credential: their object is a secret whatever its shape. The
#: credential word is the predicate's head (its last word, or before ``_is``/``_for``/``_of``):
#: ``password_manager``, ``token_budget`` or ``api_key_rotation_policy`` name other things.
_SECRET_PREDICATE: Final = re.compile(
    r"(?:^|_)(?:password|passwd|pwd|passphrase|passcode|pin|pin_code|puk|api_key|apikey|secret|secret_key|"
    r"token|access_token|auth_token|api_token|private_key|client_secret|credentials?|creds|otp|otp_code|"
    r"recovery_codes?|backup_codes?|seed_phrase|mnemonic|card_number|iban|cvv|cvc|security_code|door_code|"
    r"alarm_code|lock_code|combination|passwort|kennwort|mot_de_passe|contrasena|contraseña|clave|senha)"
    r"(?:$|_(?:is|was|for|of|to|at|on|in)(?:$|_))"
)


def contains_secret(text: str | None) -> bool:
    return bool(text) and (bool(find_secrets(text or "")) or has_placeholder(text or ""))


def has_placeholder(text: str) -> bool:
    """Whether ``text`` holds a ``[REDACTED:<kind>]`` placeholder (a value masked at admission)."""
    return "[REDACTED:" in text and PLACEHOLDER.search(text) is not None


def mask_text(text: str | None) -> str | None:
    """``mask`` for optional fields, dropping the kinds."""
    if text is None:
        return None
    return mask(text)[0]


def is_secret_predicate(predicate: str) -> bool:
    """True when a snake_case predicate names a credential (``password``, ``api_key``, ...)."""
    return _SECRET_PREDICATE.search(predicate.strip().lower().replace(" ", "_").replace("-", "_")) is not None
