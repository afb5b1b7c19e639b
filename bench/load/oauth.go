package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// The token endpoint of the OAuth provider (CONTRACT §19) under load: the
// authorization code exchange (oauthcode) and the refresh grant with
// rotation (oauthrefresh). They run on a second server, the OAuth server,
// started for them on the bench's database and Redis namespace with
// OAUTH_PROVIDER=true, ACCESS_TOKEN_ALG=EdDSA and PUBLIC_URL its own
// address: the bench's server keeps HS256 tokens, which its baselines
// verify, and production, where PUBLIC_URL must be https. The read on both
// servers in alternating slices shows what turning the provider on costs
// the read path.

// oauthScenarioNames are the scenarios run on the OAuth server.
var oauthScenarioNames = []string{"oauthcode", "oauthrefresh"}

// isOAuthScenario reports whether name runs on the OAuth server.
func isOAuthScenario(name string) bool {
	for _, n := range oauthScenarioNames {
		if n == name {
			return true
		}
	}
	return false
}

// oauthRedirect is the bench client's redirect URI; nothing listens there:
// the code is read from the approve answer's redirectTo.
const oauthRedirect = "https://app.bench.example/cb"

// oauthScope is what the bench client asks for: an ID token (RS256, the
// default of an admin client) beside the access and refresh tokens.
const oauthScope = "openid profile email"

// oauthBench is the OAuth server and the client registered at it.
type oauthBench struct {
	t        *target // the OAuth server, with the bench's user pool
	stop     func()
	clientID string
	secret   string
	basic    string // the Authorization header of the client
	err      error  // why it could not start, if it could not
}

// oauthSettings returns env for the OAuth server on port: the provider on,
// EdDSA access tokens, PUBLIC_URL its address. APP_ENV is test, since
// production wants an https PUBLIC_URL and the bench speaks plain HTTP on
// loopback; the limits, the hashing and the database are the bench's.
func oauthSettings(env []string, port int) []string {
	issuer := fmt.Sprintf("http://127.0.0.1:%d", port)
	env = withSetting(env, "APP_ENV", "test")
	env = withSetting(env, "OAUTH_PROVIDER", "true")
	env = withSetting(env, "ACCESS_TOKEN_ALG", "EdDSA")
	env = withSetting(env, "DEMO_ENABLED", "false")
	// The bench answers the interaction through the API, never on a page;
	// with the demo off the server wants the page named all the same.
	env = withSetting(env, "OAUTH_INTERACTION_URL", issuer+"/signin")
	return withSetting(env, "PUBLIC_URL", issuer)
}

// oauthServer starts the OAuth server and registers the bench's client the
// first time it is asked for, and returns the same one afterwards.
func (b *benchRun) oauthServer(ctx context.Context) (*oauthBench, error) {
	if b.oauth != nil {
		return b.oauth, b.oauth.err
	}
	o := &oauthBench{stop: func() {}}
	b.oauth = o
	port, err := freePort()
	if err != nil {
		o.err = err
		return o, err
	}
	srv, base, err := startServerPort(ctx, b.cfg.server, oauthSettings(b.env, port), port, filepath.Join(b.cfg.logs, "server-oauth.log"))
	if err != nil {
		o.err = fmt.Errorf("start the OAuth server: %w", err)
		return o, o.err
	}
	o.stop = func() { _ = srv.stop(40 * time.Second) }
	t := *b.t
	t.base, t.metricsURL, t.pid = base, base+"/metrics", srv.pid()
	// Users of its own, logged in on it: the bench's users hold HS256
	// tokens, which a server on EdDSA accepts only when they were issued
	// before its first key pair, and earlier steps (the algorithms'
	// comparison) may have made one before those users last refreshed.
	t.pool = newUserPool(b.t.prefix+"-oauth", base)
	o.t = &t
	if o.clientID, o.secret, err = registerOAuthClient(ctx, b.t.databaseURL); err != nil {
		o.err = fmt.Errorf("register the bench's OAuth client: %w", err)
		return o, o.err
	}
	o.basic = "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(o.clientID)+":"+url.QueryEscape(o.secret)))
	fmt.Printf("OAuth server %s (pid %d), client %s\n", base, srv.pid(), o.clientID)
	return o, nil
}

// stopOAuth stops the OAuth server, if it was started.
func (b *benchRun) stopOAuth() {
	if b.oauth != nil {
		b.oauth.stop()
	}
}

// registerOAuthClient writes a confidential client (client_secret_basic,
// code and refresh grants, RS256 ID tokens) into the database, as the admin
// action /v1/admins/oauth/clients/create does, and returns its id and
// secret.
func registerOAuthClient(ctx context.Context, dsn string) (string, string, error) {
	db, err := models.Open(ctx, dsn, 1)
	if err != nil {
		return "", "", err
	}
	defer db.Close()
	id, secret := "ak_"+randomB64(24), randomB64(32)
	hash := auth.HashOpaqueToken(secret)
	scope := oauthScope
	c := &models.OAuthClient{ID: uuid.Must(uuid.NewV7()), ClientID: id, SecretHash: &hash, Name: "Bench app",
		RedirectURIs: []string{oauthRedirect}, GrantTypes: []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethod: "client_secret_basic", Scope: &scope, MinAAL: 1, IDTokenAlg: "RS256",
		Source: models.OAuthClientAdmin}
	_, err = (models.OAuthClientStore{}).Insert(ctx, db, c, time.Now().UTC())
	return id, secret, err
}

// randomB64 returns n random bytes as unpadded base64url.
func randomB64(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// pkcePair returns a fresh code verifier and its S256 challenge.
func pkcePair() (verifier, challenge string) {
	verifier = randomB64(32)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// grant is an authorization code and the verifier it needs.
type grant struct {
	code, verifier string
	approved       time.Time
}

// authorizeQuery is the authorization request of the bench's client.
func (o *oauthBench) authorizeQuery(challenge, state string) string {
	return url.Values{"client_id": {o.clientID}, "redirect_uri": {oauthRedirect}, "response_type": {"code"},
		"scope": {oauthScope}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {state}}.Encode()
}

// obtainCode runs the real flow for w's user: GET /oauth2/authorize (302
// to the interaction page with the oauth-request cookie), then
// /v1/users/oauth/approve as the user with that cookie; the code is in the
// redirectTo of the answer.
func (o *oauthBench) obtainCode(ctx context.Context, w *worker) (grant, error) {
	verifier, challenge := pkcePair()
	state := randomB64(8)
	if _, err := w.callWant(ctx, "authorize", http.StatusFound, http.MethodGet, "/oauth2/authorize?"+o.authorizeQuery(challenge, state), nil); err != nil {
		return grant{}, err
	}
	loc, err := url.Parse(string(w.res.Header.Peek("Location")))
	if err != nil {
		return grant{}, fmt.Errorf("authorize: Location: %w", err)
	}
	requestID := loc.Query().Get("oauth_request")
	var cookie fasthttp.Cookie
	cookie.SetKey("oauth-request")
	if requestID == "" || !w.res.Header.Cookie(&cookie) {
		return grant{}, fmt.Errorf("authorize: no oauth_request (%q) or no oauth-request cookie", loc)
	}
	a, err := w.call(ctx, "approve", http.MethodPost, "/v1/users/oauth/approve", map[string]string{"requestId": requestID},
		"Authorization", w.user.authorization(), "Cookie", "oauth-request="+string(cookie.Value()))
	if err != nil {
		return grant{}, err
	}
	var approved struct {
		RedirectTo string `json:"redirectTo"`
	}
	if err := w.decode("approve", a, &approved); err != nil {
		return grant{}, err
	}
	to, err := url.Parse(approved.RedirectTo)
	if err != nil || to.Query().Get("code") == "" || to.Query().Get("state") != state {
		return grant{}, fmt.Errorf("approve: redirectTo %q has no code or another state", approved.RedirectTo)
	}
	return grant{code: to.Query().Get("code"), verifier: verifier, approved: time.Now()}, nil
}

// tokenAnswer is the token endpoint's answer.
type tokenAnswer struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	IDToken      string `json:"id_token"`
	TokenType    string `json:"token_type"`
}

// token posts form to /oauth2/token with the client's Basic credentials,
// measured under kind, and checks that the answer carries every token the
// bench's client gets (access, refresh and ID token).
func (o *oauthBench) token(w *worker, kind string, form url.Values) (tokenAnswer, error) {
	w.req.Reset()
	w.req.SetRequestURI(w.base + "/oauth2/token")
	w.req.Header.SetMethod(http.MethodPost)
	w.req.Header.SetContentType("application/x-www-form-urlencoded")
	w.req.Header.Set("Authorization", o.basic)
	w.req.SetBodyString(form.Encode())
	start := time.Now()
	err := w.client.Do(w.req, w.res)
	var a answer
	if err == nil {
		a = answer{status: w.res.StatusCode(), body: w.res.Body()}
	}
	ok := err == nil && a.status == http.StatusOK
	w.count(kind, time.Since(start), a, err, ok)
	if !ok {
		return tokenAnswer{}, errors.New(failureKey(kind, a, err))
	}
	var t tokenAnswer
	if err := w.decode(kind, a, &t); err != nil {
		return t, err
	}
	if t.AccessToken == "" || t.RefreshToken == "" || t.IDToken == "" || t.TokenType != "Bearer" {
		key := fmt.Sprintf("200 answer without access, refresh or ID token (%s)", kind)
		if w.measuring {
			w.rec.errors[key]++
		}
		return t, errors.New(key)
	}
	return t, nil
}

// exchange trades g for tokens (grant_type authorization_code).
func (o *oauthBench) exchange(w *worker, g grant) (tokenAnswer, error) {
	return o.token(w, "code", url.Values{"grant_type": {"authorization_code"}, "code": {g.code},
		"redirect_uri": {oauthRedirect}, "code_verifier": {g.verifier}})
}

// oauthCodeConfig bounds the code exchange: codes prepared before the
// timed phase, at most count of them and for at most prepareFor (a code
// lives 60 s, so every one must be spent well within that).
type oauthCodeConfig struct {
	count      int
	prepareFor time.Duration
}

// runOAuthCode measures the code exchange at concurrency c: every worker
// (one of the pool's users) first obtains its share of count codes through
// the real flow (authorize, approve), unmeasured; then the workers exchange
// them in a closed loop, the first ones during the warm-up, unmeasured,
// until the codes or the measured time run out. The rate is over the
// codes exchanged in the measured window.
func (b *benchRun) runOAuthCode(ctx context.Context, c int, cc oauthCodeConfig) (*Result, error) {
	o, err := b.oauthServer(ctx)
	if err != nil {
		return nil, err
	}
	client := newClient(o.t.base, c)
	defer client.CloseIdleConnections()
	workers := make([]*worker, c)
	for i := range workers {
		workers[i] = newWorker(i, o.t.base, client)
	}
	if err := shareUsers(ctx, o.t, workers); err != nil {
		return nil, fmt.Errorf("oauthcode: prepare: %w", err)
	}
	codes, prepared, took, err := prepareCodes(ctx, o, workers, cc)
	if err != nil {
		return nil, fmt.Errorf("oauthcode: prepare codes: %w", err)
	}
	fmt.Printf("oauthcode c=%d: %d codes obtained through authorize + approve in %.1f s\n", c, prepared, took.Seconds())
	res := &Result{Kind: "run", Scenario: "oauthcode", Target: "server", Concurrency: c, Started: time.Now()}
	smp := startSampler(ctx, o.t.metricsURL, o.t.pid)
	m, warm := exchangeCodes(ctx, b.cfg.run, workers, codes, o)
	peak, use := smp.stop()
	res.Peak, res.CPU = &peak, &use
	fill(res, m)
	left := prepared - warm - int(res.Ops)
	res.Checks = []Check{{Name: "codes obtained through the real flow", OK: prepared > 0 && res.Failed == 0,
		Detail: fmt.Sprintf("%d codes obtained by authorize + approve in %.1f s before the timed phase; %d exchanged in the warm-up, "+
			"%d measured, %d left when the measured time ran out", prepared, took.Seconds(), warm, res.Ops, left)}}
	if err := ctx.Err(); err != nil {
		res.Error = "cut short: " + err.Error()
	}
	return res, nil
}

// prepareCodes has every worker obtain codes for its user, round-robin up to
// cc.count in all, stopping early after cc.prepareFor. It returns each
// worker's codes, their number and how long it took.
func prepareCodes(ctx context.Context, o *oauthBench, workers []*worker, cc oauthCodeConfig) ([][]grant, int, time.Duration, error) {
	start := time.Now()
	stopAt := start.Add(cc.prepareFor)
	per := (cc.count + len(workers) - 1) / len(workers)
	codes := make([][]grant, len(workers))
	errs := make([]error, len(workers))
	var wg sync.WaitGroup
	for i, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.measuring = false
			for len(codes[i]) < per && time.Now().Before(stopAt) && ctx.Err() == nil {
				g, err := o.obtainCode(ctx, w)
				if err != nil {
					errs[i] = err
					return
				}
				codes[i] = append(codes[i], g)
			}
		}()
	}
	wg.Wait()
	n := 0
	for _, c := range codes {
		n += len(c)
	}
	return codes, n, time.Since(start), errors.Join(append(errs, ctx.Err())...)
}

// exchangeCodes runs the exchanges: each worker spends its own codes one
// after another, unmeasured during cfg.Warmup, measured afterwards until
// cfg.Duration ends or its codes do. It returns what was measured and how
// many codes the warm-up spent.
func exchangeCodes(ctx context.Context, cfg runConfig, workers []*worker, codes [][]grant, o *oauthBench) (measured, int) {
	from := time.Now().Add(cfg.Warmup)
	deadline := from.Add(cfg.Duration)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		last = from
		warm int
	)
	for i, w := range workers {
		w.rec = newRecorder()
		wg.Add(1)
		go func() {
			defer wg.Done()
			var end time.Time
			spent := 0
			for _, g := range codes[i] {
				now := time.Now()
				if ctx.Err() != nil || !now.Before(deadline) {
					break
				}
				w.measuring = !now.Before(from)
				_, err := o.exchange(w, g)
				if !w.measuring {
					spent++
					continue
				}
				end = time.Now()
				w.rec.ops = append(w.rec.ops, end.Sub(now))
				if err != nil {
					w.rec.failed++
				}
			}
			mu.Lock()
			defer mu.Unlock()
			warm += spent
			if end.After(last) {
				last = end
			}
		}()
	}
	wg.Wait()
	total := newRecorder()
	for _, w := range workers {
		total.merge(w.rec)
	}
	return measured{elapsed: last.Sub(from), rec: total}, warm
}

// oauthChain is one worker's OAuth session: its current refresh token.
type oauthChain struct {
	refresh string
	broken  bool
}

// runOAuthRefresh measures the refresh grant at concurrency c: every
// worker first signs its user in through the real flow (authorize,
// approve, code exchange), which opens an OAuth session of its own, then
// rotates that session's refresh token in a closed loop, keeping each
// successor. A chain whose state is unknown after a failure retires its
// worker. The check refreshes every chain once more afterwards.
func (b *benchRun) runOAuthRefresh(ctx context.Context, c int) (*Result, error) {
	o, err := b.oauthServer(ctx)
	if err != nil {
		return nil, err
	}
	chains := make([]*oauthChain, c)
	sc := &scenario{name: "oauthrefresh",
		prepare: func(ctx context.Context, t *target, workers []*worker) error {
			if err := shareUsers(ctx, t, workers); err != nil {
				return err
			}
			return forEach(workers, func(i int, w *worker) error {
				g, err := o.obtainCode(ctx, w)
				if err != nil {
					return err
				}
				tok, err := o.exchange(w, g)
				chains[i] = &oauthChain{refresh: tok.RefreshToken}
				return err
			})
		},
		op: func(ctx context.Context, w *worker) error { return o.refresh(w, chains[w.id]) },
		verify: func(ctx context.Context, t *target, workers []*worker) []Check {
			return []Check{o.refreshOnceMore(t, chains)}
		},
	}
	return runHTTP(ctx, o.t, o.t.base, sc, c, b.cfg.run)
}

// forEach runs f for every worker at once and joins their errors.
func forEach(workers []*worker, f func(i int, w *worker) error) error {
	errs := make([]error, len(workers))
	var wg sync.WaitGroup
	for i, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(i, w)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// refresh rotates ch's refresh token (grant_type refresh_token) and keeps
// the successor; a failure breaks the chain and retires the worker
// (errStop), as the first-party refresh does.
func (o *oauthBench) refresh(w *worker, ch *oauthChain) error {
	if ch.broken {
		return fmt.Errorf("%w: OAuth refresh chain broken earlier", errStop)
	}
	tok, err := o.token(w, "refresh_token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {ch.refresh}})
	if err != nil {
		ch.broken = true
		return fmt.Errorf("%w: %v", errStop, err)
	}
	if tok.RefreshToken == ch.refresh {
		ch.broken = true
		return fmt.Errorf("%w: the refresh token was not rotated", errStop)
	}
	ch.refresh = tok.RefreshToken
	return nil
}

// refreshOnceMore refreshes every chain once more after the run: none was
// lost or forked.
func (o *oauthBench) refreshOnceMore(t *target, chains []*oauthChain) Check {
	w := newWorker(-1, t.base, newClient(t.base, 1))
	failed := 0
	var first string
	for _, ch := range chains {
		if err := o.refresh(w, ch); err != nil {
			failed++
			if first == "" {
				first = strings.TrimPrefix(err.Error(), errStop.Error()+": ")
			}
		}
	}
	return Check{Name: "every OAuth chain refreshes once more", OK: failed == 0,
		Detail: fmt.Sprintf("%d of %d chains refreshed%s", len(chains)-failed, len(chains), suffix(first))}
}

// runOAuthStep runs one step of an OAuth scenario on the OAuth server.
func (b *benchRun) runOAuthStep(ctx context.Context, s step) *Result {
	var (
		r   *Result
		err error
	)
	switch s.Scenario {
	case "oauthcode":
		r, err = b.runOAuthCode(ctx, s.Concurrency, oauthCodeConfig{count: b.cfg.oauthCodes, prepareFor: 30 * time.Second})
	case "oauthrefresh":
		r, err = b.runOAuthRefresh(ctx, s.Concurrency)
	default:
		err = fmt.Errorf("unknown OAuth scenario %q", s.Scenario)
	}
	return orFailed(r, err, s)
}

// compareProvider measures the read at concurrency c, by wrk, with the
// OAuth provider off and on, in n alternating slices: turning the provider
// on must cost the read path nothing. The "on" side is the OAuth server;
// the "off" side is a server started for this with the very same settings
// (EdDSA access tokens, APP_ENV test, the demo off) but OAUTH_PROVIDER
// false, on the same database and Redis namespace, each with users of its
// own: only the provider differs between the two.
func (b *benchRun) compareProvider(ctx context.Context, c, n int) {
	labels := [2]Result{{Scenario: "read", Target: "server", Series: "provider", Provider: "off", Concurrency: c},
		{Scenario: "read", Target: "server", Series: "provider", Provider: "on", Concurrency: c}}
	o, err := b.oauthServer(ctx)
	if err != nil {
		b.failSides(labels, err)
		return
	}
	off, stop, err := b.providerOffTwin(ctx)
	if err != nil {
		b.failSides(labels, fmt.Errorf("start the server with the provider off: %w", err))
		return
	}
	defer stop()
	b.compareWrk(ctx, [2]*target{off, o.t}, [2]string{"/v1/users/read", "/v1/users/read"}, labels, n)
	if q, on, off, ok := providerRatio(b.runs); ok {
		fmt.Printf("read at %d: provider on %s req/s, off %s req/s: on/off %.2f (want at least 0.95)\n", c, fmtRate(on), fmtRate(off), q)
	}
}

// providerOffTwin starts the OAuth server's twin with the provider off and
// returns its target, with users of its own, and how to stop it.
func (b *benchRun) providerOffTwin(ctx context.Context) (*target, func(), error) {
	port, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	env := withSetting(oauthSettings(b.env, port), "OAUTH_PROVIDER", "false")
	srv, base, err := startServerPort(ctx, b.cfg.server, env, port, filepath.Join(b.cfg.logs, "server-oauth-off.log"))
	if err != nil {
		return nil, nil, err
	}
	t := *b.t
	t.base, t.metricsURL, t.pid = base, base+"/metrics", srv.pid()
	t.pool = newUserPool(b.t.prefix+"-oauthoff", base)
	return &t, func() { _ = srv.stop(40 * time.Second) }, nil
}

// providerRatio is the read rate with the provider on over the rate with
// it off, in the alternating "provider" series.
func providerRatio(runs []*Result) (ratio, on, off float64, ok bool) {
	return seriesRatio(runs, "provider", func(r *Result) string { return r.Provider }, "on", "off")
}
