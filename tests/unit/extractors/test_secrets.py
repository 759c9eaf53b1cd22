"""Secret guard: every family is found and masked, look-alikes are untouched, and the rules hold as stated.

The examples are written here for the rules they exercise (not copied from the evaluation sets in
``tests/data/secrets``); ``bench/secrets_eval.py`` runs those sets through the whole pipeline.
"""

# ruff: noqa: E501 - the tables below are example messages, one per line, easier to read unwrapped
from __future__ import annotations

import itertools
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractors.secrets import (
    contains_secret,
    find_secrets,
    has_placeholder,
    is_secret_predicate,
    mask,
    may_contain_secret,
    strip_invisible,
)
from extractors.secrets.checksums import card_numbers, ibans, seed_phrases
from extractors.secrets.normalise import folded

_ZW = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text.translate(_ZW)).casefold()


def _gone(secret: str, text: str) -> bool:
    """Neither the secret nor its normalised form (no zero-width characters, NFKC, casefold) is in ``text``."""
    return secret not in text and _norm(secret) not in _norm(text)


KEY_BODY = [
    "MIIEpAIBAAKCAQEA/+a726s6NRE8msh5JKOphfC/fxPYObtYxInPnIpF3Kj5RI//",
    "qJQR85Kb//PVPQyivcGO0IzkZa97FLAQ/+KM0+iEuij0+sMugGhJEW4tEh9wy7Z/",
    "B2udg0SLyyolFyONnD+7CsDy0Xp1xUAYx2OKNv6oxK9Fi2RIjKmvjjpFoBLMsd93",
]

# (family, text, secret) — one realistic message per family and phrasing
FAMILIES = [
    # vendor formats
    ("aws", "exported AWS_ACCESS_KEY_ID=AKIAQ3EGRT7XPLM2ZK4Q for the deploy user", "AKIAQ3EGRT7XPLM2ZK4Q"),
    ("aws", "sts gave me ASIAZ7K2M9QWERTYUIOP, it expires in an hour", "ASIAZ7K2M9QWERTYUIOP"),
    ("aws", "secret key is 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", "9sK2mQ7xV4bN1cR8tY6uI3oP0aS5dF2gH7jK4lZx"),
    ("github", "push with ghp_Xy7Qm2Rk9Lp4Zt6Wv1Bn8Cd3Fg5Hj0Kl2Mq4Ns", "ghp_Xy7Qm2Rk9Lp4Zt6Wv1Bn8Cd3Fg5Hj0Kl2Mq4Ns"),
    ("github", "fine-grained: github_pat_11BQ7ZK2A0abcDEFghiJKL_mnoPQRstuVWXyz0123456789abcdEFGHijkl", "github_pat_11BQ7ZK2A0"),
    ("gitlab", "runner token glpat-Zq8Lm3Xw7Vb2Nc5Rt9Ky is in the vars", "glpat-Zq8Lm3Xw7Vb2Nc5Rt9Ky"),
    ("openai", "use sk-proj-Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7Qw9Er1Ty3 for the summarizer", "sk-proj-Qw3Er5Ty7Ui9Op"),
    ("anthropic", "key: sk-ant-api03-Lm4Nq7Rs2Tv5Wx8Yz1Ab4Cd7Ef0Gh3Ij6Kl9Mn2Op5Qr8St1Uv4Wx7Yz0AbCdAA", "sk-ant-api03-Lm4Nq7"),
    ("huggingface", "login --token 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", "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"),
    ("npm", "NPM_TOKEN=npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3", "npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3"),
    ("stripe", "live key sk_live_4xQm9Zr2Lp7Wk3Vt8Bn1Cy6Dh", "sk_live_4xQm9Zr2Lp7Wk3Vt8Bn1Cy6Dh"),
    ("stripe_webhook", "signing secret whsec_Nq4Xm8Rz2Lw6Kp0Vt3By7Cj1Dh5Fg9Hs", "whsec_Nq4Xm8Rz2Lw6Kp0Vt3By7Cj1Dh5Fg9Hs"),
    ("sendgrid", "SG.Qm3Xr7Lw2Kp9Vt4By8Cj1D.Hs5Fg0Nq6Zx2Mr8Lw4Kp1Vt7By3Cj9Dh5Fg0Hs6Nq2Zx8Mr4", "SG.Qm3Xr7Lw2Kp9Vt4By8Cj1D"),
    ("slack", "bot token xoxb-123456789012-2345678901234-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012-2345678901234"),
    ("slack_webhook", "post to https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/Zx8Cv7Bn6Mq5Wr4Et3Yu2Io1", "Zx8Cv7Bn6Mq5Wr4Et3Yu2Io1"),
    ("discord_webhook", "https://discord.com/api/webhooks/123456789012345678/Ab-Cd_Ef1Gh2Ij3Kl4Mn5Op6Qr7St8Uv9", "Ab-Cd_Ef1Gh2Ij3"),
    ("google", "maps key AIzaSyQm3Xr7Lw2Kp9Vt4By8Cj1Dh5Fg0Hs6Nq2Z", "AIzaSyQm3Xr7Lw2Kp9Vt4By8Cj1Dh5Fg0Hs6Nq2Z"),
    ("telegram", "bot 7123456789:AAFq3Xm7Rz2Lw6Kp0Vt3By7Cj1Dh5Fg9HsQ runs the alerts", "7123456789:AAFq3Xm7Rz2Lw6Kp0Vt3By7Cj1Dh5Fg9HsQ"),
    ("mailgun", "MAILGUN_KEY=key-3f9a2c1e7b4d8f6a0c5e9b2d7f1a4c8e", "key-3f9a2c1e7b4d8f6a0c5e9b2d7f1a4c8e"),
    ("jwt", "cookie eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1LTEyMyJ9.Qm3Xr7Lw2Kp9Vt4By8Cj1Dh5Fg0Hs6Nq2Zx8Mr4Lw", "Qm3Xr7Lw2Kp9Vt4By8"),
    ("azure", "AccountName=logs;AccountKey=Qm3Xr7Lw2Kp9Vt4By8Cj1Dh5Fg0Hs6Nq2Zx8Mr4Lw/Kp1Vt7By3Cj9Dh5Fg0Hs6Nq2Zx8Mr4Lw==;", "Qm3Xr7Lw2Kp9Vt4By8Cj1"),
    # headers, URLs and command lines
    ("bearer", "curl -H 'authorization: bearer Qm3Xr7Lw2Kp9Vt4By8Cj1Dh' https://api", "Qm3Xr7Lw2Kp9Vt4By8Cj1Dh"),
    ("bearer", "Authorization: BEARER 0f3a9c2e7b4d8f6a0c5e9b2d7f1a4c8e", "0f3a9c2e7b4d8f6a0c5e9b2d7f1a4c8e"),
    ("basic", "the probe sends Authorization: Basic YWRtaW46VHIwdWJsZS0yMDI0IQ==", "YWRtaW46VHIwdWJsZS0yMDI0IQ=="),
    ("url", "DATABASE_URL=postgres://app:Gr4nite-Falls!@db.internal:5432/app", "Gr4nite-Falls!"),
    ("url", "REDIS_URL=redis://:Zq8Lm3Xw7Vb@cache:6379/0", "Zq8Lm3Xw7Vb"),
    ("cli", "curl -u admin:R0uter-Admin! http://192.168.0.1/status", "R0uter-Admin!"),
    ("cli", "mysql -u root -pSh0pDb2024 shop < dump.sql", "Sh0pDb2024"),
    ("cli", "mysql -u root -p'Quoted-Pw9' shop", "Quoted-Pw9"),
    ("cli", "sshpass -p 'D3ploy-Key!' scp a.tgz deploy@host:", "D3ploy-Key!"),
    ("cli", "docker login registry.io -u bot -p Reg1stry-Pass", "Reg1stry-Pass"),
    ("cli", "kubectl create secret generic db --from-literal=password=Kube-S3cret", "Kube-S3cret"),
    ("dsn", "Server=sql01;Database=Orders;User Id=sa;Password=Sq1-Adm1n!;Trust=True", "Sq1-Adm1n!"),
    # assignments: env, JSON, YAML, INI
    ("env", "$ cat .env\nAPP_DB_PASSWORD=zq8Lm3Xw7Vb2Nc5R\nSECRET_KEY=Ab(1)Cd#2Ef", "zq8Lm3Xw7Vb2Nc5R"),
    ("env", "$ cat .env\nAPP_DB_PASSWORD=zq8Lm3Xw7Vb2Nc5R\nSECRET_KEY=Ab(1)Cd#2Ef", "Ab(1)Cd#2Ef"),
    ("json", '{"smtp_user": "mail@x.io", "smtp_password": "Ma1l-Pa55!", "port": 587}', "Ma1l-Pa55!"),
    ("json", '{"apiKey": "75351c5bf0864297a27db86fa707042f"}', "75351c5bf0864297a27db86fa707042f"),
    ("yaml", "data:\n  password: UzNjcjN0LVBhc3M=\n  username: YWRtaW4=", "UzNjcjN0LVBhc3M="),
    ("terraform", '{"db_password": {"sensitive": true, "type": "string", "value": "Tf-S3cret-99"}}', "Tf-S3cret-99"),
    # prose: English, German, French, Spanish, Italian, Portuguese
    ("prose_en", "The password for my home router is Copper-Kettle-77!", "Copper-Kettle-77!"),
    ("prose_en", "fyi I changed my PASSWORD to purpleMonkeyDish9 yesterday", "purpleMonkeyDish9"),
    ("prose_en", "the wifi password is sunflower attic", "sunflower attic"),
    ("prose_en", "login is jonas, pass: Qw!x9vLp2#Rt", "Qw!x9vLp2#Rt"),
    ("prose_en", "About the password you pasted (Mango$Tree71): keep it elsewhere", "Mango$Tree71"),
    ("prose_en", "user kiosk, password Hunter2-Tango! for the lobby", "Hunter2-Tango!"),
    ("prose_de", "Das Passwort für den Router ist Schnecke#Blau42, falls du fragst", "Schnecke#Blau42"),
    ("prose_de", "das Kennwort lautet „Zugspitze_2962!“ – nicht weitergeben", "Zugspitze_2962!"),
    ("prose_de", "Dein WLAN-Passwort (Hafenkran88?) speichere ich nicht", "Hafenkran88?"),
    ("prose_fr", "le mot de passe administrateur du NAS est Fromage#Comte24.", "Fromage#Comte24"),
    ("prose_fr", "mdp : Lavande-Provence-19", "Lavande-Provence-19"),
    ("prose_es", "la contraseña es Girasol_Rojo_58 (la del wifi)", "Girasol_Rojo_58"),
    ("prose_es", "mi clave del banco es Tortuga.9921 jaja", "Tortuga.9921"),
    ("prose_it", "la password della posta è Gatto-Nero-31", "Gatto-Nero-31"),
    ("prose_pt", "a senha do wifi é Praia-Azul-44", "Praia-Azul-44"),
    ("creds", "staging creds: deploy / Hunter2-Bravo (ssh on 2222)", "Hunter2-Bravo"),
    ("creds", "test account for QA: qa@acme.io / Qa!Test-7781", "Qa!Test-7781"),
    ("passphrase", "the vault passphrase: lemon river stone 42", "lemon river stone 42"),
    ("passphrase", "master passphrase is 'Seven purple walruses dance!' lol", "Seven purple walruses dance!"),
    # codes
    ("pin", "my locker code is 2468-1357, gym on 5th", "2468-1357"),
    ("pin", "Bank card PIN is 4821 btw", "4821"),
    ("pin", "door code 7731# for the back entrance", "7731"),
    ("pin", "el pin de la tarjeta es el 5093", "5093"),
    ("pin", "4412 is my PIN, don't tell", "4412"),
    ("pin", "meine PIN-Nummer ist 6630", "6630"),
    ("pin", "new pin after the reset: 9034", "9034"),
    ("pin", "the atm pin i set today is 1147", "1147"),
    ("pin", "the PIN I use for everything is 0000", "0000"),
    ("pin", "my card pin? it's 1379", "1379"),
    ("pin", "i reset my PIN to 8264 at the branch", "8264"),
    ("pin", "my pin is four eight two one", "four eight two one"),
    ("pin", "the code for the gate that we picked was 5583", "5583"),
    ("pin", "it's 1234 (the pin)", "1234"),
    ("pin", "the pin? 2468", "2468"),
    ("pin", "atm pin - 3838", "3838"),
    ("pin", "PIN (for the Santander card) is 1122", "1122"),
    ("pin", "pin being 4848", "4848"),
    ("pin", "code confidentiel de ma carte : 7284", "7284"),
    ("pin", "the door code is 1 9 7 3", "1 9 7 3"),
    ("pin", "lockbox: 3391", "3391"),
    ("pin", "the pin for mum's card is 5521", "5521"),
    ("pin", "the code for tom's locker is 4410 if he asks", "4410"),
    ("pin", "use 4471 as the pin on the blue card", "4471"),
    ("pin", "enter 8812 for the door code, it sticks a bit", "8812"),
    ("pin", "its 6093 for the visa, the pin i mean", "6093"),
    ("pin", "5127 \u2014 the garage door code", "5127"),
    ("pin", "Kartenpin ist 3318, nicht vergessen", "3318"),
    ("pin", "die Bank-PIN ist 7720", "7720"),
    ("otp", "Your one-time code is 493027. Do not share it.", "493027"),
    ("otp", "G-582913 is your Google verification code", "582913"),
    ("otp", "2fa backup codes: 8311-4420 5592-0183 7740-2261", "5592-0183"),
    ("otp", "the authenticator setup key is ZNGS LG2H ZOTI Q4GC 73LO MYHS (TOTP)", "ZNGS LG2H ZOTI Q4GC"),
    # checksummed numbers and phrases
    ("card", "card for the hotel: 4111 1111 1111 1111 exp 09/27", "4111 1111 1111 1111"),
    ("card", "amex 3782 822463 10005 for dinner", "3782 822463 10005"),
    ("card", "charge 5555-5555-5555-4444 please", "5555-5555-5555-4444"),
    ("iban", "meine IBAN ist DE46 7605 0101 3875 9748 70 (Sparkasse)", "DE46 7605 0101 3875 9748 70"),
    ("iban", "send it to nl91abna0417164300 thanks", "nl91abna0417164300"),
    (
        "seed",
        "my seed is ozone repair spend idea strategy tired maximum tunnel duck total elbow cover, keep it",
        "ozone repair spend idea strategy tired",
    ),
    # keys
    ("private_key", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEICYccXzT2+Hj2oh7knj5mqw0TFDJ37D\n-----END EC PRIVATE KEY-----", "MHcCAQEEICYcc"),
    ("private_key_body", "key body without headers:\n" + "\n".join(KEY_BODY), "qJQR85Kb//PVPQyivcGO0IzkZa97FLAQ"),
    # shell output
    ("tool", "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d\nS3cr3t-Pass!\n$ ", "S3cr3t-Pass!"),
    ("tool", "lena@box:~$ cat ~/.cache/huggingface/token\nQx7pL2mN9vR4sT6u\n", "Qx7pL2mN9vR4sT6u"),
    # obfuscation
    ("obfuscated", "my key: sk-\u200bproj-E4uTOrACXDFRAHIJoHSURtp5ZG4AMGAas0Qu", "E4uTOrACXDFRAHIJoHSURtp5ZG4AMGAas0Qu"),
    ("obfuscated", "copy this: ｇｈｐ＿ＰｕＨｄＧＪｍ２ＯＳＫｃａｇＹＦｗＭｙｉｉｚＶｏＶｊｗ７７ＣｆＨ", "ＰｕＨｄＧＪｍ２ＯＳＫｃａｇ"),
    ("obfuscated", "password Hunter\u200d2-Tango! (type it without the joiner)", "Hunter\u200d2-Tango!"),
    ("obfuscated", "I'll remember: Gl\u2060ass-Wave-91 ok", "Gl\u2060ass-Wave-91"),
    ("obfuscated", "the stripe key is sk_live_hO3B0avaD38PY7 en9uYrv2I8shwl (remove the space)", "en9uYrv2I8shwl"),
    ("obfuscated", "AKIA-N3BP-GKSZ-SEVQ-DQLA without the dashes", "N3BP-GKSZ-SEVQ-DQLA"),
    ("obfuscated", "router pw, spaced out so nobody can grep it: Q 7 r ! m 2 x P 9 k", "Q 7 r ! m 2 x P 9 k"),
    ("decoded", "`data.password` is `UGF5LUtSNDZPQ2JCM1QwVEVW`, which decodes to `Pay-KR46OCbB3T0TEV`", "Pay-KR46OCbB3T0TEV"),
]


@pytest.mark.parametrize(("family", "text", "secret"), FAMILIES, ids=[f"{f}-{i}" for i, (f, _, _) in enumerate(FAMILIES)])
def test_every_family_is_masked(family: str, text: str, secret: str) -> None:
    masked, kinds = mask(text)
    assert _gone(secret, masked), masked
    assert kinds and has_placeholder(masked)
    assert contains_secret(text) and may_contain_secret(text)


LOOKALIKES = [
    ("My password manager is 1Password.", "1Password"),
    ("I use Bitwarden for passwords, synced to my phone.", "Bitwarden"),
    ("My password is stored in KeePassXC on my laptop.", "stored"),
    ("Mi gestor de contraseñas es Dashlane.", "Dashlane"),
    ("Ich speichere meine Passwörter in Proton Pass.", "Proton Pass"),
    ("our token budget is 4096 per request", "4096"),
    ("API key rotation policy is 90 days", "90"),
    ("Company policy: passwords must be at least 14 characters long.", "14"),
    ("the fix landed in commit 3f9a2c1e7b", "3f9a2c1e7b"),
    ("The failing run id is 3b241101-e2bb-4255-8caf-4136c566a962.", "3b241101-e2bb-4255-8caf-4136c566a962"),
    ("we're on Postgres 16.2 and Python 3.11.7", "3.11.7"),
    ("fingerprint SHA256:G+m6a4Z+Uuyci5WIytjl8ZIUgvE2uk6CxnTe8f1Ep54 is the laptop", "G+m6a4Z+Uuyci5WIytjl8ZIUgvE2uk6CxnTe8f1Ep54"),
    ("our bucket lives in eu-west-1", "eu-west-1"),
    ("The md5 of the archive is d41d8cd98f00b204e9800998ecf8427e.", "d41d8cd98f00b204e9800998ecf8427e"),
    ("My GPG key ID is 0x3AFDEB23B7C1D5E9.", "0x3AFDEB23B7C1D5E9"),
    ("The age recipient is age1tmualrxluce4qc3qkwjaf7httehvwc3xkcp5hepqq2vmtlr3h9net49fye.", "age1tmualrxluce4q"),
    ("I'm a PIN-pad technician at a payments company.", "PIN-pad"),
    ("my locker is number 12 and my extension is 4417", "4417"),
    ("The Amazon order 302-4417781-5529013 hasn't arrived.", "302-4417781-5529013"),
    ("The book has ISBN 978-0-13-468599-1.", "978-0-13-468599-1"),
    ("Our AWS account ID is 482913570216.", "482913570216"),
    ("The DB password is read from the env var APP_DB_PASSWORD.", "APP_DB_PASSWORD"),
    ("I reset my password last week after the phishing email.", "phishing"),
    ("I need a new PIN for the card, the old one got blocked after 3 tries", "3 tries"),
    ("forgot my pin again, 2nd time this month", "2nd time"),
    ("the pin i set is the same as my old one", "the same as my old one"),
    ("what's the pin? it's on the back of the letter", "on the back of the letter"),
    ("my pin is one of those four digit ones", "one of those four digit ones"),
    ("the pin? no idea, ask the bank", "no idea"),
    ("password - see the vault entry", "see the vault entry"),
    ("we booked room 2210 (the big one)", "2210"),
    ("The secret ingredient is cardamom.", "cardamom"),
    ("Cache key: Linux-node-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "Linux-node"),
    ("max_output_tokens: 4096", "4096"),
    ("Cache restored from key: Linux-node-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "9f86d0818"),
    ("key: npm-linux-x64-3f9a2c1e7b4d", "npm-linux-x64-3f9a2c1e7b4d"),
    ("I love my pin collection and my password manager.", "pin collection"),
    ("Bearer of bad news, sorry", "Bearer"),
    ("We use Postgres at postgres://db.internal:5432/app", "postgres://db.internal:5432/app"),
    ("use 2000 for the deposit", "2000"),
    ("i used 1234 as an example pin in the docs", "1234"),
    ("we used 3 as the default pin length", "3"),
    ("we moved in 2019, the house i mean", "2019"),
    ("call 5550 for the office, the reception desk", "5550"),
    ("it was 2014, my password manager era", "2014"),
    ("ordered 1200 units, the pin header kind", "1200"),
    ("tom's card is the blue one", "blue one"),
]


@pytest.mark.parametrize(("text", "keep"), LOOKALIKES)
def test_lookalikes_are_not_masked(text: str, keep: str) -> None:
    masked, _ = mask(text)
    assert keep in masked, masked
    assert not has_placeholder(masked)


# --- rules as stated ---------------------------------------------------------------------------
def test_bearer_is_masked_in_any_case() -> None:
    for scheme in ("Bearer", "bearer", "BEARER", "bEaReR"):
        masked, _ = mask(f"Authorization: {scheme} Zx9Cv8Bn7Mq6Wr5Et4Yu3")
        assert "Zx9Cv8Bn7Mq6Wr5Et4Yu3" not in masked, scheme


@pytest.mark.parametrize("prefix", ["AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA"])
def test_aws_key_ids_of_every_kind_are_masked_temporary_ones_too(prefix: str) -> None:
    key = prefix + "Q3EGRT7XPLM2ZK4Q"
    assert key not in mask(f"id {key} here")[0]


def test_only_the_secret_part_is_masked_and_the_label_reads() -> None:
    assert mask("my password is hunter22.")[0] == "my password is [REDACTED:password]."
    assert mask("postgres://admin:pw123456@db:5432/x")[0] == "postgres://admin:[REDACTED:connection_string]@db:5432/x"


def test_a_passphrase_is_masked_to_the_end_of_its_clause() -> None:
    masked, _ = mask("the vault passphrase: lemon river stone 42. Thanks!")
    assert masked == "the vault passphrase: [REDACTED:passphrase]. Thanks!"


def test_invisible_characters_are_removed_from_masked_text() -> None:
    masked, _ = mask("hello\u200b world, token ghp_\u200dXy7Qm2Rk9Lp4Zt6Wv1Bn8Cd3Fg5Hj0Kl2Mq4Ns")
    assert "\u200b" not in masked and "\u200d" not in masked and "ghp_" not in masked
    assert strip_invisible("a\u200bb\u2060c\ufeffd") == "abcd"
    assert strip_invisible("👨\u200d👩\u200d👧") == "👨\u200d👩\u200d👧"  # emoji sequences keep their joiners


def test_folding_maps_spans_back_to_the_original_characters() -> None:
    view = folded("ａｂ\u200bｃ")
    assert view.text == "abc"
    assert view.original_span(0, 3, 4) == (0, 4)


def test_masking_is_idempotent() -> None:
    text = "password: Tr0ub4dor&3, card 4111 1111 1111 1111, AKIAQ3EGRT7XPLM2ZK4Q"
    once, _ = mask(text)
    assert mask(once) == (once, [])


def test_checksums_decide_numbers() -> None:
    assert [k for _, _, k in card_numbers("pay 4111 1111 1111 1111 now")] == ["card_number"]
    assert list(card_numbers("pay 4111 1111 1111 1112 now")) == []  # Luhn fails
    assert list(card_numbers("ISBN 9780262046305")) == []  # not a card issuer
    assert [k for _, _, k in ibans("GB82 WEST 1234 5698 7654 32 BIC WESTGB22")] == ["iban"]
    assert list(ibans("GB82 WEST 1234 5698 7654 33")) == []  # mod 97 fails
    phrase = "ozone repair spend idea strategy tired maximum tunnel duck total elbow cover"
    assert [k for _, _, k in seed_phrases(phrase.upper())] == ["seed_phrase"]
    assert list(seed_phrases("about above absent absorb abstract absurd abuse access accident account accuse achieve")) == []


@pytest.mark.parametrize(
    "pred", ["password", "wifi_password", "api_key", "github_token", "pin", "client_secret", "password_for_router"]
)
def test_credential_predicates(pred: str) -> None:
    assert is_secret_predicate(pred)


@pytest.mark.parametrize("pred", ["password_manager", "token_budget", "api_key_rotation_policy", "lives_in", "pinned"])
def test_predicates_about_other_things_are_not_credentials(pred: str) -> None:
    assert not is_secret_predicate(pred)


def test_find_secrets_returns_ordered_non_overlapping_spans() -> None:
    text = "aws AKIAQ3EGRT7XPLM2ZK4Q and password: tr0ub4dor&3 and Bearer abcdefghijklmnop123"
    spans = find_secrets(text)
    assert [s.kind for s in spans] == ["aws_access_key", "password", "bearer_token"]
    assert all(a.end <= b.start for a, b in itertools.pairwise(spans))


# --- properties ----------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300))
def test_masking_is_idempotent_and_never_grows_a_secret(text: str) -> None:
    once, _ = mask(text)
    assert mask(once)[0] == once


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["the", "cat", "sat", "on", "a", "mat", "and", "we", "had", "tea", "today", "in", "Berlin",
                                 "with", "my", "sister", "it", "was", "fun", "."]), max_size=60))  # fmt: skip
def test_ordinary_chat_is_left_alone(words: list[str]) -> None:
    text = " ".join(words)
    assert mask(text) == (text, [])
