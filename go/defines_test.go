package hookproof

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
)

type ownPointerHooks struct {
	*adk.BaseChatModelAgentMiddleware
}

func (*ownPointerHooks) WrapModel(_ context.Context, inner model.BaseChatModel, _ *adk.ModelContext) (model.BaseChatModel, error) {
	return inner, nil
}

type ownValueHooks struct {
	*adk.BaseChatModelAgentMiddleware
}

func (ownValueHooks) AfterAgent(ctx context.Context, _ *adk.ChatModelAgentState) (context.Context, error) {
	return ctx, nil
}

// embeddedByValue embeds the base as a value, not a pointer.
type embeddedByValue struct {
	adk.BaseChatModelAgentMiddleware
}

func (*embeddedByValue) BeforeAgent(ctx context.Context, run *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	return ctx, run, nil
}

// decorated is a handler that embeds another handler (an interface field): it defines
// what the handler it holds defines, and its own methods.
type decorated struct {
	adk.ChatModelAgentMiddleware
}

func (decorated) AfterModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	return ctx, state, nil
}

// twoLevels embeds a handler type of the user's that embeds the base.
type twoLevels struct {
	ownPointerHooks
}

type generic[T any] struct {
	*adk.BaseChatModelAgentMiddleware
	value T
}

func (*generic[T]) WrapModel(_ context.Context, inner model.BaseChatModel, _ *adk.ModelContext) (model.BaseChatModel, error) {
	return inner, nil
}

func definedNames(handler adk.ChatModelAgentMiddleware) []string {
	names := []string{}
	for method, yes := range definedMethods(handler) {
		if yes {
			names = append(names, method)
		}
	}
	sort.Strings(names)
	return names
}

func TestOnlyTheMethodsAHandlerDefinesCountAsDefined(t *testing.T) {
	cases := []struct {
		name     string
		handler  adk.ChatModelAgentMiddleware
		expected []string
	}{
		{"the base itself", &adk.BaseChatModelAgentMiddleware{}, []string{}},
		{"a pointer-receiver method", &ownPointerHooks{}, []string{"WrapModel"}},
		{"a value-receiver method through a pointer", &ownValueHooks{}, []string{"AfterAgent"}},
		{"a value-receiver method on a value", ownValueHooks{}, []string{"AfterAgent"}},
		{"the base embedded as a value", &embeddedByValue{}, []string{"BeforeAgent"}},
		{"an embedded handler's methods", decorated{&ownPointerHooks{}}, []string{"AfterModelRewriteState", "WrapModel"}},
		{"two levels of embedding", &twoLevels{}, []string{"WrapModel"}},
		{"a generic handler", &generic[int]{}, []string{"WrapModel"}},
	}
	for _, item := range cases {
		if got := definedNames(item.handler); !reflect.DeepEqual(got, item.expected) {
			t.Errorf("%s: defined %v, expected %v", item.name, got, item.expected)
		}
	}
}

// A walk that cannot tell says "defined": a nil embedded handler, or none at all.
func TestAnUndecidableMethodCountsAsDefined(t *testing.T) {
	if got := definedNames(decorated{}); len(got) != len(handlerHooks) {
		t.Errorf("a nil embedded handler: defined %v, expected every method", got)
	}
	if got := definedNames(&ownPointerHooks{}); len(got) != 1 {
		t.Errorf("a nil embedded base: defined %v, expected only WrapModel", got)
	}
}

type refusing struct {
	*adk.BaseChatModelAgentMiddleware
}

func (refusing) BeforeAgent(ctx context.Context, run *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	return ctx, run, errors.New("no")
}

func (refusing) WrapInvokableToolCall(context.Context, adk.InvokableToolCallEndpoint, *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	return nil, errors.New("will not wrap")
}

func TestAFailingHookIsRecordedWithItsError(t *testing.T) {
	trace := NewTrace()
	handler := trace.Handler("refusing", refusing{})
	ctx := context.Background()
	if _, _, err := handler.BeforeAgent(ctx, &adk.ChatModelAgentContext{}); err == nil {
		t.Fatal("the handler's error was lost")
	}
	if _, err := handler.WrapInvokableToolCall(ctx, nil, &adk.ToolContext{Name: "search", CallID: "c1"}); err == nil {
		t.Fatal("the wrapper's error was lost")
	}
	expected := "refusing.before_agent:enter\nrefusing.before_agent:error (error='no')\n" +
		"refusing.tool_wrapper:enter (tool='search', call_id='c1')\n" +
		"refusing.tool_wrapper:error (tool='search', call_id='c1', error='will not wrap')"
	if got := trace.Format(); got != expected {
		t.Fatalf("trace:\n%s\nexpected:\n%s", got, expected)
	}
}
