"""What importing hookproof costs: which modules load, and the runtime's names on first use."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import hookproof.runtime
from hookproof._support.lazy import origins

NEVER_AT_IMPORT = ("langchain", "langchain_core", "hypothesis", "syrupy")
CREATE_AGENT = "from hookproof.runtime import create_agent"
# What any pydantic model class with a field loads: the floor of messages defined at import.
PYDANTIC_MODELS = "import pydantic.main, pydantic.fields"
# FinalRequest's serializer (SerializeAsAny, model_serializer) is the one module beyond it.
BEYOND_PYDANTIC_MODELS = {"pydantic.functional_serializers"}


def _loaded_after(code: str) -> set[str]:
    script = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    output = subprocess.check_output([sys.executable, "-c", script], text=True)
    return set(output.split())


@pytest.mark.parametrize(
    "statement", ["import hookproof", "import hookproof.runtime", "import hookproof.plugin"]
)
def test_import_loads_no_optional_dependency(statement: str) -> None:
    loaded = _loaded_after(statement)
    assert [name for name in NEVER_AT_IMPORT if name in loaded] == []


def test_import_runtime_loads_neither_pydantic_nor_the_engine() -> None:
    loaded = _loaded_after("import hookproof.runtime")
    heavy = {"pydantic", "asyncio", "typing", "hookproof._engine", "hookproof.messages"}
    assert heavy & loaded == set()


def test_first_runtime_name_used_loads_what_it_needs() -> None:
    loaded = _loaded_after("from hookproof.runtime import create_agent")
    assert {"pydantic", "hookproof._engine", "hookproof.runtime._agent"} <= loaded
    assert [name for name in NEVER_AT_IMPORT if name in loaded] == []


def _outside_hookproof_beyond_pydantic_models(code: str) -> set[str]:
    loaded = _loaded_after(code) - _loaded_after(PYDANTIC_MODELS)
    return {name for name in loaded if name.partition(".")[0] != "hookproof"}


def test_create_agent_loads_nothing_outside_hookproof_beyond_what_pydantic_models_load() -> None:
    # Issue #31's import goal, checked by what loads rather than by a clock.
    extra = _outside_hookproof_beyond_pydantic_models(CREATE_AGENT)
    assert extra == BEYOND_PYDANTIC_MODELS


def test_the_module_check_catches_an_import_the_runtime_does_not_need() -> None:
    twin = f"{CREATE_AGENT}\nimport queue"  # what the engine's helper threads once loaded
    extra = _outside_hookproof_beyond_pydantic_models(twin)
    assert "queue" in extra - BEYOND_PYDANTIC_MODELS


def test_create_agent_leaves_the_redaction_module_unloaded() -> None:
    # Reprs redact through hookproof._secrets; hookproof.redaction is for files and reports.
    assert "hookproof.redaction" not in _loaded_after(CREATE_AGENT)


def test_secret_patterns_compile_on_the_first_redaction_and_still_redact() -> None:
    code = (
        f"{CREATE_AGENT}\n"
        "from hookproof._secrets import patterns\n"
        "before = patterns._builtin_rules.cache_info().currsize\n"
        "from hookproof.messages import UserMessage\n"
        "shown = repr(UserMessage(content='key sk-proj-abcdefghij0123456789XYZ'))\n"
        "print(before, patterns._builtin_rules.cache_info().currsize, 'sk-proj' in shown)"
    )
    output = subprocess.check_output([sys.executable, "-c", code], text=True)
    assert output.split() == ["0", "1", "False"]


def test_a_synchronous_run_never_loads_asyncio() -> None:
    code = (
        "from hookproof.models import ScriptedModel\n"
        "from hookproof.runtime import create_agent\n"
        "agent = create_agent(ScriptedModel(['done']))\n"
        "assert agent.invoke({'messages': [('user', 'hi')]}).text == 'done'"
    )
    assert "asyncio" not in _loaded_after(code)


def test_every_exported_runtime_name_is_the_object_of_its_module() -> None:
    table = hookproof.runtime._ORIGINS
    assert sorted(table) == sorted(hookproof.runtime.__all__)
    for name, module in table.items():
        assert getattr(hookproof.runtime, name) is getattr(importlib.import_module(module), name)


def test_runtime_names_are_listed_and_star_importable() -> None:
    assert set(hookproof.runtime.__all__) <= set(dir(hookproof.runtime))
    namespace: dict[str, object] = {}
    exec("from hookproof.runtime import *", namespace)
    assert set(hookproof.runtime.__all__) <= set(namespace)


def test_unknown_runtime_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="create_agnet"):
        hookproof.runtime.create_agnet  # type: ignore[attr-defined]  # noqa: B018


def test_a_name_exported_from_two_modules_is_refused() -> None:
    with pytest.raises(ValueError, match="'Tool' is exported from a and b"):
        origins({"a": ("Tool",), "b": ("Tool",)})
