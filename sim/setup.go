package sim

import "windowlab/algo"

// Setup is what an engine decides with: a fresh limiter for each of
// Algorithms at Config, put on a store by Wrap when it is set. Its Engine
// is the one way windowlab goes from "limiters (on a store, if given)" to
// an engine: a scenario's (and so the view's) and a replayed log's.
type Setup struct {
	Algorithms []algo.Algorithm
	Config     algo.Config
	// Wrap puts the fresh limiters on a store (redisstore's WrapAll: those
	// it can take); nil keeps them all in process.
	Wrap func([]algo.Limiter) ([]algo.Limiter, error)
}

// Limiters are fresh limiters, one for each algorithm in order, on the
// store when Wrap is set.
func (s Setup) Limiters() ([]algo.Limiter, error) {
	ls := make([]algo.Limiter, len(s.Algorithms))
	for i, a := range s.Algorithms {
		l, err := a.New(s.Config)
		if err != nil {
			return nil, err
		}
		ls[i] = l
	}
	if s.Wrap == nil {
		return ls, nil
	}
	return s.Wrap(ls)
}

// Engine replays src through fresh Limiters with opts. check, when not
// nil, sees the limiters before the engine is made and may refuse them
// (a memory budget).
func (s Setup) Engine(src Source, opts Options, check func([]algo.Limiter) error) (*Engine, error) {
	ls, err := s.Limiters()
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(ls); err != nil {
			return nil, err
		}
	}
	return New(src, ls, opts)
}
