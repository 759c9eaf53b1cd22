#!/usr/bin/env python3
"""Validate secrets.jsonl (held-out secret-leak eval set). Exit code 1 on any error."""
import collections, datetime, hashlib, json, os, re, sys, unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "secrets.jsonl")
WORDS = open(os.path.join(HERE, "bip39_english.txt")).read().split()
WIDX = {w: i for i, w in enumerate(WORDS)}
ZW = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))
EV_REQ = {"event_id", "tenant_id", "owner_id", "scope", "conversation_id", "role", "content", "occurred_at"}
EV_OPT = {"speaker", "metadata", "attachments"}
ROLES = {"user", "participant", "assistant", "system", "tool"}
IBAN_LEN = {"DE": 22, "GB": 22, "FR": 27, "NL": 18, "ES": 24}
errors = []


def err(rid, msg):
    errors.append("%s: %s" % (rid, msg))


def strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from strings(v)


def event_strings(ev):
    yield ev["content"]
    if "speaker" in ev:
        yield ev["speaker"]
    if "metadata" in ev:
        yield from strings(ev["metadata"])
    for a in ev.get("attachments", []):
        yield a.get("caption", "")


def norm(s):
    return unicodedata.normalize("NFKC", s.translate(ZW))


def luhn(d):
    s = 0
    for i, c in enumerate(reversed(d)):
        x = int(c) * (2 if i % 2 else 1)
        s += x - 9 if x > 9 else x
    return s % 10 == 0


def brand(d):
    if d[0] == "4" and len(d) == 16:
        return "Visa"
    if len(d) == 16 and (51 <= int(d[:2]) <= 55 or 2221 <= int(d[:4]) <= 2720):
        return "Mastercard"
    if len(d) == 15 and d[:2] in ("34", "37"):
        return "Amex"
    return None


def iban_ok(v):
    v = v.replace(" ", "").upper()
    if IBAN_LEN.get(v[:2]) != len(v):
        return False
    r = v[4:] + v[:4]
    return int("".join(str(int(c, 36)) for c in r)) % 97 == 1


def bip39_ok(words):
    if len(words) not in (12, 15, 18, 21, 24) or any(w not in WIDX for w in words):
        return False
    bits = "".join(bin(WIDX[w])[2:].zfill(11) for w in words)
    cs = len(words) * 11 // 33
    ent = int(bits[:-cs], 2).to_bytes((len(bits) - cs) // 8, "big")
    return bin(hashlib.sha256(ent).digest()[0])[2:].zfill(8)[:cs] == bits[-cs:]


recs, ids = [], set()
for n, line in enumerate(open(PATH, encoding="utf-8"), 1):
    try:
        r = json.loads(line)
    except Exception as e:
        err("line %d" % n, "json: %s" % e)
        continue
    recs.append(r)
    rid = r.get("id")
    if rid in ids:
        err(rid, "duplicate id")
    ids.add(rid)
    kind = r.get("kind")
    want = {"id", "family", "kind", "event"} | ({"secrets"} if kind == "leak" else {"keep"})
    if kind not in ("leak", "lookalike") or set(r) != want:
        err(rid, "bad record keys/kind %s" % sorted(r))
        continue
    if not re.fullmatch(r"sh-\d{3}" if kind == "leak" else r"sh-L\d{2}", rid):
        err(rid, "bad id pattern")
    ev = r["event"]
    keys = set(ev)
    if not EV_REQ <= keys or keys - EV_REQ - EV_OPT:
        err(rid, "bad event keys %s" % sorted(keys))
        continue
    if ev["event_id"] != rid:
        err(rid, "event_id != id")
    if ev["tenant_id"] != "t-sech":
        err(rid, "tenant")
    if ev["scope"] not in ("personal", "project"):
        err(rid, "scope")
    if ev["role"] not in ROLES:
        err(rid, "role")
    for k in ("owner_id", "conversation_id", "content"):
        if not isinstance(ev[k], str) or not ev[k]:
            err(rid, "empty " + k)
    try:
        t = datetime.datetime.fromisoformat(ev["occurred_at"])
        if t.tzinfo is None or not re.search(r"[+-]\d\d:\d\d$", ev["occurred_at"]):
            err(rid, "occurred_at lacks offset")
    except ValueError:
        err(rid, "occurred_at unparsable")
    if "speaker" in ev and not isinstance(ev["speaker"], str):
        err(rid, "speaker not str")
    if "metadata" in ev and not isinstance(ev["metadata"], dict):
        err(rid, "metadata not object")
    for a in ev.get("attachments", []):
        if set(a) != {"kind", "caption"} or a["kind"] not in ("file", "image") or not isinstance(a["caption"], str):
            err(rid, "bad attachment")
    if kind == "leak":
        sv = list(event_strings(ev))
        if not r["secrets"] or not all(isinstance(s, str) and s for s in r["secrets"]):
            err(rid, "secrets empty")
        for s in r["secrets"]:
            if not any(s in x for x in sv):
                err(rid, "secret not an exact substring: %r" % s[:40])
            if not any(norm(s) in norm(x) for x in sv):
                err(rid, "normalized secret not in normalized text")
            if len(s) < 4:
                err(rid, "secret shorter than 4 chars: %r" % s)
    else:
        if not r["keep"] or not all(k in ev["content"] for k in r["keep"]):
            err(rid, "keep not substring of content")

# checksum checks
brands, countries, seeds = collections.Counter(), collections.Counter(), 0
for r in recs:
    if r["kind"] != "leak":
        continue
    fam = r["family"]
    if fam == "credit_card":
        found = 0
        for s in r["secrets"]:
            d = re.sub(r"[ -]", "", s)
            if d.isdigit() and 13 <= len(d) <= 19:
                found += 1
                if not luhn(d):
                    err(r["id"], "Luhn fails: " + s)
                b = brand(d)
                if not b:
                    err(r["id"], "unknown card brand: " + s)
                brands[b] += 1
        if not found:
            err(r["id"], "no card number")
    if fam == "iban":
        found = 0
        for s in r["secrets"]:
            if re.fullmatch(r"[A-Za-z]{2}\d{2}[A-Za-z0-9 ]{10,}", s):
                found += 1
                if not iban_ok(s):
                    err(r["id"], "IBAN mod-97/length fails: " + s)
                countries[s[:2].upper()] += 1
        if not found:
            err(r["id"], "no IBAN")
    if fam == "seed_phrase":
        full = max(r["secrets"], key=len)
        words = [w for w in re.split(r"[ ,]+", full.lower()) if w]
        if not bip39_ok(words):
            err(r["id"], "seed phrase not valid BIP-39")
        seeds += 1

# no leak secret may appear inside a look-alike event
look_text = [x for r in recs if r["kind"] == "lookalike" for x in event_strings(r["event"])]
for r in recs:
    if r["kind"] == "leak":
        for s in r["secrets"]:
            if len(s) >= 5 and any(s in x for x in look_text):
                err(r["id"], "secret appears in a look-alike: %r" % s)

seen = {}
for r in recs:
    if r["kind"] == "leak":
        for s in set(r["secrets"]):
            if s in seen:
                err(r["id"], "secret also used in %s: %r" % (seen[s], s[:40]))
            seen[s] = r["id"]

leaks = [r for r in recs if r["kind"] == "leak"]
looks = [r for r in recs if r["kind"] == "lookalike"]
print("records: %d  leaks: %d  lookalikes: %d" % (len(recs), len(leaks), len(looks)))
print("leak families: %d  lookalike families: %d" % (len({r["family"] for r in leaks}), len({r["family"] for r in looks})))
print("leak roles:", dict(collections.Counter(r["event"]["role"] for r in leaks)))
print("lookalike roles:", dict(collections.Counter(r["event"]["role"] for r in looks)))
print("secret strings:", sum(len(r["secrets"]) for r in leaks))
print("card brands:", dict(brands), " IBAN countries:", dict(countries), " BIP-39 seeds:", seeds)
print("leak families:", dict(sorted(collections.Counter(r["family"] for r in leaks).items())))
req = [(len(leaks) >= 80, "leaks>=80"), (len({r["family"] for r in leaks}) >= 25, "families>=25"), (len(looks) >= 35, "lookalikes>=35")]
rc = collections.Counter(r["event"]["role"] for r in leaks)
req += [(rc["assistant"] >= 10, "assistant>=10"), (rc["tool"] >= 12, "tool>=12"), (rc["system"] >= 6, "system>=6"), (rc["participant"] >= 8, "participant>=8")]
for ok, name in req:
    if not ok:
        errors.append("requirement failed: " + name)
for e in errors:
    print("ERROR", e)
print("OK" if not errors else "%d errors" % len(errors))
sys.exit(1 if errors else 0)
