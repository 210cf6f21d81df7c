package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// A pipelined store's queues: one on one Redis; on a cluster one a
// primary (as the cluster was when the store opened), each with its own
// sender and checker, so a primary that answers first is sent its next
// batch at once rather than waiting for the slowest. Every tag's calls go
// through one queue, in order, whichever node serves its slot later (a
// failover): a client's calls are never reordered.

// queue is the scripts queued for one sender, and the sender's channels.
type queue struct {
	pipe    redis.Pipeliner
	checks  []func(any) error
	batches chan batch    // to the sender
	sender  chan struct{} // closed when the sender has stopped
}

// batch is a pipeline of scripts and the checks of their answers, in order.
type batch struct {
	pipe   redis.Pipeliner
	checks []func(any) error
}

// startPipeline starts a pipelined store's senders, one a queue.
func (s *Store) startPipeline() {
	if !s.pipelined {
		return
	}
	s.queueOf = make([]int, len(s.tags))
	n := 1
	if s.cluster != nil && len(s.primaries) > 1 {
		n = len(s.primaries)
		index := map[string]int{}
		for i, p := range s.primaries {
			index[p] = i
		}
		for b := range s.tags {
			node, _ := s.tagShard(b)
			s.queueOf[b] = index[node] // a node not among them (it changed since): the first queue
		}
	}
	for range n {
		q := &queue{pipe: s.client.Pipeline(), batches: make(chan batch, 1), sender: make(chan struct{})}
		s.queues = append(s.queues, q)
		go s.send(q)
	}
}

// queue queues one call under tag b; its batch goes when it is full.
// The batch's Exec has its own deadline.
func (s *Store) queue(b int, cmd []any, check func(any) error) {
	q := s.queues[s.queueOf[b]]
	_ = q.pipe.Process(context.Background(), scriptCmd(context.Background(), cmd))
	q.checks = append(q.checks, check)
	if len(q.checks) >= Batch {
		s.hand(q)
	}
}

// hand gives q's batch to its sender (waiting while it still has one
// queued: at most two batches a queue are ever on their way) and starts a
// new one.
func (s *Store) hand(q *queue) {
	s.inFlight.Add(1)
	q.batches <- batch{pipe: q.pipe, checks: q.checks}
	q.pipe, q.checks = s.client.Pipeline(), nil
}

// send is q's sender: each batch sent in order, and handed with its
// answers to the checker, which checks them while the next is on its way:
// Redis waits on neither windowlab's checks nor its next batch.
func (s *Store) send(q *queue) {
	defer close(q.sender)
	answered := make(chan answers, 1)
	checked := make(chan struct{})
	go s.verify(answered, checked)
	defer func() { close(answered); <-checked }()
	for b := range q.batches {
		if s.Err() == nil && s.begin() {
			cmds := s.exec(b)
			s.end()
			if cmds != nil {
				answered <- answers{cmds: cmds, checks: b.checks}
				continue
			}
		}
		s.inFlight.Done()
	}
}

// answers are a batch's answers and their checks, in order.
type answers struct {
	cmds   []redis.Cmder
	checks []func(any) error
}

// verify is a checker: every answer checked, in order, until answered
// is closed; then it closes checked.
func (s *Store) verify(answered <-chan answers, checked chan<- struct{}) {
	defer close(checked)
	for a := range answered {
		for i, c := range a.cmds {
			v, err := c.(*redis.Cmd).Result()
			if err != nil {
				s.fail(&Error{URL: s.url, Reason: reason(err).Error()})
				break
			}
			if err := a.checks[i](v); err != nil {
				s.fail(err)
				break
			}
		}
		s.inFlight.Done()
	}
}

// exec sends a batch and returns its answers, or nil when it failed.
func (s *Store) exec(b batch) []redis.Cmder {
	ctx, cancel := s.ctx()
	defer cancel()
	cmds, err := b.pipe.Exec(ctx)
	s.trips.Add(1)
	if err != nil && len(cmds) == 0 {
		s.fail(&Error{URL: s.url, Reason: reason(err).Error()})
		return nil
	}
	return s.retryNoScript(ctx, cmds)
}
