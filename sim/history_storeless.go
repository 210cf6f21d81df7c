package sim

import "windowlab/algo"

// A limiter on a real store under a policy for when the store does not
// answer (redisstore's --on-store-error allow or deny) decides some
// requests without it: the policy's admission or refusal, not the shared
// tally's. The engine counts them (Stats.WithoutStore), marks them on the
// record (Record.WithoutStore) and keeps them in the history beside the
// delayed ones, few or none, so a timeline can give them a mark of their
// own.

// storeless is a limiter that can decide without its store: how many it
// has so far, and whether it can at all (a store under a policy).
type storeless interface {
	DecidedWithoutStore() (int64, bool)
}

// withoutStore is how many of l's decisions were made without its store,
// or −1 for a limiter that never decides without one.
func withoutStore(l algo.Limiter) int64 {
	if s, ok := l.(storeless); ok {
		if n, policy := s.DecidedWithoutStore(); policy {
			return n
		}
	}
	return -1
}

// addWithoutStore records that the arrival just added (add) was decided
// without their store by the limiters in m.Allowed.
func (h *History) addWithoutStore(m Mark) { h.storeless.add(h, m) }

// WithoutStore adds to out[k] how many of the arrivals from index from to
// before to limiter k decided without its store: of the client numbered
// id, or with id below 0 of every client.
func (h *History) WithoutStore(from, to int64, id int32, out []int64) {
	h.storeless.count(h, from, to, id, out)
}

// HasWithoutStore reports whether any limiter decided an arrival the
// history holds now without its store.
func (h *History) HasWithoutStore() bool { return h.storeless.any(h) }

// WithoutStoreBits has bit k set when limiter k decided any of the
// arrivals from index from to before to without its store.
func (h *History) WithoutStoreBits(from, to int64) uint32 { return h.storeless.bits(h, from, to) }
