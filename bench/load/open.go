package main

import (
	"context"
	"math"
	"net/http"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// openLoop reads the user's profile on t at rate requests a second on a
// fixed schedule, whatever the answers, with vegeta over c connections (c
// workers; when all are busy the schedule waits for one), for cfg.Warmup
// unmeasured and then cfg.Duration. Each request is timed from when it was
// due, not from when it was sent, so that a server that stalls is charged
// for the requests that queued behind the stall (no coordinated omission);
// how late each was sent is kept apart (Lag). vegeta numbers its requests
// in the order of the schedule and paces request k to leave k+1 intervals
// after the start, so that the due time of each answer is known. Requests
// still owed when the time is up are not sent: an achieved rate below the
// scheduled one shows them.
func openLoop(ctx context.Context, t *target, c int, rate float64, cfg runConfig) (*Result, error) {
	users, err := t.pool.ensure(ctx, c)
	if err != nil {
		return nil, err
	}
	// A minute's worth of requests as the frequency keeps the interval
	// exact to the nanosecond for any rate the flag accepts.
	pacer := vegeta.ConstantPacer{Freq: max(1, int(math.Round(rate*60))), Per: time.Minute}
	interval := time.Duration(pacer.Per.Nanoseconds() / int64(pacer.Freq))
	// vegeta's own options for its transport do not apply to this one:
	// the client keeps up to c connections and bounds each request.
	client := newClient(t.base, c)
	defer client.CloseIdleConnections()
	atk := vegeta.NewAttacker(vegeta.Workers(uint64(c)), vegeta.MaxWorkers(uint64(c)),
		vegeta.Client(&http.Client{Transport: fastTransport{client}, CheckRedirect: noRedirect}))
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	res := &Result{Kind: "run", Scenario: "read", Target: "server", Tool: "vegeta", Concurrency: c, Rate: rate}
	smp := startSampler(ctx, t.metricsURL, t.pid)
	res.Started = time.Now()
	began := time.Now()
	m, lag := collectOpen(atk.Attack(readTargeter(t.base, users), pacer, cfg.Warmup+cfg.Duration, ""), began, began.Add(cfg.Warmup), interval)
	peak, use := smp.stop()
	res.Peak, res.CPU = &peak, &use
	fill(res, m)
	if len(lag) > 0 {
		l := summarize(lag)
		res.Lag = &l
	}
	if err := ctx.Err(); err != nil {
		res.Error = "cut short: " + err.Error()
	}
	return res, nil
}

// readTargeter gives each request the next of the users' tokens in turn.
func readTargeter(base string, users []*user) vegeta.Targeter {
	headers := make([]http.Header, len(users))
	for i, u := range users {
		headers[i] = http.Header{"Authorization": {u.authorization()}}
	}
	url := base + "/v1/users/read"
	var next atomic.Uint64
	return func(tg *vegeta.Target) error {
		tg.Method, tg.URL, tg.Header = http.MethodGet, url, headers[(next.Add(1)-1)%uint64(len(headers))]
		return nil
	}
}

// collectOpen reads an attack's answers, request k due at began + (k+1)
// intervals, and keeps those due from from on: each one's latency from
// its due time, and how late it was sent (lag).
func collectOpen(results <-chan *vegeta.Result, began, from time.Time, interval time.Duration) (measured, []time.Duration) {
	rec, lag := newRecorder(), []time.Duration{}
	last := from
	for r := range results {
		due := began.Add(time.Duration(r.Seq+1) * interval)
		if due.Before(from) {
			continue
		}
		rec.ops = append(rec.ops, r.End().Sub(due))
		lag = append(lag, max(0, r.Timestamp.Sub(due)))
		countResult(rec, r)
		last = maxTime(last, r.End())
	}
	return measured{elapsed: last.Sub(from), rec: rec}, lag
}

// noRedirect leaves a redirect unfollowed: the read never redirects, and
// a redirect would be counted as the failure it is.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// countResult counts one vegeta answer as a read request and, when it
// failed, its failure by status and error code.
func countResult(rec *recorder, r *vegeta.Result) {
	rec.requests++
	switch {
	case r.Code == 0:
		rec.errors[transportKey("read", r.Error)]++
	case r.Code/100 != 2:
		rec.errors[failureKey("read", answer{status: int(r.Code), body: r.Body}, nil)]++
		if r.Code >= 500 {
			rec.fivexx++
		}
	default:
		return
	}
	rec.failed++
}

// maxTime returns the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
