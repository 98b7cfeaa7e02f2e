"""Messages: a role, a tuple of content blocks and metadata; and the tool calls an
assistant message requests."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar, Literal, TypeAlias, TypeVar

from pydantic import Field, ValidationError, field_validator

from hookproof._support.frozen import FrozenDict, FrozenList
from hookproof._support.frozen_model import FrozenMap, ImmutableModel, construct_text
from hookproof.errors import InvalidInputError
from hookproof.messages._blocks import ContentBlock, TextBlock
from hookproof.messages._problems import LISTED_AT_MOST, problem

__all__ = [
    "AssistantMessage",
    "Message",
    "RemoveMessage",
    "Role",
    "SystemMessage",
    "ToolCall",
    "ToolMessage",
    "UserMessage",
    "text_message",
]

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]
MessageT = TypeVar("MessageT", bound="Message")
_EMPTY = FrozenDict()

_CALL_KEYS = ("name", "args", "id", "type")


class ToolCall(ImmutableModel, Mapping[str, Any]):
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
            problems = [problem(item) for item in error.errors(include_url=False)]
            raise InvalidInputError(
                "hookproof: not a valid ToolCall: "
                + "; ".join(problems[:LISTED_AT_MOST])
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


class Message(ImmutableModel):
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


class RemoveMessage(ImmutableModel):
    """A state update that removes the message with this id (``"*"`` removes all)."""

    id: str

    ALL: ClassVar[str] = "*"


def text_message(cls: type[MessageT], text: str, **values: Any) -> MessageT:
    """A message whose content is one text block (none for an empty text), unvalidated.

    Same contract as ``construct``: ``values`` are the message's other fields, already final.
    """
    return construct_text(cls, TextBlock, text, values)
