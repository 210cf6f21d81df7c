package scenarios

import (
	"errors"

	"windowlab/algo"
)

// nginxRate refuses a limit per window nginx limit_req cannot hold (below
// 0.001 requests a second) when the scenario runs token-bucket/nginx, at
// the limit: the one setting only those algorithms check.
func (d *decoder) nginxRate(o *object, s *Scenario) {
	for _, a := range s.Algorithms {
		if a.Rules.Bucket != algo.BucketNginx && a.Rules.Bucket != algo.BucketNginxNodelay {
			continue
		}
		c := s.Config
		c.Rules = a.Rules
		var oe *algo.OptionError
		if err := c.Validate(); errors.As(err, &oe) && oe.Option == "limit" {
			_, at := o.value("limit")
			d.at(at, "limit", "%s (%s); give a larger limit or a shorter window", oe.Problem, a)
			return
		}
	}
}
