"""What every extractor looks like, and the one place that picks one by name.

The LLM extractor is imported lazily so the default (rules) path never pays for
instructor/openai imports and works without the ``llm`` extra installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from engine.attributes import TenantAttributes
from engine.config import DEFAULT_CONFIG, EngineConfig
from schemas.claims import ExtractionResult
from schemas.errors import InvalidConfiguration, ValidationFailed
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


def load_attribute_file(settings: Settings | None) -> TenantAttributes | None:
    """The deployment's extension of the attribute registry (``EPISTREAM_ATTRIBUTES_FILE``), or None.

    Read here, once per process, so that the engine stays free of I/O: the reducer and the rule extractor
    are handed the parsed extension. A missing or malformed file is an ``InvalidConfiguration``.
    """
    path = settings.attributes_file if settings is not None else None
    if path is None:
        return None
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidConfiguration(f"cannot read the attribute file {path}: {exc.strerror or exc}") from exc
    try:
        return TenantAttributes.parse(text)
    except ValueError as exc:
        raise InvalidConfiguration(f"the attribute file {path} is malformed: {exc}") from exc


def engine_config_for(settings: Settings | None, base: EngineConfig = DEFAULT_CONFIG) -> EngineConfig:
    """``base`` with the deployment's attribute extensions, if it configures any."""
    extensions = load_attribute_file(settings)
    return base if extensions is None else base.with_attribute_file(extensions)


def get_extractor(name: str, settings: Settings | None = None) -> Extractor:
    """``"rules"`` or ``"llm"``; the LLM extractor needs the application's ``settings`` (endpoint, model, key).

    The rule extractor reads the attribute registry's update words, extended as ``settings`` configure.
    """
    key = name.strip().lower()
    if key == "rules":
        from extractors.rules import RuleExtractor

        extensions = load_attribute_file(settings)
        return RuleExtractor() if extensions is None else RuleExtractor.with_attribute_file(extensions)
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
