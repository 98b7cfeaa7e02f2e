package hookproof

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode"
)

// Python's string and value semantics the gate's texts rely on: characters (not bytes)
// counted and cut, repr quoting, whitespace, and == between JSON values (1 == 1.0 == true).

func runeCount(text string) int { return len([]rune(text)) }

// runePrefix is text[:limit] in Python: the first limit characters.
func runePrefix(text string, limit int) string {
	runes := []rune(text)
	if len(runes) <= limit {
		return text
	}
	return string(runes[:limit])
}

// pyStrip is str.strip(): Python's whitespace off both ends.
func pyStrip(text string) string { return strings.TrimFunc(text, isPythonSpace) }

// pySquash is " ".join(text.split()).
func pySquash(text string) string { return strings.Join(strings.FieldsFunc(text, isPythonSpace), " ") }

// isPyPrintable is str.isprintable() for one character: not a control, format, private-use,
// unassigned or separator character, the space excepted.
func isPyPrintable(char rune) bool {
	if char == ' ' {
		return true
	}
	if unicode.In(char, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs, unicode.Zl, unicode.Zp, unicode.Zs) {
		return false
	}
	return unicode.In(char, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

// isPyByteEscaped is whether repr() writes char as \xNN: below U+0100 and not printable.
func isPyByteEscaped(char rune) bool { return char < 0x100 && !isPyPrintable(char) }

// pyRepr is repr() of a str.
func pyRepr(text string) string {
	quote := '\''
	if strings.ContainsRune(text, '\'') && !strings.ContainsRune(text, '"') {
		quote = '"'
	}
	var out strings.Builder
	out.WriteRune(quote)
	for _, char := range text {
		switch {
		case char == quote || char == '\\':
			out.WriteRune('\\')
			out.WriteRune(char)
		case writeEscape(&out, char, isPyByteEscaped):
		case isPyPrintable(char):
			out.WriteRune(char)
		case char < 0x10000:
			fmt.Fprintf(&out, `\u%04x`, char)
		default:
			fmt.Fprintf(&out, `\U%08x`, char)
		}
	}
	out.WriteRune(quote)
	return out.String()
}

// asciiJSON is json.dumps(value, sort_keys=True): one line, every character past "~"
// escaped as \uXXXX.
func asciiJSON(value any) string {
	var out strings.Builder
	for _, char := range compactJSON(value) {
		switch {
		case char < 0x7f:
			out.WriteRune(char)
		case char < 0x10000:
			fmt.Fprintf(&out, `\u%04x`, char)
		default:
			char -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xd800+(char>>10), 0xdc00+(char&0x3ff))
		}
	}
	return out.String()
}

// shortValue is Python's short(): the value on one line (a str as it is), redacted, then cut
// to 120 characters.
func shortValue(value any) string {
	text, ok := value.(string)
	if !ok {
		text = asciiJSON(value)
	}
	text = RedactText(text)
	if runeCount(text) <= 120 {
		return text
	}
	return runePrefix(text, 117) + "..."
}

// pyEqual is Python's == between JSON values read by pythonJSON.
func pyEqual(a, b any) bool {
	if left, ok := numeric(a); ok {
		right, ok := numeric(b)
		return ok && left.equal(right)
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for index := range x {
			if !pyEqual(x[index], y[index]) {
				return false
			}
		}
		return true
	case *Object:
		y, ok := b.(*Object)
		return ok && sameObject(x, y)
	}
	return false
}

func sameObject(x, y *Object) bool {
	if x.Len() != y.Len() {
		return false
	}
	for _, key := range x.Keys {
		other, ok := y.Get(key)
		if !ok || !pyEqual(x.Values[key], other) {
			return false
		}
	}
	return true
}

// number is a JSON number or bool as Python compares it: exactly, NaN equal to nothing.
type number struct {
	exact *big.Rat
	float float64 // NaN or ±Inf when exact is nil
}

func (n number) equal(other number) bool {
	if n.exact == nil || other.exact == nil {
		return n.exact == nil && other.exact == nil && n.float == other.float
	}
	return n.exact.Cmp(other.exact) == 0
}

func numeric(value any) (number, bool) {
	switch typed := value.(type) {
	case bool:
		if typed {
			return number{exact: big.NewRat(1, 1)}, true
		}
		return number{exact: new(big.Rat)}, true
	case json.Number:
		exact, ok := new(big.Rat).SetString(string(typed))
		return number{exact: exact}, ok
	case float64:
		if math.IsNaN(typed) || math.IsInf(typed, 0) {
			return number{float: typed}, true
		}
		return number{exact: new(big.Rat).SetFloat64(typed)}, true
	case int:
		return number{exact: big.NewRat(int64(typed), 1)}, true
	}
	return number{}, false
}

func plural(count int, noun string) string {
	if count == 1 {
		return fmt.Sprintf("%d %s", count, noun)
	}
	return fmt.Sprintf("%d %ss", count, noun)
}
