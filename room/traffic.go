package room

import (
	"errors"
	"fmt"
	"time"

	"windowlab/algo"
)

// Traffic is what a teacher's view made at the clock (bursts, single
// requests, streams, less what undo took away) and the rules it is decided
// under (the scenario's, or a what-if's: e and the live knobs), so that a
// following view decides the same arrivals to the same records. A Position
// carries the teacher's; it is never changed once published (the room and
// every follower share it), and a change is a new one.
type Traffic struct {
	Scenario   string // the scenario the traffic was made in, before any what-if
	Name       string // the name of the scenario on screen: Scenario's, or its what-if's
	Config     algo.Config
	Algorithms []algo.Algorithm
	Added      []Addition // in the order they were made
}

// Addition is one burst (Count requests at At) or one stretch of a stream
// (a request every Every in [From, To)) of one client.
type Addition struct {
	Client   string
	At       algo.Instant
	Count    int64 // a burst's requests; 0 for a stream
	From, To algo.Instant
	Every    time.Duration
}

// The room's budget for traffic made at the clock. A view refuses an
// addition past MaxAdditions; MaxRequests is the budget that bounds a
// scenario file (scenarios.MaxRequests, which ui's tests hold equal).
// Check refuses anything larger, so that what a room holds and hands on
// stays small: about 100 bytes an addition, shared by every follower.
const (
	MaxAdditions = 1000
	MaxRequests  = 50_000_000
)

// Check reports what makes t more than a room carries, or not traffic a
// view could have made: too many additions, a burst of no requests, a
// stream of no span or not in whole milliseconds, more requests than a
// scenario may hold. It counts; it never expands a stream.
func (t *Traffic) Check() error {
	if t == nil {
		return nil
	}
	if len(t.Added) > MaxAdditions {
		return fmt.Errorf("%d additions; a room carries at most %d", len(t.Added), MaxAdditions)
	}
	if len(t.Algorithms) == 0 || len(t.Algorithms) > 32 { // a scenario compares at most 32
		return fmt.Errorf("%d limiters to compare", len(t.Algorithms))
	}
	var total int64
	for _, a := range t.Added {
		n := a.Count
		if a.Count == 0 {
			if a.Every < time.Millisecond || a.Every%time.Millisecond != 0 || a.To <= a.From || a.To-a.From < 0 {
				return errors.New("a stream that is not whole milliseconds over a span")
			}
			every := int64(a.Every / time.Millisecond)
			n = (int64(a.To-a.From) + every - 1) / every
		}
		switch {
		case n < 1:
			return fmt.Errorf("a burst of %d requests", n)
		case n > MaxRequests-total:
			return fmt.Errorf("more than %d requests", MaxRequests)
		}
		total += n
	}
	return nil
}
