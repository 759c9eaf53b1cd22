"""Speech-act recovery for model output (PRME-FACTS §8.2.8).

A model that reads "I'm trying to set up ESLint" and answers ``uses ESLint`` has
its claim rejected, which would lose the attempt altogether. When the model
named the target but gave no non-actual claim for it, the attempt is recorded
the way PRME does: predicate ``<cue>_<first action word>``, object the earliest
named target in the clause (longest name on a tie), OBSERVED, or CONDITIONAL
with the condition from its marker word to the end of the clause; polarity
positive, confidence 1.0, temporal intent ``assertion``. Recovered claims go
through the same validation as any other; one that fails is dropped.

The rule extractor proposes these claims itself and does not use this module.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from extractors.text import SPEECH_ACT, find_conditions, mentions, speech_act_cue
from extractors.validation import (
    SELF_SUBJECTS,
    SourceText,
    ValidationOutcome,
    speech_act_stem,
    validate_with_context,
)
from schemas.claims import Claim
from schemas.enums import EpistemicType, NodeType, Polarity, TemporalIntent
from schemas.events import ConversationEvent

RECOVERY_CONFIDENCE: Final = 1.0
_NEGATED: Final = re.compile(r"\b(?:not|never|no longer)\b|n't\b", re.IGNORECASE)
_ACTION_WORD: Final = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _named_targets(proposals: Sequence[Claim | Mapping[str, Any]]) -> list[str]:
    """Names the model gave: every object, and every subject that is not a conversation party."""
    names: list[str] = []
    for p in proposals:
        data = p.model_dump() if isinstance(p, Claim) else p
        for key in ("object", "subject"):
            value = data.get(key)
            if isinstance(value, str) and value.strip() and value.strip().lower() not in SELF_SUBJECTS:
                names.append(value.strip())
    return names


def _earliest(clause: str, body_start: int, names: list[str]) -> str | None:
    best: tuple[int, int, str] | None = None
    for name in names:
        m = re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", clause[body_start:], re.IGNORECASE)
        if m is None:
            continue
        key = (m.start(), -len(name), name)
        if best is None or key < best:
            best = key
    return best[2] if best is not None else None


def _has_non_actual_claim(accepted: Sequence[Claim], target: str) -> bool:
    return any(speech_act_stem(c.predicate) and c.object is not None and mentions(c.object, target) for c in accepted)


def recover_speech_acts(
    event: ConversationEvent,
    proposals: Sequence[Claim | Mapping[str, Any]],
    outcome: ValidationOutcome,
    ctx: SourceText,
    *,
    grounding_method: str,
) -> list[Claim]:
    """Claims for attempts/plans/wishes whose named target the model left without a non-actual claim."""
    names = _named_targets(proposals)
    if not names:
        return []
    recovered: list[Claim] = []
    for m in SPEECH_ACT.finditer(event.text):
        clause = m.group(0)
        cue_text = m.group("cue")
        if _NEGATED.search(clause[: m.start("cue") - m.start() + len(cue_text)]):
            continue  # "I don't want to ..." is no attempt; polarity is fixed positive
        cue = speech_act_cue(cue_text)
        action = _ACTION_WORD.match(m.group("body"))
        target = _earliest(clause, m.start("body") - m.start(), names)
        if cue is None or action is None or target is None:
            continue
        if _has_non_actual_claim([*outcome.accepted, *recovered], target):
            continue
        conditions = find_conditions(clause)
        condition = clause[conditions[0][0] :].rstrip(" .,") if conditions else None
        claim = Claim(
            node_type=NodeType.FACT,
            subject=m.group("subj"),
            predicate=f"{cue}_{action.group(0).lower()}",
            object=target,
            polarity=Polarity.POSITIVE,
            epistemic_type=EpistemicType.CONDITIONAL if condition else EpistemicType.OBSERVED,
            condition=condition,
            temporal_intent=TemporalIntent.ASSERTION,
            evidence_quote=clause,
            classification_confidence=RECOVERY_CONFIDENCE,
            metadata={"recovered": "speech_act"},
        )
        checked = validate_with_context(event, [claim], ctx, grounding_method=grounding_method)
        recovered.extend(checked.accepted)
    return recovered
