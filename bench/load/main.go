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
	"syscall"
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
