package algo

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// keyStore holds a keyed limiter's clients when nothing numbers them for
// it (a library caller's Allow(t, "client-42"), the peer comparison): each
// client is one record in an arena of byte chunks, its state packed in a
// few bytes and its name after it, found through an open-addressing index.
//
// What a client costs: its packed state (12 to 16 bytes), a byte for the
// name's length, the name, and 5 bytes of index a slot at a load of 7/12 to
// 7/8 (a record's address and a byte of its name's hash, so a probe reads
// another client's record once in 254). A Go map from name to state costs
// more than twice that: the string header, the slot, its control byte,
// and up to half the map empty after it grows.
//
// A sweep (a limiter's once-a-window expiry) does not delete a client at
// once: it marks the record idle, which is what a client without state
// is to every lookup, and frees it at the next sweep if it is still idle.
// A client that comes back in between, as most do just after a window
// edge, takes its record back without a hash table delete and insert.
//
// Records never move while the store is in use: the bytes find and take
// return stay the client's state until the next sweep, which frees what
// it is told to and, once as many bytes are dead as live, packs the
// records down and rebuilds the index. Sweeps visit clients in the order
// they were added.
type keyStore struct {
	size int       // state bytes a record holds
	seed [2]uint64 // the name hash's, drawn for each store

	// The index: slots homes, then spill slots that probes run on into
	// (it does not wrap around), then a group of slotEmpty that ends every
	// probe.
	tags  []uint8  // per slot: slotEmpty, slotDeleted, or a tag of the name's hash
	addrs []uint32 // per slot with a tag: the record's address, chunk<<16 | offset
	homes int      // slots a hash can start from
	used  int      // slots holding a record: the records, idle or not
	gone  int      // slots marked deleted
	idle  int      // records marked idle

	chunks    [][]byte // records in the order added; len is how far a chunk is filled
	liveBytes int
	deadBytes int

	long     []string // names too long to inline, by the index their record holds
	freeLong []uint32
}

const (
	slotEmpty   = 0
	slotDeleted = 1

	// A record is its state, a head byte and the name. The head holds the
	// name's length in its low bits, or longName when the name is in
	// keyStore.long at the uint32 index that follows; recordIdle marks a
	// record a sweep found idle, recordDead one it freed.
	recordDead  = 0x80
	recordIdle  = 0x40
	nameBits    = 0x3f
	longName    = nameBits
	maxInline   = longName - 1
	chunkBytes  = 1 << 16 // a chunk's most, so an offset fits 16 bits
	firstChunk  = 256
	maxChunks   = 1 << 16
	minSlots    = 8
	spill       = 64 // slots past the homes a probe may run on into
	group       = 8  // tags a probe reads at once, as a uint64
	loadNum     = 7  // grow past 7/8 full
	loadDen     = 8
	compactFrom = 4096 // dead bytes worth packing the records for
)

func newKeyStore(stateBytes int) keyStore {
	return keyStore{size: stateBytes, seed: [2]uint64{rand.Uint64(), rand.Uint64()}}
}

// The name hash: a client's name in 8-byte words, folded by 128-bit
// multiplies with the store's random seed, so nobody who sends the names
// can choose them to collide. Short names, the usual kind, are two loads
// and two multiplies; an IP address or a user id is one pass.
const (
	hashOdd0 = 0x9e3779b97f4a7c15 // ⌊2⁶⁴/φ⌋, odd: every bit of a word reaches the top half
	hashOdd1 = 0xc2b2ae3d27d4eb4f
)

func fold(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hash is the hash of a name held as a string.
func (s *keyStore) hash(key string) uint64 {
	return s.hashBytes(unsafe.Slice(unsafe.StringData(key), len(key)))
}

// hashBytes is the hash of a name held as bytes (a record's).
func (s *keyStore) hashBytes(b []byte) uint64 {
	n := len(b)
	acc := s.seed[0] ^ uint64(n)*hashOdd1
	var x, y uint64
	switch {
	case n > 16:
		for i := 0; i < n-16; i += 16 {
			acc = fold(le.Uint64(b[i:])^hashOdd0, le.Uint64(b[i+8:])^acc)
		}
		x, y = le.Uint64(b[n-16:]), le.Uint64(b[n-8:]) // the last 16, some read twice
	case n >= 8:
		return s.hashWords(n, le.Uint64(b), le.Uint64(b[n-8:]))
	case n >= 4:
		x, y = uint64(le.Uint32(b)), uint64(le.Uint32(b[n-4:]))
	case n > 0:
		x = uint64(b[0])<<16 | uint64(b[n>>1])<<8 | uint64(b[n-1])
	}
	return fold(fold(x^s.seed[1], y^acc), acc^hashOdd0)
}

// hashWords is hashBytes of an n-byte name, 8 ≤ n ≤ 16, whose first and
// last eight bytes are x and y.
func (s *keyStore) hashWords(n int, x, y uint64) uint64 {
	acc := s.seed[0] ^ uint64(n)*hashOdd1
	return fold(fold(x^s.seed[1], y^acc), acc^hashOdd0)
}

// load64 reads eight bytes at p, little-endian as the records are.
func load64(p unsafe.Pointer) uint64 { return le.Uint64((*[8]byte)(p)[:]) }

// Len is how many clients the store holds records for, idle or not.
func (s *keyStore) Len() int { return s.used }

func tagOf(h uint64) uint8 {
	t := uint8(h >> 56)
	if t <= slotDeleted {
		t += 2
	}
	return t
}

// home is the slot a hash probes from: h's low half scaled to the homes.
func (s *keyStore) home(h uint64) int {
	return int((uint64(uint32(h)) * uint64(s.homes)) >> 32)
}

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// bytesEqual has the high bit of each byte of w that equals b's byte, and
// no other bit: exactly, with no carry from one byte into the next.
func bytesEqual(w, b uint64) uint64 {
	x := w ^ b
	return ^((x&^highBits + ^uint64(highBits)&^highBits) | x) & highBits
}

// lookup is the chunk of key's record and the offset of its head byte,
// or nil. It reads the tags eight at a time: a probe ends at the first
// empty slot, and only tags equal to key's send it to a record.
//
// It reads the index without bounds checks: a probe starts at a home
// (below homes) and ends at an empty slot at the latest in the group of
// empty slots after the spill slots, so every group it reads is inside
// tags, and every slot with a tag has an address.
func (s *keyStore) lookup(key string, h uint64) (c []byte, at int) {
	tag := uint64(tagOf(h)) * lowBits
	tags, addrs := unsafe.Pointer(unsafe.SliceData(s.tags)), unsafe.Pointer(unsafe.SliceData(s.addrs))
	n, k := len(key), unsafe.Pointer(unsafe.StringData(key))
	for i := s.home(h); ; i += group {
		w := *(*uint64)(unsafe.Add(tags, i))
		m, empty := bytesEqual(w, tag), bytesEqual(w, 0)
		if empty != 0 {
			m &= empty&-empty - 1 // the tags before the first empty slot
		}
		for ; m != 0; m &= m - 1 {
			addr := *(*uint32)(unsafe.Add(addrs, 4*(i+bits.TrailingZeros64(m)>>3)))
			c := s.chunks[addr>>16]
			at := int(addr&0xffff) + s.size
			if n >= 8 && n <= 16 && at+1+n <= len(c) && int(c[at]&nameBits) == n {
				// The usual name: two words, compared in place.
				name := unsafe.Pointer(unsafe.SliceData(c[at+1:]))
				if *(*uint64)(name) == *(*uint64)(k) &&
					*(*uint64)(unsafe.Add(name, n-8)) == *(*uint64)(unsafe.Add(k, n-8)) {
					return c, at
				}
			} else if s.named(c, at, key) {
				return c, at
			}
		}
		if empty != 0 {
			return nil, 0
		}
	}
}

// hot is take for the allow-only paths, for the usual name (8 to 16
// bytes: an IP address, a user id) of a client the store holds: its state
// as a pointer to its record, fresh when the record was idle (now taken
// back, its state zero), or nil for any other name or a client with no
// record, which take then decides. It is lookup and the hash in one
// function, called once a request: no slices built, no bounds checked,
// the name compared as two words against a head byte that is the name's
// length while the record is neither long nor dead.
func (s *keyStore) hot(key string) (state unsafe.Pointer, fresh bool) {
	n := len(key)
	if uint(n-8) > 8 || s.used == 0 {
		return nil, false
	}
	k := unsafe.Pointer(unsafe.StringData(key))
	x, y := load64(k), load64(unsafe.Add(k, n-8))
	h := s.hashWords(n, x, y)
	tag := uint64(tagOf(h)) * lowBits
	for i := uintptr(s.home(h)); ; i += group {
		w := load64(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.tags)), i))
		// Slots with key's tag, exactly: none is empty, so each has an
		// address. One past the first empty slot is another name's.
		for m := bytesEqual(w, tag); m != 0; m &= m - 1 {
			j := i + uintptr(bits.TrailingZeros64(m)>>3)
			addr := *(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.addrs)), 4*j))
			// The chunk's first byte: a []byte's data pointer is its first word.
			c := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.chunks)), uintptr(addr>>16)*unsafe.Sizeof([]byte(nil))))
			state = unsafe.Add(c, addr&0xffff)
			head := (*uint8)(unsafe.Add(state, s.size))
			if *head&^recordIdle != uint8(n) || load64(unsafe.Add(state, s.size+1)) != x || load64(unsafe.Add(state, s.size+1+n-8)) != y {
				continue
			}
			if *head == uint8(n) {
				return state, false
			}
			*head = uint8(n) // idle: back before the next sweep frees it
			s.idle--
			clear(unsafe.Slice((*byte)(state), s.size))
			return state, true
		}
		// The usual test for a zero byte, cheaper than bytesEqual: it may
		// also mark a byte above one it rightly marks, never below, so it
		// marks one exactly when there is an empty slot.
		if (w-lowBits)&^w&highBits != 0 {
			return nil, false
		}
	}
}

// vacancy is the first slot from h's home that is empty or deleted: where
// a new record goes; −1 past the spill slots.
func (s *keyStore) vacancy(h uint64) int {
	for i := s.home(h); i < s.homes+spill; i++ {
		if s.tags[i] <= slotDeleted {
			return i
		}
	}
	return -1
}

// named reports whether the record whose head is c[at] is key's.
func (s *keyStore) named(c []byte, at int, key string) bool {
	n := int(c[at] & nameBits)
	if n == longName {
		return s.long[binary.LittleEndian.Uint32(c[at+1:])] == key
	}
	if n != len(key) {
		return false
	}
	name := c[at+1 : at+1+n]
	if n >= 8 && n <= 16 { // two words, without a call
		k := unsafe.Slice(unsafe.StringData(key), n)
		return le.Uint64(name) == le.Uint64(k) && le.Uint64(name[n-8:]) == le.Uint64(k[n-8:])
	}
	return string(name) == key
}

// find returns the state bytes of the client named key, or nil when it
// has none (no record, or an idle one).
func (s *keyStore) find(key string) []byte {
	if s.used == 0 {
		return nil
	}
	c, at := s.lookup(key, s.hash(key))
	if c == nil || c[at]&recordIdle != 0 {
		return nil
	}
	return c[at-s.size : at : at]
}

// take returns the state bytes of the client named key for a request:
// its record's, or a new record's, all zero, when fresh says the client
// had none (no record, or an idle one, now taken back).
func (s *keyStore) take(key string) (state []byte, fresh bool) {
	if p, fresh := s.hot(key); p != nil { // the usual
		return unsafe.Slice((*byte)(p), s.size), fresh
	}
	// A name hot looks up that it did not find has no record.
	if s.used != 0 && uint(len(key)-8) > 8 {
		if c, at := s.lookup(key, s.hash(key)); c != nil {
			st := c[at-s.size : at : at]
			if c[at]&recordIdle == 0 {
				return st, false
			}
			c[at] &^= recordIdle // back before the next sweep frees it
			s.idle--
			clear(st)
			return st, true
		}
	}
	c, at := s.takeRecord(key)
	return c[at-s.size : at : at], true
}

// takeRecord gives the client named key, which has no state, a record:
// its idle one, or a new one. It returns the record's chunk and the offset
// of its head byte.
func (s *keyStore) takeRecord(key string) (c []byte, at int) {
	if (s.used+s.gone+1)*loadDen > s.homes*loadNum {
		s.reindex(s.used + 1)
	}
	h := s.hash(key)
	if c, at := s.lookup(key, h); c != nil {
		if c[at]&recordIdle != 0 {
			c[at] &^= recordIdle
			s.idle--
			clear(c[at-s.size : at])
		}
		return c, at
	}
	slot := s.vacancy(h)
	for slot < 0 { // the spill slots are full: a bigger index, rarely
		s.reindex(s.homes + s.homes/4 + 1)
		slot = s.vacancy(h)
	}
	return s.add(key, h, slot)
}

// add makes a record for key at slot (where lookup found key would go),
// its state all zero.
func (s *keyStore) add(key string, h uint64, slot int) (c []byte, at int) {
	rec := s.size + 1 + len(key)
	if len(key) > maxInline {
		rec = s.size + 1 + 4
	}
	addr, b := s.alloc(rec)
	if len(key) > maxInline {
		b[s.size] = longName
		binary.LittleEndian.PutUint32(b[s.size+1:], s.keepLong(key))
	} else {
		b[s.size] = uint8(len(key))
		copy(b[s.size+1:], key)
	}
	if s.tags[slot] == slotDeleted {
		s.gone--
	}
	s.tags[slot], s.addrs[slot] = tagOf(h), addr
	s.used++
	s.liveBytes += rec
	c = s.chunks[addr>>16]
	return c, int(addr&0xffff) + s.size
}

// alloc returns room for n bytes at the end of the last chunk, or in a
// new one, zeroed.
func (s *keyStore) alloc(n int) (uint32, []byte) {
	last := len(s.chunks) - 1
	if last < 0 || len(s.chunks[last])+n > cap(s.chunks[last]) {
		size := firstChunk
		if last >= 0 {
			size = min(max(2*cap(s.chunks[last]), firstChunk), chunkBytes)
		}
		if len(s.chunks) == maxChunks {
			panic("algo: a keyed limiter holds at most 4 GiB of client names and states")
		}
		s.chunks = append(s.chunks, make([]byte, 0, size))
		last++
	}
	c := s.chunks[last]
	off := len(c)
	c = c[:off+n]
	clear(c[off:])
	s.chunks[last] = c
	return uint32(last)<<16 | uint32(off), c[off : off+n]
}

func (s *keyStore) keepLong(key string) uint32 {
	if n := len(s.freeLong); n > 0 {
		i := s.freeLong[n-1]
		s.freeLong = s.freeLong[:n-1]
		s.long[i] = key
		return i
	}
	if len(s.long) == math.MaxUint32 {
		panic("algo: too many long client names")
	}
	s.long = append(s.long, key)
	return uint32(len(s.long) - 1)
}

// reindex makes an index for n records, at a load of 7/12, and puts every
// record in it.
func (s *keyStore) reindex(n int) {
	for homes := max(minSlots, n*12/7+1); !s.indexAll(homes); {
		homes += homes/4 + 1 // a probe ran past the spill slots: rare
	}
}

// indexAll makes an index of homes slots and puts every record in it;
// false if one would not fit.
func (s *keyStore) indexAll(homes int) bool {
	slots := homes + spill + group
	if cap(s.tags) >= slots && cap(s.addrs) >= slots && cap(s.tags) < 2*slots { // both: a clone's append rounds each up to its own size class
		s.tags, s.addrs = s.tags[:slots], s.addrs[:slots]
		clear(s.tags)
	} else {
		s.tags, s.addrs = make([]uint8, slots), make([]uint32, slots)
	}
	s.homes, s.used, s.gone = homes, 0, 0
	fits := true
	s.records(func(addr uint32, c []byte, at int) {
		if !fits {
			return
		}
		h := s.hashAt(c, at)
		i := s.vacancy(h)
		if i < 0 {
			fits = false
			return
		}
		s.tags[i], s.addrs[i] = tagOf(h), addr
		s.used++
	})
	return fits
}

// hashAt is the hash of the name of the record whose head is c[at].
func (s *keyStore) hashAt(c []byte, at int) uint64 {
	n := int(c[at] & nameBits)
	if n == longName {
		return s.hash(s.long[binary.LittleEndian.Uint32(c[at+1:])])
	}
	return s.hashBytes(c[at+1 : at+1+n])
}

// records calls f for every record not freed, in the order added, with
// its chunk and the offset of its head.
func (s *keyStore) records(f func(addr uint32, c []byte, at int)) {
	for ci, c := range s.chunks {
		for off := 0; off < len(c); {
			at := off + s.size
			if c[at]&recordDead == 0 {
				f(uint32(ci)<<16|uint32(off), c, at)
			}
			off += s.recordBytes(c[at])
		}
	}
}

// recordBytes is the size of a record whose head is head.
func (s *keyStore) recordBytes(head uint8) int {
	if n := int(head & nameBits); n != longName {
		return s.size + 1 + n
	}
	return s.size + 1 + 4
}

// nameBytes is the length of the name of the record whose head is c[at].
func (s *keyStore) nameBytes(c []byte, at int) int {
	if n := int(c[at] & nameBits); n != longName {
		return n
	}
	return len(s.long[binary.LittleEndian.Uint32(c[at+1:])])
}

// each calls f for every client with state, in the order added, with the
// length of its name and its state bytes, which f may change but not keep.
func (s *keyStore) each(f func(keyBytes int, state []byte)) {
	s.records(func(_ uint32, c []byte, at int) {
		if c[at]&recordIdle == 0 {
			f(s.nameBytes(c, at), c[at-s.size:at:at])
		}
	})
}

// sweep calls f for every client with state, as each does; f returns false
// for a client whose state is now as good as none. Its record is marked
// idle, and freed by the next sweep unless the client takes it back first.
func (s *keyStore) sweep(f func(keyBytes int, state []byte) (keep bool)) {
	freed := false
	s.records(func(addr uint32, c []byte, at int) {
		if c[at]&recordIdle != 0 {
			s.free(addr, c, at)
			freed = true
		} else if !f(s.nameBytes(c, at), c[at-s.size:at:at]) {
			c[at] |= recordIdle
			s.idle++
		}
	})
	switch {
	case !freed:
	case s.used == 0: // nothing left: start afresh
		s.clear()
	case s.deadBytes >= compactFrom && s.deadBytes >= s.liveBytes:
		s.compact()
	}
}

// free deletes the idle record at addr, in the arena and the index.
func (s *keyStore) free(addr uint32, c []byte, at int) {
	h := s.hashAt(c, at)
	if c[at]&nameBits == longName {
		i := binary.LittleEndian.Uint32(c[at+1:])
		s.long[i] = ""
		s.freeLong = append(s.freeLong, i)
	}
	size := s.recordBytes(c[at])
	c[at] |= recordDead
	s.idle--
	s.liveBytes -= size
	s.deadBytes += size
	for i := s.home(h); ; i++ {
		if s.tags[i] > slotDeleted && s.addrs[i] == addr {
			s.tags[i] = slotDeleted
			s.used--
			s.gone++
			return
		}
	}
}

// clear empties the store, keeping its first chunk and its index.
func (s *keyStore) clear() {
	clear(s.tags)
	s.used, s.gone, s.idle = 0, 0, 0
	if len(s.chunks) > 0 {
		first := s.chunks[0][:0]
		clear(s.chunks)
		s.chunks = append(s.chunks[:0], first)
	}
	s.liveBytes, s.deadBytes = 0, 0
	s.long, s.freeLong = nil, nil
}

// compact packs the records down over the dead ones, frees the chunks
// left empty and rebuilds the index. A record only ever moves to an
// earlier place, so the packing reads nothing it has overwritten.
func (s *keyStore) compact() {
	wc, wo := 0, 0 // where the next record goes
	for ci := range s.chunks {
		c := s.chunks[ci]
		for off := 0; off < len(c); {
			at := off + s.size
			size := s.recordBytes(c[at])
			if c[at]&recordDead == 0 {
				for wo+size > cap(s.chunks[wc]) { // at the latest in its own chunk, where it fits
					s.chunks[wc] = s.chunks[wc][:wo]
					wc, wo = wc+1, 0
				}
				copy(s.chunks[wc][:cap(s.chunks[wc])][wo:], c[off:off+size])
				wo += size
			}
			off += size
		}
	}
	s.chunks[wc] = s.chunks[wc][:wo]
	clear(s.chunks[wc+1:])
	s.chunks = s.chunks[:wc+1]
	s.deadBytes = 0
	s.reindex(s.used)
}

// clone is an independent copy.
func (s *keyStore) clone() keyStore {
	c := *s
	c.long, c.freeLong = append([]string(nil), s.long...), append([]uint32(nil), s.freeLong...)
	c.chunks = make([][]byte, len(s.chunks))
	for i, ch := range s.chunks {
		c.chunks[i] = append([]byte(nil), ch...)
	}
	c.tags, c.addrs = append([]uint8(nil), s.tags...), append([]uint32(nil), s.addrs...)
	c.homes = s.homes
	return c
}

// resize rewrites every record with state of size bytes, convert moving
// each state from the old layout to the new: once, when a count outgrows
// what the packed state holds. Idle records stay idle.
func (s *keyStore) resize(size int, convert func(from, to []byte)) {
	old := *s
	*s = keyStore{size: size, seed: old.seed}
	s.reindex(old.used)
	old.records(func(_ uint32, c []byte, at int) {
		var key string
		if n := int(c[at] & nameBits); n == longName {
			key = old.long[binary.LittleEndian.Uint32(c[at+1:])]
		} else {
			key = string(c[at+1 : at+1+n])
		}
		nc, nat := s.takeRecord(key)
		convert(c[at-old.size:at:at], nc[nat-s.size:nat:nat])
		if c[at]&recordIdle != 0 {
			nc[nat] |= recordIdle
			s.idle++
		}
	})
}
