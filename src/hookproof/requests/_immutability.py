"""How requests stay immutable: assignment refused with the fix in the message, and a fast
``override`` that copies every field but the changed ones."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import FrozenInstanceError, fields
from operator import attrgetter
from typing import Any, NoReturn, TypeVar

from hookproof.errors import ImmutableError, UsageError, did_you_mean

__all__ = ["check_override_keys", "frozen_response", "immutable", "replaced"]

RequestT = TypeVar("RequestT")


def _refuse_assignment(self: object, name: str, _value: object) -> NoReturn:
    cls = type(self).__name__
    raise ImmutableError(
        f"hookproof: {cls}.{name} cannot be assigned: requests are shared by every layer, so "
        f"an in-place change would leak into other layers. Use "
        f"`new = request.override({name}=...)` and pass the new request on."
    )


def _refuse_deletion(self: object, name: str) -> NoReturn:
    _refuse_assignment(self, name, None)


def immutable(cls: Any) -> Any:
    cls.__setattr__ = _refuse_assignment
    cls.__delattr__ = _refuse_deletion
    return cls


def _refuse_response_assignment(self: object, name: str, _value: object) -> NoReturn:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def frozen_response(cls: Any) -> Any:
    """A frozen slots dataclass's own __setattr__ names the class it had before slots were
    added, so ``ModelResponse[T](...)`` (which sets ``__orig_class__``) would fail with a
    TypeError; this one refuses every assignment with the usual FrozenInstanceError."""
    cls.__setattr__ = _refuse_response_assignment
    return cls


_FIELDS: dict[type, tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]] = {}


def _fields_of(cls: type) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]:
    """A request class's field names and a getter of all its values, computed once."""
    found = _FIELDS.get(cls)
    if found is None:
        names = tuple(item.name for item in fields(cls))
        found = _FIELDS[cls] = (names, attrgetter(*names))  # every request has several fields
    return found


def replaced(request: RequestT, changes: Mapping[str, Any]) -> RequestT:
    """``dataclasses.replace`` without its per-call look at the fields (override is hot)."""
    names, values_of = _fields_of(type(request))
    return type(request)(**dict(zip(names, values_of(request), strict=True), **changes))


def check_override_keys(cls: type, changes: Mapping[str, Any], also: tuple[str, ...] = ()) -> None:
    known = _fields_of(cls)[0]
    for key in changes:
        if key not in known:
            accepted = (*known, *also)
            raise UsageError(
                f"hookproof: {cls.__name__}.override() got unknown field {key!r}."
                f"{did_you_mean(key, accepted)} Fields: {', '.join(accepted)}."
            )
