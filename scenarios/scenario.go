// Package scenarios loads the traffic a lesson replays: YAML files that name
// a limit, a window and a list of bursts, streams and random arrivals, plus
// the captions, questions and checked expectations that turn a replay into
// a lesson.
//
// Every mistake in a file is reported as file:line:column, the field's path
// and what would be valid, because the people writing these files are
// learners. Traffic is generated lazily, so a scenario of millions of
// requests costs a few hundred bytes until it is replayed.
package scenarios

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// Limits on what one file may ask for. They keep a typo from turning into
// an hour of replay or gigabytes of memory.
const (
	MaxFileSize = 1 << 20    // bytes in one scenario file a person writes
	MaxRequests = 50_000_000 // requests in one scenario, all traffic entries together
	MaxClients  = 1_000_000  // clients of random traffic in one scenario, all entries together
	maxDepth    = 16         // nesting of lists and mappings; the format needs 4
	maxKeys     = 100        // keys in one block mapping; the format's largest has 20 fields
)

// The playback speeds, × real time: what a scenario may start at and what
// the interactive view and a recording play at.
const (
	MinSpeed = 0.1
	MaxSpeed = 1000
)

// SpeedRange names the playback speeds in messages: "0.1 to 1000".
func SpeedRange() string {
	return strconv.FormatFloat(MinSpeed, 'g', -1, 64) + " to " + strconv.FormatFloat(MaxSpeed, 'g', -1, 64)
}

// Scenario is one parsed scenario file. Treat it as read-only: Source, Len
// and Verify read the parsed fields and cache what they derive from them.
type Scenario struct {
	Name        string // a slug: the file's base name unless the file sets name:
	Title       string
	Description string
	File        string // as given to Parse or Load, used in every message
	Config      algo.Config
	Algorithms  []algo.Algorithm // which limiters to replay, in display order
	Start       algo.Instant     // where the clock starts: a window edge at or before the first arrival unless set
	Speed       float64          // the interactive view's starting playback speed, × real time; 0 means 1×
	// Zone, when set (tz:), aligns the windows to its calendar, at the
	// offset it has at the first request (Config.Offset, algo.CalendarOffset).
	Zone      *time.Location
	Traffic   []Traffic // in file order, which is also the order of same-instant requests
	Captions  []Caption
	Questions []Question
	Expect    []Expectation

	rec *recording // a recorded file's traffic, which Traffic then leaves out

	lenOnce   sync.Once
	length    int64
	namesOnce sync.Once
	names     []*clientNames // per traffic entry: the client names of a Random entry
	numbers   []int32        // per traffic entry: its client's number, or a Random entry's first (numbering)
}

// Shape is the kind of a traffic entry.
type Shape uint8

const (
	Burst  Shape = iota // Count requests at At
	Spread              // Count requests spread evenly over [From, To)
	Stream              // one request every Every over [From, To)
	Random              // Poisson arrivals at Rate over [From, To), among Clients clients
)

func (s Shape) String() string {
	switch s {
	case Burst:
		return "burst"
	case Spread:
		return "spread"
	case Stream:
		return "stream"
	case Random:
		return "random"
	}
	return fmt.Sprintf("shape(%d)", uint8(s))
}

// Traffic is one entry of the traffic list.
type Traffic struct {
	Shape  Shape
	Line   int // line of the entry in the file, for a UI that points back at it
	Column int

	// Client is the client of every request; for Random it is the prefix
	// of the names <Client>-1 … <Client>-<Clients>.
	Client string

	At       algo.Instant  // Burst
	From, To algo.Instant  // Spread, Stream, Random: the span [From, To)
	Count    int64         // Burst, Spread
	Every    time.Duration // Stream
	Rate     float64       // Random: requests per second across all its clients
	Clients  int           // Random
	Seed     int64         // Random: the same seed replays the same arrivals
}

// Caption is a line of commentary shown from its moment until Until, or
// when Until is zero until the next caption (the last one for a window).
// Its moment is At, or, when it speaks of one request (Client, Request),
// just after that request is decided: the view lands there and shows that
// request as the one decided. A pausing caption stops a playing clock at
// its moment, so a teacher can talk over it before going on. Shows are its
// claims about the screen at its moment, which Verify checks.
type Caption struct {
	Line   int
	Column int
	At     algo.Instant
	Until  algo.Instant
	Text   string // as shown: Source with its references resolved
	Pause  bool

	// Source is the text as written, its figures references (figures.go);
	// Refs are those references in order, resolved when the file is read.
	Source               string
	Refs                 []Ref
	TextLine, TextColumn int

	Client  string      // the client it speaks of; "" for whoever sends the request
	Request RequestPick // the request at At it speaks of
	Shows   []Expectation
}

// RequestPick names one request at a caption's instant, among the
// requests of its client when it names one: the Nth (1-based; 0 the last),
// or, with HasBy, the Nth that By allowed (Allowed) or denied.
type RequestPick struct {
	Set     bool // written in the file: the caption speaks of a request
	Nth     int64
	HasBy   bool
	By      algo.Algorithm
	Allowed bool
}

// Question is a check-yourself question. When HasAt is set, At is the
// instant whose decisions prove the answer (and Algorithm, when
// HasAlgorithm, the limiter to look at), so a UI can jump there.
type Question struct {
	Line, Column int
	Ask          string
	Answer       string
	Choices      []string // empty for a free answer; else Answer is one of them
	Explain      string
	Hint         string // after a wrong first answer: the first step towards the answer, not the answer
	At           algo.Instant
	HasAt        bool
	Algorithm    algo.Algorithm
	HasAlgorithm bool
	// Figure, when set, names which of the replay's figures the answer is
	// (one of Figures); Verify then checks the answer against it alone.
	Figure string
}

// Expectation is a claim about one limiter that Verify checks by replaying
// the scenario: figures as of the end of instant At (all arrivals with
// instant <= At decided), or of the whole replay when HasAt is false.
// A nil field is not checked.
type Expectation struct {
	Line, Column int
	Algorithm    algo.Algorithm
	At           algo.Instant
	HasAt        bool

	Allowed     *int64
	Denied      *int64
	MaxInWindow *int64 // sim.Stats.MaxInWindow
	PeakEntries *int64 // sim.Stats.PeakMemory.Entries
	LiveEntries *int64 // sim.Stats.Memory.Entries at the clock
	Last        *LastCheck
}

// LastCheck is a claim about the decision on the last arrival decided.
// Weight, Estimate and Tokens are exact fractions: 0.75 means 3/4, never a float.
type LastCheck struct {
	Allowed     *bool
	Count       *int64
	Previous    *int64
	Current     *int64
	Weight      *big.Rat
	Estimate    *big.Rat
	Oldest      *algo.Instant
	WindowStart *algo.Instant
	Tokens      *big.Rat // a token bucket's level as the request arrived
}

// Load reads and parses a scenario file of at most MaxFileSize bytes.
func Load(path string) (*Scenario, error) { return LoadContext(context.Background(), path) }

// LoadContext is Load, giving up when ctx ends: a FIFO with no writer or a
// pipe that never closes cannot keep a command or the view waiting.
func LoadContext(ctx context.Context, path string) (*Scenario, error) {
	return Loader{}.Load(ctx, path)
}

// Loader reads scenario files, telling Progress (when set) how many bytes
// of a file replay --save wrote it has read, of how many, every MiB or so:
// such a file may be gigabytes, read for seconds.
type Loader struct {
	Progress func(read, size int64)
}

// Load is LoadContext, with l's progress.
func (l Loader) Load(ctx context.Context, path string) (*Scenario, error) {
	type read struct {
		s   *Scenario
		err error
	}
	done := make(chan read, 1)
	go func() {
		s, err := loadFile(path, l.Progress)
		done <- read{s, err}
	}()
	select {
	case r := <-done:
		return r.s, r.err
	case <-ctx.Done():
		// The read goes on until its open or read returns, then closes the
		// file; nothing waits for it.
		return nil, fmt.Errorf("%s: stopped while reading: %w", path, context.Cause(ctx))
	}
}

// loadFile reads and parses a scenario file: a regular file or a pipe, at
// most MaxFileSize bytes, or MaxRecordedSize for one replay --save wrote,
// which is parsed as it is read. The path "-" is standard input, named
// Stdin in messages.
func loadFile(path string, progress func(read, size int64)) (*Scenario, error) {
	f := os.Stdin
	if path == "-" {
		path = Stdin
	} else {
		var err error
		if f, err = os.Open(path); err != nil {
			return nil, fileError(path, cleanOSError(err))
		}
		defer f.Close()
	}
	info, err := f.Stat()
	if err != nil {
		return nil, fileError(path, cleanOSError(err))
	}
	mode := info.Mode()
	switch {
	case mode.IsDir():
		return nil, fileError(path, "is a directory")
	case path == Stdin && mode&os.ModeCharDevice != 0: // a terminal: read to its end of file
	case !mode.IsRegular() && mode&os.ModeNamedPipe == 0:
		return nil, fileError(path, "is not a regular file but "+human.FileKind(mode)+"; give a scenario file, or a pipe")
	}
	br := bufio.NewReaderSize(f, 1<<16)
	if mark, _ := br.Peek(len(RecordedMark)); string(mark) == RecordedMark {
		// A file replay --save wrote: read as it streams, never whole.
		if mode.IsRegular() && info.Size() > MaxRecordedSize {
			return nil, fileError(path, tooLarge(info.Size(), true))
		}
		var in io.Reader = io.LimitReader(br, MaxRecordedSize+1)
		if progress != nil {
			in = &progressReader{r: in, size: info.Size(), progress: progress}
		}
		return resolved(parseRecorded(path, in))
	}
	data, err := io.ReadAll(io.LimitReader(br, MaxFileSize+1))
	if err != nil {
		return nil, fileError(path, cleanOSError(err))
	}
	if len(data) > MaxFileSize {
		if mode.IsRegular() {
			return nil, fileError(path, tooLarge(info.Size(), false))
		}
		return nil, fileError(path, fmt.Sprintf("more than 1 MiB came through the pipe; a scenario file may be at most 1 MiB (%s bytes)", human.Int(MaxFileSize)))
	}
	return Parse(path, data)
}

// Stdin names standard input, read for the path "-", in messages.
const Stdin = "standard input"

// RecordedMark starts the files windowlab replay --save writes.
const RecordedMark = "# written by windowlab replay"

// tooLarge is the message for a file of size bytes, over its limit.
func tooLarge(size int64, recorded bool) string {
	if recorded {
		return fmt.Sprintf("the file is %s bytes; a file replay --save wrote may be at most 4 GiB (%s bytes)",
			human.Int(size), human.Int(MaxRecordedSize))
	}
	return fmt.Sprintf("the file is %s bytes; a scenario file may be at most 1 MiB (%s bytes)",
		human.Int(size), human.Int(MaxFileSize))
}

// cleanOSError drops the path from an *os.PathError, since the message is
// already prefixed with it.
func cleanOSError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, os.ErrNotExist) {
			return "no such file"
		}
		return pe.Err.Error()
	}
	return err.Error()
}

func fileError(file, msg string) ErrorList {
	return ErrorList{{File: file, Msg: msg}}
}

// Resolve returns the built-in scenario called nameOrPath, or else loads it
// as a file. A bare name that is neither gets the built-in error, which
// suggests the closest name and lists them all.
func Resolve(nameOrPath string) (*Scenario, error) {
	return ResolveContext(context.Background(), nameOrPath)
}

// progressReader tells progress how far a read has come, every MiB.
type progressReader struct {
	r        io.Reader
	n, told  int64
	size     int64
	progress func(read, size int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if p.n += int64(n); p.n-p.told >= 1<<20 || err != nil {
		p.told = p.n
		p.progress(p.n, p.size)
	}
	return n, err
}

// ResolveContext is Resolve, giving up when ctx ends.
func ResolveContext(ctx context.Context, nameOrPath string) (*Scenario, error) {
	return Loader{}.Resolve(ctx, nameOrPath)
}

// Resolve is ResolveContext, with l's progress.
func (l Loader) Resolve(ctx context.Context, nameOrPath string) (*Scenario, error) {
	if nameOrPath == "-" {
		return l.Load(ctx, nameOrPath)
	}
	s, err := Builtin(nameOrPath)
	if err == nil {
		return s, nil
	}
	if _, statErr := os.Lstat(nameOrPath); errors.Is(statErr, os.ErrNotExist) && !strings.ContainsAny(nameOrPath, `/\.`) {
		return nil, fmt.Errorf("%q is not a file, and %w", nameOrPath, err)
	}
	return l.Load(ctx, nameOrPath)
}

// Len is the exact number of requests the scenario makes. For random
// traffic that takes one dry run of the generator (a few ns per arrival),
// done on first use and cached.
func (s *Scenario) Len() int64 {
	if s.rec != nil {
		return s.rec.requests
	}
	s.lenOnce.Do(func() {
		var n int64
		for i := range s.Traffic {
			n += s.entryLen(i)
		}
		s.length = n
	})
	return s.length
}

// entryLen is the number of requests of traffic entry i.
func (s *Scenario) entryLen(i int) int64 {
	t := &s.Traffic[i]
	switch t.Shape {
	case Burst, Spread:
		return t.Count
	case Stream:
		every := int64(t.Every / time.Millisecond)
		return (int64(t.To-t.From) + every - 1) / every
	}
	g := newGen(s, i, true)
	var n int64
	for ok := g.first(); ok; ok = g.advance() {
		n++
	}
	return n
}

// Source returns a fresh lazy source of the scenario's arrivals.
func (s *Scenario) Source() sim.Source {
	if s.rec != nil {
		return &recSource{c: cursor{r: s.rec}}
	}
	return newSource(s)
}

// Limiters returns fresh limiters, one per algorithm, in s.Algorithms order.
func (s *Scenario) Limiters() []algo.Limiter {
	ls := make([]algo.Limiter, len(s.Algorithms))
	for i, a := range s.Algorithms {
		l, err := a.New(s.Config)
		if err != nil {
			// Parse validated the config and the algorithm names.
			panic(fmt.Sprintf("scenarios: %s: %v", s.File, err))
		}
		ls[i] = l
	}
	return ls
}

// Engine returns an engine replaying the scenario through fresh limiters.
// A zero opts.Start becomes s.Start, so the clock starts where the file
// (or the window edge before the first request) says. A replay whose
// estimate is over windowlab's memory budget is refused with a
// *TooBigError before anything is generated.
func (s *Scenario) Engine(opts sim.Options) (*sim.Engine, error) {
	return s.EngineWith(opts, nil)
}

// EngineWith is Engine with the fresh limiters passed through wrap first
// (when not nil): to decide on a store, for one. It builds them as every
// engine of windowlab is built, with sim.Setup.
func (s *Scenario) EngineWith(opts sim.Options, wrap func([]algo.Limiter) ([]algo.Limiter, error)) (*sim.Engine, error) {
	if opts.Start == 0 {
		opts.Start = s.Start
	}
	setup := sim.Setup{Algorithms: s.Algorithms, Config: s.Config, Wrap: wrap}
	return setup.Engine(s.Source(), opts, func(ls []algo.Limiter) error { return s.fits(ls, opts) })
}

// Fits reports whether an engine over the scenario with opts would stay
// within windowlab's memory budget: nil, or the *TooBigError that Engine
// would refuse it with. A command calls it to refuse a file before doing
// anything with it (check, with the view's options, for every command).
func (s *Scenario) Fits(opts sim.Options) error { return s.fits(s.Limiters(), opts) }

func (s *Scenario) fits(ls []algo.Limiter, opts sim.Options) error {
	ld := s.Load()
	est := sim.EstimateBytes(ls, ld, opts)
	if est <= algo.BudgetLive {
		return nil
	}
	e := &TooBigError{File: s.File, View: opts.History, Estimate: est, Load: ld, Window: s.Config.Window}
	if s.rec == nil && len(s.Traffic) > 0 {
		// Point at the entry that alone would need the most.
		most, mostEst := 0, int64(-1)
		for i := range s.Traffic {
			if est := sim.EstimateBytes(ls, loadOf(s.Traffic[i:i+1], s.Config.Window), opts); est > mostEst {
				most, mostEst = i, est
			}
		}
		t := &s.Traffic[most]
		e.Line, e.Column, e.Field = t.Line, t.Column, fmt.Sprintf("traffic[%d]", most)
		e.Entries = len(s.Traffic)
	}
	return e
}

// firstInstant is the first request's instant; false with none.
func (s *Scenario) firstInstant() (algo.Instant, bool) {
	if s.rec != nil {
		return s.rec.first, s.rec.runs > 0
	}
	return firstArrival(s)
}
