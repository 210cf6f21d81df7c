package algo

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"windowlab/internal/long"
)

// TestKeyStoreActsAsAMap drives a keyStore and a Go map with the same
// random adds, finds, writes, deletions (through each), clones and a
// resize, and holds every answer and the order of each to the model.
func TestKeyStoreActsAsAMap(t *testing.T) {
	for seed := range uint64(long.N(20, 200)) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			size := 4 + 4*r.IntN(4)
			s := newKeyStore(size)
			model := map[string]uint32{} // a client with state: its first four bytes
			type record struct {
				key  string
				idle bool
			}
			var records []record // the records, in the order a sweep visits them
			names := make([]string, 300+r.IntN(3000))
			for i := range names {
				switch r.IntN(20) {
				case 0:
					names[i] = strings.Repeat("λ", 40+r.IntN(200)) + fmt.Sprint(i) // long: kept outside the arena
				case 1:
					names[i] = fmt.Sprintf("%0*d", maxInline, i)[:maxInline] // the longest inline
				default:
					names[i] = fmt.Sprintf("client-%d", i)
				}
			}
			names[0] = "" // the empty name is a name
			var copies []keyStore
			var copied []map[string]uint32
			for op := range 20_000 {
				key := names[r.IntN(len(names))]
				switch x := r.IntN(100); {
				case x < 30: // find
					st := s.find(key)
					v, ok := model[key]
					if (st != nil) != ok || (ok && binary.LittleEndian.Uint32(st) != v) {
						t.Fatalf("op %d: find(%q) = %v, model has it: %v (%d)", op, key, st, ok, v)
					}
				case x < 60: // take, and write
					st, fresh := s.take(key)
					v, ok := model[key]
					if fresh == ok || len(st) != s.size {
						t.Fatalf("op %d: take(%q) fresh %v (%d bytes), model has it: %v", op, key, fresh, len(st), ok)
					}
					if fresh {
						for _, b := range st {
							if b != 0 {
								t.Fatalf("op %d: take(%q) fresh state not zero: %v", op, key, st)
							}
						}
						found := false
						for i := range records {
							if records[i].key == key {
								records[i].idle, found = false, true
							}
						}
						if !found {
							records = append(records, record{key: key})
						}
					} else if got := binary.LittleEndian.Uint32(st); got != v {
						t.Fatalf("op %d: %q holds %d, want %d", op, key, got, v)
					}
					v = r.Uint32()
					binary.LittleEndian.PutUint32(st, v)
					model[key] = v
				case x < 63: // a sweep dropping some
					var want []string
					kept := records[:0]
					for _, rec := range records {
						if !rec.idle {
							want = append(want, rec.key)
							kept = append(kept, rec)
						}
					}
					records = kept
					drop, n := r.IntN(4), 0 // a quarter, half, all or none
					s.sweep(func(keyBytes int, st []byte) bool {
						k := want[n]
						n++
						if keyBytes != len(k) || binary.LittleEndian.Uint32(st) != model[k] {
							t.Fatalf("op %d: sweep's client %d is %d bytes holding %d, want %q holding %d", op, n, keyBytes, binary.LittleEndian.Uint32(st), k, model[k])
						}
						keep := true
						switch drop {
						case 0:
							keep = r.IntN(4) > 0
						case 1:
							keep = r.IntN(2) == 0
						case 2:
							keep = false
						}
						if !keep {
							delete(model, k)
							records[n-1].idle = true
						}
						return keep
					})
					if n != len(want) {
						t.Fatalf("op %d: sweep visited %d clients, want %d", op, n, len(want))
					}
				case x < 64: // a copy, checked later
					copies = append(copies, s.clone())
					m := make(map[string]uint32, len(model))
					for k, v := range model {
						m[k] = v
					}
					copied = append(copied, m)
				case x < 65 && op%7 == 0: // widen every state once in a while
					s.resize(s.size+4, func(from, to []byte) { copy(to, from) })
				}
				if s.Len() != len(records) || s.Len()-s.idle != len(model) {
					t.Fatalf("op %d: Len %d (%d idle), model %d records, %d with state", op, s.Len(), s.idle, len(records), len(model))
				}
			}
			n := 0
			s.each(func(int, []byte) { n++ })
			if n != len(model) {
				t.Fatalf("each visited %d, want %d", n, len(model))
			}
			for i, c := range copies {
				for _, k := range names {
					st := c.find(k)
					v, ok := copied[i][k]
					if (st != nil) != ok || (ok && binary.LittleEndian.Uint32(st) != v) {
						t.Fatalf("copy %d: %q found %v, want %v holding %d", i, k, st != nil, ok, v)
					}
				}
			}
		})
	}
}

// TestKeyStoreKeepsItsRoom: a store whose clients come and go holds what
// its live clients need, however long it runs.
func TestKeyStoreKeepsItsRoom(t *testing.T) {
	s := newKeyStore(16)
	for round := range 200 {
		for i := range 1000 {
			if st, _ := s.take(fmt.Sprintf("round-%d-client-%d", round, i)); i%10 == 0 {
				st[0] = 1 // stays
			}
		}
		s.sweep(func(_ int, st []byte) bool { return st[0] == 1 }) // nine in ten leave, freed next time
	}
	s.sweep(func(_ int, st []byte) bool { return true })
	if s.Len() != 200*100 || s.idle != 0 {
		t.Fatalf("Len %d (%d idle), want %d", s.Len(), s.idle, 200*100)
	}
	arena := 0
	for _, c := range s.chunks {
		arena += cap(c)
	}
	if per := float64(arena) / float64(s.Len()); per > 2*float64(16+1+len("round-199-client-999")) {
		t.Errorf("the arena holds %.0f bytes a live client", per)
	}
	if s.homes > 4*s.Len() {
		t.Errorf("the index has %d slots for %d clients", s.homes, s.Len())
	}
}

// bytesEqual marks exactly the bytes equal to the one asked for, whatever
// the bytes around them (no borrow from one byte into the next).
func TestBytesEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	edge := []uint8{0, 1, 2, 0x7f, 0x80, 0x81, 0xfe, 0xff}
	for range 100_000 {
		var w uint64
		for i := range 8 {
			b := uint8(r.Uint32())
			if r.IntN(2) == 0 {
				b = edge[r.IntN(len(edge))]
			}
			w |= uint64(b) << (8 * i)
		}
		b := edge[r.IntN(len(edge))]
		if r.IntN(2) == 0 {
			b = uint8(w >> (8 * r.IntN(8)))
		}
		var want uint64
		for i := range 8 {
			if uint8(w>>(8*i)) == b {
				want |= 0x80 << (8 * i)
			}
		}
		if got := bytesEqual(w, uint64(b)*lowBits); got != want {
			t.Fatalf("bytesEqual(%#x, %#x) = %#x, want %#x", w, b, got, want)
		}
	}
}

// The name hash tells names apart: every name of a large set, and every
// name one byte away from another, gets a hash of its own (64 bits: a
// collision among these would be a flaw, not chance), and the slots they
// start from are spread evenly.
func TestNameHashSpreads(t *testing.T) {
	s := newKeyStore(8)
	seen := map[uint64]string{}
	add := func(name string) {
		h := s.hash(name)
		if other, ok := seen[h]; ok && other != name {
			t.Fatalf("%q and %q hash alike", name, other)
		}
		seen[h] = name
		if h != s.hashBytes([]byte(name)) {
			t.Fatalf("%q hashes differently as bytes", name)
		}
	}
	for i := range 100_000 {
		add(fmt.Sprintf("client-%07d", i))
		add(fmt.Sprintf("10.%d.%d.%d", i>>16, i>>8&255, i&255))
	}
	base := []byte(strings.Repeat("abcdefghij", 7))
	for n := range len(base) + 1 {
		for i := range n {
			for _, b := range []byte{0, 1, 'A', 0x80, 0xff} {
				name := append([]byte(nil), base[:n]...)
				name[i] ^= b | 1
				add(string(name))
			}
		}
		add(string(base[:n]))
	}
	// Homes of 100,000 names in 1,000 slots: each about 100.
	counts := make([]int, 1000)
	s.homes = len(counts)
	for i := range 100_000 {
		counts[s.home(s.hash(fmt.Sprintf("user-%d", i)))]++
	}
	for i, c := range counts {
		if c < 50 || c > 160 {
			t.Fatalf("slot %d is the home of %d names of 100,000, want about 100", i, c)
		}
	}
}

// TestKeyStoreReindexesIntoItsOwnRoom: a clone's index is copied by
// append, which rounds the tags (a byte a slot) and the addresses (four)
// up to different size classes, so its reindex may find room for the tags
// and none for the addresses; it makes new ones (a synced sliding
// counter's replay, whose servers clone their tallies, panicked here).
func TestKeyStoreReindexesIntoItsOwnRoom(t *testing.T) {
	tried := 0
	for n := minSlots + spill + group; n < 400; n++ {
		s := newKeyStore(8)
		for i := range 10 {
			s.take(fmt.Sprintf("client-%d", i))
		}
		s.tags, s.addrs = make([]uint8, n), make([]uint32, n)
		c := s.clone()
		for homes := n - spill - group; homes+spill+group <= 2*n; homes++ {
			slots := homes + spill + group
			if cap(c.tags) >= slots && cap(c.addrs) < slots {
				tried++ // the tags' class holds the slots, the addresses' not
			}
			if !c.indexAll(homes) {
				continue
			}
			if len(c.addrs) != slots || len(c.tags) != slots || c.used != 10 {
				t.Fatalf("homes %d: %d tags, %d addresses, %d used", homes, len(c.tags), len(c.addrs), c.used)
			}
			c = s.clone()
		}
	}
	if tried == 0 {
		t.Fatal("no index whose tags had room and addresses none")
	}
}
