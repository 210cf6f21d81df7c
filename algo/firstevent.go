package algo

import "windowlab/human"

// A sliding counter whose windows start at the client's first request
// (Rules.WindowStart = WindowFirstEvent), as HAProxy's freq_ctr keeps a
// stick-table entry's request rate (PresetHAProxy): counterState.window
// then holds the current window's start instant, not a window index, with
// its low bit set once the client has a window (a start is always even).
//
// A client with no counts has no window: its request starts one at the
// request's instant rounded down to an even millisecond (HAProxy stores
// the start with its low bit cleared, the bit being its rotation's lock).
// A request at or after start + W rolls the counters once (previous =
// current, start += W, again rounded down to even); if it is also at or
// after the new start + W, the client was idle two windows or more and
// its windows start over at the request, with no previous count.

// rollFrom moves s to the window that holds t, for w ms windows that start
// at the client's first request.
func (s *counterState) rollFrom(t Instant, w int64) {
	u := int64(t)
	if s.window&1 == 0 {
		// No window yet: the first request (HAProxy's zeroed entry finds
		// two periods missed, and starts over the same way).
		s.window = u | 1
		return
	}
	if start := s.start(); u-start >= w {
		s.previous, s.current = s.current, 0
		start += w
		if u-start >= w {
			s.previous, start = 0, u
		}
		s.window = start | 1
	}
}

// start is the start of the client's window, windows from its first
// request: an even instant.
func (s *counterState) start() int64 { return s.window &^ 1 }

// allowFrom decides one request at t from the client whose state s is,
// windows starting at its first request: it rolls the counters, tests
// the estimate by e and counts the request if the rules say so. It
// returns the window's start and the counts the request was decided on.
func (s *counterState) allowFrom(t Instant, e *estimateRule) (start Instant, current, previous int64, allowed bool) {
	s.rollFrom(t, e.w)
	current, previous = s.current, s.previous
	allowed = e.admits(current, previous, e.w-elapsedFrom(t, s.start()))
	if allowed || e.countRejected {
		s.current = satAdd(current, 1)
	}
	return Instant(s.start()), current, previous, allowed
}

// elapsedFrom is t − start, at least 0: a request is never decided before
// its window starts, but a client's instants could go back a millisecond
// in a log.
func elapsedFrom(t Instant, start int64) int64 {
	return max(int64(t)-start, 0)
}

// liveFrom reports whether a client's counts, its window starting at
// start, still weigh anything at t: not once two windows have passed,
// when its next request starts over.
func liveFrom(t Instant, start, w int64) bool {
	return int64(t)-start < 2*w
}

// retireRolledFrom keeps, with expiry off, the counters a roll to t drops.
func (l *SlidingCounter) retireRolledFrom(client string, s *counterState, t Instant) {
	if s.window&1 == 0 || int64(t)-s.start() < l.w {
		return // no window yet, or t is still in it
	}
	if s.previous > 0 {
		l.retire(client, s.start()-l.w, s.previous)
	}
	if anew := int64(t)-(s.start()+l.w) >= l.w; anew && s.current > 0 {
		l.retire(client, s.start(), s.current)
	}
}

// peekFrom is Peek for windows from the client's first request: the
// counts a request at t would be decided on, s left as it is.
func (l *SlidingCounter) peekFrom(t Instant, s counterState) Decision {
	s.rollFrom(t, l.w)
	return l.decision(t, s.start(), s.current, s.previous,
		l.est.admits(s.current, s.previous, l.w-elapsedFrom(t, s.start())))
}

// allowIDFrom is AllowID for windows from the client's first request.
func (l *SlidingCounter) allowIDFrom(t Instant, id int32) Decision {
	s := l.clients.getID(id)
	if s == nil {
		s = l.clients.addID(id)
		l.added(s, 0, l.clients.keyBytes(id))
	} else if l.cfg.NoExpiry {
		l.retireRolledFrom(l.clients.key(id), s, t)
	}
	start, current, previous, allowed := s.allowFrom(t, &l.est)
	return l.decision(t, int64(start), current, previous, allowed)
}

// clientWindows writes the listing's lines that find the counts of a
// sliding counter whose windows start at the client's first request: the
// client's own window, not the clock's, rolled as HAProxy rolls it (a new
// client's zero start is two windows back: its first request starts anew).
func (c *coder) clientWindows() {
	d := c.d
	c.line("w := windows[client].rollTo(at)", "the client's own, not the clock's")
	c.note("rollTo: at ≥ start+window moves on a window (previous = current);")
	c.note("two windows on, anew from at; a start is an even ms")
	c.line("start := w.start", Range(d.WindowStart, d.WindowEnd()))
	c.line("current := w.current", human.Int(d.Count))
	c.line("previous := w.previous", human.Int(d.Previous))
}

// ClientWindows reports whether a's windows are each client's own, not the
// clock's: a fixed window from the client's first request
// (WindowFirstRequest), a sliding counter's from it (WindowFirstEvent).
// Their edges differ from client to client, so no calendar edge is theirs.
func (a Algorithm) ClientWindows() bool {
	switch a.Kind {
	case KindFixedWindow:
		return a.Rules.WindowStart == WindowFirstRequest
	case KindSlidingCounter:
		return a.Rules.WindowStart == WindowFirstEvent
	}
	return false
}
