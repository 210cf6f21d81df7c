package redisstore_test

import (
	"context"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/redis/go-redis/v9"

	"windowlab/internal/redistest"
	"windowlab/redisstore"
)

// The scripts' whole-number arithmetic (exact.lua) agrees with math/big on
// random numbers past 2^53, where Lua's doubles alone would round: sums,
// differences, products, quotients, comparisons and the decimal forms
// the token bucket stores.
func TestExactArithmeticInLua(t *testing.T) {
	srv := redistest.Start(t)
	src, err := redisstore.Source("exact")
	if err != nil {
		t.Fatal(err)
	}
	src += `
local a, b, d = fromdec(ARGV[1]), fromdec(ARGV[2]), tonumber(ARGV[3])
local s = '-'
if cmp(a, b) >= 0 then s = todec(sub(a, b)) end
return {todec(add(a, b)), s, todec(mul(a, b)), todec(div(a, d)), tostring(cmp(a, b)), todec(big(tonumber(ARGV[4])))}`
	opt, _ := redis.ParseURL(srv.URL)
	c := redis.NewClient(opt)
	defer c.Close()
	r := rand.New(rand.NewPCG(1, 2))
	num := func() *big.Int {
		switch r.IntN(4) {
		case 0:
			return big.NewInt(r.Int64N(1 << 20))
		case 1:
			return new(big.Int).SetUint64(r.Uint64() >> r.IntN(64))
		}
		return big.NewInt(r.Int64())
	}
	for i := range 500 {
		a, b := num(), num()
		if i%7 == 0 {
			b.Set(a) // equal
		}
		d := 1 + r.Int64N(1<<32)
		if i%3 == 0 {
			d = 1 + r.Int64N(1000)
		}
		small := r.Int64N(1 << 53)
		v, err := c.Eval(context.Background(), src, nil, a.String(), b.String(), d, small).StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			new(big.Int).Add(a, b).String(), "-",
			new(big.Int).Mul(a, b).String(),
			new(big.Int).Quo(a, big.NewInt(d)).String(),
			big.NewInt(int64(a.Cmp(b))).String(),
			big.NewInt(small).String(),
		}
		if a.Cmp(b) >= 0 {
			want[1] = new(big.Int).Sub(a, b).String()
		}
		for j := range want {
			if v[j] != want[j] {
				t.Fatalf("a=%s b=%s d=%d: result %d is %s, want %s", a, b, d, j, v[j], want[j])
			}
		}
	}
}
