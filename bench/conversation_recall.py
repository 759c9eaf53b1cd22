"""Evidence recall on long two-person conversations: claims, excerpts and both, against BM25 over the raw turns.

Each conversation of the set (``events.jsonl``) is one owner's memory: both speakers' messages are
ingested through the embedded pipeline. Every question (``questions.jsonl``) names the messages that
hold its answer; a retrieval's ranked items cover the messages they come from (a claim its source
message, an excerpt its message), and

* evidence recall@k = the share of a question's evidence messages covered by the first k items,
* hit@k = whether any is.

Printed per question category, for DEFAULT retrieval of claims only, excerpts only and both fused,
next to plain BM25 (tantivy, English stemming) over the raw turns with the speaker's name and the
captions, computed in the same run. Unanswerable questions have no evidence and are counted only.
Also printed: ingest messages/s, and retrieval p50/p95.

    .venv/bin/python bench/conversation_recall.py [--data tests/data/conversations/dev] [--embedder minilm]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

with contextlib.suppress(ImportError):  # onnxruntime before usearch (see sinks/embedded_index.py)
    import onnxruntime  # noqa: F401

import tantivy

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from epistream.config import load_settings  # noqa: E402
from epistream.runner import EmbeddedRunner  # noqa: E402
from schemas.retrieval import RetrievalMode, RetrievalRequest  # noqa: E402

KS = (5, 10, 20)
VARIANTS = ("claims", "excerpts", "all")
CATEGORIES = ("single_hop", "multi_hop", "temporal", "open_domain", "unanswerable")


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _turn_text(event: dict[str, Any]) -> str:
    captions = " ".join(a.get("caption") or a.get("alt_text") or "" for a in event.get("attachments", []))
    return " ".join(part for part in (event.get("speaker") or "", event["content"], captions) if part)


class Bm25:
    """The baseline: one tantivy document per raw turn (speaker, content, captions), per-owner queries."""

    def __init__(self, events: Sequence[dict[str, Any]]) -> None:
        sb = tantivy.SchemaBuilder()
        sb.add_text_field("event_id", stored=True, tokenizer_name="raw")
        sb.add_text_field("owner", stored=False, tokenizer_name="raw")
        sb.add_text_field("text", stored=False, tokenizer_name="en_stem")
        self.schema = sb.build()
        self.index = tantivy.Index(self.schema)
        writer = self.index.writer(heap_size=50_000_000, num_threads=1)
        for e in events:
            writer.add_document(tantivy.Document(event_id=e["event_id"], owner=e["owner_id"], text=_turn_text(e)))
        writer.commit()
        self.index.reload()

    def search(self, owner: str, query: str, k: int) -> list[str]:
        words = " ".join(w for w in "".join(c if c.isalnum() else " " for c in query).split())
        if not words:
            return []
        q = self.index.parse_query(words, ["text"])
        owner_q = tantivy.Query.term_query(self.schema, "owner", owner)
        both = tantivy.Query.boolean_query([(tantivy.Occur.Must, owner_q), (tantivy.Occur.Must, q)])
        searcher = self.index.searcher()
        return [searcher.doc(a)["event_id"][0] for _s, a in searcher.search(both, limit=k).hits]


def _events_of(items: Sequence[Any]) -> list[str]:
    """The message each ranked item comes from, in rank order (an item per position)."""
    out = []
    for item in items:
        if item.kind == "excerpt":
            out.append(item.event_id or "")
        else:
            out.append(item.label.evidence_event_ids[0] if item.label.evidence_event_ids else "")
    return out


def _score(ranked: Sequence[str], evidence: Sequence[str], k: int) -> tuple[float, bool]:
    top = set(ranked[:k])
    found = sum(1 for e in evidence if e in top)
    return found / len(evidence), found > 0


def run(data: Path, embedder: str, limit_questions: int | None) -> dict[str, Any]:
    events = _load(data / "events.jsonl")
    questions = _load(data / "questions.jsonl")[:limit_questions]
    lines = [json.dumps(e, ensure_ascii=False) for e in events]
    with tempfile.TemporaryDirectory(prefix="conv-recall-") as tmp:
        settings = load_settings(Path(tmp), embedder=embedder, retrieval_receipts=False)
        runner = EmbeddedRunner(Path(tmp), settings)
        try:
            start = time.perf_counter()
            report = runner.ingest_lines(lines, source="bench")
            ingest_s = time.perf_counter() - start
            texts = getattr(runner.index, "embedded_texts", 0) + getattr(runner.excerpts, "embedded_texts", 0)
            bm25 = Bm25(events)
            scores: dict[str, dict[str, dict[int, list[float]]]] = {
                v: {c: defaultdict(list) for c in CATEGORIES} for v in (*VARIANTS, "bm25")
            }
            hits: dict[str, dict[str, dict[int, list[bool]]]] = {
                v: {c: defaultdict(list) for c in CATEGORIES} for v in (*VARIANTS, "bm25")
            }
            latency: list[float] = []
            counts: dict[str, int] = defaultdict(int)
            for q in questions:
                cat = q["category"]
                counts[cat] += 1
                if not q["evidence"]:
                    continue
                at = datetime.fromisoformat(q["asked_at"])
                for variant in VARIANTS:
                    request = RetrievalRequest(
                        query=q["question"], tenant_id=q["tenant_id"], owner_id=q["owner_id"],
                        mode=RetrievalMode.DEFAULT, limit=max(KS), reference_time=at, sources=variant,
                    )  # fmt: skip
                    t0 = time.perf_counter()
                    response = runner.retrieve(request)
                    if variant == "all":
                        latency.append(time.perf_counter() - t0)
                    ranked = _events_of(response.items)
                    for k in KS:
                        r, h = _score(ranked, q["evidence"], k)
                        scores[variant][cat][k].append(r)
                        hits[variant][cat][k].append(h)
                ranked = bm25.search(q["owner_id"], q["question"], max(KS))
                for k in KS:
                    r, h = _score(ranked, q["evidence"], k)
                    scores["bm25"][cat][k].append(r)
                    hits["bm25"][cat][k].append(h)
        finally:
            runner.close()

    def mean(values: Sequence[float]) -> float | None:
        return round(statistics.fmean(values), 3) if values else None

    def cell(rs: dict[int, list[float]], hs: dict[int, list[bool]]) -> dict[str, float | None]:
        return {f"R@{k}": mean(rs[k]) for k in KS} | {f"hit@{k}": mean([float(h) for h in hs[k]]) for k in KS}

    table: dict[str, dict[str, dict[str, float | None]]] = {}
    for v in (*VARIANTS, "bm25"):
        table[v] = {c: cell(scores[v][c], hits[v][c]) for c in CATEGORIES}
        every_r = {k: [x for c in CATEGORIES for x in scores[v][c][k]] for k in KS}
        every_h = {k: [x for c in CATEGORIES for x in hits[v][c][k]] for k in KS}
        table[v]["overall"] = cell(every_r, every_h)
    latency.sort()
    return {
        "data": str(data),
        "embedder": embedder,
        "messages": len(events),
        "questions": dict(counts),
        "ingest_msgs_per_s": round(report.events / ingest_s, 1),
        "embedded_texts": texts,
        "embedded_texts_per_s": round(texts / ingest_s, 1),
        "claims": report.claims,
        "query_p50_ms": round(latency[len(latency) // 2] * 1000, 1) if latency else None,
        "query_p95_ms": round(latency[int(len(latency) * 0.95)] * 1000, 1) if latency else None,
        "recall": table,
    }


def _print(result: dict[str, Any]) -> None:
    print(f"{result['data']}: {result['messages']} messages, questions {result['questions']}, "
          f"embedder {result['embedder']}")  # fmt: skip
    print(f"ingest {result['ingest_msgs_per_s']} msgs/s ({result['embedded_texts_per_s']} embedded texts/s, "
          f"{result['claims']} claims); retrieval p50 {result['query_p50_ms']} ms, p95 {result['query_p95_ms']} ms")
    print(f"{'category':14}" + "".join(f"{v + ' R@5/10/20':>22}" for v in ("bm25", *VARIANTS))
          + f"{'fused-bm25 R@10':>17}")  # fmt: skip
    for cat in (*CATEGORIES[:-1], "overall"):
        row = f"{cat:14}"
        for v in ("bm25", *VARIANTS):
            values = result["recall"][v][cat]
            shown = ["-" if values[f"R@{k}"] is None else format(values[f"R@{k}"], ".2f") for k in KS]
            row += f"{'/'.join(shown):>22}"
        fused, base = result["recall"]["all"][cat]["R@10"], result["recall"]["bm25"][cat]["R@10"]
        delta = "" if fused is None or base is None else format(fused - base, "+.2f")
        row += f"{delta:>17}"
        print(row)
    print(f"{'hit@10':14}" + "".join(f"{result['recall'][v]['overall']['hit@10']:>22.2f}" for v in ("bm25", *VARIANTS)))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "tests" / "data" / "conversations" / "dev")
    parser.add_argument("--embedder", default="minilm", choices=["minilm", "hash", "none"])
    parser.add_argument("--questions", type=int, default=None, help="Only the first N questions.")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.data, args.embedder, args.questions)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        _print(result)


if __name__ == "__main__":
    main()
