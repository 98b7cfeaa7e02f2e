"""Cassette with hookproof models: record modes, order, staleness, the file, Eino models."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from hookproof.errors import (
    CassetteFormatError,
    FileAccessError,
    MissingExchangeError,
    RealModelBlocked,
    StaleCassetteError,
    UsageError,
)
from hookproof.guard import block_real_models
from hookproof.messages import UserMessage
from hookproof.recording import FORMAT_VERSION, Cassette, RecordMode, cassette_path
from hookproof.requests import FinalRequest
from hookproof.runtime import create_agent, tool
from hookproof.snapshot import ChangeClass
from tests.recording.models import EchoModel, EinoEchoModel


def _request(text: str, **fields: object) -> FinalRequest:
    return FinalRequest(model="echo-model", messages=(UserMessage(text),), **fields)  # type: ignore[arg-type]


def _record(path: Path, *texts: str, mode: str = "once") -> EchoModel:
    inner = EchoModel()
    with Cassette(path, record_mode=mode) as cassette:
        model = cassette.wrap(inner)
        for text in texts:
            model.invoke(_request(text))
    return inner


def _replay(path: Path, *texts: str, mode: str = "none") -> list[str]:
    model = Cassette(path, record_mode=mode).wrap(EchoModel())
    return [model.invoke(_request(text)).text for text in texts]


def test_once_records_then_none_replays_without_calling_the_model(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    assert _record(path, "a", "b").calls == 2
    inner = EchoModel()
    model = Cassette(path).wrap(inner)
    assert [model.invoke(_request(t)).text for t in ("a", "b")] == ["echo: a", "echo: b"]
    assert inner.calls == 0


def test_a_replayed_answer_equals_the_recorded_one(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    live = EchoModel().invoke(_request("a"))
    _record(path, "a")
    assert Cassette(path).wrap(EchoModel()).invoke(_request("a")) == live


def test_identical_requests_replay_their_answers_in_recorded_order(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    _record(path, "same", "same")
    model = Cassette(path).wrap(EchoModel())
    ids = [model.invoke(_request("same")).id for _ in range(2)]
    assert ids == ["answer-1", "answer-2"]


def test_calls_match_by_request_first_then_order(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    _record(path, "a", "b")
    assert _replay(path, "b", "a") == ["echo: b", "echo: a"]


def test_none_without_a_cassette_names_the_test_the_path_and_how_to_record(
    tmp_path: Path,
) -> None:
    path = tmp_path / "missing.json"
    model = Cassette(path, test="tests/x.py::test_y").wrap(EchoModel())
    with pytest.raises(MissingExchangeError) as caught:
        model.invoke(_request("a"))
    message = str(caught.value)
    assert "model call 1 of tests/x.py::test_y" in message and str(path) in message
    assert "does not exist" in message
    assert "pytest --hookproof-record-mode=once 'tests/x.py::test_y'" in message
    assert not path.exists()


def test_an_extra_call_is_missing_and_says_to_record_new_episodes(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    _record(path, "a")
    with pytest.raises(MissingExchangeError, match="all replayed by earlier calls") as caught:
        _replay(path, "a", "b")
    assert not isinstance(caught.value, StaleCassetteError)
    assert 'record_mode="new_episodes"' in str(caught.value)


def test_once_with_an_existing_cassette_records_nothing_more(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    _record(path, "a")
    with pytest.raises(MissingExchangeError, match="once records nothing more"):
        _replay(path, "a", "b", mode="once")


def test_matchers_mask_volatile_values_before_matching(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    _record(path, "order 123e4567-e89b-12d3-a456-426614174000 at 2026-01-05T09:30:00Z")
    replayed = _replay(path, "order 9b2f8c1e-0d4a-4e5b-8c6d-7e8f9a0b1c2d at 2026-02-01T10:00:00Z")
    assert replayed == ["echo: order 123e4567-e89b-12d3-a456-426614174000 at 2026-01-05T09:30:00Z"]
    assert "order <uuid-0> at <timestamp-0>" in Cassette(path).exchanges[0].request
    with pytest.raises(StaleCassetteError):
        Cassette(path, matchers=()).wrap(EchoModel()).invoke(_request("order 9b2f at noon"))


def test_a_changed_prompt_fails_with_the_semantic_diff(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    _record(path, "What is the capital of France?")
    with pytest.raises(StaleCassetteError) as caught:
        _replay(path, "What is the capital of Spain?")
    error = caught.value
    assert error.diff.kinds == {ChangeClass.REVIEW}
    message = str(error)
    assert "the request changed since it was recorded (REVIEW)" in message
    assert "REVIEW   messages" in message
    assert "-  | What is the capital of France?" in message
    assert "+  | What is the capital of Spain?" in message
    assert "--hookproof-record-mode=all" not in message  # no test named: the library's way
    assert 'record_mode="all"' in message


def test_a_new_tool_is_a_security_change(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    with Cassette(path, record_mode="once") as cassette:
        cassette.wrap(EchoModel()).invoke(_request("a"))

    @tool
    def delete_everything(q: str) -> str:
        """Delete every file."""
        return q

    schema = delete_everything.schema
    with pytest.raises(StaleCassetteError) as caught:
        Cassette(path).wrap(EchoModel()).invoke(_request("a", tools=(schema,)))
    assert ChangeClass.SECURITY in caught.value.diff.kinds
    assert "SECURITY tool delete_everything: now visible to the model" in str(caught.value)


def test_new_episodes_keeps_the_recorded_and_adds_the_new(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    _record(path, "a")
    inner = _record(path, "a", "b", mode="new_episodes")
    assert inner.calls == 1  # only "b" reached the model
    assert _replay(path, "a", "b") == ["echo: a", "echo: b"]


def test_all_records_every_call_again_and_drops_the_old(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    _record(path, "a", "old")
    inner = _record(path, "a", mode="all")
    assert inner.calls == 1
    assert [item.request.count("| a") for item in Cassette(path).exchanges] == [1]


def test_nothing_recorded_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    _record(path, "a")
    before = path.stat().st_mtime_ns
    with Cassette(path, record_mode="new_episodes") as cassette:
        cassette.wrap(EchoModel()).invoke(_request("a"))
        assert cassette.all_played
    assert path.stat().st_mtime_ns == before


def test_an_error_in_the_block_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    cassette = Cassette(path, record_mode="once")
    cassette.wrap(EchoModel()).invoke(_request("a"))
    with pytest.raises(ZeroDivisionError), cassette:
        raise ZeroDivisionError
    assert not path.exists()


def test_a_failed_write_leaves_the_old_cassette_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.json"
    _record(path, "a")
    before = path.read_bytes()

    def fail(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("hookproof._support.safe_files.os.replace", fail)
    with pytest.raises(FileAccessError, match="disk full"):
        _record(path, "b", mode="all")
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]  # no temporary file left


def test_the_file_is_versioned_readable_and_the_same_every_run(tmp_path: Path) -> None:
    first, second = tmp_path / "1.json", tmp_path / "2.json"
    _record(first, "a")
    _record(second, "a")
    text = first.read_text()
    assert text == second.read_text()
    document = json.loads(text)
    assert (document["format"], document["version"]) == ("hookproof cassette", FORMAT_VERSION)
    (exchange,) = document["exchanges"]
    assert exchange["request"][0] == "hookproof final request, format 1"
    assert "  | a" in exchange["request"]
    assert exchange["kind"] == "hookproof"
    assert exchange["answer"]["message"]["text"] == "echo: a"
    assert exchange["answer"]["message"]["response_metadata"] == {
        "usage": {"input_tokens": 1, "output_tokens": 2}
    }


def test_a_cassette_of_another_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    _record(path, "a")
    document = json.loads(path.read_text())
    path.write_text(json.dumps({**document, "version": FORMAT_VERSION + 1}))
    with pytest.raises(CassetteFormatError, match="written in format 2, this hookproof reads 1"):
        Cassette(path)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "it is not JSON"),
        ("[]", '"format": "hookproof cassette"'),
        ('{"format": "hookproof cassette", "version": 1, "exchanges": {}}', "is not a list"),
    ],
)
def test_an_unreadable_cassette_is_a_format_error(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(text)
    with pytest.raises(CassetteFormatError, match="cannot be read") as caught:
        Cassette(path)
    assert problem in str(caught.value)


def test_a_request_edited_after_recording_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    _record(path, "a")
    path.write_text(path.read_text().replace('"  | a"', '"  | b"'))
    with pytest.raises(CassetteFormatError, match="changed after it was recorded"):
        Cassette(path)


def test_an_unknown_record_mode_lists_the_valid_ones(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"Did you mean 'once'.*none, once, new_episodes, all"):
        Cassette(tmp_path / "c.json", record_mode="onse")
    assert RecordMode.parse("all") is RecordMode.ALL


def test_recording_passes_the_real_model_guard_only_through_the_cassette(tmp_path: Path) -> None:
    # EchoModel is not declared offline; the refusal is provoked in a block of our own.
    with block_real_models(), pytest.raises(RealModelBlocked):
        create_agent(EchoModel()).invoke({"messages": [("user", "hi")]})
    with block_real_models() as refusals, Cassette(tmp_path / "c.json", record_mode="once") as c:
        agent = create_agent(c.wrap(EchoModel()))
        assert agent.invoke({"messages": [("user", "hi")]}).text == "echo: hi"
    assert refusals == []


def test_an_agent_with_tools_records_and_replays_every_turn(tmp_path: Path) -> None:
    @tool
    def lookup(q: str) -> str:
        """Look something up."""
        return f"found {q}"

    path = tmp_path / "c.json"
    for mode in ("once", "none"):
        inner = EchoModel()
        with Cassette(path, record_mode=mode) as cassette:
            agent = create_agent(cassette.wrap(inner), tools=[lookup])
            result = agent.invoke({"messages": [("user", "hi")]})
        assert result.text == "echo: found x"
        assert inner.calls == (2 if mode == "once" else 0)


def test_ainvoke_records_and_replays(tmp_path: Path) -> None:
    path = tmp_path / "c.json"

    async def run(mode: str) -> str:
        with Cassette(path, record_mode=mode) as cassette:
            agent = create_agent(cassette.wrap(EchoModel()))
            return (await agent.ainvoke({"messages": [("user", "hi")]})).text

    assert asyncio.run(run("once")) == asyncio.run(run("none")) == "echo: hi"


@pytest.mark.parametrize("streaming", [False, True])
def test_an_eino_style_model_records_and_replays(tmp_path: Path, streaming: bool) -> None:
    from hookproof.eino import ChatModelAgent

    path = tmp_path / "c.json"
    for mode in ("once", "none"):
        inner = EinoEchoModel()
        with Cassette(path, record_mode=mode) as cassette:
            agent = ChatModelAgent(model=cassette.wrap(inner), instruction="Be brief.")
            run = agent.run([("user", "hi there")], enable_streaming=streaming)
        assert run.text == "echo: hi there"
        assert inner.calls == (1 if mode == "once" else 0)
        if streaming:
            chunks = run.events[0].chunks
            assert [chunk.text for chunk in chunks] == ["echo:", " hi", " there"]
    exchange = Cassette(path).exchanges[0]
    assert ("chunks" in exchange.answer) is streaming
    assert "  | Be brief." in exchange.request


def test_an_eino_stream_recording_answers_a_generate_call_joined(tmp_path: Path) -> None:
    from hookproof.eino import ChatModelAgent

    path = tmp_path / "c.json"
    with Cassette(path, record_mode="once") as cassette:
        ChatModelAgent(model=cassette.wrap(EinoEchoModel())).run(
            [("user", "hi")], enable_streaming=True
        )
    agent = ChatModelAgent(model=Cassette(path).wrap(EinoEchoModel()))
    assert agent.run([("user", "hi")]).text == "echo: hi"


def test_a_cassette_refuses_what_is_not_a_model(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="wraps a model, got int"):
        Cassette(tmp_path / "c.json").wrap(3)


def test_an_answer_of_another_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    _record(path, "a")
    inner = EinoEchoModel()
    inner.name = "echo-model"
    model = Cassette(path).wrap(inner)
    with pytest.raises(CassetteFormatError, match="answered by a hookproof model"):
        model.generate(None, [UserMessage("a")])


def test_the_cassette_path_follows_the_node_id(tmp_path: Path) -> None:
    path = cassette_path(tmp_path, "recording", "tests/a/test_x.py::TestK::test_y[p/1]")
    assert path == tmp_path.resolve() / "recording/tests/a/test_x/TestK.test_y[p_1].json"
    long = cassette_path(tmp_path, "recording", "t.py::test_" + "x" * 300)
    assert len(long.name) <= 125 and long.name.endswith(".json")
    with pytest.raises(UsageError, match="outside the rootdir"):
        cassette_path(tmp_path, "../elsewhere", "t.py::test_x")
    outside = cassette_path(tmp_path, "recording", "../other/t.py::test_x")
    assert outside == tmp_path.resolve() / "recording/__/other/t/test_x.json"
