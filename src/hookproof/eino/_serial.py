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
import json
import threading
from typing import Any, TypeVar

from pydantic import BaseModel

from hookproof.eino._core import EinoError
from hookproof.errors import InvalidInputError, UsageError
from hookproof.messages import (
    AssistantMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from hookproof.tools import ToolSchema

__all__ = ["SerializationError", "decode", "encode", "register_name"]

T = TypeVar("T", bound=type)


class SerializationError(EinoError, InvalidInputError):
    """A value cannot be saved in a checkpoint."""


_LOCK = threading.Lock()
_BY_NAME: dict[str, type] = {}
_BY_TYPE: dict[type, str] = {}
_PRIMITIVES = (str, int, float, bool, type(None))


def register_name(name: str, cls: T) -> T:
    """Let values of ``cls`` be saved in checkpoints under ``name``; returns ``cls``."""
    if not isinstance(name, str) or not name:
        raise UsageError(f"hookproof: register_name() needs a non-empty str name, got {name!r}.")
    if not isinstance(cls, type):
        raise UsageError(f"hookproof: register_name({name!r}, ...) takes a class, got {cls!r}.")
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


for _builtin in (SystemMessage, UserMessage, AssistantMessage, ToolMessage, ToolSchema):
    register_name(f"hookproof.{_builtin.__name__}", _builtin)


def encode(value: Any, *, what: str) -> str:
    """The value as canonical JSON text; SerializationError names what cannot be saved."""
    return json.dumps(_encode(value, what), sort_keys=True, ensure_ascii=False)


def decode(text: str) -> Any:
    return _decode(json.loads(text))


def _encode(value: Any, where: str) -> Any:
    if isinstance(value, _PRIMITIVES):
        return value
    if isinstance(value, list):
        return [_encode(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(item, f"{where}[{i}]") for i, item in enumerate(value)]}
    if isinstance(value, dict):
        pairs = [[_encode(k, where), _encode(v, f"{where}[{k!r}]")] for k, v in value.items()]
        return {"__dict__": pairs}
    name = _BY_TYPE.get(type(value))
    if name is None:
        raise _unregistered(value, where)
    if isinstance(value, BaseModel):
        return {"__type__": name, "model": value.model_dump(mode="json")}
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
    return SerializationError(
        f"hookproof: {where} holds a {cls.__module__}.{cls.__qualname__}, which cannot be saved "
        "in a checkpoint: its type is not registered, so an interrupted run could not restore "
        f"it on resume. Register it once at import time: "
        f"hookproof.eino.register_name('{cls.__module__}.{cls.__qualname__}', "
        f"{cls.__qualname__}). Built-in types (str, int, float, bool, None, list, tuple, "
        "dict) need no registration."
    )


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
        return cls(**values)
    instance: Any = object.__new__(cls)
    instance.__dict__.update(values)
    return instance
