package hookproof

import (
	"context"
	"sort"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

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
