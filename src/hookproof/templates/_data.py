"""What the Go subset may read and print: data, never Python's machinery.

Field access reaches mapping keys and the fields of plain data objects (dataclasses, pydantic
models, named tuples, and the properties their classes define). Frames, code, functions,
methods, modules, classes, generators and coroutines are refused, and so is every name that
starts with an underscore: ``{{.g.gi_frame.f_globals}}`` on a generator would otherwise read
any module's globals.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
from collections.abc import Collection, Mapping
from functools import cached_property
from typing import Any

from pydantic import BaseModel

from hookproof.errors import TemplateSecurityError, TemplateVariableError

__all__ = ["machinery_kind", "read_field"]

_MACHINERY: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (types.FrameType, "a frame"),
    (types.CodeType, "a code object"),
    (types.TracebackType, "a traceback"),
    (types.ModuleType, "a module"),
    (type, "a class"),
    ((types.GeneratorType, types.AsyncGeneratorType), "a generator"),
    (types.CoroutineType, "a coroutine"),
    ((types.FunctionType, types.BuiltinFunctionType), "a function"),
    ((types.MethodType, types.MethodWrapperType), "a method"),
)
# Values without fields: asking one for a field is a plain variable error, as in Go.
_PLAIN = frozenset({str, int, float, bool, type(None)})
_SCALARS = (str, bytes, int, float, complex, list, tuple, set, frozenset)


def machinery_kind(value: Any) -> str | None:
    """``"a generator"``, ``"a function"``, ... for Python machinery; None for data."""
    if type(value) in _PLAIN:
        return None
    for kinds, label in _MACHINERY:
        if isinstance(value, kinds):
            return label
    return "a callable" if callable(value) and not isinstance(value, BaseModel) else None


def _data_fields(value: Any) -> Collection[str] | None:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name for field in dataclasses.fields(value)}
    if isinstance(value, BaseModel):
        return {*type(value).model_fields, *(value.model_extra or {})}
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return tuple(getattr(type(value), "_fields"))  # noqa: B009 (typed as a plain tuple)
    return None


def _is_property(value: Any, key: str) -> bool:
    found = inspect.getattr_static(type(value), key, None)
    return isinstance(found, property | cached_property)


def _refuse(expression: str, key: str, why: str, name: str) -> TemplateSecurityError:
    return TemplateSecurityError(
        name,
        f"executing at <{expression}>: field {key} is refused: {why}. Templates read only "
        "data (mapping keys and the fields of dataclasses, pydantic models and named tuples); "
        "pass the value itself as a variable instead.",
        variable=key,
    )


def _entry(value: Mapping[Any, Any], key: str, expression: str, name: str) -> Any:
    if key not in value:
        raise TemplateVariableError(
            name, f'executing at <{expression}>: map has no entry for key "{key}"', variable=key
        )
    return value[key]


def read_field(value: Any, key: str, expression: str, name: str) -> Any:
    """``value.key`` as the Go subset allows it; anything else raises a template error."""
    if isinstance(value, Mapping):
        return _entry(value, key, expression, name)
    if key.startswith("_"):
        raise _refuse(expression, key, "names starting with '_' are private", name)
    fields = _data_fields(value)
    if fields is not None and (key in fields or _is_property(value, key)):
        return getattr(value, key)  # once: a property runs a single time per lookup
    if fields is not None or value is None or isinstance(value, _SCALARS):
        raise TemplateVariableError(
            name,
            f"executing at <{expression}>: can't evaluate field {key} in type "
            f"{type(value).__name__}",
            variable=key,
        )
    kind = machinery_kind(value)
    why = f"the value is {kind}" if kind else f"a {type(value).__name__} is not plain data"
    raise _refuse(expression, key, why, name)
