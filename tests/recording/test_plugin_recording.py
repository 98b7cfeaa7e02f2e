"""The pytest side: hookproof_cassette, record_mode (marker and command line), the ini
recording directory, saving only passed tests, and the guard while a cassette records."""

from __future__ import annotations

import json

import pytest

from tests.recording.openai_server import openai_server

ECHO_TEST = """
import pytest
from hookproof.messages import UserMessage
from hookproof.requests import FinalRequest
from tests.recording.models import EchoModel

{marker}
def test_echo(hookproof_cassette):
    model = hookproof_cassette.wrap(EchoModel())
    answer = model.invoke(FinalRequest(model="m", messages=(UserMessage("{prompt}"),)))
    assert answer.text == "echo: {prompt}"
    {extra}
"""


def _echo_test(
    pytester: pytest.Pytester, prompt: str = "hi", marker: str = "", extra: str = ""
) -> None:
    pytester.makepyfile(test_rec=ECHO_TEST.format(prompt=prompt, marker=marker, extra=extra))


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", *args)


def _cassette(pytester: pytest.Pytester, directory: str = "recording") -> dict:
    return json.loads((pytester.path / directory / "test_rec" / "test_echo.json").read_text())


CHAT_TEST = """
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI

def test_capital(hookproof_cassette):
    chat = ChatOpenAI(model="gpt-4o-mini", base_url="{base_url}", api_key="sk-fake-{digits}",
                      max_retries=0)
    model = hookproof_cassette.wrap(chat)
    answer = model.invoke([SystemMessage("{system}"), HumanMessage("Capital of France?")])
    assert answer.content == "echo: Capital of France?"
"""


def test_recorded_once_through_the_fixture_replays_with_the_server_gone(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("langchain_openai", reason="install hookproof[providers] to run this")
    fields = {"digits": "0123456789" * 3, "system": "Be terse."}
    with openai_server() as provider:
        pytester.makepyfile(test_chat=CHAT_TEST.format(base_url=provider.base_url, **fields))
        _run(pytester, "--hookproof-record-mode=once").assert_outcomes(passed=1)
        _run(pytester).assert_outcomes(passed=1)  # replayed: the server is never asked
    assert len(provider.bodies) == 1
    cassette = pytester.path / "recording" / "test_chat" / "test_capital.json"
    assert json.loads(cassette.read_text())["test"] == "test_chat.py::test_capital"
    _run(pytester).assert_outcomes(passed=1)  # replayed: the server is gone
    pytester.makepyfile(
        test_chat=CHAT_TEST.format(base_url=provider.base_url, **{**fields, "system": "Be wordy."})
    )
    result = _run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*StaleCassetteError: hookproof: model call 1 of test_chat.py::test_capital does not "
            "match*(REVIEW)*",
            "*REVIEW   system prompt*",
            "*-  | Be terse.",
            "*+  | Be wordy.",
        ]
    )


def test_replay_without_a_cassette_names_the_test_the_path_and_how_to_record(
    pytester: pytest.Pytester,
) -> None:
    _echo_test(pytester)
    result = _run(pytester)
    result.assert_outcomes(failed=1)
    path = pytester.path / "recording" / "test_rec" / "test_echo.json"
    output = result.stdout.str()
    assert "MissingExchangeError: hookproof: model call 1 of test_rec.py::test_echo" in output
    assert f"the cassette {path} does not exist" in " ".join(output.split())
    assert "--hookproof-record-mode=once 'test_rec.py::test_echo'" in output
    assert not path.exists()


def test_the_marker_records_and_the_command_line_wins_over_it(pytester: pytest.Pytester) -> None:
    _echo_test(pytester, marker='@pytest.mark.hookproof(record_mode="once")')
    _run(pytester).assert_outcomes(passed=1)
    assert len(_cassette(pytester)["exchanges"]) == 1
    _echo_test(pytester, prompt="changed", marker='@pytest.mark.hookproof(record_mode="once")')
    result = _run(pytester)  # once, and the cassette exists: replay only
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*StaleCassetteError*"])
    _run(pytester, "--hookproof-record-mode=all").assert_outcomes(passed=1)
    (exchange,) = _cassette(pytester)["exchanges"]
    assert "  | changed" in exchange["request"]


def test_new_episodes_adds_to_the_cassette(pytester: pytest.Pytester) -> None:
    _echo_test(pytester)
    _run(pytester, "--hookproof-record-mode=once").assert_outcomes(passed=1)
    extra = 'model.invoke(FinalRequest(model="m", messages=(UserMessage("more"),)))'
    _echo_test(pytester, extra=extra)
    _run(pytester, "--hookproof-record-mode=new_episodes").assert_outcomes(passed=1)
    assert len(_cassette(pytester)["exchanges"]) == 2
    _run(pytester).assert_outcomes(passed=1)


def test_the_ini_sets_the_recording_directory(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nhookproof_recording_dir = cassettes\n")
    _echo_test(pytester)
    _run(pytester, "--hookproof-record-mode=once").assert_outcomes(passed=1)
    assert _cassette(pytester, "cassettes")["version"] == 1
    assert not (pytester.path / "recording").exists()


def test_a_failed_test_writes_no_cassette(pytester: pytest.Pytester) -> None:
    _echo_test(pytester, extra="assert False, 'the test failed after the call'")
    _run(pytester, "--hookproof-record-mode=once").assert_outcomes(failed=1)
    assert not (pytester.path / "recording").exists()


def test_an_unknown_record_mode_in_the_marker_errors_the_test(pytester: pytest.Pytester) -> None:
    _echo_test(pytester, marker='@pytest.mark.hookproof(record_mode="onse")')
    result = _run(pytester)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*record_mode, which is 'onse', not a record mode. Did you*"])


GUARD_TEST = """
import socket
import pytest
from hookproof.guard._socket import check_address
from hookproof.runtime import create_agent
from tests.recording.models import EchoModel

REMOTE = ("203.0.113.7", 443)  # TEST-NET-3: checked, never connected to

@pytest.mark.hookproof(record_mode="all")
def test_recording(hookproof_cassette):
    check_address(socket.AF_INET, REMOTE)

@pytest.mark.hookproof(record_mode="all")
def test_recording_a_model_outside_the_cassette(hookproof_cassette):
    create_agent(EchoModel()).invoke({"messages": [("user", "hi")]})

def test_replaying(hookproof_cassette):
    check_address(socket.AF_INET, REMOTE)

@pytest.mark.hookproof(record_mode="all")
def test_recording_mode_without_a_cassette():
    check_address(socket.AF_INET, REMOTE)
"""


def test_only_a_recording_cassette_opens_the_sockets_of_its_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # summary lines long enough to name the errors
    pytester.makepyfile(test_guarded=GUARD_TEST)
    result = _run(pytester, "-rA")
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines_random(
        [
            "PASSED test_guarded.py::test_recording",
            "FAILED test_guarded.py::test_recording_a_model_outside_the_cassette - *RealModel*",
            "FAILED test_guarded.py::test_replaying - *ConnectionBlocked*",
            "FAILED test_guarded.py::test_recording_mode_without_a_cassette - *ConnectionBl*",
        ]
    )
