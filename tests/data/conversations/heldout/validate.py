#!/usr/bin/env python3
"""Validate events.jsonl / questions.jsonl of the conversations_heldout set and print counts."""
import json, os, sys, collections
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
EV_FIELDS = {"event_id", "tenant_id", "owner_id", "scope", "conversation_id", "session_id",
             "role", "speaker", "speaker_id", "content", "occurred_at"}
Q_FIELDS = {"question_id", "conversation_id", "owner_id", "tenant_id", "scope", "category",
            "question", "answer", "evidence", "asked_at"}
CATS = ["single_hop", "multi_hop", "temporal", "open_domain", "unanswerable"]
errors = []
def err(msg): errors.append(msg)

events = [json.loads(l) for l in open(os.path.join(HERE, "events.jsonl"), encoding="utf-8")]
questions = [json.loads(l) for l in open(os.path.join(HERE, "questions.jsonl"), encoding="utf-8")]

ids = [e["event_id"] for e in events]
if len(ids) != len(set(ids)): err("duplicate event_id")
by_id = {e["event_id"]: e for e in events}
by_conv = collections.defaultdict(list)
for e in events:
    keys = set(e)
    if not (EV_FIELDS <= keys <= EV_FIELDS | {"attachments"}):
        err("bad fields %s: %s" % (e["event_id"], sorted(keys ^ EV_FIELDS)))
    if e["tenant_id"] != "t-convh" or e["scope"] != "personal": err("tenant/scope " + e["event_id"])
    if not e["content"].strip(): err("empty content " + e["event_id"])
    if e["role"] not in ("user", "participant"): err("role " + e["event_id"])
    if (e["role"] == "user") != (e["speaker_id"] == e["owner_id"]): err("role/speaker mismatch " + e["event_id"])
    if not e["event_id"].startswith(e["session_id"] + "-t"): err("event/session id " + e["event_id"])
    if not e["session_id"].startswith(e["conversation_id"] + "-s"): err("session/conv id " + e["event_id"])
    for a in e.get("attachments", []):
        if a.get("kind") != "image" or not a.get("caption", "").strip(): err("attachment " + e["event_id"])
    t = datetime.fromisoformat(e["occurred_at"])
    if t.tzinfo is None: err("no tz " + e["event_id"])
    if not (datetime.fromisoformat("2022-03-01T00:00:00+00:00") <= t <= datetime.fromisoformat("2024-12-31T23:59:59+00:00")):
        err("date out of range " + e["event_id"])
    by_conv[e["conversation_id"]].append(e)

print("== events")
for cid, evs in sorted(by_conv.items()):
    owners = {e["owner_id"] for e in evs}
    speakers = collections.Counter((e["speaker_id"], e["speaker"]) for e in evs)
    if len(owners) != 1: err("owners " + cid)
    if len({s for s, _ in speakers}) != 2: err("speakers " + cid)
    times = [datetime.fromisoformat(e["occurred_at"]) for e in evs]
    if any(b <= a for a, b in zip(times, times[1:])): err("timestamps not strictly increasing in " + cid)
    sess = collections.Counter(e["session_id"] for e in evs)
    if len(sess) != 15: err("%s has %d sessions" % (cid, len(sess)))
    for s, n in sess.items():
        if not 14 <= n <= 24: err("%s has %d turns" % (s, n))
    photos = sum(1 for e in evs if e.get("attachments"))
    starts = sorted({e["session_id"]: e["occurred_at"][:10] for e in reversed(evs)}.items())
    print("%s owner=%s speakers=%s sessions=%d messages=%d turns/session=%d-%d photos=%d (%.1f%%) span=%s..%s" % (
        cid, owners.pop(), dict(collections.Counter(e["speaker_id"] for e in evs)), len(sess), len(evs),
        min(sess.values()), max(sess.values()), photos, 100.0 * photos / len(evs), starts[0][1], starts[-1][1]))
print("total messages:", len(events), " photos:", sum(1 for e in events if e.get("attachments")))

qids = [q["question_id"] for q in questions]
if len(qids) != len(set(qids)): err("duplicate question_id")
last = {cid: max(datetime.fromisoformat(e["occurred_at"]) for e in evs) for cid, evs in by_conv.items()}
cat_counts = collections.Counter()
per_conv = collections.defaultdict(collections.Counter)
for q in questions:
    if set(q) != Q_FIELDS: err("q fields %s" % q["question_id"])
    cid = q["conversation_id"]
    if q["category"] not in CATS: err("category " + q["question_id"])
    if q["tenant_id"] != "t-convh" or q["scope"] != "personal": err("q tenant/scope " + q["question_id"])
    if cid not in by_conv: err("unknown conversation " + q["question_id"]); continue
    if q["owner_id"] != by_conv[cid][0]["owner_id"]: err("q owner " + q["question_id"])
    if not q["question_id"].startswith(cid + "-q"): err("qid prefix " + q["question_id"])
    if datetime.fromisoformat(q["asked_at"]) <= last[cid]: err("asked_at too early " + q["question_id"])
    if not q["question"].strip() or not q["answer"].strip(): err("empty q/a " + q["question_id"])
    for i in q["evidence"]:
        if i not in by_id: err("missing evidence %s in %s" % (i, q["question_id"]))
        elif by_id[i]["conversation_id"] != cid: err("cross-conv evidence " + q["question_id"])
    if q["category"] == "unanswerable":
        if q["evidence"] or q["answer"] != "not mentioned": err("unanswerable format " + q["question_id"])
    elif not q["evidence"]:
        err("no evidence " + q["question_id"])
    if q["category"] == "temporal":
        try: datetime.fromisoformat(q["answer"][:10])
        except ValueError: err("temporal answer not a date " + q["question_id"])
    if len(q["evidence"]) != len(set(q["evidence"])): err("dup evidence " + q["question_id"])
    cat_counts[q["category"]] += 1
    per_conv[cid][q["category"]] += 1

print("== questions")
for cid in sorted(per_conv):
    c = per_conv[cid]
    print(cid, sum(c.values()), {k: c[k] for k in CATS})
n = len(questions)
print("total questions:", n)
for k in CATS:
    print("  %-13s %3d  %4.1f%%" % (k, cat_counts[k], 100.0 * cat_counts[k] / n))
photo_q = sum(1 for q in questions if any(by_id[i].get("attachments") for i in q["evidence"] if i in by_id))
print("questions whose evidence includes a photo message:", photo_q)

if errors:
    print("\nERRORS (%d):" % len(errors)); [print(" -", e) for e in errors]; sys.exit(1)
print("\nOK: all checks passed")
