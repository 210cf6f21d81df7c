package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"windowlab/human"
	"windowlab/redisstore"
	"windowlab/sim"
)

// decideStoreFlags adds --store and --on-store-error to cmd.
func decideStoreFlags(cmd *cobra.Command, url, onError *string) {
	storeFlag(cmd, url)
	*onError = "stop"
	cmd.Flags().Var((*policyValue)(onError), "on-store-error",
		"when --store does not answer mid-run (a primary failing over): stop (one line, exit 2), allow (admit without it) or deny (refuse without it); with allow or deny every decision waits for Redis's answer, and what a failover lost is measured against the in-process limiter")
	registerFlagCompletion(cmd, "on-store-error", completeFrom(
		cobra.CompletionWithDesc("stop", "one line, exit 2 (the default)"),
		cobra.CompletionWithDesc("allow", "admit without the store, and go on"),
		cobra.CompletionWithDesc("deny", "refuse without the store, and go on")))
}

// policyValue is --on-store-error's value: one of redisstore.Policies,
// checked as it is given.
type policyValue string

func (p *policyValue) String() string { return string(*p) }
func (p *policyValue) Type() string   { return "stop|allow|deny" }
func (p *policyValue) Set(s string) error {
	if _, err := redisstore.ParsePolicy(s); err != nil {
		return err
	}
	*p = policyValue(s)
	return nil
}

// openStoreFor is openStore under --on-store-error's policy onError:
// with allow or deny, the store is not pipelined (every decision
// reported is Redis's own, or the policy's).
func openStoreFor(ctx context.Context, flag, onError string, pipelined bool) (*redisstore.Store, error) {
	policy, err := redisstore.ParsePolicy(onError)
	if err != nil {
		return nil, invalid(fmt.Errorf("--on-store-error %v", err))
	}
	return openStoreWith(ctx, flag, redisstore.Options{Pipelined: pipelined, OnError: policy})
}

// policySummary is the store summary's lines under a policy: how many
// decisions were made without the store, then one line per outage.
func policySummary(errOut io.Writer, s *redisstore.Store, e *sim.Engine) {
	most := int64(0)
	if e != nil {
		stats := e.Stats()
		for i, l := range e.Limiters() {
			if _, ok := l.(*redisstore.Limiter); ok {
				most = max(most, stats[i].MaxInWindow)
			}
		}
	}
	verb := "admitted"
	if s.Policy() == redisstore.PolicyDeny {
		verb = "refused"
	}
	outs := s.Outages()
	var without int64
	for _, o := range outs {
		without += o.Without
	}
	if len(outs) == 0 {
		fmt.Fprintf(errOut, "Redis answered every call: no decision was made without it (--on-store-error %s).\n", s.Policy())
		return
	}
	fmt.Fprintf(errOut, "Decided without Redis (--on-store-error %s): %s, %s.\n", s.Policy(), plural(without, "request", "requests"), verb)
	for _, o := range outs {
		fmt.Fprintln(errOut, outageLine(o, e != nil, most, e))
	}
}

// outageLine is one outage in the issue's words: "12:00:31.2–12:00:33.0:
// the primary of slot 7,123 failed over; 40 increments were lost, ...".
func outageLine(o redisstore.Outage, engine bool, most int64, e *sim.Engine) string {
	var b strings.Builder
	who, whose := o.Node, o.Node // one Redis: its URL, and no slots
	if len(o.Slots) > 0 {
		who = fmt.Sprintf("%s (%s)", o.Node, slotsText(o.Slots))
		whose = fmt.Sprintf("the primary of %s (%s)", slotsText(o.Slots), o.Node)
	}
	if !o.Answered {
		fmt.Fprintf(&b, "%s to the end: %s did not answer (%s)", o.From.Short(), who, o.Reason)
		fmt.Fprintf(&b, "; %s made without it", plural(o.Without, "decision", "decisions"))
		return b.String()
	}
	from, to := o.From.Short(), o.To.Short()
	if i := strings.LastIndex(to, " "); i >= 0 && strings.HasPrefix(from, to[:i+1]) {
		to = to[i+1:] // a log's dates: the day once
	}
	fmt.Fprintf(&b, "%s–%s: %s did not answer (%s)", from, to, whose, o.Reason)
	if o.FailedOver != "" {
		fmt.Fprintf(&b, ", then failed over to %s", o.FailedOver)
	} else {
		fmt.Fprintf(&b, ", then did again")
	}
	fmt.Fprintf(&b, "; %s made without it; %s lost with the primary, %s missing in all; %s admitted beyond the limit",
		plural(o.Without, "decision", "decisions"), plural(o.Lost(), "increment was", "increments were"),
		human.Int(o.Missing), plural(o.Over, "request", "requests"))
	if o.Under > 0 {
		fmt.Fprintf(&b, ", %s refused within it", plural(o.Under, "request", "requests"))
	}
	if engine {
		fmt.Fprintf(&b, "; most in one window %s (limit %s)", human.Int(most), human.Int(e.Config().Limit))
	}
	return b.String()
}
