package main

import (
	"math"
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

// TestSummarize: the extremes and the mean are exact, the percentiles
// vegeta's estimates, within half a percent of the value on a uniform
// spread of 1,000 values (the ranks 500, 900 and 990 of 1..1000 ms). The
// values arrive shuffled in a fixed order: the t-digest's estimate depends
// on the order, and about 2% of random orders put p50 0.5-0.9% off.
func TestSummarize(t *testing.T) {
	samples := make([]time.Duration, 1000)
	for i := range samples {
		samples[i] = time.Duration(i+1) * time.Millisecond
	}
	order := rand.New(rand.NewPCG(1, 2))
	order.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })
	got := summarize(samples)
	if got.Count != 1000 || got.Min != 1 || got.Max != 1000 || got.Mean != 500.5 {
		t.Errorf("summarize = %+v, want count 1000, min 1, max 1000, mean 500.5", got)
	}
	for _, q := range []struct{ got, want float64 }{{got.P50, 500}, {got.P90, 900}, {got.P99, 990}} {
		if math.Abs(q.got-q.want) > q.want*0.005 {
			t.Errorf("percentile %.2f ms, want %.0f ms ± 0.5%% (summary %+v)", q.got, q.want, got)
		}
	}
	if got := summarize(nil); got != (Latency{}) {
		t.Errorf("summarize(nil) = %+v, want zero", got)
	}
}

// TestSummarizeTail: a slow tail of 1% shows in p99 and not in p90.
func TestSummarizeTail(t *testing.T) {
	samples := make([]time.Duration, 0, 10000)
	for range 9890 {
		samples = append(samples, time.Millisecond)
	}
	for range 110 {
		samples = append(samples, 100*time.Millisecond)
	}
	got := summarize(samples)
	if got.P50 != 1 || got.P90 != 1 || got.P99 < 90 || got.Max != 100 {
		t.Errorf("got %+v, want p50 and p90 of 1 ms, p99 near 100 ms", got)
	}
}

func TestSummarizeNegative(t *testing.T) {
	// Socket deliveries may precede the publish answer.
	got := summarize(durations(-2e6, 1e6, 3e6))
	if got.Min != -2 || got.P50 != 1 || got.Max != 3 {
		t.Errorf("got %+v, want min -2, p50 1, max 3", got)
	}
	if got := summarize(durations(-4e6, -1e6)); got.Max != -1 || got.Min != -4 {
		t.Errorf("all negative: got %+v, want min -4, max -1", got)
	}
}
