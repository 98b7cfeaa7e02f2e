"""Hostile harness profile configs: every bad field is refused at load, named by its path.

This module grows with each new config loader: add the input that broke it here.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.errors import InvalidInputError, UsageError
from hookproof.harness import (
    GeneralPurposeSubagentProfile,
    HarnessProfile,
    HarnessProfileConfig,
    create_deep_agent,
)
from hookproof.harness._config import CONFIG_KEYS
from hookproof.models import RecordingModel, ScriptedModel
from tests.helpers import registry_of

# (config data, path of the bad field, words of the fix)
BAD_CONFIGS: list[tuple[Any, str, str]] = [
    ({"excluded_tools": [{"a": 1}]}, "excluded_tools[0]", "must be a string, got dict"),
    ({"excluded_tools": [1, 2.5, None]}, "excluded_tools[1]", "got float 2.5"),
    ({"excluded_tools": [1, 2.5, None]}, "excluded_tools[2]", "got NoneType None"),
    ({"excluded_tools": "execute"}, "excluded_tools", "must be a list of names"),
    ({"excluded_tools": ["a/b"]}, "excluded_tools[0]", "is not a tool or middleware name"),
    ({"excluded_middleware": [["x"]]}, "excluded_middleware[0]", "must be a string"),
    (
        {"general_purpose_subagent": {"model": "x"}},
        "general_purpose_subagent.model",
        "is not a valid key. Valid keys: enabled, description, system_prompt",
    ),
    (
        {"general_purpose_subagent": {"enabeld": False}},
        "general_purpose_subagent.enabeld",
        "Did you mean 'enabled'?",
    ),
    (
        {"general_purpose_subagent": {"enabled": "no"}},
        "general_purpose_subagent.enabled",
        "must be true or false",
    ),
    ({"general_purpose_subagent": {"enabled": 0}}, "general_purpose_subagent.enabled", "got int"),
    ({"general_purpose_subagent": ["enabled"]}, "general_purpose_subagent", "must be an object"),
    ({1: "x"}, "key 1", "keys must be strings"),
    ({"tool_description_overrides": {"ls": 5}}, "tool_description_overrides['ls']", "got int 5"),
    (
        {"tool_description_overrides": {"ls": None}},
        "tool_description_overrides['ls']",
        "must be a string",
    ),
    (
        {"tool_description_overrides": {7: "List."}},
        "tool_description_overrides[7] (a key)",
        "must be a string",
    ),
    ({"tool_description_overrides": ["ls"]}, "tool_description_overrides", "must be an object"),
    ({"base_system_prompt": ["B"]}, "base_system_prompt", "must be a string, got list"),
    ({"extra_middleware": "app.mw:Audit"}, "extra_middleware", "holds code"),
    ({"system_prompt_sufix": "S"}, "system_prompt_sufix", "Did you mean 'system_prompt_suffix'?"),
]


@pytest.mark.parametrize(("data", "path", "fix"), BAD_CONFIGS)
def test_each_bad_field_is_named_by_its_path(data: Any, path: str, fix: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        HarnessProfileConfig.from_dict(data)
    lines = [line for line in str(caught.value).splitlines() if line.startswith("  - ")]
    assert any(line.startswith(f"  - {path}: ") and fix in line for line in lines), lines


def test_every_bad_field_is_listed_in_one_error() -> None:
    data = {
        "excluded_tools": [{"a": 1}],
        "tool_description_overrides": {"ls": 5},
        "general_purpose_subagent": {"enabled": "no", "model": "x"},
    }
    with pytest.raises(InvalidInputError, match="has 4 bad fields") as caught:
        HarnessProfileConfig.from_dict(data)
    message = str(caught.value)
    assert message.startswith("hookproof: HarnessProfileConfig.from_dict has 4 bad fields:")
    assert "pydantic" not in message and "validation error" not in message


class Opaque:
    def __str__(self) -> str:
        return "looks like text"


@pytest.mark.parametrize(
    "value", [print, lambda: "B", Opaque(), b"B", {"B"}, ("B",)], ids=lambda v: type(v).__name__
)
def test_python_objects_and_callables_are_refused_from_data(value: object) -> None:
    for data in (
        {"base_system_prompt": value},
        {"tool_description_overrides": {"ls": value}},
        {"general_purpose_subagent": {"description": value}},
    ):
        with pytest.raises(InvalidInputError, match="must be a string, got"):
            HarnessProfileConfig.from_dict(data)


def test_sets_are_refused_from_data_but_fine_from_python() -> None:
    with pytest.raises(InvalidInputError, match="excluded_tools: must be a list of names"):
        HarnessProfileConfig.from_dict({"excluded_tools": {"execute"}})
    config = HarnessProfileConfig(excluded_tools=frozenset({"execute"}))
    assert HarnessProfileConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config


@pytest.mark.parametrize("data", [[], "excluded_tools", None, 5], ids=repr)
def test_a_config_that_is_not_an_object_is_refused(data: Any) -> None:
    with pytest.raises(InvalidInputError, match="takes a mapping"):
        HarnessProfileConfig.from_dict(data)


def test_python_construction_is_checked_the_same_way() -> None:
    with pytest.raises(InvalidInputError, match=r"excluded_tools\[0\]: must be a string"):
        HarnessProfileConfig(excluded_tools=[{"a": 1}])  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=r"general_purpose_subagent\.enabled"):
        HarnessProfileConfig(general_purpose_subagent={"enabled": "no"})


def test_a_huge_or_deep_bad_value_gives_a_short_message() -> None:
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    many = [{"i": index} for index in range(1000)]
    with pytest.raises(InvalidInputError) as caught:
        HarnessProfileConfig.from_dict({"base_system_prompt": deep, "excluded_tools": many})
    message = str(caught.value)
    assert "1001 bad fields" in message and "... and 981 more" in message
    assert len(message) < 4000


def _task_shown(config: HarnessProfileConfig) -> bool:
    model = RecordingModel(ScriptedModel(["ok"], provider="acme"))
    registry = registry_of(("acme", config.to_profile()))
    create_deep_agent(model, profiles=registry).invoke({"messages": [("user", "hi")]})
    return "task" in model.last.tool_names


def test_json_false_really_disables_the_general_purpose_subagent() -> None:
    off = HarnessProfileConfig.from_dict(
        json.loads('{"general_purpose_subagent": {"enabled": false}}')
    )
    on = HarnessProfileConfig.from_dict(
        json.loads('{"general_purpose_subagent": {"enabled": true}}')
    )
    assert not _task_shown(off)
    assert _task_shown(on)


# -- the Python API: the same checks, and no value is silently read as another -------------


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"excluded_tools": [{"a": 1}]}, r"excluded_tools\[0\]: must be a string, got dict"),
        ({"excluded_tools": ["ok", None]}, r"excluded_tools\[1\]: must be a string"),
        ({"excluded_tools": "execute"}, "excluded_tools: must be a list of names, got str"),
        ({"excluded_middleware": 5}, "excluded_middleware: must be a list of names, got int"),
        ({"tool_description_overrides": {"ls": 5}}, r"tool_description_overrides\['ls'\]"),
        ({"tool_description_overrides": [("ls", "x")]}, "must be an object mapping tool names"),
        ({"base_system_prompt": print}, "base_system_prompt: must be a string"),
    ],
)
def test_harness_profile_fields_are_checked_as_a_whole(fields: dict[str, Any], words: str) -> None:
    with pytest.raises(InvalidInputError, match=r"^hookproof: HarnessProfile has 1 bad field") as e:
        HarnessProfile(**fields)
    assert re.search(words, str(e.value))


def test_harness_profile_takes_any_iterable_of_names() -> None:
    profile = HarnessProfile(excluded_tools=("a", "b"), excluded_middleware=iter(["M"]))
    assert profile.excluded_tools == frozenset({"a", "b"})
    assert profile.excluded_middleware == frozenset({"M"})


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"extra_middleware": "app.mw:Audit"}, "extra_middleware must be a sequence"),
        ({"extra_middleware": 5}, "extra_middleware must be a sequence"),
        ({"general_purpose_subagent": {"enabled": False}}, "GeneralPurposeSubagentProfile or"),
    ],
)
def test_harness_profile_code_fields_are_checked(fields: dict[str, Any], words: str) -> None:
    with pytest.raises(UsageError, match=words):
        HarnessProfile(**fields)


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"enabled": "no"}, "enabled must be True, False or None, got str 'no'"),
        ({"enabled": 0}, "enabled must be True, False or None, got int"),
        ({"description": 5}, "description must be a str or None, got int"),
        ({"system_prompt": ["x"]}, "system_prompt must be a str or None, got list"),
    ],
)
def test_the_general_purpose_profile_is_strict(fields: dict[str, Any], words: str) -> None:
    with pytest.raises(UsageError, match=re.escape(words)):
        GeneralPurposeSubagentProfile(**fields)


# -- a corpus: any data gives a config or an InvalidInputError, nothing else ---------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)
_PYTHON = st.sampled_from([print, object(), b"x", {"a"}, ("a",), frozenset(), 10**50, "x\x00"])
_KEYS = st.sampled_from([*CONFIG_KEYS, "extra_middleware"]) | st.text(max_size=5) | st.integers()


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_KEYS, _JSON | _PYTHON, max_size=4))
def test_any_data_loads_or_is_refused_with_a_hookproof_error(data: dict[Any, Any]) -> None:
    outcome = _load(data)
    if isinstance(outcome, InvalidInputError):
        assert str(outcome).startswith("hookproof: HarnessProfileConfig.from_dict has ")
    else:
        assert HarnessProfileConfig.from_dict(outcome.to_dict()) == outcome


def _load(data: dict[Any, Any]) -> HarnessProfileConfig | InvalidInputError:
    try:
        return HarnessProfileConfig.from_dict(data)
    except InvalidInputError as error:
        return error


def test_huge_keys_are_shortened_in_the_error() -> None:
    with pytest.raises(InvalidInputError) as caught:
        HarnessProfileConfig.from_dict(
            {"x" * 100_000: 1, "tool_description_overrides": {"y" * 100_000: 5}}
        )
    assert len(str(caught.value)) < 1000 and "xxx...xxx" in str(caught.value)


@pytest.mark.parametrize("general", [{}, {"enabled": None}, {"description": None}])
def test_a_general_purpose_entry_that_sets_nothing_is_none(general: dict[str, Any]) -> None:
    config = HarnessProfileConfig.from_dict({"general_purpose_subagent": general})
    assert config.general_purpose_subagent is None
    assert HarnessProfileConfig.from_dict(config.to_dict()) == config
