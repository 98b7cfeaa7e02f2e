"""A system prompt given as a str becomes the same SystemMessage validation would make, built
without validating it (every agent build and every ``override(system_prompt=...)`` makes one);
what is refused is refused with the same error."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.errors import UsageError
from hookproof.messages import SystemMessage
from hookproof.requests import as_system_message


class Text(str):
    """A str subclass: validated as before."""


PROMPTS = ["", "You are helpful.", "line one\nline two\n", " ", "ünïcode ✓", "\x00", "x" * 5000]


def shape(message: SystemMessage) -> tuple[Any, ...]:
    blocks = [
        (type(block), block.model_fields_set, block.model_dump()) for block in message.content
    ]
    return (
        type(message),
        repr(message),
        message.model_dump(),
        message.model_fields_set,
        type(message.content),
        blocks,
        message.text,
    )


@pytest.mark.parametrize("prompt", [*PROMPTS, Text("subclassed")], ids=repr)
def test_a_str_prompt_is_the_validated_message(prompt: str) -> None:
    built = as_system_message(prompt)
    validated = SystemMessage(content=prompt)
    assert built is not None
    assert built == validated
    assert shape(built) == shape(validated)
    assert hash(built) == hash(validated)


def test_a_message_or_none_passes_through() -> None:
    message = SystemMessage(content="given", id="s1")
    assert as_system_message(message) is message
    assert as_system_message(None) is None


@pytest.mark.parametrize("refused", [3, b"bytes", ["a"], {"content": "a"}], ids=repr)
def test_anything_else_is_refused_as_before(refused: object) -> None:
    with pytest.raises(UsageError) as raised:
        as_system_message(refused, "system_prompt")
    assert str(raised.value) == (
        f"hookproof: system_prompt must be a str, a SystemMessage or None, not "
        f"{type(refused).__name__}."
    )


def test_a_plain_str_is_not_validated_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cost this removes: the old build validated a new message for every str."""
    validated: list[object] = []
    init = SystemMessage.__init__

    def counted(self: SystemMessage, *args: Any, **kwargs: Any) -> None:
        validated.append(kwargs.get("content", args[:1]))
        init(self, *args, **kwargs)

    monkeypatch.setattr(SystemMessage, "__init__", counted)
    assert as_system_message("You are helpful.") == SystemMessage(content="You are helpful.")
    assert validated == ["You are helpful."]  # only the comparison's own message
    assert as_system_message(Text("subclassed")) is not None
    assert len(validated) == 2  # a str subclass is validated, as before
