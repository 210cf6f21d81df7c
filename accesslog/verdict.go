package accesslog

import (
	"fmt"
	"strconv"
	"strings"
)

// Verdict is the server's own decision on a request, read from the log
// for --compare.
type Verdict uint8

const (
	VerdictNone    Verdict = iota // no --compare
	VerdictAllowed                // the server let it through (or delayed it)
	VerdictDenied                 // the server refused it
	VerdictMissing                // the line has no value in the field
)

func (v Verdict) String() string {
	switch v {
	case VerdictAllowed:
		return "allowed"
	case VerdictDenied:
		return "denied"
	case VerdictMissing:
		return "missing"
	}
	return "none"
}

// Compare is where a log holds the server's decision (--compare FIELD):
// the HTTP status, or a named JSON field or CSV column (in a Combined
// line, extra1, extra2… are the words after the agent, where a
// log_format appends $limit_req_status).
type Compare struct {
	part  string
	named bool
}

// ParseCompare reads --compare: status, field:NAME or column:NAME.
func ParseCompare(s string) (Compare, error) {
	if s == "status" {
		return Compare{part: "status"}, nil
	}
	for _, prefix := range []string{"field:", "column:"} {
		if name, ok := strings.CutPrefix(s, prefix); ok && name != "" {
			return Compare{part: name, named: true}, nil
		}
	}
	return Compare{}, fmt.Errorf("--compare %q: name where the log holds the server's decision: status, field:NAME (a JSON field; in a Combined line extra1, extra2… after the agent) or column:NAME (CSV, TSV)", s)
}

func (c Compare) String() string {
	if c.named {
		return "field:" + c.part
	}
	return c.part
}

// The values a server's decision is read from, compared without case:
// nginx's $limit_req_status, the words of other limiters, and an HTTP
// status (429 and 503 denied, any other allowed).
var (
	allowedWords = []string{"passed", "delayed", "delayed_dry_run", "allowed", "allow", "accepted", "ok", "pass", "true"}
	deniedWords  = []string{"rejected", "rejected_dry_run", "denied", "deny", "blocked", "throttled", "limited", "reject", "false"}
)

// ReadVerdict reads a server's decision from a field's value: false when
// it is neither allowed nor denied. Empty, "-" and null are missing.
func ReadVerdict(v []byte) (Verdict, bool) {
	s := strings.TrimSpace(string(v))
	if s == "" || s == "-" || s == "null" {
		return VerdictMissing, true
	}
	if n, err := strconv.Atoi(s); err == nil && len(s) == 3 && n >= 100 && n <= 599 {
		if n == 429 || n == 503 {
			return VerdictDenied, true
		}
		return VerdictAllowed, true
	}
	for _, w := range allowedWords {
		if strings.EqualFold(s, w) {
			return VerdictAllowed, true
		}
	}
	for _, w := range deniedWords {
		if strings.EqualFold(s, w) {
			return VerdictDenied, true
		}
	}
	return VerdictNone, false
}

// Marks reads the server's decisions the log kept (Options.Compare), one
// a request in the order of Source, with each request's line.
type Marks struct {
	src  *source
	line int64
}

// Marks are the log's requests' decisions and lines, in Source's order;
// nil when the log was read without Options.Compare.
func (l *Log) Marks() *Marks {
	if !l.marked {
		return nil
	}
	return &Marks{src: &source{view: l.view()}}
}

// Marks reads the decisions of a log read with Options.Compare as the
// tail gets its requests, as Source does (on a streaming tail, make it
// before Read and Close it when done).
func (t *Tail) Marks() *Marks { return &Marks{src: t.Source().(*source)} }

// Next is the next request's line and the server's decision on it.
func (m *Marks) Next() (int64, Verdict, bool) {
	if _, ok := m.src.Next(); !ok {
		return 0, VerdictNone, false
	}
	m.line += zigzagDecode(m.src.mark >> 2)
	return m.line, Verdict(m.src.mark & 3), true
}

// Close says the marks read no more (see source's Close).
func (m *Marks) Close() { m.src.Close() }

func zigzag(d int64) uint64       { return uint64(d<<1) ^ uint64(d>>63) }
func zigzagDecode(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// compareField refuses a --compare field the first record (or the
// header) does not have.
func compareField(c *Compare, has func(string) bool) error {
	if c == nil {
		return nil
	}
	if c.named {
		if !has(c.part) {
			return fmt.Errorf("--compare %s: the first record has no field %q", c, c.part)
		}
		return nil
	}
	for _, n := range partNames["status"] {
		if has(n) {
			return nil
		}
	}
	return fmt.Errorf("--compare status: the first record has no status (tried %s); name its field with --compare field:NAME", strings.Join(partNames["status"], ", "))
}
