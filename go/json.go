package hookproof

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Object is a JSON object that keeps its keys in the order they were given. hookproof's
// normaliser numbers placeholders by first appearance, so the order values are visited in
// decides the rendered text: a Go map, iterated at random, could not give the same bytes twice.
type Object struct {
	Keys   []string
	Values map[string]any
}

// NewObject builds an Object from key, value pairs: NewObject("a", 1, "b", "x").
func NewObject(pairs ...any) *Object {
	object := &Object{Values: map[string]any{}}
	for index := 0; index+1 < len(pairs); index += 2 {
		object.Set(pairs[index].(string), pairs[index+1])
	}
	return object
}

// Set adds or replaces a key; a new key goes last.
func (o *Object) Set(key string, value any) {
	if o.Values == nil {
		o.Values = map[string]any{}
	}
	if _, ok := o.Values[key]; !ok {
		o.Keys = append(o.Keys, key)
	}
	o.Values[key] = value
}

// Get returns the value under key.
func (o *Object) Get(key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	value, ok := o.Values[key]
	return value, ok
}

// Len is the number of keys.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.Keys)
}

// UnmarshalJSON reads an object keeping key order; nested objects become *Object, numbers
// json.Number (integers and floats stay apart, as in Python).
func (o *Object) UnmarshalJSON(data []byte) error {
	value, err := DecodeJSON(data)
	if err != nil {
		return err
	}
	object, ok := value.(*Object)
	if !ok {
		return fmt.Errorf("hookproof: expected a JSON object, got %s", bytes.TrimSpace(data)[:1])
	}
	*o = *object
	return nil
}

// MarshalJSON writes the object in its key order.
func (o *Object) MarshalJSON() ([]byte, error) {
	return []byte(compactJSON(o)), nil
}

// DecodeJSON parses JSON text into nil, bool, json.Number, string, []any and *Object.
func DecodeJSON(data []byte) (any, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	value, err := decodeValue(decoder)
	if err != nil {
		return nil, err
	}
	if _, err := decoder.Token(); err != io.EOF {
		return nil, fmt.Errorf("hookproof: unexpected data after the JSON value")
	}
	return value, nil
}

func decodeValue(decoder *json.Decoder) (any, error) {
	token, err := decoder.Token()
	if err != nil {
		return nil, err
	}
	delim, ok := token.(json.Delim)
	if !ok {
		return token, nil
	}
	switch delim {
	case '{':
		object := &Object{Values: map[string]any{}}
		for decoder.More() {
			key, err := decoder.Token()
			if err != nil {
				return nil, err
			}
			value, err := decodeValue(decoder)
			if err != nil {
				return nil, err
			}
			object.Set(key.(string), value)
		}
		_, err := decoder.Token()
		return object, err
	default:
		items := []any{}
		for decoder.More() {
			value, err := decodeValue(decoder)
			if err != nil {
				return nil, err
			}
			items = append(items, value)
		}
		_, err := decoder.Token()
		return items, err
	}
}

// jsonWriter writes values as Python's json.dumps(sort_keys=True, ensure_ascii=False) does:
// one line with ", " and ": ", or indented by two spaces with "," and ": ".
type jsonWriter struct {
	out    strings.Builder
	indent bool
}

func compactJSON(value any) string {
	writer := &jsonWriter{}
	writer.value(value, 0)
	return writer.out.String()
}

func prettyJSON(value any) string {
	writer := &jsonWriter{indent: true}
	writer.value(value, 0)
	return writer.out.String()
}

func (w *jsonWriter) value(value any, level int) {
	switch typed := value.(type) {
	case nil:
		w.out.WriteString("null")
	case bool:
		w.out.WriteString(strconv.FormatBool(typed))
	case string:
		w.out.WriteString(pythonString(typed))
	case json.Number:
		w.out.WriteString(pythonNumber(string(typed)))
	case int:
		w.out.WriteString(strconv.Itoa(typed))
	case int64:
		w.out.WriteString(strconv.FormatInt(typed, 10))
	case float64:
		w.out.WriteString(pythonFloat(typed))
	case []any:
		w.list(typed, level)
	case *Object:
		w.object(typed, level)
	default:
		w.out.WriteString(pythonString(fmt.Sprint(typed)))
	}
}

func (w *jsonWriter) separator(level int, first bool) {
	if !first {
		if w.indent {
			w.out.WriteString(",")
		} else {
			w.out.WriteString(", ")
		}
	}
	if w.indent {
		w.out.WriteString("\n" + strings.Repeat("  ", level))
	}
}

func (w *jsonWriter) list(items []any, level int) {
	if len(items) == 0 {
		w.out.WriteString("[]")
		return
	}
	w.out.WriteString("[")
	for index, item := range items {
		w.separator(level+1, index == 0)
		w.value(item, level+1)
	}
	w.closing(level, "]")
}

func (w *jsonWriter) object(object *Object, level int) {
	if object.Len() == 0 {
		w.out.WriteString("{}")
		return
	}
	keys := append([]string(nil), object.Keys...)
	sort.Strings(keys) // UTF-8 byte order is code point order, as Python sorts str
	w.out.WriteString("{")
	for index, key := range keys {
		w.separator(level+1, index == 0)
		w.out.WriteString(pythonString(key) + ": ")
		w.value(object.Values[key], level+1)
	}
	w.closing(level, "}")
}

func (w *jsonWriter) closing(level int, bracket string) {
	if w.indent {
		w.out.WriteString("\n" + strings.Repeat("  ", level))
	}
	w.out.WriteString(bracket)
}

// pythonString quotes as json.dumps(ensure_ascii=False): only quotes, backslashes and
// control characters are escaped.
func pythonString(text string) string {
	var out strings.Builder
	out.WriteByte('"')
	for _, char := range text {
		switch char {
		case '"':
			out.WriteString(`\"`)
		case '\\':
			out.WriteString(`\\`)
		case '\n':
			out.WriteString(`\n`)
		case '\r':
			out.WriteString(`\r`)
		case '\t':
			out.WriteString(`\t`)
		case '\b':
			out.WriteString(`\b`)
		case '\f':
			out.WriteString(`\f`)
		default:
			if char < 0x20 {
				fmt.Fprintf(&out, `\u%04x`, char)
			} else {
				out.WriteRune(char)
			}
		}
	}
	out.WriteByte('"')
	return out.String()
}

// pythonNumber writes a JSON number as Python reads then writes it: an integer keeps all its
// digits, anything with a fraction or exponent is a float.
func pythonNumber(text string) string {
	if !strings.ContainsAny(text, ".eE") {
		integer, ok := new(big.Int).SetString(text, 10)
		if ok {
			return integer.String()
		}
	}
	value, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(value, 0) {
		return text
	}
	return pythonFloat(value)
}

// pythonFloat is Python's float repr (shortest round-trip digits; positional for exponents
// -4 to 15, else scientific with a two-digit exponent), and json's Infinity / NaN.
func pythonFloat(value float64) string {
	switch {
	case math.IsNaN(value):
		return "NaN"
	case math.IsInf(value, 1):
		return "Infinity"
	case math.IsInf(value, -1):
		return "-Infinity"
	}
	scientific := strconv.FormatFloat(value, 'e', -1, 64)
	exponent, _ := strconv.Atoi(scientific[strings.IndexByte(scientific, 'e')+1:])
	if exponent < -4 || exponent >= 16 {
		return scientific
	}
	fixed := strconv.FormatFloat(value, 'f', -1, 64)
	if !strings.Contains(fixed, ".") {
		fixed += ".0"
	}
	return fixed
}
