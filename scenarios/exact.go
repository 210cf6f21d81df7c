package scenarios

import (
	"errors"
	"fmt"

	"github.com/goccy/go-yaml/ast"

	"windowlab/algo"
)

// presetsFit says, at the algorithm's name, which of the scenario's
// presets cannot run at its window, burst or zone (algo's exact presets:
// fixed-window/kong takes 1s, 1m, 1h or 1d, token-bucket/spring whole
// seconds and a burst of at least its rate…).
func (d *decoder) presetsFit(items []ast.Node, s *Scenario, configOK bool) {
	if !configOK {
		return
	}
	for i, item := range items {
		str, ok := item.(*ast.StringNode)
		if !ok {
			continue
		}
		a, err := algo.ParseAlgorithm(str.Value)
		if err != nil {
			continue // algorithms said so
		}
		if _, err := a.New(s.Config); err != nil {
			var oe *algo.OptionError
			if errors.As(err, &oe) {
				d.at(item, fmt.Sprintf("algorithms[%d]", i), "%s: %s: %s", a, oe.Option, oe.Problem)
			}
		}
	}
}
