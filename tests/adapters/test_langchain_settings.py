"""Which of a LangChain chat model's invocation parameters a FinalRequest shows as settings:
the rule, parameter by parameter, on a chat model that reports them all."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core", reason="install hookproof[langchain] to run this")

from pydantic import SecretStr

from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel
from hookproof.snapshot import render

SECRET = "sk-proj-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv"
TEAM_SECRET = "team-" + "Pl41nL00k1ngV4lu3"


class HttpClient:
    """Stands for a client object a model keeps among its parameters."""

    def __repr__(self) -> str:
        return f"HttpClient(at {id(self):#x}, key={SECRET})"


# Parameter -> what settings show for it (absent: not shown).
REPORTED: dict[str, Any] = {
    "temperature": 0.3,
    "max_tokens": 256,
    "max_completion_tokens": 128,
    "eos_token": "</s>",  # a token, not a credential
    "prompt_cache_key": "team-a",  # a key, not a credential
    "reasoning": {"effort": "low"},
    "response_modalities": ("text",),
    "http_client": HttpClient(),
    "model_kwargs": {"user": "u-1", "api_key": SECRET},
    # Never shown:
    "api_key": SecretStr(SECRET),
    "openai_api_key": SECRET,
    "access_token": TEAM_SECRET,
    "client_secret": TEAM_SECRET,
    "default_headers": {"X-Team": TEAM_SECRET},
    "extra-headers": {"X-Team": TEAM_SECRET},
    "password": TEAM_SECRET,
    "license": SecretStr(TEAM_SECRET),
    "stream": True,
    "streaming": True,
    "max_retries": 3,
    "timeout": 10,
    "top_k": None,
    "model": "scripted",  # the request's model already
    "model_name": "scripted",
}
SHOWN = {
    "temperature": 0.3,
    "max_tokens": 256,
    "max_completion_tokens": 128,
    "eos_token": "</s>",
    "prompt_cache_key": "team-a",
    "reasoning": {"effort": "low"},
    "response_modalities": ["text"],
    "http_client": "<tests.adapters.test_langchain_settings.HttpClient>",
    "user": "u-1",
}


class ReportingModel(ScriptedChatModel):
    """A scripted chat model reporting every kind of parameter as its own."""

    reported: dict[str, Any]

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return dict(self.reported)


def _recorded(reported: dict[str, Any], **bound: Any) -> Any:
    model = RecordingChatModel(ReportingModel(["ok"], reported=reported))
    (model.bind(**bound) if bound else model).invoke("hi")
    return model.last


def test_settings_are_the_parameters_the_model_receives_and_no_secret() -> None:
    request = _recorded(REPORTED)
    assert dict(request.model_settings) == SHOWN
    shown = render(request) + repr(request)
    assert SECRET not in shown and TEAM_SECRET not in shown


def test_bound_arguments_win_and_keep_to_the_same_rule() -> None:
    bound = {"temperature": 1.7, "extra_headers": {"X-Team": TEAM_SECRET}, "stop": ["END"]}
    request = _recorded({"temperature": 0.0, "seed": 3}, **bound)
    assert dict(request.model_settings) == {"temperature": 1.7, "seed": 3, "stop": ["END"]}


def test_a_model_name_other_than_the_requests_is_a_setting() -> None:
    request = _recorded({"model": "deployment-7", "model_name": "scripted"})
    assert request.model == "scripted"
    assert dict(request.model_settings) == {"model": "deployment-7"}


def test_a_secret_pasted_into_a_settings_value_is_redacted() -> None:
    request = _recorded({"metadata": {"note": f"key {SECRET}"}})
    assert SECRET not in str(dict(request.model_settings))
    assert "[REDACTED]" in render(request)


def test_a_model_without_parameters_records_only_what_is_bound() -> None:
    model = RecordingChatModel(ScriptedChatModel(["ok"]))
    model.bind(temperature=0).invoke("hi")
    assert dict(model.last.model_settings) == {"temperature": 0}


class StopMethodModel(ReportingModel):
    """A model whose ``stop`` is a method, not stop words."""

    def stop(self) -> None:
        """Stands for a method a model may have under that name."""


def test_odd_parameters_are_shown_as_they_are_and_never_crash_recording() -> None:
    model = RecordingChatModel(StopMethodModel(["ok"], reported={"model_kwargs": "odd"}))
    model.invoke("hi")
    assert dict(model.last.model_settings) == {"model_kwargs": "odd"}


class PayloadModel(ReportingModel):
    """A model that builds its provider request itself, as ChatOpenAI and ChatAnthropic do."""

    payload: dict[str, Any]

    def _get_request_payload(self, input_: Any, *, stop: Any = None, **kwargs: Any) -> Any:
        if self.payload.get("fail"):
            raise RuntimeError("cannot build the request")
        return {**self.payload, **kwargs, "messages": [{"role": "user", "content": "hi"}]}


def test_the_request_payload_adds_what_the_callbacks_do_not_see() -> None:
    payload = {
        "betas": ["b-1"],
        "temperature": 0.9,  # the invocation parameters win: nothing recorded today changes
        "system": "You are terse.",
        "tools": [{"name": "shout"}],
        "tool_choice": {"type": "auto"},
        "stop_sequences": ["END"],
        "extra_body": {"top_k": 3, "temperature": 0.1},
        "mcp_servers": [{"url": "https://mcp.example", "authorization_token": TEAM_SECRET}],
        "x_service_token": TEAM_SECRET,
    }
    model = RecordingChatModel(PayloadModel(["ok"], reported={"temperature": 0.3}, payload=payload))
    model.bind(container="c-1").invoke("hi")
    assert dict(model.last.model_settings) == {
        "temperature": 0.3,
        "betas": ["b-1"],
        "top_k": 3,
        "mcp_servers": [{"url": "https://mcp.example"}],
        "container": "c-1",
    }
    assert TEAM_SECRET not in render(model.last) + repr(model.last)


def test_a_request_payload_that_fails_falls_back_to_the_invocation_parameters() -> None:
    model = PayloadModel(["ok"], reported={"temperature": 0.3}, payload={"fail": True})
    recorder = RecordingChatModel(model)
    recorder.invoke("hi")
    assert dict(recorder.last.model_settings) == {"temperature": 0.3}
