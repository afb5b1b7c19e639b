// Command load measures the bundled server under load, on loopback only.
//
// Usage:
//
//	load run -url http://127.0.0.1:8000 -scenario read -c 64 -d 10s [flags]
//	load run -scenario read -rate 3000/s -d 10s   an open loop (a fixed schedule)
//	load bench [flags]     what make bench runs: server, baseline, every scenario, BENCHMARKS.md
//	load baseline [flags]  the baseline server (started by bench)
//	load report [flags]    render BENCHMARKS.md again from a results file
//
// Scenarios: read (GET /v1/users/read), refresh (each virtual user rotates
// its own app refresh-token chain, verified afterwards), login, publish
// (create + direct publish), mixed (a blend, -mix), and sockets (clients in
// FEED through node's socket.io-client, delivery of published posts). A run
// ends after -d of measurement or -n operations, whichever comes first,
// and reports operations and requests per second, latency percentiles,
// errors by status and code, and the server's peak RSS and goroutines from
// its /metrics (and /proc/<pid>/status with -pid). Targets other than
// localhost, 127.0.0.0/8 and ::1 are refused.
//
// A run is a closed loop by default: each virtual user, on a keep-alive
// connection of its own, sends its next request as soon as the answer to
// the previous one arrived. With -rate it is an open loop: operations are
// due on a fixed schedule and each is timed from when it was due, so a
// stall is charged to every operation that queued behind it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"
)

const usage = `usage: load <command> [flags]

commands:
  run       one scenario against a running server (load run -h)
  bench     start a fresh server and the baseline, run every scenario, write BENCHMARKS.md
  baseline  serve the baseline handlers (started by bench)
  report    render BENCHMARKS.md from a results file
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "run":
		err = runMain(ctx, os.Args[2:])
	case "bench":
		err = benchMain(ctx, os.Args[2:])
	case "baseline":
		err = baselineMain(os.Args[2:])
	case "report":
		err = reportMain(os.Args[2:])
	case "help", "-h", "--help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		stop()
		os.Exit(1)
	}
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

// runMain is "load run": one scenario against a running server.
func runMain(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	base := fs.String("url", "http://127.0.0.1:8000", "the server's base URL (loopback only)")
	name := fs.String("scenario", "read", "read, refresh, login, publish, mixed or sockets")
	c := fs.Int("c", 64, "virtual users (sockets: clients)")
	var cfg runConfig
	fs.DurationVar(&cfg.Duration, "d", 10*time.Second, "measured time")
	fs.DurationVar(&cfg.Warmup, "warmup", time.Second, "unmeasured warm-up")
	fs.Int64Var(&cfg.MaxOps, "n", 2_000_000, "most operations measured")
	pid := fs.Int("pid", 0, "the server's process id, to read its VmHWM")
	dbURL := fs.String("database-url", "", "the server's database (loopback), to count live sessions after refresh")
	mixFlag := fs.String("mix", defaultMix, "the blend of the mixed scenario")
	jsonOut := fs.String("json", "", "append the result to this file as a JSON line")
	posts := fs.Int("posts", 20, "sockets: posts to publish")
	interval := fs.Duration("interval", 250*time.Millisecond, "sockets: between two publishes")
	procs := fs.Int("procs", 0, "sockets: node processes (0: one per 1,000 clients)")
	nodeDir := fs.String("node-dir", "bench/sockets", "sockets: the node client package")
	deliver := fs.Duration("deliver-timeout", 10*time.Second, "sockets: how long to wait for the last events after the last publish")
	cpuProfile := fs.String("cpuprofile", "", "write the tool's own CPU profile to this file")
	rate := fs.String("rate", "", "open loop: operations started on a fixed schedule, such as 3000/s (or N/m), whatever the answers, "+
		"each timed from its scheduled start; -c connections carry them (default: closed loop)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rate != "" {
		var err error
		if cfg.Rate, err = parseRate(*rate); err != nil {
			return err
		}
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if err := checkLoopbackURL(*base, "http"); err != nil {
		return err
	}
	if *dbURL != "" {
		if err := checkLoopbackURL(*dbURL, "postgres", "postgresql"); err != nil {
			return err
		}
	}
	if *c < 1 || cfg.Duration <= 0 || cfg.MaxOps < 1 {
		return errors.New("run: -c, -d and -n must be positive")
	}
	if cfg.Rate > 0 && *name == "sockets" {
		return errors.New("run: -rate is for the HTTP scenarios")
	}
	m, err := parseMix(*mixFlag)
	if err != nil {
		return err
	}
	t := &target{base: *base, metricsURL: *base + "/metrics", pid: *pid, databaseURL: *dbURL,
		prefix: "load-" + uniqueID(), mix: m}
	t.pool = newUserPool(t.prefix, t.base)
	var res *Result
	if *name == "sockets" {
		n := *procs
		if n < 1 {
			n = (*c + 999) / 1000
		}
		res, err = runSockets(ctx, t, socketConfig{Clients: *c, Posts: *posts, Interval: *interval, Procs: n, Users: 100,
			NodeDir: *nodeDir, ConnectTimeout: 90 * time.Second, DeliverTimeout: *deliver})
	} else {
		var sc *scenario
		if sc, err = lookupScenario(*name, t); err == nil {
			res, err = runHTTP(ctx, t, t.base, sc, *c, cfg, true)
		}
		if res != nil && *name == "mixed" {
			res.Mix = m.String()
		}
	}
	if err != nil {
		return err
	}
	printSummary(os.Stdout, res)
	if *jsonOut != "" {
		if err := appendJSONLine(*jsonOut, res); err != nil {
			return err
		}
	}
	if !res.ChecksOK() {
		return errors.New("a check failed")
	}
	return nil
}
