"""What every extractor looks like, and the one place that picks one by name.

The LLM extractor is imported lazily so the default (rules) path never pays for
instructor/openai imports and works without the ``llm`` extra installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from schemas.claims import ExtractionResult
from schemas.errors import ValidationFailed
from schemas.events import ConversationEvent

if TYPE_CHECKING:
    from schemas.settings import Settings


@runtime_checkable
class Extractor(Protocol):
    name: str
    version: str

    def extract(self, event: ConversationEvent) -> ExtractionResult: ...


class UnknownExtractor(ValidationFailed):
    code = "unknown_extractor"


def get_extractor(name: str, settings: Settings | None = None) -> Extractor:
    """``"rules"`` or ``"llm"``; the LLM extractor needs the application's ``settings`` (endpoint, model, key)."""
    key = name.strip().lower()
    if key == "rules":
        from extractors.rules import RuleExtractor

        return RuleExtractor()
    if key == "llm":
        import importlib

        llm = importlib.import_module("extractors.llm")
        if settings is None:
            raise UnknownExtractor(
                "the llm extractor needs settings (endpoint, model, key)", code="extractor_not_configured"
            )
        factory = getattr(llm, "create_extractor", None) or getattr(llm, "LLMExtractor", None)
        if factory is None:
            raise UnknownExtractor("extractors.llm provides no extractor factory", code="unknown_extractor")
        extractor: Extractor = factory(settings)
        return extractor
    raise UnknownExtractor(f"unknown extractor {name!r}; expected 'rules' or 'llm'")
