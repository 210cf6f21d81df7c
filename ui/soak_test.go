package ui

import (
	"runtime"
	"testing"
	"time"

	"windowlab/internal/long"
	"windowlab/scenarios"
)

// TestSoakReplayAt1000x plays the million-request scenario at 1000× over and
// over, as a class would leave it running, and samples the heap: it must not
// grow. Ten minutes of frames, part of the thorough run (internal/long):
//
//	WINDOWLAB_LONG=1    go test ./ui/ -run Soak -v   # 18,000 frames as fast as they go
//	WINDOWLAB_LONG=wall go test ./ui/ -run Soak -v -timeout 30m   # ten minutes of real time, a frame every 33 ms
//
// Each frame is what the program does: a tick message through Update, then
// View at 200×50. When the replay reaches its end, space plays it again.
func TestSoakReplayAt1000x(t *testing.T) {
	if !long.Enabled() {
		t.Skip("the ten-minute soak runs with " + long.Env + "=1 (as fast as it goes) or =wall (in real time)")
	}
	wall := long.Wall()
	const minutes = 10
	frames := minutes * int(time.Minute/frame) // 18,000 at 30 frames a second
	m := newModel(t, million(), 200, 50)
	for m.speed < scenarios.MaxSpeed {
		m = update(t, m, press("+")...)
	}
	m = update(t, m, press("space")...)
	if !m.Playing() || m.speed != scenarios.MaxSpeed {
		t.Fatalf("playing %v at %v×", m.Playing(), m.speed)
	}

	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	start := time.Now()
	at := start
	replays, decided := 0, int64(0)
	var samples []uint64
	var peak uint64
	for i := range frames {
		if wall {
			time.Sleep(time.Until(start.Add(time.Duration(i+1) * frame)))
			at = time.Now()
		} else {
			at = at.Add(frame)
		}
		m = update(t, m, tickMsg{at: at, gen: m.gen})
		_ = m.View()
		if !m.Playing() { // the end: play it again from the start
			_, n := m.Position()
			decided += n
			replays++
			m = update(t, m, press("space")...)
		}
		if i%(frames/60) == 0 || i == frames-1 {
			h := heap()
			samples = append(samples, h)
			peak = max(peak, h)
			t.Logf("frame %5d  %6.1fs  replay %3d  heap %6.1f MB", i, time.Since(start).Seconds(), replays, float64(h)/1e6)
		}
	}
	settled := samples[len(samples)/10] // after the first replays have made every checkpoint
	final := samples[len(samples)-1]
	t.Logf("%d frames in %v: %d full replays (%d decisions at least); heap settled %.1f MB, final %.1f MB, peak %.1f MB",
		frames, time.Since(start).Round(time.Second), replays, decided, float64(settled)/1e6, float64(final)/1e6, float64(peak)/1e6)
	if replays < 10 {
		t.Errorf("only %d replays: the clock is not running at 1000×", replays)
	}
	if final > settled+settled/10 {
		t.Errorf("the heap grew from %.1f MB to %.1f MB", float64(settled)/1e6, float64(final)/1e6)
	}
}
