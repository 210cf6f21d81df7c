package scenarios

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"windowlab/algo"
	"windowlab/human"
)

// scenario reads the top-level mapping.
func (d *decoder) scenario(root ast.Node) *Scenario {
	o := d.object("", root, topFields)
	if o == nil {
		return nil
	}
	base := filepath.Base(d.file)
	s := &Scenario{File: d.file, Name: slugify(strings.TrimSuffix(base, filepath.Ext(base))), Algorithms: lessonAlgorithms()}

	if o.has("name") {
		if name, ok := d.text(o, "name"); ok {
			if !isSlug(name) {
				_, at := o.value("name")
				d.at(at, "name", "%q is not a slug; use lower-case letters, digits and single hyphens, such as %s", truncate(name), slugify(name))
			}
			s.Name = name
		}
	}
	s.Title, _ = d.text(o, "title")
	// A title is one line of the view's header and of the report, even
	// when written as a block (title: >) that ends in a line break.
	s.Title = strings.Join(strings.Fields(s.Title), " ")
	s.Description, _ = d.text(o, "description")

	configOK := d.config(o, s)
	if o.has("speed") {
		s.Speed, _ = d.speed(o, "speed")
	}

	var algorithmItems []ast.Node
	if o.has("algorithms") {
		if items, ok := d.list(o, "algorithms"); ok {
			s.Algorithms, algorithmItems = d.algorithms(items, o), items
		}
	}
	if configOK {
		d.nginxRate(o, s)
	}

	d.servers(o, s)
	d.atomic(o, s)

	trafficOK := false
	if d.rec != nil {
		s.rec, trafficOK = d.rec, true // read before the header, a run a line
	} else if o.has("traffic") {
		if items, ok := d.list(o, "traffic"); ok {
			trafficOK = d.trafficList(s, items, o)
		}
	} else {
		d.missing(o, "traffic", "give a list of requests, such as traffic: [{at: \"12:00:59\", count: 100}]")
	}

	d.zone(o, s, configOK, trafficOK)
	d.presetsFit(algorithmItems, s, configOK) // exact.go
	d.teaching(o, s)
	d.start(o, s, configOK, trafficOK)
	return s
}

// servers reads servers, routing and tally: the scenario's algorithms run
// on that many servers, each with its own tally (local), on one tally the
// servers share (shared), or both side by side (the default).
func (d *decoder) servers(o *object, s *Scenario) {
	if !o.has("servers") {
		for _, k := range []string{"routing", "routing_seed", "tally"} {
			if o.has(k) {
				_, at := o.value(k)
				d.at(at, k, "says how servers share requests or tallies; give servers: too, such as servers: 3")
			}
		}
		return
	}
	n, ok := d.integer(o, "servers", 1, algo.MaxServers, fmt.Sprintf("use a whole number of servers from 1 to %d", algo.MaxServers))
	if !ok {
		return
	}
	routing := algo.RoundRobin
	if o.has("routing") {
		name, _ := d.text(o, "routing")
		if routing, ok = algo.ParseRouting(name); !ok {
			_, at := o.value("routing")
			d.at(at, "routing", "%q is not a routing; use round-robin (each request to the next server), client-hash (a client always to the same server) or random (routing_seed sets the draws)", truncate(name))
			return
		}
	}
	seed := int64(1)
	if o.has("routing_seed") {
		if seed, ok = d.integer(o, "routing_seed", 1, math.MaxInt64, "use a whole number from 1"); !ok {
			return
		}
		if routing != algo.Random {
			_, at := o.value("routing_seed")
			d.at(at, "routing_seed", "sets random routing's draws; give routing: random too")
			return
		}
	}
	tally := "both"
	if o.has("tally") {
		tally, _ = d.text(o, "tally")
		if tally != "local" && tally != "shared" && tally != "both" {
			_, at := o.value("tally")
			d.at(at, "tally", "%q is not a tally; use local (each server its own), shared (one for all) or both", truncate(tally))
			return
		}
	}
	if n < 2 {
		return // one server: one tally, however it is kept
	}
	var out []algo.Algorithm
	for _, a := range s.Algorithms {
		if a.Servers >= 2 {
			out = append(out, a) // named as a fleet already
			continue
		}
		if tally != "local" {
			out = append(out, a)
		}
		if tally != "shared" {
			f := a.Fleet(int(n), routing)
			if routing == algo.Random {
				f.Seed = uint64(seed)
			}
			out = append(out, f)
		}
	}
	if len(out) > 32 {
		_, at := o.value("servers")
		d.at(at, "servers", "makes %d limiters to compare; a scenario compares at most 32: list fewer algorithms", len(out))
		return
	}
	s.Algorithms = out
}

// atomic reads atomic and rtt: atomic: false puts beside each shared
// window limiter the same tally read and written in two round trips, rtt
// apart (2ms unless given), to show the race one script avoids.
func (d *decoder) atomic(o *object, s *Scenario) {
	atomic := true
	if o.has("atomic") {
		atomic, _ = d.boolean(o, "atomic")
	}
	rtt := 2 * time.Millisecond
	if o.has("rtt") {
		var ok bool
		if rtt, ok = d.duration(o, "rtt", 0, algo.MaxRTT); !ok {
			return
		}
		if atomic {
			_, at := o.value("rtt")
			d.at(at, "rtt", "is the time between a racy tally's read and its write; give atomic: false too")
			return
		}
	}
	if atomic {
		return
	}
	var out []algo.Algorithm
	for _, a := range s.Algorithms {
		out = append(out, a)
		if a.Servers < 2 && !a.Racy && a.Kind != algo.KindTokenBucket && a.Kind != algo.KindSegmentedWindow {
			r := a
			r.Racy, r.RTT = true, rtt
			out = append(out, r)
		}
	}
	if len(out) == len(s.Algorithms) {
		_, at := o.value("atomic")
		d.at(at, "atomic", "no shared window limiter to race: a token bucket, a segmented window or a fleet's local tallies have none")
		return
	}
	if len(out) > 32 {
		_, at := o.value("atomic")
		d.at(at, "atomic", "makes %d limiters to compare; a scenario compares at most 32: list fewer algorithms", len(out))
		return
	}
	s.Algorithms = out
}

// zone reads tz: a zone whose calendar the windows align to, at the
// offset it has at the first request; dated traffic only.
func (d *decoder) zone(o *object, s *Scenario, configOK, trafficOK bool) {
	if !o.has("tz") {
		return
	}
	name, ok := d.text(o, "tz")
	if !ok {
		return
	}
	_, at := o.value("tz")
	loc, err := time.LoadLocation(name)
	if err != nil || name == "" || name == "Local" {
		d.at(at, "tz", "%q is not a time zone; give an IANA name such as Europe/Berlin or Asia/Kolkata, or UTC", truncate(name))
		return
	}
	s.Zone = loc
	if s.rec != nil || !configOK || !trafficOK {
		return // a recorded file's offset is set once its runs are read
	}
	first, ok := firstArrival(s)
	if !ok {
		return
	}
	if !first.IsDated() {
		d.at(at, "tz", "aligns dated traffic only (at: \"2026-11-30T23:59:59.250Z\"); a time-of-day scenario's windows are its own day's")
		return
	}
	s.Config.Offset = algo.CalendarOffset(loc, first, s.Config.Window)
}

// config reads the limit, the window and expiry; false when the limiters
// could not be built from them.
func (d *decoder) config(o *object, s *Scenario) bool {
	configOK := true
	if o.has("limit") {
		s.Config.Limit, configOK = d.integer(o, "limit", 1, algo.MaxLimit, "use a whole number of requests per window from 1 to "+human.Int(algo.MaxLimit))
	} else {
		d.missing(o, "limit", "give the requests allowed per window, such as limit: 100")
		configOK = false
	}
	if o.has("window") {
		var ok bool
		s.Config.Window, ok = d.duration(o, "window", time.Millisecond, algo.MaxWindow)
		configOK = configOK && ok
	} else {
		d.missing(o, "window", "give the window length as a duration, such as window: 1m")
		configOK = false
	}
	if o.has("expiry") {
		expiry, _ := d.boolean(o, "expiry")
		s.Config.NoExpiry = !expiry
	}
	if o.has("burst") {
		var ok bool
		s.Config.Burst, ok = d.integer(o, "burst", 1, algo.MaxLimit,
			"use the token bucket's capacity in tokens, a whole number from 1 to "+human.Int(algo.MaxLimit)+" (without it, the limit; token-bucket/nginx reads it as limit_req's burst=, 0 without it)")
		configOK = configOK && ok
	}
	if o.has("delay") {
		var ok bool
		s.Config.Delay, ok = d.integer(o, "delay", 0, algo.MaxLimit,
			"use nginx limit_req's delay=N, a whole number of requests from 0 (the default: every request in excess is delayed) to "+human.Int(algo.MaxLimit))
		configOK = configOK && ok
	}
	configOK = d.segments(o, s) && configOK

	return configOK
}

// segments reads segments:, the segmented window's S; it must split the
// window into whole milliseconds.
func (d *decoder) segments(o *object, s *Scenario) bool {
	if !o.has("segments") {
		return true
	}
	n, ok := d.integer(o, "segments", 1, algo.MaxSegments,
		"use the segments the segmented window splits its window into, a whole number from 1 to "+human.Int(algo.MaxSegments)+" (without it, "+human.Int(algo.DefaultSegments)+", or fewer to divide the window)")
	if !ok {
		return false
	}
	s.Config.Segments = n
	if s.Config.Window <= 0 {
		return true // the window's own error says it
	}
	if err := s.Config.CheckSegments(); err != nil {
		_, at := o.value("segments")
		d.at(at, "segments", "%s", err.(*algo.OptionError).Problem)
		return false
	}
	return true
}

// teaching reads the captions, questions and expectations.
func (d *decoder) teaching(o *object, s *Scenario) {
	if items, ok := d.list(o, "captions"); ok {
		for i, item := range items {
			if c, ok := d.caption(fmt.Sprintf("captions[%d]", i), item, s); ok {
				s.Captions = append(s.Captions, c)
			}
		}
		// Shown by instant, in file order among equals.
		slices.SortStableFunc(s.Captions, func(a, b Caption) int { return cmp.Compare(a.At, b.At) })
	}
	if items, ok := d.list(o, "questions"); ok {
		for i, item := range items {
			if q, ok := d.question(fmt.Sprintf("questions[%d]", i), item, s); ok {
				s.Questions = append(s.Questions, q)
			}
		}
	}
	if items, ok := d.list(o, "expect"); ok {
		for i, item := range items {
			if e, ok := d.expectation(fmt.Sprintf("expect[%d]", i), item, s, expectFields); ok {
				s.Expect = append(s.Expect, e)
			}
		}
	}
}

// start reads where the clock starts, or puts it at the window edge at or
// before the first request.
func (d *decoder) start(o *object, s *Scenario, configOK, trafficOK bool) {
	first, hasFirst := algo.Instant(0), false
	if s.rec != nil {
		// A recorded file's runs come after its header: parseRecorded sets
		// the start, or checks the one given, once it has read them.
		if o.has("start") {
			s.Start, _ = d.clock(o, "start")
		}
		return
	}
	if trafficOK {
		first, hasFirst = firstArrival(s)
	}
	if o.has("start") {
		if start, ok := d.clock(o, "start"); ok {
			s.Start = start
			if hasFirst && start > first {
				_, at := o.value("start")
				d.at(at, "start", "%s is after the first request at %s; start the clock at or before it", start.Short(), first.Short())
			}
		}
	} else if configOK && trafficOK {
		if !hasFirst { // random traffic that happens to make no request
			first = s.Traffic[0].From
			for _, t := range s.Traffic[1:] {
				first = min(first, t.From)
			}
		}
		s.Start = s.Config.WindowStart(first)
	}
}

// algorithms reads the algorithms list: known names, each once, at least one.
func (d *decoder) algorithms(items []ast.Node, o *object) []algo.Algorithm {
	var kinds []algo.Algorithm
	if len(items) == 0 {
		_, at := o.value("algorithms")
		d.at(at, "algorithms", "the list is empty; leave it out for all three, or name some: %s", algorithmChoices(""))
		return lessonAlgorithms()
	}
	for i, item := range items {
		field := fmt.Sprintf("algorithms[%d]", i)
		k, ok := d.algorithm(item, item, field)
		if !ok {
			continue
		}
		if slices.Contains(kinds, k) {
			d.at(item, field, "%s is listed twice; list each algorithm once", k)
			continue
		}
		kinds = append(kinds, k)
	}
	if len(kinds) == 0 {
		return lessonAlgorithms()
	}
	return kinds
}

// speed reads the starting playback speed: a number from MinSpeed to MaxSpeed.
func (d *decoder) speed(o *object, k string) (float64, bool) {
	v, at := o.value(k)
	field := join(o.path, k)
	want := "use a playback speed from " + SpeedRange() + " (times real time), such as speed: 60"
	if !isNumber(v) {
		d.at(at, field, "expected a number, got %s; %s", describe(v), want)
		return 0, false
	}
	r, ok := d.decimal(o, k)
	if !ok {
		return 0, false
	}
	f, _ := r.Float64()
	if f < MinSpeed || f > MaxSpeed {
		d.at(at, field, "%s is out of range; %s", v.GetToken().Value, want)
		return 0, false
	}
	return f, true
}
