"""The deep-agent harness on the reference runtime, with Harness and Provider profiles."""

from hookproof.harness.agent import BUILTIN_TOOL_NAMES, create_deep_agent, model_identity
from hookproof.harness.backend import StateBackend
from hookproof.harness.filesystem import FilesystemMiddleware
from hookproof.harness.hitl import HumanInTheLoopMiddleware
from hookproof.harness.memory import MemoryMiddleware
from hookproof.harness.patch_tool_calls import PatchToolCallsMiddleware
from hookproof.harness.profile_tools import HarnessProfileToolsMiddleware
from hookproof.harness.profiles import (
    REQUIRED_MIDDLEWARE,
    GeneralPurposeSubagentProfile,
    HarnessProfile,
    HarnessProfileConfig,
    ProfileRegistry,
    ProviderProfile,
    current_registry,
    isolated_profiles,
    register_harness_profile,
    register_model_factory,
    register_provider_profile,
)
from hookproof.harness.prompt_cache import ProviderPromptCacheMiddleware
from hookproof.harness.skills import SkillsMiddleware
from hookproof.harness.subagents import GENERAL_PURPOSE, SubAgent, SubAgentMiddleware
from hookproof.harness.summarization import SummarizationMiddleware, estimate_tokens
from hookproof.harness.todo import TodoListMiddleware

__all__ = [
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
]
