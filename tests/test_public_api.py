"""The names users import: every public module's ``__all__`` exactly, one name per object,
every exception in hookproof.errors, old names only through hookproof.compat; and what
importing hookproof costs."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import subprocess
import sys
import warnings
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import pytest

import hookproof
from hookproof import compat
from hookproof.errors import HookproofError

# Adding, removing or renaming a public name is an API change: update this table with it.
EXPORTS: dict[str, set[str]] = {
    "hookproof": {
        "HookproofError",
        "__version__",
    },
    "hookproof.adapters.deepagents": {
        "BUILTIN_TOOL_NAMES",
        "DEEPAGENTS_KIT",
        "DeepAgentsTarget",
    },
    "hookproof.adapters.langchain": {
        "LangChainShapedAgent",
        "RecordingChatModel",
        "ScriptedChatModel",
        "final_request",
        "on_reference_engine",
        "run",
    },
    "hookproof.adapters.langchain.bridge": {
        "BRIDGE",
        "LangChainShapedAgent",
        "on_reference_engine",
    },
    "hookproof.adapters.langchain.models": {
        "FalsyRecordingChatModel",
        "ModelCall",
        "RecordingChatModel",
        "ScriptedChatModel",
        "models_for",
        "tool_call_chunks",
    },
    "hookproof.adapters.langchain.target": {
        "LANGCHAIN_KIT",
        "LANGCHAIN_SAMPLER",
        "LangChainTarget",
    },
    "hookproof.adapters.langchain.tracing": {
        "TraceHandler",
        "build_instrumented",
        "instrumented_builds",
    },
    "hookproof.cli": {
        "main",
    },
    "hookproof.cli.check": {
        "CheckResult",
        "bundled_contracts",
        "format_summary",
        "run_check",
        "suite_environment",
    },
    "hookproof.compat": {
        "ALIASES",
        "DIALECT_NAMES",
        "Alias",
        "deprecated_alias",
        "deprecated_aliases",
    },
    "hookproof.conformance": {
        "EINO_SEMANTICS",
        "EINO_TARGET",
        "PROBES",
        "ProbeResult",
        "format_json",
        "format_text",
        "run_conformance",
        "run_eino_conformance",
        "targets",
    },
    "hookproof.context": {
        "Runtime",
        "ToolRuntime",
    },
    "hookproof.contracts": {
        "CheckReport",
        "ContractViolation",
        "OnInterrupt",
        "ReferenceTarget",
        "Target",
        "TargetRun",
        "ToolAccess",
        "UntestedError",
        "as_target",
        "check_allowed_calls_succeed",
        "check_bounded_retry",
        "check_delegation_contained",
        "check_exclusion_holds",
        "check_fail_closed",
        "check_hook_order",
        "check_injected_model_used",
        "check_isolation",
        "check_metadata_preserved",
        "check_request_not_mutated",
        "check_requires_approval",
        "check_role_matrix",
        "check_tool_closure",
        "check_tool_errors_surface",
        "check_tools_preserved",
        "check_unique_tool_names",
        "example_args",
        "sample_messages",
        "sample_request",
        "sample_state",
        "sample_system_message",
        "strategies",
    },
    "hookproof.contracts.profiles": {
        "PROFILES",
        "register_profiles",
    },
    "hookproof.contracts.strategies": {
        "arguments",
        "contexts",
        "middleware_stacks",
        "scripts",
        "system_messages",
        "tool_sets",
        "trusted_values",
    },
    "hookproof.eino": {
        "DEFAULT_EINO_MAX_ITERATIONS",
        "AgentAction",
        "AgentEvent",
        "AgentMiddleware",
        "AgentRun",
        "BaseChatModelAgentMiddleware",
        "CallbackHandler",
        "ChatModelAgent",
        "ChatModelAgentContext",
        "ChatModelAgentMiddleware",
        "ChatModelAgentState",
        "Clock",
        "EinoChatModel",
        "EinoError",
        "EnhancedInvokableTool",
        "EnhancedStreamableTool",
        "EventSenderModelWrapper",
        "EventSenderToolWrapper",
        "ExceedMaxIterationsError",
        "ExceedMaxRetriesError",
        "FailoverContext",
        "HandlerError",
        "InMemoryCheckpointer",
        "InvokableTool",
        "ManualClock",
        "ModelContext",
        "ModelFailoverConfig",
        "ModelRetryConfig",
        "ModelWrapper",
        "RetryContext",
        "RetryDecision",
        "RetryExhaustedError",
        "RunContext",
        "RunContextError",
        "RunInfo",
        "SerializationError",
        "StreamableTool",
        "SystemClock",
        "ToolArgument",
        "ToolCallError",
        "ToolContext",
        "ToolInfo",
        "ToolInput",
        "ToolMiddleware",
        "ToolNotFoundError",
        "ToolOutput",
        "ToolResult",
        "WillRetryError",
        "default_backoff",
        "delete_run_local_value",
        "get_run_local_value",
        "interrupt",
        "new_event_sender_model_wrapper",
        "new_event_sender_tool_wrapper",
        "register_name",
        "select_endpoint",
        "send_event",
        "set_run_local_value",
    },
    "hookproof.eino.toolsearch": {
        "TOOL_SEARCH",
        "ToolSearchMiddleware",
        "search_tools",
    },
    "hookproof.errors": {
        "AmbiguousResumeError",
        "CassetteError",
        "CassetteFormatError",
        "ConnectionBlocked",
        "ContractViolation",
        "DuplicateMiddlewareError",
        "DuplicateToolError",
        "EinoError",
        "EngineDisagreementError",
        "ExceedMaxIterationsError",
        "ExceedMaxRetriesError",
        "FileAccessError",
        "GoToolchainError",
        "HandlerError",
        "HookproofError",
        "ImmutableError",
        "InjectedStateError",
        "InterruptRaised",
        "InvalidInputError",
        "InvalidUpdateError",
        "MaxIterationsExceeded",
        "MissingAsyncHookError",
        "MissingExchangeError",
        "NeedsGraphError",
        "NothingBlocked",
        "ParentCommandError",
        "RealModelBlocked",
        "RetryExhaustedError",
        "RunContextError",
        "ScriptExhausted",
        "SerializationError",
        "SnapshotFormatError",
        "StaleCassetteError",
        "TemplateError",
        "TemplateRenderError",
        "TemplateSecurityError",
        "TemplateSyntaxError",
        "TemplateVariableError",
        "ToolCallError",
        "ToolError",
        "ToolNotFoundError",
        "UnexecutableToolError",
        "UnsafePathError",
        "UnsupportedCommandError",
        "UnsupportedHypothesisError",
        "UnsupportedTemplateConstruct",
        "UntestedError",
        "UsageError",
        "WillRetryError",
    },
    "hookproof.gate": {
        "DEFAULT_FAIL_ON",
        "DEFAULT_FORMAT",
        "FileReport",
        "GateReport",
        "ReportFormat",
        "compare_directories",
        "format_html",
        "format_json",
        "format_markdown",
        "format_text",
        "parse_fail_on",
        "register_format",
        "report_format",
        "report_formats",
        "unregister_format",
    },
    "hookproof.gate.ci": {
        "MARKER",
        "comment_body",
        "main",
        "run",
    },
    "hookproof.gate.formats": {
        "DEFAULT_FORMAT",
        "ReportFormat",
        "register_format",
        "report_format",
        "report_formats",
        "unregister_format",
    },
    "hookproof.gate.review": {
        "PENDING_SUFFIX",
        "Decision",
        "Pending",
        "find_pending",
        "review",
    },
    "hookproof.guard": {
        "GuardHandle",
        "GuardPolicy",
        "RealModelBlocked",
        "allow_model",
        "allowed_host_problem",
        "block_real_models",
        "check_model",
        "current_policy",
        "expect_blocked",
        "is_offline",
        "swallowed_message",
    },
    "hookproof.guard.child": {
        "leave_parent",
        "start",
    },
    "hookproof.harness": {
        "BUILTIN_TOOL_NAMES",
        "GENERAL_PURPOSE",
        "REQUIRED_MIDDLEWARE",
        "FilesystemMiddleware",
        "GeneralPurposeSubagentProfile",
        "HarnessProfile",
        "HarnessProfileConfig",
        "HarnessProfileToolsMiddleware",
        "HumanInTheLoopMiddleware",
        "MemoryMiddleware",
        "PatchToolCallsMiddleware",
        "ProfileRegistry",
        "ProviderProfile",
        "ProviderPromptCacheMiddleware",
        "SkillsMiddleware",
        "StateBackend",
        "SubAgent",
        "SubAgentMiddleware",
        "SummarizationMiddleware",
        "TodoListMiddleware",
        "create_deep_agent",
        "current_registry",
        "estimate_tokens",
        "isolated_profiles",
        "model_identity",
        "register_harness_profile",
        "register_model_factory",
        "register_provider_profile",
    },
    "hookproof.harness.agent": {
        "BUILTIN_TOOL_NAMES",
        "create_deep_agent",
        "model_identity",
    },
    "hookproof.harness.backend": {
        "StateBackend",
        "merge_files",
    },
    "hookproof.harness.hitl": {
        "HumanInTheLoopMiddleware",
    },
    "hookproof.harness.memory": {"MemoryMiddleware"},
    "hookproof.harness.patch_tool_calls": {"PatchToolCallsMiddleware"},
    "hookproof.harness.profile_tools": {"HarnessProfileToolsMiddleware"},
    "hookproof.harness.profiles": {
        "REQUIRED_MIDDLEWARE",
        "GeneralPurposeSubagentProfile",
        "HarnessProfile",
        "HarnessProfileConfig",
        "ProfileRegistry",
        "ProviderProfile",
        "current_registry",
        "isolated_profiles",
        "register_harness_profile",
        "register_model_factory",
        "register_provider_profile",
    },
    "hookproof.harness.prompt_cache": {"ProviderPromptCacheMiddleware"},
    "hookproof.harness.skills": {"SkillsMiddleware"},
    "hookproof.harness.subagents": {
        "GENERAL_PURPOSE",
        "TASK_TOOL_NAME",
        "SubAgent",
        "SubAgentMiddleware",
    },
    "hookproof.harness.summarization": {
        "DEFAULT_THRESHOLD",
        "SummarizationMiddleware",
        "estimate_tokens",
    },
    "hookproof.messages": {
        "AssistantMessage",
        "AudioBlock",
        "ContentBlock",
        "FileBlock",
        "ImageBlock",
        "Message",
        "ReasoningBlock",
        "RemoveMessage",
        "Role",
        "SystemMessage",
        "TextBlock",
        "ToolCall",
        "ToolCallBlock",
        "ToolMessage",
        "ToolResultBlock",
        "UserMessage",
        "VideoBlock",
        "coerce_message",
        "coerce_messages",
    },
    "hookproof.models": {
        "ChatModel",
        "FinalRequest",
        "RecordingModel",
        "ScriptExhausted",
        "ScriptedCall",
        "ScriptedModel",
        "Sender",
        "Turn",
        "call",
    },
    "hookproof.plugin": {
        "HookproofOptions",
        "resolve_options",
    },
    "hookproof.plugin.fuzz": {
        "DEADLINE_VARIABLE",
        "FIRST_ROUND",
        "LOG_VARIABLE",
        "Round",
    },
    "hookproof.recording": {
        "FORMAT_VERSION",
        "Cassette",
        "Exchange",
        "RecordMode",
        "cassette_path",
    },
    "hookproof.provenance": {"AGENT", "Provenance", "Section", "ToolOrigin"},
    "hookproof.redaction": {
        "REDACTED",
        "Redaction",
        "active_redaction",
        "configure_redaction",
        "is_sensitive_field",
        "redact_data",
        "redact_file_name",
        "redact_text",
        "redacted_repr",
    },
    "hookproof.runtime": {
        "DEFAULT_RUNTIME_MAX_ITERATIONS",
        "Agent",
        "AgentMiddleware",
        "AgentState",
        "AssistantMessage",
        "ChatModel",
        "Checkpoint",
        "Command",
        "ExtendedModelResponse",
        "FinalRequest",
        "InMemoryCheckpointer",
        "InjectedState",
        "InjectedToolCallId",
        "Interrupt",
        "ModelRequest",
        "ModelResponse",
        "RemoveMessage",
        "RunResult",
        "Runtime",
        "SystemMessage",
        "Tool",
        "ToolCall",
        "ToolCallRequest",
        "ToolMessage",
        "ToolRuntime",
        "ToolSchema",
        "UntrackedValue",
        "UserMessage",
        "add_messages",
        "after_agent",
        "after_model",
        "before_agent",
        "before_model",
        "create_agent",
        "dynamic_prompt",
        "hook_config",
        "interrupt",
        "tool",
        "wrap_model_call",
        "wrap_tool_call",
    },
    "hookproof.snapshot": {
        "DEFAULT_MATCHERS",
        "FORMAT_VERSION",
        "Change",
        "ChangeClass",
        "Matcher",
        "RequestView",
        "SnapshotDiff",
        "SnapshotFormatError",
        "ToolView",
        "content_hash",
        "dates",
        "diff",
        "parse",
        "regex",
        "render",
        "view",
    },
    "hookproof.snapshot.collected": {
        "collected_modules",
        "record_module_collection",
    },
    "hookproof.snapshot.files": {
        "BOM",
        "DEFAULT_SNAPSHOT_DIR",
        "HEADER",
        "OUTSIDE_ROOTDIR_INI",
        "PENDING_SUFFIX",
        "SNAPSHOT_DIR_INI",
        "SNAPSHOT_SUFFIX",
        "check_inside_rootdir",
        "has_snapshot_header",
        "is_snapshot_name",
        "read_regular_file",
        "snapshot_root",
    },
    "hookproof.snapshot.findings": {
        "LINE_CHARACTERS",
        "RANK",
        "Finding",
        "Section",
        "SideRow",
        "cap",
        "diff_lines",
        "group_findings",
        "plural",
        "section_of",
        "sections_for",
        "side_by_side",
        "unified",
    },
    "hookproof.snapshot.extension": {
        "PENDING_SUFFIX",
        "HookproofSnapshotExtension",
        "extension_for",
        "failure_sections",
    },
    "hookproof.targets": {
        "DEFAULT_INPUT",
        "Build",
        "ConformanceKit",
        "EinoTarget",
        "HarnessTarget",
        "HookSampler",
        "IsolationRuns",
        "OnInterrupt",
        "ReferenceTarget",
        "RunSettings",
        "RunWithTarget",
        "Target",
        "TargetRun",
        "as_target",
        "conformance_columns",
        "conformance_kit",
        "hook_sampler",
        "middleware_target",
        "register_target",
        "registered_targets",
        "target_class",
        "unregister_target",
    },
    "hookproof.targets.authoring": {
        "ConformanceKit",
        "HarnessProfiles",
    },
    "hookproof.targets.eino": {
        "EINO_SAMPLER",
        "EinoTarget",
        "eino_ctx",
        "eino_input",
    },
    "hookproof.targets.interrupts": {
        "MAX_RESUMES",
        "REJECTION",
        "OnInterrupt",
        "check_config",
        "check_on_interrupt",
        "resume_loop",
        "resume_value",
        "still_paused",
        "thread_id",
    },
    "hookproof.targets.reference": {
        "HARNESS_KIT",
        "REFERENCE_KIT",
        "REFERENCE_SAMPLER",
        "HarnessTarget",
        "NativeTarget",
        "ReferenceTarget",
        "called",
        "joined",
        "native_wrap_hook",
        "resumable",
    },
    "hookproof.targets.sampler": {
        "HookSampler",
        "NodeSamples",
        "PassedOn",
        "hookproof_messages",
        "node_call",
        "replaces_all",
        "sync_call",
        "written_messages",
    },
    "hookproof.targets.samples": {
        "sample_messages",
        "sample_metadata",
        "sample_request",
        "sample_state",
        "sample_system_message",
        "sample_tool_functions",
        "sample_tool_request",
    },
    "hookproof.templates": {
        "AgenticMessage",
        "AgenticMessagesTemplate",
        "AgenticTemplateCallbacks",
        "AssistantGenText",
        "ContentBlock",
        "DefaultAgenticChatTemplate",
        "FormatType",
        "FunctionToolCall",
        "FunctionToolResult",
        "MCPToolCall",
        "MCPToolResult",
        "MessagesPlaceholder",
        "Pipe",
        "Reasoning",
        "ServerToolCall",
        "ServerToolResult",
        "TemplateBudget",
        "TemplateError",
        "TemplateRenderError",
        "TemplateSecurityError",
        "TemplateSyntaxError",
        "TemplateVariableError",
        "ToolSearchResult",
        "UnsupportedTemplateConstruct",
        "UserInputAudio",
        "UserInputFile",
        "UserInputImage",
        "UserInputText",
        "UserInputVideo",
        "agentic_messages_placeholder",
        "format_message",
        "from_agentic_messages",
        "new_content_block",
        "output_key",
        "pipe",
        "system_agentic_message",
        "to_message",
        "user_agentic_message",
    },
    "hookproof.tools": {
        "InjectedState",
        "InjectedToolCallId",
        "Tool",
        "ToolSchema",
        "tool",
    },
    "hookproof.trace": {
        "EventKind",
        "Phase",
        "Trace",
        "TraceEvent",
    },
    "hookproof.requests": {
        "ChatModel",
        "Command",
        "ExtendedModelResponse",
        "FinalRequest",
        "ModelRequest",
        "ModelResponse",
        "Sender",
        "ToolCallRequest",
        "model_name",
    },
}

# Public modules without ``__all__``, and why they need none.
WITHOUT_ALL = {
    "hookproof.adapters": "a namespace: each adapter is its own module, imported when used",
    "hookproof.harness.filesystem": "re-exported by hookproof.harness",
    "hookproof.harness.prompts": "the harness's prompt texts, read by its middleware",
    "hookproof.harness.todo": "re-exported by hookproof.harness",
}

# shared/DESIGN.md "Public API": the names promised to users, a subset of EXPORTS.
PROMISED = {
    "hookproof": {"HookproofError"},
    "hookproof.runtime": {
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
    },
    "hookproof.models": {
        "ScriptedModel",
        "RecordingModel",
        "FinalRequest",
        "ScriptExhausted",
        "call",
    },
    "hookproof.trace": {"Trace", "TraceEvent"},
    "hookproof.harness": {
        "create_deep_agent",
        "HarnessProfile",
        "HarnessProfileConfig",
        "GeneralPurposeSubagentProfile",
        "ProviderProfile",
        "register_harness_profile",
        "register_provider_profile",
    },
    "hookproof.eino": {
        "ChatModelAgent",
        "ChatModelAgentMiddleware",
        "BaseChatModelAgentMiddleware",
        "set_run_local_value",
        "get_run_local_value",
        "delete_run_local_value",
        "send_event",
    },
    "hookproof.templates": {
        "AgenticMessage",
        "FormatType",
        "from_agentic_messages",
        "system_agentic_message",
        "user_agentic_message",
        "agentic_messages_placeholder",
    },
    "hookproof.snapshot": {"render", "content_hash", "diff"},
    "hookproof.contracts": {"ContractViolation", "check_fail_closed", "strategies"},
    "hookproof.adapters.langchain": {"ScriptedChatModel", "RecordingChatModel"},
}

# Private exceptions that never leave the module that raises them (control flow only).
PRIVATE_CONTROL_FLOW = {
    "hookproof._engine.fused._Abandoned",  # ends a helper visit nobody awaits any more
    "hookproof.contracts._allowed_calls._CallFailed",
    "hookproof.contracts._bounded_retry._Budget",
}


def _module_names(public: bool) -> list[str]:
    """Every module of the package, read from its files (walking the packages would import
    them, and miss the subpackages of an adapter whose framework is not installed)."""
    root = Path(hookproof.__file__).parent
    found = ["hookproof"]
    for path in sorted(root.rglob("*.py")):
        parts = ["hookproof", *path.relative_to(root).with_suffix("").parts]
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        if len(parts) == 1 or parts[1] in ("examples", "__main__"):  # __main__ runs the CLI
            continue
        if public and any(part.startswith("_") for part in parts[1:]):
            continue
        found.append(".".join(parts))
    return sorted(found)


# What the adapters import; a test install (``pip install -e '.[test]'``) has none of them.
FRAMEWORKS = ("langchain", "langchain_core", "langgraph", "langchain_openai", "deepagents")


def _import(module: str) -> ModuleType | None:
    """The module, or None when it needs a framework that is not installed at all (a part
    missing from an installed framework is an error, not a skip)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        top = (error.name or "").partition(".")[0]
        if top in FRAMEWORKS and importlib.util.find_spec(top) is None:
            return None
        raise


def _require(module: str) -> ModuleType:
    loaded = _import(module)
    if loaded is None:
        pytest.skip(f"{module} needs LangChain or deepagents: pip install 'hookproof[all]'")
    return loaded


def _exported(module: str) -> list[tuple[str, object]]:
    loaded = _require(module)
    return [(name, getattr(loaded, name)) for name in loaded.__all__]


def _installed(modules: Iterable[str]) -> list[str]:
    return [module for module in modules if _import(module) is not None]


def test_every_public_module_is_in_the_table() -> None:
    assert _module_names(public=True) == sorted({*EXPORTS, *WITHOUT_ALL})


@pytest.mark.parametrize("module", sorted(EXPORTS))
def test_all_is_exactly_the_table(module: str) -> None:
    names = _require(module).__all__
    assert len(names) == len(set(names)), f"{module}.__all__ lists a name twice"
    assert set(names) == EXPORTS[module]


@pytest.mark.parametrize("module", sorted(EXPORTS))
def test_every_exported_name_resolves_without_a_warning(module: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exported = _exported(module)
        star: dict[str, object] = {}
        exec(f"from {module} import *", star)
    assert [name for name, _ in exported if name not in star] == []


@pytest.mark.parametrize("module", sorted(WITHOUT_ALL))
def test_modules_without_all_import(module: str) -> None:
    assert not hasattr(_require(module), "__all__")


def test_promised_names_are_exported() -> None:
    assert {module: names - EXPORTS[module] for module, names in PROMISED.items()} == {
        module: set() for module in PROMISED
    }


def _names_by_object() -> dict[int, set[str]]:
    by_object: dict[int, set[str]] = {}
    for module in _installed(EXPORTS):
        for name, value in _exported(module):
            if isinstance(value, (type, ModuleType)) or inspect.isroutine(value):
                by_object.setdefault(id(value), set()).add(f"{module}.{name}")
    return by_object


def test_one_name_per_object_except_dialect_names() -> None:
    names_of = [{path.rsplit(".", 1)[1] for path in paths} for paths in _names_by_object().values()]
    second_names = {frozenset(names) for names in names_of if len(names) > 1}
    assert second_names == {
        frozenset({alias.name, alias.canonical.rsplit(".", 1)[1]}) for alias in compat.DIALECT_NAMES
    }


@pytest.mark.parametrize("alias", compat.DIALECT_NAMES, ids=lambda alias: alias.name)
def test_dialect_names_are_the_canonical_object(alias: compat.Alias) -> None:
    module, _, name = alias.canonical.rpartition(".")
    canonical = getattr(importlib.import_module(module), name)
    assert name not in importlib.import_module(alias.module).__all__
    assert getattr(importlib.import_module(alias.module), alias.name) is canonical


@pytest.mark.parametrize("alias", compat.ALIASES, ids=lambda alias: f"{alias.module}.{alias.name}")
def test_an_old_name_warns_and_is_the_canonical_object(alias: compat.Alias) -> None:
    old_home = importlib.import_module(alias.module)
    module, _, name = alias.canonical.rpartition(".")
    canonical = getattr(importlib.import_module(module), name)
    assert alias.name not in old_home.__all__ and name in importlib.import_module(module).__all__
    with pytest.warns(DeprecationWarning, match="deprecated alias") as caught:
        value = getattr(old_home, alias.name)
    assert value is canonical
    message = str(caught[0].message)
    assert alias.canonical in message and "hookproof.compat" in message
    assert caught[0].filename == __file__  # the warning points at the line that used the name


def test_an_old_name_from_an_import_statement_warns() -> None:
    with pytest.warns(DeprecationWarning, match=r"use hookproof\.messages\.AssistantMessage"):
        from hookproof.messages import AIMessage  # noqa: F401


def test_compat_gives_an_old_name_without_a_warning() -> None:
    from hookproof.messages import AssistantMessage

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from hookproof.compat import AIMessage, ErrExceedMaxRetries
    assert AIMessage is AssistantMessage
    assert ErrExceedMaxRetries is importlib.import_module("hookproof.eino").ExceedMaxRetriesError


def test_compat_refuses_a_name_with_one_meaning_per_dialect() -> None:
    with pytest.raises(AttributeError, match="DEFAULT_EINO_MAX_ITERATIONS"):
        compat.DEFAULT_MAX_ITERATIONS  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        compat.Nothing  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        compat.deprecated_alias("hookproof.messages", "Nothing")


def test_each_dialect_names_its_own_default_bound() -> None:
    from hookproof.eino import DEFAULT_EINO_MAX_ITERATIONS, ChatModelAgent
    from hookproof.runtime import DEFAULT_RUNTIME_MAX_ITERATIONS, create_agent

    runtime_default = inspect.signature(create_agent).parameters["max_iterations"].default
    eino_default = inspect.signature(ChatModelAgent).parameters["max_iterations"].default
    assert (runtime_default, eino_default) == (
        DEFAULT_RUNTIME_MAX_ITERATIONS,
        DEFAULT_EINO_MAX_ITERATIONS,
    )
    assert (DEFAULT_RUNTIME_MAX_ITERATIONS, DEFAULT_EINO_MAX_ITERATIONS) == (25, 20)


def _classes_defined_in_hookproof() -> list[type]:
    found = []
    for module in _installed(_module_names(public=False)):
        loaded = importlib.import_module(module)
        found += [
            value
            for value in vars(loaded).values()
            if isinstance(value, type) and value.__module__ == module
        ]
    return found


def test_every_exception_lives_in_errors_and_derives_from_hookproof_error() -> None:
    from hookproof import errors

    exceptions = [cls for cls in _classes_defined_in_hookproof() if issubclass(cls, BaseException)]
    elsewhere = {
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in exceptions
        if cls.__module__ != "hookproof.errors"
    }
    assert elsewhere == PRIVATE_CONTROL_FLOW
    in_errors = {cls.__name__ for cls in exceptions if cls.__module__ == "hookproof.errors"}
    assert in_errors == set(errors.__all__)
    for name in errors.__all__:
        assert issubclass(getattr(errors, name), HookproofError)


@pytest.mark.parametrize("module", sorted(EXPORTS))
def test_exceptions_are_re_exported_not_redefined(module: str) -> None:
    defined_elsewhere = [
        name
        for name, value in _exported(module)
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ != "hookproof.errors"
    ]
    assert defined_elsewhere == []


def test_no_hookproof_class_is_named_like_pydantics_base_model() -> None:
    assert [cls for cls in _classes_defined_in_hookproof() if cls.__name__ == "BaseModel"] == []


def test_one_base_exception_and_builtin_usage_errors() -> None:
    from hookproof import errors

    assert hookproof.HookproofError is errors.HookproofError
    assert issubclass(errors.UsageError, TypeError)
    assert issubclass(errors.InvalidInputError, ValueError)
    assert issubclass(errors.ContractViolation, AssertionError)


HEAVY = ["langchain", "langchain_core", "langgraph", "hypothesis", "syrupy", "jinja2"]


@pytest.mark.parametrize(
    "statement",
    [
        "import hookproof",
        "import hookproof.compat",
        "import hookproof.plugin",
        "import hookproof.runtime",
        "import hookproof.templates",
        "import hookproof.harness",
        "import hookproof.eino",
        "import hookproof.eino.toolsearch",
        "from hookproof.guard import block_real_models\nwith block_real_models(): pass",
    ],
)
def test_import_loads_no_heavy_dependency(statement: str) -> None:
    code = f"{statement}; import sys, json; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(subprocess.check_output([sys.executable, "-c", code], text=True))
    assert [name for name in HEAVY if name in loaded] == []


def test_import_hookproof_loads_only_its_errors() -> None:
    code = (
        "import sys; before = set(sys.modules); import hookproof; print(*set(sys.modules) - before)"
    )
    # -E: not the guard's bootstrap, which loads hookproof in every child of a test first.
    loaded = subprocess.check_output([sys.executable, "-E", "-c", code], text=True).split()
    errors = ["_agent", "_base", "_contracts", "_eino", "_files", "_templates"]  # one per area
    expected = ["__future__", "hookproof", "hookproof.errors"]
    assert sorted(loaded) == expected + [f"hookproof.errors.{area}" for area in errors]


def test_import_hookproof_does_not_load_pydantic() -> None:
    code = "import hookproof, hookproof.compat, sys; print('pydantic' in sys.modules)"
    assert subprocess.check_output([sys.executable, "-c", code], text=True).strip() == "False"
