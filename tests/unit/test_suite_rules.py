"""Rules for the test suite itself, checked on its source.

A test that returns before it asserts anything passes whatever the code does (a parametrised case
with ``None`` for "not checked" that quietly checks nothing, an early exit for an environment). So
every test function (``test_*`` at module level or in a ``Test*`` class, under ``tests/``) must not
hit a ``return`` before its first check: an ``assert``, a ``with pytest.raises(...)``/``warns``, or a
call to ``pytest.fail``/``skip``/``xfail`` (which say out loud that nothing was checked).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent

_CHECK_CALLS = {"raises", "warns", "fail", "skip", "xfail", "importorskip", "deprecated_call"}


def _is_check_call(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return name in _CHECK_CALLS
    return False


def _in_order(nodes: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of ``nodes`` in source order, not descending into nested functions or classes."""
    for stmt in nodes:
        yield stmt
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.stmt):
                yield from _in_order([child])
            elif not isinstance(child, ast.Lambda):
                yield from ast.walk(child)


def early_returns(source: str) -> list[tuple[str, int]]:
    """(test name, line) of every ``return`` reached before the test's first check."""
    tree = ast.parse(source)
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions.append(node)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            functions.extend(n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    found: list[tuple[str, int]] = []
    for fn in functions:
        if not fn.name.startswith("test"):
            continue
        for node in _in_order(fn.body):
            if isinstance(node, ast.Assert) or _is_check_call(node):
                break
            if isinstance(node, ast.Return):
                found.append((fn.name, node.lineno))
                break
    return found


def test_no_test_returns_before_its_first_check() -> None:
    offenders = [
        f"{path.relative_to(TESTS)}:{line} {name}"
        for path in sorted(TESTS.rglob("test_*.py"))
        if "data" not in path.relative_to(TESTS).parts
        for name, line in early_returns(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_rule_sees_an_early_return_and_nothing_else() -> None:
    bad = '''
def test_a(x):
    result = f(x)
    if x is None:
        return
    assert result
class TestB:
    def test_b(self):
        for i in range(3):
            if i:
                return
        assert True
'''
    good = '''
def test_c(x):
    assert f(x)
    if x is None:
        return
def test_d():
    with pytest.raises(ValueError):
        f()
    return
def test_e(x):
    if x:
        pytest.skip("not here")
    def helper():
        return 1
    assert helper()
def helper_not_a_test():
    return 2
'''
    assert early_returns(bad) == [("test_a", 5), ("test_b", 11)]
    assert early_returns(good) == []
