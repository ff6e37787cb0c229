"""The house limits (docs/development.md): no function over 50 lines and no module over 400
lines in `local_agent/`. A function's length runs from its `def` line to its last line (its
decorators not counted, its docstring counted); a nested function is measured on its own and
also counts in the function around it. A module's length is its number of lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "local_agent"
MAX_FUNCTION_LINES = 50
MAX_MODULE_LINES = 400


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int]]:
    """(qualified name, lines) of every function in `source` longer than `limit` lines."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    lines = (child.end_lineno or child.lineno) - child.lineno + 1
                    if lines > limit:
                        found.append((name, lines))
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def violations() -> list[str]:
    """Each function and module over its limit, as `path:name (N lines)`."""
    found: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        shown = path.relative_to(PACKAGE.parent).as_posix()
        lines = len(source.splitlines())
        if lines > MAX_MODULE_LINES:
            found.append(f"{shown} ({lines} lines, module)")
        found += [f"{shown}:{name} ({count} lines)" for name, count in long_functions(source)]
    return found


def _function(body_lines: int, decorators: int = 0) -> str:
    head = "@staticmethod\n" * decorators + "def f() -> None:\n"
    return head + "    x = 1\n" * body_lines


@pytest.mark.parametrize(("source", "expected"), [
    pytest.param(_function(49), [], id="50 lines with its def: at the limit"),
    pytest.param(_function(50), [("f", 51)], id="51 lines"),
    pytest.param(_function(49, decorators=3), [], id="decorators do not count"),
    pytest.param("class A:\n    " + _function(55).replace("\n", "\n    "), [("A.f", 56)], id="a method"),
    pytest.param("def g() -> None:\n    " + _function(60).replace("\n", "\n    "), [("g", 62), ("g.f", 61)],
                 id="a nested function counts twice"),
])
def test_long_functions_measures_from_def_to_last_line(source: str, expected: list[tuple[str, int]]) -> None:
    assert long_functions(source) == expected


def test_the_package_is_found() -> None:
    assert len(list(PACKAGE.rglob("*.py"))) > 100


def test_no_function_over_50_lines_and_no_module_over_400_in_local_agent() -> None:
    found = violations()
    assert not found, f"{len(found)} over the house limits:\n" + "\n".join(found)
