package scenarios

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// What a recorded scenario may hold. Its runs are kept compactly (a few
// bytes each) and read line by line, not through the YAML library, so a
// whole access log's traffic fits: as many requests as windowlab replay
// reads, as many clients, and files of a few GiB.
const (
	MaxRecordedRuns    = 50_000_000
	MaxRecordedClients = 2_000_000
	MaxRecordedSize    = 4 << 30 // bytes of a file replay --save wrote
	maxRecordedHeader  = 1 << 20 // bytes before its traffic: what a person may edit
	maxRecordedLine    = 8 << 10 // one run: its instant, its client (a 1 KiB key, as Visible and quoting write it: 5 bytes a byte at most) and count
)

// recording is recorded traffic, in time order: per run, uvarints of the
// gap since the run before (the first: since 0), the client's number and
// the count less one, in chunks of recChunk bytes (never copied to grow).
type recording struct {
	chunks      [][]byte
	clients     []string
	index       map[string]int32
	runs        int64
	requests    int64
	first, last algo.Instant
	keyBytes    int
	raw         bool // clients are a log's keys as they are (Record): written by human.Visible, never refused
}

const recChunk = 1 << 20

func newRecording() *recording { return &recording{index: map[string]int32{}} }

// add appends a run of count requests of client at at, no earlier than
// the last one; an error says why not when it would be more than a
// recording may hold.
func (r *recording) add(at algo.Instant, client []byte, count int64) error {
	run := Run{At: at, Count: count}
	c, ok := r.index[string(client)]
	if !ok {
		if !r.raw && !clientName(string(client)) {
			return badClient(clientProblem(string(client)))
		}
		if len(r.clients) >= MaxRecordedClients {
			return fmt.Errorf("more than %s clients; a recorded scenario may have at most %s", human.Int(MaxRecordedClients), human.Int(MaxRecordedClients))
		}
		name := string(client)
		c = int32(len(r.clients))
		r.clients = append(r.clients, name)
		r.index[name] = c
		r.keyBytes = max(r.keyBytes, len(name))
	}
	switch {
	case r.runs >= MaxRecordedRuns:
		return fmt.Errorf("more than %s runs; a recorded scenario may hold at most %s", human.Int(MaxRecordedRuns), human.Int(MaxRecordedRuns))
	case run.Count < 1 || run.Count > MaxRequests:
		return fmt.Errorf("count %s: give a whole number of requests from 1 to %s", human.Int(run.Count), human.Int(MaxRequests))
	case r.requests+run.Count > MaxRequests:
		return fmt.Errorf("brings the scenario to %s requests; a scenario may make at most %s in all", human.Int(r.requests+run.Count), human.Int(MaxRequests))
	case r.runs > 0 && run.At < r.last:
		return fmt.Errorf("%s is before the run above it (%s); a recorded file's runs are in time order", run.At, r.last)
	}
	if r.runs == 0 {
		r.first = run.At
	}
	prev := r.last
	if r.runs == 0 {
		prev = 0
	}
	if len(r.chunks) == 0 || len(r.chunks[len(r.chunks)-1])+3*binary.MaxVarintLen64 > recChunk {
		r.chunks = append(r.chunks, make([]byte, 0, recChunk))
	}
	b := &r.chunks[len(r.chunks)-1]
	*b = binary.AppendUvarint(*b, uint64(run.At-prev))
	*b = binary.AppendUvarint(*b, uint64(c))
	*b = binary.AppendUvarint(*b, uint64(run.Count-1))
	r.last = run.At
	r.runs++
	r.requests += run.Count
	return nil
}

// cursor reads a recording's runs in order.
type cursor struct {
	r          *recording
	chunk, off int
	at         algo.Instant
	done       int64
}

// next is the next run: its instant, client number and count.
func (c *cursor) next() (at algo.Instant, client int32, count int64, ok bool) {
	if c.done >= c.r.runs {
		return 0, 0, 0, false
	}
	data := c.r.chunks[c.chunk]
	if c.off == len(data) {
		c.chunk, c.off = c.chunk+1, 0
		data = c.r.chunks[c.chunk]
	}
	gap, n1 := binary.Uvarint(data[c.off:])
	cl, n2 := binary.Uvarint(data[c.off+n1:])
	cnt, n3 := binary.Uvarint(data[c.off+n1+n2:])
	c.off += n1 + n2 + n3
	c.at += algo.Instant(gap)
	c.done++
	return c.at, int32(cl), int64(cnt) + 1, true
}

// Runs yields the recording's runs in order.
func (r *recording) Runs() iter.Seq[Run] {
	return func(yield func(Run) bool) {
		c := cursor{r: r}
		for at, cl, n, ok := c.next(); ok; at, cl, n, ok = c.next() {
			if !yield(Run{At: at, Client: r.clients[cl], Count: n}) {
				return
			}
		}
	}
}

// runsInWindow is the most runs in any half-open interval one window
// long: a pass with a cursor trailing one window behind.
func (r *recording) runsInWindow(w time.Duration) int64 {
	ms := algo.Instant(w / time.Millisecond)
	lead, trail := cursor{r: r}, cursor{r: r}
	var in, most int64
	var trailAt algo.Instant
	trailOK := false
	for at, _, _, ok := lead.next(); ok; at, _, _, ok = lead.next() {
		in++
		if !trailOK {
			trailAt, _, _, trailOK = trail.next()
		}
		for trailOK && trailAt <= at-ms {
			in--
			trailAt, _, _, trailOK = trail.next()
		}
		most = max(most, in)
	}
	return most
}

// recSource replays a recording: a run's requests one after another.
type recSource struct {
	c      cursor
	at     algo.Instant
	client int32
	left   int64
}

func (s *recSource) Next() (sim.Arrival, bool) {
	if s.left == 0 {
		at, cl, n, ok := s.c.next()
		if !ok {
			return sim.Arrival{}, false
		}
		s.at, s.client, s.left = at, cl, n
	}
	s.left--
	return sim.Arrival{At: s.at, Client: s.c.r.clients[s.client], Number: s.client + 1}, true
}

func (s *recSource) Clone() sim.Source { c := *s; return &c }
func (s *recSource) Len() int64        { return s.c.r.requests }

// LastBound is the last run's instant, exactly (sim.Bounded).
func (s *recSource) LastBound() (algo.Instant, bool) { return s.c.r.last, true }

// Record is the scenario a recorded file of r and runs is, built without
// writing it: what Parse of WriteRecorded's file gives, for a replay that
// opens the view on a log directly.
func Record(r Recorded, runs iter.Seq[Run]) (*Scenario, error) {
	rec := newRecording()
	rec.raw = true
	for run := range runs {
		if err := rec.add(run.At, []byte(run.Client), run.Count); err != nil {
			return nil, fmt.Errorf("%s: %v", r.From, err)
		}
	}
	if rec.runs == 0 {
		return nil, fmt.Errorf("%s: no request to replay", r.From)
	}
	name, title := recordedNames(r.From)
	s := &Scenario{Name: name, Title: title, File: r.From, Config: r.Config, Algorithms: append([]algo.Algorithm(nil), r.Algorithms...), rec: rec, Zone: r.Zone}
	if r.Zone != nil {
		s.Config.Offset = algo.CalendarOffset(r.Zone, rec.first, r.Config.Window)
	}
	s.Start = s.Config.WindowStart(rec.first)
	return s, nil
}

// parseRecorded reads a file replay --save wrote, from in: its header
// (everything before "traffic:", a person may edit it) as any scenario's,
// then a run a line, in the form WriteRecorded writes, read without the
// YAML library and kept compactly.
func parseRecorded(file string, in io.Reader) (*Scenario, error) {
	br := bufio.NewReaderSize(in, 1<<16)
	header, line, err := recordedHeader(file, br)
	if err != nil {
		return nil, err
	}
	// The header first: a typo in the limit is told before a long read.
	rec := newRecording()
	d := &decoder{file: file, rec: rec}
	root := d.document(header)
	if root == nil {
		return nil, d.result()
	}
	s := d.scenario(root)
	if err := d.result(); err != nil {
		return nil, err
	}
	if line, err = recordedRuns(file, br, rec, line); err != nil {
		return nil, err
	}
	if rec.runs == 0 {
		return nil, ErrorList{{File: file, Line: line, Column: 1, Field: "traffic", Msg: "the list is empty; a recorded file holds a run a line after \"traffic:\""}}
	}
	if s.Zone != nil {
		s.Config.Offset = algo.CalendarOffset(s.Zone, rec.first, s.Config.Window)
	}
	switch {
	case s.Start == 0: // no start: the window edge at or before the first run
		s.Start = s.Config.WindowStart(rec.first)
	case s.Start > rec.first:
		at := 0
		for i, l := range bytes.Split(header, []byte("\n")) {
			if bytes.HasPrefix(l, []byte("start:")) {
				at = i + 1
			}
		}
		return nil, ErrorList{{File: file, Line: at, Column: 1, Field: "start", Msg: fmt.Sprintf("%s is after the first request at %s; start the clock at or before it", s.Start, rec.first)}}
	}
	return s, nil
}

// recordedHeader reads a recorded file's lines up to its "traffic:" line:
// the header, and the number of lines read, "traffic:" among them.
func recordedHeader(file string, br *bufio.Reader) ([]byte, int, error) {
	var header bytes.Buffer
	line := 0
	for {
		text, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return nil, 0, fileError(file, fmt.Sprintf("line %d is longer than 64 KiB; a recorded file's header is a few short lines", line+1))
		}
		if len(text) == 0 && err == io.EOF {
			return nil, 0, ErrorList{{File: file, Line: max(line, 1), Column: 1, Msg: `no "traffic:" line: a file replay --save wrote ends in its traffic, a run a line after "traffic:"`}}
		}
		line++
		if bytes.Equal(bytes.TrimRight(text, "\r\n"), []byte("traffic:")) {
			return header.Bytes(), line, nil
		}
		header.Write(text)
		if header.Len() > maxRecordedHeader {
			return nil, 0, fileError(file, "the part before \"traffic:\" is over 1 MiB; a recorded file's header is a few short lines")
		}
		if err != nil {
			return nil, 0, ErrorList{{File: file, Line: max(line, 1), Column: 1, Msg: `no "traffic:" line: a file replay --save wrote ends in its traffic, a run a line after "traffic:"`}}
		}
	}
}

// recordedRuns reads the runs after "traffic:", a line each, into rec;
// line is the number of lines read before them, and the number after them
// is returned. The error lists up to maxErrors bad runs.
func recordedRuns(file string, br *bufio.Reader, rec *recording, line int) (int, error) {
	var bad ErrorList
	item := 0
	for {
		text, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull || len(text) > maxRecordedLine {
			return line, ErrorList{{File: file, Line: line + 1, Column: 1, Field: fmt.Sprintf("traffic[%d]", item), Msg: "the line is over 8 KiB; a run is {at: \"…\", client: \"…\", count: …}"}}
		}
		if len(text) == 0 && err != nil {
			break
		}
		line++
		trimmed := bytes.TrimRight(text, "\r\n")
		if len(bytes.TrimSpace(trimmed)) == 0 || bytes.HasPrefix(bytes.TrimSpace(trimmed), []byte("#")) {
			continue
		}
		at, client, count, why := recordedRun(trimmed)
		onClient := false
		if why == "" {
			if aerr := rec.add(at, client, count); aerr != nil {
				_, onClient = aerr.(badClient)
				why = aerr.Error()
			}
		}
		if why != "" {
			col, field := 1+len(trimmed)-len(bytes.TrimLeft(trimmed, " ")), fmt.Sprintf("traffic[%d]", item)
			if onClient {
				col, field = 1+bytes.Index(trimmed, []byte(", client: "))+len(", client: "), field+".client"
			}
			bad = append(bad, &Error{File: file, Line: line, Column: col, Field: field, Msg: why})
			if len(bad) >= maxErrors {
				break
			}
		}
		item++
		if err != nil {
			break
		}
	}
	if len(bad) > 0 {
		return line, bad
	}
	return line, nil
}

// badClient is a recorded file's client that no scenario file may name.
type badClient string

func (b badClient) Error() string { return string(b) }

// clientProblem says why s may not name a client (clientName), as a
// hand-written file is told, and how replay --save writes such a key.
func clientProblem(s string) string {
	why := unprintable(s)
	if why == "" {
		why = fmt.Sprintf("%q is not a client name; use printable characters without leading or trailing spaces", truncate(s))
	}
	return why + `; windowlab replay --save writes a key like it quoted, as its reports show it ("\x1b…")`
}

// recordedRun reads one run line as WriteRecorded writes it:
//
//   - {at: "2026-11-30T23:59:59.250Z", client: "10.0.0.1", count: 3}
//
// (count left out when 1); why says what is wrong with it otherwise. The
// client is returned as the line's bytes when it has no escapes (valid
// until the next line is read), so a known client costs no allocation.
func recordedRun(line []byte) (at algo.Instant, client []byte, count int64, why string) {
	const form = `a run is - {at: "2026-11-30T23:59:59.250Z", client: "10.0.0.1", count: 3} on one line, as windowlab replay --save writes it (without its first line, the file is read as any scenario, of at most 1 MiB)`
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("- {at: "))
	if !ok {
		return 0, nil, 0, form
	}
	when, rest, ok := quotedPrefix(rest)
	if !ok {
		return 0, nil, 0, form
	}
	if at, ok = instantOf(when); !ok {
		return 0, nil, 0, fmt.Sprintf("at: %q is not an instant such as \"2026-11-30T23:59:59.250Z\" (UTC, to the millisecond, 2000 or later)", when)
	}
	rest, ok = bytes.CutPrefix(rest, []byte(", client: "))
	if !ok {
		return 0, nil, 0, form
	}
	if client, rest, ok = quotedPrefix(rest); !ok {
		return 0, nil, 0, form
	}
	count = 1
	if c, ok := bytes.CutPrefix(rest, []byte(", count: ")); ok {
		digits, found := bytes.CutSuffix(c, []byte("}"))
		n, err := strconv.ParseInt(string(digits), 10, 64)
		if err != nil || !found {
			return 0, nil, 0, fmt.Sprintf("count: %q is not a whole number of requests", digits)
		}
		count = n
	} else if string(rest) != "}" {
		return 0, nil, 0, form
	}
	if count < 1 || count > math.MaxInt32 {
		return 0, nil, 0, fmt.Sprintf("count: %d: give a whole number of requests from 1", count)
	}
	return at, client, count, ""
}

// instantOf reads 2006-01-02T15:04:05.000Z, a real date from 2000 on.
func instantOf(b []byte) (algo.Instant, bool) {
	const layout = "2006-01-02T15:04:05.000Z"
	if len(b) != len(layout) {
		return 0, false
	}
	num := func(from, to int) int {
		n := 0
		for _, c := range b[from:to] {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	for i, c := range []byte(layout) {
		if (c < '0' || c > '9') && b[i] != c {
			return 0, false
		}
	}
	y, mo, d, h, mi, sec, ms := num(0, 4), num(5, 7), num(8, 10), num(11, 13), num(14, 16), num(17, 19), num(20, 23)
	if y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59 || ms < 0 {
		return 0, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, ms*int(time.Millisecond), time.UTC)
	if t.Day() != d { // February 30th and the like
		return 0, false
	}
	at := algo.Instant(t.UnixMilli())
	return at, at >= algo.Dated
}

// quotedPrefix reads the double-quoted string b starts with (Go's quoting,
// which WriteRecorded writes and YAML reads alike) and what follows it:
// b's own bytes when the string has no escape.
func quotedPrefix(b []byte) ([]byte, []byte, bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	escaped := false
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			if !escaped {
				if !utf8.Valid(b[1:i]) {
					return nil, nil, false
				}
				return b[1:i], b[i+1:], true
			}
			s, err := strconv.Unquote(string(b[:i+1]))
			return []byte(s), b[i+1:], err == nil
		}
	}
	return nil, nil, false
}
