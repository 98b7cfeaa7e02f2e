package hookproof

import (
	"reflect"
	"strings"
	"testing"
)

type shapeJSON struct {
	Tools  []ToolSchema `json:"tools"`
	System *string      `json:"system"`
}

func (s shapeJSON) shape() requestShape {
	shape := requestShape{tools: s.Tools}
	if s.System != nil {
		shape.system = strings.Split(*s.System, "\n")
	}
	return shape
}

// Python's hookproof.provenance.compute on random edits of a few repeated, moved and
// inserted lines: the same origins, so SequenceMatcher is ported, not approximated.
func TestProvenanceIsComputedAsPythonComputesIt(t *testing.T) {
	eachVector(t, "provenance_compute.jsonl", 100, func(index int, item struct {
		Base  shapeJSON `json:"base"`
		Edits []struct {
			Owner  string    `json:"owner"`
			Before shapeJSON `json:"before"`
			After  shapeJSON `json:"after"`
		} `json:"edits"`
		Final    shapeJSON  `json:"final"`
		Expected Provenance `json:"expected"`
	}) {
		var edits []provenanceEdit
		for _, edit := range item.Edits {
			edits = append(edits, provenanceEdit{edit.Owner, edit.Before.shape(), edit.After.shape()})
		}
		got := computeProvenance(item.Base.shape(), edits, item.Final.shape())
		if !reflect.DeepEqual(*got, item.Expected) {
			t.Errorf("compute vector %d: got %+v, Python computed %+v", index, *got, item.Expected)
		}
	})
}

func TestOpcodesPairLinesAsPythonsSequenceMatcher(t *testing.T) {
	// difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() in Python 3.
	a := strings.Split("a b a c a", " ")
	b := strings.Split("a a c b a a", " ")
	got := newSequenceMatcher(a, b).opcodes()
	expected := []opcode{
		{"equal", 0, 1, 0, 1}, {"insert", 1, 1, 1, 3}, {"equal", 1, 3, 3, 5},
		{"delete", 3, 4, 5, 5}, {"equal", 4, 5, 5, 6},
	}
	if !reflect.DeepEqual(got, expected) {
		t.Fatalf("opcodes %v, Python gives %v", got, expected)
	}
}
