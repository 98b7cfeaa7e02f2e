package hookproof

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The shared redaction vectors: texts and Python's redact_text of each, written by
// tests/go/vectors.py. Go must hide exactly what Python hides, and keep the rest.
func TestRedactTextMatchesPythonOnTheVectors(t *testing.T) {
	file, err := os.Open(filepath.Join(vectorDir, "redaction.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	count, redacted := 0, 0
	for scanner.Scan() {
		var item struct {
			Text     string `json:"text"`
			Expected string `json:"expected"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &item); err != nil {
			t.Fatal(err)
		}
		if got := RedactText(item.Text); got != item.Expected {
			t.Errorf("redaction vector %d, %s:\n%s", count, strconv.Quote(item.Text),
				firstDifference(got, item.Expected))
		}
		if item.Expected != item.Text {
			redacted++
		}
		count++
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	if count < 500 || redacted < 200 {
		t.Fatalf("only %d redaction vectors, %d of them with a secret", count, redacted)
	}
}

func TestPythonPatternKeepsPythonsWhitespaceAndCaseFolding(t *testing.T) {
	for pattern, expected := range map[string]string{
		`a\sb`:          `a[\s\x1c-\x1f]b`,
		`[^\s/]`:        `[^\s\x1c-\x1f/]`,
		`(?i)si[a-z_-]`: "(?i)[s\u017F][i\u0131][\u017F\u0131a-z_-]",
		`(?i:s)s\\s`:    "(?i:[s\u017F])s\\\\s",
		`(?i)(?-i:s)s`:  "(?i)(?-i:s)[s\u017F]",
		`(?i)(?<s>x)`:   "(?i)(?<s>x)",
	} {
		if got := pythonPattern(pattern); got != expected {
			t.Errorf("pythonPattern(%q) = %q, want %q", pattern, got, expected)
		}
	}
}
