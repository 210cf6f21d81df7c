package scenarios

// The typed readers of mapping fields. Each reports its own errors at the
// value (or, for a value left empty, at its key) and returns ok=false, so
// callers read a field in one line and carry on collecting errors.

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"

	"windowlab/algo"
	"windowlab/human"
)

// nodePos is where a node starts: for a block mapping its first key, for
// a key-value pair its key.
func nodePos(n ast.Node) (int, int) {
	switch n := n.(type) {
	case nil:
		return 0, 0
	case *ast.MappingNode:
		if !n.IsFlowStyle && len(n.Values) > 0 {
			return nodePos(n.Values[0])
		}
	case *ast.MappingValueNode:
		return nodePos(n.Key)
	}
	return tokPos(n.GetToken())
}

// describe names a value's type and text for "expected X, got Y".
func describe(n ast.Node) string {
	switch n := n.(type) {
	case nil, *ast.NullNode:
		return "nothing"
	case *ast.StringNode:
		return "string " + strconv.Quote(truncate(n.Value))
	case *ast.LiteralNode:
		return "a block of text"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "number " + n.GetToken().Value
	case *ast.BoolNode:
		return "boolean " + n.GetToken().Value
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	}
	return "a " + strings.ToLower(n.Type().String())
}

func truncate(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		r := []rune(s)
		return string(r[:37]) + "..."
	}
	return s
}

// object is one mapping of the file, its keys checked against the known
// fields of that place.
type object struct {
	path string
	node ast.Node
	vals map[string]*ast.MappingValueNode
}

// join forms a field path: "" + "limit" is limit, traffic[1] + "at" is traffic[1].at.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// object checks that n is a mapping with no duplicate and no unknown keys
// (suggesting the closest known one). It returns nil if n is not a mapping.
func (d *decoder) object(path string, n ast.Node, known []string) *object {
	var pairs []*ast.MappingValueNode
	switch m := n.(type) {
	case *ast.MappingNode:
		pairs = m.Values
	case *ast.MappingValueNode:
		pairs = []*ast.MappingValueNode{m}
	default:
		if path == "" {
			d.at(n, path, "a scenario file is a mapping of fields such as limit:, window: and traffic:, not %s", describe(n))
		} else {
			d.at(n, path, "expected a mapping of %s, got %s", quoteList(known, "and"), describe(n))
		}
		return nil
	}
	o := &object{path: path, node: n, vals: make(map[string]*ast.MappingValueNode, len(pairs))}
	for _, kv := range pairs {
		key, isText := kv.Key.(*ast.StringNode)
		if !isText {
			d.at(kv.Key, path, "%s cannot be a field name; use one of %s", describe(kv.Key), quoteList(known, "or"))
			continue
		}
		field := join(path, fieldName(key.Value))
		if first, dup := o.vals[key.Value]; dup {
			line, col := nodePos(first)
			d.at(kv.Key, field, "duplicate key; it is already set at line %d, column %d, so remove one of them", line, col)
			continue
		}
		if !slices.Contains(known, key.Value) {
			if c, near := Closest(key.Value, known); near {
				d.at(kv.Key, field, "unknown field; did you mean `%s`?", c)
			} else {
				d.at(kv.Key, field, "unknown field; valid fields here are %s", quoteList(known, "and"))
			}
			continue
		}
		o.vals[key.Value] = kv
	}
	return o
}

// fieldName is a key as a message shows it: as written, unless it holds a
// line break or another unprintable character, or runs long; then quoted.
func fieldName(key string) string {
	if utf8.RuneCountInString(key) > 40 || strings.IndexFunc(key, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(truncate(key))
	}
	return key
}

func (o *object) has(k string) bool { return o.vals[k] != nil }

// value returns the value of k, and where to point for it: the value
// itself, or the key when the value is missing.
func (o *object) value(k string) (ast.Node, ast.Node) {
	kv := o.vals[k]
	if kv == nil {
		return nil, nil
	}
	if _, null := kv.Value.(*ast.NullNode); null || kv.Value == nil {
		return kv.Value, kv.Key
	}
	return kv.Value, kv.Value
}

// missing reports a required field that is absent.
func (d *decoder) missing(o *object, k, what string) {
	d.at(o.node, o.path, "missing `%s`; %s", k, what)
}

// text reads a text field. Numbers and booleans count as their source
// text, so `answer: 200` is the text "200".
func (d *decoder) text(o *object, k string) (string, bool) {
	v, at := o.value(k)
	if at == nil {
		return "", false
	}
	var s string
	switch n := v.(type) {
	case *ast.StringNode:
		s = n.Value
	case *ast.LiteralNode:
		s = n.Value.Value
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		s = n.GetToken().Value
	default:
		d.at(at, join(o.path, k), "expected text, got %s", describe(v))
		return "", false
	}
	if !d.printable(at, join(o.path, k), s) {
		return "", false
	}
	return s, true
}

// printable reports whether text s, shown on a terminal, is free of escape
// and other control characters (which would reach the terminal as commands:
// clearing the screen, setting its title), reporting the first at n if not.
// Tabs and line breaks are text.
func (d *decoder) printable(n ast.Node, field, s string) bool {
	if why := unprintable(s); why != "" {
		d.at(n, field, "%s", why)
		return false
	}
	return true
}

// unprintable says what printable refuses in s, or "" when nothing.
func unprintable(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return (unicode.IsControl(r) && r != '\n' && r != '\t') || human.Reorders(r) })
	if i < 0 {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	if human.Reorders(r) {
		return fmt.Sprintf("contains the bidirectional control character %U, which would make the screen show text in another order than it is; remove it", r)
	}
	return fmt.Sprintf("contains the control character %U, which a terminal would take as a command; remove it", r)
}

// name reads a client name or prefix: printable, trimmed, 1–64 characters.
func (d *decoder) name(o *object, k string) (string, bool) {
	s, ok := d.text(o, k)
	if !ok {
		return "", false
	}
	_, at := o.value(k)
	if !clientName(s) || utf8.RuneCountInString(s) > 64 {
		d.at(at, join(o.path, k), "%q is not a client name; use 1 to 64 printable characters without leading or trailing spaces", truncate(s))
		return "", false
	}
	return s, true
}

// clientName reports whether s may name a client in a scenario file,
// hand-written or recorded (whose line bounds its length): not empty, no
// space at either end, every character printable (no control, format or
// bidirectional character), UTF-8.
func clientName(s string) bool {
	if s == "" || strings.TrimSpace(s) != s || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// integer reads a whole number in [lo, hi]; rng says so in words.
func (d *decoder) integer(o *object, k string, lo, hi int64, rng string) (int64, bool) {
	v, at := o.value(k)
	if at == nil {
		return 0, false
	}
	field := join(o.path, k)
	r, isInt, isNumber := yamlNumber(v)
	switch {
	case isInt && !r.Num().IsInt64():
		size := "large"
		if r.Sign() < 0 {
			size = "small"
		}
		d.at(at, field, "%s is too %s; %s", v.GetToken().Value, size, rng)
		return 0, false
	case isInt:
	case isNumber && r.IsInt() && r.Num().IsInt64():
		d.at(at, field, "%s is a floating-point number in YAML; write it as the whole number %s", v.GetToken().Value, r.Num().String())
		return 0, false
	case isNumber && r.IsInt():
		d.at(at, field, "%s is too large; %s", v.GetToken().Value, rng)
		return 0, false
	case isNumber:
		d.at(at, field, "%s is not a whole number; %s", v.GetToken().Value, rng)
		return 0, false
	case looksNumeric(v):
		d.at(at, field, "%s", notYAML12(v))
		return 0, false
	default:
		if s, isStr := v.(*ast.StringNode); isStr && allDigits(strings.TrimPrefix(s.Value, "-")) {
			d.at(at, field, "expected a whole number, got %s; remove the quotes", describe(v))
		} else {
			d.at(at, field, "expected a whole number, got %s", describe(v))
		}
		return 0, false
	}
	n := r.Num().Int64()
	switch {
	case n < lo:
		d.at(at, field, "%d is too small; %s", n, rng)
		return 0, false
	case n > hi:
		d.at(at, field, "%s is too large; %s", human.Int(n), rng)
		return 0, false
	}
	return n, true
}

// plain returns the text of a scalar that must be written as a string
// (a duration, a clock time), or reports what it got instead.
func (d *decoder) plain(o *object, k, want string) (string, ast.Node, bool) {
	v, at := o.value(k)
	if at == nil {
		return "", nil, false
	}
	if s, isStr := v.(*ast.StringNode); isStr {
		return s.Value, at, true
	}
	d.at(at, join(o.path, k), "expected %s, got %s", want, describe(v))
	return "", at, false
}

// duration reads Go duration syntax, whole milliseconds in [lo, hi].
func (d *decoder) duration(o *object, k string, lo, hi time.Duration) (time.Duration, bool) {
	s, at, ok := d.plain(o, k, "a duration such as 1m, 30s or 500ms")
	if !ok {
		if v, _ := o.value(k); at != nil && isNumber(v) && len(d.errs) > 0 {
			d.errs[len(d.errs)-1].Msg += "; add a unit"
		}
		return 0, false
	}
	dur, msg := parseDuration(s, lo, hi)
	if msg != "" {
		d.at(at, join(o.path, k), "%s", msg)
		return 0, false
	}
	return dur, true
}

func isNumber(n ast.Node) bool {
	_, _, ok := yamlNumber(n)
	return ok
}

// clock reads a time of day. An unquoted 12:00:59 arrives as the string
// "12:00:59" from this YAML library (it does not do YAML 1.1 base-60
// numbers), so quoting is optional.
func (d *decoder) clock(o *object, k string) (algo.Instant, bool) {
	s, at, ok := d.plain(o, k, `a clock time such as "12:00:59"`)
	if !ok {
		return 0, false
	}
	t, msg := parseClock(s)
	if msg != "" {
		d.at(at, join(o.path, k), "%q is not a clock time; %s", truncate(s), msg)
		return 0, false
	}
	field := join(o.path, k)
	if d.rec != nil && d.clocks == nil {
		d.clocks = &clockForm{dated: true, field: "traffic"} // a recorded file's runs are dated
	}
	line, _ := nodePos(at)
	switch c := d.clocks; {
	case c == nil:
		d.clocks = &clockForm{dated: t.IsDated(), field: field, line: line}
	case c.dated != t.IsDated():
		form, other, where := "a time of day", "a date", fmt.Sprintf("%s (line %d)", c.field, c.line)
		if t.IsDated() {
			form, other = other, form
		}
		if c.line == 0 {
			where = "the recorded traffic"
		}
		d.at(at, field, "%q is %s, but %s gives %s; write every time in a file one way: all dates such as \"2026-11-30T23:59:59Z\", or all times of day such as \"12:00:59\"",
			truncate(s), form, where, other)
		return 0, false
	}
	return t, true
}

// boolean reads true or false.
func (d *decoder) boolean(o *object, k string) (bool, bool) {
	v, at := o.value(k)
	if at == nil {
		return false, false
	}
	if b, isBool := v.(*ast.BoolNode); isBool {
		return b.Value, true
	}
	d.at(at, join(o.path, k), "expected true or false, got %s", describe(v))
	return false, false
}

// decimal reads an exact number: 0.75, 93, or a fraction such as "279/3".
// It is read from the source text, never through a float.
func (d *decoder) decimal(o *object, k string) (*big.Rat, bool) {
	v, at := o.value(k)
	if at == nil {
		return nil, false
	}
	r, _, ok := yamlNumber(v)
	if !ok {
		if str, isStr := v.(*ast.StringNode); isStr {
			r, ok = new(big.Rat).SetString(str.Value) // a quoted fraction: "279/3"
		}
	}
	if !ok {
		d.at(at, join(o.path, k), "expected an exact number such as 0.75, 93 or \"279/3\", got %s", describe(v))
		return nil, false
	}
	return r, true
}

// list reads a list field.
func (d *decoder) list(o *object, k string) ([]ast.Node, bool) {
	v, at := o.value(k)
	if at == nil {
		return nil, false
	}
	seq, isSeq := v.(*ast.SequenceNode)
	if !isSeq {
		d.at(at, join(o.path, k), "expected a list, got %s", describe(v))
		return nil, false
	}
	return seq.Values, true
}

// algorithmNames are the names a scenario may use: the kinds in the
// lesson's order, then the presets ("sliding-counter/httprate").
func algorithmNames() []string { return algo.AlgorithmNames() }

// lessonAlgorithms are the lesson's three, replayed when a file names none.
func lessonAlgorithms() []algo.Algorithm {
	out := make([]algo.Algorithm, len(algo.Lesson))
	for i, k := range algo.Lesson {
		out[i] = algo.Algorithm{Kind: k}
	}
	return out
}

// algorithm reads one algorithm name at node v.
func (d *decoder) algorithm(v, at ast.Node, field string) (algo.Algorithm, bool) {
	s, isStr := v.(*ast.StringNode)
	if !isStr {
		d.at(at, field, "expected an algorithm name (%s), got %s", algorithmChoices(""), describe(v))
		return algo.Algorithm{}, false
	}
	a, err := algo.ParseAlgorithm(s.Value)
	if err == nil {
		return a, true
	}
	if pk := new(algo.PresetKindError); errors.As(err, &pk) {
		d.at(at, field, "%v", pk)
		return algo.Algorithm{}, false
	}
	if strings.ContainsAny(s.Value, "@~") {
		d.at(at, field, "%v", err) // a fleet or a racy tally: the parser says what is wrong
		return algo.Algorithm{}, false
	}
	names := algorithmNames()
	hint := ""
	if c, near := Closest(s.Value, names); near {
		hint = fmt.Sprintf("did you mean `%s`? ", c)
	} else {
		for _, n := range names {
			if s.Value != "" && (strings.HasPrefix(n, s.Value) || strings.HasPrefix(s.Value, n)) {
				hint = fmt.Sprintf("did you mean `%s`? ", n)
				break
			}
		}
	}
	d.at(at, field, "unknown algorithm %q; %s%s", truncate(s.Value), hint, algorithmChoices(s.Value))
	return algo.Algorithm{}, false
}

// algorithmChoices says what an algorithm may be: the kinds, and the
// presets of the kind typed before a slash, or how many presets there are
// and where they are listed (every name at once is a paragraph: twenty).
func algorithmChoices(typed string) string {
	kinds := make([]string, len(algo.All))
	for i, k := range algo.All {
		kinds[i] = k.String()
	}
	kind, _, slash := strings.Cut(typed, "/")
	if k, ok := algo.ParseKind(kind); ok && slash {
		var of []string
		for _, p := range algo.AllPresets() {
			if p.Kind == k {
				of = append(of, k.String()+"/"+p.Name)
			}
		}
		if len(of) > 0 {
			return fmt.Sprintf("`%s`'s presets are %s", k, quoteList(of, "and"))
		}
		return fmt.Sprintf("`%s` has no presets; the kinds are %s", k, quoteList(kinds, "and"))
	}
	return fmt.Sprintf("valid ones are %s, or one of the %d presets as kind/name (`windowlab presets` lists them)", quoteList(kinds, "and"), len(algo.AllPresets()))
}

// replayed reads an algorithm that the scenario must be replaying.
func (d *decoder) replayed(o *object, k string, s *Scenario) (algo.Algorithm, bool) {
	v, at := o.value(k)
	if at == nil {
		return algo.Algorithm{}, false
	}
	kind, ok := d.algorithm(v, at, join(o.path, k))
	if ok && !slices.Contains(s.Algorithms, kind) {
		names := make([]string, len(s.Algorithms))
		for i, a := range s.Algorithms {
			names[i] = a.String()
		}
		d.at(at, join(o.path, k), "%s is not replayed by this scenario; its algorithms are %s", kind, quoteList(names, "and"))
		return algo.Algorithm{}, false
	}
	return kind, ok
}
