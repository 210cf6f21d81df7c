package algo

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// nginxZone is ngx_http_limit_req_module.c (release-1.22.1) for one zone and
// one limit_req, transcribed from the C and nothing of NginxLimitReq: the
// zone's rate = rate·1000/scale, limit->burst = burst·1000, limit->delay =
// delay·1000 (nodelay: NGX_MAX_INT_T_VALUE/1000·1000); lookup() then
// account(). It answers nginx's $limit_req_status and the delay in ms.
type nginxZone struct {
	rate, burst, delay int64
	nodes              map[string]*nginxNode
}

type nginxNode struct{ last, excess int64 }

func newNginxZone(r, scale, burst, delay int64, nodelay bool) *nginxZone {
	z := &nginxZone{rate: r * 1000 / scale, burst: burst * 1000, delay: delay * 1000, nodes: map[string]*nginxNode{}}
	if nodelay {
		z.delay = (1<<63 - 1) / 1000 * 1000
	}
	return z
}

func (z *nginxZone) request(now int64, key string) (status string, delay int64) {
	lr := z.nodes[key]
	var excess int64
	if lr == nil {
		z.nodes[key] = &nginxNode{last: now, excess: 0} // NGX_OK, *ep = 0
	} else {
		ms := now - lr.last
		if ms < -60000 {
			ms = 1
		} else if ms < 0 {
			ms = 0
		}
		excess = lr.excess - z.rate*ms/1000 + 1000
		if excess < 0 {
			excess = 0
		}
		if excess > z.burst {
			return "REJECTED", 0
		}
		lr.excess = excess
		if ms != 0 {
			lr.last = now
		}
	}
	var maxDelay int64
	if excess > z.delay {
		maxDelay = (excess - z.delay) * 1000 / z.rate
	}
	if maxDelay == 0 {
		return "PASSED", 0
	}
	return "DELAYED", maxDelay
}

// nginxCase draws a zone: r/s, r/m or (windowlab's generalisation) r per
// 1.5s; a burst, a delay, nodelay.
func nginxCase(r *rand.Rand) (cfg Config, zone *nginxZone) {
	limit := 1 + r.Int64N(20)
	burst := r.Int64N(6)
	delay := r.Int64N(burst + 2)
	nodelay := r.IntN(3) == 0
	b := BucketNginx
	if nodelay {
		b, delay = BucketNginxNodelay, 0
	}
	cfg = Config{Limit: limit, Burst: burst, Delay: delay, Rules: Rules{Bucket: b}, NoExpiry: r.IntN(2) == 0}
	switch r.IntN(3) {
	case 0:
		cfg.Window = time.Second
		zone = newNginxZone(limit, 1, burst, delay, nodelay)
	case 1:
		cfg.Window = time.Minute
		zone = newNginxZone(limit, 60, burst, delay, nodelay)
	default: // limit per 1.5 s: rate = limit·1000·1000/1500 = limit·2000/3
		cfg.Window = 1500 * time.Millisecond
		zone = newNginxZone(limit*2, 3, burst, delay, nodelay)
	}
	return cfg, zone
}

// TestNginxPresetsDecideAsTheModule runs the nginx presets and the
// transcription side by side on random traffic, request for request:
// the verdict, the delay, and PASSED versus DELAYED.
func TestNginxPresetsDecideAsTheModule(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 7))
	delayed := 0
	for run := range 600 {
		cfg, zone := nginxCase(r)
		l, err := New(KindTokenBucket, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := l.(*NginxLimitReq); !ok {
			t.Fatalf("%+v: New built a %T", cfg, l)
		}
		step := int64(1000) / cfg.Limit
		if cfg.Window == time.Minute {
			step = 60_000 / cfg.Limit
		}
		at := Instant(r.Int64N(1_000_000))
		for i := range 300 {
			switch r.IntN(5) {
			case 0: // the same instant
			case 1:
				at += Instant(r.Int64N(70_000)) // idle, past nginx's 60 s
			default:
				at += Instant(r.Int64N(2*step + 2))
			}
			client := fmt.Sprintf("c%d", r.IntN(3))
			status, delay := zone.request(int64(at), client)
			peek := l.Peek(at, client)
			d := l.Allow(at, client)
			if d.Allowed != (status != "REJECTED") || d.Delay != time.Duration(delay)*time.Millisecond {
				t.Fatalf("run %d (%+v), request %d from %s at %v: the preset says allowed %v, delay %v (%s); nginx %s, %d ms",
					run, cfg, i, client, at, d.Allowed, d.Delay, d.Explain(), status, delay)
			}
			if peek != d {
				t.Fatalf("run %d, request %d: Peek %+v, Allow %+v", run, i, peek, d)
			}
			if status == "DELAYED" {
				delayed++
			}
		}
	}
	if delayed < 1000 {
		t.Fatalf("only %d delayed requests: the draw should reach the third outcome often", delayed)
	}
}

// A delaying limit never holds a request longer than its stated maximum,
// (burst − delay)·1000·1000/rate ms, and reaches it: a burst of burst + 1
// at one instant leaves the last request delayed exactly that (when delay
// is 0 or more below burst). Nodelay never delays.
func TestNginxDelaysNeverExceedTheMaximum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.Int64Range(1, 50).Draw(t, "limit")
		window := time.Duration(rapid.SampledFrom([]int64{1000, 60_000, 1500, 250}).Draw(t, "window_ms")) * time.Millisecond
		burst := rapid.Int64Range(0, 10).Draw(t, "burst")
		delay := rapid.Int64Range(0, 12).Draw(t, "delay")
		nodelay := rapid.Bool().Draw(t, "nodelay")
		cfg := Config{Limit: limit, Window: window, Burst: burst, Delay: delay, Rules: Rules{Bucket: BucketNginx}}
		if nodelay {
			cfg.Rules.Bucket = BucketNginxNodelay
		}
		l, err := New(KindTokenBucket, cfg)
		if err != nil {
			t.Skip(err) // a rate below nginx's 0.001 r/s
		}
		most := NginxMaxDelay(cfg)
		var longest time.Duration
		at := Instant(0)
		gaps := rapid.SliceOfN(rapid.Int64Range(0, 400), 1, 200).Draw(t, "gaps")
		// The first burst+1 at one instant, then the drawn gaps.
		for range burst + 1 {
			longest = max(longest, l.Allow(at, "c").Delay)
		}
		if !nodelay && delay < burst && longest != most {
			t.Fatalf("a burst of %d at once: longest delay %v, want the maximum %v", burst+1, longest, most)
		}
		for _, g := range gaps {
			at += Instant(g)
			d := l.Allow(at, "c")
			if d.Delay > most || (nodelay && d.Delay != 0) || (!d.Allowed && d.Delay != 0) {
				t.Fatalf("at %v: delay %v, the maximum %v (nodelay %v): %s", at, d.Delay, most, nodelay, d.Explain())
			}
		}
	})
}

// Under nodelay, for r/s (window 1s: nginx's rate·ms/1000 is limit·ms,
// exact), nginx limit_req is the lesson's token bucket of capacity burst +
// 1: no truncation can matter there. (For r/m it can: 1 r/m is 16
// thousandths a second, not 16.67, and a bucket refilling exactly admits
// sooner, which the second half of the test shows.)
func TestNginxNodelayIsABucketOfBurstPlusOne(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 8))
	for run := range 300 {
		limit := 1 + r.Int64N(20)
		burst := r.Int64N(8)
		ng, err := New(KindTokenBucket, Config{Limit: limit, Window: time.Second, Burst: burst, Rules: Rules{Bucket: BucketNginxNodelay}})
		if err != nil {
			t.Fatal(err)
		}
		tb, err := New(KindTokenBucket, Config{Limit: limit, Window: time.Second, Burst: burst + 1})
		if err != nil {
			t.Fatal(err)
		}
		at := Instant(r.Int64N(1_000_000))
		for i := range 300 {
			at += Instant(r.Int64N(2000/limit + 1))
			client := fmt.Sprintf("c%d", r.IntN(2))
			a, b := ng.Allow(at, client), tb.Allow(at, client)
			if a.Allowed != b.Allowed {
				t.Fatalf("run %d (limit %d/s, burst %d), request %d at %v: nginx %s, the bucket of %d %s",
					run, limit, burst, i, at, a.Explain(), burst+1, b.Explain())
			}
		}
	}
	// 1 r/m, burst 0: nginx's rate is 16 thousandths a second, so a second
	// request 60 s after the first still finds excess' = 1000 − 960 = 40 > 0,
	// denied; the exact bucket of one token refilling 1 a minute admits it.
	ng, _ := New(KindTokenBucket, Config{Limit: 1, Window: time.Minute, Rules: Rules{Bucket: BucketNginxNodelay}})
	tb, _ := New(KindTokenBucket, Config{Limit: 1, Window: time.Minute, Burst: 1})
	ng.Allow(0, "c")
	tb.Allow(0, "c")
	if a, b := ng.Allow(60_000, "c"), tb.Allow(60_000, "c"); a.Allowed || !b.Allowed {
		t.Fatalf("1 r/m after 60 s: nginx %s, the bucket %s; want nginx to deny (truncated rate) and the bucket to allow", a.Explain(), b.Explain())
	}
	if a := ng.Allow(62_500, "c"); !a.Allowed {
		t.Fatalf("1 r/m after 62.5 s: nginx %s; 16·62.5 = 1000 drains it", a.Explain())
	}
}

// Forgetting a drained client changes no decision: expiry on and off
// decide alike, and memory with expiry on falls back to nothing.
func TestNginxExpiryChangesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 9))
	for run := range 200 {
		cfg, _ := nginxCase(r)
		cfg.NoExpiry = false
		on, _ := New(KindTokenBucket, cfg)
		cfg.NoExpiry = true
		off, _ := New(KindTokenBucket, cfg)
		at := Instant(0)
		for i := range 200 {
			at += Instant(r.Int64N(3000))
			c := fmt.Sprintf("c%d", r.IntN(5))
			if a, b := on.Allow(at, c), off.Allow(at, c); a != b {
				t.Fatalf("run %d request %d: expiry on %+v, off %+v", run, i, a, b)
			}
			if i%50 == 0 {
				clone := on.Clone()
				if a, b := clone.Peek(at+1, "c0"), on.Peek(at+1, "c0"); a != b {
					t.Fatalf("a clone decides otherwise: %+v, %+v", a, b)
				}
			}
		}
		on.Expire(at + 10_000_000)
		if m := on.Memory(); m.Clients != 0 {
			t.Fatalf("run %d: %d clients held long after their last request", run, m.Clients)
		}
	}
}

// Bad nginx settings are refused with the option named.
func TestNginxSettingsAreChecked(t *testing.T) {
	for _, c := range []struct {
		cfg    Config
		option string
	}{
		{Config{Limit: 1, Window: time.Hour, Rules: Rules{Bucket: BucketNginx}}, "limit"}, // 1/h is below 0.001 r/s
		{Config{Limit: 1, Window: time.Second, Delay: -1, Rules: Rules{Bucket: BucketNginx}}, "delay"},
		{Config{Limit: 1, Window: time.Second, Burst: -1, Rules: Rules{Bucket: BucketNginxNodelay}}, "burst"},
	} {
		err := c.cfg.Validate()
		oe, ok := err.(*OptionError)
		if !ok || oe.Option != c.option {
			t.Errorf("%+v: %v, want a problem with %s", c.cfg, err, c.option)
		}
	}
	if err := (Config{Limit: 1, Window: time.Minute, Rules: Rules{Bucket: BucketNginx}}).Validate(); err != nil {
		t.Errorf("1 r/m is nginx's: %v", err)
	}
}
