package hookproof

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
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
	file, err := os.Open(filepath.Join(vectorDir, "render", "provenance_compute.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	count := 0
	for scanner.Scan() {
		var item struct {
			Base  shapeJSON `json:"base"`
			Edits []struct {
				Owner  string    `json:"owner"`
				Before shapeJSON `json:"before"`
				After  shapeJSON `json:"after"`
			} `json:"edits"`
			Final    shapeJSON  `json:"final"`
			Expected Provenance `json:"expected"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &item); err != nil {
			t.Fatal(err)
		}
		var edits []provenanceEdit
		for _, edit := range item.Edits {
			edits = append(edits, provenanceEdit{edit.Owner, edit.Before.shape(), edit.After.shape()})
		}
		got := computeProvenance(item.Base.shape(), edits, item.Final.shape())
		if !reflect.DeepEqual(*got, item.Expected) {
			t.Errorf("compute vector %d: got %+v, Python computed %+v", count, *got, item.Expected)
		}
		count++
	}
	if count < 100 {
		t.Fatalf("only %d compute vectors", count)
	}
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
