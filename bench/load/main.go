// Command load measures the bundled server under load, on loopback only.
//
// Usage:
//
//	load run -url http://127.0.0.1:8000 -scenario read -c 64 -d 10s [flags]
//	load run -scenario read -rate 3000/s -d 10s   the read in an open loop (a fixed schedule)
//	load bench [flags]     what make bench runs: server, baseline, every scenario, BENCHMARKS.md
//	load baseline [flags]  the baseline server (started by bench)
//	load report [flags]    render BENCHMARKS.md again from a results file
//
// Scenarios: read (GET /v1/users/read), refresh (each virtual user rotates
// its own app refresh-token chain, verified afterwards), login, publish
// (create + direct publish), mixed (a blend, -mix), and sockets (clients in
// FEED through node's socket.io-client, delivery of published posts). A run
// ends after -d of measurement and reports operations and requests per
// second, latency percentiles, errors by status and code, and the server's
// peak RSS and goroutines from its /metrics (and /proc/<pid>/status with
// -pid). Targets other than localhost, 127.0.0.0/8 and ::1 are refused.
//
// The tool drives load only where no maintained tool does. The read and
// the baselines are closed loops run by Debian's wrk (wrk.go), the open
// loop by vegeta (open.go). The scenarios whose requests depend on earlier
// answers (refresh chains, the post just created, the mixed blend) are
// closed loops of this tool's own virtual users over fasthttp (client.go,
// runner.go): each sends its next operation as soon as the previous one
// ended. What stays here is that glue, the node socket clients' fan-out,
// the baselines measured in the same run, the server's sampling and the
// report.
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
