"""The pure epistemic core: reducer, rules, confidence, replay, provenance, assertion state.

No I/O, no clock, no random ids: every function here is deterministic in its inputs.
"""

from engine.assertion_state import AssertionState, assertion_state
from engine.config import DEFAULT_CONFIG, EngineConfig
from engine.decay import Effective, effective
from engine.normalize import normalize_predicate, normalize_text
from engine.promotion import apply_due_promotions, due_promotions
from engine.provenance import NodeProvenance, get_provenance
from engine.reducer import Reducer, apply
from engine.replay import replay, verify_replay
from engine.results import ApplyResult, Outcome
from engine.store import InMemoryStateStore, StateStore

__all__ = [
    "DEFAULT_CONFIG",
    "ApplyResult",
    "AssertionState",
    "Effective",
    "EngineConfig",
    "InMemoryStateStore",
    "NodeProvenance",
    "Outcome",
    "Reducer",
    "StateStore",
    "apply",
    "apply_due_promotions",
    "assertion_state",
    "due_promotions",
    "effective",
    "get_provenance",
    "normalize_predicate",
    "normalize_text",
    "replay",
    "verify_replay",
]
