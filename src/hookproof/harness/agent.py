"""create_deep_agent: the deep-agent harness assembled on the reference runtime.

Stack, outermost first (so a user middleware always runs before the profile's extras and its
tool exclusion):

 1 TodoListMiddleware            8 your middleware=
 2 SkillsMiddleware (skills=)     9 the profile's extra_middleware
 3 FilesystemMiddleware         10 HarnessProfileToolExclusion
 4 SubAgentMiddleware           11 ProviderPromptCacheMiddleware
 5 SummarizationMiddleware      12 MemoryMiddleware (memory=)
 6 PatchToolCallsMiddleware     13 HumanInTheLoopMiddleware (interrupt_on=)
 7 (async subagents: not built)

Subagents get the same scaffolding and, last, a HumanInTheLoopMiddleware for their own
``interrupt_on`` or else the main agent's (as deepagents does); a subagent's review pauses the
main agent's run, and resuming the main agent answers it.

System prompt, at build time: your system_prompt, then the profile's base_system_prompt or
hookproof's base prompt, then the profile's suffix, each its own block; the middleware add
their sections at each model call. Profiles are resolved here, once: a middleware that
switches the model at run time gets neither the other model's prompt nor its exclusions.

Tool description overrides apply to every tool the harness shows, whether it was given as a
@tool or a plain function (the reference harness converts tools before it applies profiles;
deepagents 0.6.12 converts plain functions later and leaves their docstring).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hookproof._support.untimed import untimed
from hookproof.harness.backend import StateBackend
from hookproof.harness.filesystem import FilesystemMiddleware, filesystem_tools
from hookproof.harness.hitl import HumanInTheLoopMiddleware
from hookproof.harness.memory import MemoryMiddleware
from hookproof.harness.patch_tool_calls import PatchToolCallsMiddleware
from hookproof.harness.profile_tools import HarnessProfileToolsMiddleware
from hookproof.harness.profiles import HarnessProfile, ProfileRegistry, current_registry
from hookproof.harness.prompt_cache import ProviderPromptCacheMiddleware
from hookproof.harness.prompts import (
    BASE_PROMPT,
    GENERAL_PURPOSE_DESCRIPTION,
    GENERAL_PURPOSE_PROMPT,
)
from hookproof.harness.skills import SkillsMiddleware
from hookproof.harness.subagents import (
    GENERAL_PURPOSE,
    TASK_TOOL_NAME,
    SubAgent,
    SubAgentMiddleware,
)
from hookproof.harness.summarization import SummarizationMiddleware
from hookproof.harness.todo import TodoListMiddleware
from hookproof.messages import SystemMessage, TextBlock
from hookproof.provenance import AGENT
from hookproof.runtime import Agent, create_agent
from hookproof.tools import Tool, as_tool

__all__ = ["BUILTIN_TOOL_NAMES", "create_deep_agent", "model_identity"]


def _builtin_tool_names() -> frozenset[str]:
    sandbox = StateBackend(execute=lambda _command: "")  # so that execute is listed too
    tools = (*TodoListMiddleware.tools, *filesystem_tools(sandbox))
    return frozenset({*(item.name for item in tools), TASK_TOOL_NAME})


BUILTIN_TOOL_NAMES: frozenset[str] = _builtin_tool_names()
"""The tools the harness adds to yours: write_todos, the file tools (ls, read_file,
write_file, edit_file, glob, grep; execute with a backend that runs commands) and task. Pass
``skip=BUILTIN_TOOL_NAMES`` to ``contracts.check_allowed_calls_succeed`` to check only
your own tools."""


def model_identity(model: Any) -> tuple[str | None, str | None]:
    """(provider, model name) of a model instance, as profiles look them up."""
    provider = getattr(model, "provider", None)
    name = getattr(model, "model_name", None) or getattr(model, "name", None)
    return (
        provider if isinstance(provider, str) else None,
        name if isinstance(name, str) else None,
    )


@dataclass(frozen=True)
class _Build:
    """Everything resolved once per create_deep_agent call."""

    model: Any
    profile: HarnessProfile
    backend: StateBackend
    tools: tuple[Tool, ...]
    registry: ProfileRegistry
    interrupt_on: Mapping[str, bool | Mapping[str, Any]] | None = None


def _resolve(model: Any, registry: ProfileRegistry) -> tuple[Any, HarnessProfile]:
    if isinstance(model, str):
        provider, _, name = model.partition(":")
        return registry.resolve_model(model), registry.harness_profile(provider, name)
    return model, registry.harness_profile(*model_identity(model))


def _system_parts(
    caller: str | None, profile: HarnessProfile, base: str | None = None
) -> list[tuple[str, str]]:
    """The system prompt's texts, each with its origin (for provenance)."""
    if base:
        harness = (base, AGENT)  # a subagent's own prompt
    elif profile.base_system_prompt:
        harness = (profile.base_system_prompt, "harness profile (base_system_prompt)")
    else:
        harness = (BASE_PROMPT, "harness (base prompt)")
    suffix = (profile.system_prompt_suffix or "", "harness profile (system_prompt_suffix)")
    return [(text, origin) for text, origin in [(caller or "", AGENT), harness, suffix] if text]


def _system(caller: str | None, profile: HarnessProfile, base: str | None = None) -> SystemMessage:
    parts = _system_parts(caller, profile, base)
    return SystemMessage(content=[TextBlock(text=text) for text, _ in parts])


def _system_origins(parts: list[tuple[str, str]]) -> tuple[str, ...]:
    return tuple(origin for text, origin in parts for _ in text.split("\n"))


def _excluded(stack: list[object], profile: HarnessProfile) -> list[object]:
    return [item for item in stack if type(item).__name__ not in profile.excluded_middleware]


def _tail(build: _Build, *optional: object) -> list[object]:
    profile = build.profile
    return [
        *profile.materialise_extra_middleware(),
        HarnessProfileToolsMiddleware(profile.excluded_tools, profile.tool_description_overrides),
        *_excluded([ProviderPromptCacheMiddleware(), *optional], profile),
    ]


def _subagent_builder(build: _Build) -> Any:
    def build_subagent(spec: SubAgent) -> Agent:
        model = spec.model if spec.model is not None else build.model
        if isinstance(model, str):
            model = build.registry.resolve_model(model)
        head = _excluded(
            [
                TodoListMiddleware(),
                FilesystemMiddleware(build.backend),
                SummarizationMiddleware(model=model),
                PatchToolCallsMiddleware(),
            ],
            build.profile,
        )
        return create_agent(
            model,
            list(spec.tools) if spec.tools is not None else list(build.tools),
            system_prompt=_system(None, build.profile, base=spec.system_prompt),
            middleware=[*head, *spec.middleware, *_tail(build, *_review(build, spec))],
            name=spec.name,
        )

    return build_subagent


def _review(build: _Build, spec: SubAgent) -> list[object]:
    """A subagent's human review, as deepagents gives it: its own ``interrupt_on``, else the
    main agent's. Its pause pauses the main agent's run (see hookproof._engine.resume)."""
    review = spec.interrupt_on if spec.interrupt_on is not None else build.interrupt_on
    return [HumanInTheLoopMiddleware(review)] if review else []


def _subagents(build: _Build, subagents: Sequence[SubAgent | Mapping[str, Any]]) -> list[SubAgent]:
    gp = build.profile.general_purpose_subagent
    specs = [SubAgent.from_value(item) for item in subagents]
    if (gp is None or gp.enabled is not False) and GENERAL_PURPOSE not in {s.name for s in specs}:
        general = SubAgent(
            name=GENERAL_PURPOSE,
            description=(gp.description if gp and gp.description else GENERAL_PURPOSE_DESCRIPTION),
            system_prompt=(gp.system_prompt if gp and gp.system_prompt else GENERAL_PURPOSE_PROMPT),
        )
        specs.insert(0, general)
    return specs


def _head(build: _Build, subagents: Sequence[Any], skills: Sequence[str] | None) -> list[object]:
    task_override = build.profile.tool_description_overrides.get("task")
    specs = _subagents(build, subagents)
    delegation = (
        [SubAgentMiddleware(specs, build=_subagent_builder(build), description=task_override)]
        if specs
        else []
    )
    return [
        TodoListMiddleware(),
        *([SkillsMiddleware(skills)] if skills else []),
        FilesystemMiddleware(build.backend),
        *delegation,
        SummarizationMiddleware(model=build.model),
        PatchToolCallsMiddleware(),
    ]


@untimed
def create_deep_agent(
    model: Any,
    tools: Sequence[object] | None = None,
    *,
    system_prompt: str | None = None,
    middleware: Sequence[object] = (),
    subagents: Sequence[SubAgent | Mapping[str, Any]] | None = None,
    skills: Sequence[str] | None = None,
    memory: Sequence[str] | None = None,
    backend: StateBackend | None = None,
    interrupt_on: Mapping[str, bool | Mapping[str, Any]] | None = None,
    context_schema: Any = None,
    checkpointer: Any = None,
    profiles: ProfileRegistry | None = None,
    name: str | None = None,
) -> Agent:
    """Build the deep-agent harness around ``model`` (see the module docstring)."""
    registry = profiles or current_registry()
    resolved, profile = _resolve(model, registry)
    converted = tuple(as_tool(item, source=f"tools=[{i}]") for i, item in enumerate(tools or ()))
    build = _Build(resolved, profile, backend or StateBackend(), converted, registry, interrupt_on)
    optional = [
        *([MemoryMiddleware(memory)] if memory else []),
        *([HumanInTheLoopMiddleware(interrupt_on)] if interrupt_on else []),
    ]
    stack = [
        *_excluded(_head(build, subagents or (), skills), profile),
        *middleware,
        *_tail(build, *optional),
    ]
    agent = create_agent(
        resolved,
        list(converted),
        system_prompt=_system(system_prompt, profile),
        middleware=stack,
        context_schema=context_schema,
        checkpointer=checkpointer,
        name=name or "deep-agent",
    )
    return agent.with_system_origins(_system_origins(_system_parts(system_prompt, profile)))
