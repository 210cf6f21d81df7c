// Package quiz is the lesson's "check yourself": its two questions, new
// ones of the same kinds generated with new numbers, the questions blocks
// of scenario files, how a typed answer is matched, the replay that proves
// each answer, and the printed handout.
//
// Every answer is read off a replay of the question's own scenario: the
// generator picks the traffic and asks the engine, it never works an
// answer out itself. The interactive view renders these items as they are;
// the scenario file format (scenarios) knows nothing of a quiz beyond its
// questions block.
package quiz

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"

	"windowlab/human"
	"windowlab/scenarios"
	"windowlab/sim"
)

// Kind says where a question comes from, and for a generated one, which of
// the lesson's questions it is a variation on.
type Kind uint8

const (
	FromScenario Kind = iota // a scenario file's questions block
	FromLesson               // the lesson's own check-yourself questions
	GenThrough               // how many of two bursts around an edge get through
	GenEstimate              // the sliding counter's estimate at an instant
	GenVerdict               // whether the sliding counter allows a request
	GenWeight                // the overlap weight at an instant
)

// Item is one question and the scenario whose replay proves its answer.
type Item struct {
	scenarios.Question
	Kind     Kind
	From     string // where the question comes from, in words: "the lesson", "generated", a scenario's name
	Scenario *scenarios.Scenario
}

// Quiz is a list of questions, deterministic for its seed.
type Quiz struct {
	Seed  uint64
	Items []Item
	// Again is the command line that asks the same questions, as a
	// handout prints it; empty, it is windowlab quiz --seed Seed.
	Again string
}

// stream is the second half of the quiz's PCG seed.
const stream = 0x5851f42d4c957f2d

// MaxCount bounds how many questions one quiz may generate.
const MaxCount = 200

// Lesson returns the lesson's two check-yourself questions: the bursts at
// 12:00:58 and 12:01:02, and what the 0.75 represents. They live in the
// built-in scenarios that replay them.
func Lesson() []Item {
	var items []Item
	for _, name := range []string{"check-yourself-1", "worked-example"} {
		s, err := scenarios.Builtin(name)
		if err != nil {
			panic(err) // embedded; a test keeps this from shipping
		}
		items = append(items, Item{Question: s.Questions[0], Kind: FromLesson, From: "the lesson", Scenario: s})
	}
	return items
}

// Of returns a scenario's questions block as quiz items.
func Of(s *scenarios.Scenario) []Item {
	items := make([]Item, len(s.Questions))
	for i, q := range s.Questions {
		items[i] = Item{Question: q, Kind: FromScenario, From: s.Name, Scenario: s}
	}
	return items
}

// New puts items in a quiz: the choices of every multiple-choice question
// are shuffled, the same way for the same seed, so the right answer is not
// always the first.
func New(seed uint64, items []Item) Quiz {
	rng := rand.New(rand.NewPCG(seed, stream^1))
	out := make([]Item, len(items))
	for i, it := range items {
		if len(it.Choices) > 0 {
			it.Choices = slices.Clone(it.Choices)
			rng.Shuffle(len(it.Choices), func(a, b int) { it.Choices[a], it.Choices[b] = it.Choices[b], it.Choices[a] })
		}
		out[i] = it
	}
	return Quiz{Seed: seed, Items: out}
}

// Shuffled returns items with the choices of every multiple-choice
// question in an order drawn from seed and the question itself (its
// scenario and its words): the same seed puts a question's choices the
// same way wherever it is asked, and over seeds the answer is at every
// position alike, where New's order depends on the questions before it.
// A view's check-yourself (k) shuffles its scenario's questions so.
func Shuffled(seed uint64, items []Item) []Item {
	out := slices.Clone(items)
	for i, it := range out {
		if len(it.Choices) < 2 {
			continue
		}
		h := fnv.New64a()
		if it.Scenario != nil {
			h.Write([]byte(it.Scenario.Name))
		}
		h.Write([]byte{0})
		h.Write([]byte(it.Ask))
		rng := rand.New(rand.NewPCG(seed, h.Sum64()))
		out[i].Choices = slices.Clone(it.Choices)
		rng.Shuffle(len(it.Choices), func(a, b int) { out[i].Choices[a], out[i].Choices[b] = out[i].Choices[b], out[i].Choices[a] })
	}
	return out
}

// Make assembles a quiz: the questions of sources (or, with none, the
// lesson's two check-yourself questions), then count generated ones.
func Make(seed uint64, count int, sources []*scenarios.Scenario) (Quiz, error) {
	if count < 0 || count > MaxCount {
		return Quiz{}, fmt.Errorf("--count %d is out of range; ask for 0 to %d generated questions", count, MaxCount)
	}
	var items []Item
	if len(sources) == 0 {
		items = Lesson()
	}
	for _, s := range sources {
		if len(s.Questions) == 0 {
			return Quiz{}, fmt.Errorf("%s has no questions; add a questions: block (see the README) or leave it out", s.File)
		}
		items = append(items, Of(s)...)
	}
	generated, err := Generate(seed, count)
	if err != nil {
		return Quiz{}, err
	}
	return New(seed, append(items, generated...)), nil
}

// Typed reports whether the question wants a typed answer rather than a
// choice.
func (it Item) Typed() bool { return len(it.Choices) == 0 }

// Check reports whether given answers the question: a choice must be the
// right one word for word; a typed answer is compared by Matches.
func (it Item) Check(given string) bool {
	if !it.Typed() {
		return given == it.Answer
	}
	return given == it.Answer || Matches(it.Answer, given)
}

// Proof replays the item's scenario to the instant that proves its answer
// and says what the engine decided there (see ProofAt). It is empty for a
// question with neither an instant nor an algorithm.
func (it Item) Proof() ([]string, error) {
	proofs, err := Proofs(context.Background(), []Item{it})
	return proofs[0], err
}

// Proofs is every item's Proof, from one replay of each scenario: its
// questions are proved in the order of their instants (those about the
// whole replay last), so a file of many questions costs one replay, not
// one each. It stops when ctx ends, returning the proofs made so far and
// ctx's cause.
func Proofs(ctx context.Context, items []Item) ([][]string, error) {
	proofs := make([][]string, len(items))
	var order []*scenarios.Scenario
	byScenario := map[*scenarios.Scenario][]int{}
	for i, it := range items {
		if it.Scenario == nil || (!it.HasAt && !it.HasAlgorithm) {
			continue
		}
		if _, seen := byScenario[it.Scenario]; !seen {
			order = append(order, it.Scenario)
		}
		byScenario[it.Scenario] = append(byScenario[it.Scenario], i)
	}
	for _, s := range order {
		questions := byScenario[s]
		slices.SortStableFunc(questions, func(a, b int) int {
			x, y := items[a], items[b]
			if x.HasAt != y.HasAt {
				if x.HasAt {
					return -1
				}
				return 1
			}
			return cmp.Compare(x.At, y.At)
		})
		e, err := s.Engine(sim.Options{ForwardOnly: true, Interrupt: sim.Until(ctx)})
		if err != nil {
			return proofs, err
		}
		for _, i := range questions {
			if it := items[i]; it.HasAt {
				e.Seek(it.At)
			} else {
				e.RunToEnd()
			}
			if e.Interrupted() {
				return proofs, context.Cause(ctx)
			}
			last, hasLast := e.Last()
			proofs[i] = items[i].ProofAt(e.Stats(), last, hasLast)
		}
	}
	return proofs, nil
}

// ProofAt says, from a replay standing at the question's instant (or at the
// end of the replay, for a question without one), what proves the answer:
// one sentence for the question's limiter, or for each limiter when it
// names none, with its totals and the arithmetic of its last decision,
// every figure of it named (what was counted, the weight and where it
// comes from, the limit). Words that must stay on one line are joined by
// human.NoBreak. stats and last are the engine's, in its order.
func (it Item) ProofAt(stats []sim.Stats, last sim.Record, hasLast bool) []string {
	when := "Over the whole replay"
	if it.HasAt {
		when = "By " + it.At.Short()
	}
	var out []string
	for i, st := range stats {
		if it.HasAlgorithm && st.Algorithm != it.Algorithm {
			continue
		}
		p := fmt.Sprintf("%s the %s allowed %s and denied %s", when, lowerFirst(st.Algorithm.Title()), requests.Of(st.Allowed), human.Int(st.Denied))
		if hasLast && i < len(last.Decisions) {
			p += fmt.Sprintf("; its last decision, on %s's request at %s: %s", human.Visible(last.Arrival.Client), last.Arrival.At.Short(), explained(last.Decisions[i]))
		}
		out = append(out, p+".")
	}
	return out
}

// lowerFirst lower-cases a title's first letter, for the middle of a
// sentence: "the sliding window counter · go-chi/httprate".
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
