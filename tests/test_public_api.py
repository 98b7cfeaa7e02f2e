"""The names users import, and what importing them costs."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

PUBLIC = {
    "hookproof": ["HookproofError"],
    "hookproof.errors": [
        "HookproofError",
        "ToolError",
        "ScriptExhausted",
        "UsageError",
        "RealModelBlocked",
        "ConnectionBlocked",
    ],
    "hookproof.runtime": [
        "create_agent",
        "AgentMiddleware",
        "ModelRequest",
        "ModelResponse",
        "ToolCallRequest",
        "Runtime",
        "ToolRuntime",
        "Command",
        "tool",
        "before_agent",
        "before_model",
        "after_model",
        "after_agent",
        "wrap_model_call",
        "wrap_tool_call",
        "dynamic_prompt",
    ],
    "hookproof.models": [
        "ScriptedModel",
        "RecordingModel",
        "FinalRequest",
        "ScriptExhausted",
        "call",
    ],
    "hookproof.trace": ["Trace", "TraceEvent"],
    "hookproof.templates": [
        "AgenticMessage",
        "FormatType",
        "from_agentic_messages",
        "system_agentic_message",
        "user_agentic_message",
        "agentic_messages_placeholder",
        "new_content_block",
    ],
    "hookproof.snapshot": ["render", "content_hash", "diff"],
    "hookproof.harness": [
        "create_deep_agent",
        "HarnessProfile",
        "HarnessProfileConfig",
        "GeneralPurposeSubagentProfile",
        "ProviderProfile",
        "register_harness_profile",
        "register_provider_profile",
    ],
    "hookproof.contracts": ["ContractViolation", "check_fail_closed", "check_isolation"],
    "hookproof.eino": [
        "ChatModelAgent",
        "ChatModelAgentMiddleware",
        "BaseChatModelAgentMiddleware",
        "set_run_local_value",
        "get_run_local_value",
        "delete_run_local_value",
        "send_event",
        "register_name",
        "ModelRetryConfig",
        "ModelFailoverConfig",
        "AgentMiddleware",
    ],
}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_public_names_are_exported(module: str) -> None:
    loaded = importlib.import_module(module)
    assert set(PUBLIC[module]) <= set(loaded.__all__)
    for name in loaded.__all__:
        assert getattr(loaded, name) is not None


def test_one_base_exception_and_builtin_usage_errors() -> None:
    import hookproof
    from hookproof import errors

    assert hookproof.HookproofError is errors.HookproofError
    assert issubclass(errors.UsageError, TypeError)
    assert issubclass(errors.InvalidInputError, ValueError)
    for name in errors.__all__:
        assert issubclass(getattr(errors, name), errors.HookproofError)


HEAVY = ["langchain", "langchain_core", "langgraph", "hypothesis", "syrupy", "jinja2"]


@pytest.mark.parametrize(
    "statement",
    [
        "import hookproof",
        "import hookproof.pytest_plugin",
        "import hookproof.runtime",
        "import hookproof.templates",
        "import hookproof.harness",
        "import hookproof.eino",
        "import hookproof.eino.toolsearch",
        "from hookproof._guard import block_real_models\nwith block_real_models(): pass",
    ],
)
def test_import_loads_no_heavy_dependency(statement: str) -> None:
    code = f"{statement}; import sys, json; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(subprocess.check_output([sys.executable, "-c", code], text=True))
    assert [name for name in HEAVY if name in loaded] == []


def test_import_hookproof_does_not_load_pydantic() -> None:
    code = "import hookproof, sys; print('pydantic' in sys.modules)"
    assert subprocess.check_output([sys.executable, "-c", code], text=True).strip() == "False"
