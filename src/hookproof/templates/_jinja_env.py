"""jinja2's immutable sandbox, metered: every render spends from a TemplateBudget.

The sandbox's hooks do the metering: intercepted binary operators (``*``, ``**``, ``+``,
``%``), ``call`` (macro and recursive-loop depth; builtin methods), wrapped filters, and a
``range`` whose items count as loop iterations. Two rewrites of the parsed template cover
what has no hook: every ``for`` iterates through a counting filter, and every printed value
(text inside macros and ``set`` blocks too) through a writing filter.
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

from hookproof.templates._budget import Meter
from hookproof.templates._data import machinery_kind
from hookproof.templates._jinja_guard import (
    check_binop,
    check_filter,
    check_method,
    is_join,
    listed,
)

__all__ = ["environment", "metered", "prepare"]

_METER: ContextVar[Meter] = ContextVar("hookproof_template_meter")
_LOOP, _WRITE, _SIZE = "hookproof_loop", "hookproof_write", "hookproof_size"
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
    kind = None if isinstance(value, Undefined) else machinery_kind(value)
    if kind is not None:
        raise meter.refuse_print(kind)
    return meter.write(str(meter.check_int(value)))


@pass_context
def _size_filter(context: Context, value: Any) -> Any:
    return _METER.get().check_size(value, "the concatenated text")


def _guarded(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    passes_context = getattr(function, "jinja_pass_arg", None) is not None

    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        meter = _METER.get()
        first = 1 if passes_context else 0
        args = listed(args, first) if name == "join" else args
        check_filter(meter, name, args[first:], kwargs)
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
        self.filters = {name: _guarded(name, f) for name, f in self.filters.items()}
        self.filters.update({_LOOP: _loop_filter, _WRITE: _write_filter, _SIZE: _size_filter})

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        meter = _METER.get()
        check_binop(meter, operator, left, right)
        result = super().call_binop(context, operator, left, right)
        return meter.check_int(meter.check_size(result, f"the result of '{operator}'"))

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        meter = _METER.get()
        if not isinstance(__obj, Macro | LoopContext):
            args = listed(args, 0) if is_join(__obj) else args
            check_method(meter, __obj, args, kwargs)
            result = super().call(__context, __obj, *args, **kwargs)
            return meter.check_int(meter.check_size(result, "a call's result"))
        if isinstance(__obj, LoopContext) and args:
            args = (_counted(meter, args[0]), *args[1:])
        meter.enter("a macro call" if isinstance(__obj, Macro) else "a recursive loop")
        try:
            return meter.check_size(super().call(__context, __obj, *args, **kwargs), "a macro")
        finally:
            meter.leave()


@functools.cache
def environment() -> _MeteredEnvironment:
    return _MeteredEnvironment()


def _wrap(node: nodes.Node, name: str) -> nodes.Filter:
    return nodes.Filter(node, name, [], [], None, None, lineno=node.lineno)


def prepare(tree: nodes.Template) -> nodes.Template:
    """Route loops, output and concatenation through the meter (the tree is changed)."""
    for loop in tree.find_all(nodes.For):
        loop.iter = _wrap(loop.iter, _LOOP)
    for output in tree.find_all(nodes.Output):
        output.nodes = [_wrap(child, _WRITE) for child in output.nodes]
    for concat in list(tree.find_all(nodes.Concat)):
        concat.nodes = [_wrap(nodes.Concat(concat.nodes, lineno=concat.lineno), _SIZE)]
    return tree
