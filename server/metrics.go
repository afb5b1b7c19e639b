package main

import (
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/queues"
)

// metrics are the Prometheus metrics served on /metrics. The registry is
// the process's own, never the global default.
type metrics struct {
	registry  *prometheus.Registry
	requests  *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	refresh   *prometheus.CounterVec
	thefts    *prometheus.CounterVec
	inflight  prometheus.Gauge
	jobs      *prometheus.CounterVec
	published *prometheus.CounterVec
	// unavailable counts requests answered 503 because a dependency was
	// unreachable.
	unavailable *prometheus.CounterVec
	// series holds, per label of requests and duration, the children
	// already resolved (*requestSeries), so that a request does not hash
	// its labels again.
	series sync.Map
}

// counterChildren are the children of a counter vector whose other labels
// are fixed, by the value of its last label (a K, written by text),
// resolved on first use so that a count does not hash its labels again.
type counterChildren[K comparable] struct {
	vec   *prometheus.CounterVec
	fixed []string
	text  func(K) string
	mu    sync.RWMutex
	byVal map[K]prometheus.Counter
}

// newCounterChildren returns the children of vec under the fixed labels,
// by a last label given as text.
func newCounterChildren(vec *prometheus.CounterVec, fixed ...string) *counterChildren[string] {
	return newCounterChildrenBy(vec, func(v string) string { return v }, fixed...)
}

// newCounterChildrenBy returns the children of vec under the fixed labels,
// by a last label given as a K that text writes.
func newCounterChildrenBy[K comparable](vec *prometheus.CounterVec, text func(K) string, fixed ...string) *counterChildren[K] {
	return &counterChildren[K]{vec: vec, fixed: fixed, text: text, byVal: map[K]prometheus.Counter{}}
}

// of returns the child whose last label is v.
func (c *counterChildren[K]) of(v K) prometheus.Counter {
	c.mu.RLock()
	ch, ok := c.byVal[v]
	c.mu.RUnlock()
	if ok {
		return ch
	}
	ch = c.vec.WithLabelValues(append(slices.Clip(c.fixed), c.text(v))...)
	c.mu.Lock()
	c.byVal[v] = ch
	c.mu.Unlock()
	return ch
}

// requestSeries are the children of the request metrics of one label: its
// duration and its count by status.
type requestSeries struct {
	duration prometheus.Observer
	requests *counterChildren[int]
}

// seriesOf returns the children of label, resolving them on first use.
func (m *metrics) seriesOf(label string) *requestSeries {
	if s, ok := m.series.Load(label); ok {
		return s.(*requestSeries)
	}
	s, _ := m.series.LoadOrStore(label, &requestSeries{duration: m.duration.WithLabelValues(label),
		requests: newCounterChildrenBy(m.requests, strconv.Itoa, label)})
	return s.(*requestSeries)
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "actionkit_http_requests_total",
			Help: "HTTP requests by action (or route) and status.",
		}, []string{"action", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "actionkit_http_request_duration_seconds",
			Help:    "HTTP request latency by action (or route).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"action"}),
		refresh: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "actionkit_refresh_total",
			Help: "Refresh-token presentations by owner type and outcome.",
		}, []string{"owner", "outcome"}),
		thefts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "actionkit_refresh_theft_detected_total",
			Help: "Replays of rotated refresh tokens, each revoking every session of the owner.",
		}, []string{"owner"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "actionkit_http_requests_in_flight",
			Help: "HTTP requests being served, scrapes of /metrics excluded.",
		}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "actionkit_jobs_total",
			Help: "Background job runs by job and outcome (ok or failed).",
		}, []string{"job", "outcome"}),
		published: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "actionkit_posts_published_total",
			Help: "Posts published, by how: direct or job.",
		}, []string{"how"}),
		unavailable: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "actionkit_dependency_unavailable_total",
			Help: "Requests answered 503 SERVICE_UNAVAILABLE because a dependency (postgresql, redis) was unreachable.",
		}, []string{"dependency"}),
	}
	for _, dep := range []string{models.Dependency, queues.Dependency} {
		m.unavailable.WithLabelValues(dep) // exported at 0 before the first outage
	}
	m.registry.MustRegister(m.requests, m.duration, m.refresh, m.thefts, m.inflight, m.jobs, m.published, m.unavailable,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// watchSockets exports the number of connected sockets.
func (m *metrics) watchSockets(connected func() int) {
	m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "actionkit_sockets_connected",
		Help: "Sockets connected to this instance.",
	}, func() float64 { return float64(connected()) }))
}

// watchHashing exports the password hasher's admission: the hashes running
// and queued now, the derivations run and the calls refused (503
// SERVICE_BUSY) because the queue was full.
func (m *metrics) watchHashing(stats func() auth.HasherStats) {
	m.registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "actionkit_password_hash_running",
			Help: "Password hashes (and verifications) running now.",
		}, func() float64 { return float64(stats().Running) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "actionkit_password_hash_waiting",
			Help: "Requests waiting for a password hashing slot now (at most PASSWORD_HASH_QUEUE).",
		}, func() float64 { return float64(stats().Waiting) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "actionkit_password_hashes_total",
			Help: "Password hashes and verifications run.",
		}, func() float64 { return float64(stats().Derived) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "actionkit_password_hash_refused_total",
			Help: "Requests refused with 503 SERVICE_BUSY because the password hashing queue was full.",
		}, func() float64 { return float64(stats().Refused) }),
	)
}

// track counts the requests in flight.
func (m *metrics) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			next.ServeHTTP(w, r)
			return
		}
		m.inflight.Inc()
		defer m.inflight.Dec()
		next.ServeHTTP(w, r)
	})
}

// observe records one finished request. Unmatched paths share one label so
// that scanners cannot grow the label set.
func (m *metrics) observe(o framework.Observation) {
	label := o.Action
	if label == "" {
		label = o.Route
	}
	if label == "" {
		label = "unmatched"
	}
	s := m.seriesOf(label)
	s.requests.of(o.Status).Inc()
	s.duration.Observe(o.Duration.Seconds())
	if o.Unavailable != "" {
		m.unavailable.WithLabelValues(o.Unavailable).Inc()
	}
}
