"""``SearchFilter`` as OpenSearch query DSL, and the lexical / k-NN request bodies.

The clauses mirror ``retrieval.policy.node_matches_filter`` field by field, so
the backend returns a subset of what the reference semantics accept. They are
placed in ``bool.filter`` for BM25 (no scoring, cacheable) and *inside* the
``knn`` clause for vectors: Lucene's efficient filtering then searches only the
allowed documents and still returns ``k`` of them, where a post-filter would
drop another owner's nearest neighbours and come back short.

Dates are stored with millisecond precision; sub-millisecond differences can
make a range clause admit a node the reference check rejects, which the
retriever's re-check removes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Any

from schemas.enums import EpistemicType
from schemas.search import SearchFilter
from sinks.documents import FIELD_BOOSTS, TEXT_FIELDS
from sinks.opensearch_mapping import VECTOR_FIELD

#: The analysed text fields with their boosts, in OpenSearch's ``field^boost`` spelling.
LEXICAL_FIELDS = tuple(f"{f}^{FIELD_BOOSTS[f]:g}" if f in FIELD_BOOSTS else f for f in TEXT_FIELDS)
#: A query word in more documents than this (and than the fraction below) is "common": it scores but does
#: not by itself make a document a lexical candidate. Same numbers as the embedded index, so both backends
#: select the same candidates (``sinks.embedded_index.COMMON_TERM_*``).
COMMON_TERM_MIN_DOCS = 100
COMMON_TERM_FRACTION = 0.01
#: Ideographs (Han) and Hiragana: the standard tokenizer makes each character a token of its own.
_IDEOGRAPH = "\u3040-\u309f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: A word as Lucene's standard tokenizer (UAX #29) cuts it for the common cases: letters joined by
#: ``.`` ``:`` or an apostrophe stay one word (``scale.weight_kg``, ``what's``, ``U.S.A``), and so do
#: digits joined by ``.`` ``,`` ``;`` (``63.4``, ``1,000``); a letter next to a digit across a
#: joiner does not (``ab.12`` is two). The rare/common split must count the words the index holds:
#: split ``63.4`` into ``63`` and ``4`` and neither is found, so a query naming the number selects
#: only the documents of its other words.
_WORD = re.compile(
    f"[{_IDEOGRAPH}]"
    f"|[^\\W{_IDEOGRAPH}]+"
    f"(?:(?:(?<=[^\\W\\d_])[.:'\u2019](?=[^\\W\\d_{_IDEOGRAPH}])|(?<=\\d)[.,;'\u2019](?=\\d))[^\\W{_IDEOGRAPH}]+)*",
    re.UNICODE,
)


def query_words(query: str) -> list[str]:
    """Distinct lower-cased words, split as the text fields' standard tokenizer splits them."""
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))


def term_stats_body(words: Sequence[str]) -> dict[str, Any]:
    """Documents per (word, field) over the whole alias, plus the total, in one request.

    ``match`` analyses each word with the field's analyser, so the count is that of the indexed
    form (stemmed; English stop words match nothing and count zero).
    """
    filters = {f"{i}:{field}": {"match": {field: word}} for i, word in enumerate(words) for field in TEXT_FIELDS}
    return {
        "size": 0,
        "track_total_hits": True,
        "query": {"match_all": {}},
        "aggs": {"df": {"filters": {"filters": filters}}},
    }


def split_common(words: Sequence[str], stats: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(rare, common) from a ``term_stats_body`` response; words found nowhere are in neither.

    A word's frequency is its largest per-field document count, as in the embedded index.
    """
    total = int(stats.get("hits", {}).get("total", {}).get("value", 0))
    buckets = stats.get("aggregations", {}).get("df", {}).get("buckets", {})
    cutoff = max(COMMON_TERM_MIN_DOCS, COMMON_TERM_FRACTION * total)
    rare: list[str] = []
    common: list[str] = []
    for i, word in enumerate(words):
        freq = max((int(buckets.get(f"{i}:{field}", {}).get("doc_count", 0)) for field in TEXT_FIELDS), default=0)
        if freq == 0:
            continue
        (common if freq > cutoff else rare).append(word)
    return rare, common


def _term(field: str, value: str) -> dict[str, Any]:
    return {"term": {field: value}}


def _terms(field: str, values: Iterable[Enum | str]) -> dict[str, Any]:
    # An empty set means "nothing qualifies", which an empty terms list expresses.
    return {"terms": {field: sorted(v.value if isinstance(v, Enum) else v for v in values)}}


def _unless_type(epistemic_type: EpistemicType, clause: dict[str, Any]) -> dict[str, Any]:
    """Documents of another type pass; documents of this type must satisfy ``clause``."""
    return {
        "bool": {
            "should": [{"bool": {"must_not": [_term("epistemic_type", epistemic_type.value)]}}, clause],
            "minimum_should_match": 1,
        }
    }


def filter_clauses(flt: SearchFilter) -> list[dict[str, Any]]:
    clauses: list[dict[str, Any]] = [_term("tenant_id", flt.tenant_id), _term("owner_id", flt.owner_id)]
    if flt.scope is not None:
        clauses.append(_term("scope", flt.scope.value))
    if flt.scope_id is not None:
        clauses.append(_term("scope_id", flt.scope_id))
    if flt.readable is not None:
        # a document written before visibility existed has no such field: private, so never matched here
        clauses.append({"terms": {"visibility": sorted(flt.readable)}})
    for field, values in (
        ("node_type", flt.node_types),
        ("source_type", flt.source_types),
        ("epistemic_type", flt.epistemic_types),
        ("lifecycle", flt.lifecycles),
    ):
        if values is not None:
            clauses.append(_terms(field, values))
    if flt.condition_states is not None:
        clauses.append(_unless_type(EpistemicType.CONDITIONAL, _terms("condition_state", flt.condition_states)))
    if flt.unverified_min_confidence is not None:
        above = {"range": {"confidence": {"gt": flt.unverified_min_confidence}}}
        clauses.append(_unless_type(EpistemicType.UNVERIFIED, above))
    if flt.valid_at is not None:
        clauses.append({"range": {"valid_from": {"lte": flt.valid_at}}})
        open_or_later = [
            {"bool": {"must_not": [{"exists": {"field": "valid_to"}}]}},
            {"range": {"valid_to": {"gt": flt.valid_at}}},
        ]
        clauses.append({"bool": {"should": open_or_later, "minimum_should_match": 1}})
    if flt.recorded_before is not None:
        clauses.append({"range": {"recorded_at": {"lte": flt.recorded_before}}})
    window: dict[str, str] = {}
    if flt.time_from is not None:
        window["gte"] = flt.time_from
    if flt.time_to is not None:
        window["lt"] = flt.time_to
    if window:
        clauses.append({"range": {"valid_from": window}})
    return clauses


def _text(words: str) -> dict[str, Any]:
    return {"multi_match": {"query": words, "fields": list(LEXICAL_FIELDS), "type": "best_fields"}}


def lexical_body(
    query: str,
    flt: SearchFilter,
    k: int,
    *,
    server_timeout: str,
    rare: Sequence[str] = (),
    common: Sequence[str] = (),
) -> dict[str, Any]:
    """BM25 over the text fields, owner/epistemic filters in ``bool.filter``.

    With both ``rare`` and ``common`` words (see ``split_common``) a document must match a rare word;
    common ones only add to its score. Otherwise every word selects, as a plain ``multi_match``.
    (``cutoff_frequency`` did this inside OpenSearch but is deprecated since 2.x and absent from 3.x.)
    """
    if rare and common:
        text: dict[str, Any] = {"bool": {"must": [_text(" ".join(rare))], "should": [_text(" ".join(common))]}}
    else:
        text = _text(query)
    return {
        "size": k,
        "timeout": server_timeout,
        "track_total_hits": False,
        "_source": False,
        "query": {"bool": {"must": [text], "filter": filter_clauses(flt)}},
    }


def knn_body(
    vector: list[float], flt: SearchFilter, k: int, *, server_timeout: str, candidates: int = 100
) -> dict[str, Any]:
    """``candidates`` is the per-segment beam (Lucene uses the knn ``k`` as its ef): with the
    beam equal to a small ``k`` the greedy HNSW walk stops at a local optimum and misses exact
    matches, so ask for more neighbours than are returned."""
    clause = {"vector": vector, "k": max(k, candidates), "filter": {"bool": {"filter": filter_clauses(flt)}}}
    return {
        "size": k,
        "timeout": server_timeout,
        "track_total_hits": False,
        "_source": False,
        "query": {"knn": {VECTOR_FIELD: clause}},
    }
