"""Secret guard: every kind is found and masked, ordinary chat is untouched."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractors.secrets import contains_secret, find_secrets, is_secret_predicate, mask, may_contain_secret

CASES = [
    ("api_key", "my key is sk-proj-Abc123def456ghi789jkl012mno", "sk-proj-Abc123def456ghi789jkl012mno"),
    ("api_key", "use sk_live_4eC39HqLyjWDarjtT1zdp7dc for billing", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("api_key", "key=AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
    ("api_key", "api_key: 9f8e7d6c5b4a39281706abcd", "9f8e7d6c5b4a39281706abcd"),
    ("aws_access_key", "AWS id AKIAIOSFODNN7EXAMPLE works", "AKIAIOSFODNN7EXAMPLE"),
    ("github_token", "token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB", "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"),
    ("slack_token", "bot xoxb-123456789012-abcdefABCDEF", "xoxb-123456789012-abcdefABCDEF"),
    ("bearer_token", "Authorization: Bearer abcDEF123456ghiJKL789", "abcDEF123456ghiJKL789"),
    (
        "jwt",
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    (
        "private_key",
        "here:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----\nthanks",
        "MIIEpAIBAAKCAQEA7",
    ),
    ("connection_string", "db is postgres://admin:s3cr3tPass@db.internal:5432/app", "s3cr3tPass"),
    ("password", "btw my password is hunter2, don't tell", "hunter2"),
    ("password", "The wifi passcode: Blue-Fox-42", "Blue-Fox-42"),
    ("pin", "PIN is 4821.", "4821"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), CASES)
def test_each_kind_is_masked_and_labelled(kind: str, text: str, secret: str) -> None:
    masked, kinds = mask(text)
    assert secret not in masked
    assert f"[REDACTED:{kind}]" in masked
    assert kinds == [kind]
    assert contains_secret(text)


def test_only_the_secret_part_is_masked() -> None:
    masked, _ = mask("my password is hunter2.")
    assert masked == "my password is [REDACTED:password]."
    masked, _ = mask("postgres://admin:pw123456@db:5432/x")
    assert masked == "postgres://admin:[REDACTED:connection_string]@db:5432/x"


@pytest.mark.parametrize(
    "text",
    [
        "I need to renew my passport by Friday.",
        "I love my pin collection and my password manager.",
        "Ask me for the token of appreciation later",
        "We use Postgres at postgres://db.internal:5432/app",
        "The skeleton key is in the drawer",
        "Bearer of bad news, sorry",
        "risk-free sk-8 skating",
    ],
)
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    assert mask(text) == (text, [])
    assert not contains_secret(text)


def test_several_secrets_in_one_text_are_all_masked_in_order() -> None:
    text = "aws AKIAIOSFODNN7EXAMPLE and password: tr0ub4dor&3 and Bearer abcdefghijklmnop123"
    masked, kinds = mask(text)
    assert kinds == ["aws_access_key", "password", "bearer_token"]
    assert "AKIA" not in masked and "tr0ub4dor" not in masked and "abcdefghijklmnop123" not in masked
    assert [s.kind for s in find_secrets(text)] == kinds


@pytest.mark.parametrize("pred", ["password", "wifi_password", "api_key", "github_token", "pin", "client_secret"])
def test_credential_predicates(pred: str) -> None:
    assert is_secret_predicate(pred)


@pytest.mark.parametrize("pred", ["lives_in", "spinning_class", "passport_number_expiry", "tokenizer", "likes"])
def test_non_credential_predicates(pred: str) -> None:
    assert not is_secret_predicate(pred)


@settings(max_examples=100, deadline=None)
@given(
    prefix=st.text(alphabet=st.characters(codec="ascii", categories=("L", "Zs")), max_size=30),
    body=st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", min_size=24, max_size=40),
)
def test_masking_is_idempotent_and_removes_the_key(prefix: str, body: str) -> None:
    text = f"{prefix} sk-{body} end"
    once, kinds = mask(text)
    assert f"sk-{body}" not in once and kinds
    assert mask(once) == (once, [])


def test_the_secret_screen_never_clears_text_holding_a_secret() -> None:
    for text in (
        "my key is AKIAIOSFODNN7EXAMPLE",
        "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "password: correct-horse-battery-staple",
    ):
        assert may_contain_secret(text)
        assert find_secrets(text), text
    assert not may_contain_secret("I moved to Lisbon last spring.")
    assert not may_contain_secret("")
