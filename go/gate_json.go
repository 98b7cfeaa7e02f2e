package hookproof

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// pyJSONError is json.loads' JSONDecodeError: its message and position, in characters.
type pyJSONError struct{ message string }

func (e *pyJSONError) Error() string { return e.message }

// pythonJSON reads JSON text as Python's json.loads does, with the same answers and the same
// error messages ("Expecting value: line 1 column 1 (char 0)"): the gate quotes them when a
// snapshot holds invalid JSON. Integers become json.Number, other numbers float64 (NaN and
// Infinity included, as Python reads them); objects keep their first key's place and their
// last value, as a Python dict does.
func pythonJSON(text string) (any, error) {
	scanner := &jsonScanner{text: []rune(text)}
	value, end, err := scanner.document()
	if err != nil {
		return nil, err
	}
	return value, scanner.extraData(end)
}

type jsonScanner struct{ text []rune }

// stopIteration is the scanner's StopIteration: no value starts at this position.
type stopIteration struct{ at int }

func (s stopIteration) Error() string { return "no JSON value" }

func (s *jsonScanner) document() (any, int, error) {
	start := s.whitespace(0)
	value, end, err := s.value(start)
	if stop, ok := err.(stopIteration); ok {
		return nil, 0, s.fail("Expecting value", stop.at)
	}
	return value, end, err
}

func (s *jsonScanner) extraData(end int) error {
	end = s.whitespace(end)
	if end != len(s.text) {
		return s.fail("Extra data", end)
	}
	return nil
}

func (s *jsonScanner) fail(message string, at int) error {
	line, column := 1, at+1
	for index := 0; index < at && index < len(s.text); index++ {
		if s.text[index] == '\n' {
			line, column = line+1, at-index
		}
	}
	return &pyJSONError{fmt.Sprintf("%s: line %d column %d (char %d)", message, line, column, at)}
}

func (s *jsonScanner) whitespace(at int) int {
	for at < len(s.text) && strings.ContainsRune(" \t\n\r", s.text[at]) {
		at++
	}
	return at
}

func (s *jsonScanner) startsWith(at int, word string) bool {
	runes := []rune(word)
	return at+len(runes) <= len(s.text) && string(s.text[at:at+len(runes)]) == word
}

func (s *jsonScanner) value(at int) (any, int, error) {
	if at >= len(s.text) {
		return nil, 0, stopIteration{at}
	}
	switch char := s.text[at]; {
	case char == '"':
		return s.str(at + 1)
	case char == '{':
		return s.object(at + 1)
	case char == '[':
		return s.array(at + 1)
	case s.startsWith(at, "null"):
		return nil, at + 4, nil
	case s.startsWith(at, "true"):
		return true, at + 4, nil
	case s.startsWith(at, "false"):
		return false, at + 5, nil
	case s.startsWith(at, "NaN"):
		return math.NaN(), at + 3, nil
	case s.startsWith(at, "Infinity"):
		return math.Inf(1), at + 8, nil
	case s.startsWith(at, "-Infinity"):
		return math.Inf(-1), at + 9, nil
	}
	return s.number(at)
}

func isASCIIDigit(char rune) bool { return char >= '0' && char <= '9' }

func (s *jsonScanner) digits(at int) int {
	for at < len(s.text) && isASCIIDigit(s.text[at]) {
		at++
	}
	return at
}

func (s *jsonScanner) number(start int) (any, int, error) {
	at := start
	if at < len(s.text) && s.text[at] == '-' {
		at++
	}
	switch {
	case at < len(s.text) && s.text[at] >= '1' && s.text[at] <= '9':
		at = s.digits(at)
	case at < len(s.text) && s.text[at] == '0':
		at++
	default:
		return nil, 0, stopIteration{start}
	}
	integerEnd, real := at, false
	if at+1 < len(s.text) && s.text[at] == '.' && isASCIIDigit(s.text[at+1]) {
		at, real = s.digits(at+1), true
	}
	if at < len(s.text) && (s.text[at] == 'e' || s.text[at] == 'E') {
		exponent := at + 1
		if exponent < len(s.text) && (s.text[exponent] == '-' || s.text[exponent] == '+') {
			exponent++
		}
		if end := s.digits(exponent); end > exponent {
			at, real = end, true
		}
	}
	text := string(s.text[start:at])
	if real {
		value, _ := strconv.ParseFloat(text, 64) // out of range: ±Inf, as Python's float()
		return value, at, nil
	}
	if digits := integerEnd - start - strings.Count(text, "-"); digits > 4300 {
		return nil, 0, fmt.Errorf("a number has too many digits")
	}
	integer, _ := new(big.Int).SetString(text, 10)
	return json.Number(integer.String()), at, nil
}

func (s *jsonScanner) str(start int) (any, int, error) {
	var out strings.Builder
	at := start
	for {
		if at >= len(s.text) {
			return nil, 0, s.fail("Unterminated string starting at", start-1)
		}
		char := s.text[at]
		switch {
		case char == '"':
			return out.String(), at + 1, nil
		case char < 0x20:
			return nil, 0, s.fail("Invalid control character at", at)
		case char != '\\':
			out.WriteRune(char)
			at++
			continue
		}
		if at+1 >= len(s.text) {
			return nil, 0, s.fail("Unterminated string starting at", start-1)
		}
		next, err := s.escape(&out, at+1)
		if err != nil {
			return nil, 0, err
		}
		at = next
	}
}

var jsonEscapes = map[rune]string{'"': `"`, '\\': `\`, '/': "/", 'b': "\b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t"}

// escape reads the escape after a backslash at at-1; it returns the position after it.
func (s *jsonScanner) escape(out *strings.Builder, at int) (int, error) {
	if s.text[at] != 'u' {
		replacement, ok := jsonEscapes[s.text[at]]
		if !ok {
			return 0, s.fail(`Invalid \escape`, at-1)
		}
		out.WriteString(replacement)
		return at + 1, nil
	}
	code, ok := s.hex4(at + 1)
	if !ok {
		return 0, s.fail(`Invalid \uXXXX escape`, at)
	}
	end := at + 5
	if code >= 0xd800 && code <= 0xdbff && end+6 < len(s.text) && s.startsWith(end, `\u`) {
		low, ok := s.hex4(end + 2)
		if !ok {
			return 0, s.fail(`Invalid \uXXXX escape`, end+1)
		}
		if low >= 0xdc00 && low <= 0xdfff {
			out.WriteRune(0x10000 + ((code - 0xd800) << 10) | (low - 0xdc00))
			return end + 6, nil
		}
	}
	out.WriteRune(code) // a lone surrogate becomes U+FFFD: a Go string cannot hold one
	return end, nil
}

// hex4 reads four hex digits at at; Python needs a character after them (the closing quote).
func (s *jsonScanner) hex4(at int) (rune, bool) {
	if at+4 >= len(s.text) {
		return 0, false
	}
	value, err := strconv.ParseUint(string(s.text[at:at+4]), 16, 32)
	if err != nil || strings.ContainsAny(string(s.text[at:at+4]), "+-_xX") {
		return 0, false
	}
	return rune(value), true
}

func (s *jsonScanner) char(at int) rune {
	if at < len(s.text) {
		return s.text[at]
	}
	return 0
}

func (s *jsonScanner) object(at int) (any, int, error) {
	object := &Object{Values: map[string]any{}}
	at = s.whitespace(at)
	if s.char(at) == '}' {
		return object, at + 1, nil
	}
	for {
		if s.char(at) != '"' {
			return nil, 0, s.fail("Expecting property name enclosed in double quotes", at)
		}
		key, end, err := s.str(at + 1)
		if err != nil {
			return nil, 0, err
		}
		at = s.whitespace(end)
		if s.char(at) != ':' {
			return nil, 0, s.fail("Expecting ':' delimiter", at)
		}
		value, end, err := s.value(s.whitespace(at + 1))
		if err != nil {
			return nil, 0, err
		}
		object.Set(key.(string), value)
		at = s.whitespace(end)
		if s.char(at) == '}' {
			return object, at + 1, nil
		}
		if s.char(at) != ',' {
			return nil, 0, s.fail("Expecting ',' delimiter", at)
		}
		at = s.whitespace(at + 1)
	}
}

func (s *jsonScanner) array(at int) (any, int, error) {
	items := []any{}
	at = s.whitespace(at)
	if s.char(at) == ']' {
		return items, at + 1, nil
	}
	for {
		value, end, err := s.value(at)
		if err != nil {
			return nil, 0, err
		}
		items = append(items, value)
		at = s.whitespace(end)
		if s.char(at) == ']' {
			return items, at + 1, nil
		}
		if s.char(at) != ',' {
			return nil, 0, s.fail("Expecting ',' delimiter", at)
		}
		at = s.whitespace(at + 1)
	}
}
