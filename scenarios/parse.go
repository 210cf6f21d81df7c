package scenarios

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"windowlab/algo"
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
func Parse(file string, data []byte) (*Scenario, error) {
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
	if limit := cmp.Or(map[bool]int{true: maxRecordedHeader}[d.rec != nil], MaxFileSize); len(data) > limit {
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

var topFields = []string{"name", "title", "description", "limit", "window", "expiry", "tz", "algorithms", "servers", "routing", "routing_seed", "tally", "atomic", "rtt",
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

// scenario reads the top-level mapping.
func (d *decoder) scenario(root ast.Node) *Scenario {
	o := d.object("", root, topFields)
	if o == nil {
		return nil
	}
	base := filepath.Base(d.file)
	s := &Scenario{File: d.file, Name: slugify(strings.TrimSuffix(base, filepath.Ext(base))), Algorithms: lessonAlgorithms()}

	if o.has("name") {
		if name, ok := d.text(o, "name"); ok {
			if !isSlug(name) {
				_, at := o.value("name")
				d.at(at, "name", "%q is not a slug; use lower-case letters, digits and single hyphens, such as %s", truncate(name), slugify(name))
			}
			s.Name = name
		}
	}
	s.Title, _ = d.text(o, "title")
	// A title is one line of the view's header and of the report, even
	// when written as a block (title: >) that ends in a line break.
	s.Title = strings.Join(strings.Fields(s.Title), " ")
	s.Description, _ = d.text(o, "description")

	configOK := d.config(o, s)
	if o.has("speed") {
		s.Speed, _ = d.speed(o, "speed")
	}

	if o.has("algorithms") {
		if items, ok := d.list(o, "algorithms"); ok {
			s.Algorithms = d.algorithms(items, o)
		}
	}

	d.servers(o, s)
	d.atomic(o, s)

	trafficOK := false
	if d.rec != nil {
		s.rec, trafficOK = d.rec, true // read before the header, a run a line
	} else if o.has("traffic") {
		if items, ok := d.list(o, "traffic"); ok {
			trafficOK = d.trafficList(s, items, o)
		}
	} else {
		d.missing(o, "traffic", "give a list of requests, such as traffic: [{at: \"12:00:59\", count: 100}]")
	}

	d.zone(o, s, configOK, trafficOK)
	d.teaching(o, s)
	d.start(o, s, configOK, trafficOK)
	return s
}

// servers reads servers, routing and tally: the scenario's algorithms run
// on that many servers, each with its own tally (local), on one tally the
// servers share (shared), or both side by side (the default).
func (d *decoder) servers(o *object, s *Scenario) {
	if !o.has("servers") {
		for _, k := range []string{"routing", "routing_seed", "tally"} {
			if o.has(k) {
				_, at := o.value(k)
				d.at(at, k, "says how servers share requests or tallies; give servers: too, such as servers: 3")
			}
		}
		return
	}
	n, ok := d.integer(o, "servers", 1, algo.MaxServers, fmt.Sprintf("use a whole number of servers from 1 to %d", algo.MaxServers))
	if !ok {
		return
	}
	routing := algo.RoundRobin
	if o.has("routing") {
		name, _ := d.text(o, "routing")
		if routing, ok = algo.ParseRouting(name); !ok {
			_, at := o.value("routing")
			d.at(at, "routing", "%q is not a routing; use round-robin (each request to the next server), client-hash (a client always to the same server) or random (routing_seed sets the draws)", truncate(name))
			return
		}
	}
	seed := int64(1)
	if o.has("routing_seed") {
		if seed, ok = d.integer(o, "routing_seed", 1, math.MaxInt64, "use a whole number from 1"); !ok {
			return
		}
		if routing != algo.Random {
			_, at := o.value("routing_seed")
			d.at(at, "routing_seed", "sets random routing's draws; give routing: random too")
			return
		}
	}
	tally := "both"
	if o.has("tally") {
		tally, _ = d.text(o, "tally")
		if tally != "local" && tally != "shared" && tally != "both" {
			_, at := o.value("tally")
			d.at(at, "tally", "%q is not a tally; use local (each server its own), shared (one for all) or both", truncate(tally))
			return
		}
	}
	if n < 2 {
		return // one server: one tally, however it is kept
	}
	var out []algo.Algorithm
	for _, a := range s.Algorithms {
		if a.Servers >= 2 {
			out = append(out, a) // named as a fleet already
			continue
		}
		if tally != "local" {
			out = append(out, a)
		}
		if tally != "shared" {
			f := a.Fleet(int(n), routing)
			if routing == algo.Random {
				f.Seed = uint64(seed)
			}
			out = append(out, f)
		}
	}
	if len(out) > 32 {
		_, at := o.value("servers")
		d.at(at, "servers", "makes %d limiters to compare; a scenario compares at most 32: list fewer algorithms", len(out))
		return
	}
	s.Algorithms = out
}

// atomic reads atomic and rtt: atomic: false puts beside each shared
// window limiter the same tally read and written in two round trips, rtt
// apart (2ms unless given), to show the race one script avoids.
func (d *decoder) atomic(o *object, s *Scenario) {
	atomic := true
	if o.has("atomic") {
		atomic, _ = d.boolean(o, "atomic")
	}
	rtt := 2 * time.Millisecond
	if o.has("rtt") {
		var ok bool
		if rtt, ok = d.duration(o, "rtt", 0, algo.MaxRTT); !ok {
			return
		}
		if atomic {
			_, at := o.value("rtt")
			d.at(at, "rtt", "is the time between a racy tally's read and its write; give atomic: false too")
			return
		}
	}
	if atomic {
		return
	}
	var out []algo.Algorithm
	for _, a := range s.Algorithms {
		out = append(out, a)
		if a.Servers < 2 && !a.Racy && a.Kind != algo.KindTokenBucket {
			r := a
			r.Racy, r.RTT = true, rtt
			out = append(out, r)
		}
	}
	if len(out) == len(s.Algorithms) {
		_, at := o.value("atomic")
		d.at(at, "atomic", "no shared window limiter to race: a token bucket or a fleet's local tallies have none")
		return
	}
	if len(out) > 32 {
		_, at := o.value("atomic")
		d.at(at, "atomic", "makes %d limiters to compare; a scenario compares at most 32: list fewer algorithms", len(out))
		return
	}
	s.Algorithms = out
}

// zone reads tz: a zone whose calendar the windows align to, at the
// offset it has at the first request; dated traffic only.
func (d *decoder) zone(o *object, s *Scenario, configOK, trafficOK bool) {
	if !o.has("tz") {
		return
	}
	name, ok := d.text(o, "tz")
	if !ok {
		return
	}
	_, at := o.value("tz")
	loc, err := time.LoadLocation(name)
	if err != nil || name == "" || name == "Local" {
		d.at(at, "tz", "%q is not a time zone; give an IANA name such as Europe/Berlin or Asia/Kolkata, or UTC", truncate(name))
		return
	}
	s.Zone = loc
	if s.rec != nil || !configOK || !trafficOK {
		return // a recorded file's offset is set once its runs are read
	}
	first, ok := firstArrival(s)
	if !ok {
		return
	}
	if !first.IsDated() {
		d.at(at, "tz", "aligns dated traffic only (at: \"2026-11-30T23:59:59.250Z\"); a time-of-day scenario's windows are its own day's")
		return
	}
	s.Config.Offset = algo.CalendarOffset(loc, first, s.Config.Window)
}

// config reads the limit, the window and expiry; false when the limiters
// could not be built from them.
func (d *decoder) config(o *object, s *Scenario) bool {
	configOK := true
	if o.has("limit") {
		s.Config.Limit, configOK = d.integer(o, "limit", 1, algo.MaxLimit, "use a whole number of requests per window from 1 to "+human.Int(algo.MaxLimit))
	} else {
		d.missing(o, "limit", "give the requests allowed per window, such as limit: 100")
		configOK = false
	}
	if o.has("window") {
		var ok bool
		s.Config.Window, ok = d.duration(o, "window", time.Millisecond, algo.MaxWindow)
		configOK = configOK && ok
	} else {
		d.missing(o, "window", "give the window length as a duration, such as window: 1m")
		configOK = false
	}
	if o.has("expiry") {
		expiry, _ := d.boolean(o, "expiry")
		s.Config.NoExpiry = !expiry
	}

	return configOK
}

// teaching reads the captions, questions and expectations.
func (d *decoder) teaching(o *object, s *Scenario) {
	if items, ok := d.list(o, "captions"); ok {
		for i, item := range items {
			if c, ok := d.caption(fmt.Sprintf("captions[%d]", i), item, s); ok {
				s.Captions = append(s.Captions, c)
			}
		}
		// Shown by instant, in file order among equals.
		slices.SortStableFunc(s.Captions, func(a, b Caption) int { return cmp.Compare(a.At, b.At) })
	}
	if items, ok := d.list(o, "questions"); ok {
		for i, item := range items {
			if q, ok := d.question(fmt.Sprintf("questions[%d]", i), item, s); ok {
				s.Questions = append(s.Questions, q)
			}
		}
	}
	if items, ok := d.list(o, "expect"); ok {
		for i, item := range items {
			if e, ok := d.expectation(fmt.Sprintf("expect[%d]", i), item, s, expectFields); ok {
				s.Expect = append(s.Expect, e)
			}
		}
	}
}

// start reads where the clock starts, or puts it at the window edge at or
// before the first request.
func (d *decoder) start(o *object, s *Scenario, configOK, trafficOK bool) {
	first, hasFirst := algo.Instant(0), false
	if s.rec != nil {
		// A recorded file's runs come after its header: parseRecorded sets
		// the start, or checks the one given, once it has read them.
		if o.has("start") {
			s.Start, _ = d.clock(o, "start")
		}
		return
	}
	if trafficOK {
		first, hasFirst = firstArrival(s)
	}
	if o.has("start") {
		if start, ok := d.clock(o, "start"); ok {
			s.Start = start
			if hasFirst && start > first {
				_, at := o.value("start")
				d.at(at, "start", "%s is after the first request at %s; start the clock at or before it", start.Short(), first.Short())
			}
		}
	} else if configOK && trafficOK {
		if !hasFirst { // random traffic that happens to make no request
			first = s.Traffic[0].From
			for _, t := range s.Traffic[1:] {
				first = min(first, t.From)
			}
		}
		s.Start = s.Config.WindowStart(first)
	}
}

// algorithms reads the algorithms list: known names, each once, at least one.
func (d *decoder) algorithms(items []ast.Node, o *object) []algo.Algorithm {
	var kinds []algo.Algorithm
	if len(items) == 0 {
		_, at := o.value("algorithms")
		d.at(at, "algorithms", "the list is empty; leave it out for all three, or name some of %s", quoteList(algorithmNames(), "and"))
		return lessonAlgorithms()
	}
	for i, item := range items {
		field := fmt.Sprintf("algorithms[%d]", i)
		k, ok := d.algorithm(item, item, field)
		if !ok {
			continue
		}
		if slices.Contains(kinds, k) {
			d.at(item, field, "%s is listed twice; list each algorithm once", k)
			continue
		}
		kinds = append(kinds, k)
	}
	if len(kinds) == 0 {
		return lessonAlgorithms()
	}
	return kinds
}

var trafficFields = []string{"at", "count", "client", "from", "to", "every", "rate", "clients", "seed"}

// trafficList reads every traffic entry and checks the total request count
// against MaxRequests before anything is generated.
func (d *decoder) trafficList(s *Scenario, items []ast.Node, o *object) bool {
	if len(items) == 0 {
		_, at := o.value("traffic")
		d.at(at, "traffic", "the list is empty; give at least one entry, such as {at: \"12:00:59\", count: 100}")
		return false
	}
	ok := true
	var total float64
	var clients int64
	for i, item := range items {
		path := fmt.Sprintf("traffic[%d]", i)
		t, entryOK := d.traffic(path, item)
		if !entryOK {
			ok = false
			continue
		}
		total += t.expected()
		if total > MaxRequests {
			d.at(item, path, "brings the scenario to about %s requests; a scenario may make at most %s in all",
				human.Int(int64(total)), human.Int(MaxRequests))
			ok = false
			total = math.Inf(-1) // report the crossing once
		}
		if t.Shape == Random {
			// Each random client's name is built once for the replay, so the
			// clients, not the requests, bound its memory.
			clients += int64(t.Clients)
			if clients > MaxClients {
				d.at(item, path, "brings the scenario to %s clients of random traffic; a scenario may have at most %s in all",
					human.Int(clients), human.Int(MaxClients))
				ok = false
				clients = math.MinInt64 / 2 // report the crossing once
			}
		}
		s.Traffic = append(s.Traffic, t)
	}
	return ok
}

// expected is the entry's request count (for random traffic, its mean).
func (t *Traffic) expected() float64 {
	switch t.Shape {
	case Burst, Spread:
		return float64(t.Count)
	case Stream:
		every := int64(t.Every / time.Millisecond)
		return float64((int64(t.To-t.From) + every - 1) / every)
	}
	return t.Rate * float64(t.To-t.From) / 1000
}

// traffic reads one entry, working out its shape from which fields it has.
func (d *decoder) traffic(path string, n ast.Node) (Traffic, bool) {
	var t Traffic
	o := d.object(path, n, trafficFields)
	if o == nil {
		return t, false
	}
	t.Line, t.Column = nodePos(n)
	nerr := len(d.errs)
	shape, ok := d.shape(path, n, o)
	if !ok {
		return t, false
	}
	t.Shape = shape
	t.Client = "client-1"
	if t.Shape == Random {
		t.Client = "client"
	}
	if o.has("client") {
		t.Client, _ = d.name(o, "client")
	}
	if t.Shape == Burst {
		t.At, _ = d.clock(o, "at")
		t.Count = 1
		if o.has("count") {
			t.Count, _ = d.integer(o, "count", 1, MaxRequests, countRange)
		}
		return t, len(d.errs) == nerr
	}
	d.span(path, o, &t)
	switch t.Shape {
	case Spread:
		t.Count, _ = d.integer(o, "count", 1, MaxRequests, countRange)
	case Stream:
		d.stream(path, o, &t, nerr)
	case Random:
		d.random(path, o, &t, nerr)
	}
	return t, len(d.errs) == nerr
}

// countRange is what a request count may be.
var countRange = "use a whole number from 1 to " + human.Int(MaxRequests)

// shape works out a traffic entry's shape from the fields it has, and
// rejects the fields that belong to another shape.
func (d *decoder) shape(path string, n ast.Node, o *object) (Shape, bool) {
	hasRange := o.has("from") || o.has("to")
	shapes := []string{}
	for _, k := range []string{"count", "every", "rate"} {
		if o.has(k) {
			shapes = append(shapes, k)
		}
	}
	var shape Shape
	switch {
	case o.has("at") && hasRange:
		d.at(n, path, "mixes a burst (`at`) with a time span (`from`, `to`); use `at` for requests at one instant, or `from` and `to` for requests over a span")
		return 0, false
	case o.has("at"):
		for _, k := range []string{"every", "rate", "clients", "seed"} {
			if o.has(k) {
				d.at(o.vals[k].Key, join(path, k), "a burst (`at`) takes only `at`, `count` and `client`; `%s` needs `from` and `to`", k)
			}
		}
		return Burst, true
	case !hasRange:
		d.at(n, path, "needs `at` (requests at one instant) or `from` and `to` (requests over a span)")
		return 0, false
	case len(shapes) == 0:
		d.at(n, path, "a span needs one of `count` (spread evenly), `every` (a steady stream) or `rate` (random arrivals)")
		return 0, false
	case len(shapes) > 1:
		d.at(n, path, "gives both %s; choose one: `count` spreads requests evenly, `every` makes a steady stream, `rate` makes random arrivals", quoteList(shapes, "and"))
		return 0, false
	case shapes[0] == "count":
		shape = Spread
	case shapes[0] == "every":
		shape = Stream
	default:
		return Random, true
	}
	for _, k := range []string{"clients", "seed"} {
		if o.has(k) {
			d.at(o.vals[k].Key, join(path, k), "`%s` applies only to random arrivals (`rate`)", k)
		}
	}
	return shape, true
}

// span reads a traffic entry's [from, to).
func (d *decoder) span(path string, o *object, t *Traffic) {
	fromOK, toOK := false, false
	if o.has("from") {
		t.From, fromOK = d.clock(o, "from")
	} else {
		d.missing(o, "from", "a span needs `from` and `to`")
	}
	if o.has("to") {
		t.To, toOK = d.clock(o, "to")
	} else {
		d.missing(o, "to", "a span needs `from` and `to` (`to` is exclusive)")
	}
	if fromOK && toOK && t.To <= t.From {
		_, at := o.value("to")
		d.at(at, join(path, "to"), "%s is not after from (%s); the span [from, to) must not be empty", t.To.Short(), t.From.Short())
	}
}

// stream reads a steady stream's period, and checks the requests it makes;
// nerr is the error count before the entry.
func (d *decoder) stream(path string, o *object, t *Traffic, nerr int) {
	t.Every, _ = d.duration(o, "every", time.Millisecond, 24*time.Hour)
	if len(d.errs) == nerr && t.expected() > MaxRequests {
		_, at := o.value("every")
		d.at(at, join(path, "every"), "one request every %s from %s to %s makes %s requests; a scenario may make at most %s",
			human.Duration(t.Every), t.From.Short(), t.To.Short(), human.Int(int64(t.expected())), human.Int(MaxRequests))
	}
}

// random reads random arrivals' rate, clients and seed, and checks the
// requests they make on average; nerr is the error count before the entry.
func (d *decoder) random(path string, o *object, t *Traffic, nerr int) {
	t.Rate, _ = d.rate(o, "rate")
	t.Clients = 1
	if o.has("clients") {
		c, _ := d.integer(o, "clients", 1, MaxClients, "use a whole number from 1 to "+human.Int(MaxClients))
		t.Clients = int(c)
	}
	t.Seed = 1
	if o.has("seed") {
		t.Seed, _ = d.integer(o, "seed", math.MinInt64, math.MaxInt64, "use a whole number")
	}
	if len(d.errs) == nerr && t.expected() > MaxRequests {
		_, at := o.value("rate")
		d.at(at, join(path, "rate"), "%s requests a second from %s to %s makes about %s requests; a scenario may make at most %s",
			human.Number(t.Rate), t.From.Short(), t.To.Short(), human.Int(int64(t.expected())), human.Int(MaxRequests))
	}
}

// Playback speeds a scenario may ask for, as the interactive view allows.
const (
	minSpeed = 0.1
	maxSpeed = 1000
)

// speed reads the starting playback speed: a number from 0.1 to 1000.
func (d *decoder) speed(o *object, k string) (float64, bool) {
	v, at := o.value(k)
	field := join(o.path, k)
	want := "use a playback speed from 0.1 to 1000 (times real time), such as speed: 60"
	if !isNumber(v) {
		d.at(at, field, "expected a number, got %s; %s", describe(v), want)
		return 0, false
	}
	r, ok := d.decimal(o, k)
	if !ok {
		return 0, false
	}
	f, _ := r.Float64()
	if f < minSpeed || f > maxSpeed {
		d.at(at, field, "%s is out of range; %s", v.GetToken().Value, want)
		return 0, false
	}
	return f, true
}

// rate reads requests per second: a positive number or a string like "50/s".
func (d *decoder) rate(o *object, k string) (float64, bool) {
	v, at := o.value(k)
	field := join(o.path, k)
	var r float64
	if num, _, isNum := yamlNumber(v); isNum {
		r, _ = num.Float64()
	} else if str, isStr := v.(*ast.StringNode); isStr && !looksNumeric(v) {
		var msg string
		if r, msg = parseRate(str.Value); msg != "" {
			d.at(at, field, "%s", msg)
			return 0, false
		}
	} else if looksNumeric(v) {
		d.at(at, field, "%s", notYAML12(v))
		return 0, false
	} else {
		d.at(at, field, "expected a rate such as 50 (per second), \"50/s\" or \"3000/m\", got %s", describe(v))
		return 0, false
	}
	if !(r > 0) || math.IsInf(r, 0) {
		d.at(at, field, "%s is not a positive rate; use more than 0 requests per second", v.GetToken().Value)
		return 0, false
	}
	return r, true
}

var captionFields = []string{"at", "text", "until", "pause", "client", "request", "shows"}

func (d *decoder) caption(path string, n ast.Node, s *Scenario) (Caption, bool) {
	var c Caption
	o := d.object(path, n, captionFields)
	if o == nil {
		return c, false
	}
	c.Line, c.Column = nodePos(n)
	nerr := len(d.errs)
	if o.has("at") {
		c.At, _ = d.clock(o, "at")
	} else {
		d.missing(o, "at", "give the clock time the caption appears, such as at: \"12:01:00\"")
	}
	if o.has("text") {
		c.Text, _ = d.text(o, "text")
	} else {
		d.missing(o, "text", "give the caption's text")
	}
	if o.has("pause") {
		c.Pause, _ = d.boolean(o, "pause")
	}
	if o.has("until") {
		if until, ok := d.clock(o, "until"); ok {
			c.Until = until
			if len(d.errs) == nerr && until <= c.At {
				_, at := o.value("until")
				d.at(at, join(path, "until"), "%s is not after at (%s); until is when the caption goes away", until.Short(), c.At.Short())
			}
		}
	}
	if o.has("client") {
		if name, ok := d.name(o, "client"); ok {
			c.Client = name
			if known := s.trafficClients(); !slices.Contains(known, name) && !s.randomClient(name) && !s.recordedClient(name) {
				_, at := o.value("client")
				hint := ""
				if near, ok := Closest(name, known); ok {
					hint = fmt.Sprintf("did you mean `%s`? ", near)
				}
				d.at(at, join(path, "client"), "no traffic entry sends as %q; %sits clients are %s", truncate(name), hint, quoteList(known, "and"))
			}
		}
	}
	if o.has("request") {
		v, at := o.value("request")
		var text string
		switch v := v.(type) {
		case *ast.StringNode:
			text = v.Value
		case *ast.IntegerNode:
			text = v.GetToken().Value
		default:
			d.at(at, join(path, "request"), "expected %s, got %s", requestForms, describe(v))
		}
		if text != "" || len(d.errs) == nerr {
			if p, msg := parseRequestPick(text, s.Algorithms); msg != "" {
				d.at(at, join(path, "request"), "%s", msg)
			} else {
				c.Request = p
			}
		}
	}
	if items, ok := d.list(o, "shows"); ok {
		for i, item := range items {
			if x, ok := d.expectation(fmt.Sprintf("%s.shows[%d]", path, i), item, s, showFields); ok {
				x.At, x.HasAt = c.At, true
				c.Shows = append(c.Shows, x)
			}
		}
	}
	return c, len(d.errs) == nerr
}

// trafficClients are the clients the traffic names, in file order (random
// traffic's prefixes among them).
func (s *Scenario) trafficClients() []string {
	var out []string
	for _, t := range s.Traffic {
		name := t.Client
		if t.Shape == Random {
			name += "-1"
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// recordedClient reports whether name is one of a recorded file's clients.
func (s *Scenario) recordedClient(name string) bool {
	if s.rec == nil {
		return false
	}
	_, ok := s.rec.index[name]
	return ok
}

// randomClient reports whether name is one of a random entry's clients,
// <prefix>-<k> with k from 1 to its Clients.
func (s *Scenario) randomClient(name string) bool {
	for _, t := range s.Traffic {
		if t.Shape != Random {
			continue
		}
		if k, err := strconv.Atoi(strings.TrimPrefix(name, t.Client+"-")); err == nil && strings.HasPrefix(name, t.Client+"-") && k >= 1 && k <= t.Clients {
			return true
		}
	}
	return false
}

var questionFields = []string{"ask", "answer", "choices", "explain", "hint", "at", "algorithm", "figure"}

func (d *decoder) question(path string, n ast.Node, s *Scenario) (Question, bool) {
	var q Question
	o := d.object(path, n, questionFields)
	if o == nil {
		return q, false
	}
	q.Line, q.Column = nodePos(n)
	nerr := len(d.errs)
	if o.has("ask") {
		q.Ask, _ = d.text(o, "ask")
	} else {
		d.missing(o, "ask", "give the question")
	}
	if o.has("answer") {
		q.Answer, _ = d.text(o, "answer")
	} else {
		d.missing(o, "answer", "give the answer")
	}
	q.Explain, _ = d.text(o, "explain")
	q.Hint, _ = d.text(o, "hint")
	if o.has("at") {
		q.At, q.HasAt = d.clock(o, "at")
	}
	if o.has("algorithm") {
		q.Algorithm, q.HasAlgorithm = d.replayed(o, "algorithm", s)
	}
	if o.has("figure") {
		d.figure(path, o, &q)
	}
	if items, ok := d.list(o, "choices"); ok {
		if len(items) < 2 {
			_, at := o.value("choices")
			d.at(at, join(path, "choices"), "a multiple-choice question needs at least two choices; leave choices out for a free answer")
		}
		for i, item := range items {
			field := fmt.Sprintf("%s.choices[%d]", path, i)
			var c string
			switch v := item.(type) {
			case *ast.StringNode:
				c = v.Value
			case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
				c = v.GetToken().Value
			default:
				d.at(item, field, "expected text, got %s", describe(item))
				continue
			}
			if !d.printable(item, field, c) {
				continue
			}
			if slices.Contains(q.Choices, c) {
				d.at(item, field, "%q is listed twice; list each choice once", truncate(c))
			}
			q.Choices = append(q.Choices, c)
		}
		if len(d.errs) == nerr && !slices.Contains(q.Choices, q.Answer) {
			_, at := o.value("answer")
			d.at(at, join(path, "answer"), "%q is not one of the choices; copy the right choice word for word", truncate(q.Answer))
		}
	}
	return q, len(d.errs) == nerr
}

// figure reads which of the replay's figures a question's answer is.
func (d *decoder) figure(path string, o *object, q *Question) {
	f, ok := d.text(o, "figure")
	if !ok {
		return
	}
	_, at := o.value("figure")
	field := join(path, "figure")
	switch {
	case !slices.Contains(Figures, f):
		hint := ""
		if c, near := Closest(f, Figures); near {
			hint = fmt.Sprintf("did you mean `%s`? ", c)
		}
		d.at(at, field, "unknown figure %q; %svalid ones are %s", truncate(f), hint, quoteList(Figures, "and"))
	case !o.has("at") || !o.has("algorithm"):
		d.at(at, field, "a figure is read at an instant off one limiter: give the question `at` and `algorithm` too")
	default:
		if _, isNumber := human.ParseNumber(q.Answer); !isNumber {
			d.at(at, field, "the answer %q is not a number, so it cannot be a figure; leave figure out", truncate(q.Answer))
		}
	}
	q.Figure = f
}

var expectFields = []string{"algorithm", "at", "allowed", "denied", "max_in_window", "peak_entries", "live_entries", "last"}

// showFields are a caption's claims: an expectation at the caption's moment.
var showFields = slices.Delete(slices.Clone(expectFields), 1, 2)

var lastFields = []string{"allowed", "count", "previous", "current", "weight", "estimate", "oldest", "window_start", "tokens"}

func (d *decoder) expectation(path string, n ast.Node, s *Scenario, fields []string) (Expectation, bool) {
	var e Expectation
	o := d.object(path, n, fields)
	if o == nil {
		return e, false
	}
	e.Line, e.Column = nodePos(n)
	nerr := len(d.errs)
	kindOK := false
	switch {
	case o.has("algorithm"):
		e.Algorithm, kindOK = d.replayed(o, "algorithm", s)
	case len(s.Algorithms) == 1:
		e.Algorithm, kindOK = s.Algorithms[0], true
	default:
		names := make([]string, len(s.Algorithms))
		for i, a := range s.Algorithms {
			names[i] = a.String()
		}
		d.missing(o, "algorithm", "name the limiter to check: "+quoteList(names, "or"))
	}
	if o.has("at") {
		e.At, e.HasAt = d.clock(o, "at")
	}
	count := func(k string) *int64 {
		if !o.has(k) {
			return nil
		}
		v, ok := d.integer(o, k, 0, math.MaxInt64, "use a whole number, 0 or more")
		if !ok {
			return nil
		}
		return &v
	}
	e.Allowed = count("allowed")
	e.Denied = count("denied")
	e.MaxInWindow = count("max_in_window")
	e.PeakEntries = count("peak_entries")
	e.LiveEntries = count("live_entries")
	if o.has("last") {
		v, _ := o.value("last")
		e.Last = d.lastCheck(join(path, "last"), v, e.Algorithm.Kind, kindOK)
	}
	checks := 0
	checked := expectFields[2:]
	for _, k := range checked {
		if o.has(k) {
			checks++
		}
	}
	if checks == 0 {
		d.at(n, path, "checks nothing; give at least one of %s", quoteList(checked, "or"))
	}
	return e, len(d.errs) == nerr
}

// lastCheck reads the claims about the last decision, rejecting figures
// the expectation's algorithm does not have.
func (d *decoder) lastCheck(path string, n ast.Node, kind algo.Kind, kindOK bool) *LastCheck {
	o := d.object(path, n, lastFields)
	if o == nil {
		return nil
	}
	only := map[string][]algo.Kind{
		"previous":     {algo.KindSlidingCounter},
		"current":      {algo.KindSlidingCounter},
		"weight":       {algo.KindSlidingCounter},
		"estimate":     {algo.KindSlidingCounter},
		"oldest":       {algo.KindSlidingLog},
		"window_start": {algo.KindFixedWindow, algo.KindSlidingCounter},
		"tokens":       {algo.KindTokenBucket},
	}
	for k, kinds := range only {
		if kindOK && o.has(k) && !slices.Contains(kinds, kind) {
			names := make([]string, len(kinds))
			for i, k := range kinds {
				names[i] = k.String()
			}
			d.at(o.vals[k].Key, join(path, k), "only %s decisions have %s; this expectation is for %s", quoteList(names, "and"), k, kind)
			delete(o.vals, k)
		}
	}
	c := &LastCheck{}
	count := func(k string) *int64 {
		if !o.has(k) {
			return nil
		}
		v, ok := d.integer(o, k, 0, math.MaxInt64, "use a whole number, 0 or more")
		if !ok {
			return nil
		}
		return &v
	}
	clock := func(k string) *algo.Instant {
		if !o.has(k) {
			return nil
		}
		v, ok := d.clock(o, k)
		if !ok {
			return nil
		}
		return &v
	}
	rat := func(k string) *big.Rat {
		if !o.has(k) {
			return nil
		}
		v, _ := d.decimal(o, k)
		return v
	}
	if o.has("allowed") {
		if b, ok := d.boolean(o, "allowed"); ok {
			c.Allowed = &b
		}
	}
	c.Count = count("count")
	c.Previous = count("previous")
	c.Current = count("current")
	c.Weight = rat("weight")
	c.Estimate = rat("estimate")
	c.Oldest = clock("oldest")
	c.WindowStart = clock("window_start")
	c.Tokens = rat("tokens")
	if len(o.vals) == 0 {
		d.at(n, path, "checks nothing; give at least one of %s", quoteList(lastFields, "or"))
	}
	return c
}

// firstArrival is the earliest request of any entry, without building the
// whole source (which would count random traffic to the end).
func firstArrival(s *Scenario) (algo.Instant, bool) {
	first, found := algo.Instant(0), false
	for i := range s.Traffic {
		g := newGen(s, i, true)
		if g.first() && (!found || g.at < first) {
			first, found = g.at, true
		}
	}
	return first, found
}
