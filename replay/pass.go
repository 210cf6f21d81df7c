package replay

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync/atomic"

	"windowlab/algo"
	"windowlab/sim"
)

// A sweep decides the settings that share a window in one pass: one
// engine holds all their limiters (sim.Options.AnyLimits), so the log's
// request, its client's number, the engine's step and the admitted record
// ("most in one window", whose runs the limiters share while they
// agree) are paid once for them all, not once a setting; and the lesson's
// three limiters keep one record a client for every setting while the
// client is under every limit (algo.Trio). Each setting's rows come
// out as if it had had an engine of its own.

// maxPassLimiters bounds the limiters one pass decides: within
// sim.MaxLimiters, and few enough that the admitted record's inline runs,
// which keep a bit for each tracked limiter, still count to 2^18.
const maxPassLimiters = 16

// passes splits the settings, by their index, into the passes that decide
// them: the settings in process that share everything but Limit and Burst
// in one pass, in their order, up to maxPassLimiters limiters; a setting on
// a store alone. While there are fewer passes than cores, the largest of
// those a pass decides a limiter at a time is halved, so that every core
// has one. A pass of the lesson's three limiters (together) stays whole:
// it decides its settings from one record a client while they agree
// (algo.Trio), where a setting more costs far less than a pass more.
func passes(settings []Setting, cores int) [][]int {
	var out [][]int
	open := map[algo.Config]int{} // a window's pass that can take more
	for i, s := range settings {
		key := s.Config
		key.Limit, key.Burst = 0, 0
		if p, ok := open[key]; ok && s.Store == nil && passLimiters(settings, out[p])+len(s.Algorithms) <= maxPassLimiters {
			out[p] = append(out[p], i)
			continue
		}
		if s.Store == nil {
			open[key] = len(out)
		}
		out = append(out, []int{i})
	}
	for len(out) < cores {
		p := -1
		for q := range out {
			if !together(settings, out[q]) && (p < 0 || len(out[q]) > len(out[p])) {
				p = q
			}
		}
		if p < 0 || len(out[p]) < 2 {
			break
		}
		h := len(out[p]) / 2
		out = append(out, out[p][h:])
		out[p] = out[p][:h:h]
	}
	return out
}

// together reports whether a pass decides its settings together, from one
// record a client (algo.Trio): when it has several, each the lesson's
// three limiters, in process, at a configuration a Trio decides.
func together(settings []Setting, pass []int) bool {
	if len(pass) < 2 {
		return false
	}
	for _, i := range pass {
		s := settings[i]
		if _, ok := algo.NewTrio(s.Config); !ok || s.Store != nil || len(s.Algorithms) != len(algo.TrioKinds) {
			return false
		}
		for _, k := range algo.TrioKinds {
			if !slices.Contains(s.Algorithms, algo.Algorithm{Kind: k}) {
				return false
			}
		}
	}
	return true
}

// passLimiters is how many limiters the settings of a pass decide with.
func passLimiters(settings []Setting, pass []int) int {
	n := 0
	for _, i := range pass {
		n += len(settings[i].Algorithms)
	}
	return n
}

// pick is the settings of a pass.
func pick(settings []Setting, pass []int) []Setting {
	out := make([]Setting, len(pass))
	for j, i := range pass {
		out[j] = settings[i]
	}
	return out
}

// passEngine is an engine deciding the settings at once: one setting's
// as Engine makes it, several's their limiters in turn, setting by
// setting. On an error it also says which setting's limiters failed.
func passEngine(ctx context.Context, src sim.Source, settings []Setting) (*sim.Engine, int, error) {
	if len(settings) == 1 {
		e, err := FiguresEngine(ctx, src, settings[0], nil)
		return e, 0, err
	}
	var ls []algo.Limiter
	for j, s := range settings {
		l, err := s.setup().Limiters()
		if err != nil {
			return nil, j, err
		}
		ls = append(ls, l...)
	}
	stop := func(int64) bool { return ctx.Err() != nil }
	// FiguresOnly: a pass reads each decision's Allowed and the figures,
	// so the default settings are decided together (algo.Trio).
	figuresOnly := !slices.ContainsFunc(settings, func(s Setting) bool { return s.Store != nil })
	e, err := sim.New(src, ls, sim.Options{ForwardOnly: true, Interrupt: stop, AnyLimits: true, FiguresOnly: figuresOnly})
	return e, 0, err
}

// replayPass replays the whole log at the settings of one pass and counts,
// for each limiter, the denials of each client and what it allowed when:
// each setting's rows, or, where it failed, its error; the rows are nil
// when ctx ended first. decided counts a request once for each setting.
func replayPass(ctx context.Context, src sim.Source, settings []Setting, decided *atomic.Int64) ([][]Outcome, []error) {
	out, errs := make([][]Outcome, len(settings)), make([]error, len(settings))
	e, failed, err := passEngine(ctx, src, settings)
	if err != nil {
		errs[failed] = err
		return out, errs
	}
	each := int64(len(settings))
	// By the clients' numbers in the log: a few bytes a client, where maps
	// took some 170 (Memory counts them).
	deniedBy := make([][]int32, len(e.Limiters()))
	// What each limiter allowed, when: a request every one allowed, most
	// of them, counted once (a histogram a limiter cost a sixth of a
	// sweep's deciding), the others in each one's that did.
	allowed := make([]histogram, len(e.Limiters()))
	var sent, allAllow histogram
	var names []string // the clients denied, by their number in the log
	var counted int64
	defer func() {
		if decided != nil {
			decided.Add((e.Processed() - counted) * each)
		}
	}()
	for n := int64(0); ; n++ {
		r, ok := e.StepNumbered() // the name looked up only for a client denied first
		if !ok {
			break
		}
		if n%4096 == 0 && n > 0 {
			if decided != nil {
				decided.Add((n - counted) * each)
				counted = n
			}
			if ctx.Err() != nil {
				return out, errs
			}
		}
		sent.add(r.Arrival.At)
		if allAllowed(r.Decisions) {
			allAllow.add(r.Arrival.At)
			continue
		}
		for k := range r.Decisions {
			if r.Decisions[k].Allowed { // by index: a Decision is some hundred bytes
				allowed[k].add(r.Arrival.At)
				continue
			}
			c := int(r.Arrival.Number - 1) // the log numbers its clients from 1
			deniedBy[k], names = reach(deniedBy[k], c), reach(names, c)
			deniedBy[k][c]++
			if names[c] == "" {
				names[c] = e.Name(r.Arrival)
			}
		}
	}
	stats := e.Stats()
	k := 0
	for j, s := range settings {
		out[j] = make([]Outcome, 0, len(s.Algorithms))
		for range s.Algorithms {
			out[j] = append(out[j], outcome(s, stats[k], allAllow.plus(allowed[k]), sent, deniedBy[k], names))
			k++
		}
	}
	return out, errs
}

// allAllowed reports whether every limiter allowed the request.
func allAllowed(ds []algo.Decision) bool {
	for k := range ds { // by index: a Decision is some hundred bytes
		if !ds[k].Allowed {
			return false
		}
	}
	return true
}

// outcome is one limiter's row at setting s: its figures, and the clients
// it denied, by their number, counted.
func outcome(s Setting, st sim.Stats, allowed, sent histogram, deniedBy []int32, names []string) Outcome {
	o := Outcome{setting: s, stats: st, allowed: allowed, sent: sent}
	mostFirst := func(a, b denied) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.client, b.client)) }
	for c, n := range deniedBy {
		if n == 0 {
			continue
		}
		o.affected++
		// The five denied most, kept as they are met: not a list of every client.
		d := denied{names[c], int64(n)}
		if i, _ := slices.BinarySearchFunc(o.top, d, mostFirst); i < 5 {
			o.top = slices.Insert(o.top, i, d)[:min(len(o.top)+1, 5)]
		}
	}
	return o
}
