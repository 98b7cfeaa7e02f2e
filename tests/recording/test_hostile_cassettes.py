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
from hookproof.vocabulary import FinalRequest
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


def _no_object(document: dict[str, Any]) -> None:
    document["exchanges"][0]["answer"] = {"message": ["hi"]}


MISSHAPEN = {
    '{"msg": ...}': (_keyed, "KeyError: 'message'"),
    "text: 5": (_number_text, "ValidationError: 1 validation error for AssistantMessage"),
    "a list for a message": (_no_object, "ValidationError: 1 validation error"),
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
from hookproof.vocabulary import FinalRequest
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
