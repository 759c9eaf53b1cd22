import json, os, re, sys, collections
P = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "secrets.jsonl")
ALLOWED = {"event_id","tenant_id","owner_id","scope","conversation_id","role","content","occurred_at","speaker","metadata","attachments"}
ROLES = {"user","participant","assistant","system","tool"}
OWNERS = {"u-lena","u-marco","u-priya","u-tomas","u-aiko"}
errs = []; ids = set(); fam = collections.defaultdict(collections.Counter); roles = collections.defaultdict(collections.Counter)
def luhn(n):
    d = [int(c) for c in n][::-1]
    return sum(x if i % 2 == 0 else (x*2 - 9 if x*2 > 9 else x*2) for i, x in enumerate(d)) % 10 == 0
def texts(e):
    out = [e["content"]]
    if "speaker" in e: out.append(e["speaker"])
    def walk(v):
        if isinstance(v, str): out.append(v)
        elif isinstance(v, dict):
            for x in v.values(): walk(x)
        else: errs.append(f"{e['event_id']}: metadata value not str/obj")
    walk(e.get("metadata", {}))
    for a in e.get("attachments", []): out.append(a["caption"])
    return out
lines = open(P, encoding="utf-8").read().splitlines()
recs = []
for n, line in enumerate(lines, 1):
    try: r = json.loads(line)
    except Exception as x: errs.append(f"line {n}: {x}"); continue
    recs.append(r)
    i = r["id"]; e = r["event"]
    if i in ids: errs.append(f"dup id {i}")
    ids.add(i)
    if e["event_id"] != i: errs.append(f"{i}: event_id mismatch")
    if set(e) - ALLOWED: errs.append(f"{i}: extra fields {set(e)-ALLOWED}")
    for k in ["event_id","tenant_id","owner_id","scope","conversation_id","role","content","occurred_at"]:
        if k not in e: errs.append(f"{i}: missing {k}")
    if e["tenant_id"] != "t-sec" or e["owner_id"] not in OWNERS or e["scope"] not in ("personal","project") or e["role"] not in ROLES:
        errs.append(f"{i}: bad tenant/owner/scope/role")
    if e["role"] == "participant" and not e.get("speaker"): errs.append(f"{i}: participant without speaker")
    if not re.fullmatch(r"2025-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", e["occurred_at"]): errs.append(f"{i}: bad occurred_at")
    T = texts(e)
    fam[r["kind"]][r["family"]] += 1; roles[r["kind"]][e["role"]] += 1
    if r["kind"] == "leak":
        if not re.fullmatch(r"s2-\d{3}", i) or "keep" in r: errs.append(f"{i}: bad leak id/fields")
        if not r.get("secrets"): errs.append(f"{i}: no secrets")
        for s in r.get("secrets", []):
            if len(s) < 4: errs.append(f"{i}: secret too short {s!r}")
            if not any(s in t for t in T): errs.append(f"{i}: secret not found {s!r}")
        for t in T:
            for m in re.finditer(r"\b\d(?:[ -]?\d){12,18}\b", t):
                num = re.sub(r"\D", "", m.group())
                if r["family"] == "credit_card" and not luhn(num): errs.append(f"{i}: luhn fail {num}")
    elif r["kind"] == "lookalike":
        if not re.fullmatch(r"s2-L\d{3}", i) or "secrets" in r: errs.append(f"{i}: bad lookalike id/fields")
        k = r.get("keep", [])
        if not 1 <= len(k) <= 3: errs.append(f"{i}: keep count {len(k)}")
        for w in k:
            if w not in e["content"]: errs.append(f"{i}: keep not in content {w!r}")
    else: errs.append(f"{i}: bad kind")
# leak secrets must not occur in any other event's text
alltext = {r["id"]: "\n".join(texts(r["event"])) for r in recs}
for r in recs:
    for s in r.get("secrets", []):
        for oid, t in alltext.items():
            if oid != r["id"] and s in t: errs.append(f"{r['id']}: secret {s!r} also in {oid}")
# seed phrases: BIP-39 checksum
try:
    from mnemonic import Mnemonic
    mn = Mnemonic("english")
    for r in recs:
        if r["family"] == "seed_phrase":
            ph = r["secrets"][0].replace(",", "")
            if not mn.check(" ".join(ph.split())): errs.append(f"{r['id']}: bad bip39")
except ImportError:
    print("(mnemonic not installed, BIP-39 check skipped)")
nl, nk = sum(fam["leak"].values()), sum(fam["lookalike"].values())
if nl != 30 or nk != 100: errs.append(f"counts {nl} leaks {nk} lookalikes")
if len(fam["lookalike"]) < 32: errs.append("fewer than 32 lookalike families")
if max(fam["lookalike"].values()) > 6: errs.append("family >6")
if sorted(ids) != sorted([f"s2-{n:03d}" for n in range(1,31)] + [f"s2-L{n:03d}" for n in range(1,101)]): errs.append("id set wrong")
print("lines", len(lines), "leaks", nl, "lookalikes", nk, "lookalike families", len(fam["lookalike"]), "leak families", len(fam["leak"]))
print("roles", dict(roles["leak"]), dict(roles["lookalike"]))
print("\n".join(errs) if errs else "OK: all checks passed")
sys.exit(1 if errs else 0)
