"""The OpenSearch backend splits a query into the words its analyser indexed (checked by the node itself).

The rare/common split counts each query word's documents; a word cut differently from the indexed
tokens counts zero and stops selecting (``63.4`` split into ``63`` and ``4`` once dropped the one
document holding ``scale.weight_kg: 63.4`` from every query naming the number).
"""

from __future__ import annotations

import pytest
from test_opensearch_support import opensearch_client

from sinks.opensearch_query import query_words

pytestmark = pytest.mark.integration

SAMPLES = (
    "scale.weight_kg: 63.4",
    "my card ends in 4242, expiry 09/27 — don't share it",
    "meet at 10:30 or 11.45 in bldg.7, room B-12",
    "I paid $1,250.50 for the U.S.A. trip (v2.1.0-rc notes)",
    "user_name=maya; email maya.k@example.org; phone +49 30 1234-5678",
    "she’s moving to São Paulo on 2025-03-01; it's 3;4 odds",
    "temps: -3.5°C .. 12°C, ratio 3:2, a:b test, x_y_z",
    "Ünïcödé wörds: naïve café, straße, 東京 2024年",
)


@pytest.mark.parametrize("text", SAMPLES)
def test_query_words_are_the_standard_tokenizers_tokens(text: str) -> None:
    client = opensearch_client()
    try:
        got = client.indices.analyze(body={"tokenizer": "standard", "filter": ["lowercase"], "text": text})
    finally:
        client.close()
    assert query_words(text) == list(dict.fromkeys(t["token"] for t in got["tokens"]))
