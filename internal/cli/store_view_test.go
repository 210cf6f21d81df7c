package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/redis/go-redis/v9"

	"windowlab/internal/redistest"
	"windowlab/redisstore"
	"windowlab/scenarios"
	"windowlab/ui"
)

func viewText(t *testing.T, m ui.Model, msgs ...tea.Msg) (ui.Model, string) {
	t.Helper()
	for _, msg := range msgs {
		next, _ := m.Update(msg)
		m = next.(ui.Model)
	}
	return m, ansi.Strip(m.View().Content)
}

// The view on a real Redis (tui --store): each lane's memory shows, beside
// the model, what its keys hold there, measured at the clock: at 12:01:00
// of the boundary burst one counter (88 B) for the fixed window, a sorted
// set of 100 timestamps for the log; stepping back (a checkpoint's copy of
// the keys) and forward again decides the same on Redis.
func TestViewOnRedisShowsMemoryUsage(t *testing.T) {
	srv := redistest.Start(t)
	st, err := redisstore.Open(context.Background(), srv.URL, redisstore.Options{Pipelined: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc, err := scenarios.Builtin("boundary-burst")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ui.New(ui.Options{Scenario: sc, Store: viewStore{st}})
	if err != nil {
		t.Fatal(err)
	}
	tab := tea.KeyPressMsg{Code: tea.KeyTab}
	m, text := viewText(t, m, tea.WindowSizeMsg{Width: 160, Height: 45}, tab, tab)
	for _, want := range []string{"12:01:00.000", "(Redis ≈164 B; MEMORY USAGE 88 B in 1 key)", "MEMORY USAGE 984 B in 1 key"} {
		if !strings.Contains(text, want) {
			t.Errorf("the view at the second caption lacks %q:\n%s", want, text)
		}
	}
	left, right := tea.KeyPressMsg{Code: tea.KeyLeft}, tea.KeyPressMsg{Code: tea.KeyRight}
	m, _ = viewText(t, m, left, left, left, right, right, right)
	if err := st.Err(); err != nil {
		t.Fatalf("stepping back and forth on Redis: %v", err)
	}
	_, text = viewText(t, m)
	if !strings.Contains(text, "MEMORY USAGE 88 B in 1 key") || strings.Contains(text, "Redis:") {
		t.Errorf("after stepping back and forth:\n%s", text)
	}
}

// The guided lesson on Redis (lesson --store): every step's engine decides
// there, and its lanes show what their keys hold.
func TestLessonOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	st, err := redisstore.Open(context.Background(), srv.URL, redisstore.Options{Pipelined: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m, err := ui.New(ui.Options{Lesson: scenarios.Lesson(), Store: viewStore{st}})
	if err != nil {
		t.Fatal(err)
	}
	tab := tea.KeyPressMsg{Code: tea.KeyTab}
	next := tea.KeyPressMsg{Code: 'n', Text: "n"}
	m, _ = viewText(t, m, tea.WindowSizeMsg{Width: 160, Height: 45})
	for step := range 3 {
		var text string
		m, text = viewText(t, m, tab, tab)
		if !strings.Contains(text, "MEMORY USAGE") {
			t.Errorf("step %d on Redis shows no MEMORY USAGE:\n%s", step+1, text)
		}
		m, _ = viewText(t, m, next)
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if lanes := st.Lanes(); lanes < 6 {
		t.Errorf("three steps put %d limiters on Redis", lanes)
	}
}

// runKeys counts the keys of every windowlab run on url (SCAN), beside DBSIZE.
func runKeys(t *testing.T, url string) (run, db int64) {
	t.Helper()
	return keysOf(t, url, "windowlab:*")
}

// keysOf counts the keys matching pattern on url (SCAN), beside DBSIZE.
func keysOf(t *testing.T, url, pattern string) (run, db int64) {
	t.Helper()
	opt, _ := redis.ParseURL(url)
	c := redis.NewClient(opt)
	defer c.Close()
	ctx := context.Background()
	var cursor uint64
	for {
		keys, next, err := c.Scan(ctx, cursor, pattern, 10_000).Result()
		if err != nil {
			t.Fatal(err)
		}
		run += int64(len(keys))
		if cursor = next; cursor == 0 {
			break
		}
	}
	return run, dbsize(t, url)
}

// The view on Redis leaves no key behind however it is left while a seek
// replays in the background (G): q, ctrl+c, esc and then q, or q after
// Redis refused a write. The seek goes on in its goroutine after the view
// has quit, as in the real program, while the command closes the store.
// Before, the checkpoints' copies landed behind the store's sweep: 180 to
// 520 keys left in 5 of 5 tries.
func TestViewOnRedisLeavesNoKeys(t *testing.T) {
	sc, err := scenarios.Builtin("random-traffic")
	if err != nil {
		t.Fatal(err)
	}
	key := func(s string) tea.KeyPressMsg {
		switch s {
		case "ctrl+c":
			return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
		case "esc":
			return tea.KeyPressMsg{Code: tea.KeyEscape}
		}
		return tea.KeyPressMsg{Code: rune(s[0]), Text: s}
	}
	for _, way := range []struct {
		name   string
		keys   []string
		refuse bool // Redis refuses writes (out of memory) before the way out
	}{
		{"q", []string{"q"}, false},
		{"ctrl+c", []string{"ctrl+c"}, false},
		{"esc, then q", []string{"esc", "q"}, false},
		{"q after an error", []string{"q"}, true},
	} {
		t.Run(way.name, func(t *testing.T) {
			srv := redistest.Start(t)
			st, err := openStore(context.Background(), srv.URL, true)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ui.New(ui.Options{Scenario: sc, Store: viewStore{st}})
			if err != nil {
				t.Fatal(err)
			}
			m, _ = viewText(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
			next, cmd := m.Update(key("G"))
			m = next.(ui.Model)
			batch, ok := cmd().(tea.BatchMsg)
			if !ok || !strings.Contains(ansi.Strip(m.View().Content), "replaying…") {
				t.Fatalf("G on Redis should go on in the background: %T\n%s", cmd(), ansi.Strip(m.View().Content))
			}
			seeking := make(chan struct{})
			go func() { // the seek, as Bubble Tea runs it
				defer close(seeking)
				batch[0]()
			}()
			// Leave once a checkpoint's keys are being copied.
			for n, _ := runKeys(t, srv.URL); n < 2000; n, _ = runKeys(t, srv.URL) {
				select {
				case <-seeking:
					t.Fatal("the seek ended before the test could leave in the middle of it")
				default:
				}
			}
			if way.refuse {
				setMaxMemory(t, srv.URL, "1")
				defer setMaxMemory(t, srv.URL, "0")
				for st.Err() == nil {
					time.Sleep(time.Millisecond)
					select {
					case <-seeking:
						t.Fatal("the seek ended before Redis refused a write")
					default:
					}
				}
			}
			for _, k := range way.keys {
				next, _ = m.Update(key(k))
				m = next.(ui.Model)
			}
			var errOut strings.Builder
			closeStore(&errOut, st) // as showUIOnStore does when the view returns
			setMaxMemory(t, srv.URL, "0")
			<-seeking
			if run, db := runKeys(t, srv.URL); run != 0 || db != 0 || errOut.Len() != 0 {
				t.Errorf("%d keys of the run left (DBSIZE %d); said: %q", run, db, errOut.String())
			}
		})
	}
}

func setMaxMemory(t *testing.T, url, bytes string) {
	t.Helper()
	opt, _ := redis.ParseURL(url)
	c := redis.NewClient(opt)
	defer c.Close()
	if err := c.ConfigSet(context.Background(), "maxmemory", bytes).Err(); err != nil {
		t.Fatal(err)
	}
}
