"""Formatting agentic messages, placeholders and the default chat template."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol, runtime_checkable

from hookproof._support.signatures import takes_positional
from hookproof.errors import TemplateVariableError, UsageError
from hookproof.templates._agentic_message import AgenticMessage
from hookproof.templates._budget import DEFAULT_BUDGET, TemplateBudget
from hookproof.templates._content_blocks import (
    ContentBlock,
    UserInputFile,
    UserInputText,
    _Media,
    new_content_block,
)
from hookproof.templates._failures import render_guarded
from hookproof.templates._fstring import render_fstring
from hookproof.templates._gotemplate import render_go_template
from hookproof.templates._jinja import render_jinja2

__all__ = [
    "AgenticMessagesTemplate",
    "AgenticTemplateCallbacks",
    "DefaultAgenticChatTemplate",
    "FormatType",
    "MessagesPlaceholder",
    "agentic_messages_placeholder",
    "format_message",
    "from_agentic_messages",
    "system_agentic_message",
    "user_agentic_message",
]


class FormatType(Enum):
    FSTRING = "fstring"
    GO_TEMPLATE = "go_template"
    JINJA2 = "jinja2"


_Renderer = Callable[[str, Mapping[str, Any], str, TemplateBudget], str]
_RENDERERS: dict[FormatType, _Renderer] = {
    FormatType.FSTRING: render_fstring,
    FormatType.GO_TEMPLATE: render_go_template,
    FormatType.JINJA2: render_jinja2,
}


def _renderer(format_type: object) -> _Renderer:
    if not isinstance(format_type, FormatType):
        raise UsageError(
            f"hookproof: unknown format type {format_type!r}; use FormatType.FSTRING, "
            "FormatType.GO_TEMPLATE or FormatType.JINJA2."
        )
    return _RENDERERS[format_type]


def _check_budget(budget: object) -> None:
    if not isinstance(budget, TemplateBudget):
        raise UsageError(
            f"hookproof: budget={budget!r} is a {type(budget).__name__}; pass a "
            "hookproof.templates.TemplateBudget, e.g. TemplateBudget(max_output_chars=2_000_000)."
        )


def _format_block(block: ContentBlock, render: Callable[[str], str]) -> ContentBlock:
    payload = block.payload
    if isinstance(payload, UserInputText):
        return block.model_copy(
            update={"payload": payload.model_copy(update={"text": render(payload.text)})}
        )
    if isinstance(payload, _Media):
        fields = (
            ("url", "base64_data", "name")
            if isinstance(payload, UserInputFile)
            else ("url", "base64_data")
        )
        changes = {f: render(getattr(payload, f)) for f in fields if getattr(payload, f)}
        return block.model_copy(update={"payload": payload.model_copy(update=changes)})
    return block


def format_message(
    message: AgenticMessage,
    variables: Mapping[str, Any],
    format_type: FormatType,
    name: str,
    budget: TemplateBudget = DEFAULT_BUDGET,
) -> AgenticMessage:
    """A formatted copy: user-input blocks rendered (each within ``budget``), every other
    block as it was."""
    renderer = _renderer(format_type)
    _check_budget(budget)

    def render(text: str) -> str:
        return render_guarded(renderer, text, variables, name, budget)

    blocks = tuple(_format_block(block, render) for block in message.content_blocks)
    return message.model_copy(update={"content_blocks": blocks})


@runtime_checkable
class AgenticMessagesTemplate(Protocol):
    """Anything that turns variables into agentic messages (a custom template needs only this)."""

    def format(self, variables: Mapping[str, Any], *args: Any, **kwargs: Any) -> Any: ...


@dataclass(frozen=True)
class MessagesPlaceholder:
    """Inserts the agentic messages found under ``key``, unformatted."""

    key: str
    optional: bool = False

    def format_messages(self, variables: Mapping[str, Any], name: str) -> list[AgenticMessage]:
        if self.key not in variables:
            if self.optional:
                return []
            raise TemplateVariableError(
                name, f"message placeholder format: {self.key} not found", variable=self.key
            )
        value = variables[self.key]
        if isinstance(value, list | tuple) and all(isinstance(m, AgenticMessage) for m in value):
            return list(value)
        raise TemplateVariableError(
            name,
            "only agentic messages can be used to format message placeholder, key: "
            f"{self.key}, actual type: {type(value).__name__}",
            variable=self.key,
        )


def system_agentic_message(text: str) -> AgenticMessage:
    return AgenticMessage(
        role="system", content_blocks=(new_content_block(UserInputText(text=text)),)
    )


def user_agentic_message(text: str) -> AgenticMessage:
    return AgenticMessage(
        role="user", content_blocks=(new_content_block(UserInputText(text=text)),)
    )


def agentic_messages_placeholder(key: str, optional: bool = False) -> MessagesPlaceholder:
    return MessagesPlaceholder(key, optional)


class AgenticTemplateCallbacks(Protocol):
    """Callbacks of a template run; implement any of the three."""

    def on_start(self, variables: Mapping[str, Any], templates: Sequence[Any]) -> None: ...

    def on_end(self, result: list[AgenticMessage], templates: Sequence[Any]) -> None: ...

    def on_error(self, error: BaseException, templates: Sequence[Any]) -> None: ...


TemplatePart = AgenticMessage | MessagesPlaceholder | AgenticMessagesTemplate


def _template_name(index: int, part: Any) -> str:
    if isinstance(part, AgenticMessage):
        return f"#{index} ({part.role} message)"
    if isinstance(part, MessagesPlaceholder):
        return f"#{index} (placeholder {part.key!r})"
    return f"#{index} ({type(part).__name__})"


def _format_part(
    part: Any,
    index: int,
    variables: Mapping[str, Any],
    format_type: FormatType,
    budget: TemplateBudget,
) -> list[AgenticMessage]:
    name = _template_name(index, part)
    if isinstance(part, AgenticMessage):
        return [format_message(part, variables, format_type, name, budget)]
    if isinstance(part, MessagesPlaceholder):
        return part.format_messages(variables, name)
    if isinstance(part, DefaultAgenticChatTemplate) or not _takes_format_type(part.format):
        return list(part.format(variables))
    return list(part.format(variables, format_type))


def _takes_format_type(method: Callable[..., Any]) -> bool:
    """Custom templates may define format(variables) or format(variables, format_type)."""
    return takes_positional(method, 2) or False


def _call(callbacks: Any, hook: str, *args: Any) -> None:
    method = getattr(callbacks, hook, None) if callbacks is not None else None
    if method is not None:
        method(*args)


class DefaultAgenticChatTemplate:
    """Formats each template in order and concatenates the results."""

    def __init__(
        self,
        format_type: FormatType,
        templates: Sequence[TemplatePart],
        *,
        budget: TemplateBudget = DEFAULT_BUDGET,
    ) -> None:
        _renderer(format_type)
        _check_budget(budget)
        for index, part in enumerate(templates):
            if not isinstance(part, AgenticMessage | MessagesPlaceholder) and not callable(
                getattr(part, "format", None)
            ):
                raise UsageError(
                    f"hookproof: template #{index} is a {type(part).__name__}; use an "
                    "AgenticMessage, agentic_messages_placeholder(...) or an object with format()."
                )
        self.format_type = format_type
        self.templates = tuple(templates)
        self.budget = budget

    def get_type(self) -> str:
        return "Default"

    def format(
        self, variables: Mapping[str, Any], *, callbacks: Any = None
    ) -> list[AgenticMessage]:
        _call(callbacks, "on_start", variables, self.templates)
        try:
            result = [
                message
                for index, part in enumerate(self.templates)
                for message in _format_part(part, index, variables, self.format_type, self.budget)
            ]
        except Exception as error:
            _call(callbacks, "on_error", error, self.templates)
            raise
        _call(callbacks, "on_end", result, self.templates)
        return result

    def invoke(self, variables: Mapping[str, Any]) -> list[AgenticMessage]:
        return self.format(variables)


def from_agentic_messages(
    format_type: FormatType, *templates: TemplatePart, budget: TemplateBudget = DEFAULT_BUDGET
) -> DefaultAgenticChatTemplate:
    """A template that formats ``templates`` in order with ``format_type``, rendering each
    text within ``budget`` (see TemplateBudget)."""
    return DefaultAgenticChatTemplate(format_type, templates, budget=budget)
