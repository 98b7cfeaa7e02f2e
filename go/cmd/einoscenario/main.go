// Command einoscenario runs scenarios on real Eino's ChatModelAgent with hookproof's scripted
// model, for the differential test against hookproof.eino (tests/go/test_eino_differential.py).
// Each stdin line is a scenario: {"script": [turns], "handlers": [{"kind": "probe" | "filter"
// | "fail", "name": ..., "tool": ..., "hook": ...}], "max_iterations": n, "return_directly":
// [tool names]}; each stdout line is
// {"labels": [...], "requests": [rendered FinalRequests], "error": "..."}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	hookproof "github.com/hookproof/hookproof/go"
)

type handlerSpec struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Tool string `json:"tool"`
	Hook string `json:"hook"`
}

type scenario struct {
	Script         []hookproof.Turn `json:"script"`
	Handlers       []handlerSpec    `json:"handlers"`
	MaxIterations  int              `json:"max_iterations"`
	ReturnDirectly []string         `json:"return_directly"`
}

type outcome struct {
	Labels   []string `json:"labels"`
	Requests []string `json:"requests"`
	Error    string   `json:"error"`
}

// echoTool answers "<prefix> <q>".
type echoTool struct{ name, description, prefix string }

func (e echoTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: e.name, Desc: e.description,
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"q": {Type: schema.String, Desc: "the query", Required: true},
		})}, nil
}

func (e echoTool) InvokableRun(_ context.Context, arguments string, _ ...tool.Option) (string, error) {
	var args struct{ Q string }
	_ = json.Unmarshal([]byte(arguments), &args)
	return e.prefix + " " + args.Q, nil
}

// filter drops one tool from what the model is shown, before every model call.
type filter struct {
	*adk.BaseChatModelAgentMiddleware
	tool string
}

func (f *filter) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	var kept []*schema.ToolInfo
	for _, info := range state.ToolInfos {
		if info.Name != f.tool {
			kept = append(kept, info)
		}
	}
	state.ToolInfos = kept
	return ctx, state, nil
}

// failing returns an error from one hook.
type failing struct {
	*adk.BaseChatModelAgentMiddleware
	hook string
}

func (f *failing) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	if f.hook == "before_model_rewrite_state" {
		return ctx, state, errors.New("boom")
	}
	return ctx, state, nil
}

func (f *failing) AfterModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	if f.hook == "after_model_rewrite_state" {
		return ctx, state, errors.New("boom")
	}
	return ctx, state, nil
}

func handler(spec handlerSpec) adk.ChatModelAgentMiddleware {
	switch spec.Kind {
	case "filter":
		return &filter{tool: spec.Tool}
	case "fail":
		return &failing{hook: spec.Hook}
	}
	return &adk.BaseChatModelAgentMiddleware{}
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

func run(spec scenario) outcome {
	ctx := context.Background()
	trace := hookproof.NewTrace()
	recorder := hookproof.NewRecordingChatModel(hookproof.NewScriptedChatModel(spec.Script...))
	var handlers []adk.ChatModelAgentMiddleware
	for _, item := range spec.Handlers {
		handlers = append(handlers, trace.Handler(item.Name, handler(item)))
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "ChatModelAgent", Description: "scenario", Instruction: "Be brief.",
		Model: trace.Model(recorder), MaxIterations: spec.MaxIterations, Handlers: handlers,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
			Tools: []tool.BaseTool{
				echoTool{"search", "Search the docs.", "found"},
				echoTool{"lookup", "Look a customer up.", "customer"},
			},
			ExecuteSequentially: true,
		}, ReturnDirectly: returnDirectly(spec.ReturnDirectly)},
	})
	if err != nil {
		return outcome{Error: err.Error()}
	}
	result := outcome{Labels: []string{}, Requests: []string{}}
	iterator := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Run(ctx, []adk.Message{schema.UserMessage("hi")})
	for event, ok := iterator.Next(); ok; event, ok = iterator.Next() {
		if event.Err != nil {
			result.Error = event.Err.Error()
		}
	}
	result.Labels = trace.Labels()
	for _, request := range recorder.Requests() {
		result.Requests = append(result.Requests, hookproof.Render(request))
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
