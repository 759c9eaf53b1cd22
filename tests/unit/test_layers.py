"""The layers import only downward: schemas -> engine -> extractors -> sinks -> retrieval -> streams -> epistream.

Every import statement of every module is read (at module level, inside functions and under
``TYPE_CHECKING`` alike): a lower layer that reaches up even lazily still depends on the layer
above it, and the package loops that follow are what made the tree hard to read.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ["schemas", "engine", "extractors", "sinks", "retrieval", "streams", "epistream"]
RANK = {name: i for i, name in enumerate(LAYERS)}


def _is_import_module(node: ast.AST) -> bool:
    """``importlib.import_module("a.b")`` with a literal name."""
    if not isinstance(node, ast.Call) or getattr(node.func, "attr", getattr(node.func, "id", "")) != "import_module":
        return False
    return bool(node.args) and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
        elif _is_import_module(node):
            found.append((node.lineno, node.args[0].value))  # type: ignore[attr-defined]
    return found


def upward_imports(layer: str) -> list[str]:
    found = []
    for path in sorted((ROOT / layer).rglob("*.py")):
        for line, module in _imports(path):
            top = module.split(".")[0]
            if top in RANK and RANK[top] > RANK[layer]:
                found.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return found


@pytest.mark.parametrize("layer", LAYERS)
def test_no_layer_imports_a_higher_one(layer: str) -> None:
    assert upward_imports(layer) == []


def test_the_check_sees_every_kind_of_import(tmp_path: Path) -> None:
    """A module-level, a lazy, a TYPE_CHECKING and an importlib import are all reported."""
    module = tmp_path / "m.py"
    module.write_text(
        "import streams.topics\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from epistream.runner import EmbeddedRunner\n"
        "def f():\n    from retrieval.service import Retriever\n"
        "    import importlib\n    importlib.import_module('epistream.api')\n"
    )
    modules = [m for _, m in _imports(module)]
    expected = ["streams.topics", "typing", "epistream.runner", "retrieval.service", "importlib", "epistream.api"]
    assert modules == expected


def test_every_layer_is_a_package_in_the_tree() -> None:
    assert [name for name in LAYERS if not (ROOT / name / "__init__.py").is_file()] == []
