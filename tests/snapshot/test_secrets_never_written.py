"""Secrets never written: a corpus key placed anywhere in a request reaches no snapshot file,
no repr, no snapshot diff and no gate report, in any format."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from hookproof.cli import _parser, main
from hookproof.errors import UsageError
from hookproof.messages import AssistantMessage, SystemMessage, ToolCall, ToolMessage, UserMessage
from hookproof.models import FinalRequest, RecordingModel, ScriptedModel
from hookproof.redaction import REDACTED
from hookproof.snapshot import diff, render, view
from hookproof.tools import ToolSchema
from tests.secret_corpus import IN_TEXT, SECRETS, leaked

_S = SECRETS


def _leaky_request(prompt: str = "You are careful.") -> FinalRequest:
    """A request with a corpus secret in every place a user's code can put one."""
    every_format = "\n".join(IN_TEXT.values())
    return FinalRequest(
        model="gpt-4o",
        system_message=SystemMessage(content=f"{prompt}\n{IN_TEXT['anthropic']}"),
        messages=(
            UserMessage(
                content=every_format,
                additional_kwargs={"x-api-key": _S["google"], "note": IN_TEXT["github_classic"]},
            ),
            AssistantMessage(
                content="",
                tool_calls=[
                    ToolCall(
                        name="login", args={"password": _S["password"], "q": _S["jwt"]}, id="c1"
                    )
                ],
                response_metadata={
                    "headers": {"set-cookie": _S["cookie"], "authorization": "opaque"},
                    "model_name": "gpt-4o",
                },
            ),
            ToolMessage(content=f"logged in with {_S['hugging_face']}", tool_call_id="c1"),
        ),
        tools=(
            ToolSchema(
                name="login",
                description=f"Log in. Uses {IN_TEXT['slack_bot']} and\n{IN_TEXT['private_key']}",
                parameters={
                    "type": "object",
                    "properties": {
                        "password": {"type": "string", "default": _S["stripe_secret"]},
                        "q": {"type": "string"},
                    },
                },
            ),
        ),
        model_settings={
            "api_key": _S["openai_project"],
            "temperature": 0.2,
            "default_headers": {
                "Authorization": f"Bearer {_S['bearer']}",
                "api-key": _S["azure_openai"],
            },
            "base_url": f"https://proxy:{_S['url_password']}@llm.example/v1",
        },
    )


_EVERY_FORMAT = "\n".join(IN_TEXT.values())
_FIELDS = {"api_key": _S["openai_legacy"], "Authorization": "opaque-value", "note": _EVERY_FORMAT}


def _message(**fields: Any) -> UserMessage:
    return UserMessage(content=fields.pop("content", "hi"), **fields)


PLACES: dict[str, dict[str, Any]] = {
    "model_settings": {"model_settings": _FIELDS},
    "additional_kwargs": {"messages": (_message(additional_kwargs=_FIELDS),)},
    "response_metadata": {"messages": (_message(response_metadata=_FIELDS),)},
    "message_text": {"messages": (_message(content=_EVERY_FORMAT),)},
    "system_prompt": {"system_message": SystemMessage(content=_EVERY_FORMAT)},
    "tool_description": {
        "tools": (ToolSchema(name="t", description=_EVERY_FORMAT, parameters={}),)
    },
    "tool_call_arguments": {
        "messages": (
            AssistantMessage(content="", tool_calls=[ToolCall(name="t", args=_FIELDS, id="c")]),
        )
    },
}


@pytest.mark.parametrize("place", sorted(PLACES))
def test_each_place_a_secret_can_sit_is_redacted(place: str) -> None:
    request = FinalRequest(model="m", **PLACES[place])
    assert leaked(repr(request.model_dump())) != []  # the secrets are really there
    assert leaked(render(request)) == []
    assert leaked(repr(request)) == []
    assert leaked(str(request)) == []


def test_the_request_really_holds_every_corpus_secret() -> None:
    dumped = repr(_leaky_request().model_dump())
    assert sorted(leaked(dumped)) == sorted(SECRETS)


def test_render_shows_no_secret() -> None:
    assert leaked(render(_leaky_request())) == []


def test_render_keeps_what_is_not_a_secret() -> None:
    text = render(_leaky_request())
    assert '"api_key": "[REDACTED]"' in text
    assert '"Authorization": "[REDACTED]"' in text
    assert '"temperature": 0.2' in text
    assert '"password": {\n' in text.replace("|   ", "")  # a schema property is no secret
    assert f'call login <call-0> {{"password": "{REDACTED}"' in text
    assert '"model_name": "gpt-4o"' in text


def test_a_key_in_settings_or_metadata_leaves_the_semantic_diff_alone() -> None:
    first, rotated = _leaky_request(), _leaky_request()
    rotated = rotated.override(
        model_settings={**rotated.model_settings, "api_key": "sk-" + "9" * 40}
    )
    assert render(first) == render(rotated)
    assert diff(view(first), view(rotated)).changes == ()


def test_repr_and_str_of_a_final_request_show_no_secret() -> None:
    request = _leaky_request()
    assert leaked(repr(request)) == []
    assert leaked(str(request)) == []
    assert repr(request).startswith("FinalRequest(model='gpt-4o'")


def test_equality_and_model_dump_keep_the_real_values() -> None:
    request = _leaky_request()
    assert request == _leaky_request()
    assert request.model_dump()["model_settings"]["api_key"] == _S["openai_project"]


def test_recording_model_repr_shows_no_secret() -> None:
    model = RecordingModel(ScriptedModel(["done"]), name=f"proxy {IN_TEXT['groq']}")
    model.invoke(_leaky_request())
    assert leaked(repr(model)) == []
    assert leaked(repr(model.last)) == []


def test_recording_model_usage_error_shows_no_secret() -> None:
    with pytest.raises(UsageError, match="wraps a model with invoke") as caught:
        RecordingModel({"api_key": _S["openai_legacy"], "note": IN_TEXT["groq"]})
    assert leaked(str(caught.value)) == []


def _raw_snapshot(request: FinalRequest) -> str:
    """A snapshot file with the secrets written verbatim, as a hookproof before redaction (or
    a hand edit) would have left it: the gate must not repeat them."""
    markers = {f"RAWSECRET{index}X": text for index, text in enumerate(IN_TEXT.values())}
    marked = FinalRequest(
        model=request.model,
        system_message=SystemMessage(content=" ".join(markers)),
        model_settings={"api_key": "RAWSECRET0X", "extra": list(markers)},
        tools=(ToolSchema(name="login", description=" ".join(markers), parameters={}),),
    )
    text = render(marked)
    for marker, raw in markers.items():
        # One line each, and no double quote, so the file still parses as a snapshot.
        text = text.replace(marker, raw.replace("\n", " ").replace('"', "'"))
    return text


def _gate_dirs(tmp_path: Path) -> tuple[Path, Path]:
    baseline, candidate = tmp_path / "pinned", tmp_path / "latest"
    (baseline / "suite").mkdir(parents=True)
    (candidate / "suite").mkdir(parents=True)
    (baseline / "suite" / "a.txt").write_text(_raw_snapshot(_leaky_request()), encoding="utf-8")
    changed = render(_leaky_request(prompt="You are careless."))
    (candidate / "suite" / "a.txt").write_text(changed, encoding="utf-8")
    return baseline, candidate


def _gate_formats() -> tuple[str, ...]:
    commands = next(
        action for action in _parser()._actions if isinstance(action, argparse._SubParsersAction)
    )
    gate = commands.choices["gate"]
    choices: Any = next(action.choices for action in gate._actions if action.dest == "format")
    return tuple(choices)


def test_the_gate_has_the_known_formats() -> None:
    assert {"text", "markdown", "json"} <= set(_gate_formats())


@pytest.mark.parametrize("fmt", _gate_formats())
def test_no_gate_format_repeats_a_secret_from_a_snapshot_file(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline, candidate = _gate_dirs(tmp_path)
    assert leaked((baseline / "suite" / "a.txt").read_text(encoding="utf-8"))  # raw on disk
    main(["gate", str(baseline), str(candidate), "--format", fmt, "--fail-on", "none"])
    out = capsys.readouterr().out
    assert "careless" in out  # the report did show the changed sections
    assert leaked(out) == []


PLUGIN_TEST = """
from tests.snapshot.test_secrets_never_written import _leaky_request

def test_request(hookproof_snapshot):
    assert _leaky_request(prompt=PROMPT) == hookproof_snapshot
"""


def _files_written(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): path.read_text(encoding="utf-8", errors="replace")
        for path in root.rglob("*")
        if path.is_file() and path.suffix != ".py" and "__pycache__" not in path.parts
    }


def test_the_snapshot_plugin_writes_and_reports_no_secret(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app=f"PROMPT = 'You are careful.'\n{PLUGIN_TEST}")
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    files = _files_written(pytester.path)
    assert "snapshots/test_app/test_request.txt" in files
    assert {name: leaked(text) for name, text in files.items() if leaked(text)} == {}
    pytester.makepyfile(test_app=f"PROMPT = 'You are careless.'\n{PLUGIN_TEST}")
    result = pytester.runpytest_inprocess("-vv")
    result.assert_outcomes(failed=1)
    output = "\n".join(result.outlines + result.errlines)
    assert "careless" in output  # the failure did show the changed prompt
    assert leaked(output) == []


LEGACY_TEST = """
from hookproof.messages import SystemMessage
from hookproof.models import FinalRequest

def test_request(hookproof_snapshot):
    prompt = "Cache: redis://cache/0\\nBe PROMPT."
    request = FinalRequest(model="m", system_message=SystemMessage(content=prompt))
    assert request == hookproof_snapshot
"""


def test_a_failure_shows_no_secret_of_a_snapshot_written_before_it_was_redacted(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_app=LEGACY_TEST.replace("PROMPT", "brief"))
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    reviewed = pytester.path / "snapshots" / "test_app" / "test_request.txt"
    legacy = f"redis://:{_S['url_password_no_user']}@cache/0"  # as an older hookproof wrote it
    reviewed.write_text(reviewed.read_text().replace("redis://cache/0", legacy))
    pytester.makepyfile(test_app=LEGACY_TEST.replace("PROMPT", "kind"))
    result = pytester.runpytest_inprocess("-vv", "--hookproof-pending")
    result.assert_outcomes(failed=1)
    output = "\n".join(result.outlines + result.errlines)
    assert "kind" in output
    assert leaked(output) == []
