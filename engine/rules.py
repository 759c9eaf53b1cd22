"""The two transition tables (PRME-FACTS §1.5, §1.6) and their checks.

Kept as data so tests can enumerate every pair and so no handler can quietly
invent its own rule.
"""

from __future__ import annotations

from schemas.enums import ACTIVE_LIFECYCLE_STATES, EpistemicType, LifecycleState
from schemas.errors import InvalidEpistemicTransition, InvalidLifecycleTransition

E = EpistemicType
L = LifecycleState

#: PRME code table: forward only, ARCHIVED final.
LIFECYCLE_TRANSITIONS: dict[LifecycleState, frozenset[LifecycleState]] = {
    L.TENTATIVE: frozenset({L.STABLE, L.SUPERSEDED, L.CONTESTED, L.ARCHIVED}),
    L.STABLE: frozenset({L.SUPERSEDED, L.CONTESTED, L.ARCHIVED}),
    L.CONTESTED: frozenset({L.STABLE, L.DEPRECATED, L.ARCHIVED}),
    L.SUPERSEDED: frozenset({L.ARCHIVED}),
    L.DEPRECATED: frozenset({L.ARCHIVED}),
    L.ARCHIVED: frozenset(),
}

#: Explicit deprecation (deprecate command, transition to DEPRECATED, or losing a
#: resolved contradiction) may leave any active state: RFC-0001 §8 allows
#: ACTIVE → DEPRECATED and RFC-0003 §6 allows any type → DEPRECATED. The code
#: table above only lists CONTESTED → DEPRECATED, which would make an
#: uncontested wrong claim impossible to retract.
EXPLICIT_DEPRECATION_SOURCES: frozenset[LifecycleState] = frozenset(ACTIVE_LIFECYCLE_STATES)

#: RFC-0003 §6, one step at a time. "Any type → DEPRECATED" is added below.
EPISTEMIC_TRANSITIONS: dict[EpistemicType, frozenset[EpistemicType]] = {
    E.UNVERIFIED: frozenset({E.ASSERTED, E.DEPRECATED}),
    E.ASSERTED: frozenset({E.OBSERVED, E.DEPRECATED}),
    E.INFERRED: frozenset({E.ASSERTED, E.DEPRECATED}),
    E.HYPOTHETICAL: frozenset({E.ASSERTED, E.DEPRECATED}),
    E.OBSERVED: frozenset({E.DEPRECATED}),
    #: A CONDITIONAL claim keeps its type; only condition_state moves.
    E.CONDITIONAL: frozenset({E.DEPRECATED}),
    E.DEPRECATED: frozenset(),
}


def lifecycle_allowed(current: LifecycleState, target: LifecycleState, *, explicit_deprecation: bool = False) -> bool:
    if target in LIFECYCLE_TRANSITIONS[current]:
        return True
    return explicit_deprecation and target is L.DEPRECATED and current in EXPLICIT_DEPRECATION_SOURCES


def check_lifecycle(current: LifecycleState, target: LifecycleState, *, explicit_deprecation: bool = False) -> None:
    if not lifecycle_allowed(current, target, explicit_deprecation=explicit_deprecation):
        raise InvalidLifecycleTransition(
            "lifecycle transition not allowed", from_state=current.value, to_state=target.value
        )


def epistemic_allowed(current: EpistemicType, target: EpistemicType) -> bool:
    return target in EPISTEMIC_TRANSITIONS[current]


def check_epistemic(current: EpistemicType, target: EpistemicType) -> None:
    if not epistemic_allowed(current, target):
        raise InvalidEpistemicTransition(
            "epistemic transition not allowed", from_type=current.value, to_type=target.value
        )
