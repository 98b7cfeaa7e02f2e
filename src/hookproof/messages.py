"""Messages and content blocks: the immutable vocabulary every part of hookproof speaks.

A message has a role (system, user, assistant, tool), a tuple of typed content blocks and
metadata (id, name, additional_kwargs, response_metadata). Blocks carry their own id,
cache_control and extras. Nothing here can be changed in place: ``model_copy(update=...)``
and ``override(...)`` validate and return a new message, so metadata survives edits.
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Self, TypeAlias, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from hookproof._frozen import FrozenDict, FrozenList, freeze
from hookproof.errors import InvalidInputError, UsageError
from hookproof.redaction import redacted_repr

__all__ = [
    "AssistantMessage",
    "AudioBlock",
    "ContentBlock",
    "FileBlock",
    "ImageBlock",
    "Message",
    "ReasoningBlock",
    "RemoveMessage",
    "Role",
    "SystemMessage",
    "TextBlock",
    "ToolCall",
    "ToolCallBlock",
    "ToolMessage",
    "ToolResultBlock",
    "UserMessage",
    "VideoBlock",
    "coerce_message",
    "coerce_messages",
]

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]
M = TypeVar("M", bound=BaseModel)
MessageT = TypeVar("MessageT", bound="Message")
FrozenMap = Annotated[Mapping[str, Any], AfterValidator(freeze)]
_EMPTY = FrozenDict()


@redacted_repr  # a message's repr reaches pytest's output: a key in its text must not
class _Immutable(BaseModel):
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
# BaseModel keeps these in slots; setting them through their descriptors is what
# model_construct does, minus its per-call field bookkeeping.
_new_instance = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


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
    _set_private(instance, None)
    return instance


_NO_BLOCKS: FrozenList[Any] = FrozenList()


def text_message(cls: type[MessageT], text: str, **values: Any) -> MessageT:
    """A message whose content is one text block (none for an empty text), unvalidated.

    Same contract as ``construct``: ``values`` are the message's other fields, already final.
    """
    content = FrozenList((construct(TextBlock, text=text),)) if text else _NO_BLOCKS
    return construct(cls, content=content, **values)


class _Block(_Immutable):
    id: str | None = None
    cache_control: FrozenMap | None = None
    extras: FrozenMap = _EMPTY


class TextBlock(_Block):
    type: Literal["text"] = "text"
    text: str


class _MediaBlock(_Block):
    url: str | None = None
    base64: str | None = None
    file_id: str | None = None
    mime_type: str | None = None


class ImageBlock(_MediaBlock):
    type: Literal["image"] = "image"


class AudioBlock(_MediaBlock):
    type: Literal["audio"] = "audio"


class VideoBlock(_MediaBlock):
    type: Literal["video"] = "video"


class FileBlock(_MediaBlock):
    type: Literal["file"] = "file"
    name: str | None = None


class ReasoningBlock(_Block):
    type: Literal["reasoning"] = "reasoning"
    reasoning: str


class ToolCallBlock(_Block):
    """A tool call inside content; ``id`` is the call id."""

    type: Literal["tool_call"] = "tool_call"
    name: str
    args: FrozenMap = _EMPTY


class ToolResultBlock(_Block):
    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    text: str = ""
    status: Literal["success", "error"] = "success"


ContentBlock: TypeAlias = Annotated[
    TextBlock
    | ImageBlock
    | AudioBlock
    | VideoBlock
    | FileBlock
    | ReasoningBlock
    | ToolCallBlock
    | ToolResultBlock,
    Field(discriminator="type"),
]


_CALL_KEYS = ("name", "args", "id", "type")


class ToolCall(_Immutable, Mapping[str, Any]):
    """One tool call requested by the model; also a read-only Mapping with the keys of
    LangChain's ToolCall dict (name, args, id, type), so ``{**call, "args": new}`` works.

    Equal only to another ToolCall (as a pydantic model), never to a dict.
    """

    name: str
    args: FrozenMap = _EMPTY
    id: str | None = None
    # Always "tool_call", as in LangChain's dict; left out of dumps and repr, which predate it.
    type: Literal["tool_call"] = Field(default="tool_call", exclude=True, repr=False)

    def __getitem__(self, key: str) -> Any:
        if key not in _CALL_KEYS:
            raise KeyError(key)
        return getattr(self, key)

    # A Mapping iterates over its keys; BaseModel's (name, value) pairs would break **call.
    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        return iter(_CALL_KEYS)

    def __len__(self) -> int:
        return len(_CALL_KEYS)

    # Immutable already: freeze() keeps it a ToolCall rather than copying it to a FrozenDict.
    __hookproof_frozen__: ClassVar[bool] = True

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as error:
            problems = [_problem(item) for item in error.errors(include_url=False)]
            raise InvalidInputError(
                "hookproof: not a valid ToolCall: "
                + "; ".join(problems[:_LISTED_AT_MOST])
                + ". A malformed call would reach the tool as arguments nobody can name. A tool "
                "call is a name (str), args (a mapping of argument names to values, already "
                "decoded: json.loads a provider's JSON string first) and an optional "
                'id, e.g. ToolCall(name="search", args={"query": "x"}, id="call_0").'
            ) from None


# Only a direct ToolCall(...) goes through __init__: a call inside a message is validated by
# the message, whose error names where in the message the bad call is.
ToolCall.__pydantic_custom_init__ = False


def _content_blocks(value: Any) -> Any:
    if isinstance(value, str):
        return (TextBlock(text=value),) if value else ()
    if isinstance(value, Iterable) and not isinstance(value, Mapping):
        return tuple(TextBlock(text=item) if isinstance(item, str) else item for item in value)
    return value


class Message(_Immutable):
    """Base of every message. ``content`` accepts a str, or a sequence of blocks or dicts."""

    role: ClassVar[Role]
    content: tuple[ContentBlock, ...] = ()
    id: str | None = None
    name: str | None = None
    additional_kwargs: FrozenMap = _EMPTY
    response_metadata: FrozenMap = _EMPTY

    def __init__(self, content: Any = (), /, **data: Any) -> None:
        super().__init__(content=data.pop("content", content), **data)  # type: ignore[call-arg]

    @field_validator("content", mode="before")
    @classmethod
    def _coerce_content(cls, value: Any) -> Any:
        return _content_blocks(value)

    @field_validator("content", mode="after")
    @classmethod
    def _freeze_content(cls, value: tuple[Any, ...]) -> Any:
        return FrozenList(value)

    def __repr_args__(self) -> Any:
        yield "role", self.role
        yield from super().__repr_args__()

    @property
    def text(self) -> str:
        """The text blocks joined by newlines (other blocks are left out)."""
        return "\n".join(block.text for block in self.content if isinstance(block, TextBlock))

    @property
    def content_blocks(self) -> tuple[ContentBlock, ...]:
        return self.content


class SystemMessage(Message):
    role: ClassVar[Role] = "system"


class UserMessage(Message):
    role: ClassVar[Role] = "user"


class AssistantMessage(Message):
    role: ClassVar[Role] = "assistant"
    tool_calls: tuple[ToolCall, ...] = ()

    @field_validator("tool_calls", mode="after")
    @classmethod
    def _freeze_calls(cls, value: tuple[ToolCall, ...]) -> Any:
        return FrozenList(value)


class ToolMessage(Message):
    role: ClassVar[Role] = "tool"
    tool_call_id: str
    status: Literal["success", "error"] = "success"


class RemoveMessage(_Immutable):
    """A state update that removes the message with this id (``"*"`` removes all)."""

    id: str

    ALL: ClassVar[str] = "*"


_ROLE_ALIASES: dict[str, type[Message]] = {
    "system": SystemMessage,
    "user": UserMessage,
    "human": UserMessage,
    "assistant": AssistantMessage,
    "ai": AssistantMessage,
    "tool": ToolMessage,
}


def _short(value: object) -> str:
    """A bounded repr for error messages: a huge or deeply nested value cannot blow them up."""
    short = reprlib.Repr()
    short.maxstring = short.maxother = 60
    short.maxlevel = 3
    return short.repr(value)


def _message_class(role: object, where: str) -> type[Message]:
    cls = _ROLE_ALIASES.get(role) if isinstance(role, str) else None
    if cls is None:
        raise InvalidInputError(
            f"hookproof: {where} has role {_short(role)}, which is not a message role. "
            f"Use one of {sorted(_ROLE_ALIASES)}."
        )
    return cls


def _validated(cls: type[MessageT], data: dict[Any, Any], where: str) -> MessageT:
    odd = [key for key in data if not isinstance(key, str)]
    if odd:
        raise InvalidInputError(
            f"hookproof: {where} has keys that are not strings: {_short(odd)}. A message dict's "
            'keys are field names such as "role", "content", "id" and "name".'
        )
    try:
        return cls.model_validate(data)
    except ValidationError as error:
        raise _malformed(cls, data, error, where) from None


def _malformed(
    cls: type[Message], data: dict[Any, Any], error: ValidationError, where: str
) -> InvalidInputError:
    content = data.get("content")
    if _is_not_content(content):
        problems = [f"content {_not_content(content)}"]
    else:
        problems = [_problem(item) for item in error.errors(include_url=False)[:_LISTED_AT_MOST]]
    return InvalidInputError(
        f"hookproof: {where} is not a valid {cls.role} message: " + "; ".join(problems) + ". "
        "A message is a (role, text) tuple, a hookproof message or a dict such as "
        '{"role": "user", "content": "hi"} (content: a str or a list of content blocks).'
    )


_LISTED_AT_MOST = 5


def _is_not_content(content: object) -> bool:
    return content is None or isinstance(content, bytes | bytearray | int | float | Mapping)


def _not_content(content: object) -> str:
    kind = type(content).__name__
    if isinstance(content, bytes | bytearray):
        return f"is {kind}, not text: decode it first (content.decode('utf-8'))"
    if isinstance(content, Mapping):
        return "is a single mapping: wrap one content block in a list, [block]"
    return f"is {kind} {_short(content)}, not text: pass a str (str(value) for a number)"


def _path(loc: tuple[int | str, ...]) -> str:
    """``content[0].text``; the block type pydantic puts after an index is left out."""
    parts = [
        f"[{part}]" if isinstance(part, int) else f".{part}"
        for index, part in enumerate(loc)
        if not (index and isinstance(loc[index - 1], int) and part in _KINDS)
    ]
    return "".join(parts).lstrip(".")


def _problem(item: Any) -> str:
    path, kind = _path(item["loc"]), item["type"]
    given = f"got {type(item['input']).__name__} {_short(item['input'])}"
    if kind == "missing":
        return f"{path} is required but missing"
    if kind == "extra_forbidden":
        return f"{path} is not a field of this message"
    if kind in ("union_tag_invalid", "union_tag_not_found", "model_attributes_type"):
        kinds = ", ".join(_KINDS)
        return f"{path} is not a content block (a str, or a dict with a type: {kinds}); {given}"
    return f"{path}: {_EXPECTED.get(kind) or item['msg'].lower()}; {given}"


_KINDS = ("text", "image", "audio", "video", "file", "reasoning", "tool_call", "tool_result")
_EXPECTED = {
    "string_type": "must be a string",
    "dict_type": "must be a dict",
    "tuple_type": "must be a list",
}


def coerce_message(value: object, *, where: str = "a message") -> Message | RemoveMessage:
    """Turn a ("role", "text") tuple, a {"role", "content", ...} dict or a message into one."""
    if isinstance(value, Message | RemoveMessage):
        return value
    convert = getattr(value, "to_message", None)
    if callable(convert):  # agentic messages (hookproof.templates) convert themselves
        converted = convert()
        if isinstance(converted, Message):
            return converted
    if isinstance(value, tuple) and len(value) == 2:
        cls = _message_class(value[0], where)
        if isinstance(value[1], str) and cls is not ToolMessage:
            return text_message(cls, value[1])
        return _validated(cls, {"content": value[1]}, where)
    if isinstance(value, Mapping):
        data = dict(value)
        cls = _message_class(data.pop("role", None), where)
        return _validated(cls, data, where)
    raise UsageError(
        f"hookproof: {where} is a {type(value).__name__} ({_short(value)}), which is not a "
        "message. Pass a hookproof message, a (role, text) tuple or a "
        '{"role": ..., "content": ...} dict.'
    )


def coerce_messages(values: Sequence[object], *, where: str) -> list[Message | RemoveMessage]:
    if not isinstance(values, list | tuple) and (
        isinstance(values, str | bytes | Mapping) or not isinstance(values, Sequence)
    ):
        raise UsageError(
            f"hookproof: {where} must be a list of messages, got {type(values).__name__}. "
            'Wrap it in a list: {"messages": [("user", "hi")]}.'
        )
    return [coerce_message(item, where=f"{where}[{index}]") for index, item in enumerate(values)]


if not TYPE_CHECKING:  # the old names warn at run time; mypy reports them as missing

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):  # the import system probes dunders; no alias is one
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from hookproof.compat import deprecated_alias

        return deprecated_alias(__name__, name)
