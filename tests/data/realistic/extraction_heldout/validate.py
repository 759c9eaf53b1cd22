#!/usr/bin/env python3
"""Validate extraction.jsonl (held-out claim-extraction set). Exit 1 on any error."""
import collections, datetime as dt, json, re, sys, pathlib

PATH = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).with_name("extraction.jsonl"))
NODE = {"FACT", "TASK", "INSTRUCTION", "PREFERENCE", "DECISION"}
EPI = {"ASSERTED", "OBSERVED", "INFERRED", "HYPOTHETICAL", "CONDITIONAL", "UNVERIFIED"}
ROLES = {"user", "assistant", "participant", "system", "tool"}
CUES = {"try", "tri", "plan", "want", "need", "hop", "aim", "look", "work", "intend", "attempt"}
CLAIM_KEYS = {"node_type", "epistemic_type", "polarity", "condition", "replaces_object", "object_hint"}
OPT_KEYS = {"subject_hint", "predicate_cue", "source_hint"}
EVENT_KEYS = {"event_id", "tenant_id", "owner_id", "scope", "conversation_id", "role", "content", "occurred_at"}
MARKERS = ("only if", "if", "unless", "provided that", "provided", "as long as", "when", "whenever", "in case")
FAMILIES = """plain_statement lowercase_typos dropped_subject multi_clause reason_clause casual_experience hedge
condition_if_unless condition_when_whenever condition_as_long_as_provided_in_case reported_speech sarcasm
fact_in_question decision_phrasing todo_imperative quantifier_negation negation_plain update_named
negative_update correction preference assistant_restatement system_policy tool_output participant
hard_negative""".split()
MIN_ROLE = {"user": 130, "assistant": 30, "participant": 20, "system": 15, "tool": 15}
HEDGE_RE = re.compile(r"\b(might|could|possibly|perhaps|maybe|probably|i think|considering|weighing)\b|\bmay\b", re.I)
COND_RE = re.compile(r"\b(if|unless|provided|as long as|when|whenever|in case)\b", re.I)

def whole(hint, text):
    h = hint.strip()
    return bool(h) and re.search(r"(?<!\w)" + re.escape(h) + r"(?!\w)", text, re.I) is not None

errors, warnings = [], []
def err(i, msg): errors.append(f"line {i}: {msg}")

rows = []
for i, line in enumerate(PATH.read_text(encoding="utf-8").splitlines(), 1):
    try: rows.append((i, json.loads(line)))
    except json.JSONDecodeError as e: err(i, f"bad JSON: {e}")

ids, contents = set(), {}
conv = {}
fam_n, role_n = collections.Counter(), collections.Counter()
epi_n, node_n = collections.Counter(), collections.Counter()
stats = collections.Counter()
for i, r in rows:
    if set(r) != {"event", "expected", "tags", "family"}: err(i, f"top-level keys {sorted(r)}")
    ev, exp, tags, fam = r.get("event", {}), r.get("expected", []), r.get("tags", []), r.get("family")
    missing = EVENT_KEYS - set(ev)
    if missing: err(i, f"event missing {missing}")
    eid = ev.get("event_id", "")
    if not re.fullmatch(r"xh-\d{4}", eid): err(i, f"bad event_id {eid}")
    if eid in ids: err(i, f"duplicate id {eid}")
    ids.add(eid)
    if ev.get("tenant_id") != "t-xho": err(i, "tenant_id")
    role = ev.get("role"); content = ev.get("content", "")
    if role not in ROLES: err(i, f"role {role}")
    if (role == "participant") != bool(ev.get("speaker")): err(i, "speaker must be set exactly for participants")
    if ev.get("scope") not in {"personal", "project", "organisation"}: err(i, "scope")
    key = " ".join(content.lower().split())
    if key in contents: err(i, f"duplicate content with line {contents[key]}")
    contents[key] = i
    try:
        t = dt.datetime.fromisoformat(ev["occurred_at"])
        if t.tzinfo is None: err(i, "occurred_at has no offset")
    except Exception as e: err(i, f"occurred_at: {e}"); t = None
    c = conv.setdefault(ev.get("conversation_id"), {"owner": ev.get("owner_id"), "scope": ev.get("scope"),
                                                   "off": ev.get("occurred_at", "")[-6:], "last": None, "n": 0})
    c["n"] += 1
    if (c["owner"], c["scope"], c["off"]) != (ev.get("owner_id"), ev.get("scope"), ev.get("occurred_at", "")[-6:]):
        err(i, "conversation owner/scope/offset not constant")
    if t and c["last"] and t <= c["last"]: err(i, "occurred_at not increasing within conversation")
    c["last"] = t
    if fam not in FAMILIES: err(i, f"family {fam}")
    fam_n[fam] += 1; role_n[role] += 1
    if not isinstance(exp, list): err(i, "expected not a list"); continue
    if (not exp) != ("hard_negative" in tags): err(i, "hard_negative tag must match empty expected")
    if f"role:{role}" not in tags: err(i, "missing role tag")
    if fam == "sarcasm" and (exp or "sarcasm" not in tags): err(i, "sarcasm must be [] and tagged")
    if fam == "hard_negative" and exp: err(i, "hard_negative family with claims")
    if not exp: stats["hard_negative"] += 1
    if len(exp) == 2: stats["two_claims"] += 1
    if len(exp) == 3: stats["three_claims"] += 1
    has_cond = False; has_hedge = False
    for cl in exp:
        ks = set(cl)
        if not CLAIM_KEYS <= ks or ks - CLAIM_KEYS - OPT_KEYS: err(i, f"claim keys {sorted(ks)}")
        nt, et, pol = cl.get("node_type"), cl.get("epistemic_type"), cl.get("polarity")
        if nt not in NODE: err(i, f"node_type {nt}")
        if et not in EPI: err(i, f"epistemic_type {et}")
        if pol not in {"positive", "negative"}: err(i, f"polarity {pol}")
        epi_n[et] += 1; node_n[nt] += 1
        for tg, ok in ((f"type:{str(et).lower()}", True), (f"node:{str(nt).lower()}", True)):
            if tg not in tags: err(i, f"missing tag {tg}")
        if pol == "negative":
            stats["negative_claims"] += 1
            if "negation" not in tags: err(i, "missing negation tag")
        oh = cl.get("object_hint")
        if not isinstance(oh, str) or not whole(oh, content): err(i, f"object_hint {oh!r} not a whole word in content")
        ro = cl.get("replaces_object")
        if ro is not None:
            stats["replaces_object"] += 1
            if not whole(ro, content): err(i, f"replaces_object {ro!r} not a whole word in content")
            if et not in {"ASSERTED", "OBSERVED"}: err(i, "replaces_object on non-authoritative claim")
            if "update" not in tags: err(i, "missing update tag")
        cond = cl.get("condition")
        if (et == "CONDITIONAL") != (cond is not None): err(i, "condition must be set exactly on CONDITIONAL")
        if cond is not None:
            has_cond = True; stats["conditional"] += 1
            pos = content.find(cond)
            if pos < 0: err(i, f"condition {cond!r} not an exact substring")
            elif not cond.lower().startswith(MARKERS): err(i, f"condition {cond!r} does not start at a marker")
            elif cond[-1] in ",.;:!?": err(i, f"condition {cond!r} has trailing punctuation")
            else:
                nxt = content[pos + len(cond):pos + len(cond) + 1]
                # a leading condition clause without a comma ends where the main clause begins
                leading = pos == 0 or content[:pos].rstrip().endswith((".", "!", "?"))
                if nxt not in ("", ",", ".", ";", "!", "?") and not (nxt.isspace() and leading): err(i, f"condition {cond!r} stops mid-clause (next {nxt!r})")
        if et == "HYPOTHETICAL": has_hedge = True
        cue = cl.get("predicate_cue")
        if cue is not None:
            stats["speech_act"] += 1
            if cue not in CUES: err(i, f"predicate_cue {cue}")
            if "speech_act" not in tags: err(i, "missing speech_act tag")
        if "source_hint" in cl:
            stats["unverified_relay"] += 1
            if et != "UNVERIFIED": err(i, "source_hint on non-UNVERIFIED claim")
            sh = cl["source_hint"]
            if sh is not None and not whole(sh, content): err(i, f"source_hint {sh!r} not in content")
        elif et == "UNVERIFIED": err(i, "UNVERIFIED claim without source_hint key")
        if role in {"assistant", "system"} and et not in {"INFERRED", "CONDITIONAL", "HYPOTHETICAL"}:
            err(i, f"{role} claim typed {et}")
    # lint: markers in items not labelled with them (printed as warnings for review)
    if exp and not has_hedge and HEDGE_RE.search(content):
        warnings.append(f"line {i} ({fam}): hedge word in non-hypothetical item: {content!r}")
    if exp and not has_cond and COND_RE.search(content):
        warnings.append(f"line {i} ({fam}): condition marker in non-conditional item: {content!r}")

if len(rows) < 230: errors.append(f"only {len(rows)} messages")
for f in FAMILIES:
    if fam_n[f] < 10: errors.append(f"family {f}: {fam_n[f]} < 10")
for r, k in MIN_ROLE.items():
    if role_n[r] < k: errors.append(f"role {r}: {role_n[r]} < {k}")

print(f"messages {len(rows)}, conversations {len(conv)}, expected claims {sum(epi_n.values())}")
print("roles:", dict(role_n.most_common()))
print("families:", dict(sorted(fam_n.items())))
print("epistemic:", dict(epi_n.most_common()))
print("node:", dict(node_n.most_common()))
print("other:", dict(sorted(stats.items())))
for w in warnings: print("WARN", w)
for e in errors: print("ERROR", e)
sys.exit(1 if errors else 0)
