package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"time"
)

// runArgs are the flags of "load run".
type runArgs struct {
	base, name, dbURL, jsonOut, nodeDir string
	client, wrk                         string
	c, pid, posts, procs                int
	cfg                                 runConfig
	rate                                float64
	mix                                 mix
	interval, deliver                   time.Duration
}

// parseRun reads and checks the flags of "load run".
func parseRun(args []string) (*runArgs, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	a := &runArgs{}
	fs.StringVar(&a.base, "url", "http://127.0.0.1:8000", "the server's base URL (loopback only)")
	fs.StringVar(&a.name, "scenario", "read", "read, refresh, login, mfalogin (password, then a TOTP code), publish, mixed or sockets")
	fs.IntVar(&a.c, "c", 64, "virtual users, each on a connection of its own (sockets: clients)")
	fs.DurationVar(&a.cfg.Duration, "d", 10*time.Second, "measured time")
	fs.DurationVar(&a.cfg.Warmup, "warmup", time.Second, "unmeasured warm-up")
	rate := fs.String("rate", "", "the read in an open loop, with vegeta: requests due on a fixed schedule, such as 3000/s (or N/m), "+
		"whatever the answers, each timed from when it was due; the -c connections carry them (default: closed loop)")
	fs.StringVar(&a.client, "client", "wrk", "the read's closed loop: wrk, or go (this tool's own client, the one the other scenarios use)")
	fs.StringVar(&a.wrk, "wrk", "wrk", "the wrk binary")
	fs.IntVar(&a.pid, "pid", 0, "the server's process id, to read its VmHWM and CPU")
	fs.StringVar(&a.dbURL, "database-url", "", "the server's database (loopback), to count live sessions after refresh")
	mixFlag := fs.String("mix", defaultMix, "the blend of the mixed scenario")
	fs.StringVar(&a.jsonOut, "json", "", "append the result to this file as a JSON line")
	fs.IntVar(&a.posts, "posts", 20, "sockets: posts to publish")
	fs.DurationVar(&a.interval, "interval", 250*time.Millisecond, "sockets: between two publishes")
	fs.IntVar(&a.procs, "procs", 0, "sockets: node processes (0: one per 1,000 clients)")
	fs.StringVar(&a.nodeDir, "node-dir", "bench/sockets", "sockets: the node client package")
	fs.DurationVar(&a.deliver, "deliver-timeout", 10*time.Second, "sockets: how long to wait for the last events after the last publish")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	var err error
	if *rate != "" {
		if a.rate, err = parseRate(*rate); err != nil {
			return nil, err
		}
	}
	if a.mix, err = parseMix(*mixFlag); err != nil {
		return nil, err
	}
	return a, a.check()
}

// check refuses targets off loopback and impossible bounds.
func (a *runArgs) check() error {
	if err := checkLoopbackURL(a.base, "http"); err != nil {
		return err
	}
	if a.dbURL != "" {
		if err := checkLoopbackURL(a.dbURL, "postgres", "postgresql"); err != nil {
			return err
		}
	}
	if a.c < 1 || a.cfg.Duration <= 0 {
		return errors.New("run: -c and -d must be positive")
	}
	if a.rate > 0 && a.name != "read" {
		return errors.New("run: -rate is for the read")
	}
	if a.client != "wrk" && a.client != "go" {
		return errors.New("run: -client is wrk or go")
	}
	return nil
}

// runMain is "load run": one scenario against a running server.
func runMain(ctx context.Context, args []string) error {
	a, err := parseRun(args)
	if err != nil {
		return err
	}
	t := &target{base: a.base, metricsURL: a.base + "/metrics", pid: a.pid, databaseURL: a.dbURL,
		prefix: "load-" + uniqueID(), mix: a.mix}
	t.pool = newUserPool(t.prefix, t.base)
	t.totp = newTOTPPool(t, a.cfg, argonBound(&ArgonBound{}))
	res, err := a.run(ctx, t)
	if err != nil {
		return err
	}
	printSummary(os.Stdout, res)
	if a.jsonOut != "" {
		if err := appendJSONLine(a.jsonOut, res); err != nil {
			return err
		}
	}
	if !res.ChecksOK() {
		return errors.New("a check failed")
	}
	return nil
}

// run runs the scenario: the read with wrk (or this tool's client, or
// vegeta's open loop), the sockets with node's clients, the others with
// this tool's virtual users.
func (a *runArgs) run(ctx context.Context, t *target) (*Result, error) {
	switch {
	case a.name == "sockets":
		n := a.procs
		if n < 1 {
			n = (a.c + 999) / 1000
		}
		return runSockets(ctx, t, socketConfig{Clients: a.c, Posts: a.posts, Interval: a.interval, Procs: n, Users: 100,
			NodeDir: a.nodeDir, ConnectTimeout: 90 * time.Second, DeliverTimeout: a.deliver})
	case a.name == "read" && a.rate > 0:
		return openLoop(ctx, t, a.c, a.rate, a.cfg)
	case a.name == "read" && a.client == "wrk":
		res := &Result{Kind: "run", Scenario: "read", Target: "server", Concurrency: a.c}
		return res, runWrk(ctx, a.wrk, t, "/v1/users/read", true, a.cfg, res)
	}
	sc, err := lookupScenario(a.name, t)
	if err != nil {
		return nil, err
	}
	res, err := runHTTP(ctx, t, t.base, sc, a.c, a.cfg)
	if res != nil && a.name == "mixed" {
		res.Mix = a.mix.String()
	}
	return res, err
}
