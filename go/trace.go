package hookproof

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
)

// TraceEvent is one step of a run, with the fields of Python's hookproof.trace.TraceEvent:
// kind is hook (BeforeAgent, the rewrite-state hooks, AfterAgent), layer (WrapModel and the
// tool wrappers), model or tool; phase is enter, exit or error.
type TraceEvent struct {
	Seq        int     `json:"seq"`
	Kind       string  `json:"kind"`
	Hook       string  `json:"hook"`
	Phase      string  `json:"phase"`
	Middleware string  `json:"middleware,omitempty"`
	Depth      int     `json:"depth"`
	Data       *Object `json:"data,omitempty"`
}

// Label is "middleware.hook:phase", as in Python.
func (e TraceEvent) Label() string {
	owner := ""
	if e.Middleware != "" {
		owner = e.Middleware + "."
	}
	return owner + e.Hook + ":" + e.Phase
}

// Describe is the event's line in Trace.Format (Python's TraceEvent.describe).
func (e TraceEvent) Describe() string {
	line := strings.Repeat("  ", e.Depth) + e.Label()
	if e.Data.Len() == 0 {
		return line
	}
	details := make([]string, 0, e.Data.Len())
	for _, key := range e.Data.Keys {
		details = append(details, key+"="+pythonRepr(e.Data.Values[key]))
	}
	return line + " (" + strings.Join(details, ", ") + ")"
}

// Trace records the middleware calls of a run in hookproof's trace format. Tools run in
// parallel by default in Eino; set ToolsConfig.ExecuteSequentially for a deterministic trace.
type Trace struct {
	mu     sync.Mutex
	events []TraceEvent
	depth  int
}

// NewTrace starts an empty trace.
func NewTrace() *Trace { return &Trace{} }

func (t *Trace) record(kind, hook, phase, owner string, data *Object) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if phase != "enter" {
		t.depth--
	}
	t.events = append(t.events, TraceEvent{len(t.events), kind, hook, phase, owner, t.depth, data})
	if phase == "enter" {
		t.depth++
	}
}

// Events are the events so far.
func (t *Trace) Events() []TraceEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]TraceEvent(nil), t.events...)
}

// Labels are the events' labels.
func (t *Trace) Labels() []string {
	var labels []string
	for _, event := range t.Events() {
		labels = append(labels, event.Label())
	}
	return labels
}

// Format is one indented line per event, as Python's Trace.format.
func (t *Trace) Format() string {
	var lines []string
	for _, event := range t.Events() {
		lines = append(lines, event.Describe())
	}
	return strings.Join(lines, "\n")
}

// pythonRepr writes a value as Python's repr would: strings quoted, lists as tuples.
func pythonRepr(value any) string {
	switch typed := value.(type) {
	case nil:
		return "None"
	case bool:
		if typed {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(typed)
	case string:
		return pythonStringRepr(typed)
	case []string:
		items := make([]string, len(typed))
		for index, item := range typed {
			items[index] = pythonStringRepr(item)
		}
		if len(items) == 1 {
			return "(" + items[0] + ",)"
		}
		return "(" + strings.Join(items, ", ") + ")"
	}
	return pythonStringRepr(fmt.Sprint(value))
}

func pythonStringRepr(text string) string {
	quote := "'"
	if strings.Contains(text, "'") && !strings.Contains(text, `"`) {
		quote = `"`
	}
	var out strings.Builder
	out.WriteString(quote)
	for _, char := range text {
		if char == '\\' || string(char) == quote {
			out.WriteString(`\` + string(char))
		} else if !writeEscape(&out, char, isASCIIControl) {
			out.WriteRune(char)
		}
	}
	out.WriteString(quote)
	return out.String()
}

// Handler wraps an Eino ChatModelAgentMiddleware so every call of it is recorded under
// name: BeforeAgent, BeforeModelRewriteState, AfterModelRewriteState and AfterAgent as hook
// events; WrapModel and the four tool wrappers as layer events around the endpoint they
// return, so the trace nests as the onion does. The wrapper also notes what the handler
// changed of the tools and the system prompt, for the provenance of RecordingChatModel's
// requests (record.go).
func (t *Trace) Handler(name string, inner adk.ChatModelAgentMiddleware) adk.ChatModelAgentMiddleware {
	return &recordedHandler{name: name, inner: inner, trace: t}
}

type recordedHandler struct {
	name  string
	inner adk.ChatModelAgentMiddleware
	trace *Trace
}

func (h *recordedHandler) around(kind, hook string, call func() error) error {
	h.trace.record(kind, hook, "enter", h.name, nil)
	err := call()
	if err != nil {
		h.trace.record(kind, hook, "error", h.name, NewObject("error", err.Error()))
	} else {
		h.trace.record(kind, hook, "exit", h.name, nil)
	}
	return err
}

func (h *recordedHandler) BeforeAgent(ctx context.Context, runCtx *adk.ChatModelAgentContext) (newCtx context.Context, newRun *adk.ChatModelAgentContext, err error) {
	received := agentShape(ctx, runCtx) // before the call: a handler may change runCtx in place
	rec := startRecord(ctx, received)
	ctx = withRecord(ctx, recordKey{}, rec)
	err = h.around("hook", "before_agent", func() error {
		newCtx, newRun, err = h.inner.BeforeAgent(ctx, runCtx)
		return err
	})
	if err == nil {
		rec.noteAgent(h.name, received, agentShape(ctx, newRun))
	}
	return withRecord(newCtx, recordKey{}, rec), newRun, err
}

func (h *recordedHandler) AfterAgent(ctx context.Context, state *adk.ChatModelAgentState) (newCtx context.Context, err error) {
	err = h.around("hook", "after_agent", func() error {
		newCtx, err = h.inner.AfterAgent(ctx, state)
		return err
	})
	return newCtx, err
}

func (h *recordedHandler) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, mc *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	rec := recordOf(ctx, recordKey{})
	ctx = withRecord(ctx, callKey{}, rec) // this context reaches the model call
	newCtx, newState, err := h.rewriteState(ctx, "before_model_rewrite_state", state, mc, h.inner.BeforeModelRewriteState)
	return withRecord(newCtx, callKey{}, rec), newState, err
}

func (h *recordedHandler) AfterModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, mc *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	return h.rewriteState(ctx, "after_model_rewrite_state", state, mc, h.inner.AfterModelRewriteState)
}

type stateHook func(context.Context, *adk.ChatModelAgentState, *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error)

// rewriteState calls one of the inner handler's two state hooks, recorded as hook, and notes
// in the run's record what it changed of the state.
func (h *recordedHandler) rewriteState(ctx context.Context, hook string, state *adk.ChatModelAgentState, mc *adk.ModelContext, inner stateHook) (newCtx context.Context, newState *adk.ChatModelAgentState, err error) {
	rec, before := recordOf(ctx, recordKey{}), stateShape(state)
	err = h.around("hook", hook, func() error {
		newCtx, newState, err = inner(ctx, state, mc)
		return err
	})
	if rec != nil && err == nil {
		rec.noteState(h.name, before, stateShape(newState))
	}
	return withRecord(newCtx, recordKey{}, rec), newState, err
}

func (h *recordedHandler) WrapModel(ctx context.Context, inner model.BaseChatModel, mc *adk.ModelContext) (model.BaseChatModel, error) {
	layer := &layerModel{handler: h}
	wrapped, err := h.inner.WrapModel(ctx, &passedModel{layer: layer, inner: inner}, mc)
	if err != nil {
		return nil, h.wrapError("wrap_model", err)
	}
	layer.inner = wrapped
	return layer, nil
}

type layerModel struct {
	handler *recordedHandler
	inner   model.BaseChatModel
}

// received puts what this layer was called with in ctx, for its passedModel to compare.
func (m *layerModel) received(ctx context.Context, input []*schema.Message, opts []model.Option) context.Context {
	return context.WithValue(ctx, layerKey{m}, &received{input, opts})
}

func (m *layerModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (out *schema.Message, err error) {
	ctx = m.received(ctx, input, opts)
	err = m.handler.around("layer", "wrap_model", func() error {
		out, err = m.inner.Generate(ctx, input, opts...)
		return err
	})
	return out, err
}

func (m *layerModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (out *schema.StreamReader[*schema.Message], err error) {
	ctx = m.received(ctx, input, opts)
	err = m.handler.around("layer", "wrap_model", func() error {
		out, err = m.inner.Stream(ctx, input, opts...)
		return err
	})
	return out, err
}

func (h *recordedHandler) wrapError(hook string, err error) error {
	h.trace.record("layer", hook, "enter", h.name, nil)
	h.trace.record("layer", hook, "error", h.name, NewObject("error", err.Error()))
	return err
}

func (h *recordedHandler) WrapInvokableToolCall(ctx context.Context, endpoint adk.InvokableToolCallEndpoint, tCtx *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	wrapped, err := h.inner.WrapInvokableToolCall(ctx, endpoint, tCtx)
	return toolLayer(h, wrapped, err)
}

func (h *recordedHandler) WrapStreamableToolCall(ctx context.Context, endpoint adk.StreamableToolCallEndpoint, tCtx *adk.ToolContext) (adk.StreamableToolCallEndpoint, error) {
	wrapped, err := h.inner.WrapStreamableToolCall(ctx, endpoint, tCtx)
	return toolLayer(h, wrapped, err)
}

func (h *recordedHandler) WrapEnhancedInvokableToolCall(ctx context.Context, endpoint adk.EnhancedInvokableToolCallEndpoint, tCtx *adk.ToolContext) (adk.EnhancedInvokableToolCallEndpoint, error) {
	wrapped, err := h.inner.WrapEnhancedInvokableToolCall(ctx, endpoint, tCtx)
	return toolLayer(h, wrapped, err)
}

func (h *recordedHandler) WrapEnhancedStreamableToolCall(ctx context.Context, endpoint adk.EnhancedStreamableToolCallEndpoint, tCtx *adk.ToolContext) (adk.EnhancedStreamableToolCallEndpoint, error) {
	wrapped, err := h.inner.WrapEnhancedStreamableToolCall(ctx, endpoint, tCtx)
	return toolLayer(h, wrapped, err)
}

// toolLayer records the endpoint one of the four tool wrappers returned (wrapped, or the
// error instead of it) as a tool_wrapper layer around each call of it.
func toolLayer[Argument, Result any](h *recordedHandler, wrapped func(context.Context, Argument, ...tool.Option) (Result, error), err error) (func(context.Context, Argument, ...tool.Option) (Result, error), error) {
	const hook = "tool_wrapper"
	if err != nil {
		return nil, h.wrapError(hook, err)
	}
	return func(ctx context.Context, argument Argument, opts ...tool.Option) (out Result, err error) {
		err = h.around("layer", hook, func() error {
			out, err = wrapped(ctx, argument, opts...)
			return err
		})
		return out, err
	}, nil
}

// Model wraps the innermost model so each call is recorded as a model event (with the
// model's name and tool names in, the tool calls out), inside every WrapModel layer.
func (t *Trace) Model(inner model.ToolCallingChatModel) model.ToolCallingChatModel {
	return &tracedModel{trace: t, inner: inner}
}

type tracedModel struct {
	trace *Trace
	inner model.ToolCallingChatModel
	tools []*schema.ToolInfo
}

func (m *tracedModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	inner, err := m.inner.WithTools(tools)
	if err != nil {
		return nil, err
	}
	return &tracedModel{trace: m.trace, inner: inner, tools: tools}, nil
}

func (m *tracedModel) enter(opts []model.Option) {
	options := model.GetCommonOptions(&model.Options{Tools: m.tools}, opts...)
	names := []string{}
	for _, info := range options.Tools {
		names = append(names, info.Name)
	}
	sort.Strings(names)
	m.trace.record("model", "model", "enter", "", NewObject("model", modelName(m.inner), "tools", names))
}

func (m *tracedModel) exit(out *schema.Message, err error) {
	if err != nil {
		m.trace.record("model", "model", "error", "", NewObject("error", err.Error()))
		return
	}
	calls := []string{}
	for _, call := range out.ToolCalls {
		calls = append(calls, call.Function.Name)
	}
	m.trace.record("model", "model", "exit", "", NewObject("model", modelName(m.inner), "tool_calls", calls))
}

func (m *tracedModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	m.enter(opts)
	out, err := m.inner.Generate(ctx, input, opts...)
	m.exit(out, err)
	return out, err
}

func (m *tracedModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m.enter(opts)
	out, err := m.inner.Generate(ctx, input, opts...)
	m.exit(out, err)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{out}), nil
}

// ModelName is the inner model's name.
func (m *tracedModel) ModelName() string { return modelName(m.inner) }

// -- provenance notes (record.go): the shapes the hooks see, and the WrapModel probe ------

// layerKey holds, in a WrapModel layer's context, what the layer was called with.
type layerKey struct{ layer *layerModel }

func agentShape(ctx context.Context, run *adk.ChatModelAgentContext) requestShape {
	if run == nil {
		return requestShape{}
	}
	return requestShape{baseToolSchemas(ctx, run.Tools), instructionLines(run.Instruction)}
}

func stateShape(state *adk.ChatModelAgentState) requestShape {
	if state == nil {
		return requestShape{}
	}
	return requestShape{infoSchemas(state.ToolInfos), systemLines(state.Messages)}
}

// received is what a WrapModel layer was called with, for the model it passes a call on to.
type received struct {
	input []*schema.Message
	opts  []model.Option
}

// passedModel is the inner model a traced handler's WrapModel wraps: it compares what the
// handler's wrapper passes on with what the wrapper received, and notes a change while the
// inner call lasts.
type passedModel struct {
	layer *layerModel
	inner model.BaseChatModel
}

func (p *passedModel) note(ctx context.Context, input []*schema.Message, opts []model.Option) func() {
	rec := recordOf(ctx, callKey{})
	got, _ := ctx.Value(layerKey{p.layer}).(*received)
	if rec == nil || got == nil {
		return func() {}
	}
	before, after := callShape(got.input, got.opts), callShape(input, opts)
	if sameShape(before, after) {
		return func() {}
	}
	rec.pushLayer(provenanceEdit{p.layer.handler.name, before, after})
	return rec.popLayer
}

func (p *passedModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	defer p.note(ctx, input, opts)()
	return p.inner.Generate(ctx, input, opts...)
}

func (p *passedModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	defer p.note(ctx, input, opts)()
	return p.inner.Stream(ctx, input, opts...)
}
