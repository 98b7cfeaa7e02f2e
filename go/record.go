package hookproof

import (
	"context"
	"reflect"
	"strings"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
)

// Provenance on real Eino: the handlers wrapped by Trace.Handler note what each changed of
// the tools and the system prompt, in a runRecord that travels in the run's context (so
// concurrent runs, even on one Trace, keep theirs apart), and RecordingChatModel computes a
// model call's provenance from the record its context carries.
//
// The first BeforeAgent of a run starts the record with what it receives (the agent's own
// tools and instruction) and notes each BeforeAgent that changed them; the rewrite-state
// hooks note changes of the state's tool infos or leading system message (they persist into
// later model calls, as Python's Eino dialect notes them); a WrapModel layer's change of
// the messages or tools it passes on is noted while its inner call lasts. Each
// BeforeModelRewriteState also marks the model call's context, so a sub-agent's model run
// from a tool (whose context descends from the run's, not the model call's) does not take
// the parent's record.
//
// The hooks' side is in trace.go, which needs Eino v0.9 (this file builds with v0.8 too).

type (
	recordKey struct{}
	callKey   struct{}
)

type runRecord struct {
	mu       sync.Mutex
	base     requestShape
	changers []string     // the BeforeAgents that changed tools or instruction
	now      requestShape // what the last BeforeAgent returned
	sealed   bool         // the run is past its BeforeAgents
	edits    []provenanceEdit
	layers   []provenanceEdit // the WrapModel changes in force, outermost first
}

func recordOf(ctx context.Context, key any) *runRecord {
	if ctx == nil {
		return nil
	}
	found, _ := ctx.Value(key).(*runRecord)
	return found
}

// withRecord is ctx carrying rec under key, even when a handler returned a context that
// does not descend from the one it received.
func withRecord(ctx context.Context, key any, rec *runRecord) context.Context {
	if rec == nil || ctx == nil || recordOf(ctx, key) == rec {
		return ctx
	}
	return context.WithValue(ctx, key, rec)
}

// startRecord is the run's record: the one in ctx while the run's BeforeAgents last, else
// a new one starting from what this BeforeAgent received.
func startRecord(ctx context.Context, received requestShape) *runRecord {
	if rec := recordOf(ctx, recordKey{}); rec != nil {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if !rec.sealed {
			return rec
		}
	}
	return &runRecord{base: received, now: received}
}

func (r *runRecord) noteAgent(owner string, before, after requestShape) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !sameShape(before, after) {
		r.changers = append(r.changers, owner)
	}
	r.now = after
}

func (r *runRecord) noteState(owner string, before, after requestShape) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sealed = true
	if !sameShape(before, after) {
		r.edits = append(r.edits, provenanceEdit{owner, before, after})
	}
}

func (r *runRecord) pushLayer(edit provenanceEdit) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.layers = append(r.layers, edit)
}

func (r *runRecord) popLayer() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.layers = r.layers[:len(r.layers)-1]
}

// provenance of the model call that received final: the BeforeAgents' change (one edit,
// their names joined, as Python notes it), the state rewrites so far, the layers in force.
func (r *runRecord) provenance(final requestShape) *Provenance {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sealed = true
	var edits []provenanceEdit
	if len(r.changers) > 0 {
		now := r.now
		if len(now.tools) == 0 { // Eino keeps the agent's own tools when none are left
			now.tools = r.base.tools
		}
		edits = append(edits, provenanceEdit{strings.Join(r.changers, ", "), r.base, now})
	}
	edits = append(append(edits, r.edits...), r.layers...)
	return computeProvenance(r.base, edits, final)
}

func sameShape(a, b requestShape) bool {
	if (a.system == nil) != (b.system == nil) || !equalLines(a.system, b.system) || len(a.tools) != len(b.tools) {
		return false
	}
	for index := range a.tools {
		x, y := a.tools[index], b.tools[index]
		if x.Name != y.Name || x.Description != y.Description ||
			compactJSON(orEmpty(x.Parameters)) != compactJSON(orEmpty(y.Parameters)) {
			return false
		}
	}
	return true
}

// -- the shapes of what the hooks see --------------------------------------------------------

func instructionLines(instruction string) []string {
	if instruction == "" {
		return nil
	}
	return strings.Split(instruction, "\n")
}

func baseToolSchemas(ctx context.Context, tools []tool.BaseTool) []ToolSchema {
	var schemas []ToolSchema
	for _, item := range tools {
		if item == nil || (reflect.ValueOf(item).Kind() == reflect.Pointer && reflect.ValueOf(item).IsNil()) {
			continue
		}
		if info, err := item.Info(ctx); err == nil && info != nil {
			schemas = append(schemas, ToolFromEino(info))
		}
	}
	return schemas
}

func infoSchemas(infos []*schema.ToolInfo) []ToolSchema {
	var schemas []ToolSchema
	for _, info := range infos {
		if info != nil {
			schemas = append(schemas, ToolFromEino(info))
		}
	}
	return schemas
}

// systemLines is the text lines of a leading system message (nil without one).
func systemLines(messages []*schema.Message) []string {
	if len(messages) == 0 || messages[0] == nil || messages[0].Role != schema.System {
		return nil
	}
	system := MessageFromEino(messages[0])
	return strings.Split(system.Text(), "\n")
}

func callShape(input []*schema.Message, opts []model.Option) requestShape {
	options := model.GetCommonOptions(&model.Options{}, opts...)
	return requestShape{infoSchemas(options.Tools), systemLines(input)}
}

func requestShapeOf(request *FinalRequest) requestShape {
	shape := requestShape{tools: request.Tools}
	if request.SystemMessage != nil {
		shape.system = strings.Split(request.SystemMessage.Text(), "\n")
	}
	return shape
}
