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


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("my pin is forty eight twenty one", "forty eight twenty one"),
        ("the alarm code is nineteen sixty-two", "nineteen sixty-two"),
        ("PIN: seventy seven thirteen", "seventy seven thirteen"),
    ],
)
def test_a_pin_said_as_a_number_in_words_is_masked(text: str, code: str) -> None:
    masked, _ = mask(text)
    assert code not in masked and "[REDACTED:" in masked


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("My PIN for both cards: 4821 and 1184", ("4821", "1184")),
        ("door code is 1234 or 4321, i forget which", ("1234", "4321")),
        ("pin 2025, 7781 & 3390 for the three lockers", ("2025", "7781", "3390")),
    ],
)
def test_every_code_of_a_list_after_a_pin_word_is_masked(text: str, codes: tuple[str, ...]) -> None:
    masked, _ = mask(text)
    assert not [c for c in codes if c in masked], masked


def test_a_number_after_a_masked_pin_that_is_not_a_code_stays() -> None:
    masked, _ = mask("my pin is 4821 and my card ends in 4242")
    assert "4821" not in masked and "4242" in masked
    assert mask("my pin is one of the first things i set")[0] == "my pin is one of the first things i set"


def test_an_openssh_public_key_after_a_key_word_is_not_a_secret() -> None:
    line = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ci@build-01"
    assert mask(f"our deploy key is {line}")[0] == f"our deploy key is {line}"
    # a private key body named as one stays masked
    body = "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
    assert body not in mask(f"the private key is {body}")[0]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("the pharmacy just texted me 550913, do i type it in here?", "550913"),
        ("Revolut sent me the code: 301-448 lol", "301-448"),
        ("got an sms with 778102 from monzo", "778102"),
        ("my landlord's app emailed me a login code 604417 and it expires in 5 min", "604417"),
    ],
)
def test_a_code_someone_just_sent_is_masked(text: str, code: str) -> None:
    assert code not in mask_text(text), mask_text(text)


@pytest.mark.parametrize(
    "text",
    ["my uncle sent me 2500 for the car", "the gym texted me 3 reminders", "she messaged me 1200 photos",
     "sent us 4000 pages of scans"],
)
def test_a_count_someone_sent_is_not_a_code(text: str) -> None:
    assert mask_text(text) == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # a connector word inside a longer word is no connector ("proveedor-es")
        ("la clave del portal de proveedores es Rk4?gato-verde y nada más", "Rk4?gato-verde"),
        ("le code wifi chez tonton c'est Prune7Cerise, voilà", "Prune7Cerise"),
    ],
)
def test_romance_passwords_after_a_complement_are_masked(text: str, value: str) -> None:
    assert value not in mask_text(text), mask_text(text)


@pytest.mark.parametrize(
    "text",
    [
        "the office printer's wifi mac is 3c:22:fb:91:0a:7e, add it to the allowlist",
        "our public roadmap sheet id is 1Qw8ErTy0uIoPaSdFgHjKlZxCvBnM4q7W9e2R5t8Y1u3",
        "we pin the runtime to node:20-alpine@sha256:4bf9a4fd03b1f58e8cd2c51a8a3c9ee1b0a4b2f3c4d5e6f708192a3b4c5d6e7f",
        "pin the deps: numpy 1.26.4 and pandas 2.2.2",
    ],
)
def test_a_mac_address_a_shared_document_id_and_the_verb_pin_are_not_secrets(text: str) -> None:
    assert mask_text(text) == text


@pytest.mark.parametrize(
    ("text", "code"),
    [("the pin the bank sent me is 5520", "5520"), ("pin it: 7314", "7314"), ("the PIN they gave us is 9901", "9901")],
)
def test_a_pin_with_a_relative_clause_or_after_a_verb_like_start_is_still_masked(text: str, code: str) -> None:
    assert code not in mask_text(text), mask_text(text)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("type 6610 at the cash machine, that's the pin", "6610"),
        ("it's 2947 for the blue card, which is the pin", "2947"),
        ("my card's secret number is 3185", "3185"),
        ("the bank's secret number: 7092", "7092"),
        ("I set the pin on the replacement card as 5813", "5813"),
        ("changed the passcode for the tablet to 440922", "440922"),
    ],
)
def test_a_pin_named_after_it_by_a_secret_number_or_set_as_is_masked(text: str, code: str) -> None:
    assert code not in mask_text(text), mask_text(text)


@pytest.mark.parametrize(
    "text",
    [
        "the last four digits of my card are 4421",
        "set the meeting for friday as 1400 works",
        "i set my alarm for 0630 to wake up",
        "the secret to a good crust is 72 hours of proofing",
        "got 3321 steps at the gym, that's the record",
    ],
)
def test_numbers_near_set_or_secret_that_are_not_codes_stay(text: str) -> None:
    assert mask_text(text) == text


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("the locker passcode 905117, top row", "905117"),  # a numeric passcode with no connector
        ("wifi password 80412277 if you need it", "80412277"),
        ("card PIN-7306, don't share", "7306"),  # a code joined to its word by a hyphen
        ("sim pin-0481", "0481"),
    ],
)
def test_a_code_next_to_its_word_is_masked(text: str, code: str) -> None:
    masked = mask_text(text)
    assert masked is not None and code not in masked and "[REDACTED:" in masked


@pytest.mark.parametrize(
    "text", ["the password policy 2024 is strict", "changed my password 3 times", "a PIN-protected sim", "pin-2 cable"]
)
def test_a_number_that_is_not_the_code_stays(text: str) -> None:
    assert mask_text(text) == text
