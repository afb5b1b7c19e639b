package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestParseMix(t *testing.T) {
	m, err := parseMix(defaultMix)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.String(), "80% read, 10% publish, 8% refresh, 2% login"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range []string{"", "read", "read=0", "read=-1", "read=x", "read=1,read=2", "write=1", "read=NaN"} {
		if _, err := parseMix(bad); err == nil {
			t.Errorf("parseMix(%q) = nil error, want one", bad)
		}
	}
}

func TestMixPick(t *testing.T) {
	m := mix{{"read", 80}, {"publish", 10}, {"refresh", 8}, {"login", 2}}
	tests := []struct {
		r    float64
		want string
	}{
		{0, "read"},
		{0.7999, "read"},
		{0.80, "publish"},
		{0.8999, "publish"},
		{0.90, "refresh"},
		{0.9799, "refresh"},
		{0.98, "login"},
		{math.Nextafter(1, 0), "login"},
	}
	for _, tt := range tests {
		if got := m.pick(tt.r); got != tt.want {
			t.Errorf("pick(%v) = %q, want %q", tt.r, got, tt.want)
		}
	}
}

func TestMixPickShares(t *testing.T) {
	m, _ := parseMix("read=3,login=1")
	rng := rand.New(rand.NewPCG(1, 2))
	counts := map[string]int{}
	const n = 100000
	for range n {
		counts[m.pick(rng.Float64())]++
	}
	if share := float64(counts["read"]) / n; math.Abs(share-0.75) > 0.01 {
		t.Errorf("read share %.3f, want 0.75 ± 0.01", share)
	}
}
