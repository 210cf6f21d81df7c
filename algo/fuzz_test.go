package algo

import (
	"fmt"
	"testing"
	"time"
)

// The differential fuzzers: each limiter against the obviously-correct
// reference of diff_test.go, on a configuration and a stream of Allow, Peek,
// Expire and memory questions decoded from the fuzzer's bytes. The checker
// compares every decision's evidence, and the memory after every event.
// Seed corpora are in testdata/fuzz/<FuzzName>/; run one for ten minutes with
//
//	go test -run '^$' -fuzz FuzzSlidingCounter -fuzztime 10m ./algo/

func FuzzFixedWindow(f *testing.F)    { fuzzLimiter(f, KindFixedWindow) }
func FuzzSlidingLog(f *testing.F)     { fuzzLimiter(f, KindSlidingLog) }
func FuzzSlidingCounter(f *testing.F) { fuzzLimiter(f, KindSlidingCounter) }
func FuzzTokenBucket(f *testing.F)    { fuzzLimiter(f, KindTokenBucket) }

// FuzzSegmentedWindow runs the segmented window against the reference,
// its S a divisor of the window up to 64 picked by the flags byte.
func FuzzSegmentedWindow(f *testing.F) { fuzzLimiter(f, KindSegmentedWindow) }

func fuzzLimiter(f *testing.F, k Kind) {
	// A few streams in the decoder's own terms, besides the committed corpus:
	// the boundary burst (limit 4, window 10 ms, 4 at 9 and 4 at 10), and a
	// little of everything.
	f.Add([]byte{3, 9, 0, 128, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 0, 0x3c, 100, 0, 1, 0x41, 2, 0x82, 3, 0xc3, 4, 0x14, 0, 0x25, 1, 0x36, 2, 0x47, 3, 0x58, 4, 0xf9, 0})
	f.Add([]byte{0x87, 0xff, 0x7f, 0x80, 0xff, 0, 0x11, 1, 0x22, 2, 0x33, 3, 0x44, 4, 0x55, 0, 0x66, 1, 0x77, 2, 0x88, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, ok := decodeStream(k, data)
		if !ok {
			return
		}
		c := &checker{t: t, name: fmt.Sprintf("%v %+v", k, s.cfg), l: mustNew(t, k, s.cfg), r: newRef(k, s.cfg)}
		for _, e := range s.events {
			if c.step(e); c.failed {
				return
			}
		}
	})
}

// decodeStream turns fuzz bytes into a limiter configuration and events.
//
// Four header bytes: the limit (small, so streams reach it, or with the top
// bit set up to MaxLimit), the window (1–64 ms, or with the top bit of the
// flags byte up to MaxWindow), flags (expiry off, rules or token bucket
// burst, large values) and where the clock starts. Then two bytes per event:
// the first picks the operation and how far the clock moves, the second the
// client and a small offset for Peek and Expire.
func decodeStream(k Kind, data []byte) (stream, bool) {
	if len(data) < 4 {
		return stream{}, false
	}
	limitB, windowB, flags, startB := data[0], data[1], data[2], data[3]
	data = data[4:]
	cfg := Config{Limit: 1 + int64(limitB&0x07), NoExpiry: flags&1 != 0}
	w := 1 + int64(windowB&0x3f)
	if limitB&0x80 != 0 {
		cfg.Limit = 1 + int64(limitB&0x7f)*int64(windowB)*int64(startB)*3000
		cfg.Limit = min(cfg.Limit, MaxLimit)
	}
	if flags&0x80 != 0 {
		// A long window, but short enough that the reference's exact products
		// (elapsed × limit over at most 1,000 windows) stay inside int64.
		w = 1 + int64(windowB)*int64(startB)*1_000_003%int64(MaxWindow/time.Millisecond)
		w = min(w, 4_000_000_000_000_000/(1000*cfg.Limit))
		w = max(w, 1)
	}
	cfg.Window = time.Duration(w) * time.Millisecond
	if k == KindTokenBucket {
		cfg.Burst = int64(flags>>1) % 8 // 0 is the limit
	} else {
		variants := allRules()
		cfg.Rules = variants[int(flags>>1)%len(variants)]
	}
	if k == KindSegmentedWindow {
		var ds []int64
		for d := int64(1); d <= min(w, 64); d++ {
			if w%d == 0 {
				ds = append(ds, d)
			}
		}
		cfg.Segments = ds[int(flags>>1)%len(ds)]
	}
	if cfg.Validate() != nil {
		return stream{}, false
	}
	s := stream{cfg: cfg}
	t := Instant((int64(startB) - 128) * w)
	if startB&1 == 1 {
		t += Clock(12, 0, 0, 0)
	}
	for len(data) >= 2 && len(s.events) < 400 {
		a, b := data[0], data[1]
		data = data[2:]
		switch step := a >> 2; {
		case step < 24: // same instant, often: bursts
		case step < 34:
			t++
		case step < 40:
			t += Instant(w - 1)
		case step < 46:
			t += Instant(w)
		case step < 50:
			t += Instant(w + 1)
		case step < 60:
			t += Instant(int64(b>>3) * w / 8) // within a few windows
		default:
			t -= Instant(1 + int64(b>>3)%(2*w)) // backwards: clamped to the clock
		}
		e := event{op: opAllow, at: t, client: clientNames[int(b&7)%len(clientNames)]}
		switch a & 3 {
		case 1:
			if b&0x10 != 0 {
				e.op = opPeek
				if b&0x20 != 0 {
					e.client = "never-seen"
				}
				e.at += Instant(int64(b>>6)*w/2 - w/2)
			}
		case 2:
			if b&0x18 == 0x18 {
				e.op = opExpire
				e.at += Instant(int64(b>>5) * w / 4)
			} else if b&0x18 == 0x08 {
				e.op = opMemory
			}
		}
		s.events = append(s.events, e)
	}
	return s, len(s.events) > 0
}
