package hookproof

import (
	"fmt"
	"strconv"
	"strings"
)

// The parameter-schema rules of the semantic diff, what no rule describes, and the changes
// only provenance shows.

var descriptiveKeys = map[string]bool{"description": true, "title": true, "default": true, "examples": true}

func properties(schema *Object) *Object {
	found, ok := schema.Get("properties")
	if !ok {
		return &Object{}
	}
	object, ok := found.(*Object)
	if !ok {
		return &Object{}
	}
	return object
}

func requiredNames(schema *Object) map[string]bool {
	names := map[string]bool{}
	found, _ := schema.Get("required")
	if list, ok := found.([]any); ok {
		for _, item := range list {
			if name, ok := item.(string); ok {
				names[name] = true
			}
		}
	}
	return names
}

// typePart is the schema without its descriptive keys, at every depth.
func typePart(schema any) any {
	switch typed := schema.(type) {
	case *Object:
		kept := &Object{Values: map[string]any{}}
		for _, key := range typed.Keys {
			if !descriptiveKeys[key] {
				kept.Set(key, typePart(typed.Values[key]))
			}
		}
		return kept
	case []any:
		items := make([]any, len(typed))
		for index, item := range typed {
			items[index] = typePart(item)
		}
		return items
	}
	return schema
}

func without(schema *Object, skipped ...string) *Object {
	kept := &Object{Values: map[string]any{}}
	for _, key := range schema.Keys {
		if key != skipped[0] && key != skipped[1] {
			kept.Set(key, schema.Values[key])
		}
	}
	return kept
}

func objectKeys(object *Object) map[string]bool { return nameSet(object.Keys) }

func parameterChanges(subject string, old, new *Object) []change {
	oldProps, newProps := properties(old), properties(new)
	oldReq, newReq := requiredNames(old), requiredNames(new)
	oldKeys, newKeys := objectKeys(oldProps), objectKeys(newProps)
	var changes []change
	for _, name := range sortedKeys(oldKeys, func(name string) bool { return !newKeys[name] }) {
		changes = append(changes, change{kind: Breaking, subject: subject, what: fmt.Sprintf("parameter %s removed", pyRepr(name))})
	}
	for _, name := range sortedKeys(newKeys, func(name string) bool { return !oldKeys[name] }) {
		kind, label := Review, "optional"
		if newReq[name] {
			kind, label = Breaking, "required"
		}
		what := fmt.Sprintf("%s parameter %s added", label, pyRepr(name))
		changes = append(changes, change{kind: kind, subject: subject, what: what, after: strPtr(shortValue(newProps.Values[name]))})
	}
	for _, name := range sortedKeys(oldKeys, func(name string) bool { return newKeys[name] }) {
		changes = append(changes, oneParameter(subject, name, oldProps.Values[name], newProps.Values[name])...)
		if oldReq[name] != newReq[name] {
			now := "optional"
			if newReq[name] {
				now = "required"
			}
			changes = append(changes, change{kind: Breaking, subject: subject, what: fmt.Sprintf("parameter %s is now %s", pyRepr(name), now)})
		}
	}
	all := map[string]bool{}
	for name := range oldKeys {
		all[name] = true
	}
	for name := range newKeys {
		all[name] = true
	}
	changes = append(changes, shapeChanges(subject, old, new, all)...)
	restOld, restNew := without(old, "properties", "required"), without(new, "properties", "required")
	if !pyEqual(restOld, restNew) {
		changes = append(changes, change{kind: Review, subject: subject, what: "schema changed", before: strPtr(shortValue(restOld)), after: strPtr(shortValue(restNew))})
	}
	return changes
}

func isObjectOrNone(value any) bool {
	_, ok := value.(*Object)
	return value == nil || ok
}

func shapeChanges(subject string, old, new *Object, names map[string]bool) []change {
	var changes []change
	was, _ := old.Get("properties")
	now, _ := new.Get("properties")
	if !pyEqual(was, now) && !(isObjectOrNone(was) && isObjectOrNone(now)) {
		kind := Review
		if properties(old).Len() > 0 {
			kind = Breaking
		}
		changes = append(changes, change{kind: kind, subject: subject, what: "properties changed", before: strPtr(shortValue(was)), after: strPtr(shortValue(now))})
	}
	was, _ = old.Get("required")
	now, _ = new.Get("required")
	if !pyEqual(was, now) && !saidPerParameter(was, now, names) {
		kind := Review
		for name := range symmetricDifference(requiredNames(old), requiredNames(new)) {
			if !names[name] {
				kind = Breaking
			}
		}
		changes = append(changes, change{kind: kind, subject: subject, what: "required list changed", before: strPtr(shortValue(was)), after: strPtr(shortValue(now))})
	}
	return changes
}

func symmetricDifference(a, b map[string]bool) map[string]bool {
	found := map[string]bool{}
	for name := range a {
		if !b[name] {
			found[name] = true
		}
	}
	for name := range b {
		if !a[name] {
			found[name] = true
		}
	}
	return found
}

// nameList is the list of distinct names a required list must be for the per-parameter rules
// to describe it (nil counts as an empty one).
func nameList(value any) ([]string, bool) {
	if value == nil {
		return nil, true
	}
	list, ok := value.([]any)
	if !ok {
		return nil, false
	}
	names := make([]string, 0, len(list))
	for _, item := range list {
		name, ok := item.(string)
		if !ok {
			return nil, false
		}
		names = append(names, name)
	}
	return names, len(nameSet(names)) == len(names)
}

func saidPerParameter(was, now any, names map[string]bool) bool {
	old, okOld := nameList(was)
	new, okNew := nameList(now)
	if !okOld || !okNew {
		return false
	}
	moved := symmetricDifference(nameSet(old), nameSet(new))
	for name := range moved {
		if !names[name] {
			return false
		}
	}
	return len(moved) > 0 && sameLines(keptIn(old, nameSet(new)), keptIn(new, nameSet(old)))
}

func keptIn(names []string, other map[string]bool) []string {
	kept := []string{}
	for _, name := range names {
		if other[name] {
			kept = append(kept, name)
		}
	}
	return kept
}

func oneParameter(subject, name string, old, new any) []change {
	if pyEqual(old, new) {
		return nil
	}
	if oldType, newType := typePart(old), typePart(new); !pyEqual(oldType, newType) {
		return []change{{kind: Breaking, subject: subject, what: fmt.Sprintf("parameter %s type changed", pyRepr(name)), before: strPtr(shortValue(oldType)), after: strPtr(shortValue(newType))}}
	}
	return []change{{kind: Review, subject: subject, what: fmt.Sprintf("parameter %s description changed", pyRepr(name)), before: strPtr(shortValue(old)), after: strPtr(shortValue(new))}}
}

// -- what no rule describes ----------------------------------------------------------------

const unreadChange = "changed in a way the semantic diff does not classify (see the text diff)"

type viewPart struct {
	subject  string
	old, new any
	same     bool
}

func toolShown(tool toolView) any {
	return NewObject("description", tool.description, "parameters", tool.parameters)
}

func stringsAny(lines []string) []any {
	items := make([]any, len(lines))
	for index, line := range lines {
		items[index] = line
	}
	return items
}

func viewParts(before, after *snapshotView) []viewPart {
	var parts []viewPart
	for _, name := range scalarNames {
		parts = append(parts, viewPart{name, before.scalar(name), after.scalar(name), pyEqual(before.scalar(name), after.scalar(name))})
	}
	parts = append(parts,
		viewPart{"system prompt", stringsAny(before.system), stringsAny(after.system), sameLines(before.system, after.system)},
		viewPart{"messages", stringsAny(before.messages), stringsAny(after.messages), sameLines(before.messages, after.messages)})
	oldNames, newNames := nameSet(before.toolNames()), nameSet(after.toolNames())
	for _, name := range sortedKeys(oldNames, func(name string) bool { return newNames[name] }) {
		old, new := *before.tool(name), *after.tool(name)
		parts = append(parts, viewPart{"tool " + name, toolShown(old), toolShown(new), sameTool(old, new)})
	}
	if len(symmetricDifference(oldNames, newNames)) == 0 {
		parts = append(parts, viewPart{"tools", stringsAny(before.toolNames()), stringsAny(after.toolNames()), sameLines(before.toolNames(), after.toolNames())})
	}
	return parts
}

func undescribed(before, after *snapshotView, changes []change) []change {
	said := map[string]bool{}
	for _, found := range changes {
		said[found.subject] = true
	}
	var found []change
	for _, part := range viewParts(before, after) {
		if part.same || said[part.subject] {
			continue
		}
		what := unreadChange
		if part.subject == "tools" {
			what = "the same tool names, listed in another order or repeated"
		}
		found = append(found, change{kind: Review, subject: part.subject, what: what, before: strPtr(shortValue(part.old)), after: strPtr(shortValue(part.new))})
	}
	withProvenance := before.provenance != nil && after.provenance != nil
	if len(changes) == 0 && len(found) == 0 && !sameView(before, after, withProvenance) {
		found = append(found, change{kind: Review, subject: "snapshot", what: unreadChange})
	}
	return found
}

func senderText(sender *senderView) string {
	if sender == nil {
		return "the main agent"
	}
	return "subagent " + senderLine(sender)
}

func senderChanges(before, after *snapshotView) []change {
	if sameSender(before.sender, after.sender) {
		return nil
	}
	was, now := senderText(before.sender), senderText(after.sender)
	return []change{{kind: Review, subject: "agent", what: "now sent by " + now, before: strPtr(was), after: strPtr(now)}}
}

// -- provenance only -----------------------------------------------------------------------

func provenanceChanges(before, after *snapshotView) []change {
	if before.provenance == nil || after.provenance == nil {
		return nil
	}
	changes := originChanges(before, after)
	skipped := symmetricDifference(nameSet(before.toolNames()), nameSet(after.toolNames()))
	old, new := before.provenance.tools, after.provenance.tools
	all := map[string]bool{}
	for name := range old {
		all[name] = true
	}
	for name := range new {
		all[name] = true
	}
	for _, name := range sortedKeys(all, func(name string) bool { return !skipped[name] }) {
		was, hadWas := old[name]
		now, hasNow := new[name]
		if hadWas == hasNow && was == now {
			continue
		}
		found := change{kind: Cosmetic, subject: "provenance", what: historyChange(name, was, now, hadWas, hasNow)}
		if hadWas {
			found.before = strPtr(was)
		}
		if hasNow {
			found.after = strPtr(now)
		}
		changes = append(changes, found)
	}
	return changes
}

func historyChange(name, was, now string, hadWas, hasNow bool) string {
	switch {
	case !hadWas:
		return fmt.Sprintf("tool %s is now recorded as %s (not recorded before)", name, now)
	case !hasNow:
		return fmt.Sprintf("tool %s is no longer recorded (was %s)", name, was)
	}
	return fmt.Sprintf("tool %s %s, now %s", name, was, withoutRepeatedVerb(was, now))
}

func withoutRepeatedVerb(was, now string) string {
	verb, _, _ := strings.Cut(was, " by ")
	single := !strings.Contains(was, ";") && !strings.Contains(now, ";")
	if single && strings.HasPrefix(now, verb+" by ") {
		return now[len(verb)+1:]
	}
	return now
}

type movedLine struct {
	line     int
	was, now string
}

func originChanges(before, after *snapshotView) []change {
	oldOrigins, newOrigins := before.provenance.system, after.provenance.system
	var moved []movedLine
	for _, code := range newSequenceMatcher(before.systemText(), after.systemText()).opcodes() {
		if code.tag != "equal" {
			continue
		}
		for offset := 0; offset < code.i2-code.i1; offset++ {
			i, j := code.i1+offset, code.j1+offset
			if i < len(oldOrigins) && j < len(newOrigins) && oldOrigins[i] != newOrigins[j] {
				moved = append(moved, movedLine{j + 1, oldOrigins[i], newOrigins[j]})
			}
		}
	}
	var changes []change
	start := 0
	for index := 1; index <= len(moved); index++ {
		first := moved[start]
		if index < len(moved) && moved[index].was == first.was && moved[index].now == first.now && moved[index].line == moved[index-1].line+1 {
			continue
		}
		lines := "line " + strconv.Itoa(first.line)
		if last := moved[index-1].line; last != first.line {
			lines = fmt.Sprintf("lines %d-%d", first.line, last)
		}
		what := fmt.Sprintf("system prompt %s from %s, now from %s", lines, first.was, first.now)
		changes = append(changes, change{kind: Cosmetic, subject: "provenance", what: what, before: strPtr(first.was), after: strPtr(first.now)})
		start = index
	}
	return changes
}
