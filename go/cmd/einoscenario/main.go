// Command einoscenario runs scenarios on real Eino's ChatModelAgent with hookproof's scripted
// model, for the differential against hookproof.eino (`hookproof conformance --target eino`,
// src/hookproof/conformance/_eino_scenarios.py describes the scenario and the handler kinds).
// Each stdin line is a scenario; each stdout line is
// {"labels": [...], "requests": [rendered FinalRequests], "events": [...], "error": "..."}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	hookproof "github.com/hookproof/hookproof/go"
)

const checkpointID = "scenario"

type handlerSpec struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Tool string `json:"tool"`
	Hook string `json:"hook"`
}

type scenario struct {
	Script          []hookproof.Turn `json:"script"`
	Handlers        []handlerSpec    `json:"handlers"`
	MaxIterations   int              `json:"max_iterations"`
	ReturnDirectly  []string         `json:"return_directly"`
	Retries         int              `json:"retries"`
	Fallback        []hookproof.Turn `json:"fallback"`
	FailoverRetries uint             `json:"failover_retries"`
	Streaming       bool             `json:"streaming"`
	Interrupt       string           `json:"interrupt"`
	Resume          string           `json:"resume"`
	Reject          string           `json:"reject"`
	StreamableTools bool             `json:"streamable_tools"`
}

// outcome is what a run showed. Requests are rendered without provenance (what the model
// received: the differential compares them with every scenario); ProvenanceRequests are the
// same requests with the provenance the traced handlers noted.
type outcome struct {
	Labels             []string `json:"labels"`
	Requests           []string `json:"requests"`
	ProvenanceRequests []string `json:"provenance_requests"`
	Events             []string `json:"events"`
	Error              string   `json:"error"`
}

// echoTool answers "<prefix> <q>"; an interrupting one first interrupts, then answers
// "<prefix> <q> (<resume value>)".
type echoTool struct {
	name, description, prefix string
	interrupting              bool
}

func (e echoTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: e.name, Desc: e.description,
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"q": {Type: schema.String, Desc: "the query", Required: true},
		})}, nil
}

func (e echoTool) InvokableRun(ctx context.Context, arguments string, _ ...tool.Option) (string, error) {
	var args struct{ Q string }
	_ = json.Unmarshal([]byte(arguments), &args)
	if !e.interrupting {
		return e.prefix + " " + args.Q, nil
	}
	if wasInterrupted, _, _ := tool.GetInterruptState[any](ctx); !wasInterrupted {
		return "", tool.Interrupt(ctx, "approve?")
	}
	_, _, answer := tool.GetResumeContext[string](ctx)
	return fmt.Sprintf("%s %s (%s)", e.prefix, args.Q, answer), nil
}

// streamTool is echoTool as a streamable-only tool: it streams "<prefix>", " <q>".
type streamTool struct{ echoTool }

func (s streamTool) StreamableRun(_ context.Context, arguments string, _ ...tool.Option) (*schema.StreamReader[string], error) {
	var args struct{ Q string }
	_ = json.Unmarshal([]byte(arguments), &args)
	return schema.StreamReaderFromArray([]string{s.prefix, " " + args.Q}), nil
}

func tools(spec scenario) []tool.BaseTool {
	search := echoTool{"search", "Search the docs.", "found", spec.Interrupt == "search"}
	lookup := echoTool{"lookup", "Look a customer up.", "customer", spec.Interrupt == "lookup"}
	if spec.StreamableTools {
		return []tool.BaseTool{streamTool{search}, streamTool{lookup}}
	}
	return []tool.BaseTool{search, lookup}
}

// collect reads a stream to its end.
func collect[T any](stream *schema.StreamReader[T]) ([]T, error) {
	defer stream.Close()
	var items []T
	for {
		item, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return items, nil
		}
		if err != nil {
			return items, err
		}
		items = append(items, item)
	}
}

func boom(hook string) error { return errors.New("boom in " + hook) }

// probe defines the hooks the Python side's probe overrides, each leaving everything as it
// is (so the trace shows each); the other kinds define only the hooks they use.
type probe struct {
	*adk.BaseChatModelAgentMiddleware
}

func (*probe) BeforeAgent(ctx context.Context, runCtx *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	return ctx, runCtx, nil
}

func (*probe) AfterAgent(ctx context.Context, _ *adk.ChatModelAgentState) (context.Context, error) {
	return ctx, nil
}

func (*probe) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	return ctx, state, nil
}

func (*probe) AfterModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	return ctx, state, nil
}

func (*probe) WrapModel(_ context.Context, inner model.BaseChatModel, _ *adk.ModelContext) (model.BaseChatModel, error) {
	return inner, nil
}

func (*probe) WrapInvokableToolCall(_ context.Context, endpoint adk.InvokableToolCallEndpoint, _ *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	return endpoint, nil
}

func (*probe) WrapStreamableToolCall(_ context.Context, endpoint adk.StreamableToolCallEndpoint, _ *adk.ToolContext) (adk.StreamableToolCallEndpoint, error) {
	return endpoint, nil
}

// filter drops one tool from what the model is shown, before every model call.
type filter struct {
	*adk.BaseChatModelAgentMiddleware
	tool string
}

func (f *filter) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	state.ToolInfos, _ = withoutNamed(state.ToolInfos, f.tool, func(info *schema.ToolInfo) (string, error) {
		return info.Name, nil
	})
	return ctx, state, nil
}

// withoutNamed is items without those named drop, or the first error of naming one.
func withoutNamed[Item any](items []Item, drop string, nameOf func(Item) (string, error)) ([]Item, error) {
	var kept []Item
	for _, item := range items {
		name, err := nameOf(item)
		if err != nil {
			return nil, err
		}
		if name != drop {
			kept = append(kept, item)
		}
	}
	return kept, nil
}

// rewrite appends a user message naming the handler before every model call.
type rewrite struct {
	*adk.BaseChatModelAgentMiddleware
	name string
}

func (r *rewrite) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	state.Messages = append(state.Messages, schema.UserMessage("note from "+r.name))
	return ctx, state, nil
}

// agentContext changes the run's configuration in BeforeAgent: it appends a line naming
// the handler to the instruction and drops one tool, when it names one.
type agentContext struct {
	*adk.BaseChatModelAgentMiddleware
	name, tool string
}

func (a *agentContext) BeforeAgent(ctx context.Context, runCtx *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	runCtx.Instruction += "\n\nfrom " + a.name
	kept, err := withoutNamed(runCtx.Tools, a.tool, func(item tool.BaseTool) (string, error) {
		info, err := item.Info(ctx)
		if err != nil {
			return "", err
		}
		return info.Name, nil
	})
	if err != nil {
		return ctx, runCtx, err
	}
	runCtx.Tools = kept
	return ctx, runCtx, nil
}

// answer replaces, after each model call, a message of tool calls by a text answer.
type answer struct {
	*adk.BaseChatModelAgentMiddleware
	name string
}

func (a *answer) AfterModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	last := state.Messages[len(state.Messages)-1]
	if len(last.ToolCalls) > 0 {
		state.Messages[len(state.Messages)-1] = schema.AssistantMessage("answered by "+a.name, nil)
	}
	return ctx, state, nil
}

// failing returns an error from one hook, or from the model or tool endpoint it returns.
type failing struct {
	*adk.BaseChatModelAgentMiddleware
	hook string
}

func (f *failing) check(hook string) error {
	if f.hook == hook {
		return boom(hook)
	}
	return nil
}

func (f *failing) BeforeAgent(ctx context.Context, runCtx *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	return ctx, runCtx, f.check("before_agent")
}

func (f *failing) AfterAgent(ctx context.Context, _ *adk.ChatModelAgentState) (context.Context, error) {
	return ctx, f.check("after_agent")
}

func (f *failing) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	return ctx, state, f.check("before_model_rewrite_state")
}

func (f *failing) AfterModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	return ctx, state, f.check("after_model_rewrite_state")
}

type failingModel struct{}

func (failingModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return nil, boom("wrap_model_call")
}

func (failingModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, boom("wrap_model_call")
}

func (f *failing) WrapModel(_ context.Context, inner model.BaseChatModel, _ *adk.ModelContext) (model.BaseChatModel, error) {
	if err := f.check("wrap_model"); err != nil {
		return nil, err
	}
	if f.hook == "wrap_model_call" {
		return failingModel{}, nil
	}
	return inner, nil
}

func (f *failing) WrapStreamableToolCall(_ context.Context, endpoint adk.StreamableToolCallEndpoint, _ *adk.ToolContext) (adk.StreamableToolCallEndpoint, error) {
	if err := f.check("tool_wrapper"); err != nil {
		return nil, err
	}
	if f.hook == "tool_wrapper_call" {
		return func(context.Context, string, ...tool.Option) (*schema.StreamReader[string], error) {
			return nil, boom("tool_wrapper_call")
		}, nil
	}
	return endpoint, nil
}

func (f *failing) WrapInvokableToolCall(_ context.Context, endpoint adk.InvokableToolCallEndpoint, _ *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	if err := f.check("tool_wrapper"); err != nil {
		return nil, err
	}
	if f.hook == "tool_wrapper_call" {
		return func(context.Context, string, ...tool.Option) (string, error) {
			return "", boom("tool_wrapper_call")
		}, nil
	}
	return endpoint, nil
}

// runLocal counts model calls in a run-local value; tool results and AfterAgent show it.
type runLocal struct {
	*adk.BaseChatModelAgentMiddleware
}

const countKey = "calls"

func count(ctx context.Context) any {
	value, _, _ := adk.GetRunLocalValue(ctx, countKey)
	return value
}

func (r *runLocal) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	calls, _ := count(ctx).(int)
	return ctx, state, adk.SetRunLocalValue(ctx, countKey, calls+1)
}

func (r *runLocal) WrapInvokableToolCall(_ context.Context, endpoint adk.InvokableToolCallEndpoint, _ *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	return func(ctx context.Context, arguments string, opts ...tool.Option) (string, error) {
		out, err := endpoint(ctx, arguments, opts...)
		if err != nil {
			return out, err
		}
		return fmt.Sprintf("%s (calls=%v)", out, count(ctx)), nil
	}, nil
}

func (r *runLocal) WrapStreamableToolCall(_ context.Context, endpoint adk.StreamableToolCallEndpoint, _ *adk.ToolContext) (adk.StreamableToolCallEndpoint, error) {
	return func(ctx context.Context, arguments string, opts ...tool.Option) (*schema.StreamReader[string], error) {
		out, err := endpoint(ctx, arguments, opts...)
		if err != nil {
			return out, err
		}
		chunks, err := collect(out)
		if err != nil {
			return nil, err
		}
		chunks = append(chunks, fmt.Sprintf(" (calls=%v)", count(ctx)))
		return schema.StreamReaderFromArray(chunks), nil
	}, nil
}

func (r *runLocal) AfterAgent(ctx context.Context, _ *adk.ChatModelAgentState) (context.Context, error) {
	custom := fmt.Sprintf("calls=%v", count(ctx))
	return ctx, adk.SendEvent(ctx, &adk.AgentEvent{Output: &adk.AgentOutput{CustomizedOutput: custom}})
}

// dropOptions wraps the model in one that calls it without the options it receives (so
// without the tools, which reach the model only as an option).
type dropOptions struct {
	*adk.BaseChatModelAgentMiddleware
}

type optionless struct{ inner model.BaseChatModel }

func (o optionless) Generate(ctx context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	return o.inner.Generate(ctx, input)
}

func (o optionless) Stream(ctx context.Context, input []*schema.Message, _ ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return o.inner.Stream(ctx, input)
}

func (d *dropOptions) WrapModel(_ context.Context, inner model.BaseChatModel, _ *adk.ModelContext) (model.BaseChatModel, error) {
	return optionless{inner}, nil
}

// crossWire wraps the model in one whose Generate calls the inner Stream and whose Stream
// calls the inner Generate.
type crossWire struct {
	*adk.BaseChatModelAgentMiddleware
}

type crossWired struct{ inner model.BaseChatModel }

func (c crossWired) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	stream, err := c.inner.Stream(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.ConcatMessageStream(stream)
}

func (c crossWired) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	message, err := c.inner.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{message}), nil
}

func (c *crossWire) WrapModel(_ context.Context, inner model.BaseChatModel, _ *adk.ModelContext) (model.BaseChatModel, error) {
	return crossWired{inner}, nil
}

// sign wraps the model in one that appends " (signed by <name>)" to its answer: to the
// message, or as one more chunk of the stream.
type sign struct {
	*adk.BaseChatModelAgentMiddleware
	name string
}

type signedModel struct {
	inner model.BaseChatModel
	name  string
}

func (s signedModel) suffix() string { return " (signed by " + s.name + ")" }

func (s signedModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	message, err := s.inner.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	signed := *message
	signed.Content += s.suffix()
	return &signed, nil
}

func (s signedModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	stream, err := s.inner.Stream(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	chunks, err := collect(stream)
	if err != nil {
		return nil, err
	}
	chunks = append(chunks, schema.AssistantMessage(s.suffix(), nil))
	return schema.StreamReaderFromArray(chunks), nil
}

func (s *sign) WrapModel(_ context.Context, inner model.BaseChatModel, _ *adk.ModelContext) (model.BaseChatModel, error) {
	return signedModel{inner, s.name}, nil
}

// fresh returns, before the run's first model call, a new state with the messages only
// (its tool infos nil).
type fresh struct {
	*adk.BaseChatModelAgentMiddleware
}

func (f *fresh) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	for _, message := range state.Messages {
		if message.Role == schema.Assistant {
			return ctx, state, nil
		}
	}
	return ctx, &adk.ChatModelAgentState{Messages: state.Messages}, nil
}

// shrink drops the first of the tool infos it sees, before every model call.
type shrink struct {
	*adk.BaseChatModelAgentMiddleware
}

func (s *shrink) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	if len(state.ToolInfos) > 0 {
		state.ToolInfos = state.ToolInfos[1:]
	}
	return ctx, state, nil
}

// noIDs blanks the ids of the tool calls of each model answer, after the model call.
type noIDs struct {
	*adk.BaseChatModelAgentMiddleware
}

func (n *noIDs) AfterModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	last := *state.Messages[len(state.Messages)-1]
	last.ToolCalls = append([]schema.ToolCall(nil), last.ToolCalls...)
	for index := range last.ToolCalls {
		last.ToolCalls[index].ID = ""
	}
	state.Messages[len(state.Messages)-1] = &last
	return ctx, state, nil
}

func handler(spec handlerSpec) adk.ChatModelAgentMiddleware {
	switch spec.Kind {
	case "noids":
		return &noIDs{}
	case "dropopts":
		return &dropOptions{}
	case "crosswired":
		return &crossWire{}
	case "signed":
		return &sign{name: spec.Name}
	case "fresh":
		return &fresh{}
	case "shrink":
		return &shrink{}
	case "filter":
		return &filter{tool: spec.Tool}
	case "rewrite":
		return &rewrite{name: spec.Name}
	case "fail":
		return &failing{hook: spec.Hook}
	case "runlocal":
		return &runLocal{}
	case "agentctx":
		return &agentContext{name: spec.Name, tool: spec.Tool}
	case "answer":
		return &answer{name: spec.Name}
	}
	return &probe{}
}

func returnDirectly(names []string) map[string]bool {
	if len(names) == 0 {
		return nil
	}
	set := map[string]bool{}
	for _, name := range names {
		set[name] = true
	}
	return set
}

// store keeps checkpoints in memory.
type store struct {
	mu    sync.Mutex
	saved map[string][]byte
}

func (s *store) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.saved[id]
	return data, ok, nil
}

func (s *store) Set(_ context.Context, id string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saved[id] = data
	return nil
}

// agentRun is one scenario's agent, its models and its trace.
type agentRun struct {
	trace    *hookproof.Trace
	recorder *hookproof.RecordingChatModel
	fallback *hookproof.RecordingChatModel
	runner   *adk.Runner
}

func scripted(name string, turns []hookproof.Turn) *hookproof.RecordingChatModel {
	played := hookproof.NewScriptedChatModel(turns...)
	played.Name = name
	return hookproof.NewRecordingChatModel(played)
}

func newAgentRun(ctx context.Context, spec scenario) (*agentRun, error) {
	run := &agentRun{trace: hookproof.NewTrace(), recorder: scripted("scripted", spec.Script)}
	var handlers []adk.ChatModelAgentMiddleware
	for _, item := range spec.Handlers {
		handlers = append(handlers, run.trace.Handler(item.Name, handler(item)))
	}
	config := &adk.ChatModelAgentConfig{
		Name: "ChatModelAgent", Description: "scenario", Instruction: "Be brief.",
		Model: run.trace.Model(run.recorder), MaxIterations: spec.MaxIterations, Handlers: handlers,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
			Tools:               tools(spec),
			ExecuteSequentially: true,
		}, ReturnDirectly: returnDirectly(spec.ReturnDirectly)},
	}
	if spec.Retries >= 0 {
		config.ModelRetryConfig = &adk.ModelRetryConfig{
			MaxRetries:  spec.Retries,
			BackoffFunc: func(context.Context, int) time.Duration { return 0 },
		}
		if spec.Reject != "" {
			config.ModelRetryConfig.ShouldRetry = func(_ context.Context, attempt *adk.RetryContext) *adk.RetryDecision {
				rejected := attempt.OutputMessage != nil && attempt.OutputMessage.Content == spec.Reject
				if attempt.Err != nil || rejected {
					return &adk.RetryDecision{Retry: true}
				}
				return nil
			}
		}
	}
	if spec.Fallback != nil {
		run.fallback = scripted("fallback", spec.Fallback)
		fallback := run.trace.Model(run.fallback)
		config.ModelFailoverConfig = &adk.ModelFailoverConfig[*schema.Message]{
			MaxRetries:     spec.FailoverRetries,
			ShouldFailover: func(_ context.Context, _ *schema.Message, err error) bool { return err != nil },
			GetFailoverModel: func(context.Context, *adk.FailoverContext[*schema.Message]) (model.BaseModel[*schema.Message], []*schema.Message, error) {
				return fallback, nil, nil
			},
		}
	}
	agent, err := adk.NewChatModelAgent(ctx, config)
	if err != nil {
		return nil, err
	}
	run.runner = adk.NewRunner(ctx, adk.RunnerConfig{
		Agent: agent, EnableStreaming: spec.Streaming, CheckPointStore: &store{saved: map[string][]byte{}},
	})
	return run, nil
}

// eventLine is one event as the Python side prints it (_eino_python.event_line).
func eventLine(event *adk.AgentEvent) string {
	if event.Err != nil {
		return "error"
	}
	if event.Action != nil && event.Action.Interrupted != nil {
		return "interrupt"
	}
	if event.Output == nil {
		return "custom: None"
	}
	if event.Output.MessageOutput == nil {
		return fmt.Sprintf("custom: %v", event.Output.CustomizedOutput)
	}
	variant := event.Output.MessageOutput
	message := variant.Message
	head := string(variant.Role)
	if variant.ToolName != "" {
		head += " " + variant.ToolName
	}
	if variant.IsStreaming {
		head += " (stream)"
		concatenated, err := schema.ConcatMessageStream(variant.MessageStream)
		if err != nil {
			return head + ": stream error"
		}
		message = concatenated
	}
	line := head + ": " + message.Content
	if len(message.ToolCalls) > 0 {
		names := make([]string, len(message.ToolCalls))
		for index, call := range message.ToolCalls {
			names[index] = call.Function.Name
		}
		line += " [calls " + strings.Join(names, ",") + "]"
	}
	return line
}

// label is the event's label; a model event's also names the model and the tools it was
// shown (enter) or called (exit), as the Python side's model_label does.
func label(event hookproof.TraceEvent) string {
	model, ok := event.Data.Get("model")
	if event.Kind != "model" || !ok {
		return event.Label()
	}
	names, found := event.Data.Get("tools")
	if !found {
		names, _ = event.Data.Get("tool_calls")
	}
	listed, _ := names.([]string)
	return fmt.Sprintf("%s %v [%s]", event.Label(), model, strings.Join(listed, ","))
}

// drain reads every event; it returns the last error's text and the ids of the interrupts.
func drain(iterator *adk.AsyncIterator[*adk.AgentEvent], result *outcome) (failure string, interrupts []string) {
	for event, ok := iterator.Next(); ok; event, ok = iterator.Next() {
		result.Events = append(result.Events, eventLine(event))
		if event.Err != nil {
			failure = event.Err.Error()
		}
		if event.Action != nil && event.Action.Interrupted != nil {
			for _, point := range event.Action.Interrupted.InterruptContexts {
				if point.IsRootCause {
					interrupts = append(interrupts, point.ID)
				}
			}
		}
	}
	return failure, interrupts
}

func run(spec scenario) outcome {
	ctx := context.Background()
	agent, err := newAgentRun(ctx, spec)
	if err != nil {
		return outcome{Labels: []string{}, Requests: []string{}, ProvenanceRequests: []string{}, Events: []string{}, Error: err.Error()}
	}
	result := outcome{Labels: []string{}, Requests: []string{}, ProvenanceRequests: []string{}, Events: []string{}}
	var options []adk.AgentRunOption
	if spec.Interrupt != "" {
		options = append(options, adk.WithCheckPointID(checkpointID))
	}
	iterator := agent.runner.Run(ctx, []adk.Message{schema.UserMessage("hi")}, options...)
	failure, interrupts := drain(iterator, &result)
	if len(interrupts) > 0 {
		// hookproof's resume(value) answers every pending interrupt: target each of them
		params := &adk.ResumeParams{Targets: map[string]any{}}
		for _, id := range interrupts {
			params.Targets[id] = spec.Resume
		}
		resumed, err := agent.runner.ResumeWithParams(ctx, checkpointID, params)
		if err != nil {
			failure = err.Error()
		} else {
			failure, _ = drain(resumed, &result)
		}
	}
	result.Error = failure
	for _, event := range agent.trace.Events() {
		result.Labels = append(result.Labels, label(event))
	}
	requests := agent.recorder.Requests()
	if agent.fallback != nil {
		requests = append(requests, agent.fallback.Requests()...)
	}
	for _, request := range requests {
		plain := *request
		plain.Provenance = nil
		result.Requests = append(result.Requests, hookproof.Render(&plain))
		result.ProvenanceRequests = append(result.ProvenanceRequests, hookproof.Render(request))
	}
	return result
}

func main() {
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetEscapeHTML(false)
	for scanner.Scan() {
		var spec scenario
		if err := json.Unmarshal(scanner.Bytes(), &spec); err != nil {
			fmt.Fprintln(os.Stderr, "bad scenario:", err)
			os.Exit(2)
		}
		if err := encoder.Encode(run(spec)); err != nil {
			os.Exit(2)
		}
	}
}
