// Command gotemplate renders Go text/template cases for hookproof's differential test of its
// GoTemplate subset. Each stdin line is {"template": ..., "data": {...}}; each stdout line is
// {"ok": bool, "output": ..., "error": ...}. A case is rendered through Eino's own template
// path (schema.UserAgenticMessage(...).Format with schema.GoTemplate) and through
// text/template with missingkey=error; a disagreement between the two is reported as an error
// starting with "eino disagrees".
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/template"

	"github.com/cloudwego/eino/schema"
)

type result struct {
	OK     bool   `json:"ok"`
	Output string `json:"output"`
	Error  string `json:"error,omitempty"`
}

func main() {
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	writer := bufio.NewWriter(os.Stdout)
	defer writer.Flush()
	encoder := json.NewEncoder(writer)
	encoder.SetEscapeHTML(false)
	for scanner.Scan() {
		if err := encoder.Encode(renderCase(scanner.Bytes())); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		writer.Flush() // one answer per question: the caller waits for each line
	}
}

func renderCase(line []byte) result {
	var input struct {
		Template string          `json:"template"`
		Data     json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(line, &input); err != nil {
		return result{Error: "bad case: " + err.Error()}
	}
	data, err := decodeData(input.Data)
	if err != nil {
		return result{Error: "bad data: " + err.Error()}
	}
	plain, plainErr := renderPlain(input.Template, data)
	viaEino, einoErr := renderEino(input.Template, data)
	if (plainErr == nil) != (einoErr == nil) || plainErr == nil && plain != viaEino {
		return result{Error: fmt.Sprintf("eino disagrees: text/template %q (%v), eino %q (%v)", plain, plainErr, viaEino, einoErr)}
	}
	if plainErr != nil {
		return result{Error: plainErr.Error()}
	}
	return result{OK: true, Output: plain}
}

func renderPlain(text string, data map[string]any) (string, error) {
	parsed, err := template.New("template").Option("missingkey=error").Parse(text)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	err = parsed.Execute(&out, data)
	return out.String(), err
}

func renderEino(text string, data map[string]any) (string, error) {
	formatted, err := schema.UserAgenticMessage(text).Format(context.Background(), data, schema.GoTemplate)
	if err != nil {
		return "", err
	}
	return formatted[0].ContentBlocks[0].UserInputText.Text, nil
}

// decodeData reads the data as a Go caller would build it: integers as int64, other numbers
// as float64, objects as map[string]any.
func decodeData(raw json.RawMessage) (map[string]any, error) {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	var data map[string]any
	if err := decoder.Decode(&data); err != nil {
		return nil, err
	}
	return convert(data).(map[string]any), nil
}

func convert(value any) any {
	switch typed := value.(type) {
	case json.Number:
		if integer, err := strconv.ParseInt(string(typed), 10, 64); err == nil {
			return integer
		}
		float, _ := strconv.ParseFloat(string(typed), 64)
		return float
	case map[string]any:
		for key, item := range typed {
			typed[key] = convert(item)
		}
		return typed
	case []any:
		for index, item := range typed {
			typed[index] = convert(item)
		}
		return typed
	}
	return value
}
