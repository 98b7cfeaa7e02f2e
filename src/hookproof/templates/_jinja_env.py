"""jinja2's immutable sandbox, metered: every render spends from a TemplateBudget.

The sandbox's hooks do the metering: intercepted binary operators (``*``, ``**``, ``+``,
``%``), ``call`` (macro and recursive-loop depth; builtin methods), ``wrap_str_format`` (a
metered ``str.format``), wrapped filters, and a ``range`` whose items count as loop
iterations. A rewrite of the parsed template covers what has no hook: every ``for`` iterates
through a counting filter, every printed value (text inside macros and ``set`` blocks too)
goes through a writing filter, and concatenations, literals and ``in`` operands through
filters that weigh them. Wherever a value becomes text it must print as data (_printable).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from jinja2 import StrictUndefined, nodes, pass_context
from jinja2.runtime import Context, LoopContext, Macro, Undefined
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

from hookproof.templates._budget import Meter
from hookproof.templates._jinja_guard import (
    check_binop,
    check_filter,
    check_method,
    is_join,
    listed,
)
from hookproof.templates._jinja_text import (
    charge_filter,
    check_filter_text,
    check_percent,
    metered_sum,
    str_format,
)

__all__ = ["environment", "metered", "prepare"]

_METER: ContextVar[Meter] = ContextVar("hookproof_template_meter")
_LOOP, _WRITE, _SIZE = "hookproof_loop", "hookproof_write", "hookproof_size"
_SEARCHED, _TEXT = "hookproof_searched", "hookproof_text"
_SEARCHABLE = (str, bytes, list, tuple)
# Methods that read the whole text and build nothing (what others build is charged anyway).
_SCANS = frozenset({"count", "find", "rfind", "index", "rindex", "isdigit", "isalpha", "isalnum"})
# Nondeterministic (random) helpers: a prompt must render the same way every time.
_REMOVED_GLOBALS = ("lipsum",)
_REMOVED_FILTERS = ("random",)


@contextmanager
def metered(meter: Meter) -> Iterator[None]:
    token = _METER.set(meter)
    try:
        yield
    finally:
        _METER.reset(token)


class _MeteredRange:
    """``range()`` for templates: its items count toward the loop budget as produced."""

    def __init__(self, items: range) -> None:
        self._items = items

    def __iter__(self) -> Iterator[int]:
        return _METER.get().counted(self._items)

    def __reversed__(self) -> Iterator[int]:
        return _METER.get().counted(reversed(self._items))

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index: Any) -> Any:
        item = self._items[index]
        return _MeteredRange(item) if isinstance(item, range) else item

    def __contains__(self, value: object) -> bool:
        return value in self._items

    def __repr__(self) -> str:
        return repr(self._items)


def _range(*args: int) -> _MeteredRange:
    items = range(*args)
    meter = _METER.get()
    length = -(-(items.stop - items.start) // items.step) if items else 0
    if length > meter.budget.max_loop_iterations:
        raise meter.refuse("max_loop_iterations", f"range() of {length:,} items")
    return _MeteredRange(items)


def _counted(meter: Meter, iterable: Any) -> Any:
    return iterable if isinstance(iterable, _MeteredRange) else meter.counted(iterable)


@pass_context
def _loop_filter(context: Context, iterable: Any) -> Any:
    return _counted(_METER.get(), iterable)


@pass_context
def _write_filter(context: Context, value: Any) -> str:
    meter = _METER.get()
    if type(value) is str:
        return meter.write(value)
    if not isinstance(value, Undefined):
        meter.check_printable(value)
    return meter.write(str(meter.weigh(meter.check_int(value), "a printed value")))


@pass_context
def _size_filter(context: Context, value: Any) -> Any:
    return _METER.get().weigh(value, "a built value")


@pass_context
def _text_filter(context: Context, value: Any) -> Any:
    """An operand of ``~``, which becomes text."""
    return _METER.get().check_printable(value)


@pass_context
def _searched_filter(context: Context, value: Any) -> Any:
    if isinstance(value, _SEARCHABLE):
        _METER.get().charge_built(len(value))
    return value


def _charge_scan(meter: Meter, method: Any) -> None:
    owner = getattr(method, "__self__", None)
    if isinstance(owner, _SEARCHABLE) and getattr(method, "__name__", "") in _SCANS:
        meter.charge_built(len(owner))


def _guarded(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    first = 0 if getattr(function, "jinja_pass_arg", None) is None else 1

    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        meter = _METER.get()
        args = listed(args, first) if name == "join" else args
        check_filter_text(meter, name, [*args[first:], *kwargs.values()])
        check_filter(meter, name, args[first:], kwargs)
        charge_filter(meter, name, args[first:], kwargs)
        result = function(*args, **kwargs)
        return meter.check_int(meter.check_size(result, f"the result of |{name}"))

    return guarded


class _MeteredEnvironment(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def __init__(self) -> None:
        # Immutable: a template must not change the caller's lists and dicts (items.pop()).
        super().__init__(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
        self.globals["range"] = _range
        for name in _REMOVED_GLOBALS:
            self.globals.pop(name, None)
        for name in _REMOVED_FILTERS:
            self.filters.pop(name, None)
        self.filters["sum"] = metered_sum(_METER.get)
        self.filters = {name: _guarded(name, f) for name, f in self.filters.items()}
        self.filters.update(
            {
                _LOOP: _loop_filter,
                _WRITE: _write_filter,
                _SIZE: _size_filter,
                _SEARCHED: _searched_filter,
                _TEXT: _text_filter,
            }
        )

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        meter = _METER.get()
        check_binop(meter, operator, left, right)
        if operator == "%":
            check_percent(meter, left, right)
        result = super().call_binop(context, operator, left, right)
        return meter.check_int(meter.weigh(result, f"the result of '{operator}'"))

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        meter = _METER.get()
        if isinstance(__obj, Macro | LoopContext):
            return __self._call_nested(meter, __context, __obj, *args, **kwargs)
        args = listed(args, 0) if is_join(__obj) else args
        check_method(meter, __obj, args, kwargs)
        _charge_scan(meter, __obj)
        result = super().call(__context, __obj, *args, **kwargs)
        return meter.check_int(meter.check_size(result, "a call's result"))

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        return str_format(self, value, _METER.get)

    def _call_nested(
        self, meter: Meter, context: Context, callee: Macro | LoopContext, *args: Any, **kw: Any
    ) -> Any:
        """A macro call or a recursive loop's ``loop(children)``: one level deeper."""
        if isinstance(callee, LoopContext) and args:
            args = (_counted(meter, args[0]), *args[1:])
        meter.enter("a macro call" if isinstance(callee, Macro) else "a recursive loop")
        try:
            return meter.check_size(super().call(context, callee, *args, **kw), "a macro")
        finally:
            meter.leave()


@functools.cache
def environment() -> _MeteredEnvironment:
    return _MeteredEnvironment()


def _wrap(node: nodes.Node, name: str) -> nodes.Filter:
    return nodes.Filter(node, name, [], [], None, None, lineno=node.lineno)


class _Metering(NodeTransformer):
    """Routes loops, output, concatenation, literals and searches through the meter."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = _wrap(node.iter, _LOOP)
        return node

    def visit_Output(self, node: nodes.Output) -> nodes.Node:
        self.generic_visit(node)
        node.nodes = [_wrap(child, _WRITE) for child in node.nodes]
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        node.nodes = [_wrap(_wrap(child, _TEXT), _SIZE) for child in node.nodes]
        return _wrap(node, _SIZE)

    def visit_Compare(self, node: nodes.Compare) -> nodes.Node:
        self.generic_visit(node)
        for operand in node.ops:
            if operand.op in ("in", "notin"):
                operand.expr = _wrap(operand.expr, _SEARCHED)
        return node

    def _literal(self, node: nodes.List | nodes.Tuple | nodes.Dict) -> nodes.Node:
        self.generic_visit(node)
        stored = isinstance(node, nodes.Tuple) and node.ctx != "load"
        return node if stored else _wrap(node, _SIZE)

    visit_List = visit_Tuple = visit_Dict = _literal


def prepare(tree: nodes.Template) -> nodes.Template:
    """The tree with loops, output, concatenation and literals metered (changed in place)."""
    _Metering().visit(tree)
    return tree
