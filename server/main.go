// Command server runs the bundled actionkit service: the HTTP API with
// socket.io, the job worker and the clock, in one process or one role per
// process. Run "server help" for the commands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	// Time zone names are checked against an embedded database, so
	// registration works the same on a machine without tzdata.
	_ "time/tzdata"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-signals
		cancel()
		<-signals
		fmt.Fprintln(os.Stderr, "second signal: exiting at once")
		os.Exit(1)
	}()
	os.Exit(run(ctx, &environment{
		args:      os.Args[1:],
		getenv:    os.Getenv,
		lookupenv: os.LookupEnv,
		stdout:    os.Stdout,
		stderr:    os.Stderr,
	}))
}
