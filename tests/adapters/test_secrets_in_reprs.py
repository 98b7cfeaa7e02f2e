"""The LangChain test models' reprs show no secret of the model they wrap."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "langchain_openai", reason="install hookproof[langchain,providers] to run these"
)

from langchain_openai import ChatOpenAI

from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel
from tests.secret_corpus import IN_TEXT, SECRETS, leaked


def _leaky_chat_openai() -> ChatOpenAI:
    return ChatOpenAI(
        model="gpt-4o",
        api_key=SECRETS["openai_project"],
        base_url="http://127.0.0.1:9/v1",
        default_headers={
            "Authorization": f"Bearer {SECRETS['bearer']}",
            "api-key": SECRETS["azure_openai"],
        },
        model_kwargs={"user": IN_TEXT["github_classic"]},
    )


def test_the_inner_model_really_shows_secrets_in_its_own_repr() -> None:
    assert leaked(repr(_leaky_chat_openai())) != []


def test_recording_chat_model_repr_and_str_show_no_secret() -> None:
    model = RecordingChatModel(_leaky_chat_openai())
    assert leaked(repr(model)) == []
    assert leaked(str(model)) == []
    assert repr(model).startswith("RecordingChatModel(")


def test_scripted_chat_model_repr_shows_no_secret() -> None:
    model = ScriptedChatModel([IN_TEXT["anthropic"]], model_name="tier")
    assert leaked(repr(model)) == []


def test_an_exhausted_scripted_chat_model_names_no_secret_of_the_request() -> None:
    from langchain_core.messages import HumanMessage

    from hookproof.errors import ScriptExhausted

    with pytest.raises(ScriptExhausted) as caught:
        ScriptedChatModel([]).invoke([HumanMessage("\n".join(IN_TEXT.values()))])
    assert "[REDACTED]" in str(caught.value)
    assert leaked(str(caught.value)) == []
