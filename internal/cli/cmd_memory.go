package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/redisstore"
	"windowlab/sim/report"
)

// memoryOptions are memory's flags.
type memoryOptions struct {
	q      report.MemoryQuestion // --limit, --window, --clients, --key-bytes
	asJSON bool
	store  string // --store: the Redis to measure on
}

func newMemoryCommand() *cobra.Command {
	opts := memoryOptions{q: report.MemoryQuestion{Kinds: algo.All}}
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Work out the state each limiter keeps at worst, in process and in Redis",
		Example: "  windowlab memory --limit 10000 --window 1h --clients 1000000   # the lesson's 10 billion timestamps\n" +
			"  windowlab memory --limit 5 --window 15m --clients 50000 --json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMemory(cmd.Context(), stdioOf(cmd), opts) },
	}
	f := cmd.Flags()
	f.Int64Var(&opts.q.Limit, "limit", 10_000, "requests per window")
	f.DurationVar(&opts.q.Window, "window", time.Hour, "window length (Go duration: 1m, 1h)")
	f.Int64Var(&opts.q.Clients, "clients", 1_000_000, "active clients (keys)")
	f.IntVar(&opts.q.KeyBytes, "key-bytes", 12, "length of a client id in bytes")
	f.BoolVar(&opts.asJSON, "json", false, "print one JSON object instead of text")
	storeFlag(cmd, &opts.store)
	return cmd
}

// Bounds of what `memory --store` writes to measure: enough keys that the
// figure per client is steady, few enough to take seconds.
const (
	measureClients = 20_000  // clients of a kind sampled at most
	measureEntries = 50_000  // timestamps a sliding log's sample holds at most
	measureMax     = 200_000 // a client's own timestamps beyond which the log is not measured
)

// measureOnStore writes a sample of q's worst case into the Redis flag
// names, with windowlab's own scripts, and sets q.Measured from the
// MEMORY USAGE of its keys; the keys are removed after. Progress goes to
// errOut; ctx stops it.
func measureOnStore(ctx context.Context, errOut io.Writer, q *report.MemoryQuestion, flag string) error {
	st, err := openStore(ctx, flag, true)
	if err != nil {
		return err
	}
	defer closeStore(errOut, st)
	q.Store, q.Measured = st.URL(), map[algo.Kind]report.Measured{}
	var m measuring
	m.kind.Store("")
	finished := make(chan struct{})
	shown := make(chan struct{})
	go func() {
		defer close(shown)
		showWork(errOut, func(time.Duration) (string, float64) {
			return fmt.Sprintf("measuring on Redis: %s, %s of %s clients", m.kind.Load(), human.Int(m.done.Load()), human.Int(m.total.Load())),
				float64(m.done.Load()) / float64(max(m.total.Load(), 1))
		}, finished)
	}()
	defer func() { close(finished); <-shown }()
	for _, k := range q.Kinds {
		measured, err := measureKind(ctx, st, k, *q, &m)
		if err != nil {
			return err
		}
		q.Measured[k] = measured
	}
	if err := st.Err(); err != nil {
		return storeError(err)
	}
	return nil
}

// measuring is how far measureOnStore has got: the kind it samples, and
// the clients written of that kind's sample.
type measuring struct {
	kind        atomic.Value
	done, total atomic.Int64
}

// measureKind writes the worst case of kind k for a sample of q's clients
// on st, and measures its keys.
func measureKind(ctx context.Context, st *redisstore.Store, k algo.Kind, q report.MemoryQuestion, m *measuring) (report.Measured, error) {
	cfg := algo.Config{Limit: q.Limit, Window: q.Window}
	at := algo.Clock(12, 0, 0, 0)
	per := int64(1) // requests a client sends: one counter, one bucket
	clients := min(q.Clients, measureClients)
	if k == algo.KindSlidingLog {
		if q.Limit > measureMax {
			return report.Measured{Skipped: fmt.Sprintf("one client at its limit is %s timestamps; windowlab writes at most %s to measure",
				human.Int(q.Limit), human.Int(measureMax))}, nil
		}
		per, clients = q.Limit, min(q.Clients, max(1, measureEntries/q.Limit))
	}
	local, err := algo.New(k, cfg)
	if err != nil {
		return report.Measured{}, invalid(err)
	}
	l, err := st.Wrap(local)
	if err != nil {
		return report.Measured{}, invalid(err)
	}
	m.kind.Store(k.String())
	m.done.Store(0)
	m.total.Store(clients)
	width := max(q.KeyBytes, len(strconv.FormatInt(clients-1, 10)))
	windows, step := 1, int64(q.Window/time.Millisecond)
	if k == algo.KindSlidingCounter {
		windows = 2 // its worst case: both windows counted
	}
	if k == algo.KindSegmentedWindow { // its worst case: a count in every segment
		windows, step = int(min(cfg.SegmentCount(), q.Limit)), step/cfg.SegmentCount()
	}
	for w := range windows {
		t := at + algo.Instant(int64(w)*step)
		for i := range clients {
			if ctx.Err() != nil {
				return report.Measured{}, context.Cause(ctx)
			}
			id := fmt.Sprintf("%0*d", width, i)
			for range per {
				l.Allow(t, id)
			}
			if w == windows-1 {
				m.done.Store(i + 1)
			}
		}
	}
	now := at + algo.Instant(int64(windows-1)*step)
	u, err := l.Usage(now)
	if err != nil {
		return report.Measured{}, storeError(err)
	}
	return report.Measured{Clients: clients, Keys: u.Keys, Bytes: u.Bytes}, nil
}

// runMemory prints the worst case each limiter keeps, measured on Redis
// too with --store.
func runMemory(ctx context.Context, std stdio, opts memoryOptions) error {
	if err := opts.q.Validate(); err != nil {
		return invalid(flagError(err))
	}
	if opts.store != "" {
		if err := measureOnStore(ctx, std.err, &opts.q, opts.store); err != nil {
			return err
		}
	}
	if opts.asJSON {
		return report.MemoryJSON(std.out, opts.q)
	}
	return report.MemoryText(std.out, opts.q)
}
