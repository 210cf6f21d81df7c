package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"windowlab/algo"
	"windowlab/human"
)

var trafficFields = []string{"at", "count", "client", "from", "to", "every", "rate", "clients", "seed"}

// trafficList reads every traffic entry and checks the total request count
// against MaxRequests before anything is generated.
func (d *decoder) trafficList(s *Scenario, items []ast.Node, o *object) bool {
	if len(items) == 0 {
		_, at := o.value("traffic")
		d.at(at, "traffic", "the list is empty; give at least one entry, such as {at: \"12:00:59\", count: 100}")
		return false
	}
	ok := true
	var total float64
	var clients int64
	for i, item := range items {
		path := fmt.Sprintf("traffic[%d]", i)
		t, entryOK := d.traffic(path, item)
		if !entryOK {
			ok = false
			continue
		}
		total += t.expected()
		if total > MaxRequests {
			d.at(item, path, "brings the scenario to about %s requests; a scenario may make at most %s in all",
				human.Int(int64(total)), human.Int(MaxRequests))
			ok = false
			total = math.Inf(-1) // report the crossing once
		}
		if t.Shape == Random {
			// Each random client's name is built once for the replay, so the
			// clients, not the requests, bound its memory.
			clients += int64(t.Clients)
			if clients > MaxClients {
				d.at(item, path, "brings the scenario to %s clients of random traffic; a scenario may have at most %s in all",
					human.Int(clients), human.Int(MaxClients))
				ok = false
				clients = math.MinInt64 / 2 // report the crossing once
			}
		}
		s.Traffic = append(s.Traffic, t)
	}
	return ok
}

// expected is the entry's request count (for random traffic, its mean).
func (t *Traffic) expected() float64 {
	switch t.Shape {
	case Burst, Spread:
		return float64(t.Count)
	case Stream:
		every := int64(t.Every / time.Millisecond)
		return float64((int64(t.To-t.From) + every - 1) / every)
	}
	return t.Rate * float64(t.To-t.From) / 1000
}

// traffic reads one entry, working out its shape from which fields it has.
func (d *decoder) traffic(path string, n ast.Node) (Traffic, bool) {
	var t Traffic
	o := d.object(path, n, trafficFields)
	if o == nil {
		return t, false
	}
	t.Line, t.Column = nodePos(n)
	nerr := len(d.errs)
	shape, ok := d.shape(path, n, o)
	if !ok {
		return t, false
	}
	t.Shape = shape
	t.Client = "client-1"
	if t.Shape == Random {
		t.Client = "client"
	}
	if o.has("client") {
		t.Client, _ = d.name(o, "client")
	}
	if t.Shape == Burst {
		t.At, _ = d.clock(o, "at")
		t.Count = 1
		if o.has("count") {
			t.Count, _ = d.integer(o, "count", 1, MaxRequests, countRange)
		}
		return t, len(d.errs) == nerr
	}
	d.span(path, o, &t)
	switch t.Shape {
	case Spread:
		t.Count, _ = d.integer(o, "count", 1, MaxRequests, countRange)
	case Stream:
		d.stream(path, o, &t, nerr)
	case Random:
		d.random(path, o, &t, nerr)
	}
	return t, len(d.errs) == nerr
}

// countRange is what a request count may be.
var countRange = "use a whole number from 1 to " + human.Int(MaxRequests)

// shape works out a traffic entry's shape from the fields it has, and
// rejects the fields that belong to another shape.
func (d *decoder) shape(path string, n ast.Node, o *object) (Shape, bool) {
	hasRange := o.has("from") || o.has("to")
	shapes := []string{}
	for _, k := range []string{"count", "every", "rate"} {
		if o.has(k) {
			shapes = append(shapes, k)
		}
	}
	var shape Shape
	switch {
	case o.has("at") && hasRange:
		d.at(n, path, "mixes a burst (`at`) with a time span (`from`, `to`); use `at` for requests at one instant, or `from` and `to` for requests over a span")
		return 0, false
	case o.has("at"):
		for _, k := range []string{"every", "rate", "clients", "seed"} {
			if o.has(k) {
				d.at(o.vals[k].Key, join(path, k), "a burst (`at`) takes only `at`, `count` and `client`; `%s` needs `from` and `to`", k)
			}
		}
		return Burst, true
	case !hasRange:
		d.at(n, path, "needs `at` (requests at one instant) or `from` and `to` (requests over a span)")
		return 0, false
	case len(shapes) == 0:
		d.at(n, path, "a span needs one of `count` (spread evenly), `every` (a steady stream) or `rate` (random arrivals)")
		return 0, false
	case len(shapes) > 1:
		d.at(n, path, "gives both %s; choose one: `count` spreads requests evenly, `every` makes a steady stream, `rate` makes random arrivals", quoteList(shapes, "and"))
		return 0, false
	case shapes[0] == "count":
		shape = Spread
	case shapes[0] == "every":
		shape = Stream
	default:
		return Random, true
	}
	for _, k := range []string{"clients", "seed"} {
		if o.has(k) {
			d.at(o.vals[k].Key, join(path, k), "`%s` applies only to random arrivals (`rate`)", k)
		}
	}
	return shape, true
}

// span reads a traffic entry's [from, to).
func (d *decoder) span(path string, o *object, t *Traffic) {
	fromOK, toOK := false, false
	if o.has("from") {
		t.From, fromOK = d.clock(o, "from")
	} else {
		d.missing(o, "from", "a span needs `from` and `to`")
	}
	if o.has("to") {
		t.To, toOK = d.clock(o, "to")
	} else {
		d.missing(o, "to", "a span needs `from` and `to` (`to` is exclusive)")
	}
	if fromOK && toOK && t.To <= t.From {
		_, at := o.value("to")
		d.at(at, join(path, "to"), "%s is not after from (%s); the span [from, to) must not be empty", t.To.Short(), t.From.Short())
	}
}

// stream reads a steady stream's period, and checks the requests it makes;
// nerr is the error count before the entry.
func (d *decoder) stream(path string, o *object, t *Traffic, nerr int) {
	t.Every, _ = d.duration(o, "every", time.Millisecond, 24*time.Hour)
	if len(d.errs) == nerr && t.expected() > MaxRequests {
		_, at := o.value("every")
		d.at(at, join(path, "every"), "one request every %s from %s to %s makes %s requests; a scenario may make at most %s",
			human.Duration(t.Every), t.From.Short(), t.To.Short(), human.Int(int64(t.expected())), human.Int(MaxRequests))
	}
}

// random reads random arrivals' rate, clients and seed, and checks the
// requests they make on average; nerr is the error count before the entry.
func (d *decoder) random(path string, o *object, t *Traffic, nerr int) {
	t.Rate, _ = d.rate(o, "rate")
	t.Clients = 1
	if o.has("clients") {
		c, _ := d.integer(o, "clients", 1, MaxClients, "use a whole number from 1 to "+human.Int(MaxClients))
		t.Clients = int(c)
	}
	t.Seed = 1
	if o.has("seed") {
		t.Seed, _ = d.integer(o, "seed", math.MinInt64, math.MaxInt64, "use a whole number")
	}
	if len(d.errs) == nerr && t.expected() > MaxRequests {
		_, at := o.value("rate")
		d.at(at, join(path, "rate"), "%s requests a second from %s to %s makes about %s requests; a scenario may make at most %s",
			human.Number(t.Rate), t.From.Short(), t.To.Short(), human.Int(int64(t.expected())), human.Int(MaxRequests))
	}
}

// rate reads requests per second: a positive number or a string like "50/s".
func (d *decoder) rate(o *object, k string) (float64, bool) {
	v, at := o.value(k)
	field := join(o.path, k)
	var r float64
	if num, _, isNum := yamlNumber(v); isNum {
		r, _ = num.Float64()
	} else if str, isStr := v.(*ast.StringNode); isStr && !looksNumeric(v) {
		var msg string
		if r, msg = parseRate(str.Value); msg != "" {
			d.at(at, field, "%s", msg)
			return 0, false
		}
	} else if looksNumeric(v) {
		d.at(at, field, "%s", notYAML12(v))
		return 0, false
	} else {
		d.at(at, field, "expected a rate such as 50 (per second), \"50/s\" or \"3000/m\", got %s", describe(v))
		return 0, false
	}
	if !(r > 0) || math.IsInf(r, 0) {
		d.at(at, field, "%s is not a positive rate; use more than 0 requests per second", v.GetToken().Value)
		return 0, false
	}
	return r, true
}

// trafficClients are the clients the traffic names, in file order (random
// traffic's prefixes among them).
func (s *Scenario) trafficClients() []string {
	var out []string
	for _, t := range s.Traffic {
		name := t.Client
		if t.Shape == Random {
			name += "-1"
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// recordedClient reports whether name is one of a recorded file's clients.
func (s *Scenario) recordedClient(name string) bool {
	if s.rec == nil {
		return false
	}
	_, ok := s.rec.index[name]
	return ok
}

// randomClient reports whether name is one of a random entry's clients,
// <prefix>-<k> with k from 1 to its Clients.
func (s *Scenario) randomClient(name string) bool {
	for _, t := range s.Traffic {
		if t.Shape != Random {
			continue
		}
		if k, err := strconv.Atoi(strings.TrimPrefix(name, t.Client+"-")); err == nil && strings.HasPrefix(name, t.Client+"-") && k >= 1 && k <= t.Clients {
			return true
		}
	}
	return false
}

// firstArrival is the earliest request of any entry, without building the
// whole source (which would count random traffic to the end).
func firstArrival(s *Scenario) (algo.Instant, bool) {
	first, found := algo.Instant(0), false
	for i := range s.Traffic {
		g := newGen(s, i, true)
		if g.first() && (!found || g.at < first) {
			first, found = g.at, true
		}
	}
	return first, found
}
