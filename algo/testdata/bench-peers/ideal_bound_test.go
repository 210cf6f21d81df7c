//go:build windowlab

// A lower bound for the peer harness (../shared/bench-peers), not a
// limiter: what one keyed fixed-window decision costs in the harness's
// loop when the decider does the least any keyed limiter must. Each key's
// 64-bit hash (one 128-bit multiply of its first and last eight bytes)
// probes a table whose 24-byte slots hold the hash and the window inline:
// one random access, no name kept or compared (two names with one hash
// would share a window), nothing ever expired, the table never grown.
// BenchmarkIdealBound/keys10k against the best peer in the same run is the
// ratio no exact keyed limiter in this loop can beat.

package peers

import (
	"math/bits"
	"testing"
	"time"
	"unsafe"
)

func newIdealBound() decider {
	type slot struct{ h, start, count uint64 }
	const size = 1 << 15 // 32,768 slots: 10,000 keys at under a third full
	slots := make([]slot, size)
	return func(key string, now time.Time) bool {
		t := uint64(now.UnixMilli() - epochMs)
		k := unsafe.Pointer(unsafe.StringData(key))
		x, y := *(*uint64)(k), *(*uint64)(unsafe.Add(k, len(key)-8)) // keys are 8 bytes or more
		hi, lo := bits.Mul64(x^0x9e3779b97f4a7c15, y^0xc2b2ae3d27d4eb4f)
		h := hi ^ lo | 1 // 0 marks an empty slot
		for i := h >> 49; ; i = (i + 1) & (size - 1) {
			p := &slots[i]
			if p.h == 0 {
				p.h = h
			}
			if p.h != h {
				continue
			}
			if t-p.start >= uint64(windowMs) {
				p.start, p.count = t-t%uint64(windowMs), 0
			}
			if p.count < limitPerWindow {
				p.count++
				return true
			}
			return false
		}
	}
}

// BenchmarkIdealBound/{hot,keys10k}.
func BenchmarkIdealBound(b *testing.B) {
	benchShapes(b, allShapes, func(*testing.B) decider { return newIdealBound() })
}
