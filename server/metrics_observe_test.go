package main

import (
	"maps"
	"testing"
	"time"

	"github.com/actionkit/actionkit/framework"
)

// TestObserveCountsEachSeries checks that observe counts every request
// under its own action (or route) and status, however often a series
// repeats, and times each under its action.
func TestObserveCountsEachSeries(t *testing.T) {
	m := newMetrics()
	for range 3 {
		m.observe(framework.Observation{Action: "V1Refresh", Status: 200, Duration: time.Millisecond})
	}
	m.observe(framework.Observation{Action: "V1Refresh", Status: 401, Duration: time.Millisecond})
	m.observe(framework.Observation{Route: "/health", Status: 200, Duration: time.Millisecond})
	m.observe(framework.Observation{Status: 404, Duration: time.Millisecond})
	m.observe(framework.Observation{Action: "V1Login", Status: 200, Duration: time.Millisecond})
	families, err := m.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counted, timed := map[string]float64{}, map[string]uint64{}
	for _, f := range families {
		for _, s := range f.GetMetric() {
			var labels string
			for _, l := range s.GetLabel() {
				labels += l.GetValue() + " "
			}
			switch f.GetName() {
			case "actionkit_http_requests_total":
				counted[labels] = s.GetCounter().GetValue()
			case "actionkit_http_request_duration_seconds":
				timed[labels] = s.GetHistogram().GetSampleCount()
			}
		}
	}
	wantCounted := map[string]float64{"V1Refresh 200 ": 3, "V1Refresh 401 ": 1, "/health 200 ": 1, "unmatched 404 ": 1, "V1Login 200 ": 1}
	wantTimed := map[string]uint64{"V1Refresh ": 4, "/health ": 1, "unmatched ": 1, "V1Login ": 1}
	if !maps.Equal(counted, wantCounted) {
		t.Errorf("requests = %v, want %v", counted, wantCounted)
	}
	if !maps.Equal(timed, wantTimed) {
		t.Errorf("durations timed = %v, want %v", timed, wantTimed)
	}
}

// TestCounterChildrenCountEachValue checks that counterChildren counts
// under the fixed labels and the value asked for, repeats included.
func TestCounterChildrenCountEachValue(t *testing.T) {
	m := newMetrics()
	users, admins := newCounterChildren(m.refresh, "user"), newCounterChildren(m.refresh, "admin")
	for range 2 {
		users.of("rotated").Inc()
	}
	users.of("replay").Inc()
	admins.of("rotated").Inc()
	families, err := m.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counted := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "actionkit_refresh_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			counted[labels["owner"]+" "+labels["outcome"]] = s.GetCounter().GetValue()
		}
	}
	want := map[string]float64{"user rotated": 2, "user replay": 1, "admin rotated": 1}
	if !maps.Equal(counted, want) {
		t.Errorf("refresh outcomes = %v, want %v", counted, want)
	}
}
