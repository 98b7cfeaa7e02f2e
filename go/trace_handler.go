package hookproof

import (
	"context"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
)

// Handler wraps an Eino ChatModelAgentMiddleware so each call of a hook it defines is
// recorded under name: BeforeAgent, BeforeModelRewriteState, AfterModelRewriteState and
// AfterAgent as hook events; WrapModel and the four tool wrappers as layer events around the
// endpoint they return, so the trace nests as the onion does. A method the handler only
// inherits from an embedded adk.BaseChatModelAgentMiddleware is called but not recorded, as
// Python's trace shows only the hooks a handler overrides (defines.go says how this is
// told). The wrapper also notes what the handler changed of the tools and the system
// prompt, for the provenance of RecordingChatModel's requests (record.go).
func (t *Trace) Handler(name string, inner adk.ChatModelAgentMiddleware) adk.ChatModelAgentMiddleware {
	return &recordedHandler{name: name, inner: inner, trace: t, defined: definedMethods(inner)}
}

type recordedHandler struct {
	name    string
	inner   adk.ChatModelAgentMiddleware
	trace   *Trace
	defined map[string]bool // by method name: whether the handler's own code defines it
}

// around runs call, recorded as method's hook (enter, then exit or error; data on each)
// when the handler defines method.
func (h *recordedHandler) around(method, kind string, data *Object, call func() error) error {
	if !h.defined[method] {
		return call()
	}
	hook := handlerHooks[method]
	h.trace.record(kind, hook, "enter", h.name, data)
	err := call()
	if err != nil {
		h.trace.record(kind, hook, "error", h.name, withError(data, err))
	} else {
		h.trace.record(kind, hook, "exit", h.name, data)
	}
	return err
}

// withError is data and then the error's text.
func withError(data *Object, err error) *Object {
	failed := NewObject()
	for index := 0; data != nil && index < len(data.Keys); index++ {
		failed.Set(data.Keys[index], data.Values[data.Keys[index]])
	}
	failed.Set("error", err.Error())
	return failed
}

func (h *recordedHandler) BeforeAgent(ctx context.Context, runCtx *adk.ChatModelAgentContext) (newCtx context.Context, newRun *adk.ChatModelAgentContext, err error) {
	received := agentShape(ctx, runCtx) // before the call: a handler may change runCtx in place
	rec := startRecord(ctx, received)
	ctx = withRecord(ctx, recordKey{}, rec)
	err = h.around("BeforeAgent", "hook", nil, func() error {
		newCtx, newRun, err = h.inner.BeforeAgent(ctx, runCtx)
		return err
	})
	if err == nil {
		rec.noteAgent(h.name, received, agentShape(ctx, newRun))
	}
	return withRecord(newCtx, recordKey{}, rec), newRun, err
}

func (h *recordedHandler) AfterAgent(ctx context.Context, state *adk.ChatModelAgentState) (newCtx context.Context, err error) {
	err = h.around("AfterAgent", "hook", nil, func() error {
		newCtx, err = h.inner.AfterAgent(ctx, state)
		return err
	})
	return newCtx, err
}

func (h *recordedHandler) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, mc *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	rec := recordOf(ctx, recordKey{})
	ctx = withRecord(ctx, callKey{}, rec) // this context reaches the model call
	newCtx, newState, err := h.rewriteState(ctx, "BeforeModelRewriteState", state, mc, h.inner.BeforeModelRewriteState)
	return withRecord(newCtx, callKey{}, rec), newState, err
}

func (h *recordedHandler) AfterModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, mc *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	return h.rewriteState(ctx, "AfterModelRewriteState", state, mc, h.inner.AfterModelRewriteState)
}

type stateHook func(context.Context, *adk.ChatModelAgentState, *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error)

// rewriteState calls one of the inner handler's two state hooks (method), recorded, and
// notes in the run's record what it changed of the state.
func (h *recordedHandler) rewriteState(ctx context.Context, method string, state *adk.ChatModelAgentState, mc *adk.ModelContext, inner stateHook) (newCtx context.Context, newState *adk.ChatModelAgentState, err error) {
	rec, before := recordOf(ctx, recordKey{}), stateShape(state)
	err = h.around(method, "hook", nil, func() error {
		newCtx, newState, err = inner(ctx, state, mc)
		return err
	})
	if rec != nil && err == nil {
		rec.noteState(h.name, before, stateShape(newState))
	}
	return withRecord(newCtx, recordKey{}, rec), newState, err
}

func (h *recordedHandler) WrapModel(ctx context.Context, inner model.BaseChatModel, mc *adk.ModelContext) (model.BaseChatModel, error) {
	if !h.defined["WrapModel"] {
		return h.inner.WrapModel(ctx, inner, mc)
	}
	layer := &layerModel{handler: h}
	wrapped, err := h.inner.WrapModel(ctx, &passedModel{layer: layer, inner: inner}, mc)
	if err != nil {
		return nil, h.wrapError("wrap_model", nil, err)
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
	err = m.handler.around("WrapModel", "layer", nil, func() error {
		out, err = m.inner.Generate(ctx, input, opts...)
		return err
	})
	return out, err
}

func (m *layerModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (out *schema.StreamReader[*schema.Message], err error) {
	ctx = m.received(ctx, input, opts)
	err = m.handler.around("WrapModel", "layer", nil, func() error {
		out, err = m.inner.Stream(ctx, input, opts...)
		return err
	})
	return out, err
}

// wrapError records a wrapper's refusal to wrap as a layer that failed on entry.
func (h *recordedHandler) wrapError(hook string, data *Object, err error) error {
	h.trace.record("layer", hook, "enter", h.name, data)
	h.trace.record("layer", hook, "error", h.name, withError(data, err))
	return err
}

func (h *recordedHandler) WrapInvokableToolCall(ctx context.Context, endpoint adk.InvokableToolCallEndpoint, tCtx *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	wrapped, err := h.inner.WrapInvokableToolCall(ctx, endpoint, tCtx)
	return toolLayer(h, "WrapInvokableToolCall", tCtx, wrapped, err)
}

func (h *recordedHandler) WrapStreamableToolCall(ctx context.Context, endpoint adk.StreamableToolCallEndpoint, tCtx *adk.ToolContext) (adk.StreamableToolCallEndpoint, error) {
	wrapped, err := h.inner.WrapStreamableToolCall(ctx, endpoint, tCtx)
	return toolLayer(h, "WrapStreamableToolCall", tCtx, wrapped, err)
}

func (h *recordedHandler) WrapEnhancedInvokableToolCall(ctx context.Context, endpoint adk.EnhancedInvokableToolCallEndpoint, tCtx *adk.ToolContext) (adk.EnhancedInvokableToolCallEndpoint, error) {
	wrapped, err := h.inner.WrapEnhancedInvokableToolCall(ctx, endpoint, tCtx)
	return toolLayer(h, "WrapEnhancedInvokableToolCall", tCtx, wrapped, err)
}

func (h *recordedHandler) WrapEnhancedStreamableToolCall(ctx context.Context, endpoint adk.EnhancedStreamableToolCallEndpoint, tCtx *adk.ToolContext) (adk.EnhancedStreamableToolCallEndpoint, error) {
	wrapped, err := h.inner.WrapEnhancedStreamableToolCall(ctx, endpoint, tCtx)
	return toolLayer(h, "WrapEnhancedStreamableToolCall", tCtx, wrapped, err)
}

// toolLayer records the endpoint the tool wrapper method returned (wrapped, or the error
// instead of it) as a tool_wrapper layer around each call of it, naming the tool and the
// call id. A wrapper the handler does not define is passed through unrecorded.
func toolLayer[Argument, Result any](h *recordedHandler, method string, tCtx *adk.ToolContext, wrapped func(context.Context, Argument, ...tool.Option) (Result, error), err error) (func(context.Context, Argument, ...tool.Option) (Result, error), error) {
	if !h.defined[method] {
		return wrapped, err
	}
	data := NewObject()
	if tCtx != nil {
		data = NewObject("tool", tCtx.Name, "call_id", tCtx.CallID)
	}
	if err != nil {
		return nil, h.wrapError(handlerHooks[method], data, err)
	}
	return func(ctx context.Context, argument Argument, opts ...tool.Option) (out Result, err error) {
		err = h.around(method, "layer", data, func() error {
			out, err = wrapped(ctx, argument, opts...)
			return err
		})
		return out, err
	}, nil
}
