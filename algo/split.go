package algo

// NewSplit returns a fleet of n servers, each enforcing its share of c's
// limit on its own tally: the quota split, no tally shared. The limit L
// is shared out as evenly as whole requests allow: every server allows
// L/n (rounded down), and the first L mod n servers one more, so the
// shares add up to L exactly. A client whose requests spread evenly gets
// at most L; one whose requests reach some servers more than others is
// denied at a server whose share is spent while the fleet is under L.
func NewSplit(a Algorithm, c Config, n int, routing Routing, seed uint64) (*Fleet, error) {
	if err := shareable(a, "servers"); err != nil {
		return nil, err
	}
	if n < 2 || n > MaxServers {
		return nil, Problem("servers", "%d is out of range: a fleet has 2 to %d servers", n, MaxServers)
	}
	if c.Limit < int64(n) {
		return nil, Problem("limit", "%d split over %d servers leaves a server none: give a limit of at least %d, one a server", c.Limit, n, n)
	}
	f, err := newFleet(a, c, n, routing, seed)
	if err != nil {
		return nil, err
	}
	for i := range f.servers {
		share := c
		share.Limit = SplitShare(c.Limit, n, i)
		if f.servers[i], err = a.New(share); err != nil {
			return nil, err
		}
	}
	f.split = c.Limit
	return f, nil
}

// SplitShare is server i's share (from 0) of limit split over n servers.
func SplitShare(limit int64, n, i int) int64 {
	share := limit / int64(n)
	if int64(i) < limit%int64(n) {
		share++
	}
	return share
}
