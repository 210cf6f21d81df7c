package sim

import "windowlab/algo"

// Arrival is one request on the virtual clock.
type Arrival struct {
	At     algo.Instant
	Client string
	// Number, when above 0, is a number the source gives this client and
	// no other, so the engine finds the client without hashing its name.
	// Sources that number nothing leave it 0.
	Number int32
}

// Source yields a scenario's arrivals lazily, in the order they are decided:
// by instant, and at the same instant in scenario-file order.
type Source interface {
	// Next returns the next arrival, or false after the last one.
	Next() (Arrival, bool)
	// Clone returns an independent copy positioned at the same arrival, so
	// the engine can checkpoint a position and replay from it exactly.
	Clone() Source
	// Len is the total number of arrivals, known before any is generated.
	Len() int64
}

// Named is a Source that numbers its clients (Arrival.Number) and can
// leave their names out: NextNumbered is Next with Client "" whenever
// Number is above 0, and Name is that client's name, for any number the
// source has returned. The engine reads a Named source so and looks a name
// up only when it needs one (a client it meets first, a new most in one
// window, an arrival or record it hands out), which saves loading a name
// a request it will not read: Next stays whole, for every other reader.
type Named interface {
	Source
	NextNumbered() (Arrival, bool)
	Name(number int32) string
}

// Bounded is a Source that knows, without generating its arrivals, an
// instant none comes after (and whether the last one is exactly there).
type Bounded interface {
	LastBound() (algo.Instant, bool)
}

// SliceSource is a Source over arrivals already in memory, for tests and
// small hand-built streams. The slice must already be in decision order.
type SliceSource struct {
	arrivals []Arrival
	pos      int
}

// NewSliceSource returns a Source over arrivals (not copied).
func NewSliceSource(arrivals []Arrival) *SliceSource { return &SliceSource{arrivals: arrivals} }

func (s *SliceSource) Next() (Arrival, bool) {
	if s.pos >= len(s.arrivals) {
		return Arrival{}, false
	}
	a := s.arrivals[s.pos]
	s.pos++
	return a, true
}

func (s *SliceSource) Clone() Source { c := *s; return &c }

func (s *SliceSource) Len() int64 { return int64(len(s.arrivals)) }
