// Package tripplanner is an example Eino application written as production code: it takes
// its chat model as a dependency and knows nothing of hookproof. Its tests snapshot the
// requests it sends and gate one release against the next (go/gate_example_test.go).
package tripplanner

import (
	"context"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

// Config is what the planner is built from. Release 2 stops booking hotels itself (it hands
// over to a partner site) and asks for shorter answers.
type Config struct {
	Model   model.ToolCallingChatModel
	Release int
}

type staticTool struct {
	info   *schema.ToolInfo
	answer string
}

func (s staticTool) Info(context.Context) (*schema.ToolInfo, error) { return s.info, nil }

func (s staticTool) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return s.answer, nil
}

func searchFlights() tool.BaseTool {
	return staticTool{&schema.ToolInfo{
		Name: "search_flights",
		Desc: "Find flights between two cities.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"origin":      {Type: schema.String, Desc: "departure city", Required: true},
			"destination": {Type: schema.String, Desc: "arrival city", Required: true},
		}),
	}, "AZ 203, 9:40"}
}

func bookHotel() tool.BaseTool {
	return staticTool{&schema.ToolInfo{
		Name: "book_hotel",
		Desc: "Book a hotel room.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"city": {Type: schema.String, Desc: "where", Required: true},
		}),
	}, "booked"}
}

// NewAgent builds the planner agent.
func NewAgent(ctx context.Context, config Config) (adk.Agent, error) {
	instruction := "You plan trips.\nUse the tools to find flights and hotels."
	tools := []tool.BaseTool{searchFlights(), bookHotel()}
	if config.Release >= 2 {
		instruction = "You plan trips.\nAnswer in three sentences at most.\nUse the tools to find flights."
		tools = tools[:1]
	}
	return adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "planner",
		Description: "plans trips",
		Instruction: instruction,
		Model:       config.Model,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
	})
}

// Plan runs the agent on one request and returns its last answer.
func Plan(ctx context.Context, agent adk.Agent, request string) (string, error) {
	iterator := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Run(ctx, []adk.Message{schema.UserMessage(request)})
	answer := ""
	for {
		event, ok := iterator.Next()
		if !ok {
			return answer, nil
		}
		if event.Err != nil {
			return "", event.Err
		}
		if event.Output != nil && event.Output.MessageOutput != nil && event.Output.MessageOutput.Message != nil {
			answer = event.Output.MessageOutput.Message.Content
		}
	}
}
