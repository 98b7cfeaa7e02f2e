package hookproof_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	hookproof "github.com/hookproof/hookproof/go"
)

type namedTool struct{ name string }

func (n namedTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: n.name, Desc: "The " + n.name + " tool."}, nil
}

func (n namedTool) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return n.name + " done", nil
}

// rules appends a line to the instruction and drops the lookup tool, in BeforeAgent.
type rules struct {
	*adk.BaseChatModelAgentMiddleware
}

func (rules) BeforeAgent(ctx context.Context, run *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	run.Instruction += "\nBe brief."
	var kept []tool.BaseTool
	for _, item := range run.Tools {
		if info, _ := item.Info(ctx); info.Name != "lookup" {
			kept = append(kept, item)
		}
	}
	run.Tools = kept
	return ctx, run, nil
}

// toolFilter drops the fetch tool from the state, in place, before every model call.
type toolFilter struct {
	*adk.BaseChatModelAgentMiddleware
}

func (toolFilter) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	var kept []*schema.ToolInfo
	for _, info := range state.ToolInfos {
		if info.Name != "fetch" {
			kept = append(kept, info)
		}
	}
	state.ToolInfos = kept
	return ctx, state, nil
}

// prompt inserts a line in the middle of the system message (once: the state keeps it).
type prompt struct {
	*adk.BaseChatModelAgentMiddleware
}

func (prompt) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	system := state.Messages[0]
	if !strings.Contains(system.Content, "Cite sources.") {
		lines := strings.Split(system.Content, "\n")
		lines = append([]string{lines[0], "Cite sources."}, lines[1:]...)
		messages := append([]*schema.Message{schema.SystemMessage(strings.Join(lines, "\n"))}, state.Messages[1:]...)
		return ctx, &adk.ChatModelAgentState{Messages: messages, ToolInfos: state.ToolInfos}, nil
	}
	return ctx, state, nil
}

// describer's wrapper passes the model another search description, an extra tool and a
// last system line.
type describer struct {
	*adk.BaseChatModelAgentMiddleware
}

func (describer) WrapModel(_ context.Context, inner model.BaseChatModel, _ *adk.ModelContext) (model.BaseChatModel, error) {
	return describedModel{inner}, nil
}

type describedModel struct{ inner model.BaseChatModel }

func (d describedModel) change(input []*schema.Message, opts []model.Option) ([]*schema.Message, []model.Option) {
	tools := model.GetCommonOptions(&model.Options{}, opts...).Tools
	var changed []*schema.ToolInfo
	for _, info := range tools {
		copied := *info
		if copied.Name == "search" {
			copied.Desc = "Search, described by the wrapper."
		}
		changed = append(changed, &copied)
	}
	changed = append(changed, &schema.ToolInfo{Name: "extra", Desc: "Added by the wrapper."})
	messages := append([]*schema.Message{schema.SystemMessage(input[0].Content + "\n(wrapped)")}, input[1:]...)
	return messages, append(opts, model.WithTools(changed))
}

func (d describedModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	input, opts = d.change(input, opts)
	return d.inner.Generate(ctx, input, opts...)
}

func (d describedModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	input, opts = d.change(input, opts)
	return d.inner.Stream(ctx, input, opts...)
}

func runTraced(t *testing.T, trace *hookproof.Trace, prefix string, handlers ...adk.ChatModelAgentMiddleware) *hookproof.RecordingChatModel {
	t.Helper()
	ctx := context.Background()
	recorder := hookproof.NewRecordingChatModel(hookproof.NewScriptedChatModel(
		hookproof.Calls(hookproof.Call{Name: "search", Args: hookproof.NewObject("q", "x")}),
		hookproof.Text("done"),
	))
	names := []string{"Rules", "Filter", "Prompt", "Describer"}
	var traced []adk.ChatModelAgentMiddleware
	for index, handler := range handlers {
		traced = append(traced, trace.Handler(prefix+names[index], handler))
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "helper", Description: "helps", Instruction: "You help.", Model: trace.Model(recorder),
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
			Tools:               []tool.BaseTool{namedTool{"search"}, namedTool{"lookup"}, namedTool{"fetch"}},
			ExecuteSequentially: true,
		}},
		Handlers: traced,
	})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(ctx, t, agent)
	return recorder
}

// runToEnd runs agent on "hi" and fails t on the first event that carries an error.
func runToEnd(ctx context.Context, t *testing.T, agent adk.Agent) {
	t.Helper()
	iterator := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Run(ctx, []adk.Message{schema.UserMessage("hi")})
	for event, ok := iterator.Next(); ok; event, ok = iterator.Next() {
		if event.Err != nil {
			t.Fatalf("the run failed: %v", event.Err)
		}
	}
}

func provenanceSection(request *hookproof.FinalRequest) string {
	text := hookproof.Render(request)
	if cut := strings.Index(text, "\nprovenance:\n"); cut >= 0 {
		return text[cut+1:]
	}
	return ""
}

// sharedVector is a file of testdata/vectors/render that the Python suite reads too.
func sharedVector(t *testing.T, name string) string {
	t.Helper()
	shared, err := os.ReadFile("../testdata/vectors/render/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(shared)
}

// The trace shows only the hooks each handler defines (each embeds the base and defines one
// or two), as hookproof.eino's trace of the same handlers does
// (tests/go/test_eino_handlers_provenance.py reads the same file).
func TestTracedHandlersShowOnlyTheHooksTheyDefine(t *testing.T) {
	trace := hookproof.NewTrace()
	runTraced(t, trace, "", rules{}, toolFilter{}, prompt{}, describer{})
	var lines []string
	for _, event := range trace.Events() {
		lines = append(lines, strings.TrimLeft(event.Describe(), " "))
	}
	if got, expected := strings.Join(lines, "\n")+"\n", sharedVector(t, "eino_handlers_trace.txt"); got != expected {
		t.Fatalf("trace:\n%s\nexpected:\n%s", got, expected)
	}
}

func TestTracedHandlersGiveEachModelCallItsProvenance(t *testing.T) {
	recorder := runTraced(t, hookproof.NewTrace(), "", rules{}, toolFilter{}, prompt{}, describer{})
	// hookproof.eino gives the same handlers the same provenance (tests/go/test_eino_handlers_provenance.py)
	shared, err := os.ReadFile("../testdata/vectors/render/eino_handlers_provenance.txt")
	if err != nil {
		t.Fatal(err)
	}
	expected := string(shared)
	requests := recorder.Requests()
	if len(requests) != 2 {
		t.Fatalf("expected two model calls, got %d", len(requests))
	}
	for index, request := range requests {
		if got := provenanceSection(request); got != expected {
			t.Errorf("model call %d: provenance\n%s\nexpected\n%s", index+1, got, expected)
		}
		if !strings.HasPrefix(hookproof.Render(request), "hookproof final request, format 2\n") {
			t.Errorf("model call %d is not rendered as format 2", index+1)
		}
	}
}

func TestConcurrentRunsOnOneTraceKeepTheirOwnProvenance(t *testing.T) {
	trace := hookproof.NewTrace()
	var wait sync.WaitGroup
	recorders := make([]*hookproof.RecordingChatModel, 4)
	for index := range recorders {
		wait.Add(1)
		go func() {
			defer wait.Done()
			recorders[index] = runTraced(t, trace, fmt.Sprintf("run%d.", index), rules{}, toolFilter{})
		}()
	}
	wait.Wait()
	for index, recorder := range recorders {
		got := provenanceSection(recorder.Last())
		expected := fmt.Sprintf("provenance:\n  system 1: agent\n  system 2: run%[1]d.Rules\n"+
			"  tool fetch: registered by agent; removed by run%[1]d.Filter\n"+
			"  tool lookup: registered by agent; removed by run%[1]d.Rules\n"+
			"  tool search: registered by agent\n", index)
		if got != expected {
			t.Errorf("run %d: provenance\n%s\nexpected\n%s", index, got, expected)
		}
	}
}

func TestARunWithoutTracedHandlersHasNoProvenance(t *testing.T) {
	recorder := runTraced(t, hookproof.NewTrace(), "")
	if recorder.Last().Provenance != nil {
		t.Fatalf("provenance without traced handlers: %+v", recorder.Last().Provenance)
	}
	if !strings.HasPrefix(hookproof.Render(recorder.Last()), "hookproof final request, format 1\n") {
		t.Fatal("a request without provenance is not rendered as format 1")
	}
}

// A sub-agent run from a tool of a traced run: without traced handlers it gets no
// provenance (not its parent's); with them, its own.
func TestASubAgentDoesNotTakeItsParentsProvenance(t *testing.T) {
	for _, traced := range []bool{false, true} {
		ctx := context.Background()
		trace := hookproof.NewTrace()
		sub := hookproof.NewRecordingChatModel(hookproof.NewScriptedChatModel(hookproof.Text("sub done")))
		var subHandlers []adk.ChatModelAgentMiddleware
		if traced {
			subHandlers = append(subHandlers, trace.Handler("SubRules", rules{}))
		}
		subAgent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: "sub", Description: "a sub-agent", Instruction: "You are the sub-agent.", Model: sub,
			Handlers: subHandlers,
		})
		if err != nil {
			t.Fatal(err)
		}
		parent := hookproof.NewRecordingChatModel(hookproof.NewScriptedChatModel(
			hookproof.Calls(hookproof.Call{Name: "sub", Args: hookproof.NewObject("request", "go")}),
			hookproof.Text("done"),
		))
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: "parent", Description: "the parent", Instruction: "You delegate.", Model: parent,
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
				Tools: []tool.BaseTool{adk.NewAgentTool(ctx, subAgent), namedTool{"lookup"}},
			}},
			Handlers: []adk.ChatModelAgentMiddleware{trace.Handler("Rules", rules{})},
		})
		if err != nil {
			t.Fatal(err)
		}
		runToEnd(ctx, t, agent)
		if len(sub.Requests()) != 1 || len(parent.Requests()) != 2 {
			t.Fatalf("model calls: sub %d, parent %d", len(sub.Requests()), len(parent.Requests()))
		}
		got := provenanceSection(sub.Last())
		expected := ""
		if traced {
			expected = "provenance:\n  system 1: agent\n  system 2: SubRules\n"
		}
		if got != expected {
			t.Errorf("traced sub-agent %v: provenance\n%s\nexpected\n%s", traced, got, expected)
		}
		if !strings.Contains(provenanceSection(parent.Last()), "tool lookup: registered by agent; removed by Rules") {
			t.Errorf("the parent's provenance:\n%s", provenanceSection(parent.Last()))
		}
	}
}
