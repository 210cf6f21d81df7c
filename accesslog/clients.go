package accesslog

import "math/bits"

// clientTable numbers the clients a log's lines name, looked up by the
// key's bytes with nothing allocated for a client met before. A key that is
// an IPv4 address written the one usual way (four decimal numbers 0–255
// without leading zeros: what a web server logs as the client by default)
// is found by its 32 bits, held in the table's slot itself: no string hashed
// or compared, one cache line read. Any other key (IPv6, a user, ip+path)
// is found by its bytes in a map keyed by string, which Go looks up from a
// []byte converted in place without allocating. The two never hold the same
// key: the address's text is a function of its 32 bits and back.
type clientTable struct {
	v4    v4Table
	names map[string]int32
}

func newClientTable() clientTable {
	return clientTable{names: map[string]int32{}}
}

// find is key's number; false when the table has not met it.
func (t *clientTable) find(key []byte) (int32, bool) {
	if a, ok := ipv4(key); ok {
		return t.v4.find(a)
	}
	c, ok := t.names[string(key)]
	return c, ok
}

// add numbers a key the table has not met.
func (t *clientTable) add(key string, c int32) {
	if a, ok := ipv4([]byte(key)); ok {
		t.v4.add(a, c)
		return
	}
	t.names[key] = c
}

// v4Table is a table of IPv4 addresses and their numbers in one slice of
// 8-byte slots, each an address and its number plus one (0: empty), found
// by linear probing from a multiplicative hash, kept at most half full.
type v4Table struct {
	slots []uint64
	n     int
	shift uint // 64 − log2(len(slots))
}

func (t *v4Table) home(a uint32) int { return int((uint64(a) * 0x9e3779b97f4a7c15) >> t.shift) }

func (t *v4Table) find(a uint32) (int32, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := len(t.slots) - 1
	for i := t.home(a); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if uint32(s>>32) == a {
			return int32(uint32(s)) - 1, true
		}
	}
}

// add puts a, which the table does not hold, with its number c.
func (t *v4Table) add(a uint32, c int32) {
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		size := max(1024, 2*len(old))
		t.slots, t.n, t.shift = make([]uint64, size), 0, uint(64-bits.TrailingZeros(uint(size)))
		for _, s := range old {
			if s != 0 {
				t.add(uint32(s>>32), int32(uint32(s))-1)
			}
		}
	}
	mask := len(t.slots) - 1
	i := t.home(a)
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = uint64(a)<<32 | uint64(uint32(c+1))
	t.n++
}

// ipv4 reads b as a dotted IPv4 address in its one usual spelling; false
// for anything else (a leading zero, a number past 255, a fifth part,
// a space), which then is a name like any other.
func ipv4(b []byte) (uint32, bool) {
	if len(b) < 7 || len(b) > 15 {
		return 0, false
	}
	// One pass: n is the part being read, digits its digits so far.
	var a, n uint32
	dots, digits := 0, 0
	for _, c := range b {
		if c == '.' {
			if digits == 0 || dots == 3 || n > 255 {
				return 0, false
			}
			a, n, digits, dots = a<<8|n, 0, 0, dots+1
			continue
		}
		d := uint32(c) - '0'
		if d > 9 || digits == 3 || digits == 1 && n == 0 {
			return 0, false // not a digit, a fourth one, or one after a leading 0
		}
		n, digits = n*10+d, digits+1
	}
	if dots != 3 || digits == 0 || n > 255 {
		return 0, false
	}
	return a<<8 | n, true
}
