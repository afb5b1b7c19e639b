package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// socketConfig is the shape of a sockets run.
type socketConfig struct {
	Clients  int           // socket.io clients in FEED
	Posts    int           // posts published through HTTP, one after another
	Interval time.Duration // between the starts of two publishes
	Procs    int           // node processes sharing the clients
	Users    int           // distinct users whose tokens the clients use
	NodeDir  string        // bench/sockets
	// ConnectTimeout bounds connecting and joining; DeliverTimeout bounds the
	// wait for the last events after the last publish.
	ConnectTimeout, DeliverTimeout time.Duration
}

// SocketStats is what a sockets run measured.
type SocketStats struct {
	Clients        int            `json:"clients"`
	Connected      int            `json:"connected"`
	Joined         int            `json:"joined"`
	ConnectErrors  map[string]int `json:"connectErrors,omitempty"`
	ConnectSeconds float64        `json:"connectSeconds"`
	Posts          int            `json:"posts"`
	Receipts       int            `json:"receipts"`
	Expected       int            `json:"expected"`
	ClientsWithAll int            `json:"clientsWithAll"`
	Duplicates     int            `json:"duplicates"`
	Disconnects    int            `json:"disconnects"`
	Unexpected     int            `json:"unexpected"`
	// Missing describes the first few clients that lack a post; PostIDs
	// are the posts in the order they were published.
	Missing []any    `json:"missing,omitempty"`
	PostIDs []string `json:"postIds,omitempty"`
	// AllReceived: every client joined and received every event once.
	AllReceived bool `json:"allReceived"`
	// Delivery runs from the publish answer's arrival to each receipt;
	// FromSend from the publish request's start. Early counts the receipts
	// that came before the answer (negative delivery).
	Delivery Latency `json:"delivery"`
	FromSend Latency `json:"fromSend"`
	Early    int     `json:"early"`
	// First and Last are, over the posts, the delivery to the first and to
	// the last client: their gap is the fan-out to every client (the
	// server's writes and the clients' reads, on the same cores).
	First Latency `json:"first"`
	Last  Latency `json:"last"`
}

// published is one post published during a sockets run, with epoch times
// in milliseconds (the clock node timestamps receipts with).
type published struct {
	id            string
	sentMs, gotMs float64
	createPublish time.Duration
	err           error
}

// epochMs is t in milliseconds since the epoch.
func epochMs(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }

// runSockets connects cfg.Clients socket.io clients to FEED, publishes
// cfg.Posts posts and measures each event's delivery at every client.
func runSockets(ctx context.Context, t *target, cfg socketConfig) (*Result, error) {
	if err := ensureNodeModules(cfg.NodeDir); err != nil {
		return nil, err
	}
	users, err := t.pool.ensure(ctx, max(1, min(cfg.Clients, cfg.Users)))
	if err != nil {
		return nil, err
	}
	tokens := make([]string, len(users))
	for i, u := range users {
		tokens[i] = u.Access
	}
	res := &Result{Kind: "run", Scenario: "sockets", Target: "server", Concurrency: cfg.Clients, Started: time.Now()}
	smp := startSampler(ctx, t.metricsURL, t.pid)
	msgs := make(chan nodeMsg, 1024)
	procs := make([]*nodeProc, 0, cfg.Procs)
	defer func() {
		for _, p := range procs {
			p.close(10 * time.Second)
		}
	}()
	for i := range cfg.Procs {
		n := cfg.Clients / cfg.Procs
		if i < cfg.Clients%cfg.Procs {
			n++
		}
		p, err := startNode(cfg.NodeDir, "feed-load.mjs", i, map[string]any{
			"url": t.base, "tokens": tokens, "clients": n, "room": "FEED", "event": "POST_PUBLISHED",
			"connectConcurrency": 64, "timeoutMs": 20000,
		}, msgs)
		if err != nil {
			return nil, err
		}
		procs = append(procs, p)
	}
	st := &SocketStats{Clients: cfg.Clients, Posts: cfg.Posts, ConnectErrors: map[string]int{}}
	if err := awaitReady(ctx, msgs, len(procs), cfg.ConnectTimeout, st); err != nil {
		return nil, err
	}
	posts := publishAll(ctx, t, users[0], cfg, msgs, len(procs))
	if err := collect(ctx, procs, msgs, posts, st); err != nil {
		return nil, err
	}
	peak, use := smp.stop()
	res.Peak, res.CPU = &peak, &use
	res.Sockets = st
	finishSocketResult(res, posts)
	return res, nil
}

// awaitReady waits until every process reports its clients connected and
// joined (or failed).
func awaitReady(ctx context.Context, msgs <-chan nodeMsg, procs int, timeout time.Duration, st *SocketStats) error {
	start := time.Now()
	deadline := time.After(timeout)
	for ready := 0; ready < procs; {
		select {
		case m := <-msgs:
			switch m.Type {
			case "ready":
				ready++
				st.Connected += m.Connected
				st.Joined += m.Joined
				for k, v := range m.Errors {
					st.ConnectErrors[k] += v
				}
			case "exit", "error", "invalid":
				return fmt.Errorf("sockets: node process %d: %s %s", m.Proc, m.Type, m.Message)
			}
		case <-deadline:
			return fmt.Errorf("sockets: clients not connected within %v", timeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	st.ConnectSeconds = time.Since(start).Seconds()
	return nil
}

// publishAll publishes cfg.Posts posts, one every cfg.Interval, and then
// waits until every process reported every post complete, or
// cfg.DeliverTimeout passed after the last publish.
func publishAll(ctx context.Context, t *target, u *user, cfg socketConfig, msgs <-chan nodeMsg, procs int) []published {
	w := newWorker(-2, t.base, newClient(t.base, 1))
	w.user = u
	complete := map[string]int{}
	var posts []published
	tick := time.NewTicker(cfg.Interval)
	defer tick.Stop()
	for len(posts) < cfg.Posts && ctx.Err() == nil {
		posts = append(posts, publishOne(ctx, w, len(posts)))
		for wait := true; wait; {
			select {
			case m := <-msgs:
				if m.Type == "complete" {
					complete[m.PostID]++
				}
			case <-tick.C:
				wait = false
			}
		}
	}
	deadline := time.After(cfg.DeliverTimeout)
	for !allComplete(posts, complete, procs) {
		select {
		case m := <-msgs:
			if m.Type == "complete" {
				complete[m.PostID]++
			}
		case <-deadline:
			return posts
		case <-ctx.Done():
			return posts
		}
	}
	return posts
}

// allComplete reports whether every process reported every published post
// complete.
func allComplete(posts []published, complete map[string]int, procs int) bool {
	for _, p := range posts {
		if p.err == nil && complete[p.id] < procs {
			return false
		}
	}
	return true
}

// publishOne creates a draft and publishes it directly, noting when the
// publish request left and when its answer arrived.
func publishOne(ctx context.Context, w *worker, n int) published {
	start := time.Now()
	a, err := w.call(ctx, "create", http.MethodPost, "/v1/posts/create",
		map[string]string{"title": fmt.Sprintf("Socket bench post %d", n), "body": postBody}, authHeader(w.user)...)
	var created struct {
		Post struct {
			ID string `json:"id"`
		} `json:"post"`
	}
	if err == nil {
		err = w.decode("create", a, &created)
	}
	if err != nil {
		return published{err: err}
	}
	sent := time.Now()
	_, err = w.call(ctx, "publish", http.MethodPost, "/v1/posts/publish", map[string]string{"postId": created.Post.ID}, authHeader(w.user)...)
	got := time.Now()
	return published{id: created.Post.ID, sentMs: epochMs(sent), gotMs: epochMs(got), createPublish: got.Sub(start), err: err}
}

// collect asks every process for its receipts and its summary.
func collect(ctx context.Context, procs []*nodeProc, msgs <-chan nodeMsg, posts []published, st *SocketStats) error {
	ids := []string{}
	for _, p := range posts {
		if p.err == nil {
			ids = append(ids, p.id)
		}
	}
	st.PostIDs = ids
	for _, p := range procs {
		if err := p.send(map[string]any{"cmd": "report", "posts": ids}); err != nil {
			return err
		}
	}
	byID := map[string]*published{}
	for i := range posts {
		byID[posts[i].id] = &posts[i]
	}
	var delivery, fromSend []time.Duration
	first, last := map[string]time.Duration{}, map[string]time.Duration{}
	deadline := time.After(30 * time.Second)
	for summaries := 0; summaries < len(procs); {
		select {
		case m := <-msgs:
			switch m.Type {
			case "post":
				p := byID[m.PostID]
				if p == nil {
					continue
				}
				for _, at := range m.At {
					d := time.Duration((at - p.gotMs) * 1e6)
					if d < 0 {
						st.Early++
					}
					delivery = append(delivery, d)
					fromSend = append(fromSend, time.Duration((at-p.sentMs)*1e6))
					if f, ok := first[p.id]; !ok || d < f {
						first[p.id] = d
					}
					if l, ok := last[p.id]; !ok || d > l {
						last[p.id] = d
					}
				}
			case "summary":
				summaries++
				st.ClientsWithAll += m.ClientsWithAll
				st.Duplicates += m.Duplicates
				st.Disconnects += m.Disconnects
				st.Unexpected += m.Unexpected
				st.Missing = append(st.Missing, m.Missing...)
			case "exit":
				return fmt.Errorf("sockets: node process %d exited early: %s", m.Proc, m.Message)
			}
		case <-deadline:
			return errors.New("sockets: no report from the node processes within 30s")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	st.Receipts = len(delivery)
	st.Expected = st.Clients * len(posts)
	st.Delivery = summarize(delivery)
	st.FromSend = summarize(fromSend)
	st.First = summarize(slices.Collect(maps.Values(first)))
	st.Last = summarize(slices.Collect(maps.Values(last)))
	st.AllReceived = st.Joined == st.Clients && st.ClientsWithAll == st.Clients &&
		len(ids) == len(posts) && st.Duplicates == 0 && st.Receipts == st.Expected
	return nil
}

// finishSocketResult fills the HTTP side of a sockets run: the publishes.
func finishSocketResult(res *Result, posts []published) {
	var lat []time.Duration
	res.Errors = map[string]int64{}
	for _, p := range posts {
		res.Ops++
		res.Requests += 2
		if p.err != nil {
			res.Failed++
			res.Errors[p.err.Error()]++
			if strings.HasPrefix(p.err.Error(), "5") {
				res.Status5xx++
			}
			continue
		}
		lat = append(lat, p.createPublish)
	}
	res.Latency = summarize(lat)
	res.Seconds = time.Since(res.Started).Seconds()
	if len(res.Errors) == 0 {
		res.Errors = nil
	}
}
