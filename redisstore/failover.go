package redisstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"windowlab/algo"
)

// When the store does not answer (a primary killed, a cluster down while
// it fails over, a read-only replica), a run with a Policy other than
// PolicyStop goes on: each decision the store could not make is the
// policy's (allowed or refused), counted on its limiter, and the store's
// trouble is an Outage. When the store answers again (a replica promoted),
// its decisions may differ from the in-process twin's, which saw every
// request: the store's are the ones returned, and the difference is
// measured, not an error. Under a policy every call waits for its answer
// (no pipeline), so what a run reports is what the store decided.

// Policy is what a run does when the store does not answer.
type Policy int

const (
	PolicyStop  Policy = iota // the run stops with the store's error
	PolicyAllow               // the request is admitted without the store
	PolicyDeny                // the request is refused without the store
)

// Policies are the policies' names, as --on-store-error takes them.
var Policies = []string{"stop", "allow", "deny"}

func (p Policy) String() string { return Policies[p] }

// ParsePolicy is the policy named s.
func ParsePolicy(s string) (Policy, error) {
	if i := slices.Index(Policies, s); i >= 0 {
		return Policy(i), nil
	}
	return PolicyStop, fmt.Errorf("%q: use stop (the run ends, exit 2), allow (admit without the store) or deny (refuse without it)", s)
}

// Policy is the store's policy when it does not answer.
func (s *Store) Policy() Policy { return s.policy }

// Outage is a primary (or the one Redis) that did not answer for a while
// during a run, and what the run lost by it. Instants are the run's.
type Outage struct {
	Node       string       // the primary that served the slots then (the URL on one Redis)
	Slots      []int        // the slots of the run's tags it served that went unanswered (none on one Redis)
	From, To   algo.Instant // the first decision without it; the first answer after (Answered)
	Answered   bool         // it answered again before the run ended
	FailedOver string       // the primary that answered for its slots after, when another
	Reason     string       // the first error, one line
	Without    int64        // decisions made without the store (the policy's)
	// Missing is the increments the in-process twin held that the store
	// did not, summed over the clients of its slots at each one's first
	// answer after: Unsent of them were decisions made without the store
	// that the twin counted, and the rest (Lost) were lost with the primary.
	Missing, Unsent int64
	// Over is the requests admitted that the twin refused (the policy's
	// or, after, the store's); Under the reverse.
	Over, Under int64

	open     map[int]bool     // its tags not yet answered again
	unsent   map[string]int64 // by lane and client: decisions without the store the twin counted
	compared map[string]bool  // by lane and client: already compared at a first answer
}

// Lost is the increments the store acknowledged that the primary taking
// over did not have.
func (o Outage) Lost() int64 { return max(0, o.Missing-o.Unsent) }

// Outages are the store's outages so far, in the order they began.
func (s *Store) Outages() []Outage {
	s.fo.Lock()
	defer s.fo.Unlock()
	out := make([]Outage, len(s.fo.all))
	for i, o := range s.fo.all {
		out[i] = *o
		out[i].Slots = slices.Clone(o.Slots)
	}
	return out
}

// failover is a store's outages: open by the tag they hold, by the node
// they began on, and the last of each tag (whose mismatches it explains).
type failover struct {
	all    []*Outage
	byTag  map[int]*Outage // open
	byNode map[string]*Outage
	last   map[int]*Outage
}

// call runs one script and waits for its answer, for a store under a
// policy: its error is returned, not the store's.
func (s *Store) call(cmd []any) (any, error) {
	s.ops.Lock()
	defer s.ops.Unlock()
	if s.shut || !s.begin() {
		return nil, s.errClosed()
	}
	defer s.end()
	s.calls++
	ctx, cancel := s.ctx()
	defer cancel()
	s.trips.Add(1)
	v, err := eval(ctx, s.client, cmd)
	if isNoScript(err) && s.reload(ctx) == nil { // a promoted replica that never loaded them
		s.trips.Add(1)
		v, err = eval(ctx, s.client, cmd)
	}
	if err != nil && s.cluster != nil {
		s.cluster.ReloadState(context.Background()) // the slots may have a new primary
	}
	return v, err
}

// down records that tag b did not answer at t, and returns its outage.
func (s *Store) down(b int, t algo.Instant, err error) *Outage {
	node, slot := s.tagShard(b)
	s.fo.Lock()
	defer s.fo.Unlock()
	if o := s.fo.byTag[b]; o != nil {
		return o
	}
	if node == "" {
		node = s.url
	}
	o := s.fo.byNode[node]
	if o == nil {
		o = &Outage{Node: node, From: t, Reason: reason(err).Error(), open: map[int]bool{},
			unsent: map[string]int64{}, compared: map[string]bool{}}
		s.fo.all = append(s.fo.all, o)
		if s.fo.byTag == nil {
			s.fo.byTag, s.fo.byNode, s.fo.last = map[int]*Outage{}, map[string]*Outage{}, map[int]*Outage{}
		}
		s.fo.byNode[node] = o
	}
	if s.cluster != nil && !slices.Contains(o.Slots, slot) { // one Redis has no slots
		o.Slots = append(o.Slots, slot)
		slices.Sort(o.Slots)
	}
	o.open[b] = true
	s.fo.byTag[b], s.fo.last[b] = o, o
	return o
}

// up records that tag b answered at t, and returns the last outage of its
// tag (nil: none), closed now if it was open.
func (s *Store) up(b int, t algo.Instant) *Outage {
	s.fo.Lock()
	o := s.fo.byTag[b]
	if o == nil {
		defer s.fo.Unlock()
		return s.fo.last[b]
	}
	delete(s.fo.byTag, b)
	delete(o.open, b)
	o.Answered, o.To = true, max(o.To, t)
	if len(o.open) == 0 {
		delete(s.fo.byNode, o.Node)
	}
	s.fo.Unlock()
	if node, _ := s.tagShard(b); node != "" && node != o.Node {
		s.fo.Lock()
		o.FailedOver = node
		s.fo.Unlock()
	}
	return o
}

// decideOrPolicy is decide on a store under a policy: Redis's answer, or
// the policy's decision when Redis does not give one.
func (l *Limiter) decideOrPolicy(client string, want algo.Decision, b int, cmd []any) algo.Decision {
	s := l.store
	who := fmt.Sprintf("%d\x00%s", l.lane, client)
	v, err := s.call(cmd)
	if err != nil {
		var closed *Error
		if errors.As(err, &closed) && strings.Contains(closed.Reason, "closed") {
			s.fail(err)
			return want
		}
		o := s.down(b, want.At, err)
		l.without++
		s.fo.Lock()
		o.Without++
		if want.Allowed || l.cfg.Rules.CountRejected {
			o.unsent[who]++
		}
		d := want
		d.Allowed = s.policy == PolicyAllow
		switch {
		case d.Allowed && !want.Allowed:
			o.Over++
		case !d.Allowed && want.Allowed:
			o.Under++
		}
		s.fo.Unlock()
		return d
	}
	d, err := decision(l.kind, l.cfg, want.At, v)
	if err != nil {
		s.fail(err)
		return want
	}
	o := s.up(b, want.At)
	if o == nil {
		if d != want {
			s.fail(&MismatchError{Algorithm: l.name, Client: client, Redis: d, Local: want})
		}
		return want
	}
	s.fo.Lock()
	defer s.fo.Unlock()
	if !o.compared[who] {
		o.compared[who] = true
		if missing := tally(want) - tally(d); missing > 0 {
			o.Missing += missing
			o.Unsent += min(missing, o.unsent[who])
		}
	}
	switch {
	case d.Allowed && !want.Allowed:
		o.Over++
	case !d.Allowed && want.Allowed:
		o.Under++
	}
	return d
}

// tally is the increments a decision saw counted before it: the count of
// its window (and the previous one's, for a sliding counter); 0 for a
// token bucket, whose tokens are no count.
func tally(d algo.Decision) int64 {
	switch d.Kind {
	case algo.KindSlidingCounter:
		return d.Count + d.Previous
	case algo.KindTokenBucket:
		return 0
	}
	return d.Count
}

// DecidedWithoutStore is how many of the limiter's decisions were its
// store's policy's, and whether the store has a policy at all.
func (l *Limiter) DecidedWithoutStore() (int64, bool) {
	return l.without, l.store.policy != PolicyStop
}

// OnStoreError is the store's policy's name (stop, allow or deny): a view
// says whose decisions those made without the store were.
func (l *Limiter) OnStoreError() string { return l.store.policy.String() }
