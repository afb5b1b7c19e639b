package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// defaultPlan is what make bench runs: each scenario at a few concurrency
// levels (for sockets: connected clients). The token endpoint's scenarios
// come last: they start a second server and leave OAuth sessions in the
// shared database, which no other step then meets.
const defaultPlan = "read:16,64,128 refresh:16,64 login:8,64 mfalogin:64 publish:16,64 mixed:64 sockets:500,2000 oauthcode:64 oauthrefresh:64"

// step is one run of a plan.
type step struct {
	Scenario    string
	Concurrency int
}

// parsePlan reads "scenario:c1,c2 scenario:c3 ..." into steps, in order.
func parsePlan(s string) ([]step, error) {
	var steps []step
	for _, field := range strings.Fields(s) {
		name, levels, ok := strings.Cut(field, ":")
		known := name == "sockets" || isOAuthScenario(name)
		for _, n := range scenarioNames {
			known = known || n == name
		}
		if !ok || !known {
			return nil, fmt.Errorf("plan: %q is not scenario:levels with a known scenario", field)
		}
		for _, l := range strings.Split(levels, ",") {
			c, err := strconv.Atoi(l)
			if err != nil || c < 1 || c > 10000 {
				return nil, fmt.Errorf("plan: level %q of %s is not a number from 1 to 10000", l, name)
			}
			steps = append(steps, step{name, c})
		}
	}
	if len(steps) == 0 {
		return nil, errors.New("plan: empty")
	}
	return steps, nil
}

// benchConfig is what "load bench" was asked to do.
type benchConfig struct {
	server, out, results, logs, nodeDir string
	pgURL, redisURL, command            string
	plan                                []step
	run, base                           runConfig
	posts                               int
	interval                            time.Duration
	deadline                            time.Duration
	started                             time.Time
	mix                                 mix
	// wrk is the wrk binary, which measures the read and the baselines.
	wrk string
	// mcpSlices: the read over HTTP and as an MCP tool call on one server
	// with the OAuth provider on, alternating (mcp.go; 0: none).
	mcpSlices int
	// The cross-checks of the read at checkC (see crosscheck.go): this
	// tool's client beside wrk in wrkSlices alternating slices each, the
	// open loop at openShare of the closed loop's rate, the read with the
	// global limiter off and on in limiterSlices alternating slices each,
	// the read beside the session baseline in sessionSlices alternating
	// slices each, and the read with HS256 and with EdDSA access tokens
	// in algSlices alternating slices each (0: none, for each).
	checkC        int
	wrkSlices     int
	openShare     float64
	limiterSlices int
	sessionSlices int
	algSlices     int
	// The token endpoint's scenarios (oauth.go): at most oauthCodes codes
	// prepared for a code exchange step, and the read with the provider
	// off and on in providerSlices alternating slices each (0: none).
	oauthCodes     int
	providerSlices int
	// The server's refresh beside the rotate baseline (refreshcheck.go),
	// after the plan's last refresh step: at each of rotateLevels, in
	// rotateSlices alternating slices each (0: none).
	rotateLevels []int
	rotateSlices int
	// rotateSides are what the comparison's two sides run: the server's
	// refresh and the rotate baseline, or for a control run one program
	// on both sides, or the two swapped.
	rotateSides [2]string
	// serverEnv are settings added to the server's (and its twins'),
	// NAME=value, to measure a change of setting or to profile.
	serverEnv []string
	// baselinePprof, when set, is where the baseline serves Go's profiler.
	baselinePprof string
	// rotateBurn is busy work the rotate baseline adds to every rotation
	// (its -burn): a calibration of the comparison.
	rotateBurn time.Duration
}

// parseBench reads the flags of "load bench" and checks that PostgreSQL and
// Redis are on loopback.
func parseBench(args []string) (*benchConfig, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	c := &benchConfig{}
	fs.StringVar(&c.server, "server", "bin/server", "the server binary")
	fs.StringVar(&c.out, "out", "BENCHMARKS.md", "the report to write")
	fs.StringVar(&c.results, "results", "bench/out/results.jsonl", "JSON lines of every run (rewritten)")
	fs.StringVar(&c.logs, "logs", "bench/out", "folder of the server's and the baseline's logs")
	fs.StringVar(&c.nodeDir, "node-dir", "bench/sockets", "the node socket client package")
	fs.StringVar(&c.pgURL, "postgres", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL on loopback; a fresh database is created beside this one")
	fs.StringVar(&c.redisURL, "redis", "redis://127.0.0.1:6379/0", "Redis on loopback")
	fs.StringVar(&c.command, "command", "make bench", "the command to name in the report")
	plan := fs.String("plan", defaultPlan, "scenario:levels ...")
	mixFlag := fs.String("mix", defaultMix, "the blend of the mixed scenario")
	fs.DurationVar(&c.run.Duration, "d", 10*time.Second, "measured time of a server run")
	fs.DurationVar(&c.base.Duration, "base-d", 5*time.Second, "measured time of a baseline run")
	fs.DurationVar(&c.run.Warmup, "warmup", time.Second, "unmeasured warm-up before each run")
	fs.IntVar(&c.posts, "posts", 20, "posts published in a sockets run")
	fs.DurationVar(&c.interval, "interval", 250*time.Millisecond, "between two publishes of a sockets run")
	fs.DurationVar(&c.deadline, "deadline", 11*time.Minute, "budget from -started (builds included); steps left then are skipped")
	started := fs.Int64("started", 0, "Unix time the caller started (to report the wall time with the build)")
	fs.IntVar(&c.checkC, "check-c", 64, "the read level the cross-checks follow (wrk, open loop, limiter off and on), if the plan has it")
	fs.StringVar(&c.wrk, "wrk", "wrk", "the wrk binary, which measures the read and the baselines")
	fs.IntVar(&c.mcpSlices, "mcp-slices", 10, "the read over HTTP and as an MCP tool call, alternating, in this many slices of -d each (0: none)")
	fs.IntVar(&c.wrkSlices, "wrk-slices", 5, "the read by this tool and by wrk, alternating, in this many slices of -d each (whole seconds; 0: none)")
	fs.Float64Var(&c.openShare, "open", 0.7, "open-loop read at this share of the closed-loop read's rate (0: none)")
	fs.IntVar(&c.limiterSlices, "limiter-slices", 10, "the read with the limiter off and on, alternating, in this many slices of -d each (0: none)")
	fs.IntVar(&c.sessionSlices, "session-slices", 10, "the read and the session baseline, alternating, in this many slices of -d each (0: none)")
	fs.IntVar(&c.algSlices, "alg-slices", 10, "the read with HS256 and with EdDSA tokens, alternating, in this many slices of -d each (0: none)")
	fs.IntVar(&c.oauthCodes, "oauth-codes", 4000, "oauthcode: codes obtained through authorize + approve before the timed exchange (at most 30 s of it)")
	fs.IntVar(&c.providerSlices, "provider-slices", 6, "the read with the OAuth provider off and on, alternating, in this many slices of -d each (0: none)")
	rotateLevels := fs.String("rotate-c", defaultRotateLevels, "the levels at which the server's refresh and the rotate baseline are compared")
	fs.IntVar(&c.rotateSlices, "rotate-slices", defaultRotateSlices, "the server's refresh and the rotate baseline, alternating, in this many slices of -d each "+
		"at each -rotate-c level, after the plan's last refresh step (0: none)")
	rotateSides := fs.String("rotate-sides", sideServer+","+sideRotate, "the comparison's two sides in the order they run, each "+
		sideServer+" or "+sideRotate+": "+sideRotate+","+sideRotate+" or "+sideServer+","+sideServer+" measures the comparison itself (a control), "+
		sideRotate+","+sideServer+" swaps the sides")
	fs.DurationVar(&c.rotateBurn, "rotate-burn", 0, "busy work the rotate baseline adds to every rotation, to calibrate the comparison: "+
		"how much a program's extra CPU a refresh costs its rate (0 to 1ms; default: none)")
	fs.StringVar(&c.baselinePprof, "baseline-pprof", "", "serve the baseline's Go profiler on this loopback address (default: none)")
	fs.Func("server-env", "a setting NAME=value added to the server's (repeatable; for example PPROF_ADDR=127.0.0.1:6060)", func(v string) error {
		name, _, ok := strings.Cut(v, "=")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return fmt.Errorf("%q is not NAME=value", v)
		}
		c.serverEnv = append(c.serverEnv, v)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if c.oauthCodes < 1 || c.oauthCodes > 100000 || c.providerSlices < 0 || c.providerSlices > 100 {
		return nil, errors.New("bench: -oauth-codes must be from 1 to 100000, -provider-slices from 0 to 100")
	}
	if c.openShare < 0 || c.openShare > 2 {
		return nil, errors.New("bench: -open must be from 0 to 2")
	}
	for _, n := range []int{c.limiterSlices, c.wrkSlices, c.sessionSlices, c.algSlices, c.mcpSlices, c.rotateSlices} {
		if n < 0 || n > 100 {
			return nil, errors.New("bench: -wrk-slices, -limiter-slices, -session-slices, -alg-slices, -mcp-slices and -rotate-slices must be from 0 to 100")
		}
	}
	var err error
	if c.rotateLevels, err = parseLevels(*rotateLevels); err != nil {
		return nil, fmt.Errorf("bench: -rotate-c: %w", err)
	}
	if c.rotateSides, err = parseSides(*rotateSides); err != nil {
		return nil, fmt.Errorf("bench: -rotate-sides: %w", err)
	}
	if c.rotateBurn < 0 || c.rotateBurn > time.Millisecond {
		return nil, fmt.Errorf("bench: -rotate-burn %s: want 0 to 1ms", c.rotateBurn)
	}
	c.base.Warmup = c.run.Warmup
	c.started = time.Now()
	if *started > 0 {
		c.started = time.Unix(*started, 0)
	}
	if c.plan, err = parsePlan(*plan); err != nil {
		return nil, err
	}
	if c.mix, err = parseMix(*mixFlag); err != nil {
		return nil, err
	}
	if err := checkLoopbackURL(c.pgURL, "postgres", "postgresql"); err != nil {
		return nil, err
	}
	return c, checkLoopbackURL(c.redisURL, "redis")
}

// benchMain is "load bench", what make bench runs: a fresh database and
// Redis namespace, the server and the baseline started, every step of the
// plan run, BENCHMARKS.md written, everything removed again.
func benchMain(ctx context.Context, args []string) error {
	cfg, err := parseBench(args)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithDeadline(ctx, cfg.started.Add(cfg.deadline))
	defer cancel()
	if err := os.MkdirAll(cfg.logs, 0o755); err != nil {
		return err
	}
	_ = os.Remove(cfg.results)
	id := uniqueID()
	dbName, ns := "actionkit_bench_"+id, "actionkit-bench-"+id
	dbURL, err := withDatabase(cfg.pgURL, dbName)
	if err != nil {
		return err
	}
	meta := &Meta{Kind: "meta", Date: time.Now().UTC(), Command: cfg.command, Plan: planString(cfg.plan),
		Mix: cfg.mix.String(), Duration: cfg.run.Duration.String(), BaseDuration: cfg.base.Duration.String(),
		Warmup: cfg.run.Warmup.String(), Posts: cfg.posts, Interval: cfg.interval.String()}
	meta.Machine = describeMachine(ctx, cfg.pgURL, cfg.redisURL)
	meta.Machine.Wrk = wrkVersion(ctx, cfg.wrk)
	meta.MCPSlices = cfg.mcpSlices
	meta.OpenShare, meta.LimiterSlices, meta.WrkSlices = cfg.openShare, cfg.limiterSlices, cfg.wrkSlices
	meta.SessionSlices, meta.AlgSlices = cfg.sessionSlices, cfg.algSlices
	meta.OAuthCodes, meta.ProviderSlices = cfg.oauthCodes, cfg.providerSlices
	meta.RotateLevels, meta.RotateSlices = cfg.rotateLevels, cfg.rotateSlices
	defer cleanup(cfg, dbName, ns)
	secret := randomHex(32)
	settings := serverSettings(dbURL, cfg.redisURL, ns)
	for _, kv := range cfg.serverEnv {
		name, value, _ := strings.Cut(kv, "=")
		settings = withSetting(settings, name, value)
	}
	meta.Settings = settings
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	env := append(append(base, settings...), "ACCESS_TOKEN_SECRET="+secret, "DATA_ENCRYPTION_KEY="+randomHex(32))
	srv, url, err := startServer(ctx, cfg.server, env, filepath.Join(cfg.logs, "server.log"))
	if err != nil {
		return err
	}
	defer func() {
		if err := srv.stop(40 * time.Second); err != nil {
			fmt.Fprintf(os.Stderr, "load: server: %v\n", err)
		}
	}()
	meta.Idle = measureIdle(ctx, url+"/metrics", srv.pid())
	bl, blURL, err := startBaseline(ctx, append(base, "DATABASE_URL="+dbURL, "ACCESS_TOKEN_SECRET="+secret),
		baselineFlags(cfg.baselinePprof, cfg.rotateBurn), filepath.Join(cfg.logs, "baseline.log"))
	if err != nil {
		return err
	}
	defer func() { _ = bl.stop(10 * time.Second) }()
	fmt.Printf("server %s (pid %d), baseline %s; database %s, namespace %s\n", url, srv.pid(), blURL, dbName, ns)
	t := &target{base: url, metricsURL: url + "/metrics", pid: srv.pid(), databaseURL: dbURL,
		prefix: "load-" + id, mix: cfg.mix}
	t.pool = newUserPool(t.prefix, url)
	t.totp = newTOTPPool(t, cfg.run, argonBound(&meta.Argon))
	b := &benchRun{cfg: cfg, t: t, env: env, blURL: blURL, blPID: bl.pid(), argon: &meta.Argon}
	defer b.stopOAuth()
	b.runPlan(ctx)
	meta.Machine.LoadAfter = loadAvg()
	meta.WallSeconds = time.Since(cfg.started).Seconds()
	if err := appendJSONLine(cfg.results, meta); err != nil {
		return err
	}
	if err := writeReport(cfg.out, renderMarkdown(meta, b.runs)); err != nil {
		return err
	}
	fmt.Printf("wrote %s and %s in %.0fs\n", cfg.out, cfg.results, meta.WallSeconds)
	return nil
}

// benchRun is one "load bench" under way.
type benchRun struct {
	cfg   *benchConfig
	t     *target  // the server
	env   []string // the server's environment, its secret included
	blURL string   // the baseline server
	blPID int
	argon *ArgonBound
	runs  []*Result
	oauth *oauthBench // the OAuth server, once an OAuth step started it
}

// record keeps r, prints it and appends it to the results file.
func (b *benchRun) record(r *Result) {
	b.runs = append(b.runs, r)
	printSummary(os.Stdout, r)
	if err := appendJSONLine(b.cfg.results, r); err != nil {
		fmt.Fprintf(os.Stderr, "load: %v\n", err)
	}
}

// measureBound measures the Argon2id bound, unless the bench is over.
func (b *benchRun) measureBound(ctx context.Context) {
	if ctx.Err() == nil {
		m := measureArgon(3 * time.Second)
		b.argon.add(m)
		fmt.Printf("Argon2id bound: %.1f hashes/s (%.1f ms a hash, %d at once)\n", m.PerSec, m.HashMs, m.Workers)
	}
}

// runPlan runs every step, each server step preceded by the baselines at
// its concurrency the first time that level comes up, the read at
// cfg.checkC followed by its cross-checks and the plan's last refresh by
// the comparison with the rotate baseline. The Argon2id bound is measured
// before and after each series of login steps (one and two steps), next
// to the runs it bounds,
// on a machine whose speed drifts. A step that fails is recorded with its
// error and the plan goes on.
func (b *benchRun) runPlan(ctx context.Context) {
	cfg := b.cfg
	measuredBase := map[int]bool{}
	checked, providerChecked := false, false
	lastRefresh := -1
	for i, s := range cfg.plan {
		if s.Scenario == "refresh" {
			lastRefresh = i
		}
	}
	for i, s := range cfg.plan {
		login := isLogin(s.Scenario)
		if login && (i == 0 || !isLogin(cfg.plan[i-1].Scenario)) {
			b.measureBound(ctx)
		}
		if ctx.Err() != nil {
			b.record(&Result{Kind: "run", Scenario: s.Scenario, Target: "server", Concurrency: s.Concurrency, Error: "skipped: " + ctx.Err().Error()})
			continue
		}
		b.analyze(ctx)
		if s.Scenario != "sockets" && !measuredBase[s.Concurrency] {
			measuredBase[s.Concurrency] = true
			b.runBaselines(ctx, s.Concurrency)
		}
		var r *Result
		if isOAuthScenario(s.Scenario) {
			r = b.runOAuthStep(ctx, s)
		} else {
			r = runStep(ctx, cfg, b.t, s)
		}
		b.record(r)
		if isOAuthScenario(s.Scenario) && !providerChecked && cfg.providerSlices > 0 && ctx.Err() == nil {
			providerChecked = true
			b.compareProvider(ctx, cfg.checkC, cfg.providerSlices)
		}
		if s.Scenario == "read" && s.Concurrency == cfg.checkC && !checked {
			checked = true
			b.crossCheck(ctx, r)
		}
		if i == lastRefresh && cfg.rotateSlices > 0 && len(cfg.rotateLevels) > 0 && ctx.Err() == nil {
			b.compareRefresh(ctx)
		}
		if login && (i == len(cfg.plan)-1 || !isLogin(cfg.plan[i+1].Scenario)) {
			b.measureBound(ctx)
		}
		time.Sleep(500 * time.Millisecond) // let the server settle between runs
	}
}

// isLogin reports whether scenario is bounded by password hashing: the
// login, in one step or two. The Argon2id bound is measured around each
// series of them.
func isLogin(scenario string) bool { return scenario == "login" || scenario == "mfalogin" }

// argonBound returns the bound known in b, measuring it first (for 2 s)
// when nothing was measured yet.
func argonBound(b *ArgonBound) func() float64 {
	return func() float64 {
		if b.PerSec <= 0 {
			b.add(measureArgon(2 * time.Second))
		}
		return b.PerSec
	}
}

// runBaselines measures every baseline at concurrency c, with wrk.
func (b *benchRun) runBaselines(ctx context.Context, c int) {
	bt := *b.t
	bt.base, bt.pid, bt.metricsURL = b.blURL, b.blPID, ""
	for _, bl := range wrkBaselines() {
		r := &Result{Kind: "run", Scenario: bl.Name, Target: "baseline", Concurrency: c}
		b.record(orFailed(r, runWrk(ctx, b.cfg.wrk, &bt, bl.Path, bl.Auth, b.cfg.base, r), step{bl.Name, c}))
	}
}

// runStep runs one step of the plan on the server: the read with wrk, the
// sockets with node's clients, the others with this tool's virtual users.
func runStep(ctx context.Context, cfg *benchConfig, t *target, s step) *Result {
	switch s.Scenario {
	case "sockets":
		r, err := runSockets(ctx, t, socketConfig{Clients: s.Concurrency, Posts: cfg.posts, Interval: cfg.interval,
			Procs: (s.Concurrency + 999) / 1000, Users: 100, NodeDir: cfg.nodeDir,
			ConnectTimeout: 90 * time.Second, DeliverTimeout: 10 * time.Second})
		return orFailed(r, err, s)
	case "read":
		r := &Result{Kind: "run", Scenario: "read", Target: "server", Concurrency: s.Concurrency}
		return orFailed(r, runWrk(ctx, cfg.wrk, t, "/v1/users/read", true, cfg.run, r), s)
	}
	sc, err := lookupScenario(s.Scenario, t)
	var r *Result
	if err == nil {
		r, err = runHTTP(ctx, t, t.base, sc, s.Concurrency, cfg.run)
	}
	if r != nil && s.Scenario == "mixed" {
		r.Mix = t.mix.String()
	}
	return orFailed(r, err, s)
}

// orFailed returns r, or a result recording err.
func orFailed(r *Result, err error, s step) *Result {
	if err == nil {
		return r
	}
	target := "server"
	if isBaseline(s.Scenario) {
		target = "baseline"
	}
	return &Result{Kind: "run", Scenario: s.Scenario, Target: target, Concurrency: s.Concurrency, Started: time.Now(), Error: err.Error()}
}

// serverSettings are the server's variables for a bench, but the secret.
// The limiters are on, as in production: the windows and the sync interval
// keep their defaults, and only the maxima are raised to benchLimit, since
// all the bench's traffic comes from one address (127.0.0.1) and the
// defaults (300 requests in 5 minutes, 10 logins in 15) would refuse
// almost all of it. The global limiter still counts every request in
// process and syncs the counts with Redis every second, the credential
// classes still count every login and registration in Redis, and every
// refresh is counted in its session's row: the same work as with the
// defaults, without the refusals.
func serverSettings(dbURL, redisURL, ns string) []string {
	return []string{
		"APP_ENV=production", "DATABASE_URL=" + dbURL, "REDIS_URL=" + redisURL, "JOBS_NAMESPACE=" + ns,
		"RATE_LIMIT_MAX=" + strconv.Itoa(benchLimit), "AUTH_RATE_LIMIT_MAX=" + strconv.Itoa(benchLimit),
		"LOG_LEVEL=warn", "SHUTDOWN_DRAIN=0s", "ACCESS_TOKEN_EXPIRES_IN=" + benchAccessTTL.String(),
	}
}

// benchAccessTTL is the bench server's ACCESS_TOKEN_EXPIRES_IN: wrk's
// tokens outlive any bench.
const benchAccessTTL = time.Hour

// baselineFlags are the flags of "load baseline" that give the rotate
// baseline the bench server's settings: its access tokens' lifetime and
// its chains' refresh budget (the rest are the server's defaults), where
// to serve its profiler, if anywhere, and the busy work of a calibration.
func baselineFlags(pprofAddr string, burn time.Duration) []string {
	flags := []string{"-access-ttl", benchAccessTTL.String(), "-refresh-budget", strconv.Itoa(benchLimit)}
	if pprofAddr != "" {
		flags = append(flags, "-pprof", pprofAddr)
	}
	if burn > 0 {
		flags = append(flags, "-burn", burn.String())
	}
	return flags
}

// benchLimit is the bench server's RATE_LIMIT_MAX and AUTH_RATE_LIMIT_MAX:
// on, but beyond what one bench sends from its one address.
const benchLimit = 1_000_000_000

// withLimiterOff returns env with the global limiter off (RATE_LIMIT_MAX=0)
// and nothing else changed.
func withLimiterOff(env []string) []string { return withSetting(env, "RATE_LIMIT_MAX", "0") }

// withSetting returns env with name set to value, any earlier value of it
// removed.
func withSetting(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// measureIdle reads the server's footprint after start-up, once it has
// settled for a few seconds.
func measureIdle(ctx context.Context, metricsURL string, pid int) Idle {
	select {
	case <-time.After(3 * time.Second):
	case <-ctx.Done():
	}
	var idle Idle
	if values, err := scrape(ctx, &http.Client{Timeout: 5 * time.Second}, metricsURL); err == nil {
		idle.RSS = int64(values["process_resident_memory_bytes"])
		idle.Goroutines = int64(values["go_goroutines"])
	}
	if st, err := procStatus(pid); err == nil {
		idle.VmRSS, idle.VmHWM = st["VmRSS"], st["VmHWM"]
	}
	return idle
}

// cleanup drops the bench's database and deletes its Redis keys; it runs
// after the server stopped.
func cleanup(cfg *benchConfig, dbName, ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := dropDatabase(ctx, cfg.pgURL, dbName); err != nil {
		fmt.Fprintf(os.Stderr, "load: drop database %s: %v\n", dbName, err)
	}
	if n, err := deleteNamespace(cfg.redisURL, ns); err != nil {
		fmt.Fprintf(os.Stderr, "load: delete Redis keys of %s: %v\n", ns, err)
	} else {
		fmt.Printf("dropped database %s; deleted %d Redis keys of %s\n", dbName, n, ns)
	}
}

// planString writes steps back as "scenario:level ...".
func planString(steps []step) string {
	var parts []string
	for _, s := range steps {
		parts = append(parts, fmt.Sprintf("%s:%d", s.Scenario, s.Concurrency))
	}
	return strings.Join(parts, " ")
}

// uniqueID is a time stamp and random hex, usable in database names and
// Redis namespaces.
func uniqueID() string { return time.Now().UTC().Format("20060102t150405") + "_" + randomHex(3) }

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
