"""The checkpoint serializer for run-local values: JSON text, custom types registered by name.

Eino saves run-local values with gob, which refuses a type nobody registered; this does the
same with JSON so a checkpoint is plain text. Built in: None, bool, int, float, str, list,
tuple, dict, and hookproof messages and tool schemas. Anything else is saved only after
``register_name("pkg.Type", Type)``; dataclasses, pydantic models and plain classes with a
``__dict__`` are supported. The registry is process-wide (like gob's), so register at import
time; registering the same name for the same class again is harmless.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import threading
from typing import Any, TypeVar

from pydantic import BaseModel

from hookproof.errors import InvalidInputError, SerializationError, UsageError
from hookproof.messages import (
    AssistantMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from hookproof.tools import ToolSchema

__all__ = ["SerializationError", "decode", "encode", "register_name"]

T = TypeVar("T", bound=type)


_LOCK = threading.Lock()
_BY_NAME: dict[str, type] = {}
_BY_TYPE: dict[type, str] = {}
_PRIMITIVES = frozenset({str, int, float, bool, type(None)})
_NOT_REGISTRABLE = frozenset({"builtins", "datetime", "decimal", "fractions", "uuid", "pathlib"})
_HINTS = {
    "set": "Store sorted(value) (a list) instead.",
    "frozenset": "Store sorted(value) (a list) instead.",
    "bytes": "Store base64.b64encode(value).decode() (a str) instead.",
    "datetime": "Store value.isoformat() (a str) instead.",
    "date": "Store value.isoformat() (a str) instead.",
    "Decimal": "Store str(value) instead.",
    "UUID": "Store str(value) instead.",
}


def register_name(name: Any, cls: Any = None) -> Any:
    """Let values of ``cls`` be saved in checkpoints under ``name``; returns ``cls``.

    Also ``register_name(cls, name)``, and as a class decorator: ``@register_name("n")``.
    """
    if isinstance(name, type) and isinstance(cls, str):
        name, cls = cls, name
    if cls is None and isinstance(name, str):
        return lambda decorated: register_name(name, decorated)
    return _register(name, cls)


def _register(name: str, cls: T) -> T:
    if not isinstance(name, str) or not name:
        raise UsageError(f"hookproof: register_name() needs a non-empty str name, got {name!r}.")
    if not isinstance(cls, type):
        raise UsageError(f"hookproof: register_name({name!r}, ...) takes a class, got {cls!r}.")
    if not _registrable(cls):
        raise UsageError(
            f"hookproof: register_name({name!r}, {cls.__qualname__}) cannot work: hookproof "
            f"saves registered objects field by field, and {cls.__qualname__} has no fields "
            f"to save. {_conversion_hint(cls)}"
        )
    with _LOCK:
        known = _BY_NAME.get(name)
        if known is not None and known is not cls:
            raise InvalidInputError(
                f"hookproof: the name {name!r} is already registered for "
                f"{known.__module__}.{known.__qualname__}; a checkpoint could not tell the two "
                "apart. Use a name unique to your package, e.g. 'mypkg.ToolStats'."
            )
        _BY_NAME[name] = cls
        _BY_TYPE[cls] = name
    return cls


def encode(value: Any, *, what: str) -> str:
    """The value as canonical JSON text; SerializationError names what cannot be saved.

    The text is decoded once here, so a value that could be saved but not restored fails
    now, where it is set, and not later on resume.
    """
    text = json.dumps(_encode(value, what), sort_keys=True, ensure_ascii=False)
    try:
        decode(text)
    except (TypeError, ValueError, KeyError) as error:
        raise SerializationError(
            f"hookproof: {what} can be saved but not restored ({error}). Give its class a "
            "constructor that takes its fields, or store plain values."
        ) from error
    return text


def decode(text: str) -> Any:
    return _decode(json.loads(text))


def _encode(value: Any, where: str) -> Any:
    cls = type(value)  # exact types: a subclass of a built-in would come back as the base
    name = _BY_TYPE.get(cls)
    if name is not None:
        return _encode_registered(value, name, where)
    if cls in _PRIMITIVES:
        return value
    if cls is list:
        return [_encode(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if cls is tuple:
        return {"__tuple__": [_encode(item, f"{where}[{i}]") for i, item in enumerate(value)]}
    if cls is dict:
        pairs = [[_encode(k, where), _encode(v, f"{where}[{k!r}]")] for k, v in value.items()]
        return {"__dict__": pairs}
    raise _unregistered(value, where)


def _encode_registered(value: Any, name: str, where: str) -> Any:
    if isinstance(value, BaseModel):
        return {"__type__": name, "model": value.model_dump(mode="json")}
    if isinstance(value, enum.Enum):
        return {"__type__": name, "member": value.name}
    return {"__type__": name, "fields": _encode(_fields_of(value), where)}


def _fields_of(value: Any) -> dict[str, Any]:
    if dataclasses.is_dataclass(value):
        return {item.name: getattr(value, item.name) for item in dataclasses.fields(value)}
    if hasattr(value, "__dict__"):
        return dict(vars(value))
    raise SerializationError(
        f"hookproof: {type(value).__qualname__} is registered but has no fields hookproof can "
        "save (not a dataclass, a pydantic model or an object with __dict__)."
    )


def _unregistered(value: Any, where: str) -> SerializationError:
    cls = type(value)
    what = f"{where} holds a {cls.__module__}.{cls.__qualname__}, which cannot be saved in a "
    why = "checkpoint, so an interrupted run could not restore it on resume."
    if not _registrable(cls):
        return SerializationError(f"hookproof: {what}{why} {_conversion_hint(cls)}")
    return SerializationError(
        f"hookproof: {what}{why} Its type is not registered. Register it once at import time: "
        f"hookproof.eino.register_name('{cls.__module__}.{cls.__qualname__}', "
        f"{cls.__qualname__}). Built-in types (str, int, float, bool, None, list, tuple, "
        "dict) need no registration. A value that need not survive a resume can travel in "
        "the ctx instead: ctx = ctx.with_value(key, value)."
    )


_BUILTIN_BASES = (str, int, float, bool, list, tuple, dict, set, frozenset, bytes)


def _registrable(cls: type) -> bool:
    """Saved field by field: not built-ins or their subclasses (except enums)."""
    if issubclass(cls, enum.Enum):
        return True
    return cls.__module__ not in _NOT_REGISTRABLE and not issubclass(cls, _BUILTIN_BASES)


def _conversion_hint(cls: type) -> str:
    hint = next((_HINTS[k.__name__] for k in cls.__mro__ if k.__name__ in _HINTS), None)
    if hint is not None:
        return hint
    base = next((b for b in cls.__mro__ if b in _BUILTIN_BASES), None)
    if base is not None and base is not cls:
        return f"Store {base.__name__}(value) (a plain {base.__name__}) or a dataclass instead."
    return "Convert it to str, int, float, bool, None, list, tuple and dict values."


def _decode(data: Any) -> Any:
    if isinstance(data, list):
        return [_decode(item) for item in data]
    if not isinstance(data, dict):
        return data
    if "__tuple__" in data:
        return tuple(_decode(item) for item in data["__tuple__"])
    if "__dict__" in data:
        return {_decode(key): _decode(value) for key, value in data["__dict__"]}
    if "model" in data:
        return _registered(data["__type__"]).model_validate(data["model"])
    if "member" in data:
        return _registered(data["__type__"])[data["member"]]
    return _rebuild(_registered(data["__type__"]), _decode(data["fields"]))


def _registered(name: str) -> Any:
    cls = _BY_NAME.get(name)
    if cls is None:
        raise SerializationError(
            f"hookproof: a checkpoint holds a value of type {name!r}, which is not registered "
            "in this process. Import the module that calls register_name() before resuming."
        )
    return cls


def _rebuild(cls: type, values: dict[str, Any]) -> Any:
    if dataclasses.is_dataclass(cls):
        init = {f.name for f in dataclasses.fields(cls) if f.init}
        instance = cls(**{key: value for key, value in values.items() if key in init})
        for key, value in values.items():
            if key not in init:
                object.__setattr__(instance, key, value)
        return instance
    plain: Any = object.__new__(cls)
    plain.__dict__.update(values)
    return plain


for _builtin in (SystemMessage, UserMessage, AssistantMessage, ToolMessage, ToolSchema):
    register_name(f"hookproof.{_builtin.__name__}", _builtin)
