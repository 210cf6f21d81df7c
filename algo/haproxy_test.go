package algo

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"

	"windowlab/internal/long"
)

// freqCtr is HAProxy 2.6's struct freq_ctr as a new stick-table entry
// holds it (zeroed) and its arithmetic on 32-bit milliseconds, written
// out line by line from include/haproxy/freq_ctr.h (update_freq_ctr_period)
// and src/freq_ctr.c (freq_ctr_total): the brute force the preset is held
// to. (internal/cli's real-server test writes it out again, apart.)
type freqCtr struct{ tick, curr, prev uint32 }

func (c *freqCtr) update(now, period uint32) {
	if now-c.tick < period {
		c.curr++
		return
	}
	c.prev, c.curr = c.curr, 1
	tick := c.tick + period
	if now-tick >= period {
		c.prev, tick = 0, now
	}
	c.tick = tick &^ 1
}

func (c *freqCtr) read(now, period uint32) uint64 {
	curr, past := uint64(c.curr), uint64(c.prev)
	remain := int32(c.tick + period - now)
	if remain < 0 {
		remain += int32(period)
		past = 0
		if remain >= 0 {
			past = curr
		}
		curr = 0
	}
	if curr == 0 && past <= 1 {
		return past
	}
	return (past*uint64(remain) + curr*uint64(period)) / uint64(period)
}

// haproxyBase is a dated instant far from HAProxy's 32-bit wrap, where
// a zeroed entry's tick 0 is always two periods back.
const haproxyBase = Instant(1_796_083_200_000) // 2026-12-01T00:00:00Z

// The preset decides every request as HAProxy's freq_ctr does after
// track-sc0, `sc_http_req_rate(0) gt limit` denying, on random traffic of
// a few clients with bursts and idle gaps of every length around one and
// two periods; and its rate, ⌊previous × weight⌋ + current + 1, is the
// rate HAProxy reads.
func TestHAProxyPresetAgreesWithFreqCtr(t *testing.T) {
	runs := long.N(300, 3000)
	checked := 0
	for seed := range uint64(runs) {
		r := rand.New(rand.NewPCG(seed, 0x4a9))
		period := int64(2 + r.IntN(40))
		if seed%3 == 0 {
			period = int64(500 + r.IntN(2500))
		}
		limit := int64(1 + r.IntN(8))
		cfg := Config{Limit: limit, Window: time.Duration(period) * time.Millisecond, Rules: PresetHAProxy.Rules}
		l := mustNew(t, KindSlidingCounter, cfg)
		if seed%2 == 1 {
			l = newByName(t, KindSlidingCounter, cfg)
		}
		dense := NewDenseSlidingCounter(cfg, 3)
		ctrs := map[string]*freqCtr{}
		at := haproxyBase + Instant(r.Int64N(1<<20))
		for i := range 200 {
			switch r.IntN(6) {
			case 0: // an idle gap around one or two periods, or longer
				at += Instant(period*int64(1+r.IntN(3)) + r.Int64N(period) - period/2)
			case 1, 2:
				at += Instant(r.Int64N(period/2 + 1))
			} // else a burst: the same instant
			k := r.IntN(3)
			client := fmt.Sprint("client-", k)
			c := ctrs[client]
			if c == nil {
				c = &freqCtr{}
				ctrs[client] = c
			}
			now := uint32(int64(at))
			c.update(now, uint32(period))
			rate := c.read(now, uint32(period))
			d := l.Allow(at, client)
			if d.Allowed != (rate <= uint64(limit)) {
				t.Fatalf("seed %d request %d at %d from %s: allowed %v, HAProxy's rate %d, gt %d denies: %+v", seed, i, at-haproxyBase, client, d.Allowed, rate, limit, d)
			}
			x, _ := d.Rounded()
			if got := x + 1; uint64(got) != rate {
				t.Fatalf("seed %d request %d: rate %d (%+v), HAProxy reads %d", seed, i, got, d, rate)
			}
			if start := int64(d.WindowStart); start%2 != 0 || uint32(start) != c.tick {
				t.Fatalf("seed %d request %d: window from %d, HAProxy's tick %d", seed, i, start, c.tick)
			}
			if v := dense.Allow(at, k); v.Allowed != d.Allowed || v.Count != d.Count || v.Previous != d.Previous {
				t.Fatalf("seed %d request %d: dense %+v, keyed %+v", seed, i, v, d)
			}
			checked++
		}
	}
	t.Logf("%d requests decided as HAProxy's freq_ctr", checked)
}

// Properties of the preset, any traffic: a client never has more than the
// limit allowed in one of its own windows (every request counts in its
// window, and one is allowed only while the count with it is at most the
// limit), nor more than twice the limit in any interval one window long;
// and after a gap of two windows or more from its window's start it
// decides as a client never seen.
func TestHAProxyPresetProperties(t *testing.T) {
	newCounter := func(t *rapid.T, cfg Config) *SlidingCounter {
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		return NewSlidingCounter(cfg)
	}
	rapid.Check(t, func(t *rapid.T) {
		period := 2 * rapid.Int64Range(1, 1500).Draw(t, "half period") // even: windows exactly a period long
		limit := rapid.Int64Range(1, 6).Draw(t, "limit")
		cfg := Config{Limit: limit, Window: time.Duration(period) * time.Millisecond, Rules: PresetHAProxy.Rules}
		gaps := rapid.SliceOfN(rapid.Int64Range(0, 3*period), 1, 80).Draw(t, "gaps")
		l := newCounter(t, cfg)
		var allowed []Instant
		perWindow := map[Instant]int64{}
		at := haproxyBase
		var windowStart Instant
		for i, g := range gaps {
			at += Instant(g)
			if i > 0 && int64(at-windowStart) >= 2*period {
				// Two windows on from the window's start: as a new client.
				fresh := newCounter(t, cfg)
				want := fresh.Peek(at, "c")
				if got := l.Peek(at, "c"); got != want {
					t.Fatalf("after %d ms: %+v, a new client's %+v", at-windowStart, got, want)
				}
			}
			d := l.Allow(at, "c")
			windowStart = d.WindowStart
			if d.Allowed {
				allowed = append(allowed, at)
				perWindow[d.WindowStart]++
				if perWindow[d.WindowStart] > limit {
					t.Fatalf("%d allowed in the window from %v, limit %d", perWindow[d.WindowStart], d.WindowStart, limit)
				}
			}
		}
		for i, a := range allowed {
			n := int64(0)
			for _, b := range allowed[i:] {
				if b-a < Instant(period) {
					n++
				}
			}
			if n > 2*limit {
				t.Fatalf("%d allowed within %d ms from %v, limit %d", n, period, a, limit)
			}
		}
	})
}
