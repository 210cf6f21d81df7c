package algo

import "math"

// Names numbers client names 0, 1, 2, … in the order it first meets them:
// the dense ids a caller that decides many requests for the same clients
// (the engine in sim) hands to the limiters through ByID, so a decision
// indexes an array instead of hashing the name once per limiter. A name
// keeps its id for as long as the table lives; it is not safe for
// concurrent use.
type Names struct {
	index map[string]int32
	names []string
	bytes []uint32 // each name's length, compact: what memory figures read
}

// NewNames returns an empty table.
func NewNames() *Names { return &Names{index: make(map[string]int32)} }

// ID is the name's id, numbering it when it is new.
func (n *Names) ID(name string) int32 {
	if id, ok := n.index[name]; ok {
		return id
	}
	id := int32(len(n.names))
	n.names = append(n.names, name)
	n.bytes = append(n.bytes, uint32(min(len(name), math.MaxUint32)))
	n.index[name] = id
	return id
}

// Lookup is the name's id, or false for a name never numbered.
func (n *Names) Lookup(name string) (int32, bool) {
	id, ok := n.index[name]
	return id, ok
}

// Name is the name numbered id.
func (n *Names) Name(id int32) string { return n.names[id] }

// Bytes is the length of the name numbered id.
func (n *Names) Bytes(id int32) int { return int(n.bytes[id]) }

// Len is how many names are numbered.
func (n *Names) Len() int { return len(n.names) }

// All is every name, indexed by id; the caller must not change it.
func (n *Names) All() []string { return n.names }

// ByID is a Limiter that decides for clients by their ids in a Names table
// its caller shares with it. All five limiters are. UseNames shares the
// table with a limiter that holds no state yet (or already shares it), and
// reports false, changing nothing, for one holding state under other
// names. From then on Allow and Peek number or look up their client's name
// in the shared table, and AllowID decides for the client numbered id
// without hashing its name; it panics on a limiter that shares no names.
// Clones share the table: a limiter and its clones must not be used from
// different goroutines at once.
type ByID interface {
	Limiter
	UseNames(*Names) bool
	AllowID(t Instant, id int32) Decision
}

// Writer is a ByID limiter that writes its decision in place: the same as
// AllowID's, without the copy of a Decision returned by value (some
// hundred bytes, twice, at every request an engine decides).
type Writer interface {
	AllowIDInto(t Instant, id int32, d *Decision)
	// Held is where the limiter keeps what Memory returns, to be read in
	// place after each decision (no call): valid until the limiter is
	// cloned or restored over, and never written through.
	Held() *Memory
}

// Toucher is a ByID limiter that loads the state of the client numbered id
// ahead of deciding for it, changing nothing: a caller deciding with
// several limiters touches them all first, so that their cache misses (a
// client's states sit in a different array of each limiter) overlap
// rather than come one after another. The byte read is returned only so
// that the load is kept; it means nothing.
type Toucher interface {
	Touch(id int32) byte
}
