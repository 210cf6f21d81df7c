package scenarios

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"windowlab/human"
)

// Parse reads a scenario from data; file names it in messages and gives
// the default name. The error, if any, is an ErrorList of up to ten
// errors in file order.
//
// The file is tokenised and checked for size, encoding, nesting, anchors
// and tags before the YAML parser sees it, so hostile input costs linear
// time; then the syntax tree is walked by hand, which is what lets every
// message carry the exact line, column and field path.
//
// A caption that refers to the engine's figures ({sliding-counter.estimate})
// is then resolved by replaying the scenario to its moment, within the
// memory budget every replay keeps to.
func Parse(file string, data []byte) (*Scenario, error) { return resolved(parseText(file, data)) }

// resolved resolves the captions of a scenario just read.
func resolved(s *Scenario, err error) (*Scenario, error) {
	if err != nil {
		return nil, err
	}
	if errs := s.resolveCaptions(); len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

// parseText is Parse without the replay that resolves captions: what it
// costs is in proportion to the file (FuzzParse holds it to that).
func parseText(file string, data []byte) (*Scenario, error) {
	if bytes.HasPrefix(data, []byte(RecordedMark)) {
		if len(data) > MaxRecordedSize {
			return nil, fileError(file, tooLarge(int64(len(data)), true))
		}
		return parseRecorded(file, bytes.NewReader(data))
	}
	d := &decoder{file: file}
	root := d.document(data)
	if root == nil {
		return nil, d.result()
	}
	s := d.scenario(root)
	if err := d.result(); err != nil {
		return nil, err
	}
	return s, nil
}

// decoder walks one file's syntax tree, collecting errors.
type decoder struct {
	file    string
	errs    ErrorList
	dropped int        // errors counted but not kept, past 100*maxErrors
	rec     *recording // a recorded file's traffic, read before its header
	clocks  *clockForm // the first time read, which every other must match in form
}

// clockForm is how a file writes its times, dated or as times of day, and
// where it first did: a file mixing the two would put its times of day in
// 1970, decades before its dates.
type clockForm struct {
	dated bool
	field string
	line  int
}

func (d *decoder) add(line, col int, field, format string, args ...any) {
	if len(d.errs) >= 100*maxErrors { // keep the rest of a huge broken file cheap, but counted
		d.dropped++
		return
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Column: col, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// atToken reports an error located at token tk.
func (d *decoder) atToken(tk *token.Token, field, format string, args ...any) {
	line, col := tokPos(tk)
	d.add(line, col, field, format, args...)
}

// at reports an error located at node n.
func (d *decoder) at(n ast.Node, field, format string, args ...any) {
	line, col := nodePos(n)
	d.add(line, col, field, format, args...)
}

// result returns the errors in file order, at most maxErrors, or nil.
func (d *decoder) result() error {
	if len(d.errs) == 0 {
		return nil
	}
	slices.SortStableFunc(d.errs, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	if len(d.errs) > maxErrors {
		next := d.errs[maxErrors-1]
		more := len(d.errs) + d.dropped - (maxErrors - 1)
		d.errs = append(d.errs[:maxErrors-1], &Error{File: d.file, Line: next.Line, Column: next.Column,
			Msg: fmt.Sprintf("%s more errors from here on; fix those above and check again", human.Int(int64(more)))})
	}
	return d.errs
}

// document checks the raw file and returns its single document's body,
// or nil after recording why there is none.
func (d *decoder) document(data []byte) ast.Node {
	limit := MaxFileSize
	if d.rec != nil { // the header of a recorded file
		limit = maxRecordedHeader
	}
	if len(data) > limit {
		d.add(0, 0, "", "%s", tooLarge(int64(len(data)), false))
		return nil
	}
	if !utf8.Valid(data) {
		line, col := invalidUTF8(data)
		d.add(line, col, "", "the file is not valid UTF-8; save it as UTF-8 text")
		return nil
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if len(bytes.TrimSpace(data)) == 0 {
		d.add(1, 1, "", "the file is empty; a scenario needs at least limit, window and traffic")
		return nil
	}
	f := d.parseYAML(data)
	if f == nil {
		return nil
	}
	var body ast.Node
	for _, doc := range f.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if dir, isDirective := doc.Body.(*ast.DirectiveNode); isDirective {
			// %YAML 1.2 (or 1.1, read the same way) before the document's ---.
			if !d.directive(dir) {
				return nil
			}
			continue
		}
		if body != nil {
			d.at(doc.Body, "", "a scenario file holds one YAML document; remove the second document (after ---)")
			return nil
		}
		body = doc.Body
	}
	if body == nil {
		d.add(1, 1, "", "the file has no content; a scenario needs at least limit, window and traffic")
	}
	return body
}

// parseYAML tokenises, checks and parses data. The library has never
// panicked under fuzzing, but a learner's file must get a message, not a
// crash, so a panic becomes an error too.
func (d *decoder) parseYAML(data []byte) (f *ast.File) {
	defer func() {
		if r := recover(); r != nil {
			d.add(1, 1, "", "not valid YAML: the YAML parser failed (%v); please report this file", r)
			f = nil
		}
	}()
	tokens := lexer.Tokenize(string(data))
	if tk := tokens.InvalidToken(); tk != nil {
		d.atToken(tk, "", "%s", syntaxMessage(tk.Error))
		return nil
	}
	if !d.checkTokens(tokens) {
		return nil
	}
	f, err := parser.Parse(tokens, 0, parser.AllowDuplicateMapKey())
	if err != nil {
		d.yamlError(err)
		return nil
	}
	return f
}

// invalidUTF8 locates the first byte that is not UTF-8.
func invalidUTF8(data []byte) (line, col int) {
	line, col = 1, 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line, col
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		data = data[size:]
	}
	return line, col
}

func tokPos(tk *token.Token) (int, int) {
	if tk == nil || tk.Position == nil {
		return 0, 0
	}
	return tk.Position.Line, tk.Position.Column
}

// syntaxMessage rewords the YAML library's messages that are unclear to a
// learner; the rest pass through after "not valid YAML".
func syntaxMessage(msg string) string {
	if strings.Contains(msg, "'\t'") {
		return "not valid YAML: a tab cannot start a token; indent with spaces, not tabs"
	}
	return "not valid YAML: " + msg
}

// yamlError turns a parser error into one located Error.
func (d *decoder) yamlError(err error) {
	var ye interface {
		GetToken() *token.Token
		GetMessage() string
	}
	if errors.As(err, &ye) {
		line, col := tokPos(ye.GetToken())
		d.add(line, col, "", "%s", syntaxMessage(ye.GetMessage()))
		return
	}
	d.add(0, 0, "", "%s", syntaxMessage(err.Error()))
}

// checkTokens rejects what the format never needs and what could make
// parsing or walking expensive: anchors and aliases (the "billion laughs"
// expansion), tags, nesting deeper than maxDepth, and block mappings of
// more than maxKeys keys (the YAML parser's time grows with the square of
// a block mapping's keys). Block nesting is measured by a stack of
// indentation columns, flow nesting by brackets.
func (d *decoder) checkTokens(tokens token.Tokens) bool {
	ok, anchors, tags, crowded := true, false, false, false
	type level struct {
		col, keys int
		first     *token.Token // the first key of the level's mapping
		lastLine  int          // the line of its last key
	}
	var indents []level
	// pop closes the levels deeper than col, reporting the first mapping
	// with too many keys once its keys are all counted.
	pop := func(col int) {
		for len(indents) > 0 && indents[len(indents)-1].col > col {
			l := indents[len(indents)-1]
			indents = indents[:len(indents)-1]
			if l.keys > maxKeys && !crowded {
				d.atToken(l.first, "", "this mapping has %s keys (to line %d), and a mapping in a scenario file has at most %d fields; remove the keys that are not fields",
					human.Int(int64(l.keys)), l.lastLine, len(topFields))
				ok, crowded = false, true
			}
		}
	}
	flow := 0
	for _, tk := range tokens {
		switch tk.Type {
		case token.AnchorType, token.AliasType:
			if !anchors { // once: a billion-laughs file has hundreds
				d.atToken(tk, "", "anchors and aliases (&name, *name) are not supported; write each value out in full")
			}
			ok, anchors = false, true
		case token.TagType:
			if !tags {
				d.atToken(tk, "", "tags such as %s are not supported; write the plain value", tk.Value)
			}
			ok, tags = false, true
		case token.DocumentHeaderType, token.DocumentEndType:
			pop(-1) // a new document's mappings are new ones
		case token.SequenceStartType, token.MappingStartType:
			flow++
		case token.SequenceEndType, token.MappingEndType:
			if flow > 0 {
				flow--
			}
		case token.SequenceEntryType, token.MappingValueType:
			if flow > 0 {
				continue
			}
			col, first := tk.Position.Column, tk
			if tk.Type == token.MappingValueType && tk.Prev != nil && tk.Prev.Position != nil {
				col, first = tk.Prev.Position.Column, tk.Prev // a mapping is as deep as its keys
			}
			pop(col)
			if len(indents) == 0 || indents[len(indents)-1].col < col {
				indents = append(indents, level{col: col})
			}
			if l := &indents[len(indents)-1]; tk.Type == token.MappingValueType {
				if l.keys == 0 {
					l.first = first
				}
				l.keys++
				l.lastLine = tk.Position.Line
			}
		default:
			continue
		}
		if flow+len(indents) > maxDepth {
			d.atToken(tk, "", "lists and mappings are nested more than %d deep; a scenario needs at most 4", maxDepth)
			return false
		}
	}
	pop(-1)
	return ok
}

var topFields = []string{"name", "title", "description", "limit", "window", "burst", "delay", "segments", "expiry", "tz", "algorithms", "servers", "routing", "routing_seed", "tally", "atomic", "rtt",
	"start", "speed", "traffic", "captions", "questions", "expect"}

// directive accepts a %YAML directive naming a version of YAML 1, which
// scenario files are read as (1.2: see numbers.go); others are refused.
func (d *decoder) directive(n *ast.DirectiveNode) bool {
	name := ""
	if n.Name != nil {
		name = n.Name.GetToken().Value
	}
	var values []string
	for _, v := range n.Values {
		values = append(values, v.GetToken().Value)
	}
	switch {
	case name == "YAML" && len(values) == 1 && (values[0] == "1.2" || values[0] == "1.1"):
		return true
	case name == "YAML":
		d.at(n, "", "%%YAML %s is not a version windowlab reads; scenario files are YAML 1.2 (write %%YAML 1.2, or no directive)", strings.Join(values, " "))
	default:
		d.at(n, "", "the %%%s directive is not used in scenario files; remove it", name)
	}
	return false
}
