package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"runtime/pprof"
	"time"
)

// runArgs are the flags of "load run".
type runArgs struct {
	base, name, dbURL, jsonOut, nodeDir, cpuProfile string
	c, pid, posts, procs                            int
	cfg                                             runConfig
	mix                                             mix
	interval, deliver                               time.Duration
}

// parseRun reads and checks the flags of "load run".
func parseRun(args []string) (*runArgs, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	a := &runArgs{}
	fs.StringVar(&a.base, "url", "http://127.0.0.1:8000", "the server's base URL (loopback only)")
	fs.StringVar(&a.name, "scenario", "read", "read, refresh, login, publish, mixed or sockets")
	fs.IntVar(&a.c, "c", 64, "virtual users, each on a connection of its own (sockets: clients)")
	fs.DurationVar(&a.cfg.Duration, "d", 10*time.Second, "measured time")
	fs.DurationVar(&a.cfg.Warmup, "warmup", time.Second, "unmeasured warm-up")
	fs.Int64Var(&a.cfg.MaxOps, "n", 2_000_000, "most operations measured")
	rate := fs.String("rate", "", "open loop: operations due on a fixed schedule, such as 3000/s (or N/m), whatever the answers, "+
		"each timed from when it was due; the -c connections carry them (default: closed loop)")
	fs.IntVar(&a.pid, "pid", 0, "the server's process id, to read its VmHWM and CPU")
	fs.StringVar(&a.dbURL, "database-url", "", "the server's database (loopback), to count live sessions after refresh")
	mixFlag := fs.String("mix", defaultMix, "the blend of the mixed scenario")
	fs.StringVar(&a.jsonOut, "json", "", "append the result to this file as a JSON line")
	fs.IntVar(&a.posts, "posts", 20, "sockets: posts to publish")
	fs.DurationVar(&a.interval, "interval", 250*time.Millisecond, "sockets: between two publishes")
	fs.IntVar(&a.procs, "procs", 0, "sockets: node processes (0: one per 1,000 clients)")
	fs.StringVar(&a.nodeDir, "node-dir", "bench/sockets", "sockets: the node client package")
	fs.DurationVar(&a.deliver, "deliver-timeout", 10*time.Second, "sockets: how long to wait for the last events after the last publish")
	fs.StringVar(&a.cpuProfile, "cpuprofile", "", "write the tool's own CPU profile to this file")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	var err error
	if *rate != "" {
		if a.cfg.Rate, err = parseRate(*rate); err != nil {
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
	if a.c < 1 || a.cfg.Duration <= 0 || a.cfg.MaxOps < 1 {
		return errors.New("run: -c, -d and -n must be positive")
	}
	if a.cfg.Rate > 0 && a.name == "sockets" {
		return errors.New("run: -rate is for the HTTP scenarios")
	}
	return nil
}

// runMain is "load run": one scenario against a running server.
func runMain(ctx context.Context, args []string) error {
	a, err := parseRun(args)
	if err != nil {
		return err
	}
	if a.cpuProfile != "" {
		stop, err := startCPUProfile(a.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	t := &target{base: a.base, metricsURL: a.base + "/metrics", pid: a.pid, databaseURL: a.dbURL,
		prefix: "load-" + uniqueID(), mix: a.mix}
	t.pool = newUserPool(t.prefix, t.base)
	var res *Result
	if a.name == "sockets" {
		n := a.procs
		if n < 1 {
			n = (a.c + 999) / 1000
		}
		res, err = runSockets(ctx, t, socketConfig{Clients: a.c, Posts: a.posts, Interval: a.interval, Procs: n, Users: 100,
			NodeDir: a.nodeDir, ConnectTimeout: 90 * time.Second, DeliverTimeout: a.deliver})
	} else {
		var sc *scenario
		if sc, err = lookupScenario(a.name, t); err == nil {
			res, err = runHTTP(ctx, t, t.base, sc, a.c, a.cfg, true)
		}
		if res != nil && a.name == "mixed" {
			res.Mix = a.mix.String()
		}
	}
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

// startCPUProfile profiles this process into path until the returned
// function is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
