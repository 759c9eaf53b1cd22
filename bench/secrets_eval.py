"""Secrets never stored, anywhere: an evaluation set through the real embedded pipeline.

Every record of the set (default: the dev set; ``--data`` for another, e.g. the held-out one) is
ingested by ``epistream.runner.EmbeddedRunner`` over a fresh data directory with the hash embedder,
together with malformed variants of some leak records (truncated JSON, a naive timestamp, invalid
UTF-8, one oversized line) that become dead letters. Then the outputs are collected:

* ``epistream extract --json`` over the set, ``epistream query --json`` (some queries carry a leak
  record's secret, so the retrieval receipt's query is checked too) and ``epistream world --json``
  per owner, each in a subprocess with its stderr;
* the HTTP API through fastapi's TestClient: ``POST /v1/events`` (a few events again under new ids,
  and a malformed one), ``/v1/retrieve``, ``/v1/world-context``, ``/v1/nodes/{id}`` and its
  provenance, ``/v1/retrievals/{id}``;
* the log records emitted meanwhile;
* every stored table, dumped through SQL (``SELECT * FROM <t> FINAL FORMAT JSONEachRow``: compressed
  columns hide text from a byte scan), and every file of the data directory (a byte scan: the
  search index's files, the lock, …).

A leak record is *withheld* when none of its secrets occurs in any of that: as the exact string,
after normalising both sides (zero-width characters removed, NFKC, casefold), and for card
numbers as digits only (spaces and dashes removed). A strict column also strips whitespace and
dashes from both sides for secrets of 8+ characters. A secret made only of digits (a PIN, a
code) counts where it stands as a number (no letter, digit or decimal point right before or after it): a byte scan finds
any four digits inside the data files' 20-digit insert tokens. A look-alike is *kept* when every ``keep``
word occurs (case-insensitively) in a stored claim of its event.

Last, admission throughput with masking (``streams.agents.admit``: parse, validate, mask) on
ordinary chat — the dev conversation set and the bundled demo — in messages/s per core (process
CPU time), beside parsing alone and masking alone.

Run: .venv/bin/python bench/secrets_eval.py [--data tests/data/secrets/heldout/secrets.jsonl] [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

with contextlib.suppress(ImportError):
    import onnxruntime  # noqa: F401  (must load before usearch)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from epistream.api import ApiKey, ApiKeyRing, Permission, create_app, hash_key_sha256  # noqa: E402
from epistream.runner import EmbeddedRunner  # noqa: E402
from extractors.secrets import mask  # noqa: E402
from schemas.events import parse_event  # noqa: E402
from schemas.settings import Settings  # noqa: E402
from sinks.clickhouse import OperationLog  # noqa: E402
from sinks.clickhouse_schema import RECEIPTS_TABLE, TABLES  # noqa: E402
from sinks.embedding import HashEmbedder  # noqa: E402
from streams import agents  # noqa: E402

DEV = ROOT / "tests/data/secrets/dev/secrets.jsonl"
CHAT = (ROOT / "tests/data/conversations/dev/events.jsonl", ROOT / "epistream/demo/conversations.jsonl")
_ZW = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))
_SEP = re.compile(r"[\s\-]+")


def normalised(text: str) -> str:
    return unicodedata.normalize("NFKC", text.translate(_ZW)).casefold()


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# ---------------------------------------------------------------- inputs
def malformed_variants(leaks: list[dict[str, Any]], every: int = 6) -> list[bytes]:
    """Dead letters to be: truncated JSON, a naive timestamp, invalid UTF-8, one oversized line."""
    out: list[bytes] = []
    for i, r in enumerate(leaks):
        if i % every:
            continue
        line = json.dumps(r["event"], ensure_ascii=False)
        kind = (i // every) % 3
        if kind == 0:
            out.append(line[:-2].encode("utf-8"))
        elif kind == 1:
            out.append(json.dumps({**r["event"], "occurred_at": "2025-03-01T10:00:00"}, ensure_ascii=False).encode())
        else:
            out.append(b"\xff\xfe" + line.encode("utf-8"))
    if leaks:
        big = dict(leaks[0]["event"])
        big["content"] = big["content"] + " lorem ipsum" * 120_000  # ~1.4 MB: payload_too_large
        out.append(json.dumps(big, ensure_ascii=False).encode("utf-8"))
    return out


# ---------------------------------------------------------------- outputs
def run_cli(args: list[str], data_dir: Path, stdin: str | None = None) -> str:
    env = {**os.environ, "EPISTREAM_DATA_DIR": str(data_dir), "EPISTREAM_EMBEDDER": "hash"}
    proc = subprocess.run(
        [sys.executable, "-m", "epistream", *args], input=stdin, capture_output=True, text=True, env=env,
        timeout=600, cwd=str(ROOT),
    )  # fmt: skip
    return proc.stdout + "\n" + proc.stderr


def table_dumps(data_dir: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    with OperationLog.connect(None, path=data_dir) as log:
        for table in (*TABLES, RECEIPTS_TABLE):
            result = log.client.raw_query(f"SELECT * FROM {log.database}.{table} FINAL FORMAT JSONEachRow")
            text = result.decode("utf-8", "replace") if isinstance(result, bytes) else str(result)
            # JSONEachRow escapes non-ASCII and control characters: decode each row's strings back
            rows = []
            for line in text.splitlines():
                with contextlib.suppress(ValueError):
                    rows.append(json.dumps(json.loads(line), ensure_ascii=False))
                    # the JSON documents stored as strings (records, nodes, results) decoded once more
                    for value in json.loads(line).values():
                        if isinstance(value, str) and value[:1] in "{[":
                            with contextlib.suppress(ValueError):
                                rows.append(json.dumps(json.loads(value), ensure_ascii=False))
            out[f"table:{table}"] = text + "\n" + "\n".join(rows)
    return out


def file_scan(data_dir: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted(p for p in data_dir.rglob("*") if p.is_file()):
        with contextlib.suppress(OSError):
            out[f"file:{path.relative_to(data_dir)}"] = path.read_bytes().decode("utf-8", "replace")
    return out


def api_outputs(data_dir: Path, records: list[dict[str, Any]], owners: list[tuple[str, str]]) -> dict[str, str]:
    from fastapi.testclient import TestClient

    settings = Settings(data_dir=data_dir, embedder="hash", extractor="rules", api_rate_limit_per_s=1e6,
                        api_rate_burst=1_000_000)  # fmt: skip
    tenants = sorted({t for t, _ in owners})
    keys = {t: f"eval-key-{i}" for i, t in enumerate(tenants)}
    ring = ApiKeyRing([ApiKey(id=f"k{i}", tenant_id=t, permissions=frozenset(Permission),
                              sha256=hash_key_sha256(keys[t])) for i, t in enumerate(tenants)])  # fmt: skip
    bodies: list[str] = []
    runner = EmbeddedRunner(data_dir, settings, embedder=HashEmbedder())
    try:
        with TestClient(create_app(runner, api_keys=ring, settings=settings)) as client:

            def call(method: str, url: str, tenant: str, **kw: Any) -> Any:
                resp = client.request(method, url, headers={"Authorization": f"Bearer {keys[tenant]}"}, **kw)
                bodies.append(resp.text)
                try:
                    return resp.json()
                except ValueError:
                    return None

            for i, r in enumerate(records[::5]):
                ev = {**r["event"], "event_id": f"{r['event']['event_id']}-api{i}"}
                call("POST", "/v1/events", ev["tenant_id"], json={"events": [ev]})
            bad = dict(records[0]["event"], occurred_at="2025-01-01T00:00:00") if records else {}
            if bad:
                call("POST", "/v1/events", bad["tenant_id"], json={"events": [bad]})
            node_ids: list[tuple[str, str, str]] = []
            for tenant, owner in owners:
                world = call("GET", "/v1/world-context", tenant, params={"tenant_id": tenant, "owner_id": owner})
                for q in ("password", "token key secret", "code pin", "card account"):
                    body = {"tenant_id": tenant, "owner_id": owner, "query": q, "mode": "explicit"}
                    got = call("POST", "/v1/retrieve", tenant, json=body)
                    if isinstance(got, dict):
                        for item in got.get("items", [])[:3]:
                            if "node_id" in item:
                                node_ids.append((tenant, owner, item["node_id"]))
                        rid = got.get("receipt_id") or got.get("request_id")
                        if rid:
                            call("GET", f"/v1/retrievals/{rid}", tenant, params={"tenant_id": tenant})
                if isinstance(world, dict):
                    for section in world.values():
                        if isinstance(section, list):
                            for item in section[:2]:
                                if isinstance(item, dict) and "node_id" in item:
                                    node_ids.append((tenant, owner, item["node_id"]))
            # a query that repeats a message with a secret: its receipt must not keep the secret either
            for r in records[::10]:
                ev = r["event"]
                body = {"tenant_id": ev["tenant_id"], "owner_id": ev["owner_id"], "query": ev["content"][:500]}
                call("POST", "/v1/retrieve", ev["tenant_id"], json={**body, "mode": "explicit"})
            for tenant, owner, node_id in node_ids[:60]:
                call("GET", f"/v1/nodes/{node_id}", tenant, params={"tenant_id": tenant, "owner_id": owner})
                call("GET", f"/v1/nodes/{node_id}/provenance", tenant, params={"tenant_id": tenant, "owner_id": owner})
    finally:
        runner.close()
    return {"api:responses": "\n".join(bodies)}


# ---------------------------------------------------------------- checks
class Corpus:
    def __init__(self, parts: dict[str, str]) -> None:
        self.parts = parts
        self.norm = {k: normalised(v) for k, v in parts.items()}
        self.strict = {k: _SEP.sub("", v) for k, v in self.norm.items()}

    def where(self, secret: str, digits_only: bool) -> list[str]:
        if re.fullmatch(r"[\d\s-]+", secret):
            # a number (a PIN, a code) counts where it stands as a number, not as four digits inside a
            # 20-digit insert token or a hash
            pattern = re.compile(rf"(?<![0-9A-Za-z.]){re.escape(secret)}(?![0-9A-Za-z])")
            return [f"{k} (number)" for k, v in self.parts.items() if pattern.search(v)] + (
                [f"{k} (digits)" for k, v in self.strict.items() if _SEP.sub("", secret) in v] if digits_only else []
            )
        found = [f"{k} (exact)" for k, v in self.parts.items() if secret in v]
        ns = normalised(secret)
        found += [f"{k} (normalised)" for k, v in self.norm.items() if ns in v and f"{k} (exact)" not in found]
        if digits_only:
            ds = _SEP.sub("", secret)
            found += [f"{k} (digits)" for k, v in self.strict.items() if ds in v]
        return found

    def strict_where(self, secret: str) -> list[str]:
        ss = _SEP.sub("", normalised(secret))
        if ss.isdigit():
            return []  # numbers: see where()
        return [k for k, v in self.strict.items() if len(ss) >= 8 and ss in v]


def is_card(family: str, secret: str) -> bool:
    digits = re.sub(r"\D", "", secret)
    return ("card" in family or "credit" in family) and 13 <= len(digits) <= 19


def throughput(seconds: float = 3.0) -> dict[str, float]:
    from schemas.events import ConversationEvent

    known = set(ConversationEvent.model_fields)
    lines: list[bytes] = []
    for path in CHAT:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():  # fields this version's events do not have yet are left out
                data = {k: v for k, v in json.loads(line).items() if k in known}
                lines.append(json.dumps(data, ensure_ascii=False).encode("utf-8"))
    now = datetime.now(UTC)
    for raw in lines[:200]:
        agents.admit(raw, source="bench", received_at=now)

    def rate(fn: Any) -> float:
        n, start = 0, time.process_time()
        while time.process_time() - start < seconds:
            for raw in lines:
                fn(raw)
            n += len(lines)
        return n / (time.process_time() - start)

    texts = [parse_event(raw).content for raw in lines]
    text_iter = iter(())

    def mask_only(raw: bytes) -> None:
        nonlocal text_iter
        try:
            mask(next(text_iter))
        except StopIteration:
            text_iter = iter(texts)
            mask(next(text_iter))

    return {
        "messages": len(lines),
        "admit_with_masking_per_s": rate(lambda raw: agents.admit(raw, source="bench", received_at=now)),
        "parse_only_per_s": rate(parse_event),
        "mask_only_per_s": rate(mask_only),
        "masked_messages": sum(mask(t)[0] != t for t in texts),
    }


def evaluate(path: Path, keep_dir: Path | None) -> dict[str, Any]:
    records = load(path)
    leaks = [r for r in records if r["kind"] == "leak"]
    lookalikes = [r for r in records if r["kind"] == "lookalike"]
    captured: list[str] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            captured.append(self.format(record))

    handler = Capture(level=logging.DEBUG)
    logging.getLogger().addHandler(handler)
    logging.getLogger().setLevel(logging.DEBUG)
    tmp = Path(keep_dir) if keep_dir else Path(tempfile.mkdtemp(prefix="secrets-eval-"))
    tmp.mkdir(parents=True, exist_ok=True)
    data_dir = tmp / "data"
    set_file = tmp / "set.jsonl"
    set_file.write_text("".join(json.dumps(r["event"], ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    outputs: dict[str, str] = {}
    settings = Settings(data_dir=data_dir, embedder="hash", extractor="rules")
    runner = EmbeddedRunner(data_dir, settings, embedder=HashEmbedder())
    try:
        lines = [json.dumps(r["event"], ensure_ascii=False).encode("utf-8") for r in records]
        report = runner.ingest_lines(lines + malformed_variants(leaks), source=str(set_file))
        outputs["ingest:report"] = json.dumps(report.as_dict(), ensure_ascii=False, default=str)
        claims_by_event: dict[str, list[str]] = defaultdict(list)
        for node in runner.store.iter_nodes():
            text = " ".join(x for x in (node.content, node.subject, node.object or "", node.evidence_quote or "") if x)
            for ref in node.evidence_refs:
                claims_by_event[ref].append(text)
    finally:
        runner.close()
    owners = sorted({(r["event"]["tenant_id"], r["event"]["owner_id"]) for r in records})
    outputs["cli:extract"] = run_cli(["extract", "--json", str(set_file)], data_dir)
    for tenant, owner in owners:
        outputs[f"cli:world:{owner}"] = run_cli(["world", "--tenant", tenant, "--owner", owner, "--json"], data_dir)
        outputs[f"cli:query:{owner}"] = run_cli(
            ["query", "password token key code", "--tenant", tenant, "--owner", owner, "--mode", "explicit", "--json"],
            data_dir,
        )
    for r in leaks[::7]:
        ev = r["event"]
        query = ev["content"][:500]
        outputs[f"cli:query-secret:{r['id']}"] = run_cli(
            ["query", query, "--tenant", ev["tenant_id"], "--owner", ev["owner_id"], "--json"], data_dir
        )
    outputs.update(api_outputs(data_dir, records, owners))
    outputs["logs"] = "\n".join(captured)
    logging.getLogger().removeHandler(handler)
    parts = {**outputs, **table_dumps(data_dir), **file_scan(data_dir)}
    corpus = Corpus(parts)

    families: dict[str, dict[str, Any]] = defaultdict(lambda: {"total": 0, "withheld": 0, "strict_withheld": 0,
                                                                "leaked": []})  # fmt: skip
    for r in leaks:
        fam = families[r["family"]]
        fam["total"] += 1
        hits = [w for s in r["secrets"] for w in corpus.where(s, is_card(r["family"], s))]
        strict = [w for s in r["secrets"] for w in corpus.strict_where(s)]
        if not hits:
            fam["withheld"] += 1
        else:
            fam["leaked"].append({"id": r["id"], "where": sorted(set(hits))[:6]})
        if not hits and not strict:
            fam["strict_withheld"] += 1
    kept: dict[str, dict[str, Any]] = defaultdict(lambda: {"total": 0, "kept": 0, "masked": 0, "lost": []})
    no_claim = masked_away = 0
    for r in lookalikes:
        fam = kept[r["family"]]
        fam["total"] += 1
        claims = [c.lower() for c in claims_by_event.get(r["event"]["event_id"], [])]
        if claims and all(any(k.lower() in c for c in claims) for k in r["keep"]):
            fam["kept"] += 1
        else:
            fam["lost"].append(r["id"])
            no_claim += not claims
            # lost to masking: a keep word that admission masked (it is not in the stored content)
            lost_word = any(k not in mask(r["event"]["content"])[0] for k in r["keep"])
            masked_away += lost_word
            fam["masked"] += lost_word
    dead = json.loads(outputs["ingest:report"]).get("dead_letters", 0)
    return {
        "set": str(path),
        "leaks": len(leaks),
        "withheld": sum(f["withheld"] for f in families.values()),
        "strict_withheld": sum(f["strict_withheld"] for f in families.values()),
        "lookalikes": len(lookalikes),
        "lookalikes_kept": sum(f["kept"] for f in kept.values()),
        "lookalikes_without_claims": no_claim,
        "lookalikes_masked": masked_away,
        "dead_letters": dead,
        "sources_checked": len(parts),
        "families": dict(sorted(families.items())),
        "lookalike_families": dict(sorted(kept.items())),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEV, help="evaluation set (JSON lines)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--keep", type=Path, default=None, help="keep the data directory here")
    parser.add_argument("--show-leaks", action="store_true", help="print where each leaked record was found (dev only)")
    parser.add_argument("--no-throughput", action="store_true")
    args = parser.parse_args()
    res = evaluate(args.data, args.keep)
    print(f"set: {res['set']}  ({res['sources_checked']} tables, outputs and files checked; "
          f"{res['dead_letters']} dead letters)")  # fmt: skip
    print(f"secrets withheld: {res['withheld']}/{res['leaks']} records "
          f"(strict, whitespace and dashes stripped: {res['strict_withheld']}/{res['leaks']})")  # fmt: skip
    print(f"look-alikes kept: {res['lookalikes_kept']}/{res['lookalikes']} (of those lost: "
          f"{res['lookalikes_without_claims']} have no claim at all, "
          f"{res['lookalikes_masked']} lost a word to masking)")  # fmt: skip
    print(f"\n{'leak family':28} withheld  strict")
    for name, fam in res["families"].items():
        print(f"{name:28} {fam['withheld']:>3}/{fam['total']:<3}  {fam['strict_withheld']:>3}/{fam['total']:<3}")
        if args.show_leaks:
            for leak in fam["leaked"]:
                print(f"    {leak['id']}: {', '.join(leak['where'])}")
    print(f"\n{'look-alike family':28} kept  lost to masking")
    for name, fam in res["lookalike_families"].items():
        lost = f"  lost: {', '.join(fam['lost'])}" if fam["lost"] and args.show_leaks else ""
        print(f"{name:28} {fam['kept']:>3}/{fam['total']:<3} {fam['masked']:>3}{lost}")
    if not args.no_throughput:
        tp = throughput()
        res["throughput"] = tp
        print(f"\nadmission on ordinary chat ({tp['messages']} messages, {tp['masked_messages']} masked), per core:")
        print(f"  parse + validate + mask: {tp['admit_with_masking_per_s']:,.0f} messages/s")
        print(f"  parse + validate only:   {tp['parse_only_per_s']:,.0f} messages/s")
        print(f"  mask only:               {tp['mask_only_per_s']:,.0f} messages/s")
    if args.json:
        args.json.write_text(json.dumps(res, indent=2, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
