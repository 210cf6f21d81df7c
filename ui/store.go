package ui

import (
	"time"

	"windowlab/algo"
	"windowlab/ui/render"
)

// Store is a real store the view's limiters decide on (windowlab tui
// --store): the commands pass one over Redis. The view never talks to a
// server itself; it asks the store at most a few times a second, in
// Update, what a lane's keys hold.
type Store interface {
	// Wrap puts an engine's fresh limiters on the store (those it can take).
	Wrap(ls []algo.Limiter) ([]algo.Limiter, error)
	// Check sends what is queued and returns the store's first error: a
	// failed call, or a decision that differs from the in-process one.
	Check() error
	// Usage is what l's keys hold at t (false for a limiter not on the store).
	Usage(l algo.Limiter, t algo.Instant) (StoreUsage, bool, error)
	// Name is where the store is, safe to show (no password).
	Name() string
}

// ShardStore is a Store on a cluster, which says where a client's keys
// are: "NODE, slot N" ("" on one server). The lanes show the focused
// client's.
type ShardStore interface {
	Shard(client string) string
}

// StoreUsage is what one lane's keys hold on the store, as it counts them;
// the snapshot carries it to the lanes (render.StoreUsage).
type StoreUsage = render.StoreUsage

// storeView is the store the limiters decide on (Options.Store), as last
// measured.
type storeView struct {
	storeLanes []render.StoreLane
	storeAt    storeMark
	storeWhen  time.Time
	storeErr   error
}

// storeEvery is how often, at most, the view measures the store while
// the clock moves; a still clock is measured once.
const storeEvery = 250 * time.Millisecond

// measureStore refreshes the snapshot's store figures when the engine has
// moved since they were taken, at most every storeEvery while playing.
func (m *Model) measureStore() {
	st := m.ctl.store
	if st == nil {
		return
	}
	defer func() {
		if m.storeErr != nil {
			m.status = "Redis: " + m.storeErr.Error() + " (decisions since are in process only)"
		}
	}()
	if err := st.Check(); err != nil && m.storeErr == nil {
		m.storeErr = err
	}
	at := storeMark{now: m.eng.Now(), processed: m.eng.Processed(), eng: m.eng, client: m.snap.Client}
	if at == m.storeAt && len(m.storeLanes) == len(m.eng.Limiters()) {
		m.snap.Store = m.storeLanes
		return
	}
	if m.playing && m.now().Sub(m.storeWhen) < storeEvery && len(m.storeLanes) == len(m.eng.Limiters()) {
		m.snap.Store = m.storeLanes
		return
	}
	shard := ""
	if ss, ok := st.(ShardStore); ok && m.snap.Client != "" {
		shard = ss.Shard(m.snap.Client)
	}
	lanes := make([]render.StoreLane, len(m.eng.Limiters()))
	for i, l := range m.eng.Limiters() {
		u, ok, err := st.Usage(l, m.eng.Now())
		if err != nil {
			m.storeErr = err
			break
		}
		lanes[i] = render.StoreLane{Usage: u, OK: ok}
		if ok {
			lanes[i].Shard = shard
		}
	}
	m.storeLanes, m.storeAt, m.storeWhen = lanes, at, m.now()
	m.snap.Store = lanes
}

// storeMark is where the engine stood when the store was last measured.
type storeMark struct {
	now       algo.Instant
	processed int64
	eng       any
	client    string // the focused client, whose shard the lanes show
}
