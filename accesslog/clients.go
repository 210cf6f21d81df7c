package accesslog

// clientTable numbers the clients a log's lines name, looked up by the
// key's bytes with nothing allocated for a client met before. A key that is
// an IPv4 address written the one usual way (four decimal numbers 0–255
// without leading zeros: what a web server logs as the client by default)
// is found by its 32 bits, held in the table's slot itself: no string hashed
// or compared, one cache line read. Any other key (IPv6, a user, ip+path)
// is found by its bytes in a map keyed by string, which Go looks up from a
// []byte converted in place without allocating. The two never hold the same
// key: the address's text is a function of its 32 bits and back.
type clientTable struct {
	v4    map[uint32]int32
	names map[string]int32
}

func newClientTable() clientTable {
	return clientTable{v4: map[uint32]int32{}, names: map[string]int32{}}
}

// find is key's number; false when the table has not met it.
func (t *clientTable) find(key []byte) (int32, bool) {
	if a, ok := ipv4(key); ok {
		c, ok := t.v4[a]
		return c, ok
	}
	c, ok := t.names[string(key)]
	return c, ok
}

// add numbers a key the table has not met.
func (t *clientTable) add(key string, c int32) {
	if a, ok := ipv4([]byte(key)); ok {
		t.v4[a] = c
		return
	}
	t.names[key] = c
}

// ipv4 reads b as a dotted IPv4 address in its one usual spelling; false
// for anything else (a leading zero, a number past 255, a fifth part,
// a space), which then is a name like any other.
func ipv4(b []byte) (uint32, bool) {
	if len(b) < 7 || len(b) > 15 {
		return 0, false
	}
	var a uint32
	i := 0
	for part := 0; part < 4; part++ {
		if part > 0 {
			if i >= len(b) || b[i] != '.' {
				return 0, false
			}
			i++
		}
		start, n := i, uint32(0)
		for i < len(b) && i-start < 3 && b[i] >= '0' && b[i] <= '9' {
			n = n*10 + uint32(b[i]-'0')
			i++
		}
		if i == start || n > 255 || (b[start] == '0' && i-start > 1) {
			return 0, false
		}
		a = a<<8 | n
	}
	return a, i == len(b)
}
