"""`calculator`: arithmetic through simpleeval (an AST walker over an allow-list), never eval.

Numbers are capped so that no expression can take long or fill memory: literals have at most
MAX_DIGITS digits, exponents are at most MAX_EXPONENT, and every intermediate result stays
below 10**MAX_RESULT_DIGITS."""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any

import simpleeval

from ..errors import ToolError
from .base import Tool, object_schema, text_property

MAX_EXPRESSION_CHARS = 200
MAX_DIGITS = 30
MAX_EXPONENT = 1000
MAX_RESULT_DIGITS = 100
_LIMIT = 10**MAX_RESULT_DIGITS
_SPELLINGS = {"×": "*", "·": "*", "÷": "/", "−": "-", "^": "**", "√": "sqrt"}
_LONG_NUMBER = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")

DESCRIPTION = ("Evaluate an arithmetic expression: + - * / // % ** and parentheses; sqrt, abs, round, "
               "min, max, floor, ceil, log, log10, exp, factorial; pi and e.")


def _bounded(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ToolError("the calculator works on numbers only")
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError("the result is not a finite number")
    if abs(value) >= _LIMIT:
        raise ToolError(f"a number in this calculation reaches 10^{MAX_RESULT_DIGITS}, beyond the calculator's limit")
    return value


def _checked(function: Callable[..., Any], *, nonzero: bool = False) -> Callable[..., Any]:
    """`function` with its operands and its result held within the caps. With `nonzero`, the
    function is never 0 for operands that are not 0 (a product, a quotient, a power, exp), so
    a 0 is a float underflow (10**-400, 1e-200 * 1e-200) and an error, never an answer."""
    def run(*args: Any) -> Any:
        result = _bounded(function(*(_bounded(a) for a in args)))
        if nonzero and result == 0 and all(a != 0 for a in args[:1 if function is math.exp else 2]):
            raise ToolError("the result is too small for the calculator to represent (it underflows)")
        return result
    return run


def _power(base: Any, exponent: Any) -> Any:
    if abs(exponent) > MAX_EXPONENT:
        raise ToolError(f"exponents above {MAX_EXPONENT} are beyond the calculator's limit")
    if isinstance(exponent, int) and isinstance(base, int) and abs(base) > 1 \
            and exponent * math.log10(abs(base)) >= MAX_RESULT_DIGITS:
        raise ToolError(f"the power reaches 10^{MAX_RESULT_DIGITS}, beyond the calculator's limit")
    return base**exponent


MAX_FACTORIAL = 69  # 70! has 101 digits


def _factorial(value: Any) -> Any:
    if value != int(value) or not 0 <= value <= MAX_FACTORIAL:
        raise ToolError(f"factorial takes a whole number from 0 to {MAX_FACTORIAL}")
    return math.factorial(int(value))


def _round(value: Any, digits: Any = 0) -> Any:
    """Halves away from zero, as people round (2.5 -> 3), not to the even neighbour."""
    if not -MAX_DIGITS <= int(digits) <= MAX_DIGITS:
        raise ToolError(f"round takes -{MAX_DIGITS} to {MAX_DIGITS} decimal places")
    step = Decimal(1).scaleb(-int(digits))
    with localcontext() as context:
        context.prec = MAX_RESULT_DIGITS + 2 * MAX_DIGITS  # every digit of a number within the caps
        rounded = Decimal(str(value)).quantize(step, rounding=ROUND_HALF_UP)
    return int(rounded) if int(digits) <= 0 else float(rounded)


OPERATORS = {
    ast.Add: _checked(operator.add), ast.Sub: _checked(operator.sub),
    ast.Mult: _checked(operator.mul, nonzero=True), ast.Div: _checked(operator.truediv, nonzero=True),
    ast.FloorDiv: _checked(operator.floordiv), ast.Mod: _checked(operator.mod), ast.Pow: _checked(_power, nonzero=True),
    ast.USub: _checked(operator.neg), ast.UAdd: _checked(operator.pos),
}
_MATH: dict[str, Callable[..., Any]] = {
    "sqrt": math.sqrt, "abs": abs, "round": _round, "min": min, "max": max, "floor": math.floor,
    "ceil": math.ceil, "log": math.log, "log10": math.log10, "exp": math.exp, "factorial": _factorial,
}
FUNCTIONS = {name: _checked(function, nonzero=name == "exp") for name, function in _MATH.items()}
NAMES = {"pi": math.pi, "e": math.e}
_NODES = (ast.BinOp, ast.UnaryOp, ast.Call, ast.Name, ast.Constant, ast.Load, *(t for t in OPERATORS))


def evaluate(expression: str) -> int | float:
    """The value of an arithmetic expression; ToolError when it is not one or breaks a cap."""
    text = expression.strip()
    for written, meant in _SPELLINGS.items():
        text = text.replace(written, meant)
    if not text or len(text) > MAX_EXPRESSION_CHARS:
        raise ToolError(f"the expression must have 1 to {MAX_EXPRESSION_CHARS} characters")
    if _LONG_NUMBER.search(text):
        raise ToolError(f"numbers with more than {MAX_DIGITS} digits are beyond the calculator's limit")
    tree = _parse(text, expression)
    evaluator = simpleeval.SimpleEval(operators=OPERATORS, functions=FUNCTIONS, names=NAMES)
    try:
        return _bounded(evaluator.eval(text, previously_parsed=tree))
    except ToolError:
        raise
    except simpleeval.InvalidExpression as exc:
        raise ToolError(f"not allowed in the calculator: {exc}") from None
    except ZeroDivisionError:
        raise ToolError("division by zero") from None
    except (ArithmeticError, ValueError, TypeError) as exc:
        raise ToolError(f"cannot compute {expression!r}: {exc}") from None


def _parse(text: str, expression: str) -> ast.expr:
    """One expression of numbers, names, operators and plain function calls: no attributes,
    subscripts, strings, comparisons or keyword arguments reach the evaluator."""
    try:
        tree = ast.parse(text, mode="eval").body  # one expression: no statements, no assignments
    except SyntaxError:
        raise ToolError(f"not an arithmetic expression: {expression!r}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) not in (int, float):
            raise ToolError(f"only numbers are allowed in the calculator, not {node.value!r}")
        if isinstance(node, ast.Call) and (not isinstance(node.func, ast.Name) or node.keywords):
            raise ToolError("only plain calls such as sqrt(2) are allowed in the calculator")
        if not isinstance(node, _NODES):
            raise ToolError(f"{type(node).__name__} is not allowed in the calculator")
    return tree


def format_number(value: int | float) -> str:
    """Integers exactly; other numbers to 12 significant digits, without trailing zeros."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    if isinstance(value, int):
        return str(value)
    return f"{value:.12g}"


def calculator(expression: str) -> str:
    return f"{expression.strip()} = {format_number(evaluate(expression))}"


def make_calculator() -> Tool:
    parameters = object_schema({"expression": text_property("for example (17 * 23) / 4", MAX_EXPRESSION_CHARS)})
    return Tool("calculator", DESCRIPTION, parameters, calculator)
