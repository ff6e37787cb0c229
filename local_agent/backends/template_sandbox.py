"""A Jinja2 sandbox that counts: a chat template from a model file renders within a budget.

A chat template is code written by whoever made the model file. jinja2's
ImmutableSandboxedEnvironment refuses Python's internals (`''.__class__.__mro__`) but not work:
two nested `range(100000)` loops, a string doubled forty times or a macro that calls itself
twice run until memory or patience ends. Here every loop item, call, filter and attribute read
is a step of a budget; every value the template reads, builds or passes on, and the text it
writes, has a size cap; the operations that multiply sizes (`*`, `**`, `%`, `replace`, `join`,
`indent`, ...) are checked before they run; and a deadline catches work between two steps.
Going past any of them raises `TemplateBudgetError`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, cast

from jinja2 import nodes
from jinja2.compiler import CodeGenerator
from jinja2.environment import Environment, Template
from jinja2.exceptions import SecurityError
from jinja2.nodes import EvalContext
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

MAX_STEPS = 250_000  # loop items, calls, filters and reads, plus one per KiB of data they touch
MAX_SECONDS = 2.0  # wall clock, for work between two steps (a comparison of two long strings)
MIN_CHARS = 1 << 20  # the size cap: this many characters (or items), or more for a long input
CHARS_PER_INPUT = 4  # ... four times the size of the values the template is given
MAX_INT_BITS = 4096  # an integer the template computes
MAX_INDENT = 16  # tojson's indent
# Gone from the sandbox: text generators and regular-expression filters no chat template needs,
# whose work (quadratic on some inputs) happens inside one call, where no step is counted.
REMOVED_FILTERS = ("striptags", "urlize", "wordwrap")
REMOVED_GLOBALS = ("lipsum",)
REFUSED_METHODS = frozenset({"translate", "maketrans", "encode"})


class TemplateBudgetError(SecurityError):
    """The template went past its budget of steps, time or size."""


@dataclass
class Budget:
    """What one rendering may still spend."""

    limit: int  # the cap on any value's size and on the text written
    steps: int = MAX_STEPS
    deadline: float = field(default_factory=lambda: time.monotonic() + MAX_SECONDS)
    written: int = 0

    def spend(self, steps: int = 1) -> None:
        self.steps -= steps
        if self.steps < 0:
            raise TemplateBudgetError(f"the template took more than {MAX_STEPS:,} steps")
        if time.monotonic() > self.deadline:
            raise TemplateBudgetError(f"the template ran for more than {MAX_SECONDS:g} s")

    def check(self, value: Any) -> Any:
        """`value`, once its size is known to be within the cap. Measuring it costs a step per
        string, number or container met, and one per KiB of text."""
        if isinstance(value, str):  # the usual case, without the walk
            chars, met = len(value), 1
            if chars > self.limit:
                raise TemplateBudgetError(f"the template made a value of more than {self.limit:,} characters")
        else:
            chars, met = measure(value, self.limit, self.steps)
        self.spend(met + chars // 1024)
        return value


_BUDGET: ContextVar[Budget | None] = ContextVar("template_budget", default=None)


def budget() -> Budget:
    active = _BUDGET.get()
    if active is None:  # outside `spending`: jinja2 evaluating a constant while compiling
        raise TemplateBudgetError("the template ran outside its budget")
    return active


@contextmanager
def spending(limit: int) -> Iterator[Budget]:
    """Run the block (a compilation or a rendering) with a fresh budget whose size cap is `limit`."""
    token = _BUDGET.set(Budget(limit))
    try:
        yield budget()
    finally:
        _BUDGET.reset(token)


def size_limit(values: Any) -> int:
    """The size cap for a rendering that is given `values`."""
    return max(MIN_CHARS, CHARS_PER_INPUT * measure(values, 1 << 62, 1 << 62)[0])


def measure(value: Any, limit: int, steps: int) -> tuple[int, int]:
    """(size, parts met): the characters of the strings and the items of the containers in
    `value`, counted through shared parts as often as they are reached, as `str()` or `==`
    would go through them. Raises TemplateBudgetError once the size passes `limit` or the parts
    met pass `steps`."""
    total, met, pending = 0, 0, [value]
    while pending:
        item = pending.pop()
        met += 1
        if isinstance(item, (str, bytes, range)):
            total += len(item)
        elif isinstance(item, dict):
            total += len(item)
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += len(item)
            pending.extend(item)
        elif isinstance(item, int) and item.bit_length() > MAX_INT_BITS:
            raise TemplateBudgetError(f"the template made an integer of more than {MAX_INT_BITS} bits")
        if total > limit:
            raise TemplateBudgetError(f"the template made a value of more than {limit:,} characters")
        if met > steps:
            raise TemplateBudgetError(f"the template took more than {MAX_STEPS:,} steps")
    return total, met


# -- what the operations that multiply sizes will make, checked before they run -------------
_DIGITS = re.compile(r"\d+")


def _check_ints(limit: int, values: Any) -> None:
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > limit:
            raise TemplateBudgetError(f"the template passed a number over {limit:,}")


def _check_format(text: Any, limit: int) -> None:
    """A %- or {}-format string whose width or precision is over the cap."""
    if isinstance(text, str) and any(len(run) > 7 or int(run) > limit for run in _DIGITS.findall(text)):
        raise TemplateBudgetError("the template formats with a width over the size cap")


def _replaced(text: Any, old: Any = "", new: Any = "", count: Any = None, *_: Any) -> int:
    if not isinstance(text, str) or not isinstance(new, str):
        return 0
    times = len(text) + 1 if not old else len(text) // max(len(str(old)), 1)
    if isinstance(count, int) and count >= 0:
        times = min(times, count)
    return len(text) + times * len(new)


def _joined(items: Any, separator: Any = "", *_: Any) -> int:
    count = len(items) if hasattr(items, "__len__") else 0
    return measure(items, 1 << 62, 1 << 62)[0] + count * len(str(separator))


def _indented(text: Any, width: Any = 4, *_: Any) -> int:
    lines = text.count("\n") + 1 if isinstance(text, str) else 1
    prefix = width if isinstance(width, int) else len(str(width))
    return len(str(text)) + lines * prefix


def _padded(text: Any, width: Any = 0, *_: Any) -> int:
    return max(len(str(text)), width if isinstance(width, int) else 0)


def _tabs_expanded(text: Any, tabsize: Any = 8, *_: Any) -> int:
    return len(text) + text.count("\t") * (tabsize if isinstance(tabsize, int) else 8)


# Filters and str methods whose result can be much bigger than what they are given:
# (value, *arguments) -> the size of the result at most.
GROWTH: dict[str, Callable[..., int]] = {
    "replace": _replaced, "join": _joined, "indent": _indented, "center": _padded,
    "ljust": _padded, "rjust": _padded, "zfill": _padded, "expandtabs": _tabs_expanded,
}


def _check_growth(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], limit: int) -> None:
    _check_ints(limit, [*args, *kwargs.values()])
    if name in GROWTH and GROWTH[name](*args, *kwargs.values()) > limit:
        raise TemplateBudgetError(f"the template's {name} would make more than {limit:,} characters")
    if name == "format" and args:
        _check_format(args[0], limit)
    if name == "sum" and not isinstance(kwargs.get("start", args[2] if len(args) > 2 else 0), (int, float)):
        raise TemplateBudgetError("the template sums sequences")
    if name == "tojson" and any(_longer_than(value, MAX_INDENT) for value in [*args[1:], *kwargs.values()]):
        raise TemplateBudgetError(f"the template's tojson indents or separates by more than {MAX_INDENT}")


def _longer_than(value: Any, length: int) -> bool:
    """An indent or separator (a number of spaces, a string, or a pair of strings) past `length`."""
    if isinstance(value, (tuple, list)):
        return any(_longer_than(item, length) for item in value)
    if isinstance(value, str):
        return len(value) > length
    return isinstance(value, int) and not isinstance(value, bool) and value > length


def _counted(items: Any) -> Iterator[Any]:
    """`items`, one step each."""
    for item in items:
        budget().spend()
        yield item


def _guarded_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """A filter that spends steps, checks what it is given and what it makes."""

    @wraps(function)  # keeps jinja2's pass_environment / pass_context marks
    def guarded(*args: Any, **kwargs: Any) -> Any:
        spent = budget()
        if name == "join":
            args = _listed(args)
        plain = [a for a in args if not _is_jinja_internal(a)]
        spent.check(plain)
        _check_growth(name, tuple(plain), kwargs, spent.limit)
        result = function(*args, **kwargs)
        if isinstance(result, Iterator):
            return _counted(result)
        return spent.check(result)

    return guarded


def _listed(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """`args` with the filter's value (the first after jinja2's own) as a list when it is an
    iterator, so that its size is known before the filter runs."""
    index = next((i for i, value in enumerate(args) if not _is_jinja_internal(value)), len(args))
    if index < len(args) and isinstance(args[index], Iterator):
        return (*args[:index], list(_counted(args[index])), *args[index + 1:])
    return args


def _is_jinja_internal(value: Any) -> bool:
    return isinstance(value, (Environment, Context, EvalContext))


class _Counting(NodeTransformer):
    """Routes what the sandbox would not see through it: every loop's items, every `~`
    concatenation and every list, tuple and dict literal."""

    def visit_For(self, node: nodes.For) -> nodes.Node:  # noqa: N802
        self.generic_visit(node)
        node.iter = _through("counted_items", node.iter)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:  # noqa: N802
        self.generic_visit(node)
        return _through("joined_text", *node.nodes)

    def visit_List(self, node: nodes.List) -> nodes.Node:  # noqa: N802
        return _through("checked_value", self.generic_visit(node))

    def visit_Dict(self, node: nodes.Dict) -> nodes.Node:  # noqa: N802
        return _through("checked_value", self.generic_visit(node))

    def visit_Tuple(self, node: nodes.Tuple) -> nodes.Node:  # noqa: N802
        self.generic_visit(node)
        return node if node.ctx != "load" else _through("checked_value", node)


def _through(method: str, *args: nodes.Node) -> nodes.Expr:
    call = nodes.Call(nodes.EnvironmentAttribute(method), list(args), [], None, None)
    return cast(nodes.Expr, call.set_lineno(args[0].lineno if args and args[0].lineno else 1))


class _CountingCodeGenerator(CodeGenerator):
    def visit_Template(self, node: nodes.Template, frame: Any = None) -> None:  # noqa: N802
        _Counting().visit(node)
        super().visit_Template(node, frame)


class CountingSandbox(ImmutableSandboxedEnvironment):
    """ImmutableSandboxedEnvironment within the active budget (`spending`)."""

    code_generator_class = _CountingCodeGenerator
    intercepted_binops = frozenset({"*", "**", "%", "+"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        for name in REMOVED_FILTERS:
            self.filters.pop(name, None)
        for name in REMOVED_GLOBALS:
            self.globals.pop(name, None)
        self.finalize = self._written

    def guard_filters(self) -> None:
        """Wrap every filter and test; call once the environment's own filters are added."""
        filters = cast(dict[str, Callable[..., Any]], self.filters)
        tests = cast(dict[str, Callable[..., Any]], self.tests)
        self.filters = {name: _guarded_filter(name, f) for name, f in filters.items()}
        self.tests = {name: _guarded_filter(name, f) for name, f in tests.items()}

    # -- what the code generator routes here (_Counting) --------------------------------------
    def counted_items(self, items: Any) -> Iterator[Any]:
        return _counted(items)

    def joined_text(self, *parts: Any) -> str:
        return budget().check("".join(map(str, parts)))

    def checked_value(self, value: Any) -> Any:
        return value  # `call` has checked it on the way in

    # -- the sandbox's own hooks --------------------------------------------------------------
    def _written(self, value: Any) -> Any:
        return budget().check(value)

    def getattr(self, obj: Any, attribute: str) -> Any:
        return budget().check(super().getattr(obj, attribute))

    def getitem(self, obj: Any, argument: Any) -> Any:
        return budget().check(super().getitem(obj, argument))

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        spent = budget()
        spent.check([args, kwargs])
        _check_ints(spent.limit, [*args, *kwargs.values()])
        owner = getattr(__obj, "__self__", None)
        if isinstance(owner, str):
            args = _check_method(getattr(__obj, "__name__", ""), owner, args, kwargs, spent.limit)
        result = super().call(__context, __obj, *args, **kwargs)
        return result if isinstance(result, Iterator) else spent.check(result)

    def wrap_str_format(self, value: Any) -> Any:
        wrapped = super().wrap_str_format(value)
        if wrapped is not None:
            _check_format(value.__self__, budget().limit)
        return wrapped

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        spent = budget()
        spent.spend()
        if operator == "*":
            _check_product(left, right, spent.limit)
        elif operator == "**":
            _check_power(left, right)
        elif operator == "%":
            _check_format(left, spent.limit)
            _check_ints(spent.limit, right if isinstance(right, tuple) else (right,))
        return spent.check(super().call_binop(context, operator, left, right))


def _check_method(name: str, owner: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                  limit: int) -> tuple[Any, ...]:
    """Checks a call of a str method before it runs; returns its arguments (an iterator given
    to `join` as a list, to know its size)."""
    if name in REFUSED_METHODS:
        raise TemplateBudgetError(f"str.{name} is not allowed in a chat template")
    if name == "join":
        args = _listed(args)
        if args and _joined(args[0], owner) > limit:
            raise TemplateBudgetError(f"the template's join would make more than {limit:,} characters")
    elif name != "format":
        _check_growth(name, (owner, *args), kwargs, limit)
    return args


def _check_product(left: Any, right: Any, limit: int) -> None:
    if isinstance(left, int) and isinstance(right, int):
        if left.bit_length() + right.bit_length() > MAX_INT_BITS:
            raise TemplateBudgetError(f"the template made an integer of more than {MAX_INT_BITS} bits")
        return
    count, sequence = (right, left) if isinstance(right, int) else (left, right)
    if isinstance(count, int) and hasattr(sequence, "__len__") and len(sequence) * max(count, 0) > limit:
        raise TemplateBudgetError(f"the template made a value of more than {limit:,} characters")


def _check_power(base: Any, exponent: Any) -> None:
    if isinstance(base, int) and isinstance(exponent, int) and abs(base) > 1 \
            and base.bit_length() * abs(exponent) > MAX_INT_BITS:
        raise TemplateBudgetError(f"the template made an integer of more than {MAX_INT_BITS} bits")


def compile_template(environment: CountingSandbox, source: str) -> Template:
    """`source` compiled in `environment` (jinja2 may run filters on constants as it compiles)."""
    with spending(MIN_CHARS):
        return environment.from_string(source)


def render(template: Template, values: dict[str, Any]) -> str:
    """The text `template` writes when given `values`, within a fresh budget."""
    limit = size_limit(values)
    parts: list[str] = []
    with spending(limit) as spent:
        for part in template.generate(**values):
            spent.written += len(part)
            if spent.written > limit:
                raise TemplateBudgetError(f"the template wrote more than {limit:,} characters")
            parts.append(part)
    return "".join(parts)
