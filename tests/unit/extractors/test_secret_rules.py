"""Secret rules stated as behaviour, whatever implementation of ``extractors.secrets`` is in place.

Only the public ``mask`` and ``contains_secret`` are used, so these hold across a rewrite of the
detectors: a bearer token is a secret in any letter case, and an AWS key id is one with any of its
documented prefixes (``ASIA`` marks the temporary keys of STS, the ones most often pasted into chat).
"""

from __future__ import annotations

import pytest

from extractors.secrets import contains_secret, mask

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
