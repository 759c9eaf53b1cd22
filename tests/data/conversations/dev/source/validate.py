#!/usr/bin/env python3
"""Validate events.jsonl / questions.jsonl and print counts.

  python3 validate.py          checks + counts
  python3 validate.py --dump   also prints every question with its evidence messages (for review)
"""
import json
import sys
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path

D = Path(__file__).resolve().parent.parent
EV_FIELDS = {"event_id", "tenant_id", "owner_id", "scope", "conversation_id", "session_id", "role",
             "speaker", "speaker_id", "content", "occurred_at"}
Q_FIELDS = {"question_id", "conversation_id", "owner_id", "tenant_id", "scope", "category", "question",
            "answer", "evidence", "asked_at"}
CATS = ["single_hop", "multi_hop", "temporal", "open_domain", "unanswerable"]
errors = []


def err(msg):
    errors.append(msg)


def load(name):
    rows = []
    for i, line in enumerate((D / name).read_text(encoding="utf-8").splitlines(), 1):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            err(f"{name}:{i}: {e}")
    return rows


events = load("events.jsonl")
questions = load("questions.jsonl")
by_id = {}
for e in events:
    keys = set(e)
    if not (EV_FIELDS <= keys <= EV_FIELDS | {"attachments"}):
        err(f"event fields {e.get('event_id')}: {sorted(keys ^ EV_FIELDS)}")
    if e["event_id"] in by_id:
        err(f"duplicate event_id {e['event_id']}")
    by_id[e["event_id"]] = e
    if not e["content"].strip():
        err(f"empty content {e['event_id']}")
    if e["tenant_id"] != "t-conv" or e["scope"] != "personal":
        err(f"tenant/scope {e['event_id']}")
    if e["role"] not in ("user", "participant"):
        err(f"role {e['event_id']}")
    if (e["role"] == "user") != (e["speaker_id"] == e["owner_id"]):
        err(f"role/owner mismatch {e['event_id']}")
    if not e["session_id"].startswith(e["conversation_id"] + "-s") or not e["event_id"].startswith(e["session_id"] + "-t"):
        err(f"id structure {e['event_id']}")
    dt = datetime.fromisoformat(e["occurred_at"])
    if dt.tzinfo is None:
        err(f"no tz {e['event_id']}")
    for a in e.get("attachments", []):
        if set(a) != {"kind", "caption"} or a["kind"] != "image" or not a["caption"].strip():
            err(f"attachment {e['event_id']}")

convs = defaultdict(list)
for e in events:
    convs[e["conversation_id"]].append(e)
last_time = {}
for c, evs in convs.items():
    sessions = Counter(e["session_id"] for e in evs)
    if len(sessions) != 15:
        err(f"{c}: {len(sessions)} sessions")
    for s, n in sessions.items():
        if not 14 <= n <= 24:
            err(f"{s}: {n} turns")
    for a, b in zip(evs, evs[1:]):
        if datetime.fromisoformat(b["occurred_at"]) <= datetime.fromisoformat(a["occurred_at"]):
            err(f"time not increasing {a['event_id']} -> {b['event_id']}")
    owners = {e["owner_id"] for e in evs}
    speakers = {e["speaker_id"] for e in evs}
    if len(owners) != 1 or len(speakers) != 2:
        err(f"{c}: owners {owners} speakers {speakers}")
    first = min(datetime.fromisoformat(e["occurred_at"]) for e in evs)
    last_time[c] = max(datetime.fromisoformat(e["occurred_at"]) for e in evs)
    if first.year < 2023 or last_time[c] > datetime.fromisoformat("2025-06-30T23:59:59+00:00"):
        err(f"{c}: dates out of range")

qids = set()
for q in questions:
    if set(q) != Q_FIELDS:
        err(f"question fields {q.get('question_id')}: {sorted(set(q) ^ Q_FIELDS)}")
    if q["question_id"] in qids:
        err(f"duplicate question_id {q['question_id']}")
    qids.add(q["question_id"])
    if q["category"] not in CATS:
        err(f"category {q['question_id']}")
    if q["tenant_id"] != "t-conv" or q["scope"] != "personal":
        err(f"tenant/scope {q['question_id']}")
    c = q["conversation_id"]
    if c not in convs or q["owner_id"] != convs[c][0]["owner_id"]:
        err(f"conv/owner {q['question_id']}")
    for eid in q["evidence"]:
        if eid not in by_id:
            err(f"{q['question_id']}: unknown evidence {eid}")
        elif by_id[eid]["conversation_id"] != c:
            err(f"{q['question_id']}: evidence from another conversation {eid}")
    if len(set(q["evidence"])) != len(q["evidence"]):
        err(f"{q['question_id']}: repeated evidence")
    if (q["category"] == "unanswerable") != (q["evidence"] == []):
        err(f"{q['question_id']}: evidence/unanswerable mismatch")
    if q["category"] == "unanswerable" and q["answer"] != "not mentioned":
        err(f"{q['question_id']}: unanswerable answer")
    if c in last_time and datetime.fromisoformat(q["asked_at"]) <= last_time[c]:
        err(f"{q['question_id']}: asked_at before last message")

# counts
print(f"conversations: {len(convs)}")
print(f"sessions: {len({e['session_id'] for e in events})}")
print(f"messages: {len(events)}  (with image attachment: {sum('attachments' in e for e in events)})")
print(f"questions: {len(questions)}")
tot = Counter(q["category"] for q in questions)
print("  " + ", ".join(f"{k}={tot[k]}" for k in CATS))
for c in sorted(convs):
    evs = convs[c]
    qs = [q for q in questions if q["conversation_id"] == c]
    cc = Counter(q["category"] for q in qs)
    img_ev = {e["event_id"] for e in evs if "attachments" in e}
    n_img_q = sum(1 for q in qs if set(q["evidence"]) & img_ev)
    print(f"{c}: sessions={len({e['session_id'] for e in evs})} messages={len(evs)} "
          f"images={len(img_ev)} ({100*len(img_ev)/len(evs):.1f}%) "
          f"{evs[0]['occurred_at'][:10]}..{evs[-1]['occurred_at'][:10]} questions={len(qs)} "
          + " ".join(f"{k}={cc[k]}" for k in CATS) + f" photo-evidence-q={n_img_q}")

if "--dump" in sys.argv:
    for q in questions:
        print(f"\n[{q['question_id']}] {q['category']}: {q['question']}\n   A: {q['answer']}")
        for eid in q["evidence"]:
            e = by_id[eid]
            dt = datetime.fromisoformat(e["occurred_at"])
            cap = f" [img: {e['attachments'][0]['caption']}]" if "attachments" in e else ""
            print(f"   - {eid} {dt:%Y-%m-%d %a} {e['speaker']}: {e['content']}{cap}")

if errors:
    print(f"\n{len(errors)} ERRORS")
    for m in errors:
        print("  " + m)
    sys.exit(1)
print("\nOK: all checks passed")
