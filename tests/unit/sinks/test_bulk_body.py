"""The bulk body we encode is what OpenSearch's NDJSON format expects, vectors intact."""

from __future__ import annotations

import json

import numpy as np

from sinks.opensearch_index import bulk_body


def test_one_json_line_per_action_and_a_final_newline() -> None:
    actions = [{"index": {"_index": "a", "_id": "n1", "version": 3, "version_type": "external"}},
               {"content": "Alice uses Python — ü", "valid_to": None, "confidence": 0.7}]
    body = bulk_body(actions)
    assert body.endswith(b"\n") and body.count(b"\n") == 2
    assert [json.loads(line) for line in body.splitlines()] == actions


def test_numpy_vectors_round_trip_to_the_same_float32_values() -> None:
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((2, 384)).astype(np.float32)
    actions = [{"index": {"_id": "x"}}, {"vec": list(matrix[0])}, {"index": {"_id": "y"}}, {"vec": matrix[1]}]
    lines = bulk_body(actions).splitlines()
    for line, row in ((lines[1], matrix[0]), (lines[3], matrix[1])):
        decoded = np.array(json.loads(line)["vec"], dtype=np.float32)
        assert decoded.shape == (384,)
        assert np.array_equal(decoded, row)
