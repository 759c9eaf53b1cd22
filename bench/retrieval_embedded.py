"""Retrieval latency and recall on the embedded index at 10k and 100k nodes.

Each node is a realistic claim ("I volunteer at the Kestrel Library", "Priya
prefers window seats", ...) with a unique made-up name in its object, spread
over 20 owners with a realistic epistemic mix (hypotheses, superseded and
contested claims included). Queries ask for one node's object in other words
plus the unique name ("exact-answer queries"); recall@10 is the share of
queries whose target is in the top 10 of the full retrieval pipeline
(filters pushed down, lexical + vector candidates, RRF, policy, presentation,
packing). Prints p50/p95 latency per size and the process's peak RSS.

With ``--excerpts`` each claim's message is also indexed as a source excerpt (the message, its
speaker and the turn before it) and retrieval ranks both (``sources="all"``); a query then counts
as answered when the claim or its message is in the top 10.

Targets (issues 4, 23): p95 <= 30 ms at 100k nodes (and with 100k excerpts beside them); peak RSS
<= 2 GiB.

Run: .venv/bin/python bench/retrieval_embedded.py [--sizes 10000 100000] [--queries 300] [--embedder hash|minilm]
     [--excerpts]
"""

from __future__ import annotations

import argparse
import contextlib
import random
import resource
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

with contextlib.suppress(ImportError):
    import onnxruntime  # noqa: F401  (must load before usearch)

from retrieval.resolved import ResolvedBackend
from retrieval.service import Retriever
from schemas import (
    ActorRef,
    ActorType,
    DecayProfile,
    EpistemicType,
    LifecycleState,
    MemoryNode,
    NodeType,
    Scope,
    SourceType,
    derive_id,
)
from schemas.enums import Role
from schemas.excerpts import Excerpt, excerpt_id_for
from schemas.retrieval import RetrievalRequest
from sinks.documents import excerpt_document
from sinks.embedded_index import EmbeddedIndex
from sinks.embedding import default_embedder

T0 = datetime(2026, 1, 1, tzinfo=UTC)
REF = datetime(2026, 12, 1, tzinfo=UTC)
SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "tor", "vel", "un", "qi", "dra", "po", "shi", "zen", "bar", "ect", "ion"]
TEMPLATES = [
    ("lives_in", "I live in {x}.", "where does the user live {x}"),
    ("works_at", "I work at {x} as an engineer.", "which company does the user work for {x}"),
    ("likes", "I really enjoy {x} on weekends.", "what does the user enjoy {x}"),
    ("uses", "We use {x} for the billing service.", "which tool runs billing {x}"),
    ("volunteers_at", "I volunteer at the {x} library.", "where does the user volunteer {x}"),
    ("owns", "I have a cat called {x}.", "what is the name of the cat {x}"),
]
ACTOR = ActorRef(actor_id="u", actor_type=ActorType.HUMAN_USER)


def word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(3)).capitalize()


def corpus(n: int, seed: int = 11, owners: int = 20) -> tuple[list[MemoryNode], list[tuple[str, str, str]]]:
    rng = random.Random(seed)
    nodes, queries = [], []
    types = [EpistemicType.ASSERTED] * 6 + [EpistemicType.OBSERVED, EpistemicType.INFERRED, EpistemicType.HYPOTHETICAL]
    for i in range(n):
        predicate, text, question = rng.choice(TEMPLATES)
        x = f"{word(rng)}{i}"
        owner = f"user{i % owners}"
        et = rng.choice(types)
        lifecycle = LifecycleState.SUPERSEDED if rng.random() < 0.05 else LifecycleState.TENTATIVE
        when = T0 + timedelta(minutes=i)
        node = MemoryNode(
            tenant_id="bench", owner_id=owner, scope=Scope.PERSONAL, node_id=derive_id("bench", i), version=1,
            node_type=NodeType.FACT, subject="user", predicate=predicate, object=x, content=text.format(x=x),
            epistemic_type=et, source_type=SourceType.USER_STATED, confidence=0.8, salience=0.5, lifecycle=lifecycle,
            decay_profile=DecayProfile.MEDIUM, asserted_by=ACTOR, valid_from=when, recorded_at=when, created_at=when,
            updated_at=when, last_reinforced_at=when, evidence_refs=(f"e{i}",),
        )  # fmt: skip
        nodes.append(node)
        if et in (EpistemicType.ASSERTED, EpistemicType.OBSERVED) and lifecycle is LifecycleState.TENTATIVE:
            queries.append((owner, question.format(x=x), node.node_id))
    return nodes, queries


def excerpts_of(nodes: list[MemoryNode]) -> list[MemoryNode]:
    """The message each claim came from, as the runner indexes it: said by the owner, after a question."""
    out = []
    for n in nodes:
        excerpt = Excerpt(tenant_id=n.tenant_id, owner_id=n.owner_id, scope=n.scope,
                          excerpt_id=excerpt_id_for(n, n.evidence_refs[0]), event_id=n.evidence_refs[0],
                          session_id=f"s-{n.evidence_refs[0]}", role=Role.USER, speaker="Sam", speaker_id="sam",
                          text=f"oh and {n.content.lower()} anyway, how was your week?", occurred_at=n.valid_from,
                          recorded_at=n.recorded_at, context=("Alex: so what's new with you?",))  # fmt: skip
        out.append(excerpt_document(excerpt))
    return out


def run(size: int, n_queries: int, embedder_kind: str, owners: int = 20, excerpts: bool = False) -> None:
    nodes, queries = corpus(size, owners=owners)
    rng = random.Random(3)
    sample = rng.sample(queries, min(n_queries, len(queries)))
    with tempfile.TemporaryDirectory() as tmp:
        embedder = default_embedder(embedder_kind)
        index = EmbeddedIndex(Path(tmp) / "ix", embedder)
        said = EmbeddedIndex(Path(tmp) / "excerpts", embedder) if excerpts else None
        start = time.perf_counter()
        for i in range(0, len(nodes), 2000):
            index.upsert(nodes[i : i + 2000])
            if said is not None:
                said.upsert(excerpts_of(nodes[i : i + 2000]))
        index.commit()
        if said is not None:
            said.commit()
        build = time.perf_counter() - start
        by_id = {n.node_id: n for n in nodes}  # the embedded runner resolves from its state store
        event_of = {n.node_id: n.evidence_refs[0] for n in nodes}
        retriever = Retriever(ResolvedBackend(index, by_id.get), excerpts=said)
        for owner, q, _ in sample[:20]:  # warm up
            retriever.retrieve(RetrievalRequest(query=q, tenant_id="bench", owner_id=owner, reference_time=REF))
        latencies, hits = [], 0
        for owner, q, target in sample:
            t = time.perf_counter()
            response = retriever.retrieve(
                RetrievalRequest(query=q, tenant_id="bench", owner_id=owner, limit=10, reference_time=REF)
            )
            latencies.append((time.perf_counter() - t) * 1000)
            found = {item.event_id if item.kind == "excerpt" else event_of.get(item.node_id)
                     for item in response.items[:10]}  # fmt: skip
            hits += event_of[target] in found
        index.close()
        if said is not None:
            said.close()
    latencies.sort()
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(
        f"{size:>7,} nodes{' + excerpts' if excerpts else ''}, {owners} owners ({embedder_kind}): build {build:6.1f} s"
        f" | p50 {statistics.median(latencies):6.1f} ms"
        f" | p95 {p95:6.1f} ms | recall@10 {hits / len(sample):.3f} ({len(sample)} queries)"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--embedder", default="hash", choices=["hash", "minilm"])
    ap.add_argument("--owners", type=int, default=20,
                    help="owners sharing the corpus; few owners = large per-owner sets (the HNSW path)")
    ap.add_argument("--excerpts", action="store_true", help="also index each claim's message as an excerpt")
    args = ap.parse_args()
    for size in args.sizes:
        run(size, args.queries, args.embedder, args.owners, args.excerpts)
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB (target <= 2,048 MiB)")


if __name__ == "__main__":
    main()
