"""hookproof's exceptions: one base class, usage errors that are also builtin errors.

Every message follows one shape: what happened (with values), why it matters, how to fix it.
The classes are written in one module per area and all live here, under this module's
name, so tracebacks and pickles say ``hookproof.errors.ScriptExhausted`` wherever raised.
"""

from hookproof.errors._agent import (
    AmbiguousResumeError,
    ConnectionBlocked,
    DuplicateMiddlewareError,
    DuplicateToolError,
    InjectedStateError,
    InterruptRaised,
    InvalidUpdateError,
    MaxIterationsExceeded,
    MissingAsyncHookError,
    NeedsGraphError,
    NothingBlocked,
    ParentCommandError,
    RealModelBlocked,
    ScriptExhausted,
    ToolError,
    UnexecutableToolError,
    UnsupportedCommandError,
)
from hookproof.errors._base import (
    HookproofError,
    ImmutableError,
    InvalidInputError,
    UsageError,
)

# Helpers that word messages: importable from here, not part of __all__.
from hookproof.errors._base import did_you_mean as did_you_mean
from hookproof.errors._base import ordinal as ordinal
from hookproof.errors._base import safe_repr as safe_repr
from hookproof.errors._contracts import (
    ContractViolation,
    EngineDisagreementError,
    UnsupportedHypothesisError,
    UntestedError,
)
from hookproof.errors._eino import (
    EinoError,
    ExceedMaxIterationsError,
    ExceedMaxRetriesError,
    GoToolchainError,
    HandlerError,
    RetryExhaustedError,
    RunContextError,
    SerializationError,
    ToolCallError,
    ToolNotFoundError,
    WillRetryError,
)
from hookproof.errors._files import (
    CassetteError,
    CassetteFormatError,
    FileAccessError,
    MissingExchangeError,
    SnapshotFormatError,
    StaleCassetteError,
    UnsafePathError,
)
from hookproof.errors._templates import (
    TemplateError,
    TemplateRenderError,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateVariableError,
    UnsupportedTemplateConstruct,
)

__all__ = [
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
]

for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
