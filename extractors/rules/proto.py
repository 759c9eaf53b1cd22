"""What the rules propose before validation: proto claims, proposals, snake-case predicates.

Every role's rules build :class:`Proto` claims; the extractor turns each :class:`Proposal` (a proto
with its evidence quote, condition and hedge) into a :class:`schemas.claims.Claim` for the validator.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from schemas.claims import Quantity
from schemas.enums import EpistemicType, NodeType, SourceType

_NON_ALNUM: Final = re.compile(r"[^a-z0-9]+")


def snake(*words: str) -> str:
    """A snake_case predicate from words ("favourite colour" -> ``favorite_color``: one spelling per triple)."""
    text = "_".join(w for w in words if w)
    text = _NON_ALNUM.sub("_", text.lower()).strip("_")
    return text.replace("favourite", "favorite").replace("colour", "color")


@dataclass
class Proto:
    """A claim as a rule proposes it: the triple and what the clause said about it, before typing."""

    subject: str
    predicate: str
    object: str | None
    node_type: NodeType = NodeType.FACT
    negative: bool = False
    hedge: bool = False
    update: bool = False
    replaces: str | None = None
    quantity: Quantity | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    epistemic: EpistemicType | None = None
    speech_act: bool = False


@dataclass
class Proposal:
    """A proto claim with its evidence: the quote, the condition in scope, whether the wording is hedged."""

    proto: Proto
    quote: str
    condition: str | None
    uncertain: bool
    source_type: SourceType | None = None
