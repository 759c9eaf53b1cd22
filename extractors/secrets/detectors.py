"""Secrets by shape: vendor token formats, credentials in assignments, headers, URLs and command
lines, private keys, and high-entropy strings.

Vendor formats come first from detect-secrets (Yelp's maintained scanner, used in-process): its
regex plugins' patterns (AWS, Azure storage, Discord, GitHub, GitLab, JWT, Mailchimp, npm, OpenAI,
PyPI, SendGrid, Slack, Square, Stripe, Telegram, Twilio, IBM, SoftLayer, Cloudant, Artifactory,
basic-auth URLs), its keyword list for assignments, its heuristic filters (templated values,
``$VAR`` references, UUIDs, sequential strings) and its Shannon entropy. What it lacks for chat —
newer token formats (Anthropic, Hugging Face, fine-grained GitHub, Stripe webhook secrets, Google
OAuth, Atlassian, DigitalOcean, Databricks, Shopify, Mailgun, Discord webhooks), lower-case or
upper-case auth schemes, ``redis://:pw@`` URLs with no user, command-line passwords (``curl -u``,
``mysql -pX``, ``sshpass -p``), key bodies pasted without their BEGIN/END lines — is added here.

Every detector returns ``(start, end, kind)`` spans of the secret part only, so a label stays
readable ("password: [REDACTED:password]").
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Final, cast

from detect_secrets.filters.heuristic import (
    is_potential_uuid,
    is_prefixed_with_dollar_sign,
    is_sequential_string,
    is_templated_secret,
)
from detect_secrets.plugins import keyword as _ds_keyword
from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

Span = tuple[int, int, str]

#: detect-secrets plugins whose patterns are used as they are, and the kind each one masks as.
_DS_PLUGINS: Final[tuple[tuple[type[RegexBasedDetector], str], ...]] = (
    (AWSKeyDetector, "aws_access_key"),
    (AzureStorageKeyDetector, "azure_key"),
    (BasicAuthDetector, "connection_string"),
    (DiscordBotTokenDetector, "discord_token"),
    (GitHubTokenDetector, "github_token"),
    (GitLabTokenDetector, "gitlab_token"),
    (JwtTokenDetector, "jwt"),
    (MailchimpDetector, "api_key"),
    (NpmDetector, "npm_token"),
    (OpenAIDetector, "api_key"),
    (PypiTokenDetector, "api_key"),
    (SendGridDetector, "api_key"),
    (SlackDetector, "slack_token"),
    (SquareOAuthDetector, "api_key"),
    (StripeDetector, "api_key"),
    (TelegramBotTokenDetector, "api_key"),
    (TwilioKeyDetector, "api_key"),
    (ArtifactoryDetector, "api_key"),
)

#: Formats detect-secrets does not know (or knows too narrowly for chat). Group ``s`` is the secret.
_EXTRA: Final[tuple[tuple[str, str], ...]] = (
    ("api_key", r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}"),
    ("api_key", r"\b(?:sk|rk)-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{20,}"),
    ("api_key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}"),
    ("api_key", r"\bwhsec_[A-Za-z0-9+/=]{16,}"),
    ("api_key", r"\bhf_[A-Za-z0-9]{20,}"),
    ("api_key", r"\bAIza[0-9A-Za-z_-]{30,}"),
    ("api_key", r"\bya29\.[0-9A-Za-z_-]{20,}"),
    ("api_key", r"\bATATT3[A-Za-z0-9_=-]{30,}"),
    ("api_key", r"\bdo[opr]_v1_[a-f0-9]{32,}"),
    ("api_key", r"\bdapi[a-f0-9]{32}(?:-\d+)?\b"),
    ("api_key", r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{24,}"),
    ("api_key", r"\bkey-[a-f0-9]{32}\b"),
    ("api_key", r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    ("api_key", r"\bglc?[a-z]{1,5}-[A-Za-z0-9_-]{20,}"),
    ("api_key", r"\b\d{8,10}:AA[A-Za-z0-9_-]{30,}"),
    ("api_key", r"\bpypi-[A-Za-z0-9_-]{40,}"),
    ("npm_token", r"\bnpm_[A-Za-z0-9]{30,}"),
    ("github_token", r"\bgh[pousr]_[A-Za-z0-9_]{30,}"),
    ("github_token", r"\bgithub_pat_[A-Za-z0-9_]{22,}"),
    ("slack_token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}"),
    ("webhook_url", r"(?i)https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{10,}"),
    ("webhook_url", r"(?i)https?://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}"),
    ("webhook_url", r"(?i)https?://[\w.-]*webhook\.office\.com/[^\s\"'<>]{20,}"),
    ("aws_access_key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
    # written with separators to dodge a scanner: AKIA-N3BP-GKSZ-SEVQ-DQLA
    ("aws_access_key", r"\b(?:AKIA|ASIA)(?:[-_ ][A-Z0-9]{4}){4}\b"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    (
        "azure_key",
        r"(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature|SharedSecret)\s*=\s*(?P<s>[^;\s\"'`]{8,})",
    ),
    ("azure_key", r"[?&](?:sig|sv|se)=(?P<s>[A-Za-z0-9%+/=]{20,})"),
    # scheme://user:password@host, the user may be empty (redis://:pw@host)
    ("connection_string", r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}://[^\s:/@\"'`]{0,100}:(?P<s>[^\s@/\"'`]{1,200})@[^\s/@]"),
    ("bearer_token", r"(?i:\bbearer)\s+(?P<s>[A-Za-z0-9\-._~+/]{8,}=*)"),
    (
        "bearer_token",
        r"(?i:\bauthorization\b)[\"']?\s*[:=]\s*[\"']?(?i:token|digest|apikey|api-key|sso-key)\s+"
        r"(?P<s>[A-Za-z0-9\-._~+/=:,\"]{8,})",
    ),
    ("basic_auth", r"(?i:\bbasic)\s+(?P<s>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])"),
    ("api_key", r"(?i)\bx-(?:api-key|auth-token|access-token|apikey)\b[\"']?\s*[:=]\s*[\"']?(?P<s>[^\s\"',;]{8,})"),
    # command lines: curl -u user:pass, --password X, mysql -pX, sshpass -p X, redis-cli -a X, docker login -p X
    ("password", r"(?:^|\s)(?:-u|--user)\s+[\"']?[^\s:\"']{1,64}:(?P<s>[^\s\"']{1,200})"),
    (
        "password",
        r"(?i)(?:^|\s)--(?:password|passwd|pass|token|secret|api-key|apikey|auth-token|access-token|client-secret|"
        r"private-key|key)(?:=|\s+)[\"']?(?P<s>[^\s\"']{1,200})",
    ),
    (
        "password",
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p"
        r"(?P<s>(?:'[^'\s]+'|\"[^\"\s]+\"|[^\s'\"-][^\s'\"]*))",
    ),
    ("password", r"\bsshpass\s+-p\s*(?P<s>'[^'\n]+'|\"[^\"\n]+\"|\S+)"),
    ("password", r"\bredis-cli\b[^\n|;&]*?\s-a\s+(?P<s>'[^'\n]+'|\"[^\"\n]+\"|\S+)"),
    (
        "password",
        r"\b(?:docker|podman|nerdctl|helm\s+registry|oras|skopeo)\s+login\b[^\n|;&]*?\s-p\s+"
        r"(?P<s>'[^'\n]+'|\"[^\"\n]+\"|\S+)",
    ),
    ("password", r"\bhtpasswd\b[^\n]*?\s-b\S*\s+\S+\s+\S+\s+(?P<s>\S+)"),
    ("password", r"(?i)\bIDENTIFIED\s+BY\s+(?P<s>'[^'\n]+'|\"[^\"\n]+\")"),
    (
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"|[A-Za-z0-9+/=\s\\:,-]*)",
    ),
    ("private_key", r"PuTTY-User-Key-File-\d[\s\S]*?Private-MAC:\s*\S+"),
    ("cookie", r"(?im)^[>< \t]*(?:set-)?cookie:[ \t]*(?P<s>\S[^\n]*)"),
    # terraform output -json and similar: a value marked sensitive
    ("secret", r"\"sensitive\"\s*:\s*true\s*,[^{}]{0,300}?\"value\"\s*:\s*\"(?P<s>[^\"\n]{4,})\""),
    ("private_key", r"\bAGE-SECRET-KEY-1[A-Z0-9]{50,}"),
)

#: (kind, pattern, group of the secret or 0 for the whole match): detect-secrets' basic-auth URL and
#: AWS secret patterns capture the secret in group 1; its other groups only hold a prefix.
_DS_PATTERNS: Final[tuple[tuple[str, re.Pattern[str], int], ...]] = tuple(
    (kind, pattern, 1 if plugin is BasicAuthDetector or (plugin is AWSKeyDetector and pattern.groups) else 0)
    for plugin, kind in _DS_PLUGINS
    for pattern in cast(Iterable[re.Pattern[str]], plugin.denylist)
)
_EXTRA_PATTERNS: Final = tuple((kind, re.compile(p), -1) for kind, p in _EXTRA)

#: Base64 body lines of a key pasted without BEGIN/END: two or more long lines of only base64.
_KEY_BODY: Final = re.compile(
    r"(?m)(?:^[ \t]*[A-Za-z0-9+/]{40,}={0,2}[ \t]*(?:\n|$)){2,}(?:^[ \t]*[A-Za-z0-9+/]{4,}={0,2}[ \t]*$)?"
)

# ---------------------------------------------------------------- assignments
#: Name parts that make an assignment's value a credential. detect-secrets' keyword list, plus the
#: token, auth and credential names of env files, YAML, JSON and connection strings.
_NAME_WORDS: Final = (
    *_ds_keyword.DENYLIST,
    r"pass(?:word|wd|phrase|code)?",
    r"pw",
    r"token",
    r"auth(?:_?token|_?key)?",
    r"secret(?:_?key)?",
    r"credentials?",
    r"creds",
    r"access_?key(?:_?id)?",
    r"signing_?key",
    r"encryption_?key",
    r"master_?key",
    r"session_?key",
    r"psk",
    r"pin",
    r"otp",
    r"totp_?seed",
    r"mnemonic",
    r"seed(?:_?phrase)?",
    r"private_?key",
    r"sas",
    r"dsn",
    r"webhook(?:_?url)?",
    r"cookie",
    r"sessionid",
    r"_authToken",
    r"key",
)
#: Names that contain such a part but hold no secret.
_NOT_SECRET_NAME: Final = re.compile(
    r"(?i)(?:^|_|-)(?:public|pub|publishable|keyboard|keyring|keymap|keyspace|keys?_?(?:id|name|file|path|type|"
    r"size|length|alias|vault|url|uri|ref|version|rotation|format|algorithm|usage|count|prefix|hint)|token_?(?:type|"
    r"url|uri|endpoint|expires?(?:_?in|_?at)?|ttl|lifetime|limit|budget|count|name|path|file)|password_?(?:policy|"
    r"length|min|max|file|hint|reset|expires?|changed|rules?|strength|manager|set)|pin_?(?:code_?length|length)|"
    r"primary_?key|foreign_?key|partition_?key|sort_?key|cache_?key|idempotency_?key|routing_?key|hotkey|monkey|"
    r"turkey|donkey|jockey|hockey|whiskey|keynote|keystone|keystroke|keyword|pinned|pinterest|pinyin|spinner|"
    r"passport|passenger|bypass|compass|passive|passthrough|surpass|pinot|lockey)(?:$|_|-)|^(?:max|min)_|_count$|"
    r"(?i:tokens?_?(?:per|used|limit|budget|max|in|out))"
)
_NAME: Final = r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}"
#: NAME = value, NAME: value, "NAME": "value" (env files, YAML, JSON, INI, ADO.NET strings).
_ASSIGN: Final = re.compile(
    rf"(?P<q>[\"']?)(?P<name>{_NAME})(?P=q)[ \t]*(?:=|:(?!//)|:=|=>)[ \t]*"
    r"(?:(?P<quote>[\"'`])(?P<qv>[^\"'`\n]{1,500})(?P=quote)|(?P<v>[^\s\"'`;,{\[][^\s\"'`;,]{0,499}))"
)
_NAME_WORD: Final = re.compile(
    r"(?i)(?:^|[_\-.]|(?<=[a-z])(?=[A-Z])|\b)(?:" + "|".join(_NAME_WORDS) + r")(?:$|[_\-.]|(?=[A-Z])|\d|s\b)"
)
_PLACEHOLDER_VALUE: Final = re.compile(
    r"(?i)^(?:|\*+|x+|\.+|-+|_+|null|none|nil|true|false|yes|no|on|off|changeme|change_me|placeholder|example|"
    r"secret|password|redacted|hidden|masked|required|optional|todo|tbd|xxx+|your[_-]?\w*|<[^>]*>|\{\{.*\}\}|"
    r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%\w+%|env\(.*\)|process\.env\.\w+|os\.environ.*|\[REDACTED(?::[a-z_]+)?\]|"
    r"\d{1,3}|bearer|basic|string|str|int|bool|text|[a-z]+://?)$"
)


def _camel_or_snake_has_secret_word(name: str) -> bool:
    if re.search(r"(?i)private_?key_?id$", name):
        return True  # a service account's key id is listed with its key
    if _NOT_SECRET_NAME.search(name):
        return False
    return _NAME_WORD.search(name) is not None


def credential_name(name: str) -> bool:
    """Whether a key of an env file, JSON, YAML or a connection string names a credential."""
    return _camel_or_snake_has_secret_word(name)


def value_is_secret(value: str) -> bool:
    """Whether an assignment's value is a real value, not a placeholder, reference or template."""
    if _PLACEHOLDER_VALUE.match(value):
        return False
    if value.startswith("[REDACTED"):
        return False
    if is_templated_secret(value) or is_prefixed_with_dollar_sign(value):
        return False
    if len(value) >= 4 and is_sequential_string(value):
        return False
    return not (is_potential_uuid(value) and len(value) == 36)


#: Words before a bare ``key``/``token`` label that make it something else ("cache key: …").
_GENERIC_NAME: Final = frozenset({"key", "token", "secret", "pin", "code", "auth", "pass"})
_MODIFIER_BEFORE: Final = re.compile(
    r"(?i)\b(?:cache|primary|foreign|sort|partition|routing|idempotency|public|license|licence|product|"
    r"registry|shard|hash|object|map|dictionary|dict|lookup|index|row|column|join|s3|bucket|kms|gpg|pgp|"
    r"ssh|deploy\s+public|host|signing\s+public|rate[- ]limit|max|min|output|input|bus|boarding|subway|"
    r"metro|ski|day|season|event|hall|zip|post|area|country|status|error|exit|promo|discount|coupon|"
    r"music|piano|answer|major|minor)[ \t]+$"
)
#: A JSON object under a credential key whose value sits in a generic field:
#: ``"db_password": {"sensitive": true, "type": "string", "value": "…"}``.
_NESTED_VALUE: Final = re.compile(
    rf"\"(?P<name>{_NAME})\"\s*:\s*\{{[^{{}}]{{0,300}}?\"(?:value|current|secret|data)\"\s*:\s*\"(?P<v>[^\"\n]{{4,}})\""
)
#: A shell command that reads a credential, then its output alone on the next line:
#: ``$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d`` / ``S3cr3t!``.
_READ_COMMAND: Final = re.compile(
    r"(?im)^[ \t]*(?:[\w.-]+@[\w.-]+(?::[^\s$#%]*)?[ \t]*|\([\w.-]+\)[ \t]*|PS [^>\n]*)?(?:\$|#|>|%|❯)[ \t]+"
    r"[^\n]*?(?:passw|secret|token|api[_-]?key|credential|\bkey\b|"
    r"private|base64\s+(?:-d|--decode)|@base64d|-field=|jsonpath)[^\n]*\n[ \t]*(?P<v>[^\s$#>%][^\s$%]{3,})"
    r"(?=[ \t]*(?:\n|$)|[$%#]|\S*[@:][^\s]*[$#%])"
)


#: What a decoding command prints is the decoded secret, whatever it looks like (spaces included).
_DECODED_LINE: Final = re.compile(
    r"(?im)^[^\n]*(?:\$|#|%|>|❯)[ \t]+[^\n]*(?:secret|passw|token|key)[^\n]*\|[ \t]*(?:base64\s+(?:-d|--decode|-D)"
    r"|openssl\s+(?:base64|enc)\s+-d)[^\n]*\n(?P<v>[^\n$%#]+)"
)
_PROMPT: Final = re.compile(r"^[\w.-]*@[\w.-]+|^\S*[$#%>] ")


def assignments(text: str) -> Iterator[Span]:
    for m in _NESTED_VALUE.finditer(text):
        if credential_name(m.group("name")) and value_is_secret(m.group("v").strip()):
            yield m.start("v"), m.end("v"), "secret"
    for m in _DECODED_LINE.finditer(text):
        line = m.group("v").rstrip()
        if 4 <= len(line) <= 100 and not _PROMPT.match(line):
            yield m.start("v"), m.start("v") + len(line), "secret"
    for m in _READ_COMMAND.finditer(text):
        if value_is_secret(m.group("v")) and not m.group("v").lower().startswith(("error", "usage", "warning")):
            yield m.start("v"), m.end("v"), "secret"
    pos = 0
    while (a := _ASSIGN.search(text, pos)) is not None:
        m = a
        name = m.group("name")
        # a value may hold an assignment of its own (--from-literal=password=…): look again inside it
        group = "qv" if m.group("qv") is not None else "v"
        pos = max(m.start(group) if "=" in m.group(group) else m.end(), m.start() + 1)
        if not credential_name(name):
            continue
        if name.lower() in _GENERIC_NAME and (
            _MODIFIER_BEFORE.search(text, max(0, m.start() - 40), m.start())
            or "cache" in text[max(0, m.start() - 40) : m.start()].lower()
            or _structured(m.group(group).strip("\"'`"))
        ):
            continue  # "Cache restored from key: Linux-node-9f86…", "key: build-v2-7f3a": identifiers
        group = "qv" if m.group("qv") is not None else "v"
        value = m.group(group)
        if group == "v":
            value = value.rstrip(".,)")
        if not value_is_secret(value.strip()):
            continue
        start = m.start(group)
        kind = "password" if re.search(r"(?i)pass|pwd|pw\b|pin", name) else "api_key"
        yield start, start + len(value), kind


# ---------------------------------------------------------------- entropy
_B64ISH: Final = re.compile(r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/_\-]{20,}={0,2}(?![A-Za-z0-9+/=_\-])")
_HEX: Final = re.compile(r"(?<![A-Za-z0-9])[a-fA-F0-9]{32,}(?![A-Za-z0-9])")
#: Before a high-entropy string that is public by nature: a fingerprint, a digest, a public key.
_PUBLIC_BEFORE: Final = re.compile(
    r"(?i)(?:sha(?:1|224|256|384|512)?|md5|sha-\d+|blake2b?|fingerprint|digest|checksum|hash|integrity)"
    r"[\s:=\"'-]*$|(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+$|"
    # the id of a shared document, a video or a record: public by design, not a credential
    r"\b(?:sheet|doc|document|spreadsheet|video|playlist|folder|file|project|request|trace|order|build|run|job|"
    r"issue|ticket|device|commit|release|track|album|channel)[\s_-]+id\s*(?:is|was|=|:)?\s*$"
)
_KEY_CUE: Final = re.compile(
    r"(?i)\b(?:key|token|secret|passw\w*|pwd|pw|credentials?|creds|auth\w*|signing|signature|api|bearer|"
    r"session|cookie|psk|otp|hmac|salt|private|schlüssel|clé|clave|chiave|chave|senha|kennwort|passwort)\b"
)
_NOT_KEY_CUE: Final = re.compile(
    r"(?i)\b(?:public[ _-]?key|key[ _-]?id|cache[ _-]?key|commit|sha\d*|md5|checksum|digest|hash|fingerprint|"
    r"uuid|guid|request[ _-]?id|trace[ _-]?id|build|image|revision|rev|etag|ami|cache[sd]?|caching)\b"
)


_SEGMENT: Final = re.compile(
    r"[a-z]{1,16}|[A-Z][a-z]{0,15}|[A-Z]{1,8}|[0-9a-f]{4,}|[0-9A-F]{4,}|\d{1,8}|v\d+|[a-z]{1,10}\d{1,4}"
)


def _structured(value: str) -> bool:
    """A name built of words, numbers and hex digests ("Linux-node-9f86d08…"): an identifier, not a key."""
    parts = [p for p in re.split(r"[-_.:/]", value) if p]
    return len(parts) >= 2 and all(_SEGMENT.fullmatch(p) for p in parts)


def shannon(value: str) -> float:
    counts: dict[str, int] = {}
    for c in value:
        counts[c] = counts.get(c, 0) + 1
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in counts.values())


def _mixed(value: str) -> bool:
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)


def _clause_before(text: str, start: int, width: int = 80) -> str:
    lo = max(0, start - width)
    before = text[lo:start]
    cut = max(before.rfind("\n"), before.rfind(". "))
    return before[cut + 1 :] if cut >= 0 else before


def high_entropy(text: str) -> Iterator[Span]:
    """Random-looking strings: long mixed-case ones anywhere, shorter or hex ones after a credential word."""
    for m in _B64ISH.finditer(text):
        value = m.group(0)
        core = value.rstrip("=")
        if not _mixed(core) or sum(c.isdigit() for c in core) < 2:
            continue
        before = text[max(0, m.start() - 40) : m.start()]
        if _PUBLIC_BEFORE.search(before):
            continue
        clause = _clause_before(text, m.start())
        cued = _KEY_CUE.search(clause) is not None and _NOT_KEY_CUE.search(clause) is None
        entropy = shannon(core)
        random = (len(core) >= 32 and entropy >= 4.2) or (cued and len(core) >= 16 and entropy >= 3.5)
        if random and not _structured(core):
            if re.fullmatch(r"[a-z]+(?:[-_][a-z0-9]+)+", core):  # kebab/snake names
                continue
            yield m.start(), m.end(), "secret"
    for m in _HEX.finditer(text):
        clause = _clause_before(text, m.start())
        before = text[max(0, m.start() - 40) : m.start()]
        if _KEY_CUE.search(clause) and not _NOT_KEY_CUE.search(clause) and not _PUBLIC_BEFORE.search(before):
            yield m.start(), m.end(), "secret"


# ---------------------------------------------------------------- key bodies and decoded values
def key_bodies(text: str) -> Iterator[Span]:
    for m in _KEY_BODY.finditer(text):
        block = m.group(0)
        letters = re.sub(r"\s", "", block)
        if len(letters) >= 120 and _mixed(letters) and shannon(letters) >= 5.0:
            start = m.start() + (len(block) - len(block.lstrip()))
            yield start, m.start() + len(block.rstrip()), "private_key"


def decoded(value: str) -> str | None:
    """The text a base64 value encodes, if it is printable (a Basic credential, a k8s secret's data)."""
    core = value.strip().strip("`'\"")
    if len(core) < 8 or not re.fullmatch(r"[A-Za-z0-9+/_-]+={0,2}", core):
        return None
    padded = core + "=" * (-len(core) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        out = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if len(out) < 4 or not out.isprintable():
        return None
    return out


def patterns() -> Iterable[tuple[str, re.Pattern[str], int]]:
    """Every shape pattern: (kind, pattern, group) with group -1 for the named group ``s`` (or all)."""
    yield from _DS_PATTERNS
    yield from _EXTRA_PATTERNS


@lru_cache(maxsize=1)
def _all_patterns() -> tuple[tuple[str, re.Pattern[str], int], ...]:
    return tuple(patterns())


def shapes(text: str) -> Iterator[Span]:
    """Vendor formats, auth headers, URLs with a password, command-line passwords, private keys."""
    for kind, pattern, group in _all_patterns():
        for m in pattern.finditer(text):
            if group == -1 and "s" in pattern.groupindex:
                if m.group("s") is None:
                    continue
                start, end = m.start("s"), m.end("s")
            elif group > 0 and m.group(group) is not None:
                start, end = m.start(group), m.end(group)
            else:
                start, end = m.start(), m.end()
                raw = m.group(0)
                # detect-secrets' patterns may include the delimiter around the token
                start += len(raw) - len(raw.lstrip(" =:\"\t\n"))
                end -= len(raw) - len(raw.rstrip(" \"\t\n"))
            if end > start:
                yield start, end, kind
