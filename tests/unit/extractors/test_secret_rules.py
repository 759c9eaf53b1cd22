"""Secret rules stated as behaviour, whatever implementation of ``extractors.secrets`` is in place.

Only the public ``mask``, ``mask_text``, ``contains_secret`` and ``is_secret_predicate`` are used, so
these hold across a rewrite of the detectors: a bearer token is a secret in any letter case, and an
AWS key id is one with any of its documented prefixes (``ASIA`` marks the temporary keys of STS,
the ones most often pasted into chat).
"""

from __future__ import annotations

import pytest

from extractors.secrets import contains_secret, is_secret_predicate, mask, mask_text

TOKEN = "abcDEF123456ghiJKL789"


@pytest.mark.parametrize(
    "text",
    [
        f"Authorization: Bearer {TOKEN}",
        f"authorization: bearer {TOKEN}",
        f"curl -H 'authorization: bearer {TOKEN}' https://api.example.test",
        f"the header is bearer {TOKEN} for now",
    ],
)
def test_a_bearer_token_is_masked_in_any_letter_case(text: str) -> None:
    masked, kinds = mask(text)
    assert TOKEN not in masked
    assert "[REDACTED:" in masked
    assert kinds
    assert contains_secret(text)


@pytest.mark.parametrize("prefix", ["AKIA", "ASIA"])
@pytest.mark.parametrize(
    "template",
    ["temporary credentials {key} expire at noon", "aws id {key}", "{key}", "export AWS_ACCESS_KEY_ID={key}"],
)
def test_aws_access_key_ids_are_masked_long_lived_and_temporary(prefix: str, template: str) -> None:
    key = prefix + "Y34FZKBOKMUTVV7A"
    text = template.format(key=key)
    masked, kinds = mask(text)
    assert key not in masked
    assert "[REDACTED:" in masked
    assert kinds
    assert contains_secret(text)


def test_ordinary_text_around_the_same_words_is_left_alone() -> None:
    for text in ("The bearer of bad news arrived.", "Asia is the largest continent.", "AKIA is not a word."):
        assert mask(text) == (text, [])


@pytest.mark.parametrize("predicate", ["api key", "api-key", "API_KEY", "client-secret", "wifi password", "pin-code"])
def test_a_credential_predicate_is_one_however_its_words_are_joined(predicate: str) -> None:
    assert is_secret_predicate(predicate)


@pytest.mark.parametrize("predicate", ["lives in", "favorite-color", "works_at"])
def test_ordinary_predicates_are_not_credentials(predicate: str) -> None:
    assert not is_secret_predicate(predicate)


def test_mask_text_masks_optional_text_and_keeps_none() -> None:
    assert mask_text(None) is None
    masked = mask_text(f"authorization: bearer {TOKEN}")
    assert masked is not None and TOKEN not in masked and "[REDACTED:" in masked
    assert mask_text("nothing to hide here") == "nothing to hide here"
