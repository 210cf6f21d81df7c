package accesslog

import (
	"encoding/binary"
	"math/bits"
)

// clientTable numbers the clients a log's lines name, looked up by the
// key's bytes with nothing allocated for a client met before. A short key
// of digits and dots (1 to 16 bytes: every IPv4 address's text, what a web
// server logs as the client by default) is found by its bytes packed in 64
// bits, held in the table's slot itself: no string hashed or compared, one
// cache line read, and nothing parsed. Any other key (IPv6, a user,
// ip+path) is found by its bytes in a map keyed by string, which Go looks
// up from a []byte converted in place without allocating. The two never
// hold the same key: which one holds a key is a function of its bytes.
type clientTable struct {
	short shortTable
	names map[string]int32
}

func newClientTable() clientTable {
	return clientTable{names: map[string]int32{}}
}

// find is key's number; false when the table has not met it.
func (t *clientTable) find(key []byte) (int32, bool) {
	if k, ok := shortKey(key); ok {
		return t.short.find(k)
	}
	c, ok := t.names[string(key)]
	return c, ok
}

// add numbers a key the table has not met.
func (t *clientTable) add(key string, c int32) {
	if k, ok := shortKey([]byte(key)); ok {
		t.short.add(k, c)
		return
	}
	t.names[key] = c
}

// bytes is what the table holds beside the keys themselves: the short
// table's slots, and the map's entries (indexEntryBytes each).
func (t *clientTable) bytes() int64 {
	return int64(len(t.short.slots))*shortSlotBytes + int64(len(t.names))*indexEntryBytes
}

// shortTable is a table of short keys (shortKey) and their numbers, in
// one slice of slots found by linear probing from a multiplicative hash,
// kept at most half full.
type shortTable struct {
	slots []shortSlot
	n     int
	shift uint // 64 − log2(len(slots))
}

// shortSlot is a key and its number plus one (0: empty).
type shortSlot struct {
	key uint64
	c   int32
}

const shortSlotBytes = 16

func (t *shortTable) home(k uint64) int { return int((k * 0x9e3779b97f4a7c15) >> t.shift) }

func (t *shortTable) find(k uint64) (int32, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := len(t.slots) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.c == 0 {
			return 0, false
		}
		if s.key == k {
			return s.c - 1, true
		}
	}
}

// add puts k, which the table does not hold, with its number c.
func (t *shortTable) add(k uint64, c int32) {
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		size := max(1024, 2*len(old))
		t.slots, t.n, t.shift = make([]shortSlot, size), 0, uint(64-bits.TrailingZeros(uint(size)))
		for _, s := range old {
			if s.c != 0 {
				t.add(s.key, s.c-1)
			}
		}
	}
	mask := len(t.slots) - 1
	i := t.home(k)
	for t.slots[i].c != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = shortSlot{key: k, c: c + 1}
	t.n++
}

const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// shortKey packs a key of 1 to 16 bytes, each a digit or a dot, into 64
// bits, a nibble a byte: a digit its value, a dot 0xe (its low nibble), and
// 0xf for each byte past the key's end, so that no two keys pack alike;
// false for any other key. It reads the key eight bytes at a time and does
// not branch on its bytes: an address's parts are of one to three digits,
// as they come, which a loop mispredicts.
func shortKey(b []byte) (uint64, bool) {
	n := len(b)
	if n == 0 || n > 16 {
		return 0, false
	}
	var lo, hi uint64
	if cap(b) >= 16 { // in a line, what follows it: read and masked off
		w := b[:16]
		lo, hi = binary.LittleEndian.Uint64(w), binary.LittleEndian.Uint64(w[8:])
	} else {
		var w [16]byte
		copy(w[:], b)
		lo, hi = binary.LittleEndian.Uint64(w[:]), binary.LittleEndian.Uint64(w[8:])
	}
	// The key's bytes in each word: all ones in the bytes it holds.
	mlo := ^uint64(0) >> (64 - 8*uint(min(n, 8)))
	mhi := ^uint64(0) >> (64 - 8*uint(max(n-8, 0))) // all of it shifted out (0) for n ≤ 8
	lo, hi = lo&mlo, hi&mhi
	if !digitsAndDots(lo, mlo) || !digitsAndDots(hi, mhi) {
		return 0, false
	}
	return uint64(nibbles(lo|^mlo&(0x0f*ones))) | uint64(nibbles(hi|^mhi&(0x0f*ones)))<<32, true
}

// unpackShort appends the key shortKey packed to k.
func unpackShort(b []byte, k uint64) []byte {
	for i := 0; i < 16 && k&0xf != 0xf; i, k = i+1, k>>4 {
		if d := byte(k & 0xf); d < 10 {
			b = append(b, '0'+d)
		} else {
			b = append(b, '.')
		}
	}
	return b
}

// digitsAndDots reports whether every byte of x that m holds (0xff) is a
// digit or a dot.
func digitsAndDots(x, m uint64) bool {
	y := x ^ ('.' * ones)
	dot := ^(((y &^ high) + ^uint64(high)) | y) & high                  // bytes that are '.'
	digit := (x + (0x80-'0')*ones) &^ (x + (0x80-':')*ones) &^ x & high // bytes '0' to '9' (x's high bit clear: no carry)
	return (dot|digit)^(m&high) == 0
}

// nibbles packs the low nibble of each of x's bytes into 32 bits, the
// first byte's lowest.
func nibbles(x uint64) uint32 {
	x &= 0x0f * ones
	x = (x | x>>4) & 0x00ff00ff00ff00ff
	x = (x | x>>8) & 0x0000ffff0000ffff
	return uint32(x | x>>16)
}
