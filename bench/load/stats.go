package main

import (
	"slices"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
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

// summarize returns the summary of samples: the extremes and the mean
// exactly, the percentiles as vegeta estimates them (a t-digest, within a
// fraction of a percent of the rank on the sizes a run makes).
func summarize(samples []time.Duration) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	var m vegeta.LatencyMetrics
	for _, s := range samples {
		m.Add(s)
	}
	return Latency{
		Count: len(samples),
		// vegeta's own Min and Max treat zero as unset; socket deliveries
		// may be negative or zero, so the extremes are taken here.
		Min:  ms(slices.Min(samples)),
		Mean: ms(m.Total) / float64(len(samples)),
		P50:  ms(m.Quantile(0.50)),
		P90:  ms(m.Quantile(0.90)),
		P99:  ms(m.Quantile(0.99)),
		Max:  ms(slices.Max(samples)),
	}
}

// ms converts d to milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
