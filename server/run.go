package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/actionkit/actionkit/events/redislog"
)

// environment is what the program receives from its process, so that tests
// run the real thing with their own arguments, variables and outputs.
type environment struct {
	args   []string
	getenv func(string) string
	// lookupenv, when set, tells a variable set to "" from an unset one.
	lookupenv func(string) (string, bool)
	stdout    io.Writer
	stderr    io.Writer
	// listening, when set, is called with the API's address once it accepts
	// connections (tests start the server on port 0).
	listening func(net.Addr)
	// socketSweep, when not zero, replaces the period of the socket session
	// sweep, for tests that cannot wait a minute.
	socketSweep time.Duration
	// now, when set, is the process's clock (tests move time with it).
	now func() time.Time
	// webhookPoll, when not zero, replaces how often a worker looks for
	// due webhook deliveries; webhookLookup, when set, resolves the hosts
	// of webhooks (tests answer what they need).
	webhookPoll   time.Duration
	webhookLookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

const usage = `usage: server [command]

commands:
  all (default)   the API with socket.io, the job worker and the clock
  api             the HTTP API with socket.io only
  worker          the background job worker only
  clock           the clock that enqueues periodic jobs only
  migrate         apply pending database migrations and exit
  admin create --email E --password P
                  create an admin account
  admin resetmfa --email E
                  remove an admin's second factors and end its sessions
  help            show this text

Every role applies pending migrations at start. Configuration comes from
the environment; see the README.
`

// run is the whole program. It returns the process exit code: 0 after a
// clean shutdown, 1 on a runtime failure, 2 on a usage or configuration
// error.
func run(ctx context.Context, env *environment) int {
	cmd, rest := "all", env.args
	if len(rest) > 0 {
		cmd, rest = rest[0], rest[1:]
	}
	var roles []string
	switch cmd {
	case "all":
		roles = []string{roleAPI, roleWorker, roleClock}
	case roleAPI, roleWorker, roleClock:
		roles = []string{cmd}
	case "migrate", "admin":
	case "help", "-h", "--help":
		fmt.Fprint(env.stdout, usage)
		return 0
	default:
		fmt.Fprintf(env.stderr, "unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	if len(roles) > 0 && len(rest) > 0 {
		fmt.Fprintf(env.stderr, "%s takes no arguments\n", cmd)
		return 2
	}
	cfg, err := loadConfigLookup(env.getenv, env.lookupenv)
	if err != nil {
		fmt.Fprintf(env.stderr, "configuration error:\n  %s\n", strings.ReplaceAll(err.Error(), "\n", "\n  "))
		return 2
	}
	cfg.now = env.now
	log := slog.New(slog.NewJSONHandler(env.stdout, &slog.HandlerOptions{Level: cfg.LogLevel}))
	redislog.SetLogger(log.With("component", "go-redis"))
	if cmd == "admin" {
		return runAdmin(ctx, cfg, log, rest, env)
	}
	a, err := openApp(ctx, cfg, log)
	if err != nil {
		log.Error("start-up failed", "error", err)
		return 1
	}
	defer a.close()
	a.socketSweep = env.socketSweep
	a.webhookPoll = env.webhookPoll
	if env.webhookLookup != nil {
		a.webhooks.Guard.Lookup = env.webhookLookup
	}
	if cmd == "migrate" {
		log.Info("migrations applied")
		return 0
	}
	if err := a.checkDataKey(ctx); err != nil {
		log.Error("start-up failed", "error", err)
		return 1
	}
	if err := a.openKeys(ctx, roles); err != nil {
		log.Error("start-up failed", "error", err)
		return 1
	}
	if a.cfg.HeapFloor {
		startHeapFloor(log)
	}
	if err := a.servePprof(ctx); err != nil {
		log.Error("PPROF_ADDR", "error", err)
		return 1
	}
	if err := a.serveMetrics(ctx); err != nil {
		log.Error("METRICS_ADDR", "error", err)
		return 1
	}
	if err := a.runRoles(ctx, roles, env.listening); err != nil {
		if errors.Is(err, errForcedShutdown) {
			log.Error("shutdown timed out; exiting anyway", "timeout", cfg.ShutdownTimeout.String())
		} else {
			log.Error("stopped on error", "error", err)
		}
		return 1
	}
	log.Info("stopped cleanly")
	return 0
}
