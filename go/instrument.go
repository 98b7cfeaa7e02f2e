package hookproof

import (
	"reflect"
	"strconv"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
)

// Instrument is a copy of config for adk.NewChatModelAgent with every handler wrapped by
// t.Handler and the model by t.Model, so a test traces an app's agent, and records the
// provenance of its requests, without the app growing a seam for it: the app builds its
// configuration as it always does, the test instruments that configuration before building
// the agent. A handler is named by its Go type (without package or pointer), numbered
// "#1", "#2" ... when a type repeats, as Python names a handler by its class. The model is
// wrapped when it is a model.ToolCallingChatModel; the deprecated struct Middlewares are
// left as they are (they are not handlers). config itself is not changed; nil gives nil.
func (t *Trace) Instrument(config *adk.ChatModelAgentConfig) *adk.ChatModelAgentConfig {
	if config == nil {
		return nil
	}
	instrumented := *config
	names := handlerNames(config.Handlers)
	instrumented.Handlers = make([]adk.ChatModelAgentMiddleware, len(config.Handlers))
	for index, handler := range config.Handlers {
		if _, traced := handler.(*recordedHandler); traced || handler == nil {
			instrumented.Handlers[index] = handler
		} else {
			instrumented.Handlers[index] = t.Handler(names[index], handler)
		}
	}
	if chatModel, ok := config.Model.(model.ToolCallingChatModel); ok {
		if _, traced := chatModel.(*tracedModel); !traced {
			instrumented.Model = t.Model(chatModel)
		}
	}
	return &instrumented
}

// handlerNames are the handlers' type names, numbered where one repeats.
func handlerNames(handlers []adk.ChatModelAgentMiddleware) []string {
	names := make([]string, len(handlers))
	counts := map[string]int{}
	for index, handler := range handlers {
		names[index] = typeName(handler)
		counts[names[index]]++
	}
	seen := map[string]int{}
	for index, name := range names {
		if counts[name] > 1 {
			seen[name]++
			names[index] = name + "#" + strconv.Itoa(seen[name])
		}
	}
	return names
}

func typeName(value any) string {
	kind := reflect.TypeOf(value)
	for kind != nil && kind.Kind() == reflect.Pointer {
		kind = kind.Elem()
	}
	if kind == nil || kind.Name() == "" {
		return "handler"
	}
	return kind.Name()
}
