package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The two-step login (scenario "mfalogin"): users with TOTP on log in with
// their password, which answers 403 USER_FORBIDDEN_MFA_REQUIRED with an
// mfaToken after the password hash, then finish at /v1/users/mfa/verify
// with a code computed here from their secret. The server accepts each
// 30-second step of a secret once, and steps T-1..T+1 (its default
// MFA_TOTP_SKEW of 1), so a user gives at most a few logins a step: the
// virtual users share a pool of enrolled users, each taking the one whose
// last step lies furthest back, sized from the Argon2id bound so that no
// user is needed twice in a step.

// totpPeriod is the TOTP step; totpSkew the steps the server accepts on
// either side of the current one.
const (
	totpPeriod = 30
	totpSkew   = 1
	// pastStepMargin is how much of the current step must be left to use
	// the previous step's code, which the server stops accepting when the
	// next step begins.
	pastStepMargin = 5 * time.Second
)

// errNoFreeUser fails an operation that found every enrolled user's
// window spent: the pool was too small for the rate.
var errNoFreeUser = errors.New("no enrolled user has a TOTP step left in this window")

// totpCode computes the RFC 6238 code of key at step (HMAC-SHA1, six
// digits), as an authenticator app does.
func totpCode(key []byte, step int64) string {
	var counter [8]byte
	binary.BigEndian.PutUint64(counter[:], uint64(step))
	mac := hmac.New(sha1.New, key)
	mac.Write(counter[:])
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	n := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	return fmt.Sprintf("%06d", n%1_000_000)
}

// usableStep returns the first step after last whose code the server
// accepts at now, preferring the oldest: the previous step while enough
// of the current one is left, else the current or the next one. ok is
// false when every step of the window was used.
func usableStep(last int64, now time.Time) (step int64, ok bool) {
	current := now.Unix() / totpPeriod
	first := current - totpSkew
	left := time.Unix((current+1)*totpPeriod, 0).Sub(now)
	if left < pastStepMargin {
		first = current
	}
	step = max(first, last+1)
	return step, step <= current+totpSkew
}

// totpUser is an enrolled user: its secret and the last step it used.
type totpUser struct {
	email    string
	key      []byte
	lastStep int64
}

// totpPool enrols users on demand and lends them to the virtual users,
// least recently used first. It counts the first steps answered
// MFA_REQUIRED and the second steps completed, for the check that only
// the first ones hash a password.
type totpPool struct {
	users  *userPool // the accounts, registered as the other scenarios' are
	now    func() time.Time
	argon  func() float64 // the Argon2id bound, hashes a second (measured when unknown)
	cfg    runConfig      // the runs' length, for the pool's size
	target *target

	mu         sync.Mutex
	free       []*totpUser // least recently used first
	enrolled   int
	need       int     // users the runs so far needed, each its own share
	hashesFrom float64 // the server's actionkit_password_hashes_total before the run
	first      atomic.Int64
	second     atomic.Int64
}

// newTOTPPool returns an empty pool registering its users at t, for runs
// of cfg; argon returns the Argon2id bound.
func newTOTPPool(t *target, cfg runConfig, argon func() float64) *totpPool {
	return &totpPool{users: newUserPool(t.prefix+"-totp", t.base), now: time.Now, argon: argon, cfg: cfg, target: t}
}

// poolSize is how many users a run of c virtual users needs: every login
// the server can make in the run (at most the Argon2id bound a second,
// each needing a hash) over the two steps of a window each user gives at
// least, twice over (a bound measured while the machine was busier than
// in the run is low), plus two a virtual user.
func poolSize(bound float64, cfg runConfig, c int) int {
	logins := bound * (cfg.Warmup + cfg.Duration).Seconds()
	return int(math.Ceil(logins)) + 2*c
}

// take lends the least recently used user that still has a step in the
// current window, and the step it is to use. When none has, it waits for
// the next step (or ctx) and fails: the pool was too small, which the
// failure shows, and the virtual user does not spin meanwhile.
func (p *totpPool) take(ctx context.Context) (*totpUser, int64, error) {
	if u, step, ok := p.takeFree(); ok {
		return u, step, nil
	}
	now := p.now()
	select {
	case <-time.After(time.Unix((now.Unix()/totpPeriod+1)*totpPeriod, 0).Sub(now)):
	case <-ctx.Done():
	}
	return nil, 0, errNoFreeUser
}

// takeFree is take without the wait.
func (p *totpPool) takeFree() (*totpUser, int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	for i, u := range p.free {
		if step, ok := usableStep(u.lastStep, now); ok {
			p.free = append(p.free[:i], p.free[i+1:]...)
			u.lastStep = step // spent now, whatever the login's fate
			return u, step, true
		}
	}
	return nil, 0, false
}

// put gives u back, behind the others.
func (p *totpPool) put(u *totpUser) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = append(p.free, u)
}

// prepare enrols the users the run needs, beside those of earlier runs
// (whose steps may still be spent), and reads the server's hash counter.
func (p *totpPool) prepare(ctx context.Context, _ *target, workers []*worker) error {
	p.need += poolSize(p.argon(), p.cfg, len(workers))
	if err := p.ensure(ctx, p.need); err != nil {
		return err
	}
	p.first.Store(0)
	p.second.Store(0)
	p.hashesFrom = p.hashes(ctx)
	return nil
}

// ensure makes the pool hold at least n enrolled users.
func (p *totpPool) ensure(ctx context.Context, n int) error {
	accounts, err := p.users.ensure(ctx, n)
	if err != nil {
		return err
	}
	w := newWorker(-1, p.target.base, p.users.client)
	for _, a := range accounts[p.enrolled:] {
		u, err := p.enroll(ctx, w, a)
		if err != nil {
			return err
		}
		p.put(u)
		p.enrolled++
	}
	return nil
}

// enroll turns TOTP on for a, confirming with the oldest step the server
// accepts now (so that a run right after has the current and the next
// step of the user).
func (p *totpPool) enroll(ctx context.Context, w *worker, a *user) (*totpUser, error) {
	resp, err := w.call(ctx, "enroll", http.MethodPost, "/v1/users/mfa/totp/enroll", nil, authHeader(a)...)
	var e struct {
		Secret string `json:"secret"`
	}
	if err == nil {
		err = w.decode("enroll", resp, &e)
	}
	if err != nil {
		return nil, fmt.Errorf("enroll %s: %w", a.Email, err)
	}
	key, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(e.Secret))
	if err != nil {
		return nil, fmt.Errorf("enroll %s: secret: %w", a.Email, err)
	}
	step, _ := usableStep(0, p.now())
	if _, err := w.call(ctx, "confirm", http.MethodPost, "/v1/users/mfa/totp/confirm", map[string]string{"code": totpCode(key, step)},
		authHeader(a)...); err != nil {
		return nil, fmt.Errorf("confirm %s: %w", a.Email, err)
	}
	return &totpUser{email: a.Email, key: key, lastStep: step}, nil
}

// op logs a user in with its password, then with a TOTP code.
func (p *totpPool) op(ctx context.Context, w *worker) error {
	u, step, err := p.take(ctx)
	if err != nil {
		return err
	}
	defer p.put(u)
	body := map[string]string{"email": u.email, "password": benchPassword}
	a, err := w.callWant(ctx, "login", http.StatusForbidden, http.MethodPost, "/v1/users/login", body, "X-Client", "app", "X-Platform", "bench")
	var first struct {
		MFAToken string `json:"mfaToken"`
	}
	if err == nil {
		err = w.decode("login", a, &first)
	}
	if err != nil {
		return err
	}
	p.first.Add(1)
	verify := map[string]string{"mfaToken": first.MFAToken, "method": "totp", "code": totpCode(u.key, step)}
	if _, err := w.call(ctx, "verify", http.MethodPost, "/v1/users/mfa/verify", verify, "X-Client", "app", "X-Platform", "bench"); err != nil {
		return err
	}
	p.second.Add(1)
	return nil
}

// verify checks that the server hashed a password once per first step:
// the second steps, however many, hashed none.
func (p *totpPool) verify(ctx context.Context, _ *target, _ []*worker) []Check {
	c := Check{Name: "the second step hashes no password"}
	after := p.hashes(ctx)
	first, second := p.first.Load(), p.second.Load()
	if math.IsNaN(after) || math.IsNaN(p.hashesFrom) {
		c.Detail = "the server's actionkit_password_hashes_total could not be read"
		return []Check{c}
	}
	hashes := int64(after - p.hashesFrom)
	c.OK = hashes == first && second > 0
	c.Detail = fmt.Sprintf("%d password hashes on the server for %d first steps (password) and %d second steps (TOTP)", hashes, first, second)
	return []Check{c}
}

// hashes reads the server's password hash counter, NaN when unknown.
func (p *totpPool) hashes(ctx context.Context) float64 {
	if p.target.metricsURL == "" {
		return math.NaN()
	}
	values, err := scrape(ctx, &http.Client{Timeout: 5 * time.Second}, p.target.metricsURL)
	v, ok := values["actionkit_password_hashes_total"]
	if err != nil || !ok {
		return math.NaN()
	}
	return v
}
