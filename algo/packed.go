package algo

import (
	"encoding/binary"
	"math"
)

// A keyed limiter's states are packed into its keyStore's records: the
// instants in 8 bytes, the counts in 4 while every count fits. A count
// that would not (past 4 billion requests of one client in one window,
// which only rules that count rejected requests can reach) widens every
// record of the limiter to 8-byte counts, once.

// packedCountMax is the largest count a narrow record holds; tests lower it.
var packedCountMax int64 = math.MaxUint32

var le = binary.LittleEndian

func getInt(b []byte) int64    { return int64(le.Uint64(b)) }
func putInt(b []byte, v int64) { le.PutUint64(b, uint64(v)) }
func getCount(b []byte) int64  { return int64(le.Uint32(b)) }

// putCount stores a narrow count; widening first keeps it in range.
func putCount(b []byte, v int64) {
	if uint64(v) > uint64(packedCountMax) {
		panic("algo: a count past what a narrow record holds")
	}
	le.PutUint32(b, uint32(v))
}

// packing is how a limiter's state S sits in a record: narrow, or wide
// once a count outgrew narrow. The limiter widens its records before a
// request could take a count past packedCountMax.
type packing[S any] struct {
	narrow, wide int
	load         func(b []byte, wide bool) S
	store        func(b []byte, s S, wide bool)
}

// keyed is a limiter's clients by name: the store and how states pack.
type keyed[S any] struct {
	keys    keyStore
	pack    *packing[S]
	wide    bool
	scratch S // the state each hands its callback, which may keep a pointer
}

func newKeyed[S any](p *packing[S]) keyed[S] {
	return keyed[S]{keys: newKeyStore(p.narrow), pack: p}
}

// peek is the client's state, and whether it has one.
func (k *keyed[S]) peek(client string) (S, bool) {
	b := k.keys.find(client)
	if b == nil {
		var zero S
		return zero, false
	}
	return k.pack.load(b, k.wide), true
}

// widen makes every record hold wide counts, once a count reaches
// packedCountMax; a record found before is found again after.
func (k *keyed[S]) widen() {
	k.keys.resize(k.pack.wide, func(from, to []byte) { k.pack.store(to, k.pack.load(from, false), true) })
	k.wide = true
}

// each calls f for every client with state, with the length of its name
// and its state, to read.
func (k *keyed[S]) each(f func(keyBytes int, s *S)) {
	k.keys.each(func(keyBytes int, b []byte) {
		k.scratch = k.pack.load(b, k.wide)
		f(keyBytes, &k.scratch)
	})
}

// sweep calls f for every client with state, which f may change; false
// drops the client's state (keyStore.sweep).
func (k *keyed[S]) sweep(f func(keyBytes int, s *S) (keep bool)) {
	k.keys.sweep(func(keyBytes int, b []byte) bool {
		k.scratch = k.pack.load(b, k.wide)
		if !f(keyBytes, &k.scratch) {
			return false
		}
		k.pack.store(b, k.scratch, k.wide)
		return true
	})
}

func (k *keyed[S]) clone() keyed[S] {
	c := *k
	c.keys = k.keys.clone()
	return c
}

// The packings: each limiter's hot path calls these functions directly.

func loadFixed(b []byte, wide bool) fixedState {
	if wide {
		return fixedState{start: Instant(getInt(b)), count: getInt(b[8:])}
	}
	return fixedState{start: Instant(getInt(b)), count: getCount(b[8:])}
}

func storeFixed(b []byte, s fixedState, wide bool) {
	putInt(b, int64(s.start))
	if wide {
		putInt(b[8:], s.count)
	} else {
		putCount(b[8:], s.count)
	}
}

var fixedPacking = &packing[fixedState]{narrow: 8 + 4, wide: 8 + 8, load: loadFixed, store: storeFixed}

func loadCounter(b []byte, wide bool) counterState {
	if wide {
		return counterState{window: getInt(b), current: getInt(b[8:]), previous: getInt(b[16:])}
	}
	return counterState{window: getInt(b), current: getCount(b[8:]), previous: getCount(b[12:])}
}

func storeCounter(b []byte, s counterState, wide bool) {
	putInt(b, s.window)
	if wide {
		putInt(b[8:], s.current)
		putInt(b[16:], s.previous)
	} else {
		putCount(b[8:], s.current)
		putCount(b[12:], s.previous)
	}
}

var counterPacking = &packing[counterState]{narrow: 8 + 4 + 4, wide: 8 + 8 + 8, load: loadCounter, store: storeCounter}

func loadBucket(b []byte, _ bool) bucketState {
	return bucketState{level: getInt(b), at: Instant(getInt(b[8:]))}
}

func storeBucket(b []byte, s bucketState, _ bool) {
	putInt(b, s.level)
	putInt(b[8:], int64(s.at))
}

var bucketPacking = &packing[bucketState]{narrow: 8 + 8, wide: 8 + 8, load: loadBucket, store: storeBucket}

// sweepClients calls f for every client with state of a limiter's by id or
// by name, whichever it uses; f returns false to drop the client's state.
func sweepClients[S any](ids *table[S], names *keyed[S], f func(keyBytes int, s *S) (keep bool)) {
	if ids.names != nil {
		ids.each(f)
	} else {
		names.sweep(f)
	}
}

// eachClient calls f for every client with state, to read, by id or by name.
func eachClient[S any](ids *table[S], names *keyed[S], f func(keyBytes int, s *S)) {
	if ids.names != nil {
		ids.each(func(keyBytes int, s *S) bool { f(keyBytes, s); return true })
	} else {
		names.each(f)
	}
}
