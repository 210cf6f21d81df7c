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

// The per-client figure Memory reports is checked against the heap: a
// million clients' worth of real state, measured with the runtime's own
// accounting. The model counts the map slot, the key and the state; the
// map's spare capacity comes on top, so the heap may be up to twice it.
func TestMemoryMatchesTheHeap(t *testing.T) {
	clients := int64(long.N(100_000, 1_000_000)) // the full run allocates a few hundred MB
	names := make([]string, clients)
	for i := range names {
		names[i] = fmt.Sprintf("client-%07d", i)
	}
	for _, k := range All {
		t.Run(k.String(), func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			l, _ := New(k, Config{Limit: 100, Window: time.Hour})
			for i, name := range names {
				l.Allow(Instant(i/1000), name)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			heap := int64(after.HeapAlloc - before.HeapAlloc)
			model := l.Memory().Bytes
			runtime.KeepAlive(l)
			// Key bytes live in names, outside the limiter: take them off the model.
			model -= clients * int64(len(names[0]))
			t.Logf("%v: heap %d B/client, model %d B/client", k, heap/clients, model/clients)
			if heap < model*3/4 || heap > model*2 {
				t.Errorf("heap %d B, model %d B: the model is off by more than the map's slack", heap, model)
			}
		})
	}
}

// Live state in Redis terms agrees with the worst case when the state is
// the worst case.
func TestRedisBytesMatchesWorstCase(t *testing.T) {
	c := Config{Limit: 300, Window: time.Minute}
	for _, k := range All {
		f, _ := WorstCase(k, c, 1000, 12)
		perClient := map[Kind]int64{KindFixedWindow: 1, KindSlidingCounter: 2, KindSlidingLog: 300, KindTokenBucket: 1}[k]
		m := Memory{Clients: 1000, Entries: 1000 * perClient}
		if got := RedisBytes(k, m); got != f.RedisBytes.Int64() {
			t.Errorf("%v: RedisBytes = %d, WorstCase.RedisBytes = %s", k, got, f.RedisBytes)
		}
	}
	if RedisBytes(KindSlidingLog, Memory{}) != 0 {
		t.Error("no clients should cost nothing")
	}
}
