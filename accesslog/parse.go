package accesslog

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"windowlab/human"
)

// Format is how a log's lines are written.
type Format uint8

const (
	FormatAuto     Format = iota // detected from the first line
	FormatCombined               // the Common Log Format and Combined (nginx's and Apache httpd's default), with any time variant
	FormatJSON                   // JSON Lines: one object a line
	FormatCSV                    // comma-separated, with a header
	FormatTSV                    // tab-separated, with a header
)

func (f Format) String() string {
	switch f {
	case FormatCombined:
		return "combined"
	case FormatJSON:
		return "json"
	case FormatCSV:
		return "csv"
	case FormatTSV:
		return "tsv"
	}
	return "auto"
}

// ParseFormat reads --format.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return FormatAuto, nil
	case "combined", "common", "clf", "nginx", "apache":
		return FormatCombined, nil
	case "json", "jsonl", "ndjson":
		return FormatJSON, nil
	case "csv":
		return FormatCSV, nil
	case "tsv":
		return FormatTSV, nil
	}
	return 0, fmt.Errorf("--format %q: use auto, combined (also common, nginx, apache), json, csv or tsv", s)
}

// detect guesses a log's format from its first line.
func detect(line []byte) Format {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) > 0 && line[0] == '{':
		return FormatJSON
	case bytes.Contains(line, []byte{'['}) || bytes.Contains(line, []byte{'"'}) && bytes.Count(line, []byte{' '}) >= 6:
		return FormatCombined
	case bytes.IndexByte(line, '\t') >= 0:
		return FormatTSV
	case bytes.IndexByte(line, ',') >= 0:
		return FormatCSV
	}
	return FormatCombined
}

// Key says who a client is: the parts of a request that name it, as
// real limiters key (by address, by user, by path, or by a combination).
type Key struct {
	parts []string // ip, user, path, status, method, or a field's name (named)
	named []bool
}

// ParseKey reads --key: ip (the default), user, path, status, method,
// field:NAME, or several joined by + (ip+path).
func ParseKey(s string) (Key, error) {
	if s == "" {
		s = "ip"
	}
	var k Key
	for _, p := range strings.Split(s, "+") {
		switch name, isField := strings.CutPrefix(p, "field:"); {
		case isField && name != "":
			k.parts, k.named = append(k.parts, name), append(k.named, true)
		case p == "ip" || p == "user" || p == "path" || p == "status" || p == "method":
			k.parts, k.named = append(k.parts, p), append(k.named, false)
		default:
			return Key{}, fmt.Errorf("--key %q: %q is not a part of a key; use ip, user, path, status, method or field:NAME, joined by + (ip+path)", s, p)
		}
	}
	return k, nil
}

func (k Key) String() string {
	out := make([]string, len(k.parts))
	for i, p := range k.parts {
		if k.named[i] {
			p = "field:" + p
		}
		out[i] = p
	}
	return strings.Join(out, "+")
}

// lineParser reads one line: its time, and the parts of its client's key
// into parts (reused, one per part of the key).
type lineParser interface {
	parse(line []byte, parts [][]byte) (stamp, error)
	clone() lineParser
}

// errBadLine is a line that is no request of its format; the text says why.
type errBadLine struct{ why string }

func (e errBadLine) Error() string { return e.why }

func bad(format string, args ...any) error { return errBadLine{fmt.Sprintf(format, args...)} }

// Combined: host ident user [time] "request" status bytes ["referer" "agent"].

type combinedParser struct {
	key   Key
	epoch Epoch
	last  []byte // the last [time] text, and its stamp: lines of one second share it
	at    stamp
	has   bool
	head  int8 // 1: the key is all in the line's head (headOnly); 2: not; 0: not yet asked
}

func (p *combinedParser) parse(line []byte, parts [][]byte) (stamp, error) {
	var l combinedLine
	rest, err := l.head(line)
	if err != nil {
		return stamp{}, err
	}
	st, err := p.stamp(l.time)
	if err != nil {
		return stamp{}, err
	}
	if p.headOnly() {
		// The key is the host (or ident, user): of the rest, only the
		// "request" must be there, which is all tail refuses a line for.
		if rest = bytes.TrimLeft(rest, " "); len(rest) == 0 || rest[0] != '"' {
			return stamp{}, errNoRequest
		}
	} else if err := l.tail(rest); err != nil {
		return stamp{}, err
	}
	for i, name := range p.key.parts {
		v, ok := l.part(name)
		if !ok {
			return stamp{}, bad("a Combined line has no field %q; use host, ident, user, method, path, uri, status, referer or agent", name)
		}
		parts[i] = v
	}
	return st, nil
}

// errNoRequest is a Combined line whose time no "request" follows.
var errNoRequest = errBadLine{`no "request" after the time`}

// headOnly says whether every part of the key is in a line's head (host
// ident user [time]), so that the fields after it need not be cut.
func (p *combinedParser) headOnly() bool {
	if p.head == 0 {
		p.head = 1
		for _, name := range p.key.parts {
			if name != "ip" && name != "host" && name != "ident" && name != "user" {
				p.head = 2
			}
		}
	}
	return p.head == 1
}

// stamp reads the [time] text, reusing the last line's stamp when the
// text is the same.
func (p *combinedParser) stamp(text []byte) (stamp, error) {
	if p.has && bytes.Equal(text, p.last) {
		return p.at, nil
	}
	st, ok := clfTime(text)
	if !ok {
		if st, ok = epochTime(text, p.epoch); !ok {
			return stamp{}, bad("%q is not a time: use [10/Oct/2000:13:55:36 -0700], with .mmm if the log has it, or seconds since the epoch", truncate(text))
		}
	}
	p.last, p.at, p.has = append(p.last[:0], text...), st, true
	return st, nil
}

// combinedLine is a Common or Combined line cut into its fields, each a
// slice of the line.
type combinedLine struct {
	host, ident, user, time []byte
	request, status         []byte
	referer, agent          []byte // empty in a Common line
	method, path            []byte // the request's
	extra                   []byte // what a log_format appends after the agent
}

// head cuts host ident user [time] off the start of line and returns
// what follows.
func (l *combinedLine) head(line []byte) (rest []byte, err error) {
	var f [3][]byte // host, ident, user
	rest = line
	for i := range f {
		j := bytes.IndexByte(rest, ' ')
		if j <= 0 {
			return nil, bad("not a Common or Combined log line: it should start host ident user [time]")
		}
		f[i], rest = rest[:j], rest[j+1:]
	}
	l.host, l.ident, l.user = f[0], f[1], f[2]
	if len(rest) > 0 && rest[0] == '[' {
		j := bytes.IndexByte(rest, ']')
		if j < 0 {
			return nil, bad("the [time] has no closing ]")
		}
		l.time, rest = rest[1:j], rest[j+1:]
	} else {
		j := bytes.IndexByte(rest, ' ')
		if j < 0 {
			j = len(rest)
		}
		l.time, rest = rest[:j], rest[j:]
	}
	return rest, nil
}

// tail reads "request" status bytes ["referer" "agent"] after the time.
func (l *combinedLine) tail(rest []byte) error {
	rest = bytes.TrimLeft(rest, " ")
	if len(rest) == 0 || rest[0] != '"' {
		return errNoRequest
	}
	l.request, rest = quoted(rest)
	rest = bytes.TrimLeft(rest, " ")
	if j := bytes.IndexByte(rest, ' '); j >= 0 {
		l.status, rest = rest[:j], rest[j+1:]
	} else {
		l.status, rest = rest, nil
	}
	if j := bytes.IndexByte(rest, ' '); j >= 0 { // the bytes sent
		rest = bytes.TrimLeft(rest[j+1:], " ")
		if len(rest) > 0 && rest[0] == '"' {
			l.referer, rest = quoted(rest)
			rest = bytes.TrimLeft(rest, " ")
			if len(rest) > 0 && rest[0] == '"' {
				l.agent, l.extra = quoted(rest)
			}
		}
	}
	l.method, l.path = requestParts(l.request)
	return nil
}

// part is the line's value of one part of the key; false for a name a
// Combined line has no field for.
func (l *combinedLine) part(name string) ([]byte, bool) {
	switch name {
	case "ip", "host":
		return l.host, true
	case "ident":
		return dash(l.ident), true
	case "user":
		return dash(l.user), true
	case "path":
		return l.path, true
	case "uri":
		if _, uri, ok := bytes.Cut(l.request, []byte{' '}); ok {
			v, _, _ := bytes.Cut(uri, []byte{' '})
			return v, true
		}
		return nil, true
	case "method":
		return l.method, true
	case "status":
		return l.status, true
	case "referer", "referrer":
		return dash(l.referer), true
	case "agent", "user_agent":
		return dash(l.agent), true
	case "request":
		return l.request, true
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(name, "extra")); err == nil && strings.HasPrefix(name, "extra") && n >= 1 {
		return l.extraWord(n), true
	}
	return nil, false
}

// extraWord is the nth word (from 1) after the agent, quoted or not: nil
// when the line has fewer.
func (l *combinedLine) extraWord(n int) []byte {
	rest := l.extra
	for i := 1; ; i++ {
		rest = bytes.TrimLeft(rest, " ")
		if len(rest) == 0 {
			return nil
		}
		var w []byte
		if rest[0] == '"' {
			w, rest = quoted(rest)
		} else if j := bytes.IndexByte(rest, ' '); j >= 0 {
			w, rest = rest[:j], rest[j:]
		} else {
			w, rest = rest, nil
		}
		if i == n {
			return w
		}
	}
}

// quoted reads a "…" field at the start of b, with \" and \\ escaped as
// Apache writes them (nginx writes \x22), and returns it and what follows.
func quoted(b []byte) (field, rest []byte) {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return b[1:i], b[i+1:]
		}
	}
	return b[1:], nil
}

// requestParts splits "GET /a?b=1 HTTP/1.1" into its method and path
// (without the query).
func requestParts(r []byte) (method, path []byte) {
	method, rest, ok := bytes.Cut(r, []byte{' '})
	if !ok {
		return nil, nil
	}
	uri, _, _ := bytes.Cut(rest, []byte{' '})
	path, _, _ = bytes.Cut(uri, []byte{'?'})
	return method, path
}

// dash is a log's empty field, "-", as empty.
func dash(b []byte) []byte {
	if len(b) == 1 && b[0] == '-' {
		return nil
	}
	return b
}

// truncate shortens a quoted piece of a line for a message.
func truncate(b []byte) string {
	if len(b) > 60 {
		return string(b[:57]) + "…"
	}
	return string(b)
}

// The names a JSON or CSV log gives its fields, when --key or the time's
// field does not name one: the first one present in the first record.
var (
	timeNames = []string{"time", "timestamp", "ts", "@timestamp", "time_local", "date", "datetime", "time_iso8601", "msec"}
	partNames = map[string][]string{
		"ip":     {"ip", "client_ip", "remote_addr", "remote_ip", "client", "clientip", "host", "src_ip"},
		"user":   {"user", "remote_user", "username", "user_id", "userid"},
		"path":   {"path", "uri", "request_uri", "url", "route"},
		"status": {"status", "status_code", "code"},
		"method": {"method", "request_method", "verb"},
	}
)

// fieldPlan is which fields of a JSON or CSV log make a request's time and
// its key, found from the first record.
type fieldPlan struct {
	time  string
	parts []string
}

// plan resolves a key's parts and the time's field against a record's
// field names (has), or says which are missing.
func plan(k Key, timeField string, names []string, has func(string) bool, clientField string) (fieldPlan, error) {
	var fp fieldPlan
	shown := make([]string, len(names)) // a log's own names, for messages: as a terminal may show them
	for i, n := range names {
		shown[i] = human.Visible(n)
	}
	pick := func(what string, candidates []string) (string, error) {
		for _, c := range candidates {
			if has(c) {
				return c, nil
			}
		}
		return "", fmt.Errorf("no field for the %s: tried %s; the first record has %s", what, strings.Join(candidates, ", "), strings.Join(shown, ", "))
	}
	var err error
	if timeField != "" {
		if !has(timeField) {
			return fp, fmt.Errorf("the time's field %q is not in the first record, which has %s", timeField, strings.Join(shown, ", "))
		}
		fp.time = timeField
	} else if fp.time, err = pick("time (give its name with --time-field)", timeNames); err != nil {
		return fp, err
	}
	for i, p := range k.parts {
		switch {
		case k.named[i]:
			if !has(p) {
				return fp, fmt.Errorf("--key field:%s: the first record has no field %q, only %s", p, p, strings.Join(shown, ", "))
			}
			fp.parts = append(fp.parts, p)
		case p == "ip" && clientField != "":
			if !has(clientField) {
				return fp, fmt.Errorf("the client's field %q is not in the first record, which has %s", clientField, strings.Join(shown, ", "))
			}
			fp.parts = append(fp.parts, clientField)
		default:
			name, err := pick(p+" (name it with --key field:NAME)", partNames[p])
			if err != nil {
				return fp, err
			}
			fp.parts = append(fp.parts, name)
		}
	}
	return fp, nil
}

// clone is a parser of its own for another goroutine (parallel.go).
func (p *combinedParser) clone() lineParser {
	c := *p
	c.last, c.has = nil, false
	return &c
}
