"""JSON-mode values of contract models: what ``model.model_dump(mode="json")`` returns.

Pydantic's JSON mode is the definition of a model's JSON values (checksums and stored records
are the canonical JSON of it); :func:`model_json` only skips the wrapper's argument handling.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def model_json(model: BaseModel) -> dict[str, Any]:
    """``model.model_dump(mode="json")`` minus the wrapper's argument handling."""
    out: dict[str, Any] = type(model).__pydantic_serializer__.to_python(model, mode="json")
    return out
