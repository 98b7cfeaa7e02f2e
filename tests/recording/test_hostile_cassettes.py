"""Hostile cassette files and paths (issue 28): every one is a hookproof error that names the
file and the problem, never a hang, a MemoryError, a RecursionError, a raw KeyError or
pydantic error, and never a write outside the project."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hookproof.errors import (
    CassetteFormatError,
    FileAccessError,
    HookproofError,
    UnsafePathError,
)
from hookproof.messages import UserMessage
from hookproof.recording import Cassette, cassette_path
from hookproof.requests import FinalRequest
from tests.recording.models import EchoModel, EinoEchoModel

REQUEST = FinalRequest(model="echo-model", messages=(UserMessage("hi"),))


def _within(seconds: float, action: Callable[[], Any]) -> Any:
    """``action()``'s result or exception; a failure naming the hang if it does not return."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(action())
        except (HookproofError, OSError, ValueError, LookupError, MemoryError) as error:
            outcome.append(error)  # the caller asserts on which it was

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"hung for {seconds}s"
    return outcome[0]


def _recorded(path: Path) -> dict[str, Any]:
    with Cassette(path, record_mode="once") as cassette:
        cassette.wrap(EchoModel()).invoke(REQUEST)
    document: dict[str, Any] = json.loads(path.read_text())
    return document


def _edited(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    document = _recorded(path)
    edit(document)
    path.write_text(json.dumps(document))


def _answer(document: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = document["exchanges"][0]["answer"]
    return answer


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _directory(path: Path) -> None:
    path.mkdir()


def _deep(path: Path) -> None:
    path.write_text("[" * 200_000 + "]" * 200_000)


def _huge(path: Path) -> None:
    with path.open("wb") as stream:
        stream.truncate(65 * 1024 * 1024)  # sparse: nothing is written


def _latin1(path: Path) -> None:
    path.write_bytes(b'{"format": "hookproof cassette", "test": "caf\xe9"}')


def _long_number(path: Path) -> None:
    path.write_text('{"format": "hookproof cassette", "version": ' + "9" * 5000 + "}")


def _version(value: object) -> Callable[[Path], None]:
    return lambda path: _edited(path, lambda document: document.update(version=value))


UNREADABLE = {
    "a FIFO": (_fifo, "is a named pipe (FIFO), not a regular file"),
    "a link to /dev/zero": (_dev_zero, "is a symbolic link to a character device"),
    "a directory": (_directory, "is a directory, not a regular file"),
    "200k-deep JSON": (_deep, "nests JSON deeper than 128 levels"),
    "65 MiB": (_huge, "is larger than 67108864 bytes"),
    "not UTF-8": (_latin1, "is not UTF-8 text (byte 45 is 0xe9)"),
    "a 5000-digit number": (_long_number, "holds a number with too many digits"),
    "version true": (_version(True), "it was written in format True, this hookproof reads 1"),
    "version 1.0": (_version(1.0), "it was written in format 1.0"),
    'version "1"': (_version("1"), "it was written in format '1'"),
}


@pytest.mark.parametrize(("make", "problem"), UNREADABLE.values(), ids=UNREADABLE)
def test_a_cassette_that_cannot_be_read_is_a_format_error(
    tmp_path: Path, make: Callable[[Path], None], problem: str
) -> None:
    path = tmp_path / "c.json"
    make(path)
    error = _within(10, lambda: Cassette(path, record_mode="none"))
    assert isinstance(error, CassetteFormatError), error
    assert f"hookproof: the cassette {path} cannot be read: " in str(error)
    assert problem in str(error)


def _keyed(document: dict[str, Any]) -> None:
    _answer(document)["msg"] = _answer(document).pop("message")


def _number_text(document: dict[str, Any]) -> None:
    _answer(document)["message"]["text"] = 5


def _message_as(value: object) -> Callable[[dict[str, Any]], None]:
    return lambda document: _answer(document).update(message=value)


def _field_as(field: str, value: object) -> Callable[[dict[str, Any]], None]:
    return lambda document: _answer(document)["message"].update({field: value})


def _content(value: object) -> Callable[[dict[str, Any]], None]:
    def edit(document: dict[str, Any]) -> None:
        del _answer(document)["message"]["text"]
        _answer(document)["message"]["content"] = value

    return edit


MISSHAPEN = {
    '{"msg": ...}': (_keyed, "KeyError: 'message'"),
    "text: 5": (_number_text, "ValidationError: 1 validation error for AssistantMessage"),
    "a list for a message": (_message_as(["hi"]), 'TypeError: "message" is a list, not an'),
    "an empty list for a message": (_message_as([]), 'TypeError: "message" is a list, not an'),
    "a two-letter string for a message": (_message_as("ab"), 'TypeError: "message" is a str'),
    "null for a message": (_message_as(None), 'TypeError: "message" is a NoneType, not an'),
    "tool_calls not a list": (_field_as("tool_calls", "x"), "ValidationError: 1 validation"),
    "tool_calls of strings": (_field_as("tool_calls", ["x"]), "ValidationError: 1 validation"),
    "content of numbers": (_content([5]), "ValidationError: "),
    "content of a list of lists": (_content([[]]), "ValidationError: "),
    "both text and content": (
        _field_as("content", []),
        'ValueError: "message" holds both "text" and "content"',
    ),
}


@pytest.mark.parametrize(("edit", "problem"), MISSHAPEN.values(), ids=MISSHAPEN)
def test_an_answer_edited_out_of_shape_is_a_format_error(
    tmp_path: Path, edit: Callable[[dict[str, Any]], None], problem: str
) -> None:
    path = tmp_path / "c.json"
    _edited(path, edit)
    model = Cassette(path, record_mode="none").wrap(EchoModel())
    with pytest.raises(CassetteFormatError) as caught:
        model.invoke(REQUEST)
    assert str(caught.value).startswith(
        f"hookproof: the answer recorded for model call 1 in the cassette {path} is not a "
        f"hookproof model's answer ({problem}"
    )
    with pytest.raises(CassetteFormatError, match="is not a hookproof model's answer"):
        asyncio.run(Cassette(path, record_mode="none").wrap(EchoModel()).ainvoke(REQUEST))


@pytest.mark.parametrize("streaming", [False, True])
def test_an_eino_answer_edited_out_of_shape_is_a_format_error(
    tmp_path: Path, streaming: bool
) -> None:
    path = tmp_path / "c.json"
    messages = [UserMessage("hi")]
    with Cassette(path, record_mode="once") as cassette:
        cassette.wrap(EinoEchoModel()).generate(None, messages)
    _edited_in_place(path, lambda document: _answer(document).update(message={"text": 5}))
    model = Cassette(path, record_mode="none").wrap(EinoEchoModel())
    with pytest.raises(CassetteFormatError, match="is not a eino model's answer"):
        list(model.stream(None, messages)) if streaming else model.generate(None, messages)


def _edited_in_place(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    document = json.loads(path.read_text())
    edit(document)
    path.write_text(json.dumps(document))


EINO_MISSHAPEN = {
    "an empty list for a message": (_message_as([]), '"message" is a list, not an object'),
    "no chunks": (lambda document: _answer(document).update(chunks=[]), '"chunks" is empty'),
    "chunks not a list": (
        lambda document: _answer(document).update(chunks={"text": "hi"}),
        '"chunks" is a dict, not a list',
    ),
    "a list for a chunk": (
        lambda document: _answer(document).update(chunks=[[]]),
        '"message" is a list, not an object',
    ),
}


@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize(("edit", "problem"), EINO_MISSHAPEN.values(), ids=EINO_MISSHAPEN)
def test_an_eino_answer_emptied_or_misshapen_is_a_format_error(
    tmp_path: Path, streaming: bool, edit: Callable[[dict[str, Any]], None], problem: str
) -> None:
    path = tmp_path / "c.json"
    messages = [UserMessage("hi")]
    with Cassette(path, record_mode="once") as cassette:
        cassette.wrap(EinoEchoModel()).generate(None, messages)
    _edited_in_place(path, edit)
    model = Cassette(path, record_mode="none").wrap(EinoEchoModel())
    with pytest.raises(CassetteFormatError) as caught:
        list(model.stream(None, messages)) if streaming else model.generate(None, messages)
    assert f"model call 1 in the cassette {path} is not a eino model's answer" in str(caught.value)
    assert problem in str(caught.value)
    assert "Record the cassette again with record mode all" in str(caught.value)


# -- LangChain answers: a model's AI message, at least one, or a format error -----------------

LC_GENERATIONS = {
    "no generations": (lambda answer: answer.update(generations=[]), '"generations" is empty'),
    "generations not a list": (
        lambda answer: answer.update(generations={"message": {}}),
        '"generations" is a dict, not a list',
    ),
    "a generation not an object": (
        lambda answer: answer.update(generations=[5]),
        '"generations"[0] is a int, not an object',
    ),
    "no message": (
        lambda answer: answer["generations"][0].pop("message"),
        "KeyError: 'message'",
    ),
    "a human message": (
        lambda answer: answer["generations"][0].update(message={"type": "human"}),
        "\"message\" has type 'human'; a model answers with an AI message",
    ),
    "a human message with data": (
        lambda answer: answer["generations"][0]["message"].update(type="human"),
        "\"message\" has type 'human'",
    ),
    "a tool message": (
        lambda answer: answer["generations"][0]["message"].update(type="tool"),
        "\"message\" has type 'tool'",
    ),
    "a message of no type": (
        lambda answer: answer["generations"][0]["message"].pop("type"),
        '"message" has type None',
    ),
    "an empty list for a message": (
        lambda answer: answer["generations"][0].update(message=[]),
        '"message" is a list, not an object',
    ),
    "an ai message without data": (
        lambda answer: answer["generations"][0]["message"].pop("data"),
        '"message" has no "data" object (got NoneType)',
    ),
    "data a list": (
        lambda answer: answer["generations"][0]["message"].update(data=[]),
        '"message" has no "data" object (got list)',
    ),
    "content a number": (
        lambda answer: answer["generations"][0]["message"]["data"].update(content=5),
        "ValidationError",
    ),
    "tool_calls not a list": (
        lambda answer: answer["generations"][0]["message"]["data"].update(tool_calls="x"),
        '"tool_calls" of the message is not a list of objects',
    ),
    "tool_calls of numbers": (
        lambda answer: answer["generations"][0]["message"]["data"].update(tool_calls=[1]),
        '"tool_calls" of the message is not a list of objects',
    ),
    "a tool call without its name": (
        lambda answer: answer["generations"][0]["message"]["data"].update(
            tool_calls=[{"args": {}, "id": "1"}]
        ),
        "missing 1 required keyword-only argument: 'name'",
    ),
    "generation_info a string": (
        lambda answer: answer["generations"][0].update(generation_info="x"),
        "ValidationError",
    ),
}

LC_CHUNKS = {
    "no chunks": (lambda answer: answer.update(chunks=[]), '"chunks" is empty'),
    "chunks not a list": (lambda answer: answer.update(chunks="x"), '"chunks" is a str'),
    "a chunk not an object": (
        lambda answer: answer["chunks"].append(None),
        '"chunks"[3] is a NoneType, not an object',
    ),
    "a human chunk": (
        lambda answer: answer["chunks"][1]["message"].update(type="HumanMessageChunk"),
        "\"message\" has type 'HumanMessageChunk'",
    ),
    "an empty list for a chunk's message": (
        lambda answer: answer["chunks"][0].update(message=[]),
        '"message" is a list, not an object',
    ),
    "tool_call_chunks a dict": (
        lambda answer: answer["chunks"][0]["message"]["data"].update(tool_call_chunks={}),
        '"tool_call_chunks" of the message is not a list of objects',
    ),
    "content a dict": (
        lambda answer: answer["chunks"][0]["message"]["data"].update(content={}),
        "ValidationError",
    ),
}

LC_CASES = [(False, *case) for case in LC_GENERATIONS.values()] + [
    (True, *case) for case in LC_CHUNKS.values()
]
LC_IDS = [f"invoked-{name}" for name in LC_GENERATIONS] + [f"streamed-{name}" for name in LC_CHUNKS]


def _langchain_recorded(path: Path, streamed: bool) -> None:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    with Cassette(path, record_mode="once") as cassette:
        model = cassette.wrap(GenericFakeChatModel(messages=iter([AIMessage("hello there")])))
        list(model.stream("hi")) if streamed else model.invoke("hi")


async def _langchain_astream(model: Any) -> list[Any]:
    return [chunk async for chunk in model.astream("hi")]


LC_CALLS: dict[str, Callable[[Any], Any]] = {
    "invoke": lambda model: model.invoke("hi"),
    "ainvoke": lambda model: asyncio.run(model.ainvoke("hi")),
    "stream": lambda model: list(model.stream("hi")),
    "astream": lambda model: asyncio.run(_langchain_astream(model)),
}


@pytest.mark.parametrize("call", LC_CALLS.values(), ids=LC_CALLS)
@pytest.mark.parametrize(("streamed", "edit", "problem"), LC_CASES, ids=LC_IDS)
def test_a_langchain_answer_edited_out_of_shape_is_a_format_error(
    tmp_path: Path,
    streamed: bool,
    edit: Callable[[dict[str, Any]], None],
    problem: str,
    call: Callable[[Any], Any],
) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    path = tmp_path / "c.json"
    _langchain_recorded(path, streamed)
    _edited_in_place(path, lambda document: edit(_answer(document)))
    model = Cassette(path, record_mode="none").wrap(GenericFakeChatModel(messages=iter([])))
    with pytest.raises(CassetteFormatError) as caught:
        call(model)
    message = str(caught.value)
    assert f"model call 1 in the cassette {path} is not a langchain model's answer" in message
    assert problem in message
    assert "Record the cassette again with record mode all" in message


@pytest.mark.parametrize("call", LC_CALLS.values(), ids=LC_CALLS)
@pytest.mark.parametrize("streamed", [False, True], ids=["invoked", "streamed"])
def test_a_langchain_answer_left_whole_replays(
    tmp_path: Path, streamed: bool, call: Callable[[Any], Any]
) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    path = tmp_path / "c.json"
    _langchain_recorded(path, streamed)
    model = Cassette(path, record_mode="none").wrap(GenericFakeChatModel(messages=iter([])))
    answer = call(model)
    text = "".join(chunk.text for chunk in answer) if isinstance(answer, list) else answer.text
    assert text == "hello there"


# -- paths: nothing is read or written outside the root ---------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "project" / "recording").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    return tmp_path / "project"


ESCAPES = {
    "a linked folder": ("recording/tests", "../../outside", "recording/tests/test_x/t.json"),
    "a linked module folder": ("recording/test_x", "../../outside", "recording/test_x/t.json"),
    "a linked recording dir": ("recording", "../outside", "recording/test_x/t.json"),
    "a linked file": ("recording/t.json", "../../outside/t.json", "recording/t.json"),
}


@pytest.mark.parametrize(("link", "target", "cassette"), ESCAPES.values(), ids=ESCAPES)
def test_a_link_out_of_the_root_is_never_written_through(
    project: Path, link: str, target: str, cassette: str
) -> None:
    if (project / link).is_dir():
        (project / link).rmdir()
    (project / link).parent.mkdir(parents=True, exist_ok=True)
    (project / link).symlink_to(target)
    recording = Cassette(project / cassette, record_mode="all", root=project)
    recording.wrap(EchoModel()).invoke(REQUEST)
    with pytest.raises(UnsafePathError, match="outside") as caught:
        recording.save()
    assert f"outside {str(project.resolve())!r}" in str(caught.value)
    assert list((project.parent / "outside").rglob("*")) == []


def test_a_link_out_of_the_root_is_never_read_through(project: Path) -> None:
    secret = project.parent / "outside" / "t.json"
    _recorded(secret)
    (project / "recording" / "t.json").symlink_to(secret)
    with pytest.raises(UnsafePathError, match="resolves to"):
        Cassette(project / "recording" / "t.json", record_mode="none", root=project)


def test_a_directory_in_the_cassettes_place_is_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.mkdir()
    (path / "keep").write_text("kept")
    recording = Cassette(path, record_mode="all")
    recording.wrap(EchoModel()).invoke(REQUEST)
    with pytest.raises(FileAccessError, match="is a directory, which hookproof will not replace"):
        recording.save()
    assert (path / "keep").read_text() == "kept"
    assert [item.name for item in tmp_path.iterdir()] == ["c.json"]


NODE_IDS = [
    "...py::t",
    "..::t",
    "../../up.py::t",
    "/abs/t.py::x",
    "a/./b.py::t",
    "tests/..py::..",
    "tests/test_x.py::..",
    "tests/test_x.py::../../t",
    "::t",
    "",
]


@pytest.mark.parametrize("nodeid", NODE_IDS)
def test_every_cassette_path_stays_in_the_recording_directory(tmp_path: Path, nodeid: str) -> None:
    path = cassette_path(tmp_path, "recording", nodeid)
    directory = (tmp_path / "recording").resolve()
    assert path.is_relative_to(directory)
    assert ".." not in path.relative_to(directory).parts
    assert path.resolve() == path


def test_a_module_named_by_dots_gets_a_folder_of_its_own(tmp_path: Path) -> None:
    path = cassette_path(tmp_path, "recording", "...py::t")
    assert path == tmp_path.resolve() / "recording" / "__" / "t.json"


# -- through the pytest fixture ------------------------------------------------------------

ECHO_TEST = """
from hookproof.messages import UserMessage
from hookproof.requests import FinalRequest
from tests.recording.models import EchoModel

def test_echo(hookproof_cassette):
    model = hookproof_cassette.wrap(EchoModel())
    assert model.invoke(FinalRequest(model="m", messages=(UserMessage("hi"),))).text == "echo: hi"
"""


def test_the_fixture_refuses_a_recording_folder_linked_out_of_the_rootdir(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_rec=ECHO_TEST)
    outside = pytester.path.parent / f"{pytester.path.name}-outside"
    outside.mkdir()
    (pytester.path / "recording").mkdir()
    (pytester.path / "recording" / "test_rec").symlink_to(outside)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--hookproof-record-mode=all")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*UnsafePathError: hookproof: *test_echo.json* resolves to*"])
    assert list(outside.iterdir()) == []


def test_the_fixture_refuses_a_fifo_in_the_cassettes_place(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_rec=ECHO_TEST)
    (pytester.path / "recording" / "test_rec").mkdir(parents=True)
    os.mkfifo(pytester.path / "recording" / "test_rec" / "test_echo.json")
    result = _within(60, lambda: pytester.runpytest_inprocess("-p", "no:cacheprovider"))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*CassetteFormatError*is a named pipe (FIFO)*"])
