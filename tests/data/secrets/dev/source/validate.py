#!/usr/bin/env python3
import json
import re
import sys
from collections import Counter
from datetime import datetime

PATH = sys.argv[1] if len(sys.argv) > 1 else "/work/evalsets/secrets_dev/secrets.jsonl"
REQ = {"event_id", "tenant_id", "owner_id", "scope", "conversation_id", "role", "content", "occurred_at"}
OPT = {"speaker", "metadata", "attachments"}
ROLES = {"user", "participant", "assistant", "system", "tool"}
errors = []


def err(i, msg):
    errors.append(f"{i}: {msg}")


def luhn(num):
    d = [int(c) for c in num]
    t = 0
    for k, x in enumerate(reversed(d)):
        if k % 2:
            x *= 2
            x -= 9 if x > 9 else 0
        t += x
    return t % 10 == 0


def mod97(iban):
    s = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in s)) % 97 == 1


def meta_strings(v, path="metadata"):
    if isinstance(v, str):
        yield path, v
    elif isinstance(v, dict):
        for k, x in v.items():
            if not isinstance(k, str):
                raise TypeError("non-string key")
            yield from meta_strings(x, f"{path}.{k}")
    else:
        raise TypeError(f"metadata value at {path} is {type(v).__name__}, not string/object")


rows = []
with open(PATH, encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
        try:
            rows.append(json.loads(line))
        except Exception as e:
            err(f"line {n}", f"parse error {e}")

ids = Counter(r.get("id") for r in rows)
for k, v in ids.items():
    if v > 1:
        err(k, "duplicate id")

fam = {"leak": Counter(), "lookalike": Counter()}
roles = {"leak": Counter(), "lookalike": Counter()}
cards = ibans = 0
for r in rows:
    i = r.get("id")
    kind = r.get("kind")
    if kind not in fam:
        err(i, f"bad kind {kind}")
        continue
    ev = r["event"]
    keys = set(ev)
    if not REQ <= keys or keys - REQ - OPT:
        err(i, f"bad event keys {sorted(keys)}")
    if ev.get("event_id") != i:
        err(i, "event_id != id")
    if ev.get("tenant_id") != "t-sec":
        err(i, "tenant")
    if ev.get("scope") not in ("personal", "project"):
        err(i, "scope")
    if ev.get("role") not in ROLES:
        err(i, "role")
    try:
        dt = datetime.fromisoformat(ev["occurred_at"])
        if dt.tzinfo is None or dt.year != 2025:
            err(i, "occurred_at needs offset and 2025")
    except Exception:
        err(i, "occurred_at unparsable")
    texts = [("content", ev["content"])]
    if "speaker" in ev:
        if not isinstance(ev["speaker"], str):
            err(i, "speaker not str")
        texts.append(("speaker", ev["speaker"]))
    if "metadata" in ev:
        if not isinstance(ev["metadata"], dict):
            err(i, "metadata not object")
        try:
            texts += list(meta_strings(ev["metadata"]))
        except TypeError as e:
            err(i, str(e))
    for a in ev.get("attachments", []):
        if not isinstance(a, dict) or "kind" not in a:
            err(i, "attachment shape")
        if "caption" in a:
            texts.append(("attachment.caption", a["caption"]))
    fam[kind][r["family"]] += 1
    roles[kind][ev["role"]] += 1
    if kind == "leak":
        secs = r.get("secrets")
        if not secs or "keep" in r:
            err(i, "leak needs secrets, no keep")
            continue
        for s in secs:
            if not isinstance(s, str) or not s:
                err(i, "empty secret")
                continue
            if not any(s in t for _, t in texts):
                err(i, f"secret not found verbatim: {s!r}")
            if len(s) < 4:
                err(i, f"secret too short to evaluate: {s!r}")
            digits = re.sub(r"[ -]", "", s)
            if digits.isdigit() and 13 <= len(digits) <= 19:
                cards += 1
                if not luhn(digits):
                    err(i, f"Luhn fails: {s}")
            compact = s.replace(" ", "")
            if re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", compact):
                ibans += 1
                if not mod97(compact):
                    err(i, f"IBAN mod-97 fails: {s}")
        if r["family"] == "credit_card" and not any(
                re.sub(r"[ -]", "", s).isdigit() and len(re.sub(r"[ -]", "", s)) >= 13 for s in secs):
            err(i, "credit_card row without a card number")
        if r["family"] == "iban" and not any(re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", s.replace(" ", "")) for s in secs):
            err(i, "iban row without an IBAN")
    else:
        keep = r.get("keep")
        if not keep or "secrets" in r:
            err(i, "lookalike needs keep, no secrets")
            continue
        for k in keep:
            if k not in ev["content"]:
                err(i, f"keep word not in content: {k!r}")

# requirements from the brief
nleak = sum(fam["leak"].values())
nlook = sum(fam["lookalike"].values())
if nleak < 130:
    errors.append(f"only {nleak} leaks")
if len(fam["leak"]) < 28:
    errors.append(f"only {len(fam['leak'])} leak families")
for f_, c in fam["leak"].items():
    if c < 2:
        errors.append(f"family {f_} has {c} < 2")
need = {"assistant": 15, "tool": 15, "system": 10, "participant": 10}
for ro, m in need.items():
    if roles["leak"][ro] < m:
        errors.append(f"leak role {ro}: {roles['leak'][ro]} < {m}")
if nlook < 45:
    errors.append(f"only {nlook} lookalikes")
required = """prose_password_en prose_password_de prose_password_fr prose_password_es pin_code passphrase otp_2fa
seed_phrase credit_card iban aws_key github_token gitlab_token openai_key anthropic_key slack_token slack_webhook
stripe_key stripe_webhook sendgrid_key huggingface_token npm_token jwt bearer_header basic_auth_header
url_credentials cli_password env_file json_config azure_connection_string private_key google_api_key
generic_high_entropy obfuscated creds_pair speaker_or_metadata""".split()
for f_ in required:
    if f_ not in fam["leak"]:
        errors.append(f"missing family {f_}")

print(f"rows {len(rows)}: leaks {nleak} in {len(fam['leak'])} families, lookalikes {nlook} in {len(fam['lookalike'])} families")
print(f"secrets listed: {sum(len(r.get('secrets', [])) for r in rows)}; card numbers Luhn-checked: {cards}; IBANs mod-97-checked: {ibans}")
for kind in ("leak", "lookalike"):
    print(f"{kind} roles:", dict(sorted(roles[kind].items())))
    print(f"{kind} families:", dict(sorted(fam[kind].items())))
if errors:
    print("ERRORS:")
    for e in errors:
        print(" ", e)
    sys.exit(1)
print("OK: all checks passed")
