package hookproof_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	hookproof "github.com/hookproof/hookproof/go"
)

// searchTool answers every query with the same text.
type searchTool struct{ description string }

func (s searchTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{
		Name: "search",
		Desc: s.description,
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"q": {Type: schema.String, Desc: "what to look for", Required: true},
		}),
	}, nil
}

func (s searchTool) InvokableRun(_ context.Context, arguments string, _ ...tool.Option) (string, error) {
	return "found " + arguments, nil
}

// probe is a handler that defines every hook and leaves everything as it is (the trace
// records each call; a hook only inherited from the embedded base is not recorded).
type probe struct {
	*adk.BaseChatModelAgentMiddleware
}

func (*probe) BeforeAgent(ctx context.Context, run *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	return ctx, run, nil
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

type example struct {
	recorder *hookproof.RecordingChatModel
	trace    *hookproof.Trace
	events   []*adk.AgentEvent
}

// runExample runs a one-tool Eino agent on a two-turn script; the variant changes the
// instruction and the tool description, as an upgrade might.
func runExample(t *testing.T, variant string) example {
	t.Helper()
	ctx := context.Background()
	trace := hookproof.NewTrace()
	scripted := hookproof.NewScriptedChatModel(
		hookproof.Calls(hookproof.Call{Name: "search", Args: hookproof.NewObject("q", "weather")}),
		hookproof.Text("It is sunny."),
	)
	recorder := hookproof.NewRecordingChatModel(scripted)
	instruction, description := "You answer weather questions.", "Search the web."
	if variant == "upgraded" {
		instruction, description = "You answer weather questions briefly.", "Search the web for a query."
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "weather",
		Description: "answers weather questions",
		Instruction: instruction,
		Model:       trace.Model(recorder),
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
			Tools:               []tool.BaseTool{searchTool{description}},
			ExecuteSequentially: true,
		}},
		Handlers: []adk.ChatModelAgentMiddleware{
			trace.Handler("outer", &probe{}),
			trace.Handler("inner", &probe{}),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent})
	iterator := runner.Run(ctx, []adk.Message{schema.UserMessage("Weather in Paris?")})
	var events []*adk.AgentEvent
	for {
		event, ok := iterator.Next()
		if !ok {
			break
		}
		if event.Err != nil {
			t.Fatalf("the run failed: %v", event.Err)
		}
		events = append(events, event)
	}
	return example{recorder, trace, events}
}

func TestAnEinoAgentsFinalRequestIsSnapshot(t *testing.T) {
	run := runExample(t, os.Getenv("HOOKPROOF_EXAMPLE_VARIANT"))
	if len(run.recorder.Requests()) != 2 {
		t.Fatalf("expected two model calls, got %d", len(run.recorder.Requests()))
	}
	hookproof.Snapshot(t, run.recorder.Last(), "final_request")
}

func TestTheTraceRecordsEveryHandlerCallInOnionOrder(t *testing.T) {
	run := runExample(t, "")
	got := strings.Join(run.trace.Labels(), "\n")
	first := strings.Join([]string{
		"outer.before_agent:enter", "outer.before_agent:exit",
		"inner.before_agent:enter", "inner.before_agent:exit",
		"outer.before_model_rewrite_state:enter", "outer.before_model_rewrite_state:exit",
		"inner.before_model_rewrite_state:enter", "inner.before_model_rewrite_state:exit",
		"outer.wrap_model:enter", "inner.wrap_model:enter", "model:enter", "model:exit",
		"inner.wrap_model:exit", "outer.wrap_model:exit",
		"outer.after_model_rewrite_state:enter", "outer.after_model_rewrite_state:exit",
		"inner.after_model_rewrite_state:enter", "inner.after_model_rewrite_state:exit",
		"outer.tool_wrapper:enter", "inner.tool_wrapper:enter",
		"inner.tool_wrapper:exit", "outer.tool_wrapper:exit",
	}, "\n")
	if !strings.HasPrefix(got, first) {
		t.Fatalf("trace:\n%s\n\nexpected it to start with:\n%s", got, first)
	}
	last := "outer.after_agent:enter\nouter.after_agent:exit\ninner.after_agent:enter\ninner.after_agent:exit"
	if !strings.HasSuffix(got, last) {
		t.Fatalf("trace:\n%s\n\nexpected it to end with:\n%s", got, last)
	}
	format := run.trace.Format()
	if !strings.Contains(format, "    model:enter (model='scripted', tools=('search',))") {
		t.Fatalf("the model event is not described as Python describes it:\n%s", format)
	}
	if !strings.Contains(format, "\n  inner.tool_wrapper:enter (tool='search', call_id='call_0')\n") {
		t.Fatalf("the tool wrapper's events do not name the tool and the call id:\n%s", format)
	}
}

// The example of docs/concepts/go-eino.md, as written there.
func TestWeatherAgentFinalRequest(t *testing.T) {
	ctx := context.Background()
	recorder := hookproof.NewRecordingChatModel(hookproof.NewScriptedChatModel(
		hookproof.Calls(hookproof.Call{Name: "search", Args: hookproof.NewObject("q", "weather")}),
		hookproof.Text("It is sunny."),
	))
	agent, _ := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "weather", Description: "answers weather questions",
		Instruction: "You answer weather questions.", Model: recorder,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
			Tools: []tool.BaseTool{searchTool{}}}},
	})
	iterator := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).
		Run(ctx, []adk.Message{schema.UserMessage("Weather in Paris?")})
	for _, ok := iterator.Next(); ok; _, ok = iterator.Next() {
	}
	hookproof.Snapshot(t, recorder.Last(), "final_request")
}
