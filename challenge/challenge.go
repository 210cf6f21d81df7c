// Package challenge holds the goals a student reaches by making traffic:
// beat the fixed window at its edge, get the most the sliding counter can
// ever admit through it, fail to beat the sliding log, make the counter and
// the log disagree. Each goal is checked over the records of a scenario
// (sim.Record, or the history's runs), with a progress figure, the proof
// when it is reached (the moments and counts the records hold) and a hint.
//
// It sits at the top level, beside quiz and not under sim, for the reason
// quiz does: it is a way of teaching with the engine's records, read by the
// view, the commands and (later) the classroom, and decides nothing itself.
// Nothing here reads the wall clock: when a hint is due is the caller's.
package challenge

import (
	"fmt"
	"strconv"
	"time"

	"windowlab/algo"
)

// Lesson is the lesson's numbers, at which every challenge is set unless a
// scenario says otherwise: 100 requests per 60 s.
var Lesson = algo.Config{Limit: 100, Window: time.Minute}

// Goal is one challenge.
type Goal struct {
	Name  string // its stable name: "counter-max"
	Title string // a few words for the list
	// Needs are the lesson's limiters its check reads.
	Needs []algo.Kind
	// HintAfter is how many changes of the traffic the student makes before
	// the hint shows; HintWait how long the view waits for it otherwise.
	HintAfter int
	HintWait  time.Duration
	goal      goal
}

// goal is what tells one challenge from another.
type goal uint8

const (
	boundaryBurst goal = iota
	counterMax
	logHolds
	counterStricter
	counterLooser
)

// Goals are the challenges, in the order a student meets them.
var Goals = []Goal{
	{Name: "boundary-burst", Title: "Beat the fixed window at its edge", goal: boundaryBurst,
		Needs: []algo.Kind{algo.KindFixedWindow}},
	{Name: "counter-max", Title: "The most through the sliding counter", goal: counterMax,
		Needs: []algo.Kind{algo.KindSlidingCounter}},
	{Name: "log-holds", Title: "Try to beat the sliding log", goal: logHolds,
		Needs: []algo.Kind{algo.KindSlidingLog}},
	{Name: "counter-stricter", Title: "The counter denies what the log allows", goal: counterStricter,
		Needs: []algo.Kind{algo.KindSlidingCounter, algo.KindSlidingLog}},
	{Name: "counter-looser", Title: "The counter allows what the log denies", goal: counterLooser,
		Needs: []algo.Kind{algo.KindSlidingCounter, algo.KindSlidingLog}},
}

func init() {
	for i := range Goals {
		Goals[i].HintAfter, Goals[i].HintWait = 6, 2*time.Minute
	}
}

// Lookup finds a goal by its number in Goals (from 1) or its name.
func Lookup(s string) (Goal, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		if n >= 1 && n <= len(Goals) {
			return Goals[n-1], true
		}
		return Goal{}, false
	}
	for _, g := range Goals {
		if g.Name == s {
			return g, true
		}
	}
	return Goal{}, false
}

// Number is the goal's number in Goals, from 1.
func (g Goal) Number() int {
	for i, o := range Goals {
		if o.Name == g.Name {
			return i + 1
		}
	}
	return 0
}

// Most is the most requests the counter can admit to one client in any
// interval one window long, limit L and window W ms: 2L − ⌊2L/W⌋ (L when
// W is 1 ms, where every such interval is one window), as algo's property
// tests derive it and hold it: 200 at the lesson's numbers.
func Most(cfg algo.Config) int64 {
	l, w := cfg.Limit, cfg.Window.Milliseconds()
	if w <= 1 {
		return l
	}
	return 2*l - 2*l/w
}

// within writes a window's length as a sentence gives it: "60 s", "3ms".
func within(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return d.String()
}

// Statement says what the goal asks, at cfg's numbers.
func (g Goal) Statement(cfg algo.Config) string {
	l, w := cfg.Limit, within(cfg.Window)
	switch g.goal {
	case boundaryBurst:
		return fmt.Sprintf("Get more than %d requests from one client through the fixed window within %s: it allows %d per window.", l, w, l)
	case counterMax:
		return fmt.Sprintf("Get as many requests from one client as you can through the sliding counter within %s. The most it can ever let through is %d.", w, Most(cfg))
	case logHolds:
		return fmt.Sprintf("Try to get more than %d requests from one client through the sliding log within %s: send more than %d within %s, any way you like.", l, w, l, w)
	case counterStricter:
		return "Make the sliding counter deny a request that the sliding log allows."
	default:
		return "Make the sliding counter allow a request that the sliding log denies."
	}
}

// Hint is the nudge shown once the student has tried a while.
func (g Goal) Hint(cfg algo.Config) string {
	switch g.goal {
	case boundaryBurst:
		return fmt.Sprintf("The fixed window's count starts again at 0 at every edge. Spend its %d just before an edge, and again just after it.", cfg.Limit)
	case counterMax:
		return "The counter weighs the previous window's count as if its requests were spread evenly. Send them all in its last millisecond, then fill the next window just before it ends."
	case logHolds:
		return "Try the burst that beats the fixed window: the limit just before an edge and again just after it. The log counts back one window from each request, wherever the edges are."
	case counterStricter:
		return "Send a window's requests at its very start. Early in the next window the log has forgotten them; the counter still weighs them nearly in full."
	default:
		return "Send a window's requests at its very end. Halfway through the next window the log still counts them all; the counter weighs them at half."
	}
}
