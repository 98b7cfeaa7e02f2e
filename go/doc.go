// Package hookproof is the Go companion of hookproof, for Eino apps: a scripted chat model,
// a recording model that captures each FinalRequest the model received (with the provenance
// of its tools and system-prompt lines when the handlers are traced), snapshots in the
// format Python's hookproof writes (so `hookproof gate` compares two runs of a Go suite),
// redaction, and a trace of the handlers' hooks.
//
// # Tracing an app from its test
//
// An app builds its adk.ChatModelAgentConfig as usual; the test instruments it before
// building the agent, so the app needs no test-only code:
//
//	trace := hookproof.NewTrace()
//	agent, err := adk.NewChatModelAgent(ctx, trace.Instrument(app.AgentConfig(recorder)))
//
// Trace.Handler and Trace.Model wrap a single handler or model instead.
//
// # The trace's events
//
// Each event has a label "owner.hook:phase" (Label), and Format writes one line per event,
// indented by nesting, with its data as Python's repr would show it. Owner is the name the
// handler was traced under (Instrument: its Go type's name, "#1", "#2" ... when a type
// repeats). Phase is enter, then exit, or error with the error's text as data "error".
//
//	owner.before_agent:enter / :exit           BeforeAgent (kind "hook")
//	owner.before_model_rewrite_state:enter ... BeforeModelRewriteState, before each model call
//	owner.after_model_rewrite_state:enter ...  AfterModelRewriteState, after each model call
//	owner.after_agent:enter ...                AfterAgent
//	owner.wrap_model:enter ...                 a model call through the model WrapModel
//	                                           returned (kind "layer"); the layers nest,
//	                                           first handler outermost
//	owner.tool_wrapper:enter (tool='search', call_id='call_0') ...
//	                                           a tool call through the endpoint one of the
//	                                           four tool wrappers returned (kind "layer")
//	model:enter (model='scripted', tools=('search',))
//	model:exit (model='scripted', tool_calls=('search',))
//	                                           the model itself (Trace.Model), inside every
//	                                           wrap_model layer
//
// A wrapper that returns an error instead of an endpoint shows as the layer's enter
// followed at once by its error. Only the hooks a handler defines are recorded: a method
// it merely inherits from an embedded adk.BaseChatModelAgentMiddleware runs unrecorded, as
// Python's trace shows only the hooks a handler overrides. Eino runs a message's tool calls
// in parallel unless ToolsNodeConfig.ExecuteSequentially is set; set it for a trace whose
// order does not vary.
//
// # Eino versions
//
// The module needs Eino v0.9.0 or later (go.mod); its tests run on v0.9.0 and on the latest
// version hookproof is checked against (eino-latest.mod). Eino v0.8 is not supported: its
// handler interface has no AfterAgent and its ChatModelAgentState no ToolInfos, the hooks
// and state the trace and the provenance are built on.
package hookproof
