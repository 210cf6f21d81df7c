package accesslog

import (
	"bytes"
	"encoding/json"
	"slices"
)

// JSON Lines: one object a line; the time and the key's parts are
// top-level fields. A small scanner reads only the fields it needs and
// skips the rest without building them (encoding/json would build every
// value of every line); FuzzJSONLine holds it to encoding/json's reading.

type jsonParser struct {
	epoch    Epoch
	slots    map[string]int // each field wanted, and its value's slot
	timeSlot int
	partSlot []int // the slot of each part of the key
	vals     [][]byte
	found    []bool
	scratch  [][]byte // unescaped strings, reused
}

func newJSONParser(fp fieldPlan, epoch Epoch) *jsonParser {
	p := &jsonParser{epoch: epoch, slots: map[string]int{}}
	slot := func(name string) int {
		if i, ok := p.slots[name]; ok {
			return i
		}
		p.slots[name] = len(p.slots)
		return len(p.slots) - 1
	}
	p.timeSlot = slot(fp.time)
	for _, name := range fp.parts {
		p.partSlot = append(p.partSlot, slot(name))
	}
	p.vals, p.found, p.scratch = make([][]byte, len(p.slots)), make([]bool, len(p.slots)), make([][]byte, len(p.slots))
	return p
}

// jsonKeys lists a line's top-level field names, to plan from.
func jsonKeys(line []byte) ([]string, error) {
	var names []string
	err := scanObject(line, func(key, _ []byte, _ bool) {
		names = append(names, string(key))
	})
	return names, err
}

func (p *jsonParser) parse(line []byte, parts [][]byte) (stamp, error) {
	clear(p.vals)
	clear(p.found)
	err := scanObject(line, func(key, val []byte, isString bool) {
		i, ok := p.slots[string(key)]
		if !ok {
			return
		}
		if isString && bytes.IndexByte(val, '\\') >= 0 {
			var s string
			if json.Unmarshal(append(append([]byte{'"'}, val...), '"'), &s) == nil {
				p.scratch[i] = append(p.scratch[i][:0], s...)
				val = p.scratch[i]
			}
		}
		p.vals[i], p.found[i] = val, true
	})
	if err != nil {
		return stamp{}, bad("not a JSON object: %v", err)
	}
	if !p.found[p.timeSlot] {
		return stamp{}, bad("no time field")
	}
	st, ok := anyTime(p.vals[p.timeSlot], p.epoch)
	if !ok {
		return stamp{}, bad("%q is not a time: use RFC 3339 (2026-11-30T23:59:59.250Z), the Common Log Format's, or a number since the epoch", truncate(p.vals[p.timeSlot]))
	}
	for i := range parts {
		parts[i] = p.vals[p.partSlot[i]]
	}
	return st, nil
}

type jsonError string

func (e jsonError) Error() string { return string(e) }

// scanObject reads one JSON object and calls f with each top-level key
// and value (a string's contents without its quotes, still escaped; any
// other value as written; null as empty).
func scanObject(b []byte, f func(key, val []byte, isString bool)) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return jsonError("it does not start with {")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return trailing(b, i+1)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return jsonError("a field's name should be a string")
		}
		end, err := stringEnd(b, i)
		if err != nil {
			return err
		}
		key := b[i+1 : end]
		i = skipSpace(b, end+1)
		if i >= len(b) || b[i] != ':' {
			return jsonError("no : after a field's name")
		}
		i = skipSpace(b, i+1)
		start := i
		isString := i < len(b) && b[i] == '"'
		if i, err = skipValue(b, i, 0); err != nil {
			return err
		}
		val := b[start:i]
		switch {
		case isString:
			val = val[1 : len(val)-1]
		case string(val) == "null":
			val = nil
		}
		f(key, val, isString)
		i = skipSpace(b, i)
		if i >= len(b) {
			return jsonError("the object does not end")
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return trailing(b, i+1)
		default:
			return jsonError("expected , or } between fields")
		}
	}
}

func trailing(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return jsonError("something follows the object")
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// stringEnd is the index of the quote closing the string that opens at
// b[i], checking its escapes and that it holds no control character.
func stringEnd(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j, nil
		case c == '\\':
			if j+1 >= len(b) {
				return 0, jsonError("a string ends in \\")
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				for k := j + 2; k < j+6; k++ {
					if k >= len(b) || !isHex(b[k]) {
						return 0, jsonError("a \\u escape needs four hex digits")
					}
				}
				j += 5
			default:
				return 0, jsonError("an unknown escape in a string")
			}
		case c < 0x20:
			return 0, jsonError("a control character in a string")
		}
	}
	return 0, jsonError("a string does not end")
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// maxDepth bounds how deeply a line's values may nest.
const maxDepth = 64

// skipValue returns the index after the value at b[i].
func skipValue(b []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return 0, jsonError("values nested too deeply")
	}
	if i >= len(b) {
		return 0, jsonError("a value is missing")
	}
	switch c := b[i]; {
	case c == '"':
		end, err := stringEnd(b, i)
		return end + 1, err
	case c == '{' || c == '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == closing {
			return i + 1, nil
		}
		for {
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return 0, jsonError("a field's name should be a string")
				}
				end, err := stringEnd(b, i)
				if err != nil {
					return 0, err
				}
				i = skipSpace(b, end+1)
				if i >= len(b) || b[i] != ':' {
					return 0, jsonError("no : after a field's name")
				}
				i = skipSpace(b, i+1)
			}
			var err error
			if i, err = skipValue(b, i, depth+1); err != nil {
				return 0, err
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return 0, jsonError("a value does not end")
			}
			if b[i] == closing {
				return i + 1, nil
			}
			if b[i] != ',' {
				return 0, jsonError("expected , between values")
			}
			i = skipSpace(b, i+1)
		}
	case c == '-' || c >= '0' && c <= '9':
		return number(b, i)
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(b[i:], []byte(lit)) {
			return i + len(lit), nil
		}
	}
	return 0, jsonError("not a JSON value")
}

// number returns the index after the JSON number at b[i].
func number(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return 0, jsonError("not a number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return 0, jsonError("a number's fraction has no digits")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, jsonError("a number's exponent has no digits")
		}
	}
	if i == start {
		return 0, jsonError("not a number")
	}
	return i, nil
}

// CSV and TSV: a header names the columns; a field of CSV may be quoted
// ("a, b" and "say ""hi"""), TSV's are not.

type tableParser struct {
	sep     byte
	epoch   Epoch
	cols    []int // the column of the time, then of each part
	fields  [][]byte
	scratch []byte
}

// splitRow splits a row into fields (reusing out and scratch).
func (p *tableParser) splitRow(line []byte) ([][]byte, error) {
	out := p.fields[:0]
	p.scratch = p.scratch[:0]
	i := 0
	for {
		if p.sep == ',' && i < len(line) && line[i] == '"' {
			// A quoted field: "" is a quote.
			start := len(p.scratch)
			j := i + 1
			for {
				if j >= len(line) {
					return nil, bad("a quoted field does not end")
				}
				if line[j] == '"' {
					if j+1 < len(line) && line[j+1] == '"' {
						p.scratch = append(p.scratch, '"')
						j += 2
						continue
					}
					break
				}
				p.scratch = append(p.scratch, line[j])
				j++
			}
			out = append(out, p.scratch[start:len(p.scratch):len(p.scratch)])
			i = j + 1
			if i < len(line) && line[i] != p.sep {
				return nil, bad("something follows a quoted field")
			}
		} else {
			j := bytes.IndexByte(line[i:], p.sep)
			if j < 0 {
				out = append(out, line[i:])
				break
			}
			out = append(out, line[i:i+j])
			i += j
		}
		if i >= len(line) {
			break
		}
		i++ // the separator
	}
	p.fields = out
	return out, nil
}

func (p *tableParser) parse(line []byte, parts [][]byte) (stamp, error) {
	fields, err := p.splitRow(line)
	if err != nil {
		return stamp{}, err
	}
	need := slices.Max(p.cols)
	if len(fields) <= need {
		return stamp{}, bad("%d columns, and the header has more", len(fields))
	}
	st, ok := anyTime(fields[p.cols[0]], p.epoch)
	if !ok {
		return stamp{}, bad("%q is not a time: use RFC 3339 (2026-11-30T23:59:59.250Z), the Common Log Format's, or a number since the epoch", truncate(fields[p.cols[0]]))
	}
	for i := range parts {
		parts[i] = fields[p.cols[i+1]]
	}
	return st, nil
}

// clone is a parser of its own for another goroutine (parallel.go): the
// plan shared, read only; the values and scratch its own.
func (p *jsonParser) clone() lineParser {
	c := *p
	c.vals, c.found, c.scratch = make([][]byte, len(p.vals)), make([]bool, len(p.found)), make([][]byte, len(p.scratch))
	return &c
}

func (p *tableParser) clone() lineParser {
	c := *p
	c.fields, c.scratch = nil, nil
	return &c
}
