package main

import (
	"math"
	"slices"
	"time"
)

// Latency summarises a set of durations, in milliseconds.
type Latency struct {
	Count int     `json:"count"`
	Min   float64 `json:"min"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted, which must be in ascending order: the smallest sample such that at
// least p percent of the samples are less than or equal to it. It returns 0
// for no samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// summarize sorts samples in place and returns their summary.
func summarize(samples []time.Duration) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	slices.Sort(samples)
	var sum float64
	for _, s := range samples {
		sum += float64(s)
	}
	return Latency{
		Count: len(samples),
		Min:   ms(samples[0]),
		Mean:  sum / float64(len(samples)) / float64(time.Millisecond),
		P50:   ms(percentile(samples, 50)),
		P90:   ms(percentile(samples, 90)),
		P99:   ms(percentile(samples, 99)),
		Max:   ms(samples[len(samples)-1]),
	}
}

// ms converts d to milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
