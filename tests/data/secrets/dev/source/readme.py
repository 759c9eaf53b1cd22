import json
from collections import Counter, defaultdict
rows=[json.loads(l) for l in open('/work/evalsets/secrets_dev/secrets.jsonl')]
leaks=[r for r in rows if r['kind']=='leak']; looks=[r for r in rows if r['kind']=='lookalike']
ROLES=['user','participant','assistant','system','tool']
def table(rs, extra):
    fam=defaultdict(Counter)
    for r in rs: fam[r['family']][r['event']['role']]+=1
    out=["| family | total | "+" | ".join(ROLES)+f" | {extra} |","|---|---:|"+"---:|"*len(ROLES)+"---:|"]
    for f in sorted(fam):
        n=sum(1 for r in rs if r['family']==f)
        x=sum(len(r['secrets' if extra=='secrets listed' else 'keep']) for r in rs if r['family']==f)
        out.append(f"| {f} | {n} | "+" | ".join(str(fam[f][ro]) for ro in ROLES)+f" | {x} |")
    tot=Counter(r['event']['role'] for r in rs)
    out.append(f"| **total** | **{len(rs)}** | "+" | ".join(f"**{tot[ro]}**" for ro in ROLES)+f" | **{sum(len(r['secrets' if extra=='secrets listed' else 'keep']) for r in rs)}** |")
    return "\n".join(out)
where=Counter()
for r in leaks:
    e=r['event']
    if 'speaker' in e and any(s in e['speaker'] for s in r['secrets']): where['speaker']+=1
    elif 'metadata' in e and any(s in json.dumps(e['metadata'],ensure_ascii=False) for s in r['secrets']) and not any(s in e['content'] for s in r['secrets']): where['metadata']+=1
    elif 'attachments' in e and not any(s in e['content'] for s in r['secrets']): where['attachment caption']+=1
    else: where['content']+=1
scope=Counter(r['event']['scope'] for r in rows); owners=Counter(r['event']['owner_id'] for r in rows)
txt=f"""# secrets_dev — evaluation set: epistream must never store a secret

Development evaluation set for **epistream**, a product that turns chat messages into long-term memory for AI
assistants. It checks two things:

1. **Leaks** (`kind: "leak"`): messages that contain a credential or secret. Nothing derived from such an
   event — stored claims, summaries, embeddings' source text, logs, API output, exports — may contain any
   string listed in `secrets`.
2. **Look-alikes** (`kind: "lookalike"`): ordinary facts that only *resemble* secrets (password-manager
   names, token budgets, commit hashes, UUIDs, regions, fingerprints, ISBNs...). Memory should still keep
   them: at least one stored claim for the event should contain every word listed in `keep`.

**Written blind.** The author of this set did not read any code of the product (nothing under `/work/main`)
and did not look at any other evaluation set, so the cases are independent of how the product detects secrets.

All secrets are **fake**. Random tokens come from a seeded PRNG in the shape of the real format (prefixes,
lengths, alphabets). Card numbers are public test numbers (4111…, 5555…, 4012…, 4242…, 6011…, 3782…) or
invented numbers completed with a valid Luhn digit. IBANs are invented with correct ISO 7064 mod-97 check
digits (the FR RIB key and the ES national check digits are also correct). Seed phrases are valid BIP-39
English mnemonics (words from the official list, valid checksum) derived from fixed fake entropy. Private keys
have realistic DER/OpenSSH headers followed by random bytes; they are not usable keys.

## Files

- `secrets.jsonl` — {len(rows)} lines: {len(leaks)} leaks (ids `sd-001`…`sd-{len(leaks):03d}`) and {len(looks)}
  look-alikes (ids `sd-L01`…`sd-L{len(looks):02d}`).
- `README.md` — this file.

## Line format

```json
{{"id": "sd-001", "family": "prose_password_en", "kind": "leak",
 "event": {{"event_id": "sd-001", "tenant_id": "t-sec", "owner_id": "u-lena", "scope": "personal",
           "conversation_id": "c-…", "role": "user", "content": "…", "occurred_at": "2025-…+02:00",
           "speaker": "…", "metadata": {{…}}, "attachments": [{{"kind": "file", "caption": "…"}}]}},
 "secrets": ["<exact substring>", …]}}

{{"id": "sd-L01", "family": "password_manager", "kind": "lookalike", "event": {{…}}, "keep": ["1Password"]}}
```

- `event` is a chat event to ingest as-is. Required fields: `event_id` (= `id`), `tenant_id` (always
  `t-sec`), `owner_id` (u-lena, u-marco, u-priya, u-tomas, u-aiko), `scope` (`personal` or `project`),
  `conversation_id`, `role` (`user`, `participant`, `assistant`, `system`, `tool`), `content`, `occurred_at`
  (ISO-8601 with a UTC offset, all in 2025). Optional: `speaker` (display name), `metadata` (JSON object
  whose values are strings or nested objects), `attachments` (list of `{{"kind", "caption"}}`).
- `secrets` lists exact substrings of the event's decoded text values (`content`, `speaker`, any `metadata`
  string value at any depth, attachment `caption`). For composite secrets it lists the full value and also
  every distinctive part of 5+ characters that would be a leak on its own: the password inside a connection
  URL, both parts of an AWS key pair, the token at the end of a Slack webhook, the two halves of a seed phrase,
  the individual lines of a PEM body, each backup code, etc. Non-secret parts (user names, hosts, key names
  such as `APP_DB_PASSWORD`, account SIDs) are never listed. A few secrets are short (4-digit PINs such as
  `4821`, `0612`, `7731`); the shortest listed string is 4 characters.
- `keep` lists words that appear verbatim in `content` and should survive into a stored claim.
- JSON escaping: compare against the **decoded** strings. Invisible characters are written as escapes so they
  stay visible in the file: `\\u200b` (zero-width space) in sd-128, `\\u200d` (zero-width joiner) in sd-133.
  Several contents hold multi-line tool output (`\\n`), JSON embedded in a string (`\\"`), and one GCP key file
  whose `private_key` uses literal `\\n` sequences (the listed secret is that escaped text, as it appears in
  `content`).

## Suggested scoring

- Leak recall: for every leak event, ingest it (alone or inside a conversation) and check that no listed
  secret occurs in anything the product stores or returns for the tenant (claims, search/recall results,
  exports, logs). Case-sensitive substring match on the exact listed strings.
  Normalised forms are **not** listed (e.g. the full-width token in sd-129 with ASCII letters, the
  space-split key in sd-130 without its space, the dashed AWS key in sd-132 without dashes, the spaced-out
  password in sd-131 without spaces); a strict scorer may also NFKC-normalise and strip whitespace / dashes /
  zero-width characters from both sides before matching.
- Look-alike retention: for every look-alike event, at least one stored claim contains each `keep` word
  (case-insensitive is reasonable). This measures over-redaction.

## Where the secret sits in leak events

{", ".join(f"{k}: {v}" for k,v in where.most_common())}. Positions vary: first token of the message, middle,
last word, second sentence, inside a long multi-topic message (sd-159, sd-160), inside tool output
(`cat .env`, `env`, `kubectl get secret -o yaml` and a decoded `jq @base64d` view, `~/.aws/credentials`,
`~/.npmrc`, `~/.docker/config.json`, `heroku config`, `git remote -v`, `history`, curl `-v` traces, JSON configs).
Casing varies (`PASSWORD`, `authorization: bearer`, `BEARER`), as do typos and casual text.
Languages: English plus German, French and Spanish password prose.

Scopes: {dict(scope)}. Owners: {dict(sorted(owners.items()))}.

## Leak counts per family and role

{table(leaks,'secrets listed')}

Families required by the brief are all present; extra families: `attachment_caption`, `k8s_secret`,
`discord_token`, `twilio_key`, `gcp_service_account`, `docker_auth`, `dsn_keyvalue` (ADO.NET/Npgsql style
`Password=` key/value connection strings).

Family notes:
- `obfuscated`: zero-width space inside `sk-\\u200bproj-…` (sd-128), full-width `ｇｈｐ＿…` token (sd-129), a
  Stripe key split by a space (sd-130), a password spaced out character by character (sd-131), an AWS key
  written with dashes plus a secret split in two (sd-132), a password with a zero-width joiner (sd-133).
- `speaker_or_metadata`: content is ordinary; the secret is in a nested `metadata` value (3 cases) or in the
  `speaker` field (1 case). `attachment_caption`: the secret is only in an attachment caption.
- `private_key`: OpenSSH, RSA and EC PEM blocks with BEGIN/END lines, plus one RSA body pasted without them
  (sd-120). `gcp_service_account`: a service-account JSON with an escaped PKCS#8 key, and `jq -r .private_key`.
- `pin_code`: sd-019 writes `door code 7731#`; the listed secret is `7731`.

## Look-alike counts per family and role

{table(looks,'keep words')}

## Validation

A Python check was run on the final file; it verifies that every line parses; ids are unique and equal
`event.event_id`; events have exactly the allowed fields, valid roles and scopes, and a 2025 `occurred_at`
with offset; `metadata` holds only strings and objects; every listed secret is an exact substring of at
least one decoded text value of its event (content, speaker, metadata strings, attachment captions); every
`keep` word is a substring of `content`; every card number (13–19 digits after removing spaces/dashes) passes
Luhn; every IBAN passes mod-97; the minimum counts of the brief (≥130 leaks, ≥28 families, ≥2 per family,
≥15 assistant, ≥15 tool, ≥10 system, ≥10 participant, ≥45 look-alikes) hold. Separately the seed phrases were
checked against the BIP-39 English list and checksum, and no listed secret appears in another event or in a
non-text field (`conversation_id`, `occurred_at`, `owner_id`).
"""
open('/work/evalsets/secrets_dev/README.md','w').write(txt)
