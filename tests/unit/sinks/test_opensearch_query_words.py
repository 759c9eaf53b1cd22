"""Query words are cut where Lucene's standard tokenizer cuts the indexed text (outputs of its _analyze API)."""

from __future__ import annotations

import pytest

from sinks.opensearch_query import query_words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("scale.weight_kg: 63.4", ["scale.weight_kg", "63.4"]),
        ("a:b what's 1,000 3;4", ["a:b", "what's", "1,000", "3;4"]),
        ("e-mail foo.bar. x_y", ["e", "mail", "foo.bar", "x_y"]),
        ("ab.12 12.ab", ["ab", "12"]),
        ("U.S.A. don\u2019t", ["u.s.a", "don\u2019t"]),
        ("does the user scale weight kg 63.4", ["does", "the", "user", "scale", "weight", "kg", "63.4"]),
        ("Weight weight WEIGHT", ["weight"]),
        ("end. Next", ["end", "next"]),
        ("v2.1.0-rc", ["v2.1.0", "rc"]),
    ],
)
def test_query_words_follow_the_standard_tokenizer(text: str, words: list[str]) -> None:
    assert query_words(text) == words
