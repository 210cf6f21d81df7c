package algo

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"windowlab/internal/long"
)

// The lesson: "A limit of 10,000 per hour across 1 million keys can mean up
// to 10 billion timestamps."
func TestWorstCaseLessonNumbers(t *testing.T) {
	c := Config{Limit: 10_000, Window: time.Hour}
	log, err := WorstCase(KindSlidingLog, c, 1_000_000, 12)
	if err != nil {
		t.Fatal(err)
	}
	if log.Entries.String() != "10000000000" {
		t.Errorf("sliding log holds %s timestamps at worst, the lesson says 10 billion", log.Entries)
	}
	// 8 bytes a timestamp dominate: at least 80 GB in process.
	if log.Bytes.Cmp(log.Entries) <= 0 || log.Bytes.Int64() < 80_000_000_000 {
		t.Errorf("sliding log bytes %s, want at least 8 per timestamp", log.Bytes)
	}
	counter, _ := WorstCase(KindSlidingCounter, c, 1_000_000, 12)
	if counter.Entries.Int64() != 2_000_000 {
		t.Errorf("sliding counter holds %s counters, the lesson says two per key", counter.Entries)
	}
	fixed, _ := WorstCase(KindFixedWindow, c, 1_000_000, 12)
	if fixed.Entries.Int64() != 1_000_000 {
		t.Errorf("fixed window holds %s counters, want one per key", fixed.Entries)
	}
	if small, _ := WorstCase(KindSlidingLog, Config{Limit: 5, Window: time.Minute}, 1, 12); small.RedisBytes.Int64() != RedisModel.SortedSetKeyWithTTL+5*RedisModel.ListpackMember {
		t.Errorf("a 5-member sorted set should use the listpack encoding: %s bytes", small.RedisBytes)
	}
}

// The per-client figure Memory reports models a store keyed by name: a
// hash map from each client's name to its state. It is checked against the
// heap of such a map, a million clients' worth measured with the runtime's
// own accounting (the map's spare capacity comes on top, so the heap may
// be up to twice the model); and windowlab's own store, which packs the
// same clients tighter, must hold at most what the model says.
func TestMemoryMatchesTheHeap(t *testing.T) {
	clients := int64(long.N(100_000, 1_000_000)) // the full run allocates a few hundred MB
	names := make([]string, clients)
	for i := range names {
		names[i] = fmt.Sprintf("client-%07d", i)
	}
	heapOf := func(build func() any) int64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v := build()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(v)
		return int64(after.HeapAlloc) - int64(before.HeapAlloc)
	}
	for _, k := range All {
		t.Run(k.String(), func(t *testing.T) {
			var l Limiter
			ours := heapOf(func() any {
				l, _ = New(k, Config{Limit: 100, Window: time.Hour})
				for i, name := range names {
					l.Allow(Instant(i/1000), name)
				}
				return l
			})
			model := l.Memory().Bytes
			// A map of the same states, its keys the names already made.
			var conventional int64
			switch k {
			case KindFixedWindow:
				conventional = heapOf(func() any { return mapOf[fixedState](names) })
			case KindSlidingCounter:
				conventional = heapOf(func() any { return mapOf[counterState](names) })
			case KindSlidingLog:
				conventional = heapOf(func() any {
					m := mapOf[logState](names)
					for _, name := range names {
						s := m[name]
						s.q.Push(1) // the one timestamp, which its queue holds in its header
						m[name] = s
					}
					return m
				})
			case KindTokenBucket:
				conventional = heapOf(func() any { return mapOf[bucketState](names) })
			case KindSegmentedWindow:
				conventional = heapOf(func() any {
					m := make(map[string]*segState)
					for _, name := range names {
						m[name] = &segState{counts: make([]int64, 4)} // S = 4 for an hour
					}
					return m
				})
			}
			keys := clients * int64(len(names[0])) // the map's keys are the names: not in its heap
			t.Logf("%v: model %d B/client, a map %d B/client, windowlab's store %d B/client (names included)",
				k, model/clients, (conventional+keys)/clients, ours/clients)
			if conventional+keys < model*3/4 || conventional+keys > model*2 {
				t.Errorf("a map holds %d B, the model %d B: off by more than the map's slack", conventional+keys, model)
			}
			if ours > model {
				t.Errorf("windowlab's store holds %d B, more than the model's %d B", ours, model)
			}
		})
	}
}

// mapOf is a map from each name to a zero state.
func mapOf[S any](names []string) map[string]S {
	m := make(map[string]S)
	for _, name := range names {
		var zero S
		m[name] = zero
	}
	return m
}

// Live state in Redis terms agrees with the worst case when the state is
// the worst case.
func TestRedisBytesMatchesWorstCase(t *testing.T) {
	c := Config{Limit: 300, Window: time.Minute}
	for _, k := range All {
		f, _ := WorstCase(k, c, 1000, 12)
		perClient := map[Kind]int64{KindFixedWindow: 1, KindSlidingCounter: 2, KindSlidingLog: 300, KindTokenBucket: 1, KindSegmentedWindow: 4}[k]
		m := Memory{Clients: 1000, Entries: 1000 * perClient}
		if got := RedisBytes(k, m); got != f.RedisBytes.Int64() {
			t.Errorf("%v: RedisBytes = %d, WorstCase.RedisBytes = %s", k, got, f.RedisBytes)
		}
	}
	if RedisBytes(KindSlidingLog, Memory{}) != 0 {
		t.Error("no clients should cost nothing")
	}
}
