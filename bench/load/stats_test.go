package main

import (
	"math/rand/v2"
	"testing"
	"time"
)

func durations(ns ...int) []time.Duration {
	out := make([]time.Duration, len(ns))
	for i, n := range ns {
		out[i] = time.Duration(n)
	}
	return out
}

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i + 1)
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"none", nil, 50, 0},
		{"one sample", durations(7), 99, 7},
		{"median of two is the lower", durations(1, 2), 50, 1},
		{"median of three", durations(1, 2, 3), 50, 2},
		{"p50 of 1..100", hundred, 50, 50},
		{"p90 of 1..100", hundred, 90, 90},
		{"p99 of 1..100", hundred, 99, 99},
		{"p100 is the max", hundred, 100, 100},
		{"tiny p is the min", hundred, 0.001, 1},
		{"p99 of ten is the max", durations(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10},
		{"p90 of ten", durations(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 90, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	samples := make([]time.Duration, 1000)
	for i := range samples {
		samples[i] = time.Duration(i+1) * time.Millisecond
	}
	rand.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })
	got := summarize(samples)
	want := Latency{Count: 1000, Min: 1, Mean: 500.5, P50: 500, P90: 900, P99: 990, Max: 1000}
	if got != want {
		t.Errorf("summarize = %+v, want %+v", got, want)
	}
	if got := summarize(nil); got != (Latency{}) {
		t.Errorf("summarize(nil) = %+v, want zero", got)
	}
}

func TestSummarizeNegative(t *testing.T) {
	// Socket deliveries may precede the publish answer.
	got := summarize(durations(-2e6, 1e6, 3e6))
	if got.Min != -2 || got.P50 != 1 || got.Max != 3 {
		t.Errorf("got %+v, want min -2, p50 1, max 3", got)
	}
}
