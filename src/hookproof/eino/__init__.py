"""The Eino dialect: ChatModelAgent with ChatModelAgentMiddleware handlers, on the one engine.

This reproduces the behaviour of CloudWeGo Eino's ``adk.ChatModelAgent`` as read from its
code (shared/spec/eino.md). Handlers compile into the same engine the LangChain-shaped
runtime uses: before_agent runs as a start hook on every run and resume; the state hooks are
the engine's before/after-model hooks; wrap_model, retry, failover and the event sender are
model-call layers; the tool wrappers are tool-call layers. One loop, one onion.

Names (Eino -> here):
    ChatModelAgentMiddleware.BeforeAgent ...  -> snake_case methods (before_agent, ...)
    context.Context                           -> RunContext (immutable; with_value)
    SetRunLocalValue / Get / Delete           -> set_/get_/delete_run_local_value
    SendEvent                                 -> send_event
    schema.RegisterName[T]("n")               -> register_name("n", T)
    adk.AgentMiddleware (struct)              -> AgentMiddleware (frozen dataclass)
    compose.ToolMiddleware                    -> ToolMiddleware
    schema.ToolInfo                           -> ToolInfo (hookproof.tools.ToolSchema itself)
    ErrExceedMaxIterations / ErrExceedMaxRetries -> ExceedMaxIterationsError /
                                                  ExceedMaxRetriesError (RetryExhaustedError)
    WillRetryError                            -> WillRetryError (AgentEvent.stream_error)
    InterruptInfo.InterruptContexts           -> AgentAction.interrupts
    ResumeParams.Targets                      -> resume(..., targets={interrupt.id: value})
    AgentEvent.Output.MessageOutput           -> AgentEvent.message (+ tool_name, chunks)
    Runner.Run / Runner.Resume(ctx, id)       -> ChatModelAgent.run(messages, ctx) /
                                                 resume(id, value) (arun/aresume: async)
    model.BaseModel Generate/Stream           -> EinoChatModel: generate(ctx, messages,
                                                 **options) / stream; hookproof models
                                                 (invoke) work as well
    ChatModelAgentConfig.MaxIterations (20)   -> max_iterations=DEFAULT_EINO_MAX_ITERATIONS
    tool.Interrupt / compose interrupt        -> hookproof.eino.interrupt (the engine's)

Compared with the LangChain-shaped dialect (hookproof.runtime):
    * same: one engine, onion composition (first registered = outermost), the trace, the
      FinalRequest (a leading system message becomes its system_message, so snapshots read
      the same), ScriptedModel/RecordingModel, interrupt/resume through the checkpointer.
    * differs: after hooks (after_model_rewrite_state, after_agent) run in registration order
      here; LangChain runs after_model/after_agent in reverse. A hook returns the whole new
      state (messages replace, not add_messages). before_agent runs again on resume.
      AfterAgent runs only on success. Errors end the event stream as an error event instead
      of raising. max_iterations counts model calls and is checked before any hook.

Where the code differs from Eino's docs, this follows the code: the failover layer sits
outside retry; the message-id layer sits inside the wrap_model handlers; a cancel-monitor
layer for streamable endpoints sits between AgentMiddleware.wrap_tool_call and the handler
wrappers;
the event sender has no "pre" step; wrap_model is called again on every attempt.

Deliberate differences from Eino, each because hookproof must be deterministic:
    * tool calls of one message run one after another, in the model's order (Eino runs them
      in parallel unless ExecuteSequentially); the return-directly event still comes last;
    * message ids are msg-1, msg-2, ... per run, not UUIDs;
    * backoff sleeps on an injectable Clock (SystemClock by default; ManualClock, for
      tests, records the sleeps instead and draws no random jitter);
    * run-local values are saved as JSON by a registry of names (Eino: gob); get returns a
      decoded copy, so the value after resume equals the value before;
    * an error event carries the exception and names the node in ``node_path`` (Eino wraps
      it in a compose error whose text carries the node path); the errors Eino itself
      wraps keep Eino's text (ToolCallError "failed to invoke tool[...]", HandlerError
      "handler[i] (T) ... failed", RetryExhaustedError) with the original as ``__cause__``;
    * streams are materialised between layers (an iterator of chunks is replayed), so a
      layer sees whole streams; there is no cancellation, so the cancel monitor only marks
      its place; multi-agent transfer/exit tools, session-value instruction formatting,
      argument-alias remapping and the WillRetryError a failover or a retry without
      should_retry puts in a failed stream are not reproduced (a streamed output that
      should_retry rejects is: see AgentEvent.stream_error); ToolArgumentsHandler is
      ``tool_arguments_handler=``.

Where Eino is stricter than its docs say, this is as strict (each a named semantic of
``hookproof conformance --target eino``):
    * the model wrap_model receives has only the endpoint of the run's mode: a wrapper whose
      stream() calls generate() (or the reverse) fails with "generate endpoint not set"
      ("stream endpoint not set");
    * the model call goes on with exactly the options a wrapper passes: one that leaves them
      out leaves the model without tools;
    * state.tool_infos persists across model calls: a before_model_rewrite_state filter sees
      the list the previous call left; a state whose tool_infos is None shows no tool for
      that call, and the next call starts again from the run's tools, as does a list emptied
      before a pause, after the resume (Eino's checkpoint keeps no empty list);
    * tool events are held by call id, the return-directly call's ("" when there is none):
      a call sharing it is held too, as is every call without an id, and only the last
      held event is sent, after the tool step; a return-directly call without an id does
      not end the run;
    * several tool calls of one message that interrupt pause once, in one interrupt event
      (AgentAction.interrupts), and one resume answers them all (``targets=`` by id);
    * in a streaming run, an output should_retry rejects is sent as it streamed, its stream
      ending in WillRetryError (AgentEvent.stream_error).

The known difference, found by running the same scenarios on real Eino (``hookproof
conformance --target eino`` reports it as "differs"; see hookproof.conformance): when a
paused turn has several calls with one id, Eino's resume gives each of them the result of
the first that finished (its ToolsNode keeps finished calls by id), so the paused call never
runs; here calls are kept by position and it runs. As on Eino, the other calls of a message
run before a pause, and a failing call lets them run before its error is reported.
"""

from typing import TYPE_CHECKING, Any

from hookproof._engine.checkpoint import InMemoryCheckpointer, interrupt
from hookproof.eino._agent import DEFAULT_EINO_MAX_ITERATIONS, ChatModelAgent
from hookproof.eino._callbacks import CallbackHandler, RunInfo
from hookproof.eino._context import RunContext
from hookproof.eino._handlers import (
    AgentMiddleware,
    BaseChatModelAgentMiddleware,
    ChatModelAgentMiddleware,
    EinoChatModel,
    EventSenderModelWrapper,
    EventSenderToolWrapper,
    ModelWrapper,
    ToolMiddleware,
    new_event_sender_model_wrapper,
    new_event_sender_tool_wrapper,
)
from hookproof.eino._records import (
    AgentAction,
    AgentEvent,
    ChatModelAgentContext,
    ChatModelAgentState,
    ModelContext,
    ToolArgument,
    ToolContext,
    ToolInfo,
    ToolInput,
    ToolOutput,
    ToolResult,
)
from hookproof.eino._retry import (
    Clock,
    ExceedMaxRetriesError,
    FailoverContext,
    ManualClock,
    ModelFailoverConfig,
    ModelRetryConfig,
    RetryContext,
    RetryDecision,
    RetryExhaustedError,
    SystemClock,
    default_backoff,
)
from hookproof.eino._run import AgentRun
from hookproof.eino._runlocal import (
    delete_run_local_value,
    get_run_local_value,
    send_event,
    set_run_local_value,
)
from hookproof.eino._serial import SerializationError, register_name
from hookproof.eino._tools import (
    EnhancedInvokableTool,
    EnhancedStreamableTool,
    InvokableTool,
    StreamableTool,
    select_endpoint,
)
from hookproof.errors import (
    EinoError,
    ExceedMaxIterationsError,
    HandlerError,
    RunContextError,
    ToolCallError,
    ToolNotFoundError,
    WillRetryError,
)

__all__ = [
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
]


if not TYPE_CHECKING:  # the old names warn at run time; mypy reports them as missing

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):  # the import system probes dunders; no alias is one
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from hookproof.compat import deprecated_alias

        return deprecated_alias(__name__, name)
