// Package accesslog reads a web server's access log (the Common Log
// Format and Combined of nginx and Apache httpd, JSON Lines, CSV or TSV,
// gzip-compressed or not) into requests on the virtual clock, so that an
// engineer's own traffic replays through every limiter.
//
// It is a package of its own beside scenarios: a scenario is a file a
// person writes, small and checked field by field; a log is a machine's,
// millions of lines, read once as it streams, its bad lines counted and
// named rather than refused. Its instants are dates (algo.Dated): windows
// align to multiples of the window since the Unix epoch in UTC, as
// Redis-backed limiters' do. The requests are kept in a compact stream (a
// few bytes each: the gap since the last one and the client's number) that
// the engine reads as a sim.Source.
package accesslog

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// Options say how to read a log.
type Options struct {
	Name   string // the file's name, for messages; "-" is standard input
	Format Format
	Key    Key
	Epoch  Epoch
	// TimeField and ClientField name a JSON log's fields (or a CSV's
	// columns) for the time and for --key ip; "" picks from the usual
	// names (time, timestamp, ts…; ip, client_ip, remote_addr…).
	TimeField, ClientField string
	// Reorder is how far back in time a line may be and still be put in
	// its place (merged logs are not quite in order); later lines are
	// counted and named.
	Reorder time.Duration
	// Strict stops at the first bad line.
	Strict bool
	// Progress, when set, is called every few thousand lines with the
	// bytes read so far (of the file as stored: compressed, if it is) and
	// the lines read.
	Progress func(bytes, lines int64)
	// Interrupt, when set, is asked as often, and when the input fails;
	// true stops the reading where it is, and Log.Interrupted says so (an
	// input that waits without end fails when it is interrupted).
	Interrupt func() bool
	// Tail, when set, is given the requests as often, in order, and told
	// when the reading ends, however it ends.
	Tail *Tail
	// Check, when set, is given what the log holds as often, and once
	// more at the end; an error stops the reading with it, at the line
	// (a memory budget's refusal).
	Check func(Usage) error
	// Windows are the window lengths whose busiest runs Usage counts.
	Windows []time.Duration
	// Compare, when set, is where each line holds the server's own
	// decision: kept with each request (Log.Marks), with its line.
	Compare *Compare
	// TimeMinus, when set, names a field holding a duration to take from
	// each request's time (--time-minus): nginx's $msec is when a request
	// was logged, at its end, and $msec − $request_time when it began,
	// which is when limit_req decided it (a delayed request ends later).
	TimeMinus string
	// From and To, when not 0, keep only the requests at or after From
	// and before To (--from, --to): the lines outside are read and
	// skipped, and the reading ends at a line past To and the reorder
	// window (Log.Slice counts them).
	From, To algo.Instant
}

// DefaultReorder is how out of order a log's lines may be by default.
const DefaultReorder = 5 * time.Second

// What one log may hold: windowlab keeps every request (a few bytes each)
// and every client (its key, some 100 bytes with the index), so a log past
// these stops with a message rather than running out of memory; with the
// limiters' state a log at both limits stays within a few hundred MB.
const (
	MaxRequests = 50_000_000
	MaxClients  = 2_000_000
	maxKey      = 1 << 10 // bytes of one client's key; a longer one is cut
)

// RequestLimit is MaxRequests, lowered by a test to reach it quickly: a
// log read to be kept whole stops past it; a streamed one (Tail.Stream)
// keeps none and has no limit.
var RequestLimit int64 = MaxRequests

// clientLimit is MaxClients, lowered by a test to reach it quickly.
var clientLimit = MaxClients

// maxLine is the longest line read; a longer one is a bad line.
const maxLine = 1 << 20

// Problem is a line that was not replayed, and why.
type Problem struct {
	Line int64
	Why  string
	File string // of several files read as one log, the line's; "" for one
}

// keepProblems is how many bad and late lines a log names; the rest are counted.
const keepProblems = 10

// Log is a log read: its requests, and what could not be read.
type Log struct {
	Name        string
	Format      Format
	Key         Key
	Lines       int64 // lines read, blank ones included
	Requests    int64 // requests kept, in time order
	Bad         []Problem
	BadLines    int64
	Late        []Problem // lines further back in time than Reorder
	LateLines   int64
	Digits      int // the finest digits after the second any time had: 0, 3, 6 or 9
	Interrupted bool
	Slice       Slice    // what --from and --to left out (files.go)
	Files       []string // of several files read as one log, in the order read
	Overlaps    []Overlap

	clients []string
	index   clientTable // a client's number by its key (clients.go)
	// Per request, the uvarint gap since the one before (the first: since
	// 0) and the uvarint client, in chunks of ChunkSize: a growing log is
	// never copied to grow.
	chunks [][]byte
	// chunkBase is how many chunks a streaming Tail released before
	// chunks[0] (stream.go): the requests every source has read.
	chunkBase int
	spare     [][]byte // chunks released, to be written again (stream.go)
	first     algo.Instant
	last      algo.Instant

	// What Usage counts: the keys' bytes as allocated, the longest, the
	// clients kept at the latest instant (a bit each, and a client of each
	// word set: kept), the runs.
	keyBytes   int64
	longestKey int
	seenAtLast []uint64
	atLast     []int32
	runs       int64
	sequences  int64
	lastClient int32
	windows    []runCount

	// With Options.Compare, each request's store entry has a third
	// varint: the zigzag change of line since the request before, times
	// 4, plus the server's Verdict.
	marked   bool
	markLine int64
}

// Clients are the clients met, in first-seen order; a request's client
// indexes it.
func (l *Log) Clients() []string { return l.clients }

// ClientNumber is a client's index in Clients (−1 for a name the log does
// not hold).
func (l *Log) ClientNumber(name string) int32 {
	if c, ok := l.index.find([]byte(name)); ok {
		return c
	}
	return -1
}

// First and Last are the first and last requests' instants.
func (l *Log) First() algo.Instant { return l.first }
func (l *Log) Last() algo.Instant  { return l.last }

// Bytes is what the log's requests take in memory.
func (l *Log) Bytes() int64 { return int64(len(l.chunks)) * int64(ChunkSize) }

// ChunkSize is the size of one chunk of the requests' store: what a
// streamed reading holds is counted in them (Tail.PeakChunks): at most
// aheadChunks past the slowest setting's and the one being written, those
// it drops written over again (Log.newChunk), so under a megabyte (a
// chunk holds some 40,000 requests of the benchmark's log). At 1 MiB a
// streamed replay of 20,000 clients settled 10 MB higher (40 MB against 30
// MB for one setting, 66 against 55 MB for a sweep of 4, both at the
// collector's default GOGC), for no CPU measured (BENCHMARKS.md). A test
// lowers it, before any reading.
var ChunkSize = 128 << 10

// Resolution says, in words, how finely the log's times were written, and
// so what windowlab can tell apart.
func (l *Log) Resolution() string {
	switch {
	case l.Requests == 0:
		return ""
	case l.Digits == 0:
		return "times are to the second: requests within one second are decided in file order"
	case l.Digits <= 3:
		return "times are to the millisecond"
	}
	return "times are finer than the millisecond; windowlab decides to the millisecond, requests within one in file order"
}

// Source is the log's requests as the engine reads them.
func (l *Log) Source() sim.Source {
	if l.chunkBase > 0 {
		panic("accesslog: the log was streamed: its requests were dropped as they were decided")
	}
	return &source{view: l.view()}
}

// view is the log's store as it stands.
func (l *Log) view() tailView {
	return tailView{chunks: l.chunks, base: l.chunkBase, clients: l.clients, requests: l.Requests, first: l.first, last: l.last, marked: l.marked}
}

// source reads a log's store: a log read whole, or (tail set) one still
// being read, whose view it renews when it has read all of it.
type source struct {
	tail   *Tail
	view   tailView
	chunk  int // of the whole log's, released ones included (view.base)
	off    int
	at     algo.Instant
	done   int64
	cursor *cursor // a streaming tail's: where this source reads (stream.go)
	mark   uint64  // the last request's mark, on a marked log (Marks)
	_      [64]byte
}

func (s *source) Next() (sim.Arrival, bool) {
	c, ok := s.next()
	if !ok {
		return sim.Arrival{}, false
	}
	return sim.Arrival{At: s.at, Client: s.view.clients[c], Number: c + 1}, true
}

// NextNumbered is Next without the client's name, which Name gives
// (sim.Named): the engine loads a name only when it needs one.
func (s *source) NextNumbered() (sim.Arrival, bool) {
	c, ok := s.next()
	if !ok {
		return sim.Arrival{}, false
	}
	return sim.Arrival{At: s.at, Number: c + 1}, true
}

// next reads the next request: s.at moves to its instant, and c is its
// client's index in the view's clients.
func (s *source) next() (c int32, ok bool) {
	if s.done >= s.view.requests {
		if s.tail == nil {
			return 0, false
		}
		if s.view, _ = s.tail.after(s.done); s.done >= s.view.requests {
			return 0, false
		}
	}
	data := s.view.chunks[s.chunk-s.view.base]
	if s.off == len(data) {
		s.chunk, s.off = s.chunk+1, 0
		data = s.view.chunks[s.chunk-s.view.base]
		if s.cursor != nil {
			s.moved()
		}
	}
	var gap uint64
	if g := data[s.off]; g < 0x80 { // the usual gap, under 128 ms: one byte
		gap = uint64(g)
		s.off++
	} else {
		var n int
		gap, n = binary.Uvarint(data[s.off:])
		s.off += n
	}
	u, m := binary.Uvarint(data[s.off:])
	s.off += m
	if s.view.marked {
		mark, k := binary.Uvarint(data[s.off:])
		s.off, s.mark = s.off+k, mark
	}
	s.at += algo.Instant(gap)
	s.done++
	return int32(u), true
}

// Name is the name of the client numbered number (Arrival.Number).
func (s *source) Name(number int32) string { return s.view.clients[number-1] }

func (s *source) Clone() sim.Source { c := *s; c.cursor = nil; return &c }

// Len is every request of the log (of a tail, once the reading has ended).
func (s *source) Len() int64 { return s.final().requests }

// LastBound is the last request's instant, exactly (sim.Bounded); of a
// tail, once the reading has ended.
func (s *source) LastBound() (algo.Instant, bool) { return s.final().last, true }

// final is the whole log's view, waited for when it is still being read.
func (s *source) final() tailView {
	if s.tail == nil {
		return s.view
	}
	return s.tail.final()
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Read reads a log from r: gzip-compressed or not (by its magic bytes), in
// opts.Format or the one its first line shows.
func Read(r io.Reader, opts Options) (*Log, error) {
	return ReadFiles([]Input{{Name: opts.Name, R: r}}, opts)
}

// ReadFiles reads several files (rotated logs, oldest first) as one log,
// each gzip-compressed or not: one stream of requests, whose reorder window
// spans the files' boundaries; a problem names its file and its line there.
func ReadFiles(inputs []Input, opts Options) (l *Log, err error) {
	if opts.Tail != nil {
		defer func() { opts.Tail.end(l) }()
	}
	if opts.Reorder < 0 {
		return nil, errors.New("--reorder must not be negative")
	}
	if len(opts.Key.parts) == 0 {
		opts.Key, _ = ParseKey("ip")
	}
	l = &Log{Name: opts.Name, Format: opts.Format, Key: opts.Key, index: newClientTable(), marked: opts.Compare != nil}
	l.Slice = Slice{From: opts.From, To: opts.To}
	l.counting(opts.Windows)
	nkey := len(opts.Key.parts)
	if opts.Compare != nil {
		opts.Key.parts = append(slices.Clone(opts.Key.parts), opts.Compare.part)
		opts.Key.named = append(slices.Clone(opts.Key.named), opts.Compare.named)
	}
	minus := -1
	if opts.TimeMinus != "" {
		minus = len(opts.Key.parts)
		opts.Key.parts = append(slices.Clone(opts.Key.parts), opts.TimeMinus)
		opts.Key.named = append(slices.Clone(opts.Key.named), true)
	}
	rd := reader{log: l, opts: opts, files: files{inputs: inputs}, counted: &countingReader{}, parts: make([][]byte, len(opts.Key.parts)), nkey: nkey, minus: minus, known: -1}
	rd.waiting.marked = l.marked
	rd.reorder = algo.Instant(opts.Reorder / time.Millisecond)
	if err := rd.run(); err != nil {
		if rd.gzipErr {
			return nil, err
		}
		return l, err
	}
	return l, nil
}

// reader is one reading of a log.
type reader struct {
	log     *Log
	opts    Options
	br      *bufio.Reader
	counted *countingReader
	parser  lineParser
	parts   [][]byte // the key's, then --compare's
	nkey    int      // the key's parts in parts
	minus   int      // --time-minus's part in parts, or -1
	key     []byte
	scratch []byte // a short key unpacked (takeParsed)
	waiting waiting
	reorder algo.Instant // Options.Reorder
	flushed algo.Instant // the until of the last flush of a line's (parsed)
	newest  algo.Instant // the latest time read
	emitted algo.Instant // the last request's time kept
	long    []byte       // a line longer than the reader's buffer, gathered
	files
	// A parallel reading's (parallel.go): its workers for the file open (0:
	// none), whether they run, the block being taken and the bytes read to
	// its end.
	workers   int
	piped     bool
	carry     []byte // what a block's reading read past its last line break (fill)
	longLine  bool   // the reading is past maxLine of a line, left out to its break
	known     int32  // the line's client, looked up ahead (findClients), or −1
	cur       *block
	blockRead int64
}

func (rd *reader) run() error {
	l, opts := rd.log, rd.opts
	for i := range rd.inputs {
		stop, err := rd.open(i)
		if err == nil && !stop {
			stop, err = rd.lines()
		}
		if err != nil {
			return err
		}
		if stop {
			break
		}
	}
	rd.flush(maxInstant)
	rd.waiting = waiting{} // all kept
	if opts.Progress != nil {
		opts.Progress(rd.counted.n, l.Lines)
	}
	return rd.check()
}

// lines reads the lines of the file open; stop says the reading ends here
// (a signal, or past --to). A large regular file is parsed by workers
// beside the reading (parallel.go), the lines taken in order just the same.
func (rd *reader) lines() (stop bool, err error) {
	if rd.workers != 0 {
		return rd.linesParallel()
	}
	for {
		line, rerr := rd.line()
		if end, stop, err := rd.one(line, nil, rerr); end {
			return stop, err
		}
	}
}

// one takes a line read (rerr: the reading's error with it, io.EOF at the
// end), parsed already when p is set; end says the file's reading ends
// there, stop that the whole reading does (a signal, or past --to).
func (rd *reader) one(line []byte, p *parsed, rerr error) (end, stop bool, err error) {
	l, opts := rd.log, rd.opts
	if rerr != nil && rerr != io.EOF && opts.Interrupt != nil && opts.Interrupt() {
		l.Interrupted = true // the line it cut short is left out
		return true, true, nil
	}
	if len(line) > 0 || rerr == nil {
		l.Lines++
		rd.lineNo++
		var perr error
		if p != nil {
			perr = rd.takeParsed(p)
		} else {
			perr = rd.take(line)
		}
		if perr != nil {
			return true, false, perr
		}
		if rd.past {
			return true, true, nil
		}
		if l.Lines%4096 == 0 {
			if opts.Progress != nil {
				opts.Progress(rd.bytesRead(), l.Lines)
			}
			if opts.Tail != nil {
				opts.Tail.publish(l, false)
				opts.Tail.hold(l, opts.Interrupt) // streaming: drop what was decided, wait for the deciding
			}
			if err := rd.check(); err != nil {
				return true, false, err
			}
			if opts.Interrupt != nil && opts.Interrupt() {
				l.Interrupted = true
				return true, true, nil
			}
		}
	}
	if rerr == io.EOF {
		return true, false, nil
	}
	if rerr != nil {
		rd.flush(maxInstant)
		return true, false, fmt.Errorf("%s: after line %d: %w", rd.name, rd.lineNo, rerr)
	}
	return false, false, nil
}

// check gives Options.Check what the log holds now.
func (rd *reader) check() error {
	if rd.opts.Check == nil {
		return nil
	}
	u := rd.log.Usage()
	u.Waiting = rd.waiting.bytes()
	if err := rd.opts.Check(u); err != nil {
		return fmt.Errorf("%s:%d: %w", rd.name, rd.lineNo, err)
	}
	return nil
}

// line is the next line without its line break; a line longer than
// maxLine is returned cut, and taken as bad.
func (rd *reader) line() ([]byte, error) {
	line, err := rd.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		rd.long = append(rd.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = rd.br.ReadSlice('\n')
			if len(rd.long) < maxLine+1 {
				rd.long = append(rd.long, line[:min(len(line), maxLine+1-len(rd.long))]...)
			}
		}
		line = rd.long
	}
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	return line, readError(err)
}

// readError is the reading's error as a message says it.
func readError(err error) error {
	if err == io.ErrUnexpectedEOF {
		return fmt.Errorf("the compressed stream is cut short (a truncated .gz?)")
	}
	return err
}

// take reads one line: the first sets the format (and for CSV, TSV and
// JSON, which fields to read); a request goes into the reorder window.
func (rd *reader) take(line []byte) error {
	if k := kindOf(line); k != lineParsed {
		return rd.unparsed(k)
	}
	if rd.headerNext {
		return rd.sameHeader(line)
	}
	if rd.parser == nil {
		header, err := rd.start(line)
		if err != nil {
			return err
		}
		if header {
			rd.header = bytes.Clone(line)
			return nil
		}
	}
	st, err := rd.parser.parse(line, rd.parts)
	return rd.parsed(st, err)
}

// parsed takes a line parsed to st and rd.parts, or to err.
func (rd *reader) parsed(st stamp, err error) error {
	l, opts, reorder := rd.log, rd.opts, rd.reorder
	if err != nil {
		var b errBadLine
		if errors.As(err, &b) {
			return rd.problem(b.why)
		}
		return err
	}
	if rd.minus >= 0 {
		ms, ok := readSeconds(rd.parts[rd.minus])
		if !ok {
			return rd.problem(fmt.Sprintf("--time-minus %s: %q is not a duration: use seconds (nginx's $request_time, 0.250) or a duration with its unit (250ms)",
				opts.TimeMinus, truncate(rd.parts[rd.minus])))
		}
		st.at -= algo.Instant(ms)
	}
	if rd.skip(st.at, reorder) {
		return nil
	}
	l.Digits = max(l.Digits, st.digits)
	started := l.Requests+rd.waiting.len() > 0
	first := !rd.dated
	rd.dated = true
	if started && st.at < rd.emitted {
		l.LateLines++
		if first && rd.index > 0 {
			rd.overlaps = true
			l.Overlaps = append(l.Overlaps, Overlap{File: rd.name, Begins: st.at, Newest: rd.newest})
		}
		if rd.overlaps {
			l.Overlaps[len(l.Overlaps)-1].Late++
		}
		if len(l.Late) < keepProblems {
			l.Late = append(l.Late, Problem{rd.lineNo, fmt.Sprintf("%s is more than --reorder %s before %s, a line already read",
				st.at.String(), opts.Reorder, rd.newest.String()), rd.file()})
		}
		if opts.Strict {
			return fmt.Errorf("%s:%d: %s (--strict)", rd.name, rd.lineNo, l.Late[len(l.Late)-1].Why)
		}
		return nil
	}
	if !opts.Tail.streaming() && l.Requests+rd.waiting.len() >= RequestLimit {
		return fmt.Errorf("%s:%d: more than %s requests; windowlab keeps every one and stops here rather than run out of memory: cut the log to the hours you want", rd.name, rd.lineNo, human.Int(RequestLimit))
	}
	c, ok := rd.client()
	if !ok {
		return fmt.Errorf("%s:%d: more than %s clients by --key %s; windowlab keeps every one and stops here rather than run out of memory: key by less (ip rather than ip+path) or cut the log",
			rd.name, rd.lineNo, human.Int(int64(clientLimit)), opts.Key)
	}
	v := VerdictNone
	if opts.Compare != nil {
		var ok bool
		if v, ok = ReadVerdict(rd.parts[rd.nkey]); !ok {
			return fmt.Errorf("%s:%d: --compare %s: %q is neither allowed nor denied; use a status (429 and 503 are denied), nginx's $limit_req_status (PASSED, DELAYED, REJECTED…), allowed/denied, true/false",
				rd.name, rd.lineNo, opts.Compare, human.Visible(string(rd.parts[rd.nkey])))
		}
	}
	rd.waiting.add(st.at, l.Lines, c, v, rd.newest, started)
	if !started {
		rd.newest = st.at
	}
	rd.newest = max(rd.newest, st.at)
	// The last flush kept all that waited at or before its until: with
	// the same until, only this request may be due. Lines within one
	// second of a log to the second mostly are, and are not.
	if until := rd.newest - reorder; until != rd.flushed || st.at <= until {
		rd.flush(until)
		rd.flushed = until
	}
	return nil
}

// start sets the parser from the first line: it reports whether the line
// was a header.
func (rd *reader) start(line []byte) (header bool, err error) {
	l, opts := rd.log, rd.opts
	if l.Format == FormatAuto {
		l.Format = detect(line)
	}
	switch l.Format {
	case FormatCombined:
		if n, ok := strings.CutPrefix(opts.TimeMinus, "extra"); opts.TimeMinus != "" && (!ok || n == "" || strings.Trim(n, "0123456789") != "") {
			return false, fmt.Errorf("%s:%d: --time-minus %s: a Combined line has no such field; name a word after the agent, extra1, extra2… (where a log_format appends $request_time)", rd.name, rd.lineNo, opts.TimeMinus)
		}
		rd.parser = &combinedParser{key: opts.Key, epoch: opts.Epoch}
		return false, nil
	case FormatJSON:
		names, jerr := jsonKeys(line)
		if jerr != nil {
			return false, fmt.Errorf("%s:%d: the first line is not a JSON object (%v); give --format", rd.name, rd.lineNo, jerr)
		}
		set := map[string]bool{}
		for _, n := range names {
			set[n] = true
		}
		if err := compareField(opts.Compare, func(n string) bool { return set[n] }); err != nil {
			return false, fmt.Errorf("%s:%d: %w", rd.name, rd.lineNo, err)
		}
		if opts.TimeMinus != "" && !(func(n string) bool { return set[n] })(opts.TimeMinus) {
			return false, fmt.Errorf("%s:%d: --time-minus %s: the first record has no field %q", rd.name, rd.lineNo, opts.TimeMinus, opts.TimeMinus)
		}
		fp, perr := plan(opts.Key, opts.TimeField, names, func(n string) bool { return set[n] }, opts.ClientField)
		if perr != nil {
			return false, fmt.Errorf("%s:%d: %w", rd.name, rd.lineNo, perr)
		}
		rd.parser = newJSONParser(fp, opts.Epoch)
		return false, nil
	}
	sep := byte(',')
	if l.Format == FormatTSV {
		sep = '\t'
	}
	tp := &tableParser{sep: sep, epoch: opts.Epoch}
	cols, serr := tp.splitRow(line)
	if serr != nil {
		return false, fmt.Errorf("%s:%d: the header: %v", rd.name, rd.lineNo, serr)
	}
	names := make([]string, len(cols))
	at := map[string]int{}
	for i, c := range cols {
		names[i] = strings.TrimSpace(string(c))
		if _, dup := at[names[i]]; !dup {
			at[names[i]] = i
		}
	}
	if err := compareField(opts.Compare, func(n string) bool { _, ok := at[n]; return ok }); err != nil {
		return false, fmt.Errorf("%s:%d: the header: %w", rd.name, rd.lineNo, err)
	}
	if opts.TimeMinus != "" && !(func(n string) bool { _, ok := at[n]; return ok })(opts.TimeMinus) {
		return false, fmt.Errorf("%s:%d: the header: --time-minus %s: the first record has no field %q", rd.name, rd.lineNo, opts.TimeMinus, opts.TimeMinus)
	}
	fp, perr := plan(opts.Key, opts.TimeField, names, func(n string) bool { _, ok := at[n]; return ok }, opts.ClientField)
	if perr != nil {
		return false, fmt.Errorf("%s:%d: the header: %w", rd.name, rd.lineNo, perr)
	}
	tp.cols = []int{at[fp.time]}
	for _, p := range fp.parts {
		tp.cols = append(tp.cols, at[p])
	}
	rd.parser = tp
	return true, nil
}

// problem counts a bad line, naming the first few; with Strict it is the
// end.
func (rd *reader) problem(why string) error {
	l := rd.log
	if rd.opts.Strict {
		return fmt.Errorf("%s:%d: %s (--strict stops at the first bad line)", rd.name, rd.lineNo, why)
	}
	l.BadLines++
	if len(l.Bad) < keepProblems {
		l.Bad = append(l.Bad, Problem{rd.lineNo, why, rd.file()})
	}
	return nil
}

// client is the number of the client the line's key parts name.
func (rd *reader) client() (int32, bool) {
	if rd.known >= 0 {
		return rd.known, true
	}
	key := rd.keyBytes()
	l := rd.log
	if c, ok := l.index.find(key); ok {
		return c, true
	}
	if len(l.clients) >= clientLimit {
		return 0, false
	}
	c := int32(len(l.clients))
	name := string(key)
	l.clients = append(l.clients, name)
	l.index.add(name, c)
	l.named(name)
	return c, true
}

// keyBytes is the client's key: the line's key parts, "-" for an empty
// one, joined by spaces, cut at maxKey (the one part itself, mostly).
func (rd *reader) keyBytes() []byte {
	if rd.nkey == 1 {
		if p := rd.parts[0]; len(p) > 0 && len(p) <= maxKey {
			return p
		}
	}
	rd.key = rd.key[:0]
	for i, p := range rd.parts[:rd.nkey] {
		if i > 0 {
			rd.key = append(rd.key, ' ')
		}
		if len(p) == 0 {
			p = []byte{'-'}
		}
		rd.key = append(rd.key, p...)
	}
	if len(rd.key) > maxKey {
		rd.key = rd.key[:maxKey]
	}
	return rd.key
}

// flush keeps, in time order, every waiting request at or before until.
func (rd *reader) flush(until algo.Instant) {
	l := rd.log
	for {
		at, q, ok := rd.waiting.next(until)
		if !ok {
			return
		}
		client := q.client
		if l.Requests == 0 {
			l.first, rd.emitted = at, 0
		}
		// A request takes at most 3 × 10 bytes: start a chunk when that may not fit.
		if len(l.chunks) == 0 || len(l.chunks[len(l.chunks)-1])+3*binary.MaxVarintLen64 > ChunkSize {
			l.chunks = append(l.chunks, l.newChunk())
		}
		c := &l.chunks[len(l.chunks)-1]
		*c = binary.AppendUvarint(*c, uint64(at-rd.emitted))
		*c = binary.AppendUvarint(*c, uint64(client))
		if l.marked {
			*c = binary.AppendUvarint(*c, zigzag(q.seq-l.markLine)<<2|uint64(q.verdict))
			l.markLine = q.seq
		}
		l.Requests++
		l.kept(client, at)
		rd.emitted, l.last = at, at
	}
}
