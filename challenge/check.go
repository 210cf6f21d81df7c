package challenge

import (
	"fmt"
	"iter"
	"strings"
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

// MissingError is a goal checked over a scenario that does not run a
// limiter the goal reads, with the lesson's rules.
type MissingError struct {
	Goal Goal
	Kind algo.Kind
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("challenge %d (%s) needs the lesson's %s (%s), which this scenario does not run",
		e.Goal.Number(), e.Goal.Name, strings.ToLower(e.Kind.Title()), e.Kind)
}

// lessonKinds are the limiters a checker follows, when the scenario runs them.
var lessonKinds = [...]algo.Kind{algo.KindFixedWindow, algo.KindSlidingLog, algo.KindSlidingCounter}

const (
	fixedAt = iota
	logAt
	counterAt
)

// Checker follows one scenario's records, in the order the engine decided
// them, and checks one goal over them. Feed it with Add (a record) or
// AddRun (the history's runs), then ask Result; it never goes back: over
// records that changed behind it, start a new one.
type Checker struct {
	goal Goal
	cfg  algo.Config
	at   [len(lessonKinds)]int // each lesson limiter's place in the records, −1 when absent

	clients  map[string]*client
	total    [len(lessonKinds)]*window // every client's admitted together
	best     [len(lessonKinds)]Span    // the most admitted to one client
	sent     Span                      // the most one client sent
	atBest   algo.Decision             // the counter's decision at the last request of best[counterAt]
	decided  int64
	stricter int64      // requests the counter denied and the log allowed
	looser   int64      // and the reverse
	found    *disagreed // the first of the goal's kind
	stopped  bool       // a client past MaxClients came: the rest is not read
}

// MaxClients is the most clients a checker follows: a few hundred bytes
// each. A scenario with more (a replayed access log) is checked up to the
// request of the first client past it, and its Result says so.
const MaxClients = 100_000

// client is what a checker keeps of one client.
type client struct {
	name     string
	admitted [len(lessonKinds)]*window
	sent     *window
	// the counter's windows: the current one's start and count, and the
	// count of the one before it
	win       algo.Instant
	cur, prev int64
}

// disagreed is a request the counter and the log decided differently,
// with each one's decision as the records give it.
type disagreed struct {
	index       int64
	client      string
	counter, lg algo.Decision
}

// NewChecker returns a checker of g over a scenario of configuration cfg
// whose records hold the decisions of algorithms, in that order. The goal
// reads the lesson's limiters (the lesson's rules, one tally): a
// *MissingError when the scenario runs none of one it needs.
func NewChecker(g Goal, cfg algo.Config, algorithms []algo.Algorithm) (*Checker, error) {
	c := &Checker{goal: g, cfg: cfg, clients: map[string]*client{}}
	for k, kind := range lessonKinds {
		c.at[k] = -1
		for i, a := range algorithms {
			if a == (algo.Algorithm{Kind: kind}) && i < sim.MaxLimiters {
				c.at[k] = i
				c.total[k] = newWindow(cfg, "")
				break
			}
		}
	}
	for _, kind := range g.Needs {
		for k, lk := range lessonKinds {
			if lk == kind && c.at[k] < 0 {
				return nil, &MissingError{Goal: g, Kind: kind}
			}
		}
	}
	return c, nil
}

// Goal is the goal checked.
func (c *Checker) Goal() Goal { return c.goal }

// Decided is how many requests the checker has read.
func (c *Checker) Decided() int64 { return c.decided }

// Add reads one record.
func (c *Checker) Add(r sim.Record) {
	var mask uint32
	for i, d := range r.Decisions {
		if d.Allowed && i < sim.MaxLimiters {
			mask |= 1 << i
		}
	}
	c.Observe(r.Arrival.At, r.Arrival.Client, mask, 1)
}

// AddRun reads one run of the history, whose clients are named by clients
// (sim.Engine.Clients).
func (c *Checker) AddRun(r sim.Run, clients []string) {
	c.Observe(r.At, clients[r.Client], r.Allowed, r.N)
}

// AddAll reads records until they end.
func (c *Checker) AddAll(records iter.Seq[sim.Record]) {
	for r := range records {
		c.Add(r)
	}
}

// Observe reads n requests at t from one client, every one decided alike:
// bit i of allowed is set when limiter i of the records allowed them.
func (c *Checker) Observe(t algo.Instant, name string, allowed uint32, n int64) {
	if n <= 0 || c.stopped {
		return
	}
	cl := c.clients[name]
	if cl == nil && len(c.clients) >= MaxClients {
		c.stopped = true
		return
	}
	if cl == nil {
		cl = &client{name: name, sent: newWindow(c.cfg, name)}
		for k := range lessonKinds {
			if c.at[k] >= 0 {
				cl.admitted[k] = newWindow(c.cfg, name)
			}
		}
		c.clients[name] = cl
	}
	index := c.decided
	c.decided += n
	if cl.sent.add(t, n) && cl.sent.best.Count > c.sent.Count {
		c.sent = cl.sent.best
	}
	if win := c.cfg.WindowStart(t); win != cl.win {
		cl.prev = 0
		if win == cl.win+algo.Instant(c.cfg.Window.Milliseconds()) {
			cl.prev = cl.cur
		}
		cl.win, cl.cur = win, 0
	}
	ok := func(k int) bool { return c.at[k] >= 0 && allowed&(1<<c.at[k]) != 0 }
	if c.at[logAt] >= 0 && c.at[counterAt] >= 0 && ok(logAt) != ok(counterAt) {
		c.disagree(index, t, cl, ok(counterAt), n)
	}
	for k := range lessonKinds {
		if !ok(k) {
			continue
		}
		c.total[k].add(t, n)
		if cl.admitted[k].add(t, n) && cl.admitted[k].best.Count > c.best[k].Count {
			c.best[k] = cl.admitted[k].best
			if k == counterAt {
				c.atBest = c.counterDecision(t, cl, cl.cur+n-1, true)
			}
		}
	}
	if ok(counterAt) {
		cl.cur += n
	}
}

// disagree counts n requests the counter and the log decided differently,
// and keeps the first of the goal's kind with both decisions.
func (c *Checker) disagree(index int64, t algo.Instant, cl *client, counterAllowed bool, n int64) {
	if counterAllowed {
		c.looser += n
	} else {
		c.stricter += n
	}
	want := (c.goal.goal == counterStricter && !counterAllowed) || (c.goal.goal == counterLooser && counterAllowed)
	if !want || c.found != nil {
		return
	}
	count, oldest := cl.admitted[logAt].inLast(t)
	c.found = &disagreed{index: index, client: cl.name,
		counter: c.counterDecision(t, cl, cl.cur, counterAllowed),
		lg: algo.Decision{Kind: algo.KindSlidingLog, At: t, Allowed: !counterAllowed, Limit: c.cfg.Limit,
			Window: c.cfg.Window, Count: count, Oldest: oldest}}
}

// counterDecision is the sliding counter's decision at t for a client,
// with cur requests already admitted in the current window.
func (c *Checker) counterDecision(t algo.Instant, cl *client, cur int64, allowed bool) algo.Decision {
	return algo.Decision{Kind: algo.KindSlidingCounter, At: t, Allowed: allowed, Limit: c.cfg.Limit,
		Window: c.cfg.Window, WindowStart: cl.win, Count: cur, Previous: cl.prev,
		Elapsed: time.Duration(t-cl.win) * time.Millisecond}
}

// Most is the most requests kind admitted in any interval one window
// long, to the named client, or to every client together when client is
// "" (zero when the scenario does not run kind, or the client is unknown).
func (c *Checker) Most(kind algo.Kind, client string) Span {
	for k, lk := range lessonKinds {
		switch {
		case lk != kind || c.at[k] < 0:
		case client == "":
			return c.total[k].best
		case c.clients[client] != nil:
			return c.clients[client].admitted[k].best
		}
	}
	return Span{}
}

// MostSent is the most requests the named client sent in any interval one
// window long, whatever was decided.
func (c *Checker) MostSent(client string) Span {
	if cl := c.clients[client]; cl != nil {
		return cl.sent.best
	}
	return Span{}
}
