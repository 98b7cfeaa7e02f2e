"""The base of hookproof's immutable pydantic values (messages, tool schemas, FinalRequest),
and ``construct``, which builds one without validation on hot paths."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Self, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict

from hookproof._secrets.reprs import redacted_repr
from hookproof._support.frozen import FrozenList, freeze

__all__ = [
    "FrozenMap",
    "ImmutableModel",
    "construct",
    "construct_text",
    "construct_whole",
    "set_private",
]

M = TypeVar("M", bound=BaseModel)
FrozenMap = Annotated[Mapping[str, Any], AfterValidator(freeze)]


@redacted_repr  # a message's repr reaches pytest's output: a key in its text must not
class ImmutableModel(BaseModel):
    model_config = ConfigDict(
        frozen=True, extra="forbid", arbitrary_types_allowed=True, defer_build=True
    )

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A validated copy with ``update`` applied; unknown fields are an error."""
        if not update:
            return self
        data = {name: getattr(self, name) for name in type(self).model_fields}
        data.update(update)
        return type(self).model_validate(data)

    def override(self, **changes: Any) -> Self:
        """A new value with ``changes`` applied; this one stays as it was."""
        return self.model_copy(update=changes)


class _Unset:
    def __repr__(self) -> str:
        return "<required field not given to construct()>"


_UNSET: Any = _Unset()
# Per class, every field in declaration order with its default (_UNSET when required): a
# merge with the given values then keeps the order validation gives (model_dump, repr).
_TEMPLATES: dict[type[BaseModel], dict[str, Any]] = {}
_NO_BLOCKS: FrozenList[Any] = FrozenList()
# BaseModel keeps these in slots; setting them through their descriptors is what
# model_construct does, minus its per-call field bookkeeping.
_new_instance = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def _template(cls: type[BaseModel]) -> dict[str, Any]:
    template = _TEMPLATES[cls] = {
        name: _UNSET if info.is_required() else info.get_default(call_default_factory=True)
        for name, info in cls.model_fields.items()
    }
    return template


def construct(cls: type[M], **values: Any) -> M:
    """Build a model from values that are already valid and frozen, without validation.

    For hookproof's hot paths only (the engine and the scripted model build millions of
    messages in property tests). Contract: give every required field, and only fields;
    every value must already have its final, frozen type (FrozenList for tuples, FrozenDict
    for mappings, models for nested models). The result equals, dumps and prints like the
    validated value, fields in declaration order and ``model_fields_set`` the given names.
    """
    template = _TEMPLATES.get(cls) or _template(cls)
    instance = _new_instance(cls)
    _set_dict(instance, {**template, **values})
    _set_fields_set(instance, set(values))
    _set_extra(instance, None)
    set_private(instance, None)
    return instance


def construct_whole(
    cls: type[M], fields: dict[str, Any], private: dict[str, Any] | None = None
) -> M:
    """``construct`` for a caller that gives every field, in declaration order: ``fields``
    becomes the instance's own dict (no merge with the defaults). ``private`` sets its
    private attributes (None: none)."""
    instance = _new_instance(cls)
    _set_dict(instance, fields)
    _set_fields_set(instance, set(fields))
    _set_extra(instance, None)
    set_private(instance, private)
    return instance


def construct_text(cls: type[M], block: type[BaseModel], text: str, values: dict[str, Any]) -> M:
    """``construct(cls, content=FrozenList((construct(block, text=text),)), **values)``
    (``content`` empty for an empty text) in one call: the engine and the scripted model
    make a text message at every model and tool call."""
    if text:
        made = _new_instance(block)
        _set_dict(made, {**(_TEMPLATES.get(block) or _template(block)), "text": text})
        _set_fields_set(made, {"text"})
        _set_extra(made, None)
        set_private(made, None)
        values["content"] = FrozenList((made,))
    else:
        values["content"] = _NO_BLOCKS
    instance = _new_instance(cls)
    _set_dict(instance, {**(_TEMPLATES.get(cls) or _template(cls)), **values})
    _set_fields_set(instance, set(values))
    _set_extra(instance, None)
    set_private(instance, None)
    return instance
