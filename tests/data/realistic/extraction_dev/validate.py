"""Validate extraction.jsonl and print its counts.  Usage: python3 validate.py [path]"""
import json, re, sys
from collections import Counter, defaultdict
from datetime import datetime

PATH = sys.argv[1] if len(sys.argv) > 1 else __file__.rsplit('/', 1)[0] + '/extraction.jsonl'
FAMILIES = """plain_statement lowercase_typos dropped_subject multi_clause reason_clause casual_experience hedge
condition_if_unless condition_when_whenever condition_as_long_as_provided_in_case reported_speech sarcasm
fact_in_question decision_phrasing todo_imperative quantifier_negation negation_plain update_named
negative_update correction preference assistant_restatement system_policy tool_output participant
hard_negative""".split()
ROLE_MIN = {'user': 240, 'assistant': 50, 'participant': 40, 'system': 30, 'tool': 30}
NODES = {'FACT', 'TASK', 'INSTRUCTION', 'PREFERENCE', 'DECISION'}
ETYPES = {'ASSERTED', 'OBSERVED', 'INFERRED', 'HYPOTHETICAL', 'CONDITIONAL', 'UNVERIFIED'}
CUES = {'try', 'tri', 'plan', 'want', 'need', 'hop', 'aim', 'look', 'work', 'intend', 'attempt'}
CLAIM_KEYS = {'node_type', 'epistemic_type', 'polarity', 'condition', 'replaces_object', 'object_hint'}
OPT_KEYS = {'subject_hint', 'predicate_cue', 'source_hint'}
EVENT_KEYS = {'event_id', 'tenant_id', 'owner_id', 'scope', 'conversation_id', 'role', 'content', 'occurred_at'}
MARKERS = re.compile(r"(?<!\w)(if|unless|provided|as long as|only if|in case|when|whenever)(?!\w)", re.I)
COND_START = re.compile(r"^(if|unless|provided that|provided|as long as|only if|in case|when|whenever)(?!\w)", re.I)
HEDGES = re.compile(r"(?i:(?<!\w)(might|could|possibly|perhaps|maybe|probably|i think|considering|weighing|not sure)(?!\w))|(?<!\w)may(?!\w)")  # lower-case "may" only

errors, warnings = [], []


def whole(word, text):
    return re.search(r"(?<!\w)" + re.escape(word.strip()) + r"(?!\w)", text, re.I | re.U) is not None


rows = []
with open(PATH, encoding='utf-8') as fh:
    for n, line in enumerate(fh, 1):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            errors.append(f"line {n}: does not parse: {e}")

ids, contents = Counter(), Counter()
conv_meta, conv_last = {}, {}
fam, roles, etypes, nodes = Counter(), Counter(), Counter(), Counter()
fam_roles = defaultdict(Counter)
n_claims = n_neg = n_upd = n_cue = n_hn = n_src = 0
per_msg = Counter()
for r in rows:
    ev, exp = r.get('event', {}), r.get('expected')
    eid = ev.get('event_id', '?')
    if set(r) != {'event', 'expected', 'tags', 'family'}:
        errors.append(f"{eid}: top-level keys {sorted(r)}")
    miss = EVENT_KEYS - set(ev)
    if miss:
        errors.append(f"{eid}: event lacks {sorted(miss)}")
    if not re.fullmatch(r"xd-\d{4}", eid):
        errors.append(f"{eid}: bad id")
    ids[eid] += 1
    contents[ev.get('content')] += 1
    role, text = ev.get('role'), ev.get('content', '')
    if ev.get('tenant_id') != 't-xdev':
        errors.append(f"{eid}: tenant")
    if ev.get('scope') not in {'personal', 'project', 'organisation'}:
        errors.append(f"{eid}: scope")
    if role not in ROLE_MIN:
        errors.append(f"{eid}: role {role}")
    if (role == 'participant') != bool(ev.get('speaker')):
        errors.append(f"{eid}: speaker must be set exactly on participant messages")
    try:
        ts = datetime.fromisoformat(ev['occurred_at'])
        assert ts.tzinfo is not None
    except Exception:
        errors.append(f"{eid}: occurred_at {ev.get('occurred_at')}")
        ts = None
    cid = ev.get('conversation_id')
    meta = (ev.get('owner_id'), ev.get('scope'), ev['occurred_at'][-6:])
    if conv_meta.setdefault(cid, meta) != meta:
        errors.append(f"{eid}: conversation {cid} mixes owner/scope/offset")
    if ts and cid in conv_last and ts <= conv_last[cid]:
        errors.append(f"{eid}: time goes backwards in {cid}")
    if ts:
        conv_last[cid] = ts
    f = r.get('family')
    if f not in FAMILIES:
        errors.append(f"{eid}: family {f}")
    fam[f] += 1
    fam_roles[f][role] += 1
    roles[role] += 1
    if not isinstance(exp, list):
        errors.append(f"{eid}: expected is not a list")
        continue
    per_msg[len(exp)] += 1
    if not exp:
        n_hn += 1
        if 'hard_negative' not in r['tags']:
            errors.append(f"{eid}: empty expected without hard_negative tag")
    has_cond = has_hyp = False
    for c in exp:
        n_claims += 1
        keys = set(c)
        if not CLAIM_KEYS <= keys or keys - CLAIM_KEYS - OPT_KEYS:
            errors.append(f"{eid}: claim keys {sorted(keys)}")
        nt, et = c.get('node_type'), c.get('epistemic_type')
        if nt not in NODES or et not in ETYPES or c.get('polarity') not in {'positive', 'negative'}:
            errors.append(f"{eid}: bad enum in {c}")
        nodes[nt] += 1
        etypes[et] += 1
        hint = c.get('object_hint') or ''
        if not whole(hint, text):
            errors.append(f"{eid}: object_hint {hint!r} not a whole word of the content")
        cond = c.get('condition')
        if et == 'CONDITIONAL':
            has_cond = True
            if not cond or cond not in text:
                errors.append(f"{eid}: condition {cond!r} is not a substring of the content")
            elif not COND_START.match(cond) or cond[-1] in ',.;:!?':
                errors.append(f"{eid}: condition {cond!r} must start at its marker and drop trailing punctuation")
        elif cond is not None:
            errors.append(f"{eid}: non-conditional claim carries a condition")
        if et == 'HYPOTHETICAL':
            has_hyp = True
        rep = c.get('replaces_object')
        if rep is not None:
            n_upd += 1
            if et not in {'ASSERTED', 'OBSERVED'}:
                errors.append(f"{eid}: replaces_object on a {et} claim")
            if not whole(rep, text):
                errors.append(f"{eid}: replaces_object {rep!r} not a whole word of the content")
        if c.get('polarity') == 'negative':
            n_neg += 1
        if 'predicate_cue' in c:
            n_cue += 1
            if c['predicate_cue'] not in CUES:
                errors.append(f"{eid}: predicate_cue {c['predicate_cue']}")
        if 'source_hint' in c:
            n_src += 1
            if et != 'UNVERIFIED':
                errors.append(f"{eid}: source_hint on a {et} claim")
            if c['source_hint'] is not None and not re.search(re.escape(c['source_hint'].split()[0]), text, re.I):
                errors.append(f"{eid}: source_hint {c['source_hint']!r} not in content")
        elif et == 'UNVERIFIED' and f == 'reported_speech' and role != 'tool':
            errors.append(f"{eid}: reported speech claim without source_hint")
    # lints: markers and hedges that no label accounts for
    exempt = {'sarcasm', 'hard_negative'}
    if MARKERS.search(text) and not has_cond and f not in exempt:
        warnings.append(f"{eid} [{f}]: condition marker without a CONDITIONAL claim: {text!r}")
    if HEDGES.search(text) and not (has_hyp or has_cond) and f not in exempt:
        warnings.append(f"{eid} [{f}]: hedge word without a HYPOTHETICAL claim: {text!r}")
    if f == 'sarcasm' and (exp or 'sarcasm' not in r['tags']):
        errors.append(f"{eid}: sarcasm must be [] and tagged sarcasm")

for k, v in ids.items():
    if v > 1:
        errors.append(f"duplicate id {k}")
for k, v in contents.items():
    if v > 1:
        errors.append(f"duplicate content {k!r}")
for f in FAMILIES:
    if fam[f] < 20:
        errors.append(f"family {f} has only {fam[f]} messages")
for r_, m in ROLE_MIN.items():
    if roles[r_] < m:
        errors.append(f"role {r_} has {roles[r_]} < {m}")

print(f"messages: {len(rows)}   expected claims: {n_claims}   hard negatives ([]): {n_hn}")
print("conversations:", len(conv_meta))
print("roles:", dict(roles.most_common()))
print("epistemic types:", dict(etypes.most_common()))
print("node types:", dict(nodes.most_common()))
print(f"negative claims: {n_neg}   updates with replaces_object: {n_upd}   speech-act items: {n_cue}   source_hint items: {n_src}")
print("claims per message:", dict(sorted(per_msg.items())))
print("families:")
for f in FAMILIES:
    print(f"  {f:40s} {fam[f]:3d}  " + ", ".join(f"{k} {v}" for k, v in fam_roles[f].most_common()))
for w in warnings:
    print("WARN", w)
for e in errors:
    print("ERROR", e)
print("OK" if not errors else f"{len(errors)} errors")
sys.exit(1 if errors else 0)
