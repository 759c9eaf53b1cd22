"""What a node looks like to a search index: one definition for the embedded index and OpenSearch.

Both backends must find the same candidates for the same query (the retrieval parity tests
compare them), so the text each field holds, the weight of each field and the text a vector
represents are written once, here.
"""

from __future__ import annotations

from typing import Final

from schemas.canonical import sha256_hex
from schemas.nodes import MemoryNode

#: The analysed text fields of a node document, matched lexically (BM25).
TEXT_FIELDS: Final = ("content", "subject", "object", "condition")
#: Field weights: content weighs double, it is the whole claim and the others are parts of it.
FIELD_BOOSTS: Final = {"content": 2.0}


def lexical_texts(node: MemoryNode) -> dict[str, str]:
    """The text of each lexical field (absent fields omitted)."""
    texts = {"content": node.content, "subject": node.subject, "object": node.object, "condition": node.condition}
    return {name: value for name, value in texts.items() if value}


def embedded_text(node: MemoryNode) -> str:
    """What a node's vector represents; its hash decides whether a new version is embedded again."""
    return node.content


def embedded_text_hash(node: MemoryNode) -> str:
    return sha256_hex(embedded_text(node))
